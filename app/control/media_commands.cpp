// SPDX-License-Identifier: GPL-3.0-or-later
// The media family: media.floppy.insert, media.floppy.eject, media.floppy.query
// (docs/control-protocol.md). A disk the guest changed goes back to its file, where the
// user asked, as it leaves the drive (floppy_files.h).

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"

#include <filesystem>

namespace copperline {

namespace p = params;
using json = nlohmann::json;

namespace {

unsigned driveParam(const json& params) {
    return unsigned(p::number(params, "drive", 3));
}

// Takes the disk out of drive n, writing it back first; a disk whose file cannot be
// written stays in the drive and the command fails.
json takeOut(Emulator::Impl& e, unsigned n) {
    json out = {{"drive", n}};
    if (!e.machine->floppy().drive(n).hasDisk()) return out;
    try {
        const std::string said = e.releaseDisk(n);
        if (!said.empty()) out["note"] = said;
    } catch (const std::exception& ex) {
        fail(errc::HostIo, "DF" + std::to_string(n) + ": " + ex.what() + "; the disk stays in the drive");
    }
    out["ejected"] = e.floppies[n].path.empty() ? json("(a disk of Copperline's own)") : json(e.floppies[n].path);
    e.machine->ejectDisk(n);
    e.floppies[n] = {};
    return out;
}

// A disk change is not an input the record can replay: the past before it is another
// timeline, as after a reset.
void diskChanged(Emulator::Impl& e) {
    e.record->restart();
}

} // namespace

// Used by run.program too (run_commands.cpp).
json ejectFloppy(Emulator::Impl& e, unsigned n) {
    return takeOut(e, n);
}

void registerMediaCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("media.floppy.insert",
            "Inserts the ADF {path} into {drive} 0..3 ({writeback}: the guest's writes go back "
            "to the file); the disk there before is ejected first.",
            {"drive", "path", "writeback"}, [&e](const json& params) {
                const unsigned n = driveParam(params);
                const std::string path =
                    std::filesystem::absolute(p::string(params, "path")).lexically_normal().string();
                const bool writeback = p::boolean(params, "writeback", false);
                AdfImage image;
                try {
                    image = loadAdf(path);
                } catch (const MediaError& ex) {
                    fail(errc::CommandFailed, ex.what());
                }
                if (writeback && image.writeProtected)
                    fail(errc::InvalidParams, path + " is write-protected; it cannot take the guest's writes");
                json out = {{"drive", n}, {"path", path}, {"writeback", writeback}};
                if (e.machine->floppy().drive(n).hasDisk()) {
                    json was = takeOut(e, n);
                    was.erase("drive");
                    out["replaced"] = std::move(was);
                }
                if (!e.machine->floppy().drive(n).connected()) {
                    // An external drive connected now: AmigaOS looks for drives as it boots.
                    e.machine->connectDrive(n, true);
                    out["connected"] = true;
                    out["note"] = "DF" + std::to_string(n) +
                                  " was not connected; AmigaOS finds it at the next reset";
                }
                e.machine->insertDisk(n, std::move(image));
                e.floppies[n] = {path, writeback};
                diskChanged(e);
                return out;
            });
    bus.add("media.floppy.eject",
            "Ejects the disk in {drive} 0..3, writing the guest's changes back where asked.",
            {"drive"}, [&e](const json& params) {
                const unsigned n = driveParam(params);
                if (!e.machine->floppy().drive(n).hasDisk())
                    fail(errc::NotFound, "DF" + std::to_string(n) + " holds no disk");
                json out = takeOut(e, n);
                diskChanged(e);
                return out;
            });
    bus.add("media.floppy.query",
            "Each drive: connected, its disk's file, writeback, whether the guest changed it.",
            [&e](const json&) {
                json drives = json::array();
                for (unsigned n = 0; n < 4; ++n) {
                    const FloppyDrive& d = e.machine->floppy().drive(n);
                    json j = {{"drive", n},
                              {"connected", d.connected()},
                              {"disk", d.hasDisk()},
                              {"path", e.floppies[n].path.empty() ? json(nullptr) : json(e.floppies[n].path)},
                              {"writeback", e.floppies[n].writeback},
                              {"modified", d.changedByGuest()}};
                    if (d.hasDisk()) j["name"] = d.disk().name;
                    drives.push_back(std::move(j));
                }
                return json{{"drives", std::move(drives)}};
            });
}

} // namespace copperline
