// SPDX-License-Identifier: GPL-3.0-or-later
// The Frame Analyzer's commands (docs/control-protocol.md has a page for each): the slot
// records of the last committed frame, its CPU waits and its blits, and pictures of a
// blit's channels. Every handler runs on the emulator thread and checks all its
// parameters before it changes anything.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/base64.h"
#include "emu/chipset/custom_regs.h"
#include "profiler/capture/blit_render.h"
#include "profiler/capture/frame_capture.h"

#include <filesystem>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

// frame.waits returns this many stalled instructions unless asked for more (the capture's
// profile.jsonl keeps 16 too); never more than kMaxStallPcs.
constexpr std::uint64_t kDefaultStallPcs = 16;
constexpr std::uint64_t kMaxStallPcs = 4096;

// The wait grid with each denied clock's denier: a byte per colour clock, row-major with
// line_cck per row, 0 where the CPU was not denied and 1 + the BusOwner that held the
// clock where it was (the owner grid of the same frame, so the two always agree).
std::vector<std::uint8_t> denierGrid(const FrameStats& f, const std::vector<std::uint8_t>& owners,
                                     unsigned lines) {
    std::vector<std::uint8_t> out(std::size_t(lines) * f.lineCck, 0);
    std::size_t n = 0;
    for (std::uint32_t v = 0; v < lines; ++v)
        for (std::uint32_t h = 0; h < f.lineCck; ++h, ++n) {
            const std::size_t at = std::size_t(v) * Agnus::kMaxLineCck + h;
            if (at < f.cpuWaitGrid.size() && f.cpuWaitGrid[at])
                out[n] = std::uint8_t(1 + (at < owners.size() ? owners[at] : 0));
        }
    return out;
}

// One of the frames the machine holds the waits and blits of: the last committed (the
// default), the one before it while it is known, or the one in progress (to the beam).
struct HeldFrame {
    const FrameStats* stats = nullptr;
    const std::vector<std::uint8_t>* owners = nullptr; // the same frame's owner grid
    unsigned lines = 0;
    bool inProgress = false;
};

HeldFrame heldFrame(Emulator::Impl& e, const json& params) {
    const Machine& m = *e.machine;
    const Agnus& a = e.machine->agnus();
    const FrameStats& last = m.lastFrameStats();
    const FrameStats& before = m.previousFrameStats();
    const bool beforeKnown = before.lines > 0 && before.frame + 1 == last.frame && a.previousLines() > 0;
    const auto asked = p::optionalNumber(params, "frame", ~0ull >> 1);
    if (!asked || *asked == last.frame) return {&last, &a.committedOwners(), last.lines, false};
    if (*asked == m.frame()) return {&m.frameStatsInProgress(), &a.ownersInProgress(), a.frameLines(), true};
    if (beforeKnown && *asked == before.frame) return {&before, &a.previousOwners(), before.lines, false};
    std::string held = std::to_string(last.frame) + " (the last committed) and " + std::to_string(m.frame()) +
                       " (in progress)";
    if (beforeKnown) held = std::to_string(before.frame) + ", " + held;
    fail(errc::InvalidParams, "frame: " + std::to_string(*asked) + " is not held; the frames held are " + held);
}

} // namespace

void registerFrameCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("frame.record",
            "Arms {on: true} or disarms full slot recording and the blit trace for the Frame "
            "Analyzer.",
            {"on"}, [&e](const json& p) {
                const bool on = p::boolean(p, "on", true);
                e.publishRecords = on;
                e.updateSlotRecording(); // a capture with slots keeps them armed
                e.machine->blitTrace().setEnabled(on);
                return json{{"recording", e.machine->agnus().recordingSlots()},
                            {"blit_trace", e.machine->blitTrace().enabled()}};
            });
    bus.add("frame.slots",
            "The slots of {row} of the last committed frame; arms recording for the next.", {"row"},
            [&e](const json& p) {
                auto& a = e.machine->agnus();
                const auto row = p::number(p, "row", 0x7FF);
                const unsigned lines = a.committedLines();
                if (row >= lines)
                    fail(errc::InvalidParams,
                         "row: the committed frame has " + std::to_string(lines) + " rows");
                const bool wasRecording = a.recordingSlots();
                a.setRecordSlots(true);
                const auto& records = a.committedRecords();
                const bool recorded = wasRecording && !records.empty();
                // NTSC: the row's own length (a short line's 228th record is no clock).
                OwnerGrid shape;
                shape.lineCck = e.machine->config().ntsc ? OwnerGrid::kStride : 227;
                shape.firstLineLong = ntscFirstLineLongBefore(lines, ntscFirstLineLong(a.vpos(), a.lineLength()));
                const unsigned lineCck = shape.rowCck(unsigned(row));
                json slotRecords = json::array();
                for (unsigned h = 0; h < lineCck; ++h) {
                    const std::size_t at = std::size_t(row) * Agnus::kMaxLineCck + h;
                    const auto owner = BusOwner(a.committedOwners()[at]);
                    json s = {{"hpos", h}, {"owner", busOwnerName(owner)}};
                    if (recorded) {
                        const SlotRecord& r = records[at];
                        s["subtype"] = r.subtype;
                        s["size"] = r.size;
                        s["ipl"] = r.ipl;
                        s["flags"] = r.flags;
                        s["data"] = r.data;
                        s["address"] = r.address;
                        s["events"] = r.events;
                        if (r.flags & slot_flag::Register) {
                            s["reg"] = r.reg;
                            if (const char* n = reg::name(r.reg)) s["reg_name"] = n;
                        }
                    }
                    slotRecords.push_back(std::move(s));
                }
                return json{{"frame", e.machine->frame() - 1},
                            {"row", row},
                            {"line_cck", lineCck},
                            {"recorded", recorded},
                            {"slots", slotRecords}};
            });
    bus.add("frame.waits",
            "The CPU's chip-bus waits in the last committed frame (or {frame}: the one before it, or the "
            "one in progress): by denier, by access kind, the "
            "{top} most stalled instructions (default 16), each line's denied clocks and, with "
            "{grid: true}, every denied clock.",
            {"top", "grid", "frame"}, [&e](const json& p) {
                const auto top =
                    p::optionalNumber(p, "top", kMaxStallPcs).value_or(kDefaultStallPcs);
                const bool grid = p::boolean(p, "grid", false);
                const HeldFrame held = heldFrame(e, p);
                const FrameStats& f = *held.stats;
                // The record's header and CPU fields as profile.jsonl has them, with each
                // line's denied clocks and their total.
                json out = cpuWaitFields(f, std::size_t(top));
                out["frame"] = f.frame;
                out["partial"] = f.partial || held.inProgress;
                out["in_progress"] = held.inProgress;
                out["first_cck"] = f.firstCck;
                out["length_cck"] = held.inProgress ? e.machine->agnus().cck() - f.firstCck : f.lengthCck;
                out["lines"] = held.lines;
                out["line_cck"] = f.lineCck;
                json lines = json::array();
                std::uint64_t denied = 0;
                for (std::uint32_t v = 0; v < held.lines; ++v) {
                    const std::size_t at = std::size_t(v) * Agnus::kMaxLineCck;
                    std::uint32_t n = 0;
                    for (std::uint32_t h = 0; h < f.lineCck && at + h < f.cpuWaitGrid.size(); ++h)
                        n += f.cpuWaitGrid[at + h];
                    lines.push_back(n);
                    denied += n;
                }
                out["line_wait_cck"] = std::move(lines);
                out["wait_cck"] = denied;
                if (grid) {
                    const auto bytes = denierGrid(f, *held.owners, held.lines);
                    out["grid"] = toBase64(bytes);
                }
                return out;
            });
    bus.add("frame.blits",
            "The blits of the last committed frame (or {frame}: the one before it, or the one in "
            "progress), in start order; arms the blit trace that blit.render draws from.",
            {"frame"}, [&e](const json& p) {
                const HeldFrame held = heldFrame(e, p);
                BlitTrace& trace = e.machine->blitTrace();
                const bool wasTracing = trace.enabled();
                trace.setEnabled(true);
                const FrameStats& f = *held.stats;
                json blits = json::array();
                for (const BlitRecord& b : f.blits) {
                    json j = blitJson(b);
                    j["size"] = std::to_string(b.width) + "x" + std::to_string(b.height);
                    const BlitWords* w = wasTracing ? trace.find(b.id) : nullptr;
                    j["traced"] = w != nullptr;
                    if (w) j["truncated"] = w->truncated;
                    blits.push_back(std::move(j));
                }
                return json{{"frame", f.frame},
                            {"partial", f.partial || held.inProgress},
                            {"in_progress", held.inProgress},
                            {"blits", blits}};
            });
    bus.add("blit.render",
            "Writes a picture of one channel of blit {id} (channel A, B, C, D or result) from its "
            "traced DMA words to the PNG {path}; {overwrite: true} replaces an existing file.",
            {"id", "channel", "path", "overwrite"}, [&e](const json& p) {
                const auto id = std::uint32_t(p::number(p, "id"));
                const std::string name = p::string(p, "channel");
                const std::string path = p::string(p, "path");
                const bool overwrite = p::boolean(p, "overwrite", false);
                const auto stream = blitStreamFromName(name);
                if (!stream)
                    fail(errc::InvalidParams,
                         "channel: \"" + name + "\" is not A, B, C, D or result");
                if (path.empty()) fail(errc::InvalidParams, "path: empty");
                const BlitTrace& trace = e.machine->blitTrace();
                const BlitWords* w = trace.find(id);
                if (!w)
                    fail(errc::NotFound,
                         "blit " + std::to_string(id) +
                             " is not in the blit trace (it keeps the blits of the last " +
                             std::to_string(BlitTrace::kFramesKept) +
                             " committed frames while armed: frame.blits or frame.record arm it)");
                if (!blitHasStream(w->blit, *stream))
                    fail(errc::CommandFailed, "channel " + name + ": blit " + std::to_string(id) +
                                                  " (channels " + blitChannels(w->blit.bltcon0) +
                                                  ") does not use it");
                std::error_code ec;
                if (!overwrite && std::filesystem::exists(path, ec))
                    fail(errc::HostIo, path + ": exists (overwrite: true replaces it)");
                const Image img = renderBlitStream(*w, *stream);
                try {
                    writePng(path, img);
                } catch (const std::exception& ex) {
                    fail(errc::HostIo, ex.what());
                }
                const auto& words = w->words[unsigned(*stream)];
                return json{{"id", id},
                            {"channel", blitStreamName(*stream)},
                            {"path", path},
                            {"width", img.width},
                            {"height", img.height},
                            {"words", words.size()},
                            {"truncated", w->truncated}};
            });
}

} // namespace copperline
