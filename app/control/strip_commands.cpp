// SPDX-License-Identifier: GPL-3.0-or-later
// The strip family: strip.set, strip.get, strip.bars, strip.select, strip.tree
// (docs/profile-strip.md, docs/control-protocol.md). The machine keeps one start and one way
// of ending, which every profile pane reads; the cuts are profiler/strip/strip_cutter.h's,
// the replayed call tree profiler/strip/call_tree.h's.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/clock.h"
#include "profiler/amigaos/memory_view.h"
#include "profiler/amigaos/code_namer.h"
#include "profiler/strip/call_tree.h"
#include "profiler/strip/strip_trace.h"

#include <cctype>
#include <cstdio>
#include <unordered_map>

namespace copperline {

namespace p = params;
using json = nlohmann::json;
using strip::StripCutter;
using strip::StripFrame;

namespace {

// Every name the machine knows a first instruction by: the --run program's functions
// (relocated by its segments), those of symbols loaded by hand, and the ROM's jump-table
// functions ("[Kick]exec/AllocMem").
std::unordered_map<std::uint32_t, std::string> knownNames(Emulator::Impl& e) {
    std::unordered_map<std::uint32_t, std::string> names;
    try {
        const auto rom = e.systemNamer();
        for (const CodeNamer::RomFunction& f : rom->romFunctions()) {
            const CodeName n = rom->name(f.start);
            if (n.functionStart == f.start) names.emplace(f.start, n.label());
        }
    } catch (const std::exception&) {
        // No AmigaOS to read (a bare-metal program): the program's names alone.
    }
    // A function's first run of bytes holds its first instruction.
    const auto addFunctions = [&names](const DebugInfo& info, const auto& baseOf, std::size_t hunks) {
        std::vector<bool> seen(info.scopes().size(), false);
        for (const ScopeRange& r : info.scopeRanges()) {
            if (r.scope >= info.scopes().size() || seen[r.scope] || r.hunk >= hunks) continue;
            const DebugScope& s = info.scopes()[r.scope];
            if (s.kind != ScopeKind::Function) continue;
            seen[r.scope] = true;
            names[baseOf(r.hunk) + r.start] = s.name;
        }
    };
    // Symbols loaded by hand (symbols.load, --symbols), then the --run program's.
    for (const LoadedSymbols& set : e.loadedSymbols)
        addFunctions(*set.info, [&set](std::uint32_t h) { return set.bases[h]; }, set.bases.size());
    if (e.run.info)
        addFunctions(*e.run.info, [&e](std::uint32_t h) { return e.run.segments[h].base; }, e.run.segments.size());
    return names;
}

std::string hexAddress(std::uint32_t a) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "$%06X", unsigned(a));
    return buf;
}

// A start or an end: an address (a number, "$hex" or "0xhex") or a name. Refused: a name
// nothing holds, an odd address, one where no memory is.
std::uint32_t placeParam(Emulator::Impl& e, const json& params, const char* key, std::string& shown) {
    const json& v = params.at(key);
    std::optional<std::uint32_t> address;
    if (v.is_number_unsigned() || v.is_number_integer()) {
        address = std::uint32_t(p::number(params, key, 0xFFFFFF));
    } else if (v.is_string()) {
        const std::string text = v.get<std::string>();
        if (text.empty()) fail(errc::InvalidParams, std::string(key) + ": empty");
        const bool hex = text[0] == '$' || text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0;
        if (hex || std::isdigit(static_cast<unsigned char>(text[0]))) {
            address = std::uint32_t(p::number(params, key, 0xFFFFFF));
        } else {
            // ROM functions are named "[Kick]exec/AllocMem"; "exec/AllocMem" will do.
            for (const auto& [at, name] : knownNames(e))
                if ((name == text || (name.rfind("[Kick]", 0) == 0 && name.compare(6, std::string::npos, text) == 0)) &&
                    (!address || at < *address))
                    address = at;
            if (!address)
                fail(errc::InvalidParams, std::string(key) + ": no routine is named '" + text +
                                              "' (the loaded program's functions and the ROM's jump tables are "
                                              "known; an address works too)");
            shown = text;
            return *address;
        }
    } else {
        fail(errc::InvalidParams, std::string(key) + ": expected an address or a name");
    }
    if (*address & 1) fail(errc::InvalidParams, std::string(key) + ": " + hexAddress(*address) + " is odd; instructions start at even addresses");
    if (!MachineMemoryView(*e.machine).backed(*address, 2))
        fail(errc::InvalidParams, std::string(key) + ": no memory at " + hexAddress(*address));
    shown = hexAddress(*address);
    return *address;
}

double cckPerSecond(const Emulator::Impl& e) {
    return e.machine->config().ntsc ? kNtscCckHz : kPalCckHz;
}

// The frames the record can still stand the machine on.
std::vector<const StripFrame*> heldFrames(const Emulator::Impl& e) {
    std::vector<const StripFrame*> out;
    const std::uint64_t oldest = e.record->oldest().cycle;
    for (const StripFrame& f : e.strip.frames())
        if (f.begin.cycle >= oldest) out.push_back(&f);
    return out;
}

const StripFrame& frameParam(Emulator::Impl& e, const json& params) {
    const std::vector<const StripFrame*> held = heldFrames(e);
    if (!params.contains("bar")) {
        const std::uint64_t now = e.machine->now();
        for (const StripFrame* f : held)
            if (f->begin.cycle <= now && now < f->end.cycle) return *f;
        fail(errc::InvalidParams, "bar: the machine stands in no profiling frame; give one (strip.bars)");
    }
    const std::uint64_t bar = p::number(params, "bar", ~0ull >> 1);
    for (const StripFrame* f : held)
        if (f->serial == bar) return *f;
    for (const StripFrame& f : e.strip.frames())
        if (f.serial == bar)
            fail(errc::HistoryExhausted, "bar " + std::to_string(bar) + " has left the record (it reaches back to frame " +
                                             std::to_string(e.record->oldest().frame) + ")");
    fail(errc::NotFound, "bar " + std::to_string(bar) + ": no such profiling frame (strip.bars lists them)");
}

json barJson(const Emulator::Impl& e, const StripFrame& f) {
    const std::uint64_t now = e.machine->now();
    json j = {{"bar", f.serial},
              {"position", f.begin.instructions},
              {"cck", f.begin.cck},
              {"frame", f.begin.frame},
              {"end_position", f.end.instructions},
              {"length_cck", f.lengthCck()},
              {"length_us", double(f.lengthCck()) * 1e6 / cckPerSecond(e)},
              {"here", f.begin.cycle <= now && now < f.end.cycle}};
    if (e.strip.spec().mode == StripCutter::Mode::Pass) j["frames_spanned"] = f.framesSpanned();
    return j;
}

} // namespace

// The strip's spec as strip.get gives it; kept beside the cutter for the names as typed.
struct StripNames {
    std::string start, end;
};

void registerStripCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;
    auto names = std::make_shared<StripNames>();

    const auto specJson = [&e, names] {
        const auto& s = e.strip.spec();
        json j = {{"start", s.start ? json(names->start) : json(nullptr)},
                  {"start_address", s.start ? json(*s.start) : json(nullptr)},
                  {"mode", strip::modeName(s.mode)},
                  {"end", s.end ? json(names->end) : json(nullptr)},
                  {"end_address", s.end ? json(*s.end) : json(nullptr)},
                  {"generation", e.strip.generation()}};
        return j;
    };

    bus.add("strip.set",
            "Where profiling frames begin and how they end: {start (an address or a name; empty or null: "
            "none), mode: pass|call|until, end (until)}. Cuts made before are dropped.",
            {"start", "mode", "end"}, [&e, names, specJson](const json& params) {
                StripCutter::Spec spec = e.strip.spec();
                StripNames shown = *names;
                if (params.contains("mode")) {
                    const auto m = strip::modeFromName(p::string(params, "mode"));
                    if (!m) fail(errc::InvalidParams, "mode: expected pass, call or until");
                    spec.mode = *m;
                }
                if (params.contains("start")) {
                    const json& v = params["start"];
                    if (v.is_null() || (v.is_string() && v.get<std::string>().empty())) {
                        spec.start.reset();
                        shown.start.clear();
                    } else {
                        spec.start = placeParam(e, params, "start", shown.start);
                    }
                }
                if (params.contains("end")) {
                    const json& v = params["end"];
                    if (v.is_null() || (v.is_string() && v.get<std::string>().empty())) {
                        spec.end.reset();
                        shown.end.clear();
                    } else {
                        spec.end = placeParam(e, params, "end", shown.end);
                    }
                }
                if (spec.end && spec.mode != StripCutter::Mode::Until)
                    fail(errc::InvalidParams, "end: only an until ends at an instruction (mode \"until\")");
                *names = shown;
                e.strip.set(spec);
                return specJson();
            });
    bus.add("strip.get", "The machine's one start, mode and end.", [specJson](const json&) { return specJson(); });

    bus.add("strip.bars",
            "One bar per profiling frame the record still holds, the oldest first: {bar, position, cck, frame, "
            "end_position, length_cck, length_us, frames_spanned (pass), here}; the open one; a summary.",
            [&e, specJson](const json&) {
                json bars = json::array();
                const std::vector<const StripFrame*> held = heldFrames(e);
                std::uint64_t longest = 0, total = 0, spanned = 0;
                const StripFrame* here = nullptr;
                for (const StripFrame* f : held) {
                    bars.push_back(barJson(e, *f));
                    longest = std::max(longest, f->lengthCck());
                    total += f->lengthCck();
                    spanned += f->framesSpanned();
                    if (bars.back().value("here", false)) here = f;
                }
                // A long frame of the machine's own beam (a frame without interlace): PAL 313
                // lines of 227 colour clocks, NTSC 263 of 227.5 (long and short lines alternate).
                const double frameCck = e.machine->config().ntsc ? 263.0 * 227.5 : 313.0 * 227.0;
                json out = {{"spec", specJson()}, {"bars", std::move(bars)}, {"longest_cck", longest},
                            {"frame_cck", frameCck}};
                if (const auto& o = e.strip.open())
                    out["open"] = {{"position", o->begin.instructions}, {"cck", o->begin.cck}, {"frame", o->begin.frame}};
                else
                    out["open"] = nullptr;
                const double us = 1e6 / cckPerSecond(e);
                char line[200];
                if (!e.strip.armed()) {
                    std::snprintf(line, sizeof line, "no start: strip.set gives one");
                } else if (held.empty()) {
                    std::snprintf(line, sizeof line, "%s", e.strip.open() ? "no profiling frame has ended yet"
                                                                          : "no profiling frame has begun yet");
                } else if (here) {
                    std::snprintf(line, sizeof line, "frame %llu: %.1f us%s", (unsigned long long)here->begin.frame,
                                  double(here->lengthCck()) * us,
                                  e.strip.spec().mode == StripCutter::Mode::Pass
                                      ? (", " + std::to_string(here->framesSpanned()) + " frames").c_str()
                                      : "");
                } else {
                    std::snprintf(line, sizeof line, "%zu profiling frame%s, %.1f us on average, the longest %.1f us",
                                  held.size(), held.size() == 1 ? "" : "s", double(total) * us / double(held.size()),
                                  double(longest) * us);
                }
                out["summary"] = line;
                return out;
            });

    bus.add("strip.select",
            "Stands the machine on the first instruction of profiling frame {bar} (through the record).",
            {"bar"}, [&e](const json& params) {
                requirePaused(e, "strip.select");
                const StripFrame f = frameParam(e, params);
                const std::uint64_t from = e.machine->now();
                if (!e.record->seek(Record::Key::Cycle, f.begin.cycle) || e.machine->now() != f.begin.cycle)
                    fail(errc::HistoryExhausted, "bar " + std::to_string(f.serial) + ": the record cannot stand there");
                json out = arrived(e, "strip", from, {{"bar", f.serial}});
                return out;
            });

    bus.add("strip.tree",
            "The call tree of profiling frame {bar} (default: the one the machine stands in), replayed "
            "through the record: {routine, at, named, kind, total_cck, self_cck, total_us, self_us, calls, "
            "children}. The machine is stood back where it was.",
            {"bar"}, [&e](const json& params) {
                requirePaused(e, "strip.tree");
                const StripFrame f = frameParam(e, params);
                const std::uint64_t back = e.machine->now();
                // (The display is put back with the machine: no picture needed there.)
                if (!e.record->seek(Record::Key::Cycle, f.begin.cycle, false) || e.machine->now() != f.begin.cycle) {
                    e.record->seek(Record::Key::Cycle, back);
                    fail(errc::HistoryExhausted, "bar " + std::to_string(f.serial) + ": the record cannot replay it");
                }
                const auto known = std::make_shared<std::unordered_map<std::uint32_t, std::string>>(knownNames(e));
                const m68k::Registers r = e.machine->cpu().registers();
                const bool supervisor = r.sr & 0x2000;
                strip::CallTreeBuilder builder(
                    [known](std::uint32_t a) -> std::optional<std::string> {
                        const auto it = known->find(a);
                        if (it == known->end()) return std::nullopt;
                        return it->second;
                    },
                    "profiling frame " + std::to_string(f.serial), e.machine->cpu().instructionAddress() & 0xFFFFFF,
                    r.a[7], supervisor);
                strip::TreeReplay visitor(builder);
                e.record->replayTo(Record::Key::Cycle, f.end.cycle, visitor);
                const std::uint64_t reached = e.machine->now();
                e.record->seek(Record::Key::Cycle, back);
                if (e.machine->now() != back)
                    fail(errc::InternalError, "strip.tree: the machine could not be stood back");
                if (reached != f.end.cycle)
                    fail(errc::HistoryExhausted, "bar " + std::to_string(f.serial) + ": the record ends inside it");
                json out = strip::callTreeJson(builder.finish(), cckPerSecond(e));
                out["bar"] = f.serial;
                out["steps"] = visitor.steps();
                out["overflowed"] = builder.overflowed();
                return out;
            });
}

} // namespace copperline
