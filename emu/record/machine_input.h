// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One thing from outside the machine that changes it: a key, the mouse, a joystick, a
// debugger's write to memory or to the registers, a
// setting of the clock. The record (record.h) logs each one with
// the position it was applied at and applies it again there when it replays, so every
// change that does not come from the machine itself goes through this one type.

#include "emu/chipset/rtc.h"
#include "emu/cpu/m68k_types.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace copperline {

class Machine;

struct MachineInput {
    enum class Kind : std::uint8_t { Key, Mouse, Buttons, Joystick, Memory, Registers, Clock };

    // Joystick switches (bits).
    static constexpr std::uint8_t kUp = 1, kDown = 2, kLeft = 4, kRight = 8;
    // Port buttons (bits): a mouse's left (a joystick's fire), right, middle.
    static constexpr std::uint8_t kButtonLeft = 1, kButtonRight = 2, kButtonMiddle = 4;

    Kind kind = Kind::Key;
    std::uint8_t port = 0;           // Mouse, Buttons, Joystick: the game port, 0 or 1
    std::uint8_t code = 0;           // Key: the raw key code (HRM appendix H)
    bool down = false;               // Key: pressed (true) or released
    std::int16_t dx = 0, dy = 0;     // Mouse: counter movement
    std::uint8_t bits = 0;           // Buttons or Joystick: what is held
    std::uint32_t address = 0;       // Memory: the first byte
    std::vector<std::uint8_t> bytes; // Memory: written from `address` on
    m68k::Registers registers{};     // Registers: the whole register set
    RtcTime time{};                  // Clock: what the A501's clock shows from then on
    bool frozen = false;             // Clock: whether it stands still

    static MachineInput key(std::uint8_t code, bool down);
    static MachineInput mouse(unsigned port, int dx, int dy);
    static MachineInput buttons(unsigned port, std::uint8_t bits);
    static MachineInput joystick(unsigned port, std::uint8_t bits);
    static MachineInput memory(std::uint32_t address, std::vector<std::uint8_t> bytes);
    static MachineInput setRegisters(const m68k::Registers& r);
    static MachineInput setClock(const RtcTime& t, bool frozen);

    void apply(Machine& m) const;
    // What it costs the record to keep it (its share of the byte budget).
    std::size_t bytesHeld() const { return sizeof(MachineInput) + bytes.capacity(); }
};

} // namespace copperline
