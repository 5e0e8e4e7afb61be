// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Copper, Agnus's coprocessor: a three-instruction machine (MOVE, WAIT, SKIP) that
// runs in the even colour clocks the fixed DMA leaves free (HRM chapter 2 and
// ocs-timing-facts section 3).
//
// Timing model (docs/chipset.md): the Copper acts only in even colour clocks. Each
// instruction word is one bus fetch, so a MOVE takes two fetches, 4 CCK, and writes its
// register at the second. WAIT and SKIP compare the beam in the even clock after their
// second fetch, then need one more even clock to wake up before the next fetch: 8 CCK when
// the position has already passed. A strobe of COPJMPx costs two even clocks before the
// first fetch from the new list. At hpos $E0 Agnus holds the Copper back a clock (it acts in $E1).

#include "emu/memory/chip_ram.h"

#include <array>
#include <cstdint>

namespace copperline {

class Archive;

class Copper {
public:
    // Restart: the vertical blank's restart came while Copper DMA was off and waits for it.
    enum class State : std::uint8_t {
        Idle,
        Fetch1,
        Fetch2,
        Wait,
        Skip,
        Wakeup,
        Jump1,
        Jump2,
        Halted,
        Restart
    };

    // What the Copper did in the frame in progress, for debuggers (copper.list): the
    // stretches of list it fetched whole instructions from, each [start, end) in the order
    // it ran them (a new one at the frame's start and after each jump), and the MOVEs a
    // SKIP passed over. It is no part of the machine's state: it is not saved, loaded or
    // hashed, and nothing the Copper does reads it. A loaded state does not say what ran
    // before it in its frame, so after a load it is unknown (`known` false) until the
    // next frame starts; the record's seeks replay from the frame before, so a machine it
    // stands somewhere knows it again.
    struct FrameTrace {
        static constexpr unsigned kMaxRuns = 16, kMaxSkipped = 16;
        struct Run {
            std::uint32_t start = 0, end = 0;
        };
        std::array<Run, kMaxRuns> runs{};
        unsigned runCount = 0;
        std::array<std::uint32_t, kMaxSkipped> skipped{}; // the skipped MOVEs' addresses
        unsigned skippedCount = 0;
        std::uint32_t fetched = 0; // instructions fetched whole this frame
        bool known = true;
        // More stretches or skipped MOVEs than kept: those past the bound are not listed
        // (`fetched` still counts every instruction).
        bool overflow = false;
    };

    struct Step {
        bool usedBus = false;    // the Copper owned this colour clock
        std::uint32_t address = 0;
        std::uint16_t data = 0;  // the word fetched
        bool move = false;       // a MOVE's write is due: `reg` <- `value`
        std::uint16_t reg = 0;
        std::uint16_t value = 0;
        bool illegal = false;    // the MOVE targeted a protected register: the Copper halts
    };

    void reset();
    // COP1LCH/L, COP2LCH/L, COPJMP1/2 strobes, COPCON.
    void poke(std::uint16_t reg, std::uint16_t value);
    // Line 0 restarts the Copper at COP1LC (HRM chapter 2). With Copper DMA off the restart
    // waits: the list starts from whatever COP1LC holds when DMA comes back, so a COP1LC
    // written meanwhile is the one that runs (WinUAE keeps the strobe pending until Copper
    // DMA allows its first fetch; vAmiga pushes COP1LC writes into the PC while the Copper
    // has not been active in the frame).
    void startOfFrame(bool dmaOn);

    // One even colour clock. `busFree`: no fixed DMA holds this slot and the Copper may
    // use the bus (DMAEN and COPEN set, not at $E0). `blitterBusy` for WAIT/SKIP with BFD=0.
    Step clock(std::uint16_t vpos, std::uint16_t hpos, bool busFree, bool blitterBusy, const ChipRam& ram);

    // Whether a clock() now would do nothing at all: idle, halted, or waiting for a beam
    // position not reached yet.
    bool dormant(std::uint16_t vpos, std::uint16_t hpos, bool blitterBusy) const {
        if (state_ == State::Idle || state_ == State::Halted) return true;
        if (state_ != State::Wait) return false;
        return (ir1_ == 0xFFFF && ir2_ == 0xFFFE) || !beamReached(vpos, hpos, blitterBusy);
    }

    // In a WAIT, with the blitter idle: the first clock from `from` on, of line `vpos`, at
    // which the wait may end; `lineEnd` if it does not end before, and `from` when only a
    // look at each clock tells (a compare with masked bits). The comparator sees hpos + 2,
    // in steps of two clocks: a full compare of VP and HP ends the wait at hpos HP - 2.
    unsigned waitEnd(std::uint16_t vpos, unsigned from, unsigned lineEnd) const {
        if (ir1_ == 0xFFFF && ir2_ == 0xFFFE) return lineEnd;
        if ((ir2_ & 0x7FFE) != 0x7FFE) return from;
        const unsigned v = vpos & 0xFFu, vp = ir1_ >> 8;
        if (v > vp) return from;
        if (v < vp) return lineEnd;
        const unsigned hp = ir1_ & 0xFEu;
        const unsigned at = hp >= 2 ? hp - 2 : 0;
        return at < from ? from : at > lineEnd ? lineEnd : at;
    }

    // Whether the Copper would use the bus in this clock if it were free.
    bool wantsBus() const {
        return state_ == State::Fetch1 || state_ == State::Fetch2 || state_ == State::Wakeup ||
               state_ == State::Restart;
    }

    // Whether a MOVE to `reg` is carried out now; a MOVE to any other register halts the
    // Copper until the next frame. $000-$03E are never writable, $040-$07E only with
    // COPCON's CDANG bit (HRM "Copper control register"; the OCS rule, which this Copper
    // follows on every Agnus).
    bool mayWrite(std::uint16_t reg) const {
        reg &= 0x1FE;
        return reg >= 0x80 || (reg >= 0x40 && cdang_);
    }

    State state() const { return state_; }
    std::uint32_t pc() const { return pc_; }
    // Where a COPJMP strobe sends the Copper (in Jump1 and Jump2).
    std::uint32_t jumpTarget() const { return jumpTarget_; }
    const FrameTrace& frameTrace() const { return trace_; }
    std::uint32_t cop1lc() const { return cop1lc_; }
    std::uint32_t cop2lc() const { return cop2lc_; }
    bool danger() const { return cdang_; }
    std::uint16_t ir1() const { return ir1_; }
    std::uint16_t ir2() const { return ir2_; }

    void serialize(Archive& ar);

private:
    bool beamReached(std::uint16_t vpos, std::uint16_t hpos, bool blitterBusy) const {
        // BFD (IR2 bit 15) clear: also wait for the blitter to finish.
        if (!(ir2_ & 0x8000) && blitterBusy) return false;
        // VP7 is always compared; the horizontal compare ignores bit 0 (2-CCK steps). The
        // comparator sees the beam two clocks ahead (ocs-timing-facts section 3).
        const unsigned ve = ((ir2_ >> 8) & 0x7F) | 0x80;
        const unsigned he = ir2_ & 0xFE;
        const unsigned vp = (ir1_ >> 8) & ve, hp = ir1_ & he;
        const unsigned v = vpos & 0xFF & ve, h = (hpos + 2u) & 0xFF & he;
        return v > vp || (v == vp && h >= hp);
    }

    // The frame trace's bookkeeping: a stretch begins at `at`; the instruction before pc_
    // was fetched whole; a SKIP passed over the MOVE at `at`.
    void traceRun(std::uint32_t at) {
        if (trace_.runCount < FrameTrace::kMaxRuns) trace_.runs[trace_.runCount++] = {at, at};
        else trace_.overflow = true;
    }
    void traceFetched() {
        ++trace_.fetched;
        if (trace_.runCount && !trace_.overflow) trace_.runs[trace_.runCount - 1].end = pc_;
    }
    void traceSkipped(std::uint32_t at) {
        if (trace_.skippedCount < FrameTrace::kMaxSkipped) trace_.skipped[trace_.skippedCount++] = at;
        else trace_.overflow = true;
    }

    State state_ = State::Idle;
    std::uint32_t pc_ = 0, cop1lc_ = 0, cop2lc_ = 0;
    std::uint32_t jumpTarget_ = 0;
    std::uint16_t ir1_ = 0, ir2_ = 0;
    bool cdang_ = false;
    bool skipNext_ = false;
    FrameTrace trace_; // not state (see FrameTrace)
};

} // namespace copperline
