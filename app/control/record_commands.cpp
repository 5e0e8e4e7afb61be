// SPDX-License-Identifier: GPL-3.0-or-later
// The record's commands (docs/control-protocol.md, docs/record.md): stepping and running
// backward, seeking anywhere the record reaches, its status, and the latest writer of a
// byte. Each stands the machine somewhere through the record (emu/record/record.h), which
// replays with observers muted, so no capture, count or breakpoint is fed twice.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/clock.h"

#include <map>
#include <type_traits>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

constexpr std::uint64_t kMaxCount = 1'000'000;

double secondsAt(const Machine& m, std::uint64_t cycle) {
    return double(cycle) / (m.config().ntsc ? kNtscCpuHz : kPalCpuHz);
}

json pointJson(const Machine& m, const RecordPoint& t) {
    return {{"position", t.instructions},
            {"cck", t.cck},
            {"frame", t.frame},
            {"seconds", secondsAt(m, t.cycle)}};
}

// Puts the machine back where a search through the record started.
void returnTo(Emulator::Impl& e, std::uint64_t cycle) {
    e.record->seek(Record::Key::Cycle, cycle);
}

// Reverse steps land where a forward `step` stops: any boundary but one inside STOP.
class StepBoundaries : public ReplayVisitor {
public:
    bool boundary(Machine& m) override { return !m.cpu().stopped(); }
};

// Where the run loop would have stopped for a breakpoint or a watchpoint.
class BreakHits : public ReplayVisitor, public CpuAccessObserver {
public:
    explicit BreakHits(Emulator::Impl& e) : e_(e) {}
    std::map<std::uint64_t, json> hits;

    void beginStretch() override { e_.watchHits.clear(); }
    bool boundary(Machine& m) override {
        if (!e_.watchHits.empty()) {
            const std::vector<Emulator::Impl::WatchHit> touched = std::move(e_.watchHits);
            e_.watchHits.clear();
            for (const auto& w : touched) {
                // An expression's watch counts a write only when it changed the value, as
                // a forward run does.
                if (const Breakpoint* b = watchOf(w.id); b && b->watched && w.write) {
                    std::vector<std::uint8_t> now(b->length);
                    e_.source.memory().read(b->address, now);
                    if (now == b->replayBefore) continue;
                }
                hits[m.now()] = {{"kind", "watch"},
                                 {"id", w.id},
                                 {"address", w.address},
                                 {"access", w.write ? "write" : "read"},
                                 {"instruction_pc", pc_}};
                return true;
            }
        }
        if (m.cpu().stopped()) return false;
        const std::uint32_t pc = m.cpu().instructionAddress();
        for (const auto& b : e_.breakpoints)
            if (b.stopsAt(pc)) {
                hits[m.now()] = {{"kind", "pc"}, {"id", b.id}};
                return true;
            }
        return false;
    }
    void beforeStep(Machine& m) override {
        pc_ = m.cpu().instructionAddress();
        for (Breakpoint& b : e_.breakpoints)
            if (b.kind == Breakpoint::Kind::Watch && b.watched) {
                b.replayBefore.resize(b.length);
                e_.source.memory().read(b.address, b.replayBefore);
            }
    }
    void cpuAccess(const m68k::BusCycle& c) override { e_.cpuAccess(c); }

private:
    const Breakpoint* watchOf(int id) const {
        for (const Breakpoint& b : e_.breakpoints)
            if (b.id == id) return &b;
        return nullptr;
    }
    Emulator::Impl& e_;
    std::uint32_t pc_ = 0;
};

// The CPU's writes to one byte of RAM (mirrors included).
class WritesTo : public ReplayVisitor, public CpuAccessObserver {
public:
    struct Write {
        std::uint32_t pc = 0;
        std::uint8_t oldValue = 0, newValue = 0;
        RecordPoint at; // the boundary before the writing step
    };
    WritesTo(Machine& m, std::uint32_t address) : m_(m), target_(canonical(address)) {}
    std::map<std::uint64_t, Write> writes; // by the boundary after the writing step

    void beginStretch() override { pending_ = false; }
    bool boundary(Machine& mm) override {
        if (!pending_) {
            before_ = {mm.now(), mm.cpu().instructions(), mm.agnus().cck(), mm.frame()};
            return false;
        }
        pending_ = false;
        writes[mm.now()] = last_;
        before_ = {mm.now(), mm.cpu().instructions(), mm.agnus().cck(), mm.frame()};
        return true;
    }
    void beforeStep(Machine& mm) override { pc_ = mm.cpu().instructionAddress(); }
    void cpuAccess(const m68k::BusCycle& c) override {
        if (c.op != m68k::BusOp::Write && c.op != m68k::BusOp::TestAndSet) return;
        const std::uint32_t word = c.address & 0xFFFFFE;
        for (const bool upper : {true, false}) {
            if (upper ? !c.upper : !c.lower) continue;
            const std::uint32_t a = word + (upper ? 0 : 1);
            if (canonical(a) != target_) continue;
            last_.pc = pc_;
            last_.oldValue = m_.spyByte(a);
            last_.newValue = c.op == m68k::BusOp::TestAndSet
                                 ? std::uint8_t(last_.oldValue | 0x80)
                                 : std::uint8_t(upper ? c.data >> 8 : c.data);
            last_.at = before_;
            pending_ = true;
        }
    }

private:
    std::uint32_t canonical(std::uint32_t a) const {
        a &= 0xFFFFFF;
        if (a < 0x200000) return a & (m_.config().chipRamBytes - 1);
        return 0xC00000 + (a - 0xC00000) % m_.config().slowRamBytes;
    }
    Machine& m_;
    std::uint32_t target_;
    std::uint32_t pc_ = 0;
    RecordPoint before_;
    Write last_;
    bool pending_ = false;
};

// Runs a search back through the record with the visitor as the machine's access probe.
template <class Visitor>
std::optional<std::uint64_t> searchBack(Emulator::Impl& e, Visitor& v, std::uint64_t n) {
    if constexpr (std::is_base_of_v<CpuAccessObserver, Visitor>) e.machine->setAccessProbe(&v);
    std::optional<std::uint64_t> found;
    try {
        found = e.record->findBack(e.machine->now(), n, v);
    } catch (...) {
        e.machine->setAccessProbe(nullptr);
        throw;
    }
    e.machine->setAccessProbe(nullptr);
    return found;
}

std::uint64_t count(const json& params, const char* what) {
    const auto n = p::optionalNumber(params, "n", kMaxCount).value_or(1);
    if (n == 0) fail(errc::InvalidParams, std::string("n: ") + what + " at least 1");
    return n;
}

} // namespace

// The machine stands where the record put it: the views follow, the capture hears of a
// backward move, and the stop is announced like any other.
json arrived(Emulator::Impl& e, const char* reason, std::uint64_t fromCycle, json detail) {
    if (e.machine->now() < fromCycle) e.timelineMoved();
    e.frameCommitted = false;
    e.refreshFrameViews();
    return e.stopRun(reason, std::move(detail));
}

void registerRecordCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("reverse_step",
            "Stands the machine n steps back (default 1), where a forward step would have stopped.",
            {"n"}, [&e](const json& params) {
                const auto n = count(params, "steps back:");
                requirePaused(e, "reverse_step");
                const std::uint64_t from = e.machine->now();
                StepBoundaries v;
                const auto at = searchBack(e, v, n);
                if (!at) {
                    returnTo(e, from);
                    fail(errc::HistoryExhausted, "reverse_step: the record does not reach " +
                                                     std::to_string(n) +
                                                     " steps back; the machine did not move");
                }
                e.record->seek(Record::Key::Cycle, *at);
                return arrived(e, "reverse", from);
            });

    bus.add("reverse_frame",
            "Stands the machine on the first instruction of the frame n frames back (default 1).",
            {"n"}, [&e](const json& params) {
                const auto n = count(params, "frames back:");
                requirePaused(e, "reverse_frame");
                const std::uint64_t frame = e.machine->frame();
                if (n > frame || frame - n < e.record->oldest().frame)
                    fail(errc::HistoryExhausted,
                         "reverse_frame: the record reaches back to frame " +
                             std::to_string(e.record->oldest().frame) +
                             "; the machine did not move");
                const std::uint64_t from = e.machine->now();
                if (!e.record->seek(Record::Key::Frame, frame - n))
                    fail(errc::HistoryExhausted,
                         "reverse_frame: frame " + std::to_string(frame - n) +
                             " starts before the record; the machine did not move");
                return arrived(e, "reverse", from);
            });

    bus.add(
        "reverse_continue",
        "Runs backward to the latest breakpoint or watchpoint hit in the record (or its start).",
        [&e](const json&) {
            requirePaused(e, "reverse_continue");
            if (e.breakpoints.empty())
                fail(errc::InvalidState, "reverse_continue: no breakpoint or watchpoint is set");
            const std::uint64_t from = e.machine->now();
            BreakHits v(e);
            const auto at = searchBack(e, v, 1);
            e.watchHits.clear();
            if (!at) {
                // As a debugger's reverse-continue does: the start of the history.
                e.record->seek(Record::Key::Cycle, e.record->oldest().cycle);
                return arrived(e, "reverse", from, {{"reached_oldest", true}});
            }
            json detail = v.hits[*at];
            e.record->seek(Record::Key::Cycle, *at);
            return arrived(e, "reverse", from, std::move(detail));
        });

    bus.add(
        "timeline.seek",
        "Stands the machine on {position} (retired instructions), {frame} or {cck}: one of them.",
        {"position", "frame", "cck"}, [&e](const json& params) {
            const auto position = p::optionalNumber(params, "position", ~0ull);
            const auto frame = p::optionalNumber(params, "frame", ~0ull);
            const auto cck = p::optionalNumber(params, "cck", ~0ull >> 2);
            if (int(position.has_value()) + int(frame.has_value()) + int(cck.has_value()) != 1)
                fail(errc::InvalidParams,
                     "timeline.seek: give exactly one of position, frame or cck");
            requirePaused(e, "timeline.seek");
            e.record->note();
            const RecordPoint oldest = e.record->oldest(), newest = e.record->newest();
            Record::Key key;
            std::uint64_t value;
            const char* name;
            if (position) {
                key = Record::Key::Instructions, value = *position, name = "position";
            } else if (frame) {
                key = Record::Key::Frame, value = *frame, name = "frame";
            } else {
                key = Record::Key::Cycle, value = *cck * kCyclesPerCck, name = "cck";
            }
            const auto keyOf = [&](const RecordPoint& t) {
                return key == Record::Key::Instructions ? t.instructions
                       : key == Record::Key::Frame      ? t.frame
                                                        : t.cycle;
            };
            const auto shown = [&](const RecordPoint& t) {
                return std::to_string(key == Record::Key::Cycle ? t.cck : keyOf(t));
            };
            if (value > keyOf(newest))
                fail(errc::InvalidParams, std::string(name) + ": the record's newest is " +
                                              shown(newest) + "; the machine did not move");
            if (value < keyOf(oldest))
                fail(errc::HistoryExhausted, std::string(name) + ": the record reaches back to " +
                                                 shown(oldest) + "; the machine did not move");
            const std::uint64_t from = e.machine->now();
            if (!e.record->seek(key, value))
                fail(errc::HistoryExhausted,
                     std::string(name) +
                         ": before the record's oldest boundary; the machine did not move");
            return arrived(e, "seek", from);
        });

    bus.add("timeline.status",
            "What the record holds: oldest and newest positions, snapshots, bytes, budget.",
            [&e](const json&) {
                Record& r = *e.record;
                r.note();
                const Machine& m = *e.machine;
                const RecordPoint here = r.here(), newest = r.newest();
                return json{{"oldest", pointJson(m, r.oldest())},
                            {"newest", pointJson(m, newest)},
                            {"here", pointJson(m, here)},
                            {"seconds_back", secondsAt(m, newest.cycle - here.cycle)},
                            {"in_past", r.inPast()},
                            {"holds_start", r.holdsStart()},
                            {"snapshots", r.snapshotCount()},
                            {"inputs", r.inputCount()},
                            {"interval_frames", r.interval()},
                            {"bytes_used", r.bytesUsed()},
                            {"budget", r.budget()}};
            });

    bus.add("last_writer",
            "The latest CPU write to the RAM byte {addr} inside the record: position, pc, old and "
            "new value.",
            {"addr"}, [&e](const json& params) {
                const auto addr = std::uint32_t(p::number(params, "addr", 0xFFFFFF));
                if (!isRam(*e.machine, addr))
                    fail(errc::InvalidParams, "addr: not RAM (chip RAM, its mirrors, or slow RAM)");
                requirePaused(e, "last_writer");
                const std::uint64_t from = e.machine->now();
                WritesTo v(*e.machine, addr);
                const auto at = searchBack(e, v, 1);
                returnTo(e, from);
                json out = {{"addr", addr}, {"position", pointJson(*e.machine, e.record->here())}};
                if (!at) {
                    out["outcome"] = e.record->holdsStart() ? "never_written" : "beyond_history";
                    return out;
                }
                const auto& w = v.writes[*at];
                out["outcome"] = "found";
                out["record"] = {
                    {"addr", addr},       {"old", w.oldValue},        {"new", w.newValue},
                    {"pc", w.pc},         {"pos", w.at.instructions}, {"cck", w.at.cck},
                    {"frame", w.at.frame}};
                return out;
            });
}

} // namespace copperline
