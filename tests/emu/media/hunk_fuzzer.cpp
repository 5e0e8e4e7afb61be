// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the hunk reader (docs/testing.md): any bytes must parse or be refused
// with a MediaError, and whatever parses must write back and read again with as many hunks.
// Seeds: the guest test programs. The randomised fuzz_hunk test beside it corrupts one file.

#include "emu/media/byte_reader.h"
#include "emu/media/hunk.h"

#include <cstdio>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    copperline::HunkFile file;
    try {
        file = copperline::readHunkFile(std::span(data, size), "input");
    } catch (const copperline::MediaError&) {
        return 0;
    }
    try {
        const auto again = copperline::readHunkFile(copperline::writeHunkFile(file), "rewrite");
        if (again.sections.size() != file.sections.size()) {
            std::fprintf(stderr, "hunk_fuzzer: the rewrite changed the hunk count\n");
            std::abort();
        }
    } catch (const copperline::MediaError& e) {
        std::fprintf(stderr, "hunk_fuzzer: the rewrite of an accepted file is refused: %s\n",
                     e.what());
        std::abort();
    }
    return 0;
}
