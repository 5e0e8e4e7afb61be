// SPDX-License-Identifier: GPL-3.0-or-later
// stack.frames (docs/control-protocol.md, docs/debugger.md): the stack at a stop, innermost
// first, from the call-frame information, with inlined calls as frames of their own, through
// system code (by its return addresses) to the program's frames.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

const char* kindName(StackFrame::Kind k) {
    switch (k) {
    case StackFrame::Kind::Source: return "source";
    case StackFrame::Kind::System: return "system";
    case StackFrame::Kind::Unknown: return "unknown";
    }
    return "unknown";
}

} // namespace

json stackFrameJson(Emulator::Impl& e, const StackFrame& f, std::size_t index) {
    json out = {{"index", index}, {"pc", f.pc}, {"kind", kindName(f.kind)}, {"function", f.function}};
    if (f.place) {
        const SourceProgram& prog = e.source.programs()[f.place->program];
        out["module"] = prog.name;
        out["hunk"] = f.place->hunk;
        out["offset"] = f.place->offset;
        if (f.file != kNoFile) {
            out["file"] = prog.info->fileName(f.file);
            out["line"] = f.line;
            if (f.column) out["column"] = f.column;
        }
    }
    if (f.inlined) out["inlined"] = true;
    if (f.outer) out["caller"] = true; // pc is a return address
    if (f.interrupted) out["interrupted"] = true;
    if (f.cfa) out["cfa"] = *f.cfa;
    if (f.regs.known(15)) out["sp"] = f.regs[15];
    return out;
}

void registerStackCommands(Emulator::Impl& e) {
    e.bus.add("stack.frames",
              "The stack at a stop, innermost first: {start, count (default 64, at most 256)} of its "
              "frames, each {index, pc, kind (source|system|unknown), function, module, file, line, "
              "inlined, caller, cfa, sp}.",
              {"start", "count"}, [&e](const json& params) {
                  requirePaused(e, "stack.frames", false);
                  const auto start = std::size_t(p::optionalNumber(params, "start", 256).value_or(0));
                  const auto count = std::size_t(p::optionalNumber(params, "count", 256).value_or(64));
                  if (count == 0) fail(errc::InvalidParams, "count: must be at least 1");
                  const auto& frames = e.source.frames(std::min<std::size_t>(start + count + 1, 256));
                  json list = json::array();
                  for (std::size_t i = start; i < frames.size() && i < start + count; ++i)
                      list.push_back(stackFrameJson(e, frames[i], i));
                  return json{{"frames", list}, {"total", frames.size()}};
              });
}

} // namespace copperline
