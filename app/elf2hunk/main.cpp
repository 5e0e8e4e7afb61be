// SPDX-License-Identifier: GPL-3.0-or-later
// elf2hunk ELF -o OUT [--force]: writes the AmigaOS hunk executable for a linked m68k ELF.

#include "app/elf2hunk/elf_to_hunk.h"
#include "app/version.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
    std::string in, out;
    bool verbose = false, force = false;
    copperline::ElfToHunkOptions options;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!std::strcmp(argv[i], "-v") || !std::strcmp(argv[i], "--verbose"))
            verbose = true;
        else if (!std::strcmp(argv[i], "-f") || !std::strcmp(argv[i], "--force"))
            force = true;
        else if (!std::strcmp(argv[i], "--bartman"))
            options.bartmanLayout = true;
        else if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
            std::puts(
                "Usage: elf2hunk FILE.elf -o OUT [--force] [--verbose] [--bartman]\n"
                "Writes an AmigaOS hunk executable for an m68k ELF linked with --emit-relocs;\n"
                "an existing OUT only with --force. --bartman lays the hunks out as Bartman's\n"
                "elf2hunk does (each hunk (size + 4) / 4 longwords, symbols NAME@SIZE, no LINE\n"
                "blocks). --verbose lists the hunks written; --version prints the version.");
            return 0;
        } else if (!std::strcmp(argv[i], "--version")) {
            std::printf("elf2hunk %s\n", copperline::kVersion);
            return 0;
        } else if (argv[i][0] == '-') {
            std::fprintf(stderr, "elf2hunk: unknown option %s\n", argv[i]);
            return 2;
        } else
            in = argv[i];
    }
    if (in.empty() || out.empty()) {
        std::fprintf(stderr, "Usage: elf2hunk FILE.elf -o OUT [--force] [--verbose] [--bartman]\n");
        return 2;
    }
    try {
        if (!force) copperline::refuseToReplace(out, "--force");
        const auto result = copperline::convertElfToHunk(in, options);
        copperline::writeFileBytes(out, copperline::writeHunkFile(result.hunks));
        if (verbose) {
            for (std::size_t h = 0; h < result.hunks.sections.size(); ++h) {
                const auto& s = result.hunks.sections[h];
                std::printf(
                    "hunk %zu: %-4s %-8s %6u bytes, %zu relocs, %zu symbols, %zu line blocks\n", h,
                    copperline::hunkKindName(s.kind), result.sectionNames[h].c_str(), s.allocSize,
                    s.relocs.size(), s.symbols.size(), s.lineBlocks.size());
            }
        }
    } catch (const copperline::MediaError& e) {
        std::fprintf(stderr, "elf2hunk: %s\n", e.what());
        return 1;
    }
    return 0;
}
