// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the emulator thread publishes after each committed frame and after each command
// (DESIGN.md section 5): an immutable picture of the machine that panes read without
// locks. A snapshot is never changed once published; the next one replaces it whole, and
// unchanged parts (the picture, the owner grid) are shared between snapshots.

#include "emu/chipset/slot_record.h"
#include "emu/debug_overlay.h"
#include "profiler/capture/png.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace copperline {

// The chip bus owners of one committed frame, and its full slot records when recording
// was armed.
struct OwnerGrid {
    static constexpr unsigned kStride = 228; // records per row in memory (Agnus::kMaxLineCck)
    std::uint64_t frame = 0;                 // the committed frame's number
    unsigned lines = 0;                      // rows in use (313 or 312 PAL)
    unsigned lineCck = 227;                  // colour clocks of a PAL line; 228 (the longest) NTSC
    bool firstLineLong = false;              // NTSC: the frame's first line is a long one
    std::vector<std::uint8_t> owners;        // BusOwner per clock, row-major, kStride per row
    std::array<std::uint32_t, kBusOwnerCount> counts{};
    std::vector<SlotRecord> records; // empty unless recording was armed for the whole frame
    // The frame in progress, to the beam: clocks at and after (beamVpos, beamHpos) have not
    // happened yet (their owner bytes are 0).
    bool inProgress = false;
    unsigned beamVpos = 0, beamHpos = 0;
    BusOwner owner(unsigned vpos, unsigned hpos) const {
        return BusOwner(owners[std::size_t(vpos) * kStride + hpos]);
    }
    // The colour clocks of line `vpos`: lineCck on PAL; NTSC lines alternate 228 and 227
    // (a short line's last record is no clock).
    unsigned rowCck(unsigned vpos) const {
        if (lineCck < kStride) return lineCck;
        return (vpos % 2 == 0) == firstLineLong ? kStride : kStride - 1;
    }
};

// NTSC lines alternate 228 and 227 colour clocks, across frame boundaries too. Whether the
// frame in progress began with a long line, from the line the beam is on (`vpos`, of
// `lineCck` clocks); and whether the frame before one that began `firstLongAfter` did, from
// its number of lines (it ended on a line of the other length).
inline bool ntscFirstLineLong(unsigned vpos, unsigned lineCck) {
    return (lineCck == 228) == (vpos % 2 == 0);
}
inline bool ntscFirstLineLongBefore(unsigned lines, bool firstLongAfter) {
    const bool lastLong = !firstLongAfter;
    return lines % 2 == 1 ? lastLong : !lastLong;
}

// The 68000's programmer-visible registers, without the core's types (they carry C++20
// concepts that Qt's moc cannot read).
struct CpuRegisters {
    std::array<std::uint32_t, 8> d{}, a{};
    std::uint32_t usp = 0, ssp = 0;
    std::uint32_t pc = 0; // the address of the instruction that runs next
    std::uint16_t sr = 0;
    bool operator==(const CpuRegisters&) const = default;
};

struct Snapshot {
    std::uint64_t serial = 0; // increases with every publication
    bool running = false;
    bool halted = false;
    std::uint64_t frame = 0; // the frame in progress
    unsigned vpos = 0, hpos = 0;
    std::uint64_t cck = 0;
    double seconds = 0; // emulated seconds since power-on
    double speed = 0;   // emulated seconds per host second, over the last half second
    std::uint64_t instructions = 0;
    CpuRegisters regs;
    std::shared_ptr<const Image> picture;  // composeDisplay of the last committed frame
    std::uint64_t pictureFrame = 0;        // that frame's number
    std::shared_ptr<const OwnerGrid> grid; // owners of the last committed frame
    // The frame before it (null when not known: after power-on, a load or a move of the
    // timeline, until two frames have ended), and, while the machine stands, the frame in
    // progress to the beam (null while it runs).
    std::shared_ptr<const OwnerGrid> previousGrid, progressGrid;
    // The guest's debug overlay as the last committed frame shows it (never null).
    std::shared_ptr<const OverlayShapes> overlay;
};

} // namespace copperline
