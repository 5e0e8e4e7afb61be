// The breakpoints family: break.add, break.remove, break.list, break.clear
// (docs/control-protocol.md). Handlers run on the emulator thread and check every
// parameter before they change anything.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

json breakpointJson(const Breakpoint& b) {
    json out = {{"id", b.id},
                {"kind", b.kind == Breakpoint::Kind::Pc ? "pc" : "watch"},
                {"addr", b.address}};
    if (b.kind == Breakpoint::Kind::Watch) {
        out["len"] = b.length;
        out["access"] = b.onRead && b.onWrite ? "access" : b.onRead ? "read" : "write";
    }
    return out;
}

} // namespace

void registerBreakpointCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    // ---- breakpoints ---------------------------------------------------------------------
    bus.add(
        "break.add",
        "Adds a breakpoint: {kind:\"pc\", addr} or {kind:\"watch\", addr, len, access}.",
        {"kind", "addr", "len", "access"}, [&e](const json& p) {
            const std::string kind = p::string(p, "kind");
            Breakpoint b;
            b.address = std::uint32_t(p::number(p, "addr", 0xFFFFFF));
            if (kind == "pc") {
                if (b.address & 1)
                    fail(errc::InvalidParams, "addr: instructions sit at even addresses");
                // The bus knows every key break.add takes; which of them a kind takes is ours.
                for (const char* key : {"len", "access"})
                    if (p.contains(key))
                        fail(errc::InvalidParams,
                             std::string(key) +
                                 ": a pc breakpoint takes kind and addr only (len and access "
                                 "are a watchpoint's)");
                b.kind = Breakpoint::Kind::Pc;
            } else if (kind == "watch") {
                b.kind = Breakpoint::Kind::Watch;
                b.length =
                    std::uint32_t(p::optionalNumber(p, "len", 0x1000000 - b.address).value_or(1));
                if (b.length == 0) fail(errc::InvalidParams, "len: must be at least 1");
                const std::string access = p::optionalString(p, "access").value_or("write");
                if (access == "write")
                    b.onRead = false, b.onWrite = true;
                else if (access == "read")
                    b.onRead = true, b.onWrite = false;
                else if (access == "access")
                    b.onRead = b.onWrite = true;
                else
                    fail(errc::InvalidParams, "access: expected \"write\", \"read\" or \"access\"");
            } else {
                fail(errc::InvalidParams, "kind: expected \"pc\" or \"watch\"");
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
    bus.add("break.list", "Every breakpoint.", [&e](const json&) {
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

} // namespace copperline
