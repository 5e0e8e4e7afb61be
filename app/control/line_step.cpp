// SPDX-License-Identifier: GPL-3.0-or-later
// Steps by source line, forward and back (docs/debugger.md, "Steps"): step_line, next_line,
// reverse_step_line, reverse_next_line, and step_out from an inlined call. They follow gdb's
// rules, so that a line step lands where gdb's step, next, reverse-step and reverse-next
// land on the same program:
//
//  - A step ends at the first instruction that starts a row of the line table (a statement)
//    of another line. Arriving in the middle of a row (a return into the caller, a jump into
//    a loop's condition) takes that row's line as the one being stepped, and goes on.
//  - A call (BSR, JSR, TRAP, line A/F) is run through to its return (next_line, and
//    step_line when the routine has no line information); step_line stops in a routine with
//    lines after its prologue. An interrupt or exception is run through to its return.
//  - At the first instruction of an inlined call, step_line goes into it when its call site
//    is on the line being stepped (else it stops at the call site); next_line runs through it.
//  - Backward, the same rules run in reverse over the record of the past: a step back ends at
//    the start of the row it reaches (never at a function's first instruction: it goes on to
//    the call), reverse_next_line passes over calls, reverse_step_line enters them at their
//    return and stops at the start of that line.
//
// The context a step belongs to is the CPU's mode and, in user mode, the running task:
// another task's code, and the system's interrupts, are neither stepped nor stopped in.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

constexpr std::uint64_t kDefaultMaxFrames = 3000; // a minute of PAL: what a step may run
constexpr std::size_t kMaxReverseStretches = 100000;

std::uint32_t activeSp(const Machine& m) {
    return m.cpu().registers().a[7];
}

// What one line step steps: the row and line it is in, the scope (function or inlined call)
// it steps in, and the context.
struct Stepping {
    std::size_t program = 0;
    std::uint32_t hunk = 0, start = 0, end = 0;
    std::uint32_t file = kNoFile, line = 0;
    std::int32_t scope = -1;
    StepContext ctx;

    bool inRange(const SourcePlace& at) const {
        return at.program == program && at.hunk == hunk && at.offset >= start && at.offset < end;
    }
    void setRange(const SourcePlace& at, const StepEntry& e) {
        program = at.program;
        hunk = e.hunk;
        start = e.start;
        end = e.end;
    }
    void setLine(const StepEntry& e) {
        file = e.file;
        line = e.line;
    }
};

// Where the line of `entry` starts when its code is several rows of the line table in a
// row (a statement split by the compiler): stepping backward, the rows before this one with
// the same file and line that end where it begins are the same line, as gdb 14 reads them.
std::uint32_t lineRangeStart(SourceDebugger& src, const SourcePlace& at, const StepEntry& entry) {
    const DebugInfo& info = *src.programs()[at.program].info;
    std::uint32_t start = entry.start;
    for (int guard = 0; start > 0 && guard < 4096; ++guard) {
        const auto prev = info.stepEntry(entry.hunk, start - 1);
        if (!prev || prev->end != start || prev->start >= start || prev->line != entry.line ||
            prev->file != entry.file)
            break;
        const DebugScope* fn = info.function(info.lookup(entry.hunk, prev->start));
        if (fn != info.function(info.lookup(entry.hunk, entry.start))) break;
        start = prev->start;
    }
    return start;
}

// The function's first instruction (where gdb never ends a step backward).
bool atFunctionStart(SourceDebugger& src, const SourcePlace& at) {
    const DebugInfo& info = *src.programs()[at.program].info;
    const DebugScope* fn = info.function(info.lookup(at.hunk, at.offset));
    if (!fn) return false;
    const auto entry = info.entryOf(std::uint32_t(fn - info.scopes().data()));
    return entry && entry->first == at.hunk && entry->second == at.offset;
}

std::optional<StepEntry> entryAt(SourceDebugger& src, const SourcePlace& at) {
    return src.programs()[at.program].info->stepEntry(at.hunk, at.offset);
}

// The program place and line-table row of an address; false where no line describes it.
bool lineAt(SourceDebugger& src, std::uint32_t pc, SourcePlace& at, StepEntry& entry) {
    const auto p = src.place(pc);
    if (!p) return false;
    const auto e = entryAt(src, *p);
    if (!e) return false;
    at = *p;
    entry = *e;
    return true;
}

// What the inline rules say at a place reached in the stepping scope's physical frame:
// how many inlined calls inside the stepping scope hold the place, and whether the place is
// the first instruction of the outermost of them.
struct InlineView {
    std::size_t deeper = 0;
    bool atEntry = false;
    bool inScope = true;
    const DebugScope* outermost = nullptr;
};

InlineView inlineView(SourceDebugger& src, const SourcePlace& at, std::int32_t scope) {
    InlineView v;
    if (scope < 0) return v;
    const auto chain = src.scopeChain(at);
    const auto it = std::find(chain.begin(), chain.end(), scope);
    if (it == chain.end()) {
        v.inScope = false;
        return v;
    }
    v.deeper = std::size_t(it - chain.begin());
    if (v.deeper == 0) return v;
    const DebugInfo& info = *src.programs()[at.program].info;
    const std::int32_t outer = chain[v.deeper - 1];
    v.outermost = &info.scopes()[std::size_t(outer)];
    v.atEntry = info.entersAt(std::uint32_t(outer), at.hunk, at.offset);
    return v;
}

// A forward line step, told of every boundary by the run loop.
class LineStep final : public BoundaryWatch {
public:
    enum class Mode { Step, Next, FinishInline };

    LineStep(Emulator::Impl& e, Mode mode, std::uint64_t maxFrames) : e_(e), mode_(mode) {
        budgetFrame_ = e.machine->frame() + maxFrames;
    }

    // Takes the step's start from where the machine stands. Throws CommandError.
    void arm() {
        Machine& m = *e_.machine;
        SourceDebugger& src = e_.source;
        const std::uint32_t pc = m.cpu().instructionAddress();
        const auto& frames = src.frames(8);
        s_.ctx = stepContext(m);
        if (frames.empty() || !frames.front().place || !entryAt(src, *frames.front().place)) {
            // No line here (a routine without debug information): as gdb does, run until it
            // returns into code that has lines, then step on from there.
            for (std::size_t i = 1; i < frames.size(); ++i) {
                if (!frames[i].place || !frames[i].regs.known(15) || frames[i].inlined) continue;
                if (!entryAt(src, *frames[i].place)) continue;
                phase_ = Phase::ToReturn;
                ret_ = {frames[i].pc, frames[i].regs[15], s_.ctx};
                s_.scope = frames[i].scope;
                s_.program = frames[i].place->program;
                s_.line = 0;
                return;
            }
            fail(errc::InvalidState, std::string(mode_ == Mode::Next ? "next_line" : "step_line") + ": no source line at " +
                                         hex(pc) + " nor in any caller the stack shows; step by instruction");
        }
        const SourcePlace at = *frames.front().place;
        const auto entry = entryAt(src, at);
        s_.setRange(at, *entry);
        s_.setLine(*entry);
        s_.scope = frames.front().scope;
        if (mode_ == Mode::FinishInline && !frames.front().inlined)
            fail(errc::InvalidState, "step_out: the innermost frame is no inlined call");
    }

    void before(Machine& m) override {
        pre_.pc = m.cpu().instructionAddress();
        pre_.sp = activeSp(m);
        pre_.instructions = m.cpu().instructions();
        pre_.ctx = stepContext(m);
    }

    std::optional<Stop> after(Machine& m) override {
        if (m.frame() > budgetFrame_)
            return Stop{"budget", {{"frames", budgetFrame_}}, std::nullopt};
        const auto& cpu = m.cpu();
        if (cpu.stopped()) return std::nullopt; // waiting in STOP: the interrupt decides
        const std::uint32_t pc = cpu.instructionAddress();
        const std::uint32_t sp = activeSp(m);
        switch (phase_) {
        case Phase::ToReturn: {
            if (pc != ret_.pc || sp < ret_.sp || stepContext(m) != ret_.ctx) return std::nullopt;
            phase_ = Phase::Normal;
            return position(m, pc, true);
        }
        case Phase::ToPrologue: {
            const StepContext now = stepContext(m);
            if (now != prologue_.ctx) return std::nullopt;
            if (pc == prologue_.pc && sp <= prologue_.sp) return stop(std::nullopt);
            if (sp > prologue_.sp) { // it returned before reaching its body
                phase_ = Phase::Normal;
                return position(m, pc, true);
            }
            return std::nullopt;
        }
        case Phase::Normal: break;
        }
        const bool retired = cpu.instructions() != pre_.instructions;
        if (!retired) {
            // An interrupt or exception entered: run through to its return.
            if (pc != pre_.pc) {
                phase_ = Phase::ToReturn;
                ret_ = {pre_.pc, pre_.sp, pre_.ctx};
            }
            return std::nullopt;
        }
        std::uint32_t length = 0;
        if (isCallInstruction(m, pre_.pc, &length) && pc != ((pre_.pc + length) & 0xFFFFFF)) {
            if (mode_ == Mode::Step) {
                const auto at = e_.source.place(pc);
                if (at && entryAt(e_.source, *at)) {
                    const std::uint32_t target = e_.source.afterPrologue(*at);
                    if (target == pc) return stop(std::nullopt);
                    phase_ = Phase::ToPrologue;
                    prologue_ = {target, sp, stepContext(m)};
                    return std::nullopt;
                }
            }
            phase_ = Phase::ToReturn;
            ret_ = {(pre_.pc + length) & 0xFFFFFF, pre_.sp, pre_.ctx};
            return std::nullopt;
        }
        if (pre_.ctx != s_.ctx) return std::nullopt;
        return position(m, pc, isReturnInstruction(m.spyWord(pre_.pc)));
    }

private:
    enum class Phase { Normal, ToReturn, ToPrologue };
    struct Pre {
        std::uint32_t pc = 0, sp = 0;
        std::uint64_t instructions = 0;
        StepContext ctx;
    };
    struct Return {
        std::uint32_t pc = 0, sp = 0;
        StepContext ctx;
    };

    std::optional<Stop> stop(std::optional<unsigned> hidden) { return Stop{"step", nullptr, hidden}; }

    // The line rules at a boundary in the stepping context. `frameChanged`: the step left the
    // stepping routine (a return) or came back from a call's run-through.
    std::optional<Stop> position(Machine& m, std::uint32_t pc, bool frameChanged) {
        (void)m;
        SourceDebugger& src = e_.source;
        SourcePlace here;
        StepEntry line;
        if (!lineAt(src, pc, here, line)) {
            // Code without a line: stop, as gdb does (an inlined call is left, too).
            return stop(std::nullopt);
        }
        const SourcePlace* at = &here;
        const StepEntry* entry = &line;
        if (mode_ == Mode::FinishInline) {
            const InlineView v = inlineView(src, *at, s_.scope);
            return v.inScope ? std::nullopt : stop(std::nullopt);
        }
        const InlineView v = inlineView(src, *at, s_.scope);
        if (!v.inScope || frameChanged) {
            // Another routine or inlined call: it is the one stepped now.
            const auto chain = src.scopeChain(*at);
            s_.scope = chain.empty() ? -1 : chain.front();
        } else if (v.deeper > 0) {
            const bool sameLine = v.outermost && v.outermost->callLine == s_.line && v.outermost->callFile == s_.file;
            if (v.atEntry) {
                if (mode_ == Mode::Next) {
                    if (sameLine) return std::nullopt;
                    return stop(unsigned(v.deeper));
                }
                return stop(sameLine ? unsigned(v.deeper - 1) : unsigned(v.deeper));
            }
            if (mode_ == Mode::Next) return std::nullopt; // inside an inlined call run through
            // Into an inlined call past its first instruction (a jump into it): step_line
            // stops there, in it.
            return stop(std::nullopt);
        }
        if (!frameChanged && s_.inRange(*at)) return std::nullopt;
        const bool atStart = at->offset == entry->start;
        const bool otherLine = entry->line != s_.line || entry->file != s_.file || at->program != s_.program;
        if (atStart && otherLine) {
            if (entry->isStmt) return stop(std::nullopt);
            s_.setRange(*at, *entry); // not a statement: its line is not the one left
            return std::nullopt;
        }
        s_.setRange(*at, *entry);
        if (!atStart) s_.setLine(*entry);
        return std::nullopt;
    }

    Emulator::Impl& e_;
    Mode mode_;
    Phase phase_ = Phase::Normal;
    Stepping s_;
    Pre pre_;
    Return ret_;
    struct {
        std::uint32_t pc = 0, sp = 0;
        StepContext ctx;
    } prologue_;
    std::uint64_t budgetFrame_ = 0;
};

// ---- backward ------------------------------------------------------------------------------

struct TracePoint {
    std::uint64_t cycle = 0, instructions = 0;
    std::uint32_t pc = 0, sp = 0;
    std::uint16_t op = 0;
    StepContext ctx;
};

TracePoint tracePoint(const Machine& m) {
    TracePoint t;
    t.cycle = m.now();
    t.instructions = m.cpu().instructions();
    t.pc = m.cpu().instructionAddress();
    t.sp = activeSp(m);
    t.op = m.spyWord(t.pc);
    t.ctx = stepContext(m);
    return t;
}

// Every boundary of one stretch of the record (the CPU waiting in STOP aside).
class Trace final : public ReplayVisitor {
public:
    explicit Trace(std::uint64_t before) : before_(before) {}
    std::vector<TracePoint> points;
    void beginStretch() override { points.clear(); }
    bool boundary(Machine& m) override {
        if (m.now() < before_ && !m.cpu().stopped()) points.push_back(tracePoint(m));
        return true;
    }

private:
    std::uint64_t before_;
};

json reverseLine(Emulator::Impl& e, bool over, const char* name) {
    requirePaused(e, name);
    Machine& m = *e.machine;
    SourceDebugger& src = e.source;
    const std::uint64_t from = m.now();
    const auto& frames = src.frames(1);
    if (frames.empty() || !frames.front().place || !entryAt(src, *frames.front().place))
        fail(errc::InvalidState, std::string(name) + ": no source line at " + hex(m.cpu().instructionAddress()) +
                                     "; use reverse_step");
    Stepping s;
    const SourcePlace start = *frames.front().place;
    s.setRange(start, *entryAt(src, start));
    s.start = lineRangeStart(src, start, *entryAt(src, start));
    s.setLine(*entryAt(src, start));
    s.scope = frames.front().scope;
    s.ctx = stepContext(m);

    TracePoint next = tracePoint(m);
    int depth = 0;
    std::uint32_t returnSp = 0; // inside a callee (depth > 0): the stack pointer after its return
    std::optional<std::uint64_t> target;
    std::optional<unsigned> hidden;
    std::uint64_t before = from;
    bool exhausted = false;
    for (std::size_t stretch = 0; !target && stretch < kMaxReverseStretches; ++stretch) {
        Trace trace(before);
        std::optional<std::uint64_t> found;
        try {
            found = e.record->findBack(before, 1, trace);
        } catch (...) {
            e.record->seek(Record::Key::Cycle, from);
            throw;
        }
        if (!found || trace.points.empty()) {
            exhausted = true;
            break;
        }
        before = trace.points.front().cycle;
        for (auto it = trace.points.rbegin(); it != trace.points.rend() && !target; ++it) {
            const TracePoint& b = *it;
            const TracePoint nxt = next;
            next = b;
            if (b.ctx != s.ctx) continue; // another task's code, or the system's
            // What the step from b to the boundary after it did, read backward.
            // A step into another context (a TRAP, an interrupt, a task switch) is passed
            // over whole: its return, in that context, was passed over too, so it changes
            // no depth.
            std::uint32_t length = 0;
            const bool retired = b.instructions != nxt.instructions;
            const bool sameContext = nxt.ctx == s.ctx;
            bool enteredCallee = false;
            const bool called = sameContext && retired && isCallInstruction(m, b.pc, &length) &&
                                nxt.pc != ((b.pc + length) & 0xFFFFFF);
            if (depth > 0) {
                // Inside a routine called from the stepped one, read backward: it ends at the
                // call made with the stack pointer its return left. Calls and returns in
                // between are not counted: system code returns through pushed addresses and
                // jumps through RTS, which no count keeps up with.
                if (called && b.sp == returnSp) depth = 0;
                else continue;
            } else if (sameContext && retired && isReturnInstruction(b.op)) {
                depth = 1;
                enteredCallee = true;
                returnSp = nxt.sp;
            } else if (called) {
                --depth;
            } else if (sameContext && !retired && nxt.pc != b.pc) {
                --depth; // back out of an interrupt or exception entered here
            }
            SourcePlace here;
            StepEntry line;
            const bool hasLine = lineAt(src, b.pc, here, line);
            const SourcePlace* at = hasLine ? &here : nullptr;
            const StepEntry* entry = hasLine ? &line : nullptr;
            if (depth > 0) {
                // Inside a routine called from the stepped one: passed over, unless
                // reverse_step_line steps into it at its return and it has lines.
                if (over || !enteredCallee || !entry) continue;
                depth = 0;
                s.setRange(*at, *entry);
                s.start = lineRangeStart(src, *at, *entry);
                s.setLine(*entry);
                const auto chain = src.scopeChain(*at);
                s.scope = chain.empty() ? -1 : chain.front();
                if (at->offset == s.start) target = b.cycle;
                continue;
            }
            if (depth < 0) {
                // Back past the routine's entry, at the call in its caller: that line is
                // stepped now, to its start.
                depth = 0;
                if (!entry) {
                    target = b.cycle;
                    break;
                }
                s.setRange(*at, *entry);
                s.start = lineRangeStart(src, *at, *entry);
                s.setLine(*entry);
                const auto chain = src.scopeChain(*at);
                s.scope = chain.empty() ? -1 : chain.front();
                if (at->offset == s.start) target = b.cycle;
                continue;
            }
            if (!entry) {
                target = b.cycle;
                break;
            }
            if (s.scope >= 0) {
                const InlineView v = inlineView(src, *at, s.scope);
                if (v.inScope && v.deeper > 0) {
                    // An inlined call inside the stepped scope, reached backward. At its first
                    // instruction the forward rules hold: reverse_next_line goes on through a
                    // call on the line being stepped and stops at any other call's site;
                    // reverse_step_line stops in it or at its site. Elsewhere in it,
                    // reverse_next_line passes it over and reverse_step_line stops in it.
                    const bool sameLine =
                        v.outermost && v.outermost->callLine == s.line && v.outermost->callFile == s.file;
                    if (v.atEntry) {
                        if (over && sameLine) continue;
                        target = b.cycle;
                        hidden = unsigned(!over && sameLine ? v.deeper - 1 : v.deeper);
                        continue;
                    }
                    if (over) continue;
                    target = b.cycle;
                    continue;
                }
                if (!v.inScope) {
                    const auto chain = src.scopeChain(*at);
                    s.scope = chain.empty() ? -1 : chain.front();
                }
            }
            const bool functionStart = atFunctionStart(src, *at);
            if (s.inRange(*at)) {
                if (at->offset == s.start && !functionStart) target = b.cycle;
                continue;
            }
            const bool atStart = at->offset == entry->start;
            const bool otherLine = entry->line != s.line || entry->file != s.file || at->program != s.program;
            const std::uint32_t lineStart = lineRangeStart(src, *at, *entry);
            if (atStart && otherLine && entry->isStmt && !functionStart && lineStart == at->offset) {
                target = b.cycle;
                continue;
            }
            s.setRange(*at, *entry);
            s.start = lineStart;
            if (!atStart || (otherLine && entry->isStmt)) s.setLine(*entry);
        }
    }
    json detail = nullptr;
    if (!target) {
        // As gdb does at the start of its history: stand on the oldest boundary.
        target = e.record->oldest().cycle;
        detail = exhausted ? json{{"reached_oldest", true}} : json{{"budget", true}};
    }
    e.record->seek(Record::Key::Cycle, *target);
    e.source.invalidate();
    e.stopHiddenInline = hidden;
    return arrived(e, "reverse", from, std::move(detail));
}

std::uint64_t maxFrames(const json& params) {
    const auto n = p::optionalNumber(params, "max_frames", 100000).value_or(kDefaultMaxFrames);
    if (n == 0) fail(errc::InvalidParams, "max_frames: must be at least 1");
    return n;
}

void startLineStep(Emulator::Impl& e, LineStep::Mode mode, const json& params, const char* name) {
    requirePaused(e, name);
    if (e.machine->halted()) fail(errc::InvalidState, std::string(name) + ": the CPU has halted; reset the machine");
    auto step = std::make_unique<LineStep>(e, mode, maxFrames(params));
    step->arm();
    Emulator::Impl::Target t; // runs until the step decides (or a breakpoint, or a pause)
    e.resume(t);
    e.boundaryWatch = std::move(step);
}

} // namespace

bool armInlineFinish(Emulator::Impl& e, const nlohmann::json& params) {
    const auto& frames = e.source.frames(1);
    if (frames.empty() || !frames.front().inlined) return false;
    startLineStep(e, LineStep::Mode::FinishInline, params, "step_out");
    return true;
}

void registerLineStepCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;
    bus.add("step_line",
            "Runs to the start of the next source line, into calls that have line information (after "
            "their prologue) and over those that have none; {max_frames} bounds it (default 3000). "
            "Replies with the stop event, its `source` the line reached.",
            {"max_frames"}, [&e](const json& params) {
                requirePaused(e, "step_line");
                maxFrames(params);
                // At an inlined call's first instruction, shown as its call site: a step goes
                // into it without running, as gdb's step does.
                if (const unsigned hidden = e.source.hiddenInline(); hidden > 0) {
                    e.stopHiddenInline = hidden - 1;
                    return e.stopRun("step");
                }
                startLineStep(e, LineStep::Mode::Step, params, "step_line");
                return json();
            });
    bus.add("next_line",
            "Runs to the start of the next source line of this routine, calls and inlined calls run "
            "through; {max_frames} bounds it (default 3000). Replies with the stop event.",
            {"max_frames"}, [&e](const json& params) {
                startLineStep(e, LineStep::Mode::Next, params, "next_line");
                return json();
            });
    bus.add("reverse_step_line",
            "Stands the machine at the start of the source line executed before this one, through the "
            "record: into a routine that has lines at its return, out to the call at a routine's start.",
            [&e](const json&) { return reverseLine(e, false, "reverse_step_line"); });
    bus.add("reverse_next_line",
            "Stands the machine at the start of the source line of this routine executed before this one, "
            "calls passed over, through the record.",
            [&e](const json&) { return reverseLine(e, true, "reverse_next_line"); });
}

} // namespace copperline
