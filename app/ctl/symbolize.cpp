// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl symbolize PROG [--elf FILE] [--bases B0,B1,...] [--source-map FROM=TO] ADDR...
//
// Prints what the debug-info reader knows of each address: the hunk it lies in, then one
// line per frame, innermost first (an inlined function, then the function it was inlined
// into, at the call's line). Without --bases the hunks sit where the ELF linked them (so
// addresses from m68k-linux-gnu-objdump can be pasted), or packed from 0 without an ELF.

#include "app/ctl/commands.h"
#include "profiler/debuginfo/debug_info.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace copperline::ctl {

namespace {

std::string where(const DebugInfo& info, std::uint32_t file, std::uint32_t line) {
    if (file == kNoFile || line == 0) return "??:0";
    return info.fileName(file) + ":" + std::to_string(line);
}

} // namespace

int symbolize(int argc, char** argv) {
    std::string program;
    DebugInfoOptions options;
    std::vector<std::uint32_t> bases;
    bool haveBases = false;
    std::vector<std::uint32_t> addresses;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{"symbolize: " + arg + " needs a value"};
            return argv[++i];
        };
        if (arg == "--elf")
            options.elfPath = value();
        else if (arg == "--no-elf")
            options.findSibling = false;
        else if (arg == "--source-map")
            options.sourceMap.addSpec(value());
        else if (arg == "--bases") {
            haveBases = true;
            const std::string list = value();
            std::size_t pos = 0;
            while (pos <= list.size()) {
                const std::size_t comma = std::min(list.find(',', pos), list.size());
                bases.push_back(parseAddress(list.substr(pos, comma - pos), "--bases"));
                pos = comma + 1;
            }
        } else if (!arg.empty() && arg[0] == '-' && arg.size() > 1 &&
                   !std::isdigit(static_cast<unsigned char>(arg[1])))
            throw UsageError{"symbolize: unknown option " + arg};
        else if (program.empty())
            program = arg;
        else
            addresses.push_back(parseAddress(arg, "address"));
    }
    if (program.empty()) throw UsageError{"symbolize: no program given"};
    if (addresses.empty()) throw UsageError{"symbolize: no address given"};

    const DebugInfo info = DebugInfo::load(program, options);
    for (const std::string& w : info.warnings())
        std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
    const HunkBases where_(info, haveBases ? bases : info.linkBases());
    // The module an address lies in is named by the program's file name.
    const std::string module = std::filesystem::path(program).filename().string();
    for (const std::uint32_t address : addresses) {
        const AddressInfo a = info.lookup(address, where_);
        if (!a.inProgram) {
            std::printf("0x%08x: unknown (outside the program)\n", address);
            continue;
        }
        const auto frames = info.frames(a);
        std::printf("0x%08x: %s hunk %u (%s)+0x%x%s\n", address, module.c_str(), a.hunk,
                    info.hunks()[a.hunk].section.c_str(), a.offset,
                    frames.empty() ? ": unknown (no debug information)" : "");
        for (const InlineFrame& f : frames) {
            std::string name = f.scope ? f.scope->name : "??";
            if (f.scope && !f.scope->external && f.scope->kind != ScopeKind::Inlined)
                name += " [static]";
            if (f.inlined) name += " (inlined)";
            std::printf("    %s at %s\n", name.c_str(), where(info, f.file, f.line).c_str());
        }
    }
    return 0;
}

} // namespace copperline::ctl
