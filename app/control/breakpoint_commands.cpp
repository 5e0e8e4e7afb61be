// SPDX-License-Identifier: GPL-3.0-or-later
// The breakpoints family: break.add, break.remove, break.list, break.clear
// (docs/control-protocol.md, docs/debugger.md). Breakpoints on an address, a source line
// (every address the line table gives it, inlined copies included), a function, or the
// bytes of a variable; with conditions, hit counts and log points. Handlers run on the
// emulator thread and check every parameter before they change anything.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

const char* kindName(Breakpoint::Kind k) {
    switch (k) {
    case Breakpoint::Kind::Pc: return "pc";
    case Breakpoint::Kind::Watch: return "watch";
    case Breakpoint::Kind::Line: return "line";
    case Breakpoint::Kind::Function: return "function";
    case Breakpoint::Kind::Catch: return "catch";
    }
    return "?";
}

json locationJson(const SourceDebugger::Location& l) {
    json out = {{"addr", l.address}};
    if (!l.file.empty()) out["file"] = l.file;
    if (l.line) out["line"] = l.line;
    if (!l.function.empty()) out["function"] = l.function;
    return out;
}

json breakpointJson(const Breakpoint& b) {
    json out = {{"id", b.id}, {"kind", kindName(b.kind)}, {"hits", b.hits}};
    switch (b.kind) {
    case Breakpoint::Kind::Pc: out["addr"] = b.address; break;
    case Breakpoint::Kind::Watch:
        out["addr"] = b.address;
        out["len"] = b.length;
        out["access"] = b.onRead && b.onWrite ? "access" : b.onRead ? "read" : "write";
        if (!b.expr.empty()) out["expr"] = b.expr;
        break;
    case Breakpoint::Kind::Line:
        out["file"] = b.file;
        out["line"] = b.line;
        break;
    case Breakpoint::Kind::Function: out["name"] = b.function; break;
    case Breakpoint::Kind::Catch:
        out["vector"] = b.vector;
        out["name"] = exceptionName(b.vector);
        if (b.outsideRom) out["outside_rom"] = true;
        break;
    }
    if (b.kind == Breakpoint::Kind::Line || b.kind == Breakpoint::Kind::Function) {
        json locations = json::array();
        for (const auto& l : b.locations) locations.push_back(locationJson(l));
        out["locations"] = locations;
        out["verified"] = !b.locations.empty();
        if (!b.pending.empty()) out["pending"] = b.pending;
        // Where it went: the line the first location is on (a line without code moves on).
        if (!b.locations.empty()) {
            out["actual_line"] = b.locations.front().line;
            out["actual_file"] = b.locations.front().file;
        }
    }
    if (b.condition) out["cond"] = b.condition->text();
    if (b.ignore) out["ignore"] = b.ignore;
    if (!b.log.empty()) out["log"] = b.log;
    return out;
}

// A log point's message with each {expression} replaced by its value in the innermost frame.
std::string interpolate(Emulator::Impl& e, const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '{') {
            out += text[i];
            continue;
        }
        const std::size_t close = text.find('}', i);
        if (close == std::string::npos) {
            out += text.substr(i);
            break;
        }
        const std::string expr = text.substr(i + 1, close - i - 1);
        try {
            out += e.source.format(e.source.evaluate(expr, 0), 0);
        } catch (const std::exception& ex) {
            out += std::string("<") + ex.what() + ">";
        }
        i = close;
    }
    return out;
}

} // namespace

bool Breakpoint::stopsAt(std::uint32_t pc) const {
    switch (kind) {
    case Kind::Pc: return address == pc;
    case Kind::Line:
    case Kind::Function:
        return std::any_of(locations.begin(), locations.end(),
                           [pc](const SourceDebugger::Location& l) { return l.address == pc; });
    case Kind::Watch:
    case Kind::Catch: return false;
    }
    return false;
}

std::string exceptionName(unsigned vector) {
    switch (vector) {
    case m68k::kVectorBusError: return "bus error";
    case m68k::kVectorAddressError: return "address error";
    case m68k::kVectorIllegal: return "illegal instruction";
    case m68k::kVectorZeroDivide: return "division by zero";
    case m68k::kVectorChk: return "CHK";
    case m68k::kVectorTrapv: return "TRAPV";
    case m68k::kVectorPrivilege: return "privilege violation";
    case m68k::kVectorLineA: return "line A";
    case m68k::kVectorLineF: return "line F";
    default: break;
    }
    if (vector >= m68k::kVectorTrap0 && vector < m68k::kVectorTrap0 + 16u)
        return "TRAP #" + std::to_string(vector - m68k::kVectorTrap0);
    return "vector " + std::to_string(vector);
}

std::optional<nlohmann::json> catchStops(Emulator::Impl& e, const m68k::ExceptionInfo& taken,
                                         std::uint32_t instructionPc) {
    constexpr std::uint32_t kRomStart = 0xE00000;
    std::optional<json> detail;
    for (Breakpoint& b : e.breakpoints) {
        if (b.kind != Breakpoint::Kind::Catch || b.vector != taken.vector) continue;
        if (b.outsideRom && instructionPc >= kRomStart) continue;
        ++b.hits;
        if (b.hits <= b.ignore) continue;
        if (!detail)
            detail = json{{"id", b.id},
                          {"vector", b.vector},
                          {"name", exceptionName(b.vector)},
                          {"instruction_pc", instructionPc},
                          {"handler", taken.handler},
                          {"where", e.source.describe(instructionPc)}};
    }
    return detail;
}

void Emulator::Impl::resolveBreakpoints() {
    for (Breakpoint& b : breakpoints) {
        if (b.kind != Breakpoint::Kind::Line && b.kind != Breakpoint::Kind::Function) continue;
        std::string why;
        b.locations = b.kind == Breakpoint::Kind::Line ? source.lineLocations(b.file, b.line, why)
                                                       : source.functionLocations(b.function, why);
        b.pending = b.locations.empty() ? why : std::string();
    }
    rebuildBreakIndex();
}

std::optional<nlohmann::json> Emulator::Impl::breakpointStop(std::uint32_t pc) {
    // The machine moved since the debugger last looked.
    source.invalidate();
    json ids = json::array();
    json detail = json::object();
    std::optional<unsigned> hidden;
    for (Breakpoint& b : breakpoints) {
        if (!b.stopsAt(pc)) continue;
        if (b.condition) {
            bool holds = false;
            try {
                holds = b.condition->test(source.values(0), source.sourceFrame(0), source.memory());
            } catch (const std::exception& ex) {
                // A condition that cannot be evaluated here stops, saying why, as gdb does.
                detail["condition_error"] = ex.what();
                holds = true;
            }
            if (!holds) continue;
        }
        ++b.hits;
        if (b.hits <= b.ignore) continue;
        if (!b.log.empty()) {
            sendEvent("event.log", {{"id", b.id}, {"text", interpolate(*this, b.log)}, {"pc", pc}});
            continue;
        }
        ids.push_back(b.id);
        // An address's breakpoint shows the innermost frame there, as gdb does.
        if (!hidden && b.kind == Breakpoint::Kind::Pc) hidden = 0;
        // A line's breakpoint in an inlined copy shows that copy's frame.
        if (!hidden)
            for (const auto& l : b.locations)
                if (l.address == pc && l.scope >= 0) hidden = source.inlineDepthOf(pc, l.scope);
    }
    if (ids.empty()) return std::nullopt;
    detail["id"] = ids.front();
    if (ids.size() > 1) detail["ids"] = ids;
    if (hidden) stopHiddenInline = *hidden;
    return detail;
}

void registerBreakpointCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add(
        "break.add",
        "Adds a breakpoint: {kind:\"pc\", addr}, {kind:\"line\", file, line}, {kind:\"function\", name}, "
        "{kind:\"watch\", addr, len, access} or {kind:\"watch\", expr, frame, access}; any of them with "
        "cond (a C expression), ignore (hits to pass over) and, but for watches, log (a message with "
        "{expressions}, printed instead of stopping). A watch on an expression stops when its value "
        "changes, and one on a local goes with its frame. pending: true keeps a line or function "
        "no program has yet, placed when one loads. {kind:\"catch\", vector, outside_rom} stops before an "
        "instruction that raises the exception (vectors 2-8, 10, 11, 32-47).",
        {"kind", "addr", "len", "access", "file", "line", "name", "expr", "frame", "cond", "ignore", "log", "pending",
         "vector", "outside_rom"},
        [&e](const json& p) {
            const std::string kind = p::string(p, "kind");
            // A line or function no program loaded has yet: kept, unverified, and placed when
            // a program with it loads (gdb's pending breakpoint), when asked for.
            const bool pending = p::boolean(p, "pending", false);
            if (pending && kind != "line" && kind != "function")
                fail(errc::InvalidParams, "pending: only line and function breakpoints wait for a program");
            Breakpoint b;
            const auto only = [&](std::initializer_list<const char*> allowed) {
                for (const char* key : {"addr", "len", "access", "file", "line", "name", "expr", "frame", "log",
                                        "vector", "outside_rom", "cond"}) {
                    if (std::string(key) == "cond" && kind != "catch") continue;
                    if (!p.contains(key)) continue;
                    if (std::find_if(allowed.begin(), allowed.end(),
                                     [&](const char* a) { return std::string(a) == key; }) == allowed.end())
                        fail(errc::InvalidParams,
                             std::string(key) + ": a " + kind + " breakpoint does not take it");
                }
            };
            if (kind == "pc") {
                only({"addr", "log"});
                b.kind = Breakpoint::Kind::Pc;
                b.address = std::uint32_t(p::number(p, "addr", 0xFFFFFF));
                if (b.address & 1) fail(errc::InvalidParams, "addr: instructions sit at even addresses");
            } else if (kind == "line") {
                only({"file", "line", "log"});
                b.kind = Breakpoint::Kind::Line;
                b.file = p::string(p, "file");
                b.line = std::uint32_t(p::number(p, "line", 0xFFFFFFF));
                if (b.line == 0) fail(errc::InvalidParams, "line: lines count from 1");
                std::string why;
                b.locations = e.source.lineLocations(b.file, b.line, why);
                if (b.locations.empty() && !pending) fail(errc::NotFound, why);
                if (b.locations.empty()) b.pending = why;
            } else if (kind == "function") {
                only({"name", "log"});
                b.kind = Breakpoint::Kind::Function;
                b.function = p::string(p, "name");
                std::string why;
                b.locations = e.source.functionLocations(b.function, why);
                if (b.locations.empty() && !pending) fail(errc::NotFound, why);
                if (b.locations.empty()) b.pending = why;
            } else if (kind == "watch") {
                only({"addr", "len", "access", "expr", "frame"});
                b.kind = Breakpoint::Kind::Watch;
                if (p.contains("expr")) {
                    if (p.contains("addr") || p.contains("len"))
                        fail(errc::InvalidParams, "expr: give either expr or addr and len");
                    requirePaused(e, "break.add {kind: \"watch\", expr}");
                    b.expr = p::string(p, "expr");
                    const auto frame = std::size_t(p::optionalNumber(p, "frame", 1 << 20).value_or(0));
                    SourceValue v;
                    try {
                        v = e.source.evaluate(b.expr, frame);
                    } catch (const CommandError&) {
                        throw;
                    } catch (const std::exception& ex) {
                        fail(errc::InvalidParams, std::string("expr: ") + ex.what());
                    }
                    if (v.where != SourceValue::Where::Memory)
                        fail(errc::InvalidParams,
                             "expr: " + b.expr + " is not in memory (" +
                                 (v.where == SourceValue::Where::Register      ? "it lives in a register"
                                  : v.where == SourceValue::Where::OptimizedOut ? "it is optimized out here"
                                                                                : "it is a computed value") +
                                 "); only bytes in memory can be watched");
                    const std::uint32_t size = v.type ? v.type->resolved().size : 0;
                    b.address = v.address;
                    b.length = v.bitSize ? (v.bitOffset + v.bitSize + 7) / 8 : size;
                    if (b.length == 0) fail(errc::InvalidParams, "expr: " + b.expr + " has no size to watch");
                    b.watched = std::make_shared<const SourceValue>(v);
                    const auto& frames = e.source.frames(frame + 1);
                    if (frame < frames.size() && frames[frame].place) b.watchedProgram = frames[frame].place->program;
                    // In the frame's own stack (below its CFA, above the stack pointer): a
                    // local, watched while the frame lives.
                    if (frame < frames.size() && frames[frame].cfa) {
                        const std::uint32_t sp = e.machine->cpu().registers().a[7];
                        const std::uint32_t cfa = *frames[frame].cfa;
                        if (b.address < cfa && b.address >= sp) {
                            b.scopeCfa = cfa;
                            b.scopeFunction = frames[frame].function;
                            b.scopeContext = stepContext(*e.machine);
                            // Where the caller resumes: the first frame past this function's
                            // own (its inlined calls share the physical frame).
                            const auto& outer = e.source.frames(256); // `frames` is stale now
                            for (std::size_t k = frame + 1; k < outer.size(); ++k)
                                if (outer[k].outer && outer[k].cfa != std::optional<std::uint32_t>(cfa)) {
                                    b.scopeReturn = outer[k].pc;
                                    break;
                                }
                        }
                    }
                    b.lastBytes.resize(b.length);
                    e.source.memory().read(b.address, b.lastBytes);
                } else {
                    b.address = std::uint32_t(p::number(p, "addr", 0xFFFFFF));
                    b.length = std::uint32_t(p::optionalNumber(p, "len", 0x1000000 - b.address).value_or(1));
                    if (b.length == 0) fail(errc::InvalidParams, "len: must be at least 1");
                }
                const std::string access = p::optionalString(p, "access").value_or("write");
                if (access == "write")
                    b.onRead = false, b.onWrite = true;
                else if (access == "read")
                    b.onRead = true, b.onWrite = false;
                else if (access == "access")
                    b.onRead = b.onWrite = true;
                else
                    fail(errc::InvalidParams, "access: expected \"write\", \"read\" or \"access\"");
            } else if (kind == "catch") {
                only({"vector", "outside_rom"});
                b.kind = Breakpoint::Kind::Catch;
                const auto v = unsigned(p::number(p, "vector", 255));
                const bool raised = (v >= m68k::kVectorBusError && v <= m68k::kVectorPrivilege) ||
                                    v == m68k::kVectorLineA || v == m68k::kVectorLineF ||
                                    (v >= m68k::kVectorTrap0 && v < m68k::kVectorTrap0 + 16u);
                if (!raised)
                    fail(errc::InvalidParams,
                         "vector: " + std::to_string(v) +
                             " is no exception an instruction raises (2-8: bus error to privilege "
                             "violation, 10 and 11: line A and F, 32-47: TRAP #0-15)");
                b.vector = std::uint8_t(v);
                b.outsideRom = p::boolean(p, "outside_rom", false);
            } else {
                fail(errc::InvalidParams,
                     "kind: expected \"pc\", \"line\", \"function\", \"watch\" or \"catch\"");
            }
            if (p.contains("cond")) {
                if (!p["cond"].is_string())
                    fail(errc::InvalidParams, "cond: expected a C expression, as a string");
                try {
                    b.condition = std::make_shared<const CExpression>(p["cond"].get<std::string>());
                } catch (const ExpressionError& ex) {
                    fail(errc::InvalidParams, std::string("cond: ") + ex.what());
                }
            }
            b.ignore = p::optionalNumber(p, "ignore", 0xFFFFFFFF).value_or(0);
            if (p.contains("log")) {
                b.log = p::string(p, "log");
                if (b.log.empty()) fail(errc::InvalidParams, "log: the message is empty");
            }
            b.id = e.nextBreakpoint++;
            e.breakpoints.push_back(b);
            e.rebuildBreakIndex();
            return breakpointJson(b);
        });
    bus.add("break.remove", "Removes the breakpoint {id}.", {"id"}, [&e](const json& p) {
        const auto id = p::number(p, "id", 0x7FFFFFFF);
        auto it = std::find_if(e.breakpoints.begin(), e.breakpoints.end(),
                               [&](auto& b) { return b.id == int(id); });
        if (it == e.breakpoints.end()) fail(errc::NotFound, "no breakpoint " + std::to_string(id));
        e.breakpoints.erase(it);
        e.rebuildBreakIndex();
        return json{{"removed", id}};
    });
    bus.add("break.list", "Every breakpoint, with its locations and hits.", [&e](const json&) {
        json out = json::array();
        for (const auto& b : e.breakpoints)
            out.push_back(breakpointJson(b));
        return json{{"breakpoints", out}};
    });
    bus.add("break.clear", "Removes every breakpoint.", [&e](const json&) {
        const auto n = e.breakpoints.size();
        e.breakpoints.clear();
        e.rebuildBreakIndex();
        return json{{"removed", n}};
    });
}

// What a watchpoint's stop says beyond the address: who wrote (the instruction's function,
// file and line) and, for a watch on an expression, its value before and after.
std::optional<nlohmann::json> watchScopeEnds(Emulator::Impl& e, std::uint32_t pc) {
    const Machine& m = *e.machine;
    for (auto it = e.breakpoints.begin(); it != e.breakpoints.end(); ++it) {
        if (it->kind != Breakpoint::Kind::Watch || !it->scopeReturn || it->scopeReturn != pc) continue;
        // The caller resumes here; the frame is gone once the stack pointer is back at its
        // CFA (a deeper call of the same function returning here leaves it below).
        if (stepContext(m) != it->scopeContext) continue;
        if (m.cpu().registers().a[7] < it->scopeCfa) continue;
        json detail = {{"id", it->id},
                       {"expr", it->expr},
                       {"message", "watchpoint " + std::to_string(it->id) + " deleted: " + it->scopeFunction +
                                       " returned, and " + it->expr + " went with its frame"}};
        e.breakpoints.erase(it);
        e.rebuildBreakIndex();
        return detail;
    }
    return std::nullopt;
}

bool watchStops(Emulator::Impl& e, nlohmann::json& detail) {
    const int id = detail.value("id", 0);
    const auto pc = detail.value("instruction_pc", 0u);
    e.source.invalidate();
    const auto it = std::find_if(e.breakpoints.begin(), e.breakpoints.end(), [id](const Breakpoint& b) { return b.id == id; });
    if (it == e.breakpoints.end()) return true;
    Breakpoint& b = *it;
    std::vector<std::uint8_t> now;
    if (b.watched) {
        now.resize(b.length);
        e.source.memory().read(b.address, now);
        // An expression's watch stops when its value changes, as gdb's `watch` does.
        if (detail.value("access", std::string()) == "write" && now == b.lastBytes) return false;
    }
    if (b.condition) {
        bool holds = true;
        try {
            holds = b.condition->test(e.source.values(0), e.source.sourceFrame(0), e.source.memory());
        } catch (const std::exception& ex) {
            detail["condition_error"] = ex.what();
        }
        if (!holds) {
            if (b.watched) b.lastBytes = std::move(now);
            return false;
        }
    }
    ++b.hits;
    if (b.hits <= b.ignore) {
        if (b.watched) b.lastBytes = std::move(now);
        return false;
    }
    detail["writer"] = e.source.describe(pc);
    if (b.watched) {
        detail["expr"] = b.expr;
        const auto& programs = e.source.programs();
        if (b.watchedProgram < programs.size() && programs[b.watchedProgram].values) {
            const SourceValues& values = *programs[b.watchedProgram].values;
            SourceFrame frame;
            frame.bases = programs[b.watchedProgram].bases;
            SourceValue before = *b.watched;
            before.where = SourceValue::Where::Bytes;
            before.bytes = b.lastBytes;
            detail["old"] = values.format(before, frame, e.source.memory());
            detail["new"] = values.format(*b.watched, frame, e.source.memory());
        }
        b.lastBytes = std::move(now);
    }
    return true;
}

} // namespace copperline
