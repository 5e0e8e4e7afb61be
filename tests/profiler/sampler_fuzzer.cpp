// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the samplers' file readers (docs/testing.md): the first byte of the
// input chooses the reader, the rest is its file.
// - 0 and up (even): sampler.bin and system-modules.bin (parseSystemSamples);
// - odd: a frame's precise samples, the stream and its .meta (parseSamples), split where
//   the next two bytes say, with or without registers.
// A reader either returns what it read, whole and consistent, or throws its error; it
// never crashes, reads out of bounds or hands back a sample whose name index is wrong.

#include "emu/media/byte_reader.h"
#include "profiler/sampling/sample_reader.h"
#include "profiler/sampling/system_samples.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

using namespace copperline;

namespace {

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "sampler_fuzzer: %s\n", what);
    std::abort();
}

void systemSamples(std::span<const std::uint8_t> bytes) {
    SystemSampleFile f;
    try {
        f = parseSystemSamples(bytes);
    } catch (const std::runtime_error&) {
        return;
    }
    if (f.sampleName.size() != f.samples.size()) fail("a sample without its name index");
    for (const std::uint32_t n : f.sampleName)
        if (n != std::numeric_limits<std::uint32_t>::max() && n >= f.names.size()) fail("a name index past the names");
    for (const SystemSample& s : f.samples)
        if (s.irqLevel > 7) fail("an interrupt level above 7");
    for (const SystemSampleModule& m : f.modules) {
        if (m.end < m.start) fail("a module that ends before it starts");
        if (!m.lvoEnds.empty() && m.lvoEnds.size() != m.lvos.size()) fail("function ends not one per entry");
    }
    if ((f.header.flags & sampler_format::kModulesOnly) && !f.samples.empty()) fail("samples in a modules stream");
}

void preciseSamples(std::span<const std::uint8_t> bytes, bool registers) {
    if (bytes.size() < 2) return;
    const std::size_t split = std::min<std::size_t>(bytes.size() - 2, std::size_t(bytes[0]) << 8 | bytes[1]);
    const auto rest = bytes.subspan(2);
    try {
        const std::vector<Sample> samples = parseSamples(rest.first(split), rest.subspan(split), registers, "fuzz");
        for (const Sample& s : samples) {
            if (s.stack.empty()) fail("a sample without a PC");
            if (s.meta.instructionCck + std::uint64_t(s.meta.waitCck) != s.meta.totalCck) fail("parts that do not add up");
            if (registers && s.registers.size() != samples_format::kRegisterWords) fail("registers missing");
        }
    } catch (const MediaError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::span<const std::uint8_t> bytes(data + 1, size - 1);
    if (data[0] & 1) preciseSamples(bytes, data[0] & 2);
    else systemSamples(bytes);
    return 0;
}
