// SPDX-License-Identifier: GPL-3.0-or-later
// The variables family (docs/control-protocol.md, docs/debugger.md): vars.scopes, vars.get,
// vars.set and eval. Values are read from DWARF in the frame asked for; what a view can open
// (a scope, a struct, an array, what a pointer points at) has a number, good until the
// machine moves.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;
using Ref = SourceDebugger::Ref;

std::size_t frameParam(const json& params) {
    return std::size_t(p::optionalNumber(params, "frame", 1 << 20).value_or(0));
}

// Runs f, turning the debug-information layer's errors into InvalidParams.
template <class F>
auto guarded(const char* what, F&& f) {
    try {
        return f();
    } catch (const CommandError&) {
        throw;
    } catch (const std::exception& ex) {
        throw CommandError(errc::InvalidParams, std::string(what) + ": " + ex.what());
    }
}

json registersJson(SourceDebugger& src, std::size_t frame) {
    const SourceFrame sf = src.sourceFrame(frame);
    json out = json::array();
    for (int r = 0; r < FrameRegisters::kCount; ++r) {
        json v = {{"name", FrameRegisters::name(r)}, {"ref", 0}, {"type", r == FrameRegisters::kSr ? "unsigned short" : "unsigned long"}};
        if (sf.regs.known(r)) {
            char b[16];
            std::snprintf(b, sizeof b, r == FrameRegisters::kSr ? "0x%04x" : "0x%08x", sf.regs[r]);
            v["value"] = b;
        } else {
            v["value"] = "<not saved>";
        }
        out.push_back(std::move(v));
    }
    return out;
}

} // namespace

void registerVarsCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("vars.scopes",
            "The scopes of {frame} (default 0): Locals, Parameters, Globals (the compilation unit's) and "
            "Registers, each {name, ref}.",
            {"frame"}, [&e](const json& params) {
                requirePaused(e, "vars.scopes", false);
                const std::size_t frame = frameParam(params);
                e.source.sourceFrame(frame); // refuses a frame past the stack
                json scopes = json::array();
                const SourceValues* values = e.source.values(frame);
                const auto& f = e.source.frames(frame + 1)[frame];
                const bool source = values && f.place && f.scope >= 0;
                const auto add = [&](const char* name, Ref::Kind kind, bool has) {
                    json s = {{"name", name}, {"ref", has ? e.source.makeRef({kind, frame, {}}) : 0}};
                    if (!has) s["empty"] = true;
                    scopes.push_back(std::move(s));
                };
                add("Locals", Ref::Kind::Locals, source);
                add("Parameters", Ref::Kind::Parameters, source);
                add("Globals", Ref::Kind::Globals, values != nullptr && f.place.has_value());
                add("Registers", Ref::Kind::Registers, true);
                json out = {{"frame", frame}, {"scopes", scopes}};
                if (f.place) {
                    const SourceProgram& prog = e.source.programs()[f.place->program];
                    if (!prog.dwarf) out["no_variables"] = prog.dwarfError;
                }
                return out;
            });

    bus.add("vars.get",
            "What {ref} holds: a scope's variables, a struct's members, an array's elements "
            "[start, start+count) (default all, at most 1000 at a time), a pointer's target. Each "
            "{name, value, type, ref (0: nothing to open), children, address|register, optimized_out}.",
            {"ref", "start", "count"}, [&e](const json& params) {
                requirePaused(e, "vars.get", false);
                const int id = int(p::number(params, "ref", 0x7FFFFFFF));
                const Ref* r = e.source.ref(id);
                if (!r)
                    fail(errc::NotFound, "ref: " + std::to_string(id) +
                                             " names nothing (references last until the machine moves)");
                const Ref ref = *r; // makeRef below may move the table
                const auto start = std::uint32_t(p::optionalNumber(params, "start", 0xFFFFFFFF).value_or(0));
                const auto count = std::uint32_t(p::optionalNumber(params, "count", 1000).value_or(1000));
                json list = json::array();
                const SourceValues* values = e.source.values(ref.frame);
                const SourceFrame sf = e.source.sourceFrame(ref.frame);
                const auto addAll = [&](const std::vector<SourceVariable>& vars) {
                    for (const auto& v : vars) list.push_back(e.source.variableJson(v, ref.frame));
                };
                switch (ref.kind) {
                case Ref::Kind::Locals:
                    if (values) addAll(values->locals(sf, e.source.memory()));
                    break;
                case Ref::Kind::Parameters:
                    if (values) addAll(values->parameters(sf, e.source.memory()));
                    break;
                case Ref::Kind::Globals:
                    if (values) addAll(values->globals(sf, e.source.memory()));
                    break;
                case Ref::Kind::Registers: list = registersJson(e.source, ref.frame); break;
                case Ref::Kind::Value:
                    if (values) addAll(values->children(ref.variable, sf, e.source.memory(), start, count));
                    break;
                }
                return json{{"variables", list}};
            });

    bus.add("eval",
            "Evaluates the C expression {expr} in {frame} (default 0): {value, type, ref, address|register}.",
            {"frame", "expr"}, [&e](const json& params) {
                requirePaused(e, "eval", false);
                const std::size_t frame = frameParam(params);
                const std::string expr = p::string(params, "expr");
                const SourceValue v = guarded("expr", [&] { return e.source.evaluate(expr, frame); });
                json out = e.source.variableJson({expr, v, false}, frame);
                out["expr"] = expr;
                return out;
            });

    bus.add("vars.set",
            "Writes a variable: {ref, name} (a variable in a scope or a member or element of what ref "
            "opens) or {frame, expr} (an lvalue), to {value}, a C expression evaluated in the frame. "
            "Replies {name, value, type}, the value as read back.",
            {"ref", "name", "frame", "expr", "value"}, [&e](const json& params) {
                requirePaused(e, "vars.set");
                const std::string valueText = p::string(params, "value");
                std::size_t frame = 0;
                std::string name;
                SourceValue target;
                if (params.contains("ref")) {
                    if (params.contains("expr")) fail(errc::InvalidParams, "give ref and name, or frame and expr");
                    const int id = int(p::number(params, "ref", 0x7FFFFFFF));
                    const Ref* r = e.source.ref(id);
                    if (!r) fail(errc::NotFound, "ref: " + std::to_string(id) + " names nothing");
                    const Ref ref = *r;
                    frame = ref.frame;
                    name = p::string(params, "name");
                    if (ref.kind == Ref::Kind::Registers) {
                        if (frame != 0) fail(errc::InvalidParams, "name: registers are written in frame 0 only");
                        int reg = -1;
                        for (int i = 0; i < 16; ++i)
                            if (name == FrameRegisters::name(i)) reg = i;
                        if (reg < 0) fail(errc::InvalidParams, "name: " + name + " is no data or address register");
                        const SourceValue v = guarded("value", [&] { return e.source.evaluate(valueText, frame); });
                        const auto bytes = guarded("value", [&] {
                            return convertValue(v, baseType("unsigned long"), e.source.values(frame),
                                                e.source.sourceFrame(frame), e.source.memory());
                        });
                        e.sourceHost.writeRegister(reg, std::uint32_t(bigEndianInteger(bytes, false)));
                        e.source.invalidate();
                        char b[16];
                        std::snprintf(b, sizeof b, "0x%08x", std::uint32_t(bigEndianInteger(bytes, false)));
                        return json{{"name", name}, {"value", b}, {"type", "unsigned long"}};
                    }
                    const SourceValues* values = e.source.values(frame);
                    if (!values) fail(errc::InvalidState, "no debug information to find " + name + " in");
                    const SourceFrame sf = e.source.sourceFrame(frame);
                    std::vector<SourceVariable> vars;
                    switch (ref.kind) {
                    case Ref::Kind::Locals: vars = values->locals(sf, e.source.memory()); break;
                    case Ref::Kind::Parameters: vars = values->parameters(sf, e.source.memory()); break;
                    case Ref::Kind::Globals: vars = values->globals(sf, e.source.memory()); break;
                    case Ref::Kind::Value:
                        vars = values->children(ref.variable, sf, e.source.memory(), 0, 0xFFFFFFFF);
                        break;
                    case Ref::Kind::Registers: break;
                    }
                    const auto it = std::find_if(vars.begin(), vars.end(), [&](const SourceVariable& v) { return v.name == name; });
                    if (it == vars.end()) fail(errc::NotFound, "name: no \"" + name + "\" in ref " + std::to_string(id));
                    target = it->value;
                } else {
                    frame = frameParam(params);
                    name = p::string(params, "expr");
                    target = guarded("expr", [&] { return e.source.evaluate(name, frame); });
                }
                const SourceValue v = guarded("value", [&] { return e.source.evaluate(valueText, frame); });
                const SourceValues* values = e.source.values(frame);
                const SourceFrame sf = e.source.sourceFrame(frame);
                const auto bytes =
                    guarded("value", [&] { return convertValue(v, target.type, values, sf, e.source.memory()); });
                if (!values) fail(errc::InvalidState, "no debug information to write " + name + " with");
                const auto reg =
                    guarded(name.c_str(), [&] { return values->write(target, sf, e.source.memory(), bytes); });
                if (reg) e.sourceHost.writeRegister(reg->reg, reg->value);
                e.source.invalidate();
                // Read back as the views will show it from now on.
                const SourceFrame after = e.source.sourceFrame(frame);
                const SourceValues* valuesAfter = e.source.values(frame);
                return json{{"name", name},
                            {"value", valuesAfter ? valuesAfter->format(target, after, e.source.memory()) : "?"},
                            {"type", target.type ? target.type->name : std::string("?")}};
            });
}

} // namespace copperline
