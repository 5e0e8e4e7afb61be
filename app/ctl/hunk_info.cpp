// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl hunkinfo PROG [--lines]: the hunks, relocations, symbols and line blocks of
// an AmigaOS hunk executable, as the reader sees them.

#include "app/ctl/commands.h"
#include "emu/media/hunk.h"

#include <cstdio>
#include <cstring>

namespace copperline::ctl {

int hunkInfo(int argc, char** argv) {
    std::string path;
    bool lines = false;
    for (int i = 0; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--lines"))
            lines = true;
        else if (argv[i][0] == '-')
            throw UsageError{std::string("hunkinfo: unknown option ") + argv[i]};
        else
            path = argv[i];
    }
    if (path.empty()) throw UsageError{"hunkinfo: no program given"};
    std::vector<std::string> warnings;
    const HunkFile file = loadHunkFile(path, &warnings);
    for (const std::string& w : warnings)
        std::fprintf(stderr, "copperline-ctl: %s: warning: %s\n", path.c_str(), w.c_str());
    std::printf("%s: %zu hunks\n", path.c_str(), file.sections.size());
    for (std::size_t h = 0; h < file.sections.size(); ++h) {
        const auto& s = file.sections[h];
        std::printf("hunk %zu  %-4s  %8u bytes  %zu relocs  %zu symbols  %zu line blocks\n", h,
                    hunkKindName(s.kind), s.allocSize, s.relocs.size(), s.symbols.size(),
                    s.lineBlocks.size());
        for (const auto& sym : s.symbols)
            std::printf("    %08x  %s\n", sym.offset, sym.name.c_str());
        if (lines)
            for (const auto& b : s.lineBlocks) {
                std::printf("    LINE %s\n", b.file.c_str());
                for (const auto& l : b.lines)
                    std::printf("      %08x  line %u\n", l.offset, l.line);
            }
    }
    return 0;
}

} // namespace copperline::ctl
