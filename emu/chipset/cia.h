// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The MOS 8520 Complex Interface Adapter, two of which an Amiga has: CIA-A (ports for the
// overlay, LED, fire buttons and the parallel port; the keyboard's serial line; TOD counts
// VSYNC; /IRQ drives INT2) and CIA-B (the drive lines and serial handshakes; TOD counts
// HSYNC; /IRQ drives INT6). HRM appendix F and node012E describe the chip.
//
// The CIA runs on the E clock, one cycle per ten 68000 cycles. The machine moves it
// forward with advanceTo(); register accesses happen at the machine's current time, so the
// machine advances the CIA first. Timer behaviour follows the 6526 pipeline as the 8520
// keeps it (ocs-timing-facts section 7): counting starts 3 E cycles after START, a
// force-load lands 2 E cycles after its write, and the interrupt flag follows an underflow
// by 1 E cycle. A timer holding latch N underflows every N+1 counts.

#include "emu/clock.h"

#include <cstdint>

namespace copperline {

class Archive;

class Cia {
public:
    enum Reg : std::uint8_t {
        PRA = 0x0, PRB = 0x1, DDRA = 0x2, DDRB = 0x3,
        TALO = 0x4, TAHI = 0x5, TBLO = 0x6, TBHI = 0x7,
        TODLO = 0x8, TODMID = 0x9, TODHI = 0xA, UNUSED = 0xB,
        SDR = 0xC, ICR = 0xD, CRA = 0xE, CRB = 0xF,
    };
    // Interrupt control register bits.
    enum : std::uint8_t { IcrTA = 0x01, IcrTB = 0x02, IcrALRM = 0x04, IcrSP = 0x08, IcrFLG = 0x10, IcrIR = 0x80 };
    // Control register bits (CRA and CRB share 0-4).
    enum : std::uint8_t { CrSTART = 0x01, CrPBON = 0x02, CrOUTMODE = 0x04, CrRUNMODE = 0x08, CrLOAD = 0x10,
                          CraINMODE = 0x20, CraSPMODE = 0x40, CrbINMODE = 0x60, CrbALARM = 0x80 };

    Cia();

    // Power-on / RESET line: all registers to their reset values (HRM appendix F).
    void reset();
    // Power-on: reset, and the E clock starts again from master-clock time 0.
    void powerOn() {
        now_ = lazyNow_ = wakeAt_ = 0;
        reset();
    }

    // Runs the E clock up to master-clock time `now` (68000 cycles). E cycles end when the
    // master clock passes a multiple of ten. While nothing but running timers' counts can
    // change, the CIA only notes the time (the machine calls this on every bus access) and
    // settles the counts when something looks or before the next underflow.
    void advanceTo(MasterClock now) {
        if (now <= lazyNow_) return;
        if (now < wakeAt_) {
            lazyNow_ = now;
            return;
        }
        advanceSlow(now);
    }
    MasterClock time() const { return lazyNow_; }
    // Before this master-clock time advanceTo only notes the time: nothing but running
    // timers' counts changes, and the /IRQ line holds (0: the next advanceTo looks).
    MasterClock quietUntil() const { return wakeAt_; }

    std::uint8_t peek(std::uint8_t reg);  // a CPU read, with its side effects
    std::uint8_t spy(std::uint8_t reg) const;  // what a read would return, changing nothing
    void poke(std::uint8_t reg, std::uint8_t value);

    // /IRQ output (active when an enabled flag is set).
    bool irq() const { return (icr_ & IcrIR) != 0; }

    // Port pins. Inputs are what the outside drives on pins configured as inputs (they
    // read high when nothing drives them: the Amiga's pull-ups). Outputs are the levels
    // on the pins: output bits from the port register, input bits at their input level.
    void setPortAInput(std::uint8_t pins) { portAIn_ = pins; }
    void setPortBInput(std::uint8_t pins) { portBIn_ = pins; }
    std::uint8_t portAPins() const { return std::uint8_t((pra_ & ddra_) | (portAIn_ & ~ddra_)); }
    std::uint8_t portBPins() const;

    // TOD input: one pulse per VSYNC (CIA-A) or HSYNC (CIA-B).
    void todPulse();
    // /FLAG input: a falling edge sets ICR FLG (CIA-B: the disk index pulse).
    void flagPulse() {
        settle();
        raise(IcrFLG);
    }
    // CNT input edge (rising when high = true). Counts timers in CNT mode and clocks the
    // serial register in input mode.
    void setCnt(bool high);
    // A byte shifted in on SP by an external device (the keyboard), as if its eight bits
    // had been clocked in: SDR holds it and ICR SP is raised.
    void receiveSerialByte(std::uint8_t value);
    // Whether the serial port is in output mode (CRA SPMODE): the keyboard handshake is
    // the CPU driving SP low by switching to output mode.
    bool serialOutputMode() const { return (cra_ & CraSPMODE) != 0; }
    std::uint8_t lastSerialOut() const { return sdrOut_; }

    std::uint16_t timerA() const { return counterNow(timerA_, cra_, CraINMODE); }
    std::uint16_t timerB() const { return counterNow(timerB_, crb_, CrbINMODE); }
    std::uint32_t tod() const { return tod_; }

    void serialize(Archive& ar);

    // The registers and the internal state another emulator's saved state gives
    // (emu/state/uss.cpp): set as they are, at the chip's current time, with no side effect
    // of a write (no timer load, no interrupt acknowledged). Bit 7 of `icr` is derived.
    struct Registers {
        std::uint8_t pra = 0, prb = 0, ddra = 0, ddrb = 0;
        std::uint16_t timerA = 0xFFFF, timerB = 0xFFFF, latchA = 0xFFFF, latchB = 0xFFFF;
        std::uint8_t cra = 0, crb = 0, icr = 0, icrMask = 0, sdr = 0;
        std::uint32_t tod = 0, todLatch = 0, alarm = 0;
        bool todLatched = false, todStopped = false;
    };
    void setRegisters(const Registers& r);

private:
    struct Timer {
        std::uint16_t counter = 0xFFFF;
        std::uint16_t latch = 0xFFFF;
        std::uint8_t countPipe = 0;  // bit i: a count decided i E cycles ago
        std::uint8_t loadPipe = 0;   // bit i: a force-load requested i E cycles ago
        bool toggle = false;         // PB6/PB7 toggle-mode output
        bool pulse = false;          // PB6/PB7 pulse-mode output (one E cycle)
    };

    void advanceSlow(MasterClock now);
    // Settles the counts noted by advanceTo before the state is read or changed; every
    // change then makes the next advanceTo look again for the next event.
    void settle() {
        if (lazyNow_ > now_) advanceSlow(lazyNow_);
        wakeAt_ = 0;
    }
    // A running timer's counter as it stands at lazyNow_.
    std::uint16_t counterNow(const Timer& t, std::uint8_t cr, std::uint8_t inmode) const {
        if (!(cr & CrSTART) || (cr & inmode) || lazyNow_ <= now_) return t.counter;
        return std::uint16_t(t.counter - (lazyNow_ / kCyclesPerEClock - now_ / kCyclesPerEClock));
    }
    void eCycle();
    // Advances one timer by an E cycle; returns whether it underflowed.
    bool stepTimer(Timer& t, std::uint8_t& cr, bool countInput, bool eClockInput);
    void writeControl(Timer& t, std::uint8_t& cr, std::uint8_t value, bool isA);
    void writeTimerHigh(Timer& t, std::uint8_t cr, std::uint8_t value);
    void raise(std::uint8_t flags);
    void shiftOutBit();
    void checkAlarm();

    MasterClock now_ = 0;      // the E clock has run to here
    MasterClock lazyNow_ = 0;  // the machine's time, >= now_
    MasterClock wakeAt_ = 0;   // advanceTo must run the E clock from here on
    std::uint8_t pra_ = 0, prb_ = 0, ddra_ = 0, ddrb_ = 0;
    std::uint8_t portAIn_ = 0xFF, portBIn_ = 0xFF;
    Timer timerA_, timerB_;
    std::uint8_t cra_ = 0, crb_ = 0;
    std::uint8_t icr_ = 0;       // flags, bit 7 = IR
    std::uint8_t icrMask_ = 0;
    std::uint8_t irqPipe_ = 0;   // flags raised, waiting their one E cycle
    std::uint32_t tod_ = 0, todLatch_ = 0, alarm_ = 0;
    bool todLatched_ = false, todStopped_ = false;
    std::uint8_t sdr_ = 0, sdrOut_ = 0, shiftReg_ = 0;
    std::uint8_t shiftBits_ = 0;   // bits left to shift in output mode (0 = idle)
    bool sdrPending_ = false;      // output mode: a byte written while one is shifting
    bool cnt_ = true;
    std::uint8_t cntEdges_ = 0;    // CNT rising edges since the last E cycle
};

} // namespace copperline
