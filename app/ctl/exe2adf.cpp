// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl exe2adf PROG [--out FILE] [--force] [--args ARGS] [--name VOLUME] [--bootblock
// CODE]: a bootable OFS floppy that runs an AmigaOS program (docs/formats/adf.md).
//
// The disk holds PROG in its root and S/Startup-Sequence with the one line ":PROG ARGS",
// and the standard DOS boot block, so a Kickstart (or AROS) boots it into a shell that
// runs the program. With --bootblock, the raw 68000 code in CODE replaces the standard
// boot code (up to 1,012 bytes, entered at offset 12 with A6 = SysBase, A1 = the
// trackdisk IORequest), for boot block programs that take over the machine.

#include "app/ctl/commands.h"
#include "emu/media/adf.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "emu/media/ofs.h"

#include <cstdio>
#include <cstring>
#include <filesystem>

namespace copperline::ctl {

int exe2adf(int argc, char** argv) {
    std::string program, out, args, name, bootCode;
    bool force = false;
    for (int i = 0; i < argc; ++i) {
        auto value = [&](const char* opt) -> std::string {
            if (i + 1 >= argc) throw UsageError{std::string("exe2adf: ") + opt + " needs a value"};
            return argv[++i];
        };
        if (!std::strcmp(argv[i], "--out"))
            out = value("--out");
        else if (!std::strcmp(argv[i], "--args"))
            args = value("--args");
        else if (!std::strcmp(argv[i], "--name"))
            name = value("--name");
        else if (!std::strcmp(argv[i], "--bootblock"))
            bootCode = value("--bootblock");
        else if (!std::strcmp(argv[i], "--force"))
            force = true;
        else if (argv[i][0] == '-')
            throw UsageError{std::string("exe2adf: unknown option ") + argv[i]};
        else if (program.empty())
            program = argv[i];
        else
            throw UsageError{"exe2adf: one program at a time"};
    }
    if (program.empty()) throw UsageError{"exe2adf: no program given"};
    if (out.empty()) out = program + ".adf";
    if (!force) refuseToReplace(out, "--force");

    const std::vector<std::uint8_t> bytes = readFileBytes(program, adf::kImageBytes);
    std::vector<std::string> warnings;
    readHunkFile(bytes, program, &warnings); // refuse what AmigaDOS could not load
    for (const std::string& w : warnings)
        std::fprintf(stderr, "copperline-ctl: %s: warning: %s\n", program.c_str(), w.c_str());
    const std::string file = std::filesystem::path(program).filename().string();
    ofs::Volume volume;
    volume.name = name.empty() ? file.substr(0, ofs::kMaxNameLength) : name;
    volume.files.push_back({file, bytes});
    std::string script = ":" + file + (args.empty() ? "" : " " + args) + "\n";
    volume.files.push_back({"S/Startup-Sequence", {script.begin(), script.end()}});
    AdfImage image = ofs::writeVolume(volume);
    if (!bootCode.empty())
        ofs::installBootBlock(image, readFileBytes(bootCode, 2 * ofs::kBlockBytes));
    saveAdf(out, image);
    std::printf("%s: %s, %zu bytes, S/Startup-Sequence runs :%s\n", out.c_str(),
                volume.name.c_str(), bytes.size(), file.c_str());
    return 0;
}

} // namespace copperline::ctl
