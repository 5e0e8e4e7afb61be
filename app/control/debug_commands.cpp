// SPDX-License-Identifier: GPL-3.0-or-later
// The debug family: what the guest told the host through uaelib (emu/guest_api.h,
// docs/guest-api.md): its registered resources and its idle time per frame.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

const char* kindName(GuestApi::ResourceKind k) {
    switch (k) {
    case GuestApi::ResourceKind::Bitmap: return "bitmap";
    case GuestApi::ResourceKind::Palette: return "palette";
    case GuestApi::ResourceKind::Copper: return "copperlist";
    case GuestApi::ResourceKind::Remove: break;
    }
    return "removed";
}

} // namespace

void addSegmentsJson(json& out, const std::vector<AmigaOsSegment>& segments) {
    json hunks = json::array(), bases = json::array();
    for (const AmigaOsSegment& s : segments) {
        hunks.push_back({{"base", hex(s.base)}, {"size", s.size}});
        bases.push_back(hex(s.base));
    }
    out["hunks"] = std::move(hunks);
    out["relocation_bases"] = std::move(bases);
}

json resourceJson(const GuestApi::Resource& r) {
    json flags = json::array();
    if (r.flags & GuestApi::Interleaved) flags.push_back("interleaved");
    if (r.flags & GuestApi::Masked) flags.push_back("masked");
    if (r.flags & GuestApi::Ham) flags.push_back("ham");
    json out = {{"kind", kindName(r.kind)}, {"address", r.address},
                {"size", r.size},           {"name", p::latin1ToUtf8(r.name)},
                {"flags", r.flags},         {"flag_names", flags},
                {"frame", r.frame}};
    if (r.kind == GuestApi::ResourceKind::Bitmap) {
        out["width"] = r.width;
        out["height"] = r.height;
        out["planes"] = r.depth;
        out["bytes_per_row"] = r.bytesPerRow;
    } else if (r.kind == GuestApi::ResourceKind::Palette) {
        out["entries"] = r.entries;
    }
    return out;
}

void registerDebugCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("debug.resources",
            "The bitmaps, palettes and copper lists the guest registered through uaelib.",
            [&e](const json&) {
                json list = json::array();
                for (const auto& r : e.machine->guestApi().resources())
                    list.push_back(resourceJson(r));
                return json{{"resources", list}};
            });

    bus.add("segments.list",
            "The hunks of the programs the guest's CLI processes run (LoadSeg's segment lists): "
            "the relocation_bases and code_ranges profile.start wants; under --control with --run, "
            "`run` is the program as its loader loaded it last.",
            [&e](const json&) {
                const MachineMemoryView memory(*e.machine);
                const AmigaOsSnapshot os = readAmigaOs(memory);
                json programs = json::array();
                for (const AmigaOsProgram& prog : readCliPrograms(memory, os)) {
                    json entry = {{"task", hex(prog.task)},
                                  {"task_name", p::latin1ToUtf8(prog.taskName)},
                                  {"command", p::latin1ToUtf8(prog.command)},
                                  {"running", os.thisTask && os.thisTask->address == prog.task},
                                  {"seglist", hex(prog.segList)}};
                    addSegmentsJson(entry, prog.segments);
                    programs.push_back(std::move(entry));
                }
                json out = {{"exec", os.exec.has_value()}, {"programs", programs}};
                // The --run program under --control, as its loader loaded it last.
                if (e.run.segList) out["run"] = e.runProgramJson();
                return out;
            });

    bus.add(
        "debug.idle",
        "The guest's idle colour clocks (uaelib's debug_start_idle/debug_stop_idle) in the last "
        "committed frames: {frames} of them, at most 64.",
        {"frames"}, [&e](const json& params) {
            const auto& history = e.machine->guestApi().idleHistory();
            const std::uint64_t want = p::optionalNumber(params, "frames", GuestApi::kIdleHistory)
                                           .value_or(GuestApi::kIdleHistory);
            if (want == 0) throw CommandError(errc::InvalidParams, "frames: must be 1 to 64");
            const GuestApi& api = e.machine->guestApi();
            json frames = json::array();
            const std::size_t first =
                history.size() > want ? history.size() - std::size_t(want) : 0;
            for (std::size_t i = first; i < history.size(); ++i) {
                const auto& f = history[i];
                frames.push_back({{"frame", f.frame},
                                  {"start_cck", f.startCck},
                                  {"length_cck", f.lengthCck},
                                  {"idle_cck", f.idleCck},
                                  {"busy_cck", f.lengthCck - f.idleCck}});
            }
            return json{{"markers_seen", api.idleMarkersSeen()},
                        {"idle", api.idle()},
                        {"last_frame_idle_cck", api.lastFrameIdleCck()},
                        {"frames", frames}};
        });
}

} // namespace copperline
