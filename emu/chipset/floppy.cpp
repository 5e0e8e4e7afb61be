// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/floppy.h"

#include "emu/chipset/floppy_mfm.h"
#include "emu/chipset/paula.h"
#include "emu/state/archive.h"

#include <algorithm>

namespace copperline {

namespace {
constexpr std::uint16_t kAdkWordSync = 1u << 10; // ADKCON WORDSYNC (HRM ADKCON)
constexpr std::uint8_t kPrbMotor = 0x80, kPrbSel0 = 0x08, kPrbSide = 0x04, kPrbDir = 0x02,
                       kPrbStep = 0x01;
constexpr std::uint8_t kPraRdy = 0x20, kPraTk0 = 0x10, kPraWpro = 0x08, kPraChng = 0x04;
} // namespace

FloppyController::FloppyController(Paula& paula) : paula_(paula) {}

void FloppyController::reset() {
    dskpt_ = 0;
    dsklen_ = 0;
    dsksync_ = 0x4489;
    adkcon_ = 0;
    dma_ = Dma::Off;
    remaining_ = toDisk_ = 0;
    fifoCount_ = fifoHead_ = 0;
    highHalf_ = true;
    byteReady_ = wordEqual_ = false;
}

void FloppyController::powerOn() {
    for (auto& d : drives_)
        d.reset();
    prb_ = 0xFF;
    nextByte_ = 0;
    now_ = 0;
    pendingPulses_ = 0;
    shift_ = 0;
    dataByte_ = 0;
    reset();
}

FloppyDrive* FloppyController::selectedDrive() {
    for (auto& d : drives_)
        if (d.selected() && d.connected()) return &d;
    return nullptr;
}

unsigned FloppyController::setControlLines(std::uint8_t prb, std::uint64_t cck) {
    const unsigned pulses = advanceTo(cck);
    const std::uint8_t old = prb_;
    prb_ = prb;
    const bool motorLine = !(prb & kPrbMotor);
    for (unsigned n = 0; n < kDrives; ++n) {
        FloppyDrive& d = drives_[n];
        const std::uint8_t sel = std::uint8_t(kPrbSel0 << n);
        const bool selected = !(prb & sel), wasSelected = !(old & sel);
        if (selected && !wasSelected) d.selectEdge(motorLine, cck);
        d.setSelected(selected);
        // /SIDE low selects the upper head, side 1 (HRM "Disk Hardware").
        d.setHead((prb & kPrbSide) ? 0 : 1);
        if (selected && (old & kPrbStep) && !(prb & kPrbStep)) d.step(!(prb & kPrbDir), cck);
    }
    return pulses;
}

std::uint8_t FloppyController::statusPins() const {
    std::uint8_t v = 0xFF;
    for (const auto& d : drives_) {
        if (!d.selected()) continue;
        if (d.ready(now_)) v &= std::uint8_t(~kPraRdy);
        if (d.track0()) v &= std::uint8_t(~kPraTk0);
        if (d.writeProtected()) v &= std::uint8_t(~kPraWpro);
        if (d.diskChanged()) v &= std::uint8_t(~kPraChng);
    }
    return v;
}

unsigned FloppyController::advanceTo(std::uint64_t cck) {
    if (cck > now_) {
        now_ = cck;
        // Byte k passes at quarter clock k * bytePeriod_: process every byte up to now.
        const std::uint64_t end = cck * 4 / bytePeriod_ + 1;
        const FloppyDrive* d = selectedDrive();
        if (dma_ == Dma::Off && !(d && d->spinning())) {
            // Nothing reads or writes and no head sees the disk turn: skip ahead.
            if (end > nextByte_) {
                nextByte_ = end;
                wordEqual_ = false;
            }
        } else {
            while (nextByte_ < end)
                byteTick(nextByte_++);
        }
    }
    const unsigned pulses = pendingPulses_;
    pendingPulses_ = 0;
    return pulses;
}

void FloppyController::byteTick(std::uint64_t k) {
    const unsigned pos = unsigned(k % mfm::kTrackBytes);
    const std::uint64_t at = k * bytePeriod_ / 4;
    FloppyDrive* d = selectedDrive();
    const bool spinning = d && d->spinning();
    if (spinning && pos == 0) ++pendingPulses_;
    wordEqual_ = false;

    if (dma_ == Dma::Write) {
        if (fifoCount_) {
            const std::uint16_t w = fifo_[fifoHead_];
            const std::uint8_t b = highHalf_ ? std::uint8_t(w >> 8) : std::uint8_t(w);
            if (spinning) d->writeByte(pos, b);
            if (!highHalf_) {
                fifoHead_ = std::uint8_t((fifoHead_ + 1) % kFifoWords);
                --fifoCount_;
                if (--toDisk_ == 0) finish(at);
            }
            highHalf_ = !highHalf_;
        }
        return;
    }

    const std::uint8_t b = spinning ? d->readByte(pos, at) : 0;
    dataByte_ = b;
    byteReady_ = true;
    shift_ = std::uint16_t(shift_ << 8 | b);
    const bool sync = spinning && shift_ == dsksync_;
    if (sync) {
        wordEqual_ = true;
        paula_.raise(intreq::DSKSYN, at);
    }
    if (dma_ == Dma::WaitSync) {
        // The transfer starts with the word after the sync word (HRM ADKCON WORDSYNC).
        if (sync) {
            dma_ = Dma::Read;
            highHalf_ = true;
        }
        return;
    }
    if (dma_ != Dma::Read) return;
    if (highHalf_) {
        assembled_ = b;
        highHalf_ = false;
        return;
    }
    highHalf_ = true;
    // Words beyond the count, or beyond a full FIFO (no slot emptied it), are lost.
    if (fifoCount_ < kFifoWords && fifoCount_ < remaining_) {
        fifo_[(fifoHead_ + fifoCount_) % kFifoWords] = std::uint16_t(assembled_ << 8 | b);
        ++fifoCount_;
    }
}

void FloppyController::finish(std::uint64_t cck) {
    dma_ = Dma::Off;
    fifoCount_ = fifoHead_ = 0;
    paula_.raise(intreq::DSKBLK, cck);
}

void FloppyController::writeLength(std::uint16_t v, std::uint64_t cck) {
    pendingPulses_ += advanceTo(cck);
    // DMA starts only when DSKLEN is written twice in a row with DMAEN (bit 15) set; a
    // write with it clear stops a transfer (HRM "Disk DMA", DSKLEN).
    const bool start = (v & 0x8000) && (dsklen_ & 0x8000);
    dsklen_ = v;
    if (!(v & 0x8000)) {
        dma_ = Dma::Off;
        fifoCount_ = fifoHead_ = 0;
        return;
    }
    if (!start) return;
    const std::uint16_t words = v & 0x3FFF;
    fifoCount_ = fifoHead_ = 0;
    highHalf_ = true;
    if (!words) {
        dma_ = Dma::Off;
        return;
    }
    remaining_ = words;
    if (v & 0x4000) {
        dma_ = Dma::Write;
        toDisk_ = words;
    } else {
        dma_ = (adkcon_ & kAdkWordSync) ? Dma::WaitSync : Dma::Read;
    }
}

std::uint16_t FloppyController::spyByteRegister() const {
    // DSKBYT 15, DMAON 14, DISKWRITE 13, WORDEQUAL 12, data 7-0 (HRM DSKBYTR).
    return std::uint16_t((byteReady_ ? 0x8000 : 0) | (dma_ != Dma::Off ? 0x4000 : 0) |
                         (writing() ? 0x2000 : 0) | (wordEqual_ ? 0x1000 : 0) | dataByte_);
}

std::uint16_t FloppyController::readByteRegister(std::uint64_t cck) {
    pendingPulses_ += advanceTo(cck);
    const std::uint16_t v = spyByteRegister();
    byteReady_ = false;
    return v;
}

bool FloppyController::wantsSlot(std::uint64_t cck) {
    pendingPulses_ += advanceTo(cck);
    if (dma_ == Dma::Read) return fifoCount_ > 0;
    if (dma_ == Dma::Write) return fifoCount_ < kFifoWords && remaining_ > 0;
    return false;
}

std::uint16_t FloppyController::takeWord(std::uint64_t cck) {
    const std::uint16_t w = fifo_[fifoHead_];
    fifoHead_ = std::uint8_t((fifoHead_ + 1) % kFifoWords);
    --fifoCount_;
    dskpt_ = (dskpt_ + 2) & 0x1FFFFE;
    if (--remaining_ == 0) finish(cck);
    return w;
}

void FloppyController::giveWord(std::uint16_t data, std::uint64_t) {
    fifo_[(fifoHead_ + fifoCount_) % kFifoWords] = data;
    ++fifoCount_;
    dskpt_ = (dskpt_ + 2) & 0x1FFFFE;
    --remaining_;
}

void FloppyController::flushAll() {
    for (auto& d : drives_)
        d.flush();
}

void FloppyController::serialize(Archive& ar) {
    for (auto& d : drives_)
        d.serialize(ar);
    ar(prb_, dskpt_, dsklen_, dsksync_, adkcon_, dma_, remaining_, toDisk_, fifo_, fifoCount_,
       fifoHead_);
    ar(highHalf_, assembled_, shift_, dataByte_, byteReady_, wordEqual_, nextByte_, now_,
       pendingPulses_);
    if (ar.loading() && (fifoCount_ > kFifoWords || fifoHead_ >= kFifoWords))
        throw StateError("state data holds an invalid disk FIFO");
}

} // namespace copperline
