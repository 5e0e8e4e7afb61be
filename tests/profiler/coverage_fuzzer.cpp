// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for coverage.bin's reader (docs/testing.md, docs/formats/coverage-bin.md):
// parseCoverageBin either returns coverage that is whole and consistent, or throws its
// MediaError; it never crashes, reads out of bounds or hands back ranges that overlap (in
// any order: the file keeps the order it was given),
// counters that disagree with their sizes, or counts that cannot add up.

#include "tests/fuzz/fuzz_fail.h"
#include "emu/media/byte_reader.h"
#include "profiler/coverage/coverage_file.h"

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

using namespace copperline;

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
    copperline::testing::fuzzFail("coverage_fuzzer", what, detail);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    CoverageData c;
    try {
        c = parseCoverageBin({data, size}, "fuzz");
    } catch (const MediaError&) {
        return 0;
    }
    for (const CoverageData::Range& r : c.ranges) {
        if (r.counters.size() != coverageWords(r.size)) fail("a range whose counters disagree with its size");
        if (std::uint64_t(r.base) + r.size > 0x1000000) fail("a range past the 24-bit address space");
    }
    // The ranges come in the file's order (a program's hunks in any order), none overlapping.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (const CoverageData::Range& r : c.ranges)
        if (r.size) spans.emplace_back(r.base, std::uint64_t(r.base) + r.size); // an empty one holds nothing
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
        if (spans[i].first < spans[i - 1].second) fail("ranges that overlap");
    for (std::size_t i = 0; i < c.sparse.size(); ++i) {
        if (c.sparse[i].first & 1) fail("a sparse entry at an odd address");
        if (i && c.sparse[i].first <= c.sparse[i - 1].first) fail("sparse entries out of order");
    }
    if (!c.saturatedCounters() && c.instructionsInRanges() + c.instructionsInSparse() + c.outside != c.total)
        fail("counts that do not add up to the total");
    // What was read writes back to the same bytes.
    const std::vector<std::uint8_t> again = coverageBinBytes(c);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) fail("a round trip that differs");
    return 0;
}
