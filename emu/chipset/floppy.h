// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The floppy side of the machine: the four drive mechanisms and Paula's disk controller
// (HRM "Disk Hardware"; the registers DSKPT, DSKLEN, DSKSYNC, DSKBYTR, ADKCON).
//
// Time. The disk turns at 300 rpm and its data passes the head at 2 us per MFM bit, so a
// byte every 16 us and a word every 32 us: about 113.5 colour clocks on PAL, two words a
// line, of which the three disk DMA slots per line ($07, $09, $0B) can carry at most three
// (HRM chapter 6, "DMA time slot allocation"). The controller counts bytes of that
// stream: byte k passes at quarter colour clock k * bytePeriod (227 on PAL, 229 on NTSC),
// at position k mod 12,500 of the revolution, and the index pulse comes at position 0.
// It catches up lazily: at each line, at each disk slot and at each register access.
//
// Reading: each byte that passes the selected, spinning drive's head goes to DSKBYTR and a
// 16-bit shift register. When that register equals DSKSYNC, DSKSYN is requested. With
// DMA on (DSKLEN written twice with bit 15 set) and ADKCON WORDSYNC set, the transfer
// starts at the word after a sync match; without WORDSYNC at once. Words go into a
// three-word FIFO that the disk slots empty into chip RAM at DSKPT; DSKBLK is requested
// when the DSKLEN count is done. Writing (DSKLEN bit 14) runs the other way: the slots
// fill the FIFO from chip RAM and each byte period puts a byte on the disk.
//
// docs/floppy.md describes the model and its limits.

#include "emu/chipset/floppy_drive.h"

#include <array>
#include <cstdint>

namespace copperline {

class Archive;
class ChipRam;
class Paula;

class FloppyController {
public:
    static constexpr unsigned kDrives = 4;
    static constexpr unsigned kFifoWords = 3;
    static constexpr unsigned kPalBytePeriodQcck = 227;  // 16 us = 56.75 CCK
    static constexpr unsigned kNtscBytePeriodQcck = 229; // 16 us = 57.27 CCK

    explicit FloppyController(Paula& paula);

    void configure(bool ntsc) {
        bytePeriod_ = ntsc ? kNtscBytePeriodQcck : kPalBytePeriodQcck;
        for (auto& d : drives_)
            d.setClock(ntsc ? 3579545.0 : 3546895.0);
    }

    FloppyDrive& drive(unsigned n) { return drives_[n & 3]; }
    const FloppyDrive& drive(unsigned n) const { return drives_[n & 3]; }

    // The RESET line: controller registers to their reset values; the drives keep their
    // disks and heads.
    void reset();
    // Power-on: drives too.
    void powerOn();

    // CIA-B port B, the levels on its pins, at colour clock `cck`; returns the index
    // pulses seen up to then, like advanceTo.
    unsigned setControlLines(std::uint8_t prb, std::uint64_t cck);
    // CIA-A port A bits 5-2 as the selected drives drive them (active low); other bits 1.
    std::uint8_t statusPins() const;

    // Runs the disk stream to colour clock `cck`; returns how many index pulses the
    // selected drives gave (for CIA-B /FLAG).
    unsigned advanceTo(std::uint64_t cck);

    // Registers, written and read through Paula at colour clock `cck`.
    void writePointerHigh(std::uint16_t v) {
        dskpt_ = (dskpt_ & 0x0000FFFF) | std::uint32_t(v & 0x1F) << 16;
    }
    void writePointerLow(std::uint16_t v) { dskpt_ = (dskpt_ & 0xFFFF0000) | (v & 0xFFFE); }
    void writeLength(std::uint16_t v, std::uint64_t cck);
    void writeSync(std::uint16_t v) { dsksync_ = v; }
    void setAdkcon(std::uint16_t adkcon) { adkcon_ = adkcon; }
    std::uint16_t readByteRegister(std::uint64_t cck); // DSKBYTR: clears DSKBYT
    std::uint16_t spyByteRegister() const;

    // The disk DMA slots. Agnus calls wantsSlot at a disk slot; if it says yes the slot is
    // the disk's, and Agnus moves one word: to chip RAM (reading the disk) or from it.
    bool wantsSlot(std::uint64_t cck);
    bool writing() const { return (dsklen_ & 0x4000) != 0; }
    std::uint32_t pointer() const { return dskpt_; }
    std::uint16_t takeWord(std::uint64_t cck);            // read DMA: the word to store
    void giveWord(std::uint16_t data, std::uint64_t cck); // write DMA: the word fetched

    bool dmaActive() const { return dma_ != Dma::Off; }
    std::uint32_t dskpt() const { return dskpt_; }
    std::uint16_t dsksync() const { return dsksync_; }

    // Decodes every drive's written track back into its image.
    void flushAll();

    void serialize(Archive& ar);

private:
    enum class Dma : std::uint8_t { Off, WaitSync, Read, Write };

    void byteTick(std::uint64_t byteIndex);
    void finish(std::uint64_t cck);
    FloppyDrive* selectedDrive();

    Paula& paula_;
    std::array<FloppyDrive, kDrives> drives_{};
    unsigned bytePeriod_ = kPalBytePeriodQcck;

    std::uint8_t prb_ = 0xFF;
    std::uint32_t dskpt_ = 0;
    std::uint16_t dsklen_ = 0, dsksync_ = 0x4489, adkcon_ = 0;
    Dma dma_ = Dma::Off;
    std::uint16_t remaining_ = 0; // words still to move between the FIFO and memory
    std::uint16_t toDisk_ = 0;    // write DMA: words still to put on the disk
    std::array<std::uint16_t, kFifoWords> fifo_{};
    std::uint8_t fifoCount_ = 0, fifoHead_ = 0;
    bool highHalf_ = true;       // the next byte is a word's high byte
    std::uint8_t assembled_ = 0; // read: the high byte of the word being assembled
    std::uint16_t shift_ = 0;    // the last 16 bits read
    std::uint8_t dataByte_ = 0;  // DSKBYTR's data
    bool byteReady_ = false, wordEqual_ = false;
    std::uint64_t nextByte_ = 0; // index of the next byte of the stream to process
    std::uint64_t now_ = 0;      // colour clock of the last advance
    unsigned pendingPulses_ = 0; // index pulses not yet handed to CIA-B
};

} // namespace copperline
