// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What one committed frame cost, beyond the owner of each colour clock: where the CPU's
// time went (instructions, chip-bus waits by the owner that denied them and by the kind of
// access, interrupt entry, STOP), which instructions waited, and every blit that ran in
// the frame. The Machine fills one FrameStats per frame; the profiler's capture
// (profile.jsonl) and the Frame Analyzer (frame.waits, frame.blits) read the same one.
//
// CPU time is kept in 68000 cycles, two per colour clock, because an instruction can end
// on the half of a colour clock. The frame's span is [2 * firstCck, 2 * (firstCck +
// lengthCck)); an instruction, interrupt entry or STOP step that straddles the boundary is
// split there, so the four CPU counters of every frame add up to 2 * lengthCck exactly.

#include "emu/chipset/slot_record.h"

#include <array>
#include <cstdint>
#include <vector>

namespace copperline {

// What the CPU was doing when the bus refused it.
enum class CpuAccessKind : std::uint8_t {
    Fetch = 0, // an instruction-stream read (FC program)
    Read = 1,  // a data read
    Write = 2, // a data write (TAS counts as a write)
};
inline constexpr unsigned kCpuAccessKindCount = 3;
const char* cpuAccessKindName(CpuAccessKind kind); // "fetch", "read", "write"

// Chip-bus wait clocks charged to one instruction address within a frame: the
// instruction executing when each wait began.
struct StallPc {
    std::uint32_t pc = 0;
    std::uint32_t waitCck = 0; // colour clocks denied
    std::uint32_t waits = 0;   // accesses that waited at least one clock
};

// One blit as the profiler reports it. A blit that runs across a frame boundary appears
// in the FrameStats of every frame it touched, with the same id; `finished` tells whether
// it ended in that frame (and then the end fields are final).
struct BlitRecord {
    std::uint32_t id = 0;        // BLTSIZE writes since power-on, from 1; saved with the state
    std::uint32_t startPc = 0;   // the CPU instruction that wrote BLTSIZE (0 when the Copper did)
    bool byCopper = false;       // the Copper wrote BLTSIZE
    std::uint64_t startFrame = 0, endFrame = 0;
    std::uint16_t startVpos = 0, startHpos = 0, endVpos = 0, endHpos = 0;
    std::uint64_t startCck = 0, endCck = 0; // colour clock of the BLTSIZE write / of the last step
    bool finished = false;
    std::uint16_t bltcon0 = 0, bltcon1 = 0, afwm = 0, alwm = 0;
    std::uint32_t apt = 0, bpt = 0, cpt = 0, dpt = 0; // pointers at the start
    std::int16_t amod = 0, bmod = 0, cmod = 0, dmod = 0;
    // The constant inputs in effect at the start: BLTADAT, BLTBDAT's hold latch as the
    // write shifted it (the value the minterm sees when B DMA is off), BLTCDAT.
    std::uint16_t adat = 0, bhold = 0, cdat = 0;
    std::uint16_t width = 0, height = 0;   // words per row and rows (line mode: pixels, 1)
    std::array<std::uint32_t, 4> words{};  // DMA words moved so far, channels A, B, C, D
    std::uint32_t clocksUsed = 0;          // colour clocks the blitter owned the bus
    std::uint32_t clocksStalled = 0;       // clocks it wanted the bus (or a free slot) and did not get
};

struct FrameStats {
    std::uint64_t frame = 0;    // the committed frame's number
    std::uint64_t firstCck = 0; // its first colour clock (since power-on)
    std::uint32_t lengthCck = 0;
    std::uint32_t lines = 0, lineCck = 227; // PAL: 313 or 312 lines of 227
    // Not watched from its first clock (the first frame after power-on or a state load):
    // its CPU counters cover only the part that was.
    bool partial = false;

    // The CPU, in 68000 cycles; the four add up to 2 * lengthCck.
    std::uint64_t cpuInstructionCycles = 0; // executing, bus accesses that were not refused included
    std::uint64_t cpuWaitCycles = 0;        // refused by the chip bus (2 per denied colour clock)
    std::uint64_t cpuIrqCycles = 0;         // interrupt entry (IACK, stacking, vector fetch)
    std::uint64_t cpuStoppedCycles = 0;     // stopped by STOP, waiting for an interrupt

    // Denied colour clocks by the owner that held the clock and by the CPU's access.
    std::array<std::uint32_t, kBusOwnerCount> cpuWaitByOwner{};
    std::array<std::uint32_t, kCpuAccessKindCount> cpuWaitByKind{};
    // Every instruction address that waited in this frame, most wait first.
    std::vector<StallPc> stallPcs;
    // 1 where the CPU wanted the clock and was denied: row-major, stride Agnus::kMaxLineCck.
    std::vector<std::uint8_t> cpuWaitGrid;

    // Blits that ran (started, continued or ended) in this frame, in start order.
    std::vector<BlitRecord> blits;

    // Every custom register's last written value at the frame's first clock (Agnus's
    // lastWritten), word offset / 2 as the index; `customWrittenAtStart` has a bit per
    // register that had been written at all.
    std::array<std::uint16_t, 256> customAtStart{};
    std::array<std::uint32_t, 8> customWrittenAtStart{};
};

} // namespace copperline
