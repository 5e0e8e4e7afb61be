// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/cia.h"

#include "emu/state/archive.h"

#include <algorithm>

namespace copperline {

namespace {
// Pipeline taps (bit i = decided i E cycles ago, the newest in bit 0).
constexpr std::uint8_t kCountTap = 0x04;  // the third E cycle after START counts
constexpr std::uint8_t kLoadTap = 0x04;   // a force-load lands two E cycles after its write
constexpr std::uint8_t kPipeMask = 0x07;
} // namespace

Cia::Cia() { reset(); }

void Cia::reset() {
    settle();
    pra_ = prb_ = ddra_ = ddrb_ = 0;
    timerA_ = Timer{};
    timerB_ = Timer{};
    cra_ = crb_ = 0;
    icr_ = icrMask_ = irqPipe_ = 0;
    tod_ = todLatch_ = alarm_ = 0;
    todLatched_ = todStopped_ = false;
    sdr_ = sdrOut_ = shiftReg_ = shiftBits_ = 0;
    sdrPending_ = false;
    cnt_ = true;
    cntEdges_ = 0;
}

std::uint8_t Cia::portBPins() const {
    auto pins = std::uint8_t((prb_ & ddrb_) | (portBIn_ & ~ddrb_));
    // PBON routes the timers' outputs onto PB6 (timer A) and PB7 (timer B).
    if (cra_ & CrPBON) {
        const bool level = (cra_ & CrOUTMODE) ? timerA_.toggle : timerA_.pulse;
        pins = std::uint8_t((pins & ~0x40) | (level ? 0x40 : 0));
    }
    if (crb_ & CrPBON) {
        const bool level = (crb_ & CrOUTMODE) ? timerB_.toggle : timerB_.pulse;
        pins = std::uint8_t((pins & ~0x80) | (level ? 0x80 : 0));
    }
    return pins;
}

void Cia::advanceSlow(MasterClock now) {
    if (now <= now_) return;
    std::uint64_t edges = now / kCyclesPerEClock - now_ / kCyclesPerEClock;
    now_ = lazyNow_ = now;
    while (edges) {
        // Fast path: nothing in flight, so the only change over many E cycles is that
        // running timers count down. Skip to just before the first underflow.
        // Timer B in a cascade or CNT mode only counts in E cycles run one by one.
        const bool aRuns = (cra_ & CrSTART) && !(cra_ & CraINMODE);
        const bool bRuns = (crb_ & CrSTART) && !(crb_ & CrbINMODE);
        const bool steady = !irqPipe_ && !timerA_.loadPipe && !timerB_.loadPipe && !timerA_.pulse &&
                            !timerB_.pulse && !cntEdges_ && !shiftBits_ &&
                            timerA_.countPipe == (aRuns ? kPipeMask : 0) &&
                            timerB_.countPipe == (bRuns ? kPipeMask : 0);
        if (steady) {
            std::uint64_t k = edges;
            if (aRuns) k = std::min<std::uint64_t>(k, timerA_.counter);
            if (bRuns) k = std::min<std::uint64_t>(k, timerB_.counter);
            if (k) {
                if (aRuns) timerA_.counter = std::uint16_t(timerA_.counter - k);
                if (bRuns) timerB_.counter = std::uint16_t(timerB_.counter - k);
                edges -= k;
                continue;
            }
        }
        eCycle();
        --edges;
    }
    // From a steady state nothing but the counts changes until a running timer reaches
    // zero: skip that many E cycles without running them.
    const bool aRuns = (cra_ & CrSTART) && !(cra_ & CraINMODE);
    const bool bRuns = (crb_ & CrSTART) && !(crb_ & CrbINMODE);
    const bool steady = !irqPipe_ && !timerA_.loadPipe && !timerB_.loadPipe && !timerA_.pulse && !timerB_.pulse &&
                        !cntEdges_ && !shiftBits_ && timerA_.countPipe == (aRuns ? kPipeMask : 0) &&
                        timerB_.countPipe == (bRuns ? kPipeMask : 0);
    if (!steady) {
        wakeAt_ = 0;
        return;
    }
    std::uint64_t k = ~std::uint64_t(0) / (2 * kCyclesPerEClock);
    if (aRuns) k = std::min<std::uint64_t>(k, timerA_.counter);
    if (bRuns) k = std::min<std::uint64_t>(k, timerB_.counter);
    wakeAt_ = (now_ / kCyclesPerEClock + k + 1) * kCyclesPerEClock;
}

void Cia::eCycle() {
    // Flags raised in the previous E cycle set IR and pull /IRQ now, unless a read of ICR
    // cleared them in between.
    if (irqPipe_) {
        if (icr_ & irqPipe_ & icrMask_ & 0x1F) icr_ |= IcrIR;
        irqPipe_ = 0;
    }
    timerA_.pulse = timerB_.pulse = false;

    const bool cntEdge = cntEdges_ > 0;
    cntEdges_ = 0;
    const bool aInput = (cra_ & CrSTART) && ((cra_ & CraINMODE) ? cntEdge : true);
    const bool aUnder = stepTimer(timerA_, cra_, aInput, !(cra_ & CraINMODE));
    if (aUnder) {
        raise(IcrTA);
        if (shiftBits_) shiftOutBit();
    }

    bool bInput = false;
    if (crb_ & CrSTART) {
        switch ((crb_ & CrbINMODE) >> 5) {
        case 0: bInput = true; break;                    // E clock
        case 1: bInput = cntEdge; break;                 // CNT edges
        case 2: bInput = aUnder; break;                  // timer A underflows
        case 3: bInput = aUnder && cnt_; break;          // timer A underflows while CNT is high
        }
    }
    if (stepTimer(timerB_, crb_, bInput, !(crb_ & CrbINMODE))) raise(IcrTB);
}

bool Cia::stepTimer(Timer& t, std::uint8_t& cr, bool countInput, bool eClockInput) {
    t.loadPipe = std::uint8_t((t.loadPipe << 1) & kPipeMask);
    // Only E-clock counting goes through the start pipeline; CNT and cascade counts act in
    // the cycle they arrive.
    const bool eMode = countInput && eClockInput;
    t.countPipe = std::uint8_t(((t.countPipe << 1) | (eMode ? 1 : 0)) & kPipeMask);
    if (t.loadPipe & kLoadTap) {
        t.counter = t.latch;
        return false;  // a load cycle does not count
    }
    const bool count = eMode ? (t.countPipe & kCountTap) != 0 : countInput;
    if (!count) return false;
    if (t.counter != 0) {
        --t.counter;
        return false;
    }
    // Underflow: reload from the latch; one-shot mode stops the timer.
    t.counter = t.latch;
    t.pulse = true;
    t.toggle = !t.toggle;
    if (cr & CrRUNMODE) {
        cr = std::uint8_t(cr & ~CrSTART);
        t.countPipe = 0;
    }
    return true;
}

// A flag is readable in ICR in the cycle it is raised; IR and /IRQ follow one E cycle later
// (vAmiga CIA.cpp after Lorenz's 6526 model: the timer bits are set in the underflow cycle,
// the Interrupt1 stage a cycle on). WinUAE's cia.cpp holds the timer bits back a cycle
// too (icr2 to icr1 at the next update); vAmiga's timing is the one checked on hardware.
void Cia::raise(std::uint8_t flags) {
    icr_ |= flags;
    irqPipe_ |= flags;
}

void Cia::shiftOutBit() {
    // In output mode each timer A underflow toggles CNT; a bit leaves per full period.
    cnt_ = !cnt_;
    if (!cnt_) return;
    if (--shiftBits_ == 0) {
        sdrOut_ = shiftReg_;
        raise(IcrSP);
        if (sdrPending_) {
            sdrPending_ = false;
            shiftReg_ = sdr_;
            shiftBits_ = 8;
        }
    }
}

void Cia::setCnt(bool high) {
    settle();
    if (high && !cnt_) {
        ++cntEdges_;
    }
    cnt_ = high;
}

void Cia::receiveSerialByte(std::uint8_t value) {
    settle();
    if (cra_ & CraSPMODE) return;  // in output mode the port does not listen
    sdr_ = value;
    raise(IcrSP);
}

void Cia::todPulse() {
    settle();
    if (todStopped_) return;
    tod_ = (tod_ + 1) & 0xFFFFFF;
    checkAlarm();
}

void Cia::checkAlarm() {
    if (tod_ == alarm_) raise(IcrALRM);
}

std::uint8_t Cia::spy(std::uint8_t reg) const {
    const std::uint32_t tod = todLatched_ ? todLatch_ : tod_;
    switch (reg & 0xF) {
    case PRA: return portAPins();
    case PRB: return portBPins();
    case DDRA: return ddra_;
    case DDRB: return ddrb_;
    case TALO: return std::uint8_t(timerA());
    case TAHI: return std::uint8_t(timerA() >> 8);
    case TBLO: return std::uint8_t(timerB());
    case TBHI: return std::uint8_t(timerB() >> 8);
    case TODLO: return std::uint8_t(tod);
    case TODMID: return std::uint8_t(tod >> 8);
    case TODHI: return std::uint8_t(tod >> 16);
    case UNUSED: return 0xFF;
    case SDR: return sdr_;
    case ICR: return icr_;
    case CRA: return std::uint8_t(cra_ & ~CrLOAD);
    case CRB: return std::uint8_t(crb_ & ~CrLOAD);
    }
    return 0xFF;
}

std::uint8_t Cia::peek(std::uint8_t reg) {
    settle();
    const std::uint8_t v = spy(reg);
    switch (reg & 0xF) {
    case TODHI:
        // Reading the high byte freezes what the other two bytes read until TODLO is read.
        if (!todLatched_) {
            todLatch_ = tod_;
            todLatched_ = true;
            return std::uint8_t(tod_ >> 16);
        }
        break;
    case TODLO: todLatched_ = false; break;
    case ICR:
        // A read returns the flags and clears them all, releasing /IRQ (ocs-timing-facts 7).
        icr_ = 0;
        break;
    default: break;
    }
    return v;
}

void Cia::writeTimerHigh(Timer& t, std::uint8_t cr, std::uint8_t value) {
    t.latch = std::uint16_t((t.latch & 0x00FF) | value << 8);
    // A stopped timer loads at once; in one-shot mode the write also starts it (8520).
    if (!(cr & CrSTART) || (cr & CrRUNMODE)) t.loadPipe |= 1;
}

void Cia::writeControl(Timer& t, std::uint8_t& cr, std::uint8_t value, bool isA) {
    const bool starting = (value & CrSTART) && !(cr & CrSTART);
    if (value & CrLOAD) t.loadPipe |= 1;  // a strobe, never stored
    if (starting) t.toggle = true;        // the toggle output goes high on start
    if (isA && ((value ^ cr) & CraSPMODE)) {
        // Switching serial direction abandons a byte in flight.
        shiftBits_ = 0;
        sdrPending_ = false;
        cnt_ = true;
    }
    cr = std::uint8_t(value & ~CrLOAD);
}

void Cia::poke(std::uint8_t reg, std::uint8_t value) {
    settle();
    switch (reg & 0xF) {
    case PRA: pra_ = value; break;
    case PRB: prb_ = value; break;
    case DDRA: ddra_ = value; break;
    case DDRB: ddrb_ = value; break;
    case TALO: timerA_.latch = std::uint16_t((timerA_.latch & 0xFF00) | value); break;
    case TAHI:
        writeTimerHigh(timerA_, cra_, value);
        if (cra_ & CrRUNMODE) cra_ |= CrSTART;
        break;
    case TBLO: timerB_.latch = std::uint16_t((timerB_.latch & 0xFF00) | value); break;
    case TBHI:
        writeTimerHigh(timerB_, crb_, value);
        if (crb_ & CrRUNMODE) crb_ |= CrSTART;
        break;
    case TODLO:
    case TODMID:
    case TODHI: {
        const unsigned shift = 8 * unsigned((reg & 0xF) - TODLO);
        std::uint32_t& target = (crb_ & CrbALARM) ? alarm_ : tod_;
        target = (target & ~(0xFFu << shift)) | std::uint32_t(value) << shift;
        if (!(crb_ & CrbALARM)) {
            // Writing the high byte stops the counter until the low byte is written.
            if ((reg & 0xF) == TODHI) todStopped_ = true;
            if ((reg & 0xF) == TODLO) todStopped_ = false;
        }
        checkAlarm();
        break;
    }
    case UNUSED: break;
    case SDR:
        sdr_ = value;
        if (cra_ & CraSPMODE) {
            if (shiftBits_) {
                sdrPending_ = true;
            } else {
                shiftReg_ = value;
                shiftBits_ = 8;
            }
        }
        break;
    case ICR:
        if (value & 0x80) icrMask_ |= value & 0x1F;
        else icrMask_ &= std::uint8_t(~value & 0x1F);
        if (icr_ & icrMask_ & 0x1F) icr_ |= IcrIR;
        break;
    case CRA: writeControl(timerA_, cra_, value, true); break;
    case CRB: writeControl(timerB_, crb_, value, false); break;
    }
}

void Cia::serialize(Archive& ar) {
    settle();
    auto timer = [&](Timer& t) { ar(t.counter, t.latch, t.countPipe, t.loadPipe, t.toggle, t.pulse); };
    ar(now_, pra_, prb_, ddra_, ddrb_, portAIn_, portBIn_);
    timer(timerA_);
    timer(timerB_);
    ar(cra_, crb_, icr_, icrMask_, irqPipe_, tod_, todLatch_, alarm_, todLatched_, todStopped_);
    ar(sdr_, sdrOut_, shiftReg_, shiftBits_, sdrPending_, cnt_, cntEdges_);
    lazyNow_ = now_;
    wakeAt_ = 0;
}

void Cia::setRegisters(const Registers& r) {
    settle();
    pra_ = r.pra;
    prb_ = r.prb;
    ddra_ = r.ddra;
    ddrb_ = r.ddrb;
    timerA_ = Timer{};
    timerB_ = Timer{};
    timerA_.counter = r.timerA;
    timerA_.latch = r.latchA;
    timerB_.counter = r.timerB;
    timerB_.latch = r.latchB;
    // LOAD is a strobe: it reads as zero and loads nothing here.
    cra_ = std::uint8_t(r.cra & ~CrLOAD);
    crb_ = std::uint8_t(r.crb & ~CrLOAD);
    icrMask_ = std::uint8_t(r.icrMask & 0x1F);
    icr_ = std::uint8_t(r.icr & 0x1F);
    if (icr_ & icrMask_) icr_ |= IcrIR;
    irqPipe_ = 0;
    tod_ = r.tod & 0xFFFFFF;
    todLatch_ = r.todLatch & 0xFFFFFF;
    alarm_ = r.alarm & 0xFFFFFF;
    todLatched_ = r.todLatched;
    todStopped_ = r.todStopped;
    sdr_ = r.sdr;
    shiftBits_ = 0;
    sdrPending_ = false;
    wakeAt_ = 0;
}

} // namespace copperline
