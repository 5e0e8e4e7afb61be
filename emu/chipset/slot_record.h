// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Who owned the chip bus in a colour clock, and the full record Agnus writes for it when
// recording is armed (DESIGN.md section 3; source document 000, "Full chip-bus slot
// records"). docs/formats/slots.md documents the layout; the Frame Analyzer, frame.slots
// and the slots-*.bin capture files all use it.

#include <cstdint>

namespace copperline {

// The owner of one colour clock of the chip bus. The numbering is part of the file
// format: never reorder, only append.
enum class BusOwner : std::uint8_t {
    Idle = 0,      // nobody used the bus
    Refresh = 1,   // memory refresh (4 slots per line)
    Disk = 2,
    Audio = 3,
    Sprite = 4,
    Bitplane = 5,
    Copper = 6,
    Blitter = 7,
    Cpu = 8,
};
inline constexpr unsigned kBusOwnerCount = 9;
const char* busOwnerName(BusOwner owner);

// Slot event bits (source document 000): signal-state markers on the line's first refresh
// slot (VB, VS, VDIW) and second (LOF, LOL), and comparator edges where they happen.
namespace slot_event {
inline constexpr std::uint32_t VB = 1u << 0;     // vertical blanking is active on this line
inline constexpr std::uint32_t VS = 1u << 1;     // vertical sync is active
inline constexpr std::uint32_t VDIW = 1u << 2;   // the vertical display window is open
inline constexpr std::uint32_t LOF = 1u << 3;    // this is a long frame
inline constexpr std::uint32_t LOL = 1u << 4;    // this is a long line (NTSC)
inline constexpr std::uint32_t HBS = 1u << 5;    // horizontal blanking starts
inline constexpr std::uint32_t HBE = 1u << 6;    // horizontal blanking ends
inline constexpr std::uint32_t HSS = 1u << 7;    // horizontal sync starts
inline constexpr std::uint32_t HSE = 1u << 8;    // horizontal sync ends
inline constexpr std::uint32_t HDIWS = 1u << 9;  // the horizontal display window opens
inline constexpr std::uint32_t HDIWE = 1u << 10; // the horizontal display window closes
inline constexpr std::uint32_t DDFS = 1u << 11;  // bitplane data fetch starts (DDFSTRT match)
inline constexpr std::uint32_t DDFE = 1u << 12;  // bitplane data fetch stops (DDFSTOP match)
// Happenings, on the clock where they happen.
inline constexpr std::uint32_t BlitIrq = 1u << 13; // the blitter raises INTREQ BLIT: its blit is done
inline constexpr std::uint32_t CpuIrq = 1u << 14;  // the CPU starts taking an interrupt
inline constexpr std::uint32_t CiaAIrq = 1u << 15; // CIA-A pulls its /IRQ line (INTREQ PORTS)
inline constexpr std::uint32_t CiaBIrq = 1u << 16; // CIA-B pulls its /IRQ line (INTREQ EXTER)
inline constexpr std::uint32_t CiaA = 1u << 17;    // the CPU accesses a CIA-A register (CiaAccess)
inline constexpr std::uint32_t CiaB = 1u << 18;    // the CPU accesses a CIA-B register (CiaAccess)
} // namespace slot_event

// Record flags.
namespace slot_flag {
inline constexpr std::uint16_t Write = 1u << 0;      // the access wrote (else read)
inline constexpr std::uint16_t CpuWaited = 1u << 1;  // the CPU wanted this slot and was denied
inline constexpr std::uint16_t Register = 1u << 2;   // `reg` is valid
inline constexpr std::uint16_t Fetch = 1u << 3;      // the CPU's access read an instruction word
// Bits 8-10: the CPU's interrupt mask (SR I2-I0) during this clock, in every record.
inline constexpr unsigned IntMaskShift = 8;
inline constexpr std::uint16_t IntMask = 7u << IntMaskShift;
} // namespace slot_flag

// A CPU access to a CIA register in a frame with slot records, kept beside the records
// (the access is off the chip bus: the clock's record belongs to whoever owned the bus).
// Its clock's record has the CiaA or CiaB event.
struct CiaAccess {
    std::uint32_t index = 0; // the clock, row-major with the records' stride
    std::uint8_t chips = 0;  // 1 CIA-A, 2 CIA-B, 3 both (an address can select both)
    std::uint8_t reg = 0;    // 0-15
    bool write = false;
    std::uint16_t value = 0; // the word on the bus: CIA-B on D15-D8, CIA-A on D7-D0
};

// One colour clock, 24 bytes, little-endian, naturally aligned.
struct SlotRecord {
    std::uint16_t reg = 0;       // custom register offset ($000-$1FE) when flags has Register
    BusOwner owner = BusOwner::Idle;
    std::uint8_t subtype = 0;    // channel: bitplane 1-6, sprite 0-7, audio 0-3, blitter A-D (0-3), ...
    std::uint8_t size = 0;       // bytes moved: 0, 1 or 2
    std::uint8_t ipl = 0;        // interrupt level presented to the CPU
    std::uint16_t flags = 0;     // slot_flag bits
    std::uint64_t data = 0;      // the data moved (a word in the low 16 bits)
    std::uint32_t address = 0;   // chip address, 24 bits
    std::uint32_t events = 0;    // slot_event bits
};
static_assert(sizeof(SlotRecord) == 24, "the slot record is a 24-byte file format");
static_assert(alignof(SlotRecord) == 8);

} // namespace copperline
