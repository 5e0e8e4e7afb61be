// copperline-ctl: the client of a running Copperline, and the offline tools.
//
//   copperline-ctl hunkinfo PROG     list the hunks, relocations, symbols and line blocks
//                                    of an AmigaOS hunk executable

#include "app/version.h"
#include "emu/media/byte_reader.h"
#include "emu/media/hunk.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void usage(FILE* out) {
    std::fputs("usage: copperline-ctl COMMAND [ARGS]\n"
               "\n"
               "Offline tools:\n"
               "  hunkinfo PROG [--lines]   describe an AmigaOS hunk executable\n"
               "  --version                 print the version\n",
               out);
}

int hunkInfo(int argc, char** argv) {
    std::string path;
    bool lines = false;
    for (int i = 0; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--lines")) lines = true;
        else path = argv[i];
    }
    if (path.empty()) {
        usage(stderr);
        return 2;
    }
    const copperline::HunkFile file = copperline::loadHunkFile(path);
    std::printf("%s: %zu hunks\n", path.c_str(), file.sections.size());
    for (std::size_t h = 0; h < file.sections.size(); ++h) {
        const auto& s = file.sections[h];
        std::printf("hunk %zu  %-4s  %8u bytes  %zu relocs  %zu symbols  %zu line blocks\n", h,
                    copperline::hunkKindName(s.kind), s.allocSize, s.relocs.size(), s.symbols.size(),
                    s.lineBlocks.size());
        for (const auto& sym : s.symbols) std::printf("    %08x  %s\n", sym.offset, sym.name.c_str());
        if (lines)
            for (const auto& b : s.lineBlocks) {
                std::printf("    LINE %s\n", b.file.c_str());
                for (const auto& l : b.lines) std::printf("      %08x  line %u\n", l.offset, l.line);
            }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    try {
        if (cmd == "hunkinfo") return hunkInfo(argc - 2, argv + 2);
        if (cmd == "--version") {
            std::printf("copperline-ctl %s\n", copperline::kVersion);
            return 0;
        }
        if (cmd == "--help" || cmd == "-h") {
            usage(stdout);
            return 0;
        }
    } catch (const copperline::MediaError& e) {
        std::fprintf(stderr, "copperline-ctl: %s\n", e.what());
        return 1;
    }
    std::fprintf(stderr, "copperline-ctl: unknown command '%s'\n", cmd.c_str());
    usage(stderr);
    return 2;
}
