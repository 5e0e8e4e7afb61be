// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The OCS blitter inside Agnus 8371 (HRM chapter 6, "Blitter Hardware"): four DMA channels
// (sources A, B, C, destination D), the A and B barrel shifters, first/last-word masks,
// 256 minterms, area fill, line drawing, and the per-word channel sequence that decides
// which colour clocks the blitter takes from the chip bus.
//
// Agnus clocks it once per colour clock and tells it whether it may have the bus; the
// blitter answers with what it did in that clock (docs/blitter.md has the model and the
// cycle table with its sources).
//
// Timing in one line: the BLTSIZE write takes effect in the next clock, which starts two
// set-up clocks, then one group of 2-4 clocks per
// word (one slot per enabled channel plus idle slots, HRM table "Blitter Operations and
// System DMA"); D writes lag one word behind the reads; after the last group BBUSY clears
// and the blit interrupt is raised, and a D blit still needs two clocks (an idle one and
// the final D write). Line mode takes four clocks per pixel.

#include "emu/memory/chip_ram.h"

#include <array>
#include <cstdint>

namespace copperline {

class Archive;

class Blitter {
public:
    // BLTCON0 and BLTCON1 bits (HRM appendix A, BLTCON0/BLTCON1).
    // clang-format off
    enum : std::uint16_t {
        UseA = 0x0800, UseB = 0x0400, UseC = 0x0200, UseD = 0x0100,  // BLTCON0
        Line = 0x0001, Desc = 0x0002, Fci = 0x0004, Ife = 0x0008, Efe = 0x0010,  // BLTCON1, area
        Sing = 0x0002, Aul = 0x0004, Sul = 0x0008, Sud = 0x0010, Sign = 0x0040,  // BLTCON1, line
    };
    // clang-format on
    // The pointers are as wide as Agnus's chip RAM addresses: 19 bits on the A500's 8371
    // (512K), 20 or 21 on an ECS 8372 with 1M or 2M.
    std::uint32_t pointerMask() const { return ram_.mask() & ~1u; }

    explicit Blitter(ChipRam& ram);
    // The RESET line: registers and sequencer. The blit count survives it.
    void reset();
    // Power on: reset, and the blit count starts again from zero.
    void powerOn();
    // BLTSIZE writes since power-on (saved with the state): the last blit's stable id.
    std::uint32_t blitCount() const { return blits_; }

    // A write to a blitter register ($040-$074; BLTSIZE starts the blit). Agnus routes CPU
    // and Copper writes here at the clock they happen. Other offsets are ignored.
    void poke(std::uint16_t reg, std::uint16_t value);

    std::uint16_t bltddat() const { return ddat_; } // last D output (BLTDDAT)
    // DMACONR BBUSY: set by the BLTSIZE write (Fat Agnus), cleared in the clock of the last
    // main cycle, two clocks before a D blit's final write (ocs-timing-facts section 4).
    bool busy() const { return phase_ != Phase::Idle; }
    bool zero() const { return zero_; } // DMACONR BZERO
    // Whether the blitter still has clocks to run: busy(), or a D blit's final write still
    // pending after BBUSY cleared. Agnus must keep clocking the blitter while this holds,
    // or that last word is never written.
    bool running() const { return busy() || tail_ != 0; }

    // Whether the next step of the blitter needs the chip bus (false for idle "-" steps
    // and when not running). Agnus uses it to decide ownership of the clock.
    bool wantsBus() const;

    struct Step {
        bool usedBus = false;     // the blitter owned this colour clock
        std::uint8_t channel = 0; // 0=A 1=B 2=C 3=D when usedBus
        bool write = false;
        std::uint32_t address = 0;
        std::uint16_t data = 0;
        bool finished = false; // the blit completed in this clock: raise INTREQ BLIT
        // The minterm produced a word (a pixel in line mode) in this clock, D enabled or
        // not: `result`, for the profiler's blit previews.
        bool produced = false;
        std::uint16_t result = 0;
    };

    // One colour clock. `busGranted`: Agnus gives the blitter the bus this clock (it is free
    // of higher-priority DMA, DMACON has DMAEN+BLTEN, and the CPU did not win it). A step
    // that needs the bus but is not granted stalls (nothing advances).
    //
    // `slotFree` (optional, an addition to the original interface): the clock is free of
    // higher-priority DMA and DMACON has DMAEN+BLTEN, whether or not the CPU took it. Idle
    // steps advance only in such clocks: they leave the bus to the CPU but not to bitplane
    // or other fixed DMA, and a blit with BLTEN clear freezes entirely (WinUAE blitter.cpp,
    // "Blitter Idle Cycle"). The default keeps the simpler rule that idle steps always
    // advance.
    Step clock(bool busGranted, bool slotFree = true);
    // clock(free, free), as Agnus clocks it: the clock is the blitter's if it wants it, or
    // nobody's. The steps of an area blit run here, inline. The step goes into `out`, which
    // the caller has fresh (a Step returned by value is packed into registers from the
    // fields just stored one by one, and that wide read stalls).
    void clockAs(bool free, Step& out) {
        if (tail_ || phase_ == Phase::Line) [[unlikely]] {
            out = clock(free, free);
            return;
        }
        if (phase_ == Phase::Idle) return;
        clockArea(free, out);
    }
    // The fewest clocks, from the next one on, up to and with the one in which the busy
    // blit finishes (BBUSY clears, the interrupt follows): as many as its words' slots
    // left, every one of them granted (a line blit's set-up only).
    std::uint32_t minClocksToFinish() const {
        if (line_) return phase_ == Phase::Startup ? startup_ : 1;
        const std::uint32_t words = std::uint32_t(height_ - y_ - 1) * width_ + (width_ - x_);
        if (phase_ == Phase::Startup) return startup_ + words * groupSize_;
        return words * groupSize_ - slot_;
    }
    // Whether the blitter is in an area blit's set-up or words with no final write
    // pending (clockArea's state), or idle with nothing left to run.
    bool areaOrIdle() const { return tail_ == 0 && phase_ != Phase::Line; }
    // clockAs in clockArea's state, busy: false once the blitter has left it in this clock
    // (the blit finished, or a line blit's set-up ended).
    bool clockArea(bool free, Step& out) {
        if (!free && !inWriteClock()) {
            ++stalled_;
            return true;
        }
        if (phase_ == Phase::Startup) {
            if (--startup_ != 0) return true;
            phase_ = line_ ? Phase::Line : Phase::Area;
            return !line_;
        }
        const Slot s = group_[slot_];
        // The first word's D slot has nothing to write yet: D lags one word behind.
        areaSlot(s == Slot::D && !pending_ ? Slot::Idle : s, out);
        if (out.usedBus) ++used_;
        return !out.finished;
    }

    // Runs the blit (and a pending final write) to the end at once: the same results as
    // clocking it with the bus always granted.
    void runToCompletion();

    // Counters for the profiler since the last BLTSIZE write: clocks in which the blitter
    // owned the bus, and clocks in which it wanted the bus (or a free slot) and did not
    // get it.
    std::uint32_t clocksUsed() const { return used_; }
    std::uint32_t clocksStalled() const { return stalled_; }

    // The register file and progress, for the debugger.
    struct Info {
        std::uint16_t bltcon0 = 0, bltcon1 = 0, afwm = 0, alwm = 0;
        std::uint32_t apt = 0, bpt = 0, cpt = 0, dpt = 0;
        std::uint16_t amod = 0, bmod = 0, cmod = 0, dmod = 0;
        std::uint16_t adat = 0, bdat = 0, cdat = 0, ddat = 0;
        std::uint16_t bhold = 0; // B after its shifter: what the minterm sees without B DMA
        std::uint16_t width = 0, height = 0; // words and rows (pixels in line mode) of the blit
        std::uint32_t remaining = 0;         // words (pixels) not yet computed
        bool busy = false, running = false, zero = false, line = false;
    };
    Info info() const;

    void serialize(Archive& ar);

private:
    // A pointer moved by a modulo or a word, wrapped to the pointer width.
    std::uint32_t addSigned(std::uint32_t ptr, std::int32_t delta) const {
        return std::uint32_t(std::int32_t(ptr) + delta) & pointerMask();
    }
    enum class Phase : std::uint8_t { Idle, Startup, Area, Line };
    // The set-up clocks after a BLTSIZE write: the clock in which the write takes effect
    // (the register's pipeline: vAmiga applies BLTSIZE one DMA cycle after the write,
    // WinUAE's pipelined_custom_write waits one CCK), which needs no bus, then two that need
    // a free slot (WinUAE CYCLECOUNT_START 2; vAmiga BLT_STRT1, BLT_STRT2).
    static constexpr std::uint8_t kWriteClocks = 1, kStartupClocks = 2;
    // The clock in which the BLTSIZE write takes effect: it runs whoever owns the bus.
    bool inWriteClock() const { return phase_ == Phase::Startup && startup_ > kStartupClocks; }
    // What one clock of the sequence does.
    enum class Slot : std::uint8_t {
        None,
        Idle,
        A,
        B,
        C,
        D,
        TailIdle,
        TailD,
        LineC,
        LineProc,
        LineD
    };

    void start();
    void buildGroup();
    Slot nextSlot() const;
    static bool slotNeedsBus(Slot s);
    void areaSlot(Slot s, Step& out) {
        switch (s) {
        case Slot::A: adat_ = fetch(apt_, amod_, 0, out); break;
        case Slot::B: {
            bdat_ = fetch(bpt_, bmod_, 1, out);
            const unsigned bsh = con1_ >> 12;
            bhold_ = descending() ? std::uint16_t((std::uint32_t(bdat_) << 16 | bold_) >> (16 - bsh))
                                  : std::uint16_t((std::uint32_t(bold_) << 16 | bdat_) >> bsh);
            bold_ = bdat_;
            break;
        }
        case Slot::C: cdat_ = fetch(cpt_, cmod_, 2, out); break;
        case Slot::D:
            ram_.writeWord(pendingAddr_, pendingData_);
            out = {true, 3, true, pendingAddr_, pendingData_, false};
            pending_ = false;
            break;
        default: break;
        }
        if (++slot_ == groupSize_) {
            slot_ = 0;
            finishWord(out);
        }
    }
    void lineSlot(Slot s, Step& out);
    void finishWord(Step& out);
    // Area fill of one word (finishWord's, out of line: few blits fill).
    [[gnu::noinline]] std::uint16_t fill(std::uint16_t d);
    void linePixel(Step& out);
    std::uint16_t fetch(std::uint32_t& ptr, std::uint16_t mod, std::uint8_t channel, Step& out) {
        const std::uint16_t v = ram_.readWord(ptr);
        out = {true, channel, false, ptr, v, false};
        // Ascending mode adds 2 and, after a row's last word, the modulo; descending mode
        // subtracts both (HRM "Descending Mode").
        std::int32_t delta = 2;
        if (x_ + 1 == width_) delta += std::int16_t(mod);
        ptr = addSigned(ptr, descending() ? -delta : delta);
        return v;
    }
    std::uint16_t minterm(std::uint16_t a, std::uint16_t b, std::uint16_t c) const;
    bool groupWrites() const;
    bool descending() const { return (con1_ & Line) == 0 && (con1_ & Desc) != 0; }

    ChipRam& ram_;

    // Registers.
    std::uint16_t con0_ = 0, con1_ = 0, afwm_ = 0, alwm_ = 0;
    std::uint32_t apt_ = 0, bpt_ = 0, cpt_ = 0, dpt_ = 0;
    std::uint16_t amod_ = 0, bmod_ = 0, cmod_ = 0, dmod_ = 0;
    std::uint16_t adat_ = 0, bdat_ = 0, cdat_ = 0, ddat_ = 0;
    std::uint16_t width_ = 0, height_ = 0;
    bool line_ = false; // the blit running is a line (BLTCON1 LINE at the BLTSIZE write)

    // Data path.
    std::uint16_t aold_ = 0, bold_ = 0; // previous word into the A and B shifters
    std::uint16_t bhold_ = 0;           // B after its shifter (HRM: shifted when loaded)
    bool fillCarry_ = false;
    bool zero_ = true;

    // Sequencer.
    Phase phase_ = Phase::Idle;
    std::array<Slot, 4> group_{}; // the slots of one word's group
    std::uint8_t groupSize_ = 0;
    bool groupWritesD_ = false;   // the group has a D slot (groupWrites, kept)
    std::uint8_t slot_ = 0;       // next slot in the group (or in the pixel)
    std::uint8_t startup_ = 0;    // set-up clocks left
    std::uint16_t x_ = 0, y_ = 0; // word within the row and row (pixel in line mode)
    bool pending_ = false;        // a computed D word waits for its write
    std::uint32_t pendingAddr_ = 0;
    std::uint16_t pendingData_ = 0;
    std::uint8_t tail_ = 0; // clocks of the final D write still to run (2, 1, 0)
    std::uint32_t tailAddr_ = 0;
    std::uint16_t tailData_ = 0;
    bool lineDraw_ = false; // line mode: this pixel is written (SING)
    bool lineDot_ = false;  // line mode: a pixel was drawn on this row (SING)

    std::uint32_t used_ = 0, stalled_ = 0;
    std::uint32_t blits_ = 0;
};

} // namespace copperline
