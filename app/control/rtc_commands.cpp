// SPDX-License-Identifier: GPL-3.0-or-later
// The A501's battery-backed clock (docs/control-protocol.md, "Clock"): rtc.get reads it,
// rtc.set sets it. A setting is an input like a key or a memory write (MachineInput), so
// the record logs it and a replay sets the clock again where it was set.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/record/machine_input.h"

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

void needClock(const Emulator::Impl& e) {
    if (!e.machine->hasRtc())
        fail(errc::InvalidState,
             "this machine has no clock: the A501 card brings it with its slow RAM (machine.memory {slow})");
}

json clockJson(Machine& m) {
    const Rtc& rtc = m.rtc();
    const std::uint64_t cck = m.agnus().cck();
    if (!m.hasRtc()) return json{{"present", false}};
    const RtcTime t = rtc.time(cck);
    json regs = json::array();
    for (unsigned r = 0; r < Rtc::kRegisters; ++r) regs.push_back(rtc.peek(r, cck));
    return json{{"present", true},
                {"time", t.iso()},
                {"unix", t.toUnix()},
                {"weekday", t.weekday},
                {"frozen", rtc.frozen()},
                {"stopped", rtc.stopped()},
                {"registers", regs}};
}

} // namespace

void registerRtcCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("rtc.get",
            "The A501's clock (fitted with slow RAM): {present, time (YYYY-MM-DDTHH:MM:SS), unix (that "
            "wall time as seconds since 1970, UTC), weekday (0 Sunday), frozen, stopped (the guest set "
            "STOP or REST), registers: the 16 nibbles at $DC0003 + 4n}.",
            [&e](const json&) { return clockJson(*e.machine); });

    bus.add("rtc.set",
            "Sets the clock: one of {unix} (seconds since 1970, as UTC), {time} (now, seconds, or "
            "YYYY-MM-DD[THH:MM[:SS]]) or {advance} (seconds, may be negative), and {frozen} (true: it "
            "stands still; absent: as it was). Logged by the record like any input. Answers as rtc.get.",
            {"unix", "time", "advance", "frozen"}, [&e](const json& params) {
                needClock(e);
                const auto unixSeconds = p::optionalSigned(params, "unix", INT64_MIN / 2, INT64_MAX / 2);
                const auto text = p::optionalString(params, "time");
                const auto advance = p::optionalSigned(params, "advance", -(std::int64_t(1) << 40),
                                                       std::int64_t(1) << 40);
                if (int(bool(unixSeconds)) + int(bool(text)) + int(bool(advance)) > 1)
                    fail(errc::InvalidParams, "rtc.set: give one of unix, time and advance");
                const std::uint64_t cck = e.machine->agnus().cck();
                RtcTime t = e.machine->rtc().time(cck);
                std::string error;
                if (unixSeconds) {
                    const auto checked = RtcTime::fromUnixChecked(*unixSeconds, error);
                    if (!checked) fail(errc::InvalidParams, "unix: " + error);
                    t = *checked;
                } else if (text) {
                    const auto parsed = RtcTime::parse(*text, error);
                    if (!parsed) fail(errc::InvalidParams, "time: " + error);
                    t = *parsed;
                } else if (advance) {
                    if (!t.valid())
                        fail(errc::InvalidState, "advance: the clock shows " + t.iso() +
                                                     ", not a date to count from; set it with unix or time");
                    const auto checked = RtcTime::fromUnixChecked(t.toUnix() + *advance, error);
                    if (!checked) fail(errc::InvalidParams, "advance: " + error);
                    t = *checked;
                }
                const bool frozen = p::boolean(params, "frozen", e.machine->rtc().frozen());
                e.applyInput(MachineInput::setClock(t, frozen));
                return clockJson(*e.machine);
            });
}

} // namespace copperline
