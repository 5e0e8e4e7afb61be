// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/record/machine_input.h"

#include "emu/machine.h"

namespace copperline {

MachineInput MachineInput::key(std::uint8_t code, bool down) {
    MachineInput in;
    in.kind = Kind::Key;
    in.code = std::uint8_t(code & 0x7F);
    in.down = down;
    return in;
}

MachineInput MachineInput::mouse(unsigned port, int dx, int dy) {
    MachineInput in;
    in.kind = Kind::Mouse;
    in.port = std::uint8_t(port & 1);
    in.dx = std::int16_t(dx);
    in.dy = std::int16_t(dy);
    return in;
}

MachineInput MachineInput::buttons(unsigned port, std::uint8_t bits) {
    MachineInput in;
    in.kind = Kind::Buttons;
    in.port = std::uint8_t(port & 1);
    in.bits = bits;
    return in;
}

MachineInput MachineInput::joystick(unsigned port, std::uint8_t bits) {
    MachineInput in;
    in.kind = Kind::Joystick;
    in.port = std::uint8_t(port & 1);
    in.bits = bits;
    return in;
}

MachineInput MachineInput::memory(std::uint32_t address, std::vector<std::uint8_t> bytes) {
    MachineInput in;
    in.kind = Kind::Memory;
    in.address = address;
    in.bytes = std::move(bytes);
    return in;
}

MachineInput MachineInput::setRegisters(const m68k::Registers& r) {
    MachineInput in;
    in.kind = Kind::Registers;
    in.registers = r;
    return in;
}

MachineInput MachineInput::setClock(const RtcTime& t, bool frozen) {
    MachineInput in;
    in.kind = Kind::Clock;
    in.time = t;
    in.frozen = frozen;
    return in;
}

void MachineInput::apply(Machine& m) const {
    switch (kind) {
    case Kind::Key:
        if (down)
            m.keyboard().press(code);
        else
            m.keyboard().release(code);
        break;
    case Kind::Mouse: m.moveMouse(port, dx, dy); break;
    case Kind::Buttons:
        m.setPortButtons(port, bits & kButtonLeft, bits & kButtonRight, bits & kButtonMiddle);
        break;
    case Kind::Joystick:
        m.setJoystick(port, bits & kUp, bits & kDown, bits & kLeft, bits & kRight);
        break;
    case Kind::Memory:
        for (std::size_t i = 0; i < bytes.size(); ++i)
            m.pokeByte(address + std::uint32_t(i), bytes[i]);
        break;
    case Kind::Registers: m.cpu().setRegisters(registers); break;
    case Kind::Clock:
        m.rtc().setTime(time, m.agnus().cck());
        m.rtc().setFrozen(frozen, m.agnus().cck());
        break;
    }
}

} // namespace copperline
