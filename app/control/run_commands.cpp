// SPDX-License-Identifier: GPL-3.0-or-later
// The run family: run.program (open a program as --run does), warp.get and warp.set
// (docs/control-protocol.md).

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"

#include <filesystem>

namespace copperline {

namespace p = params;
using json = nlohmann::json;

json ejectFloppy(Emulator::Impl& e, unsigned n); // media_commands.cpp

namespace {

std::string absolute(const std::string& path) {
    return std::filesystem::absolute(path).lexically_normal().string();
}

json warpJson(const Emulator::Impl& e) {
    const char* source = !e.sessionPaced ? "headless"
                         : e.warpManual  ? "manual"
                         : e.warpGuest   ? "guest"
                         : e.run.warping ? "launch"
                                         : "none";
    return {{"on", !e.options.paced}, {"paced", e.sessionPaced}, {"source", source}};
}

} // namespace

void registerRunCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("run.program",
            "Runs the AmigaOS program {path} as --run does: a disk with it ({args}, more "
            "{files}), a power cycle, a warp until it loads, and a stop at its first "
            "instruction (reason loadseg) unless {stop} is false.",
            {"path", "args", "files", "stop"}, [&e](const json& params) {
                if (!e.options.buildRunDisk)
                    fail(errc::Unsupported,
                         "run.program: this build has no run disk (it needs the 68000 guest toolchain)");
                Emulator::Options::RunDisk request;
                request.program = absolute(p::string(params, "path"));
                request.args = p::optionalString(params, "args").value_or("");
                if (params.contains("files")) {
                    if (!params["files"].is_array())
                        fail(errc::InvalidParams, "files: expected an array of paths");
                    for (const json& f : params["files"]) {
                        if (!f.is_string()) fail(errc::InvalidParams, "files: expected an array of paths");
                        request.files.push_back(absolute(f.get<std::string>()));
                    }
                }
                const bool stop = p::boolean(params, "stop", true);
                AdfImage disk;
                try {
                    disk = e.options.buildRunDisk(request);
                } catch (const std::exception& ex) {
                    fail(errc::CommandFailed, std::string("run.program: ") + ex.what());
                }
                // The user's own disk keeps DF0 (it boots); the run disk goes in DF1 then,
                // as with --run.
                const FloppyDrive& df0 = e.machine->floppy().drive(0);
                const unsigned drive = df0.hasDisk() && !e.floppies[0].path.empty() ? 1 : 0;
                json out = {{"program", request.program}, {"drive", drive}, {"stop", stop}};
                if (e.machine->floppy().drive(drive).hasDisk()) {
                    json was = ejectFloppy(e, drive);
                    was.erase("drive");
                    out["replaced"] = std::move(was);
                }
                e.machine->connectDrive(drive, true);
                e.machine->insertDisk(drive, std::move(disk));
                e.armRun(request.program, stop);
                if (e.run.info)
                    out["debug_info"] = true;
                else
                    out["debug_info_error"] = e.run.infoError;
                // The memory --run gives a program (the most slow RAM an A500 takes and 8 MB
                // of fast RAM), unless the user chose the machine's own.
                if (!e.memoryChosen) {
                    Machine::Config c = e.machine->config();
                    c.slowRamBytes = std::max(c.slowRamBytes, Emulator::kRunSlowRamBytes);
                    c.fastRamBytes = std::max(c.fastRamBytes, Emulator::kRunFastRamBytes);
                    if (!Machine::sameConfig(c, e.machine->config())) e.machine->reconfigure(c);
                }
                const Machine::Config& mem = e.machine->config();
                out["memory"] = {{"chip", mem.chipRamBytes}, {"slow", mem.slowRamBytes}, {"fast", mem.fastRamBytes}};
                // A power cycle, as machine.reset {kind: cold} does: the program boots.
                e.powerCycle();
                out["warp"] = warpJson(e);
                return out;
            });
    bus.add("warp.get",
            "Whether the machine runs unpaced: {on, paced (the session holds to real time "
            "when warp is off), source: none|manual|guest|launch|headless}.",
            [&e](const json&) { return warpJson(e); });
    bus.add("warp.set",
            "Runs unpaced ({on: true}) or at real time ({on: false}); headless sessions are "
            "always unpaced.",
            {"on"}, [&e](const json& params) {
                if (!params.contains("on") || !params["on"].is_boolean())
                    fail(errc::InvalidParams, "on: expected true or false");
                e.warpManual = params["on"].get<bool>();
                // The person's word wins over the program's (uaelib "cpu_speed max").
                if (!e.warpManual) e.warpGuest = false;
                e.updatePacing();
                json out = warpJson(e);
                if (!e.sessionPaced) out["note"] = "a headless session always runs unpaced";
                return out;
            });
}

} // namespace copperline
