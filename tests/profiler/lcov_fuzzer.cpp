// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the lcov .info reader (docs/testing.md, profiler/report/lcov_reader.h):
// parseLcov either returns records that hold together (every function counted by FNDA was
// named by FN, hit counts no larger than what they count, each file once per record) or
// throws its MediaError, naming the line without echoing it.

#include "tests/fuzz/fuzz_fail.h"
#include "emu/media/byte_reader.h"
#include "profiler/report/lcov_reader.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace copperline;

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
    copperline::testing::fuzzFail("lcov_fuzzer", what, detail);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    LcovData d;
    try {
        d = parseLcov(text, "fuzz.info");
    } catch (const MediaError& e) {
        if (std::string_view(e.what()).size() > 400) fail("a refusal that echoes its input");
        return 0;
    }
    for (const LcovFile& f : d.files) {
        if (f.linesHit() > f.lines.size()) fail("more lines hit than lines");
        if (f.functionsHit() > f.functions.size()) fail("more functions hit than functions");
        for (const auto& [line, count] : f.lines)
            if (line == 0) fail("a DA for line 0");
        if (d.file(f.path) == nullptr) fail("a file that cannot be found by its own path");
    }
    return 0;
}
