// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl size-report PROG [--elf PROG.elf] [--out FILE] [--source-map FROM=TO]
//
// A static footprint profile: a .cpuprofile weighted in bytes (hunk, section, function),
// written to PROG.size.cpuprofile unless --out says otherwise, and a ranked table of the
// largest functions and objects on the terminal.

#include "profiler/report/size_report.h"

#include "app/ctl/commands.h"
#include "emu/media/file_bytes.h"
#include "profiler/debuginfo/debug_info.h"

#include <cstdio>
#include <cstring>

namespace copperline::ctl {

int sizeReport(int argc, char** argv) {
    std::string program, out;
    DebugInfoOptions options;
    std::size_t top = 15;
    bool force = false;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{"size-report: " + arg + " needs a value"};
            return argv[++i];
        };
        if (arg == "--elf")
            options.elfPath = value();
        else if (arg == "--no-elf")
            options.findSibling = false;
        else if (arg == "--out")
            out = value();
        else if (arg == "--source-map")
            options.sourceMap.addSpec(value());
        else if (arg == "--force")
            force = true;
        else if (arg == "--top")
            top = parseAddress(value(), "--top");
        else if (!arg.empty() && arg[0] == '-')
            throw UsageError{"size-report: unknown option " + arg};
        else if (program.empty())
            program = arg;
        else
            throw UsageError{"size-report: more than one program given"};
    }
    if (program.empty()) throw UsageError{"size-report: no program given"};
    if (out.empty()) out = program + ".size.cpuprofile";
    if (!force) refuseToReplace(out, "--force");

    const DebugInfo info = DebugInfo::load(program, options);
    for (const std::string& w : info.warnings())
        std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
    const SizeReport report = buildSizeReport(info);
    CpuProfileOptions profileOptions;
    profileOptions.annotation = {{"weight", "bytes"},
                                 {"timeUnit", "1 microsecond = 1 byte"},
                                 {"program", program},
                                 {"elf", info.elfPath()},
                                 {"totalBytes", report.totalBytes}};
    writeCpuProfile(report.tree, out, profileOptions);

    std::printf("%s: %llu bytes in %zu hunk(s)%s\n", program.c_str(),
                static_cast<unsigned long long>(report.totalBytes), info.hunks().size(),
                info.elfPath().empty()
                    ? " (hunk symbols only)"
                    : (" (debug information from " + info.elfPath() + ")").c_str());
    std::printf("%5s %9s %7s  %-32s %s\n", "rank", "bytes", "share", "function", "where");
    for (std::size_t i = 0; i < report.entries.size() && i < top; ++i) {
        const SizeEntry& e = report.entries[i];
        std::string where = "hunk " + std::to_string(e.hunk) + " " + e.section;
        if (!e.file.empty()) where += "  " + e.file + ":" + std::to_string(e.line);
        std::printf("%5zu %9llu %6.1f%%  %-32s %s\n", i + 1,
                    static_cast<unsigned long long>(e.bytes),
                    report.totalBytes ? 100.0 * double(e.bytes) / double(report.totalBytes) : 0.0,
                    e.name.c_str(), where.c_str());
    }
    if (report.entries.size() > top)
        std::printf("      ... %zu more\n", report.entries.size() - top);
    std::printf("unattributed: %llu bytes; wrote %s\n",
                static_cast<unsigned long long>(report.unattributedBytes), out.c_str());
    return 0;
}

} // namespace copperline::ctl
