// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/paula.h"

#include "emu/chipset/custom_regs.h"
#include "emu/chipset/floppy.h"
#include "emu/state/archive.h"

#include <bit>

namespace copperline {

namespace {
// Applies a SET/CLR write (bit 15 selects set or clear) to a register's low 15 bits.
std::uint16_t setClear(std::uint16_t old, std::uint16_t value) {
    return (value & 0x8000) ? std::uint16_t(old | (value & 0x7FFF)) : std::uint16_t(old & ~value);
}
} // namespace

Paula::Paula() = default;

void Paula::reset() {
    auto sink = std::move(serialSink_);
    FloppyController* floppy = floppy_;
    *this = Paula{};
    serialSink_ = std::move(sink);
    floppy_ = floppy;
}

unsigned Paula::computeLevel() const {
    if (!(intena_ & intreq::INTEN)) return 0;
    // INTREQ bit 14 counts as a level-6 source too (ocs-timing-facts section 6).
    const unsigned pending = intena_ & intreq_ & 0x7FFF;
    if (pending & (intreq::EXTER | intreq::INTEN)) return 6;
    if (pending & (intreq::RBF | intreq::DSKSYN)) return 5;
    if (pending & 0x0780) return 4;  // AUD0-3
    if (pending & (intreq::COPER | intreq::VERTB | intreq::BLIT)) return 3;
    if (pending & intreq::PORTS) return 2;
    if (pending & (intreq::TBE | intreq::DSKBLK | intreq::SOFT)) return 1;
    return 0;
}

void Paula::updateIpl(std::uint64_t cck) {
    const unsigned level = computeLevel();
    if (level == ipl_) return;
    iplBefore_ = iplAt(cck);
    ipl_ = level;
    iplChangeAt_ = cck + kIplDelayCck;
}

void Paula::raise(std::uint16_t bits, std::uint64_t cck) {
    if ((intreq_ | bits) == intreq_) return;
    intreq_ |= bits;
    updateIpl(cck);
}

void Paula::startSerial(std::uint64_t cck) {
    // Start bit, then the word's bits up to and including its highest set bit (the stop
    // bits software places above the data: HRM "Serial Port", SERDAT).
    const unsigned top = serdat_ ? unsigned(std::bit_width(unsigned(serdat_))) : 10;
    shift_ = serdat_;
    shiftBits_ = 1 + top;
    serdatFull_ = false;
    nextBitAt_ = cck + std::uint64_t(shiftBits_) * ((serper_ & 0x7FFF) + 1u);
    raise(intreq::TBE, cck);  // the holding register is empty again
}

void Paula::advanceTo(std::uint64_t cck) {
    serialNow_ = cck;
    while (shiftBits_ && nextBitAt_ <= cck) {
        const std::uint64_t done = nextBitAt_;
        shiftBits_ = 0;
        // Nine data bits when SERPER's LONG bit is set; the host sees the low eight.
        if (serialSink_) serialSink_(std::uint8_t(shift_));
        if (serdatFull_) startSerial(done);
    }
}

void Paula::audioDmaWord(unsigned ch, std::uint16_t data, std::uint64_t cck) {
    Audio& a = audio_[ch];
    a.data = data;
    a.pointer += 2;
    if (--a.remaining == 0) {
        // End of the buffer: restart from the location registers and interrupt, so the
        // program can queue the next buffer (HRM "Audio Hardware", DMA interrupts).
        a.pointer = a.location;
        a.remaining = a.length;
        raise(std::uint16_t(intreq::AUD0 << ch), cck);
    }
    // A word holds two samples, each lasting AUDxPER colour clocks. Paula's period counter
    // runs on its own, so the next request comes two periods after the last one was due,
    // however late its slot came; it never falls more than one word behind.
    a.nextWordAt += 2u * (a.period ? a.period : 65536u);
    if (a.nextWordAt < cck) a.nextWordAt = cck;
}

void Paula::setAudioDmaEnabled(unsigned ch, bool on, std::uint64_t cck) {
    Audio& a = audio_[ch];
    if (on == a.dma) return;
    a.dma = on;
    if (on) {
        a.pointer = a.location;
        a.remaining = a.length;
        a.nextWordAt = cck;
        // The first word's fetch copies the location registers, so the interrupt for
        // the start of a buffer comes at once.
        raise(std::uint16_t(intreq::AUD0 << ch), cck);
    }
}

std::uint16_t Paula::spy(std::uint16_t r) const {
    switch (r) {
    case reg::INTENAR: return intena_;
    case reg::INTREQR: return intreq_;
    case reg::ADKCONR: return adkcon_;
    case reg::SERDATR: {
        // OVRUN 15, RBF 14, TBE 13, TSRE 12, RXD 11 (idle line high).
        std::uint16_t v = 1u << 11;
        if (!serdatFull_) v |= 1u << 13;
        if (!shiftBits_ || nextBitAt_ <= serialNow_) v |= 1u << 12;
        return v;
    }
    case reg::DSKBYTR: return floppy_ ? floppy_->spyByteRegister() : 0;
    case reg::DSKDATR: return 0;
    case reg::POTGOR: {
        // Each pin reads its output value when driven, else high through the pull-up
        // unless a button pulls it low (HRM "Reading the mouse buttons").
        std::uint16_t v = 0;
        for (int pin = 0; pin < 4; ++pin) {
            const unsigned dataBit = 8 + 2 * pin, outBit = 9 + 2 * pin;
            const bool level = (potgo_ & (1u << outBit)) ? (potgo_ & (1u << dataBit)) != 0
                                                         : !(potLow_ & (1u << pin));
            if (level) v |= std::uint16_t(1u << dataBit);
        }
        return v;
    }
    case reg::POT0DAT:
    case reg::POT1DAT: return 0;
    default: return 0xFFFF;
    }
}

std::uint16_t Paula::peek(std::uint16_t r, std::uint64_t cck) {
    advanceTo(cck);
    if (r == reg::DSKBYTR && floppy_) return floppy_->readByteRegister(cck);
    return spy(r);
}

void Paula::poke(std::uint16_t r, std::uint16_t v, std::uint64_t cck) {
    advanceTo(cck);
    if (r >= reg::AUD0LCH && r < reg::AUD0LCH + 0x40) {
        Audio& a = audio_[(r - reg::AUD0LCH) >> 4];
        switch (r & 0x0F) {
        case 0x0: a.location = (a.location & 0x0000FFFF) | std::uint32_t(v & 0x1F) << 16; break;
        case 0x2: a.location = (a.location & 0xFFFF0000) | (v & 0xFFFE); break;
        case 0x4: a.length = v; break;
        case 0x6: a.period = v; break;
        case 0x8: a.volume = v & 0x7F; break;
        case 0xA: a.data = v; break;
        default: break;
        }
        return;
    }
    switch (r) {
    case reg::INTENA:
        intena_ = setClear(intena_, v);
        updateIpl(cck);
        break;
    case reg::INTREQ:
        intreq_ = setClear(intreq_, v);
        // The CIAs' lines are levels: a request cleared while the line is still low
        // comes straight back.
        if (ciaA_) intreq_ |= intreq::PORTS;
        if (ciaB_) intreq_ |= intreq::EXTER;
        updateIpl(cck);
        break;
    case reg::ADKCON:
        adkcon_ = setClear(adkcon_, v);
        if (floppy_) floppy_->setAdkcon(adkcon_);
        break;
    case reg::SERPER: serper_ = v; break;
    case reg::SERDAT:
        serdat_ = v;
        serdatFull_ = true;
        if (!shiftBits_) startSerial(cck);
        break;
    case reg::DSKPTH:
        if (floppy_) floppy_->writePointerHigh(v);
        break;
    case reg::DSKPTL:
        if (floppy_) floppy_->writePointerLow(v);
        break;
    case reg::DSKLEN:
        if (floppy_) floppy_->writeLength(v, cck);
        break;
    case reg::DSKSYNC:
        if (floppy_) floppy_->writeSync(v);
        break;
    case reg::POTGO: potgo_ = v; break;
    default: break;
    }
}

void Paula::serialize(Archive& ar) {
    ar(intena_, intreq_, adkcon_, ipl_, iplBefore_, iplChangeAt_, ciaA_, ciaB_);
    ar(serper_, serdat_, serdatFull_, shift_, shiftBits_, nextBitAt_, serialNow_);
    for (auto& a : audio_)
        ar(a.location, a.length, a.period, a.volume, a.data, a.pointer, a.remaining, a.dma, a.nextWordAt);
    ar(potgo_);
}

} // namespace copperline
