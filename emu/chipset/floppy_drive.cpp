// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/floppy_drive.h"

#include "emu/chipset/floppy_mfm.h"
#include "emu/state/archive.h"

namespace copperline {

void FloppyDrive::reset() {
    flush();
    motor_ = selected_ = false;
    cylinder_ = head_ = 0;
    idCount_ = 0;
    idBit_ = false;
    changed_ = true;
    mfmTrack_ = 0xFFFF;
    spunUpAt_ = settledAt_ = lastStep_ = 0;
}

void FloppyDrive::insert(AdfImage image) {
    eject();
    disk_ = std::move(image);
    hasDisk_ = true;
    modified_ = false;
}

void FloppyDrive::eject() {
    flush();
    hasDisk_ = false;
    disk_ = AdfImage{};
    mfm_.clear();
    mfmTrack_ = 0xFFFF;
    changed_ = true;
}

void FloppyDrive::selectEdge(bool motorLine, std::uint64_t cck) {
    const bool was = motor_;
    motor_ = motorLine;
    if (!was && motor_) spunUpAt_ = cck + cckFor(kSpinUpMs * 1000.0);
    if (was && !motor_) {
        idCount_ = 0; // the ID shift register reloads when the motor is turned off
    } else if (!was && !motor_) {
        idBit_ = (id() >> (31 - (idCount_ & 31))) & 1;
        idCount_ = std::uint8_t((idCount_ + 1) & 31);
    }
}

void FloppyDrive::step(bool inwards, std::uint64_t cck) {
    if (!connected_) return;
    const unsigned next = inwards ? (cylinder_ < kMaxCylinder ? cylinder_ + 1 : cylinder_)
                                  : (cylinder_ > 0 ? cylinder_ - 1 : 0);
    if (hasDisk_) changed_ = false;
    if (next == cylinder_) return;
    // The stepper cannot follow pulses closer than this (vAmiga: 40 us).
    if (lastStep_ && cck < lastStep_ + cckFor(kMinStepGapUs)) return;
    flush();
    cylinder_ = next;
    lastStep_ = cck;
    settledAt_ = cck + cckFor((kStepMs + kSettleMs) * 1000.0);
}

void FloppyDrive::setHead(unsigned head) {
    if (head == head_) return;
    flush();
    head_ = head;
}

bool FloppyDrive::loadTrack() {
    if (!hasDisk_ || cylinder_ >= adf::kCylinders) return false;
    const unsigned track = cylinder_ * 2 + head_;
    if (mfmTrack_ != track) {
        flush();
        mfm_ = mfm::encodeTrack(disk_.track(track), track);
        mfmTrack_ = std::uint16_t(track);
    }
    return true;
}

std::uint8_t FloppyDrive::readByte(unsigned position, std::uint64_t cck) {
    if (!loadTrack()) return 0;
    // A head still moving or settling reads noise; with every other bit clear it never
    // forms a sync word (vAmiga reads random bits masked with $55).
    if (cck < settledAt_) return std::uint8_t((position * 0x9E3779B1u) >> 24) & 0x55;
    return mfm_[position % mfm::kTrackBytes];
}

void FloppyDrive::writeByte(unsigned position, std::uint8_t value) {
    if (!loadTrack() || disk_.writeProtected) return;
    mfm_[position % mfm::kTrackBytes] = value;
    mfmDirty_ = true;
}

void FloppyDrive::flush() {
    if (!mfmDirty_ || mfmTrack_ == 0xFFFF || !hasDisk_) {
        mfmDirty_ = false;
        return;
    }
    mfmDirty_ = false;
    auto track = disk_.track(mfmTrack_);
    std::vector<std::uint8_t> before(track.begin(), track.end());
    mfm::decodeTrack(mfm_, mfmTrack_, track);
    if (!std::equal(before.begin(), before.end(), track.begin())) modified_ = true;
}

AdfImage FloppyDrive::contents() const {
    AdfImage copy = disk_;
    if (mfmDirty_ && mfmTrack_ != 0xFFFF && hasDisk_) mfm::decodeTrack(mfm_, mfmTrack_, copy.track(mfmTrack_));
    return copy;
}

bool FloppyDrive::changedByGuest() const {
    if (!hasDisk_) return false;
    if (modified_) return true;
    if (!mfmDirty_ || mfmTrack_ == 0xFFFF) return false;
    const AdfImage copy = contents();
    const auto a = disk_.track(mfmTrack_), b = copy.track(mfmTrack_);
    return !std::equal(a.begin(), a.end(), b.begin());
}

void FloppyDrive::serialize(Archive& ar) {
    ar(connected_, motor_, selected_, cylinder_, head_, idCount_, idBit_, changed_, hasDisk_,
       modified_);
    ar(disk_.writeProtected, mfmTrack_, mfmDirty_, spunUpAt_, settledAt_, lastStep_);
    // The image travels inside the state: a loaded state reads the disk it was saved with.
    std::uint32_t n = std::uint32_t(disk_.bytes.size());
    ar(n);
    if (ar.loading()) {
        if (n != 0 && n != adf::kImageBytes)
            throw StateError("state data holds a floppy image of a wrong size");
        disk_.bytes.resize(n);
    }
    ar(disk_.bytes);
    std::uint32_t m = std::uint32_t(mfm_.size());
    ar(m);
    if (ar.loading()) {
        if (m != 0 && m != mfm::kTrackBytes)
            throw StateError("state data holds an MFM track of a wrong size");
        mfm_.resize(m);
    }
    ar(mfm_);
}

} // namespace copperline
