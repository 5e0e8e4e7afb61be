// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The OCS custom chip registers: byte offsets from $DFF000 (HRM appendix A, "Register
// summary, alphabetical" and "by address"), and their names for dumps and slot records.

#include <cstdint>
#include <span>

namespace copperline::reg {

// clang-format off
enum : std::uint16_t {
    BLTDDAT = 0x000, DMACONR = 0x002, VPOSR   = 0x004, VHPOSR  = 0x006,
    DSKDATR = 0x008, JOY0DAT = 0x00A, JOY1DAT = 0x00C, CLXDAT  = 0x00E,
    ADKCONR = 0x010, POT0DAT = 0x012, POT1DAT = 0x014, POTGOR  = 0x016,
    SERDATR = 0x018, DSKBYTR = 0x01A, INTENAR = 0x01C, INTREQR = 0x01E,
    DSKPTH  = 0x020, DSKPTL  = 0x022, DSKLEN  = 0x024, DSKDAT  = 0x026,
    REFPTR  = 0x028, VPOSW   = 0x02A, VHPOSW  = 0x02C, COPCON  = 0x02E,
    SERDAT  = 0x030, SERPER  = 0x032, POTGO   = 0x034, JOYTEST = 0x036,
    STREQU  = 0x038, STRVBL  = 0x03A, STRHOR  = 0x03C, STRLONG = 0x03E,
    BLTCON0 = 0x040, BLTCON1 = 0x042, BLTAFWM = 0x044, BLTALWM = 0x046,
    BLTCPTH = 0x048, BLTCPTL = 0x04A, BLTBPTH = 0x04C, BLTBPTL = 0x04E,
    BLTAPTH = 0x050, BLTAPTL = 0x052, BLTDPTH = 0x054, BLTDPTL = 0x056,
    BLTSIZE = 0x058,
    BLTCMOD = 0x060, BLTBMOD = 0x062, BLTAMOD = 0x064, BLTDMOD = 0x066,
    BLTCDAT = 0x070, BLTBDAT = 0x072, BLTADAT = 0x074,
    DSKSYNC = 0x07E,
    COP1LCH = 0x080, COP1LCL = 0x082, COP2LCH = 0x084, COP2LCL = 0x086,
    COPJMP1 = 0x088, COPJMP2 = 0x08A, COPINS  = 0x08C,
    DIWSTRT = 0x08E, DIWSTOP = 0x090, DDFSTRT = 0x092, DDFSTOP = 0x094,
    DMACON  = 0x096, CLXCON  = 0x098, INTENA  = 0x09A, INTREQ  = 0x09C,
    ADKCON  = 0x09E,
    AUD0LCH = 0x0A0, AUD0LCL = 0x0A2, AUD0LEN = 0x0A4, AUD0PER = 0x0A6,
    AUD0VOL = 0x0A8, AUD0DAT = 0x0AA,  // AUD1 at +$10, AUD2 at +$20, AUD3 at +$30
    BPL1PTH = 0x0E0, BPL1PTL = 0x0E2,  // BPLxPT at +4 per plane, to BPL6PTL = $0F6
    BPLCON0 = 0x100, BPLCON1 = 0x102, BPLCON2 = 0x104,
    BPL1MOD = 0x108, BPL2MOD = 0x10A,
    BPL1DAT = 0x110,                    // BPLxDAT at +2 per plane, to BPL6DAT = $11A
    SPR0PTH = 0x120, SPR0PTL = 0x122,  // SPRxPT at +4 per sprite, to SPR7PTL = $13E
    SPR0POS = 0x140, SPR0CTL = 0x142, SPR0DATA = 0x144, SPR0DATB = 0x146,  // +8 per sprite
    COLOR00 = 0x180,                    // COLORxx at +2, to COLOR31 = $1BE
    NOOP    = 0x1FE,
};
// clang-format on

inline constexpr unsigned kCount = 0x100;  // word registers, $000-$1FE

// The register's name ("DMACON", "BPL3PTH", "COLOR17"), or nullptr for an unused offset.
const char* name(std::uint16_t offset);

// Whether the CPU (or the Copper) may write the register: strobes and write-only
// registers are writable, the read-only ones ($000-$01E) are not.
bool writable(std::uint16_t offset);

// Whether a write is a strobe: it acts, and what was written is not kept anywhere.
bool strobe(std::uint16_t offset);

// One named field of a register's bits: `width` bits from bit `shift` (HRM appendix A).
struct Field {
    const char* name;
    std::uint8_t shift, width;
    std::uint16_t of(std::uint16_t value) const { return std::uint16_t((value >> shift) & ((1u << width) - 1)); }
};

// The named fields of the register at `offset`, most significant first; empty for a
// register that holds one number (a pointer, a modulo, a data word).
std::span<const Field> fields(std::uint16_t offset);

} // namespace copperline::reg
