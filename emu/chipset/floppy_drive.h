// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One 3.5" double-density Amiga floppy drive (DF0-DF3): the mechanism the CIAs talk to.
//
// Its inputs are CIA-B port B lines, all active low (HRM appendix E "Disk drive
// interface"; HRM "Disk Hardware"): PB7 /MTR, PB6-PB3 /SEL3-/SEL0, PB2 /SIDE, PB1 /DIR,
// PB0 /STEP. Its outputs reach CIA-A port A, active low, only while the drive is
// selected: PA5 /RDY, PA4 /TK0, PA3 /WPRO, PA2 /CHNG. The index pulse goes to CIA-B /FLAG.
//
// - The motor line is latched when the drive's /SEL falls: the drive keeps its motor
//   state until it is selected again (HRM "Disk Hardware", "Turning the motor on").
// - Drive identification (HRM "Drive identification"): selecting the drive with /MTR
//   high after it ran resets a 32-bit shift register holding the drive's ID; each further
//   /SEL falling edge with the motor off shifts the next bit, MSB first, out on /RDY
//   (a 1 bit reads as /RDY low). A 3.5" DD drive answers $FFFFFFFF; an absent drive drives
//   nothing, so /RDY stays high and the ID reads $00000000.
// - /STEP moves the head one cylinder on its falling edge, towards the spindle when /DIR
//   is low. /CHNG goes low when a disk is removed (and at power-on) and high again at the
//   first step pulse with a disk in the drive, which is how the OS polls for a disk.
// - Mechanics (docs/floppy.md): the motor takes kSpinUpMs to reach speed and /RDY is
//   asserted only then, with a disk in; a step takes kStepMs and the head kSettleMs to
//   settle, and until then the head reads noise; a step pulse within kMinStepGapUs of the
//   last is ignored (vAmiga's A1010 figures; WinUAE's ready delay agrees).

#include "emu/media/adf.h"

#include <cstdint>
#include <vector>

namespace copperline {

class Archive;

class FloppyDrive {
public:
    static constexpr unsigned kMaxCylinder = 83; // the stop beyond the 80 formatted cylinders
    static constexpr std::uint32_t kDdDriveId = 0xFFFFFFFF;
    static constexpr unsigned kSpinUpMs = 380, kStepMs = 3, kSettleMs = 9, kMinStepGapUs = 40;

    // The colour clock rate, for the mechanical delays (PAL by default).
    void setClock(double cckPerSecond) { cckPerUs_ = cckPerSecond / 1e6; }

    // Whether a drive is fitted. An A500 has DF0; DF1-DF3 are external.
    void setConnected(bool on) { connected_ = on; }
    bool connected() const { return connected_; }
    std::uint32_t id() const { return connected_ ? kDdDriveId : 0; }

    // Media. Writes go to the drive's copy of the image (the overlay); writeback to a file
    // is the caller's choice (docs/floppy.md).
    void insert(AdfImage image);
    void eject();
    bool hasDisk() const { return hasDisk_; }
    const AdfImage& disk() const { return disk_; }
    // Whether a write changed the image since it was inserted (flush() first).
    bool modified() const { return modified_; }
    // A power cycle inserts the image afresh but keeps the host's note that it must be
    // written back (Machine::powerOn).
    void setModified(bool on) { modified_ = on; }
    // Decodes a track written since the head arrived on it back into the image.
    void flush();
    // The image as the guest has left it, with a track written since the head arrived on
    // it decoded into a copy: what flush() would make of it, without changing the drive
    // (so that a look from outside leaves the machine's state as it was).
    AdfImage contents() const;
    // Whether the guest's writes changed the image (counting a track not yet flushed).
    bool changedByGuest() const;

    // The control lines, with this drive's select line. Called when CIA-B's port B pins
    // change.
    void selectEdge(bool motorLine, std::uint64_t cck); // /SEL fell; motorLine: /MTR low
    void setSelected(bool on) { selected_ = on; }
    void step(bool inwards, std::uint64_t cck);
    void setHead(unsigned head);

    bool selected() const { return selected_; }
    bool motor() const { return motor_; }
    unsigned cylinder() const { return cylinder_; }
    unsigned head() const { return head_; }
    bool spinning() const { return connected_ && motor_; }

    // Output lines while selected, true when asserted (low on the wire). /RDY: the motor
    // at speed with a disk in; with the motor off, the drive's ID bit.
    bool ready(std::uint64_t cck) const {
        return connected_ && (motor_ ? hasDisk_ && cck >= spunUpAt_ : idBit_);
    }
    bool track0() const { return connected_ && cylinder_ == 0; }
    bool writeProtected() const { return connected_ && hasDisk_ && disk_.writeProtected; }
    bool diskChanged() const { return connected_ && changed_; }

    // The MFM byte under the head at byte `position` of the revolution (0 = the index);
    // zero where there is no disk or no formatted track.
    // `cck`: when the byte passes; a moving or settling head reads noise.
    std::uint8_t readByte(unsigned position, std::uint64_t cck);
    void writeByte(unsigned position, std::uint8_t value);

    void reset(); // power-on: motor off, head at cylinder 0, disk change latched
    void serialize(Archive& ar);

private:
    bool loadTrack();
    std::uint64_t cckFor(double us) const { return std::uint64_t(us * cckPerUs_ + 0.5); }

    bool connected_ = false;
    bool motor_ = false, selected_ = false;
    unsigned cylinder_ = 0, head_ = 0;
    std::uint8_t idCount_ = 0;
    bool idBit_ = false;
    bool changed_ = true;
    bool hasDisk_ = false;
    bool modified_ = false;
    AdfImage disk_;
    std::vector<std::uint8_t> mfm_;   // the current track's MFM bytes
    std::uint16_t mfmTrack_ = 0xFFFF; // which track mfm_ holds (0xFFFF: none)
    bool mfmDirty_ = false;
    double cckPerUs_ = 3.546895;
    std::uint64_t spunUpAt_ = 0;  // the motor reaches speed
    std::uint64_t settledAt_ = 0; // the head has stepped and settled
    std::uint64_t lastStep_ = 0;  // the last step pulse that moved the head (0: none)
};

} // namespace copperline
