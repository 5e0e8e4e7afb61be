// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl profile STATE.clstate [--rom ROM] [--ext-rom EXT] --out PATH
//     [--frames 1..100] [--format native|bartman] [--force]
// copperline-ctl profile STATE.uss --rom ROM [--ext-rom EXT] --out PATH ...
//
// Profiles a saved machine without a server: loads the state, runs 1-100 frames (default 1)
// and writes a native capture folder with instruction samples and their registers, every
// colour clock's slot record, the memory baseline and a screenshot of every frame
// (docs/profiling.md, "Profiling a saved machine offline"). A WinUAE/FS-UAE state (.uss,
// docs/formats/uss.md) needs the Kickstart it was saved with; its first frame is a
// reconstruction and is run before the capture starts.

#include "app/control/capture_options.h"
#include "app/control/command_bus.h"
#include "app/ctl/commands.h"
#include "emu/machine.h"
#include "emu/state/state_file.h"
#include "emu/state/uss.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/report/bartman_export.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <stdlib.h>

namespace copperline::ctl {

namespace fs = std::filesystem;
using nlohmann::json;


namespace {
int profileMachine(Machine& machine, const RomImage& rom, const std::string& state, const std::string& out,
                   const std::string& format, unsigned frames, bool force);
} // namespace

int profileOffline(int argc, char** argv) {
    std::string state, out, format = "native", romPath, extPath;
    unsigned frames = 1;
    bool force = false;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{"profile: " + arg + " needs a value"};
            return argv[++i];
        };
        if (arg == "--out")
            out = value();
        else if (arg == "--frames") {
            const std::string v = value();
            const std::uint32_t n = parseAddress(v, "--frames");
            if (n < 1 || n > 100) throw UsageError{"profile: --frames wants 1 to 100, not " + v};
            frames = n;
        } else if (arg == "--format")
            format = value();
        else if (arg == "--rom")
            romPath = value();
        else if (arg == "--ext-rom")
            extPath = value();
        else if (arg == "--force")
            force = true;
        else if (!arg.empty() && arg[0] == '-')
            throw UsageError{"profile: unknown option " + arg};
        else if (state.empty())
            state = arg;
        else
            throw UsageError{"profile: more than one state given"};
    }
    if (state.empty()) throw UsageError{"profile: no state file given"};
    if (out.empty()) throw UsageError{"profile: --out PATH names the capture folder (or, with --format bartman, the file)"};
    if (format != "native" && format != "bartman")
        throw UsageError{"profile: --format wants native or bartman, not '" + format + "'"};
    std::string ext = fs::path(state).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool uss = ext == ".uss";
    if (uss && romPath.empty())
        throw UsageError{"profile: a .uss state needs --rom ROM, the Kickstart it was saved with (checked by CRC)"};
    if (format == "bartman" && !force) refuseToReplace(out, "--force");
    if (format == "native" && force && fs::is_directory(out) && !fs::is_empty(out))
        throw MediaError(out + ": --force does not empty a folder; give a new or empty one");

    const std::vector<std::uint8_t> bytes = readFileBytes(state, uss ? uss::kMaxTotalBytes : 64u << 20);
    if (uss) {
        Machine machine;
        const RomImage rom = loadRom(romPath);
        machine.setRom(rom);
        if (!extPath.empty())
            machine.setExtRom(loadRom(extPath));
        else if (needsExtensionRom(rom))
            throw UsageError{"profile: " + romPath + " needs its extension ROM: add --ext-rom FILE"};
        machine.powerOn();
        try {
            const uss::LoadResult loaded = uss::loadUss(machine, bytes);
            std::fprintf(stderr, "copperline-ctl: %s: a state of %s at $%06X; not restored: %zu item(s) "
                                 "(docs/formats/uss.md)\n",
                         state.c_str(), loaded.emulator.c_str(), unsigned(loaded.pc), loaded.notRestored.size());
        } catch (const std::exception& e) {
            throw MediaError(state + ": " + e.what());
        }
        // The first frame is rebuilt from the registers (the Copper and the display start
        // again): it is run and left out of the capture.
        machine.runFrame();
        return profileMachine(machine, rom, state, out, format, frames, force);
    }
    // The header says how the machine was configured (emu/state/state_file.h): the machine
    // is built so, rather than built otherwise and reconfigured by loadState.
    state_file::Header header;
    try {
        header = state_file::read(bytes);
    } catch (const std::exception& e) {
        throw MediaError(state + ": " + e.what());
    }
    Machine::Config config;
    config.ntsc = header.ntsc;
    config.chipRamBytes = header.chipRamBytes;
    config.slowRamBytes = header.slowRamBytes;
    config.fastRamBytes = header.fastRamBytes;
    config.uaelib = header.uaelib;
    Machine machine(config);
    const RomImage rom = loadRom(romPath.empty() ? defaultRomPath() : romPath);
    machine.setRom(rom);
    if (!extPath.empty())
        machine.setExtRom(loadRom(extPath));
    else if (romPath.empty())
        machine.setExtRom(loadRom(defaultExtRomPath()));
    else if (needsExtensionRom(rom))
        throw UsageError{"profile: " + romPath + " needs its extension ROM: add --ext-rom FILE"};
    machine.powerOn();
    try {
        machine.loadState(bytes);
    } catch (const std::exception& e) {
        throw MediaError(state + ": " + e.what() +
                         (std::string(e.what()).find("ROM") != std::string::npos
                              ? " (give the ROM it was saved with: --rom FILE [--ext-rom FILE])"
                              : ""));
    }
    return profileMachine(machine, rom, state, out, format, frames, force);
}

namespace {

int profileMachine(Machine& machine, const RomImage& rom, const std::string& state, const std::string& out,
                   const std::string& format, unsigned frames, bool force) {

    // The binary profile is made from a native capture in a folder of its own, removed after.
    std::string folder = fs::absolute(out).string();
    struct Removed {
        std::string path;
        ~Removed() {
            std::error_code ec;
            if (!path.empty()) fs::remove_all(path, ec);
        }
    } scratch;
    if (format == "bartman") {
        char pattern[] = "/tmp/copperline-profile-XXXXXX";
        if (!::mkdtemp(pattern)) throw MediaError(std::string("profile: cannot make a scratch folder in /tmp"));
        folder = scratch.path = pattern;
    }
    json params = {{"path", folder}, {"frames", frames}, {"samples", true}, {"registers", true},
                   {"slots", true}, {"memory", true}, {"screenshots", "every"}};
    ProfileOptions options;
    try {
        options = parseCaptureOptions(params, "", "");
    } catch (const CommandError& e) {
        throw MediaError(std::string("profile: ") + e.what());
    }
    ProfileSession session;
    try {
        session = startCapture(machine, options, nullptr, [](const std::string& w) {
            std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
        });
    } catch (const CaptureError& e) {
        throw MediaError(std::string("profile: ") + e.what());
    }
    // The state's frame is already under way: the capture covers it from here, then N - 1
    // whole frames.
    const std::uint64_t limit = machine.frame() + frames + 2;
    while (session.capture->status().active() && machine.frame() < limit) machine.runFrame();
    session.capture->finish();
    const CaptureStatus& st = session.capture->status();
    if (st.state == CaptureStatus::State::Failed) throw MediaError("profile: " + st.error);
    if (format == "bartman") {
        const BartmanProfile profile = bartmanProfileFromCapture(readCapture(folder), rom.bytes);
        writeBartmanProfile(profile, out, force);
        std::printf("%s: %zu frame(s) from %s, %llu samples, a Bartman binary profile (%.1f MB)\n", out.c_str(),
                    profile.frames.size(), state.c_str(),
                    static_cast<unsigned long long>(session.sampler->samplesWritten()),
                    double(fs::file_size(out)) / 1e6);
        return 0;
    }
    std::printf("%s: %u frame(s) from %s, %llu samples, %.1f MB\n", options.capture.path.c_str(), st.framesWritten,
                state.c_str(), static_cast<unsigned long long>(session.sampler->samplesWritten()),
                double(st.bytesWritten) / 1e6);
    return 0;
}

} // namespace

} // namespace copperline::ctl
