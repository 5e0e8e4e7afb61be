// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl unwind-table PROG [--elf FILE] --out FILE [--force]
//
// The unwind table of precise CPU sampling (docs/formats/unwind-table.md), built from the
// ELF sibling's DWARF call-frame information: the raw rows to FILE and their base64, the
// text profile.start's "unwind" option takes, to FILE.b64.

#include "profiler/debuginfo/unwind_table.h"

#include "app/ctl/commands.h"
#include "emu/base64.h"
#include "emu/media/file_bytes.h"
#include "profiler/debuginfo/debug_info.h"

#include <cstdio>

namespace copperline::ctl {

int unwindTable(int argc, char** argv) {
    std::string program, out;
    DebugInfoOptions options;
    bool force = false;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{"unwind-table: " + arg + " needs a value"};
            return argv[++i];
        };
        if (arg == "--elf")
            options.elfPath = value();
        else if (arg == "--out")
            out = value();
        else if (arg == "--force")
            force = true;
        else if (!arg.empty() && arg[0] == '-')
            throw UsageError{"unwind-table: unknown option " + arg};
        else if (program.empty())
            program = arg;
        else
            throw UsageError{"unwind-table: more than one program given"};
    }
    if (program.empty()) throw UsageError{"unwind-table: no program given"};
    if (out.empty()) throw UsageError{"unwind-table: --out FILE is required"};
    const std::string b64 = out + ".b64";
    if (!force) {
        refuseToReplace(out, "--force");
        refuseToReplace(b64, "--force");
    }

    const DebugInfo info = DebugInfo::load(program, options);
    for (const std::string& w : info.warnings())
        std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
    std::vector<std::string> warnings;
    UnwindStats stats;
    const UnwindTable table = buildUnwindTable(info, &warnings, &stats);
    for (const std::string& w : warnings)
        std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());

    const std::vector<std::uint8_t> bytes = table.bytes();
    const std::string text = toBase64(bytes) + "\n";
    writeFileBytes(out, bytes);
    writeFileBytes(b64, std::vector<std::uint8_t>(text.begin(), text.end()));

    std::printf("%zu rows for %u bytes of text, %u default (%u without call-frame information, "
                "%u inexpressible); wrote %s and %s\n",
                table.rows.size(), table.textSize, stats.uncoveredRows + stats.unusableRows,
                stats.uncoveredRows, stats.unusableRows, out.c_str(), b64.c_str());
    return 0;
}

} // namespace copperline::ctl
