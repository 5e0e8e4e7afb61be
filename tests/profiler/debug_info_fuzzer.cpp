// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the debug-info reader (docs/testing.md): the input is the ELF sibling
// of a fixed hunk executable (guest_debuginfo_c, whose own ELF is the seed). Any bytes must
// load or be refused with a MediaError (DebugInfoError), and whatever loads must answer
// lookups across every hunk (up to 256 even offsets each, evenly spread, the first and the
// last among them) with frames that name files it has. The randomised
// fuzz_debug_info test beside it corrupts the real ELF in place.

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "profiler/debuginfo/debug_info.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

namespace {
std::vector<std::uint8_t> program;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    program = copperline::readFileBytes(GUEST_DEBUGINFO_C);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto info = copperline::DebugInfo::fromBytes(program, "program",
                                                           std::span(data, size), "program.elf");
        const auto check = [&](std::uint32_t h, std::uint32_t off) {
            const auto at = info.lookup(h, off);
            for (const auto& f : info.frames(at))
                if (f.file != copperline::kNoFile && f.file >= info.files().size()) {
                    std::fprintf(stderr, "debug_info_fuzzer: a frame names file %u of %zu\n", f.file,
                                 info.files().size());
                    std::abort();
                }
            (void)info.function(at);
        };
        for (std::uint32_t h = 0; h < info.hunks().size(); ++h) {
            const std::uint32_t words = (info.hunks()[h].size + 1) / 2;
            const std::uint32_t step = std::max<std::uint32_t>(1, words / 256);
            for (std::uint32_t i = 0; i < words; i += step) check(h, 2 * i);
            if (words) check(h, 2 * (words - 1));
        }
    } catch (const copperline::MediaError&) {
    }
    return 0;
}
