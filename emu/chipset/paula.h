// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Paula 8364: interrupts, the serial port, audio DMA requests and the disk DMA registers.
//
// Interrupts: INTREQ bits are raised by the chips and the CIAs, INTENA enables them, and
// the highest enabled pending level is presented to the CPU on IPL2-0 (HRM node016F;
// ocs-timing-facts section 6). The level reaches the CPU kIplDelayCck colour clocks after
// the register change that caused it.
//
// Serial: SERDAT is moved into the shift register when it is empty and shifted out at
// SERPER+1 colour clocks per bit; every completed character goes to the serial sink (the
// host's stdout or a file), which is how AROS's debug log leaves the machine.

#include "emu/clock.h"

#include <cstdint>
#include <functional>
#include <string>

namespace copperline {

class Archive;
class FloppyController;

namespace intreq {
inline constexpr std::uint16_t TBE = 1u << 0;
inline constexpr std::uint16_t DSKBLK = 1u << 1;
inline constexpr std::uint16_t SOFT = 1u << 2;
inline constexpr std::uint16_t PORTS = 1u << 3;
inline constexpr std::uint16_t COPER = 1u << 4;
inline constexpr std::uint16_t VERTB = 1u << 5;
inline constexpr std::uint16_t BLIT = 1u << 6;
inline constexpr std::uint16_t AUD0 = 1u << 7;
inline constexpr std::uint16_t RBF = 1u << 11;
inline constexpr std::uint16_t DSKSYN = 1u << 12;
inline constexpr std::uint16_t EXTER = 1u << 13;
inline constexpr std::uint16_t INTEN = 1u << 14;  // INTENA master enable
} // namespace intreq

class Paula {
public:
    // Colour clocks from an INTREQ/INTENA change to the new level on the CPU's IPL pins.
    // The sources disagree (UAE about 1, vAmiga 3, the Rust Copperline 5: see
    // ocs-timing-facts section 6); 3 is the middle and is measured by the interrupt tests.
    static constexpr unsigned kIplDelayCck = 3;

    Paula();
    void reset();

    // INTREQ/INTENA/ADKCON, serial and audio/disk registers, written at colour clock `cck`.
    void poke(std::uint16_t reg, std::uint16_t value, std::uint64_t cck);
    std::uint16_t peek(std::uint16_t reg, std::uint64_t cck);
    std::uint16_t spy(std::uint16_t reg) const;

    // A chip or CIA raises interrupt request bits at colour clock `cck`.
    void raise(std::uint16_t bits, std::uint64_t cck);
    // The CIAs' /IRQ lines are levels: PORTS and EXTER stay requested while they are low.
    void setCiaLines(bool ciaA, bool ciaB, std::uint64_t cck) {
        ciaA_ = ciaA;
        ciaB_ = ciaB;
        if (ciaA || ciaB) [[unlikely]]
            raise(std::uint16_t((ciaA ? intreq::PORTS : 0) | (ciaB ? intreq::EXTER : 0)), cck);
    }

    // Whether Paula holds both CIA lines inactive (what the last setCiaLines gave her).
    bool ciaLinesIdle() const { return !ciaA_ && !ciaB_; }
    bool ciaALine() const { return ciaA_; }
    bool ciaBLine() const { return ciaB_; }
    std::uint16_t intena() const { return intena_; }
    std::uint16_t intreq() const { return intreq_; }
    // The level the CPU sees at colour clock `cck` (0 = none).
    unsigned iplAt(std::uint64_t cck) const { return cck >= iplChangeAt_ ? ipl_ : iplBefore_; }
    unsigned ipl() const { return ipl_; }
    // The colour clock at which the current IPL level took effect.
    std::uint64_t iplChangedAt() const { return iplChangeAt_; }

    // Advances the serial shifter to colour clock `cck`.
    void advanceTo(std::uint64_t cck);
    void setSerialSink(std::function<void(std::uint8_t)> sink) { serialSink_ = std::move(sink); }

    // Audio DMA: whether channel `ch` wants a data word in its slot on this line, given
    // DMACON's enable bit; Agnus then fetches from audioPointer() and hands the word back.
    bool audioWantsDma(unsigned ch, std::uint64_t cck) const {
        const Audio& a = audio_[ch];
        return a.dma && cck >= a.nextWordAt;
    }
    std::uint32_t audioPointer(unsigned ch) const { return audio_[ch].pointer; }
    void audioDmaWord(unsigned ch, std::uint16_t data, std::uint64_t cck);
    void setAudioDmaEnabled(unsigned ch, bool on, std::uint64_t cck);

    // The disk controller (emu/chipset/floppy.h) holds the disk registers: DSKPT, DSKLEN,
    // DSKSYNC and DSKBYTR reach it through Paula, and it sees ADKCON.
    void attachFloppy(FloppyController* floppy) { floppy_ = floppy; }
    // The POT pins the outside holds low (bit n: pin n of POTGOR's DATLX, DATLY, DATRX,
    // DATRY): the right and middle mouse buttons. The machine keeps this in its state.
    void setPotInputs(std::uint8_t low) { potLow_ = low; }
    FloppyController* floppy() const { return floppy_; }

    void serialize(Archive& ar);

private:
    void updateIpl(std::uint64_t cck);
    unsigned computeLevel() const;
    void startSerial(std::uint64_t cck);

    struct Audio {
        std::uint32_t location = 0;  // AUDxLC
        std::uint16_t length = 0;    // AUDxLEN, in words
        std::uint16_t period = 0;    // AUDxPER, colour clocks per sample
        std::uint16_t volume = 0;
        std::uint16_t data = 0;
        std::uint32_t pointer = 0;   // the running DMA pointer
        std::uint16_t remaining = 0; // words left in this buffer
        bool dma = false;
        std::uint64_t nextWordAt = 0;
    };

    std::uint16_t intena_ = 0, intreq_ = 0, adkcon_ = 0;
    unsigned ipl_ = 0, iplBefore_ = 0;
    std::uint64_t iplChangeAt_ = 0;
    bool ciaA_ = false, ciaB_ = false;

    std::uint16_t serper_ = 0;
    std::uint16_t serdat_ = 0;       // holding register
    bool serdatFull_ = false;
    std::uint16_t shift_ = 0;
    unsigned shiftBits_ = 0;         // bits left in the shift register (0 = empty)
    std::uint64_t nextBitAt_ = 0;
    std::uint64_t serialNow_ = 0;

    Audio audio_[4];
    std::uint16_t potgo_ = 0;
    std::uint8_t potLow_ = 0;
    FloppyController* floppy_ = nullptr;

    std::function<void(std::uint8_t)> serialSink_;
};

} // namespace copperline
