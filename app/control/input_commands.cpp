// SPDX-License-Identifier: GPL-3.0-or-later
// Input from outside (docs/control-protocol.md): the keyboard, the mouse and the joystick.
// The window's keyboard and mouse capture sends these too, so every input goes through the
// record's log (emu/record/record.h) and a replay applies it again where it landed.
//
// Ports are numbered as the Amiga's case labels them, 1 (the mouse port, JOY0DAT) and 2
// (JOY1DAT); the machine numbers them 0 and 1.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/clock.h"

#include <cmath>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

constexpr std::uint64_t kMaxHoldMs = 10'000;
constexpr std::int64_t kMaxMove = 127; // JOYxDAT's counters are 8 bits

double cpuHz(const Machine& m) {
    return m.config().ntsc ? kNtscCpuHz : kPalCpuHz;
}

// `at_seconds` (absolute emulated seconds, now or later) as a master clock; now when absent.
std::uint64_t dueAt(const Emulator::Impl& e, const json& params) {
    const auto it = params.find("at_seconds");
    if (it == params.end() || it->is_null()) return e.machine->now();
    if (!it->is_number())
        fail(errc::InvalidParams, "at_seconds: expected a number of emulated seconds");
    const double s = it->get<double>();
    if (!std::isfinite(s) || s < 0 || s > 1e7)
        fail(errc::InvalidParams, "at_seconds: expected emulated seconds from 0 to 1e7");
    const auto due = std::uint64_t(std::llround(s * cpuHz(*e.machine)));
    if (due < e.machine->now())
        fail(errc::InvalidParams, "at_seconds: " + std::to_string(s) +
                                      " has passed (the machine is at " +
                                      std::to_string(e.machine->emulatedSeconds()) + " s)");
    return due;
}

unsigned port(const json& params, unsigned fallback) {
    const auto n = p::optionalNumber(params, "port", 4).value_or(fallback);
    if (n < 1 || n > 2)
        fail(errc::InvalidParams,
             "port: an A500 has ports 1 and 2 (3 and 4 need a parallel-port adapter)");
    return unsigned(n - 1);
}

std::optional<bool> optionalBool(const json& params, const char* key) {
    const auto it = params.find(key);
    if (it == params.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) fail(errc::InvalidParams, std::string(key) + ": expected true or false");
    return it->get<bool>();
}

} // namespace

void registerInputCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("input.key",
            "A key: {rawkey 0-255, action press|release|tap (default), hold_ms (default 80), "
            "at_seconds}.",
            {"rawkey", "action", "hold_ms", "at_seconds"}, [&e](const json& params) {
                const auto raw = p::number(params, "rawkey", 255);
                const std::string action = p::optionalString(params, "action").value_or("tap");
                if (action != "press" && action != "release" && action != "tap")
                    fail(errc::InvalidParams, "action: expected \"press\", \"release\" or \"tap\"");
                const auto hold = p::optionalNumber(params, "hold_ms", kMaxHoldMs).value_or(80);
                const std::uint64_t due = dueAt(e, params);
                // Bit 7 is the key-up flag the keyboard sends; the action sets it.
                const auto code = std::uint8_t(raw & 0x7F);
                if (action == "release") {
                    e.applyInput(MachineInput::key(code, false), due);
                } else {
                    e.applyInput(MachineInput::key(code, true), due);
                    if (action == "tap")
                        e.applyInput(MachineInput::key(code, false),
                                     due +
                                         std::uint64_t(double(hold) * cpuHz(*e.machine) / 1000.0));
                }
                return json{{"rawkey", code},
                            {"action", action},
                            {"at_seconds", double(due) / cpuHz(*e.machine)}};
            });

    bus.add("input.mouse",
            "Moves the mouse {dx, dy (-127..127)} and sets buttons {left, right, middle} on {port} "
            "(default 1).",
            {"dx", "dy", "left", "right", "middle", "port", "at_seconds"},
            [&e](const json& params) {
                const auto dx = p::optionalSigned(params, "dx", -kMaxMove, kMaxMove).value_or(0);
                const auto dy = p::optionalSigned(params, "dy", -kMaxMove, kMaxMove).value_or(0);
                const auto left = optionalBool(params, "left");
                const auto right = optionalBool(params, "right");
                const auto middle = optionalBool(params, "middle");
                const unsigned n = port(params, 1);
                const std::uint64_t due = dueAt(e, params);
                if (dx || dy) e.applyInput(MachineInput::mouse(n, int(dx), int(dy)), due);
                if (left || right || middle) {
                    // Buttons not named keep what they hold.
                    const unsigned held = (e.machine->portButtons() >> (4 * n)) & 7;
                    const auto pick = [&](const std::optional<bool>& b, unsigned bit) {
                        return b ? (*b ? bit : 0u) : (held & bit);
                    };
                    const auto bits = std::uint8_t(pick(left, MachineInput::kButtonLeft) |
                                                   pick(right, MachineInput::kButtonRight) |
                                                   pick(middle, MachineInput::kButtonMiddle));
                    e.applyInput(MachineInput::buttons(n, bits), due);
                }
                const unsigned held = (e.machine->portButtons() >> (4 * n)) & 7;
                return json{{"port", n + 1},
                            {"dx", dx},
                            {"dy", dy},
                            {"left", bool(held & MachineInput::kButtonLeft)},
                            {"right", bool(held & MachineInput::kButtonRight)},
                            {"middle", bool(held & MachineInput::kButtonMiddle)}};
            });

    bus.add(
        "input.joy",
        "Sets the joystick on {port} (default 2): {up, down, left, right, red (or fire), blue}.",
        {"up", "down", "left", "right", "red", "fire", "blue", "port", "at_seconds"},
        [&e](const json& params) {
            const bool up = optionalBool(params, "up").value_or(false);
            const bool down = optionalBool(params, "down").value_or(false);
            const bool left = optionalBool(params, "left").value_or(false);
            const bool right = optionalBool(params, "right").value_or(false);
            if ((up && down) || (left && right))
                fail(errc::InvalidParams,
                     "a joystick cannot point up and down (or left and right) at once");
            const auto red = optionalBool(params, "red");
            const auto fire = optionalBool(params, "fire");
            if (red && fire && *red != *fire)
                fail(errc::InvalidParams, "fire: is red; give one of them");
            const bool redDown = red.value_or(fire.value_or(false));
            const bool blue = optionalBool(params, "blue").value_or(false);
            const unsigned n = port(params, 2);
            const std::uint64_t due = dueAt(e, params);
            const auto sticks =
                std::uint8_t((up ? MachineInput::kUp : 0) | (down ? MachineInput::kDown : 0) |
                             (left ? MachineInput::kLeft : 0) | (right ? MachineInput::kRight : 0));
            e.applyInput(MachineInput::joystick(n, sticks), due);
            // Red is the fire line (a mouse's left button), blue the second (its right).
            const unsigned middle =
                (e.machine->portButtons() >> (4 * n)) & MachineInput::kButtonMiddle;
            e.applyInput(MachineInput::buttons(
                             n, std::uint8_t((redDown ? MachineInput::kButtonLeft : 0) |
                                             (blue ? MachineInput::kButtonRight : 0) | middle)),
                         due);
            return json{{"port", n + 1},  {"up", up},       {"down", down}, {"left", left},
                        {"right", right}, {"red", redDown}, {"blue", blue}};
        });
}

} // namespace copperline
