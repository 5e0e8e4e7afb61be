// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/blitter.h"

#include "emu/chipset/custom_regs.h"
#include "emu/memory/chip_ram.h"
#include "emu/state/archive.h"

namespace copperline {

namespace {

// Line mode: one pixel is four clocks, "-C-D" (HRM "Blitter Speed": a line pixel takes 8
// ticks of the 7 MHz clock; WinUAE blitter.cpp, "line draw takes 4 cycles").
constexpr std::uint8_t kLineClocks = 4;

constexpr std::uint32_t pointerHigh(std::uint32_t ptr, std::uint16_t v, std::uint32_t mask) {
    return ((ptr & 0xFFFF) | std::uint32_t(v) << 16) & mask;
}
constexpr std::uint32_t pointerLow(std::uint32_t ptr, std::uint16_t v, std::uint32_t mask) {
    return ((ptr & 0xFFFF0000u) | v) & mask;
}

} // namespace

Blitter::Blitter(ChipRam& ram) : ram_(ram) {
    reset();
}

void Blitter::reset() {
    con0_ = con1_ = afwm_ = alwm_ = 0;
    apt_ = bpt_ = cpt_ = dpt_ = 0;
    amod_ = bmod_ = cmod_ = dmod_ = 0;
    adat_ = bdat_ = cdat_ = ddat_ = 0;
    width_ = height_ = 0;
    line_ = false;
    aold_ = bold_ = bhold_ = 0;
    fillCarry_ = false;
    zero_ = true;
    phase_ = Phase::Idle;
    group_ = {};
    groupSize_ = slot_ = startup_ = 0;
    x_ = y_ = 0;
    pending_ = false;
    pendingAddr_ = 0;
    pendingData_ = 0;
    tail_ = 0;
    tailAddr_ = 0;
    tailData_ = 0;
    lineDraw_ = lineDot_ = false;
    used_ = stalled_ = 0;
}

void Blitter::powerOn() {
    reset();
    blits_ = 0;
}

void Blitter::poke(std::uint16_t r, std::uint16_t v) {
    switch (r & 0x1FE) {
    case reg::BLTCON0: con0_ = v; break;
    case reg::BLTCON1: con1_ = v; break;
    case reg::BLTAFWM: afwm_ = v; break;
    case reg::BLTALWM: alwm_ = v; break;
    case reg::BLTAPTH: apt_ = pointerHigh(apt_, v, pointerMask()); break;
    case reg::BLTAPTL: apt_ = pointerLow(apt_, v, pointerMask()); break;
    case reg::BLTBPTH: bpt_ = pointerHigh(bpt_, v, pointerMask()); break;
    case reg::BLTBPTL: bpt_ = pointerLow(bpt_, v, pointerMask()); break;
    case reg::BLTCPTH: cpt_ = pointerHigh(cpt_, v, pointerMask()); break;
    case reg::BLTCPTL: cpt_ = pointerLow(cpt_, v, pointerMask()); break;
    case reg::BLTDPTH: dpt_ = pointerHigh(dpt_, v, pointerMask()); break;
    case reg::BLTDPTL: dpt_ = pointerLow(dpt_, v, pointerMask()); break;
    case reg::BLTSIZE:
        // Height in bits 15-6 and width in words in bits 5-0; zero means the maximum
        // (1024 rows, 64 words) (HRM appendix A, BLTSIZE).
        height_ = std::uint16_t((v >> 6) ? (v >> 6) : 1024);
        width_ = std::uint16_t((v & 0x3F) ? (v & 0x3F) : 64);
        ++blits_;
        start();
        break;
    // Modulos are signed byte counts whose bit 0 is ignored (HRM "Pointers and Modulos").
    case reg::BLTCMOD: cmod_ = v & 0xFFFE; break;
    case reg::BLTBMOD: bmod_ = v & 0xFFFE; break;
    case reg::BLTAMOD: amod_ = v & 0xFFFE; break;
    case reg::BLTDMOD: dmod_ = v & 0xFFFE; break;
    case reg::BLTCDAT: cdat_ = v; break;
    case reg::BLTBDAT: {
        // "Shifts are done on immediate data as soon as it is loaded" (HRM, Blitter
        // summary): B goes through its shifter now, with the BSH and direction of this
        // moment, and the result is held until B is loaded again.
        const unsigned bsh = con1_ >> 12;
        bhold_ = descending() ? std::uint16_t((std::uint32_t(v) << 16 | bold_) >> (16 - bsh))
                              : std::uint16_t((std::uint32_t(bold_) << 16 | v) >> bsh);
        bold_ = v;
        bdat_ = v;
        break;
    }
    case reg::BLTADAT: adat_ = v; break;
    default: break;
    }
}

void Blitter::start() {
    // BZERO starts at 1 (HRM Table 7-6); the shifters shift zeros into the first word of
    // the blit (HRM "Shifts": "for the first word of the blit, zeros are shifted in").
    zero_ = true;
    aold_ = bold_ = 0;
    x_ = y_ = 0;
    slot_ = 0;
    pending_ = false;
    lineDot_ = lineDraw_ = false;
    fillCarry_ = (con1_ & Fci) != 0;
    used_ = stalled_ = 0;
    line_ = (con1_ & Line) != 0;
    buildGroup();
    startup_ = kWriteClocks + kStartupClocks;
    phase_ = Phase::Startup;
}

void Blitter::buildGroup() {
    // One word's slots (HRM Table 6-2, "Blitter Operations and System DMA"; the WinUAE and
    // vAmiga sequencers agree): the A slot (idle without A), B if enabled, then C and D,
    // C alone, D alone, or one idle slot. 2 clocks, plus 1 with B, plus 1 with C and D.
    // Fill mode with D but not C adds an idle slot at the end (HRM errata, 17 Oct 1985).
    groupSize_ = 0;
    group_ = {};
    const bool useC = con0_ & UseC, useD = con0_ & UseD;
    group_[groupSize_++] = (con0_ & UseA) ? Slot::A : Slot::Idle;
    if (con0_ & UseB) group_[groupSize_++] = Slot::B;
    if (useC) group_[groupSize_++] = Slot::C;
    if (useD) group_[groupSize_++] = Slot::D;
    if (!useC && !useD) group_[groupSize_++] = Slot::Idle;
    if ((con1_ & (Ife | Efe)) && useD && !useC) group_[groupSize_++] = Slot::Idle;
    groupWritesD_ = groupWrites();
}

bool Blitter::groupWrites() const {
    for (std::uint8_t i = 0; i < groupSize_; ++i)
        if (group_[i] == Slot::D) return true;
    return false;
}

Blitter::Slot Blitter::nextSlot() const {
    // A D blit's final write runs after BBUSY cleared, and before a blit started meanwhile
    // (WinUAE blitter.cpp: "final D is still written correctly before blitter starts").
    if (tail_ == 2) return Slot::TailIdle;
    if (tail_ == 1) return Slot::TailD;
    switch (phase_) {
    case Phase::Idle: return Slot::None;
    case Phase::Startup: return Slot::Idle;
    case Phase::Area: {
        const Slot s = group_[slot_];
        // The first word's D slot has nothing to write yet: D lags one word behind.
        return (s == Slot::D && !pending_) ? Slot::Idle : s;
    }
    case Phase::Line:
        switch (slot_) {
        case 1: return (con0_ & UseC) ? Slot::LineC : Slot::Idle;
        case 2: return Slot::LineProc;
        case 3: return ((con0_ & UseC) && lineDraw_) ? Slot::LineD : Slot::Idle;
        default: return Slot::Idle;
        }
    }
    return Slot::None;
}

bool Blitter::slotNeedsBus(Slot s) {
    switch (s) {
    case Slot::A:
    case Slot::B:
    case Slot::C:
    case Slot::D:
    case Slot::TailD:
    case Slot::LineC:
    case Slot::LineD: return true;
    default: return false;
    }
}

bool Blitter::wantsBus() const {
    return slotNeedsBus(nextSlot());
}

Blitter::Step Blitter::clock(bool busGranted, bool slotFree) {
    Step out;
    const Slot s = nextSlot();
    if (s == Slot::None) return out;
    // The clock in which a BLTSIZE write takes effect passes while an earlier blit's final
    // write still runs: the write is the register's pipeline, not a blitter step (WinUAE
    // blitter.cpp: a write just before the last D write leaves that write in place, and
    // the new blit starts "normally (after 2 idle cycles)").
    if (tail_ && inWriteClock()) --startup_;
    if (!(slotNeedsBus(s) ? busGranted : slotFree || inWriteClock())) {
        ++stalled_;
        return out;
    }
    if (s == Slot::TailIdle) {
        tail_ = 1;
    } else if (s == Slot::TailD) {
        tail_ = 0;
        ram_.writeWord(tailAddr_, tailData_);
        out = {true, 3, true, tailAddr_, tailData_, false};
    } else {
        switch (phase_) {
        case Phase::Startup:
            if (--startup_ == 0) phase_ = line_ ? Phase::Line : Phase::Area;
            break;
        case Phase::Area: areaSlot(s, out); break;
        case Phase::Line: lineSlot(s, out); break;
        case Phase::Idle: break;
        }
    }
    if (out.usedBus) ++used_;
    return out;
}

void Blitter::runToCompletion() {
    while (running())
        clock(true, true);
}

[[gnu::always_inline]] inline std::uint16_t Blitter::minterm(std::uint16_t a, std::uint16_t b, std::uint16_t c) const {
    // LF7..LF0 select ABC, ABc, AbC, Abc, aBC, aBc, abC, abc (HRM "Logic Functions").
    const unsigned lf = con0_ & 0xFF;
    // The functions blits use most, which need no terms: a clear, a fill, a copy of one
    // source, the cookie cut (A selects B over C).
    switch (lf) {
    case 0x00: return 0;
    case 0xFF: return 0xFFFF;
    case 0xF0: return a;
    case 0xCC: return b;
    case 0xAA: return c;
    case 0xCA: return std::uint16_t((a & b) | (~a & c));
    default: break;
    }
    const std::uint16_t na = std::uint16_t(~a), nb = std::uint16_t(~b), nc = std::uint16_t(~c);
    unsigned d = 0;
    if (lf & 0x80) d |= a & b & c;
    if (lf & 0x40) d |= a & b & nc;
    if (lf & 0x20) d |= a & nb & c;
    if (lf & 0x10) d |= a & nb & nc;
    if (lf & 0x08) d |= na & b & c;
    if (lf & 0x04) d |= na & b & nc;
    if (lf & 0x02) d |= na & nb & c;
    if (lf & 0x01) d |= na & nb & nc;
    return std::uint16_t(d);
}

std::uint16_t Blitter::fill(std::uint16_t d) {
    // Fill runs from bit 0 (the right) to bit 15, the carry passing from word to word
    // along a row and starting each row at FCI (HRM "Area Fill Mode"). With both
    // enables set, the exclusive fill wins (WinUAE blitter.cpp).
    if (x_ == 0) fillCarry_ = (con1_ & Fci) != 0;
    const bool exclusive = (con1_ & Efe) != 0;
    bool carry = fillCarry_;
    std::uint16_t filled = 0;
    for (unsigned bit = 0; bit < 16; ++bit) {
        const bool in = (d >> bit) & 1;
        const bool o = exclusive ? (in != carry) : (in || carry);
        if (o) filled = std::uint16_t(filled | 1u << bit);
        if (in) carry = !carry;
    }
    fillCarry_ = carry;
    return filled;
}

void Blitter::finishWord(Step& out) {
    // The order is masking, shifting, logic, fill, zero flag (HRM, Blitter summary).
    std::uint16_t mask = 0xFFFF;
    if (x_ == 0) mask &= afwm_;
    if (x_ + 1 == width_) mask &= alwm_;
    const std::uint16_t a = adat_ & mask;
    const unsigned ash = con0_ >> 12;
    const std::uint16_t ahold = descending()
                                    ? std::uint16_t((std::uint32_t(a) << 16 | aold_) >> (16 - ash))
                                    : std::uint16_t((std::uint32_t(aold_) << 16 | a) >> ash);
    aold_ = a;
    std::uint16_t d = minterm(ahold, bhold_, cdat_);

    if (con1_ & (Ife | Efe)) d = fill(d);

    if (d) zero_ = false;
    ddat_ = d;
    out.produced = true;
    out.result = d;
    if (groupWritesD_) {
        pending_ = true;
        pendingAddr_ = dpt_;
        pendingData_ = d;
        std::int32_t delta = 2;
        if (x_ + 1 == width_) delta += std::int16_t(dmod_);
        dpt_ = addSigned(dpt_, descending() ? -delta : delta);
    }

    if (++x_ < width_) return;
    x_ = 0;
    if (++y_ < height_) return;
    // The last main cycle: BBUSY clears and the interrupt is raised now; the last word's
    // D write follows after one idle clock (WinUAE blitter.cpp, above blitter_interrupt).
    out.finished = true;
    phase_ = Phase::Idle;
    if (pending_) {
        pending_ = false;
        tail_ = 2;
        tailAddr_ = pendingAddr_;
        tailData_ = pendingData_;
    }
}

void Blitter::lineSlot(Slot s, Step& out) {
    switch (s) {
    case Slot::LineC:
        cdat_ = ram_.readWord(cpt_);
        out = {true, 2, false, cpt_, cdat_, false};
        break;
    case Slot::LineProc: linePixel(out); break;
    case Slot::LineD:
        ram_.writeWord(pendingAddr_, pendingData_);
        out = {true, 3, true, pendingAddr_, pendingData_, false};
        break;
    default: break;
    }
    if (++slot_ < kLineClocks) return;
    slot_ = 0;
    // The interrupt comes with the last pixel's D slot, written or not (WinUAE
    // blitter.cpp, above blitter_interrupt).
    if (++y_ == height_) {
        out.finished = true;
        phase_ = Phase::Idle;
    }
}

void Blitter::linePixel(Step& out) {
    // HRM "Line Mode": A holds the pixel ($8000 shifted by ASH, the x position within the
    // word), B the texture (one bit per pixel), C the word under the pixel; the octant bits
    // say which axis always steps (SUD: x) and in which directions (AUL, SUL); BLTAPT holds
    // the Bresenham error, stepped by BLTBMOD (4*dy) while SIGN is set and BLTAMOD
    // (4*(dy-dx)) otherwise, and a minor-axis step happens only when SIGN is clear.
    // SING draws one pixel per row (the first), which makes lines fit for area fill.
    lineDraw_ = !(con1_ & Sing) || !lineDot_;
    lineDot_ = true;

    unsigned ash = con0_ >> 12;
    unsigned bsh = con1_ >> 12;
    const std::uint16_t a = std::uint16_t((adat_ & afwm_) >> ash);
    const std::uint16_t b = ((bdat_ >> bsh) & 1) ? 0xFFFF : 0;
    const std::uint16_t d = minterm(a, b, cdat_);
    if (d) zero_ = false;
    ddat_ = d;
    out.produced = true;
    out.result = d;
    // The first pixel goes to BLTDPT; each later one to where C read it, because D takes
    // the C pointer after every pixel (WinUAE blitter.cpp, line mode "Oddities").
    pendingAddr_ = dpt_;
    pendingData_ = d;

    const bool sign = (con1_ & Sign) != 0;
    // Without A the error term stays frozen (WinUAE: "disabling A-channel freezes BLTAPT").
    if (con0_ & UseA) apt_ = addSigned(apt_, std::int16_t(sign ? bmod_ : amod_));
    auto stepX = [&](bool left) {
        if (left) {
            if (ash == 0) cpt_ = addSigned(cpt_, -2);
            ash = (ash - 1) & 15;
        } else {
            if (ash == 15) cpt_ = addSigned(cpt_, 2);
            ash = (ash + 1) & 15;
        }
    };
    auto stepY = [&](bool up) {
        // Rows are BLTCMOD apart; without C the pointer does not move (WinUAE).
        if (!(con0_ & UseC)) return;
        cpt_ = addSigned(cpt_, up ? -std::int16_t(cmod_) : std::int16_t(cmod_));
        lineDot_ = false;
    };
    if (!sign) {
        if (con1_ & Sud)
            stepY(con1_ & Sul);
        else
            stepX(con1_ & Sul);
    }
    if (con1_ & Sud)
        stepX(con1_ & Aul);
    else
        stepY(con1_ & Aul);

    // The x position lives in ASH and the texture position in BSH, which turns one bit per
    // pixel; SIGN follows the error term's bit 15.
    bsh = (bsh - 1) & 15;
    con0_ = std::uint16_t((con0_ & 0x0FFF) | ash << 12);
    con1_ = std::uint16_t((con1_ & 0x0FFF & ~Sign) | bsh << 12 | ((apt_ & 0x8000) ? Sign : 0));
    dpt_ = cpt_;
}

Blitter::Info Blitter::info() const {
    Info i;
    i.bltcon0 = con0_;
    i.bltcon1 = con1_;
    i.afwm = afwm_;
    i.alwm = alwm_;
    i.apt = apt_;
    i.bpt = bpt_;
    i.cpt = cpt_;
    i.dpt = dpt_;
    i.amod = amod_;
    i.bmod = bmod_;
    i.cmod = cmod_;
    i.dmod = dmod_;
    i.adat = adat_;
    i.bdat = bdat_;
    i.cdat = cdat_;
    i.ddat = ddat_;
    i.bhold = bhold_;
    i.width = width_;
    i.height = height_;
    i.busy = busy();
    i.running = running();
    i.zero = zero_;
    i.line = line_;
    if (busy()) {
        i.remaining = line_ ? std::uint32_t(height_ - y_)
                            : std::uint32_t(width_) * height_ - (std::uint32_t(y_) * width_ + x_);
    }
    return i;
}

void Blitter::serialize(Archive& ar) {
    ar(con0_, con1_, afwm_, alwm_, apt_, bpt_, cpt_, dpt_, amod_, bmod_, cmod_, dmod_);
    ar(adat_, bdat_, cdat_, ddat_, width_, height_, line_);
    ar(aold_, bold_, bhold_, fillCarry_, zero_);
    ar(phase_, group_, groupSize_, slot_, startup_, x_, y_);
    ar(pending_, pendingAddr_, pendingData_, tail_, tailAddr_, tailData_, lineDraw_, lineDot_);
    ar(used_, stalled_, blits_);
    if (ar.loading() && (groupSize_ > group_.size() || slot_ >= 4 || tail_ > 2))
        throw StateError("blitter state is out of range");
    if (ar.loading()) groupWritesD_ = groupWrites();
}

} // namespace copperline
