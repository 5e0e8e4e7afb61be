// SPDX-License-Identifier: GPL-3.0-or-later
// Builds a machine from a WinUAE saved state (emu/state/uss.h; docs/formats/uss.md): the
// ROM check, then power-on, memory, the beam, the CIAs, the custom registers through
// Agnus's register hub (as the CPU would write them, in an order that starts no DMA on a
// stale pointer), and the CPU last.

#include "emu/machine.h"
#include "emu/state/uss.h"

#include <cstdio>

namespace copperline::uss {

namespace {

std::string hex(std::uint32_t v, int digits) {
    char b[16];
    std::snprintf(b, sizeof b, "$%0*X", digits, v);
    return b;
}

std::string romText(const Rom& r) {
    std::string s = "'" + r.name + "' (CRC-32 " + hex(r.crc, 8);
    if (!r.path.empty()) s += ", saved from " + r.path;
    return s + ")";
}

void checkRoms(const Machine& m, const State& s) {
    for (const Rom& r : s.roms) {
        const bool kick = r.type == 0;
        const std::vector<std::uint8_t>& ours = kick ? m.romBytes() : m.extRomBytes();
        const char* which = kick ? "Kickstart" : "extension ROM";
        const char* option = kick ? "--rom" : "--ext-rom";
        if (ours.empty())
            throw UssError(std::string("the state wants the ") + which + " " + romText(r) + "; give it with " +
                           option + " FILE");
        const std::uint32_t crc = romCrc(ours, r.size);
        if (crc != r.crc || r.size == 0)
            throw UssError(std::string("the state wants the ") + which + " " + romText(r) + "; " + option +
                           " gives one with CRC-32 " + hex(romCrc(ours, std::uint32_t(ours.size())), 8) +
                           ": give the ROM the state was saved with");
    }
}

void build(Machine& m, const State& s, LoadResult& result) {
    Machine::Config config = m.config();
    config.ntsc = s.ntsc;
    config.chipRamBytes = std::uint32_t(s.chipRam.size());
    config.slowRamBytes = std::uint32_t(s.slowRam.size());
    config.fastRamBytes = 0;
    if (!Machine::sameConfig(config, m.config())) m.reconfigure(config);
    m.powerOn();

    // Memory (the ROM overlay does not hide chip RAM from these writes).
    std::copy(s.chipRam.begin(), s.chipRam.end(), m.chipRam().data());
    std::copy(s.slowRam.begin(), s.slowRam.end(), m.slowRam().begin());

    // The beam: VPOSR holds LOF and V8, VHPOSR V7-V0 and H8-H1.
    const std::uint16_t vposr = s.custom.value[0x004 / 2], vhposr = s.custom.value[0x006 / 2];
    const unsigned vpos = unsigned(vposr & 1) << 8 | vhposr >> 8, hpos = vhposr & 0xFF;
    const unsigned lines = s.ntsc ? 263 : 313, lineCck = s.ntsc ? 228 : 227;
    if (vpos >= lines || hpos >= lineCck)
        throw UssError("the state's beam position (line " + std::to_string(vpos) + ", colour clock " +
                       std::to_string(hpos) + ") is outside a frame");
    m.advanceBeamTo(vpos, hpos);
    Agnus& agnus = m.agnus();
    agnus.writeCustom(0x02A, std::uint16_t(vposr & 0x8000)); // VPOSW: the long-frame bit

    // The CIAs.
    m.ciaA().setRegisters(s.cia[0]);
    m.ciaB().setRegisters(s.cia[1]);

    // The custom registers: DMA, interrupts and ADKCON cleared first, every pointer and
    // control register, then the set bits back, DMACON last.
    auto reg = [&](unsigned offset) { return s.custom.value[offset / 2]; };
    auto put = [&](unsigned offset, std::uint16_t v) { agnus.writeCustom(std::uint16_t(offset), v); };
    auto copy = [&](unsigned offset) {
        if (s.custom.present[offset / 2]) put(offset, reg(offset));
    };
    put(0x096, 0x7FFF);
    put(0x09A, 0x7FFF);
    put(0x09C, 0x7FFF);
    put(0x09E, 0x7FFF);
    for (unsigned o : {0x020u, 0x022u, 0x07Eu, 0x032u, 0x02Eu, 0x040u, 0x042u, 0x044u, 0x046u, 0x048u, 0x04Au,
                       0x04Cu, 0x04Eu, 0x050u, 0x052u, 0x054u, 0x056u, 0x060u, 0x062u, 0x064u, 0x066u, 0x070u,
                       0x072u, 0x074u, 0x080u, 0x082u, 0x084u, 0x086u, 0x08Eu, 0x090u, 0x092u, 0x094u, 0x098u,
                       0x100u, 0x102u, 0x104u, 0x108u, 0x10Au})
        copy(o);
    put(0x034, std::uint16_t(reg(0x034) & 0xFFFE)); // POTGO without its START strobe
    for (unsigned o = 0x0E0; o < 0x0F8; o += 2) copy(o); // BPL1PT-BPL6PT
    for (unsigned o = 0x180; o < 0x1C0; o += 2) put(o, std::uint16_t(reg(o) & 0x0FFF));
    for (unsigned n = 0; n < 8; ++n) {
        const Sprite& sp = s.sprites[n];
        put(0x120 + 4 * n, std::uint16_t(sp.pointer >> 16));
        put(0x122 + 4 * n, std::uint16_t(sp.pointer & 0xFFFE));
        put(0x140 + 8 * n, sp.pos);
        put(0x146 + 8 * n, sp.datb);
        put(0x144 + 8 * n, sp.data); // arms the sprite
        put(0x142 + 8 * n, sp.ctl);  // disarms it
        if (sp.armed) put(0x144 + 8 * n, sp.data);
    }
    for (unsigned n = 0; n < 4; ++n) {
        if (!s.audioPresent[n]) continue;
        const AudioChannel& a = s.audio[n];
        put(0x0A0 + 16 * n, std::uint16_t(a.location >> 16));
        put(0x0A2 + 16 * n, std::uint16_t(a.location & 0xFFFE));
        put(0x0A4 + 16 * n, a.length);
        if (a.period) put(0x0A6 + 16 * n, a.period);
        put(0x0A8 + 16 * n, a.volume);
    }
    put(0x024, std::uint16_t(reg(0x024) & 0x7FFF)); // DSKLEN, no transfer started
    put(0x09E, std::uint16_t(0x8000 | (reg(0x09E) & 0x7FFF)));
    put(0x09C, std::uint16_t(0x8000 | (reg(0x09C) & 0x7FFF)));
    put(0x09A, std::uint16_t(0x8000 | (reg(0x09A) & 0x7FFF)));
    put(0x088, 0); // COPJMP1: the Copper starts its list again, as at the frame's start
    put(0x096, std::uint16_t(0x8000 | (reg(0x096) & 0x07FF)));

    // The CPU: the core's pc is its prefetch address, two words past the instruction.
    m68k::Registers r;
    for (unsigned i = 0; i < 8; ++i) {
        r.d[i] = s.d[i];
        r.a[i] = s.a[i];
    }
    r.usp = s.usp;
    r.ssp = s.ssp;
    r.sr = s.sr;
    r.pc = s.pc + 4;
    r.ird = s.ir;
    r.irc = s.irc;
    if (s.stopped) {
        // WinUAE's pc is past the STOP: this core takes the STOP again (its operand is the
        // SR the CPU waits with, so nothing changes but that it is waiting).
        if (!(s.sr & 0x2000) || m.spyWord(s.pc - 4) != 0x4E72)
            throw UssError("the state's CPU is stopped, but not after a STOP instruction at " + hex(s.pc - 4, 6));
        r.pc = s.pc;
        r.ird = 0x4E72;
        r.irc = m.spyWord(s.pc - 2);
    }
    m.cpu().setRegisters(r);
    m.settleImported();

    result.pc = s.pc;
    result.frame = m.frame();
}

} // namespace

LoadResult loadUss(Machine& machine, const State& state) {
    checkRoms(machine, state);
    LoadResult result;
    result.emulator = state.emulator + (state.emulatorVersion.empty() ? "" : " " + state.emulatorVersion);
    result.ignoredChunks = state.ignoredChunks;
    // Built on the machine with a copy to go back to: a refusal changes nothing.
    const Machine::Config was = machine.config();
    const std::vector<std::uint8_t> before = machine.saveSnapshot(machine.snapshotBuffer());
    const std::vector<std::uint8_t> picture = machine.pictureBytes();
    try {
        build(machine, state, result);
    } catch (...) {
        if (!Machine::sameConfig(was, machine.config())) machine.reconfigure(was);
        machine.loadSnapshot(before);
        machine.restorePicture(picture);
        throw;
    }
    result.notRestored = {
        "the floppy drives' mechanics (motor, head and disk position, DSK0-DSK3): the drives start idle",
        "input: the keyboard, the mouse counters and the game ports (KEYB, CINP, JOY0DAT/JOY1DAT)",
        "the real-time clock: with slow RAM the A501's clock shows --rtc-time (rtc.set sets it)",
        "the Copper's place in its list and the display's fetch state: the Copper starts again from "
        "COP1LC, so the first frame is a reconstruction to discard",
        "the audio channels' progress: each starts again from its location registers",
        "the serial port's shifting, Paula's POTGO counters and the collision latch (CLXDAT)",
    };
    if (state.midInstruction)
        result.notRestored.push_back("the CPU was saved inside the instruction at " + hex(state.pc, 6) +
                                     ": it runs that instruction again from its start");
    if (state.chipsetMask & 3)
        result.notRestored.push_back("the ECS registers (BPLCON3, BEAMCON0, DIWHIGH and the programmable "
                                     "sync): the machine is OCS");
    return result;
}

LoadResult loadUss(Machine& machine, std::span<const std::uint8_t> file) {
    return loadUss(machine, readUss(file));
}

} // namespace copperline::uss
