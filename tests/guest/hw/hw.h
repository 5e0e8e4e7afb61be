// SPDX-License-Identifier: GPL-3.0-or-later
/* Custom chip and CIA access for the bare-metal hardware test programs. */
#ifndef COPPERLINE_TEST_HW_H
#define COPPERLINE_TEST_HW_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned long u32;

#define CUSTOM ((volatile u16*)0xDFF000)
#define REG(offset) CUSTOM[(offset) / 2]

enum {
    DMACONR = 0x002, VPOSR = 0x004, VHPOSR = 0x006, INTENAR = 0x01C, INTREQR = 0x01E,
    COPCON = 0x02E, BLTCON0 = 0x040, BLTCON1 = 0x042, BLTAFWM = 0x044, BLTALWM = 0x046,
    BLTCPTH = 0x048, BLTBPTH = 0x04C, BLTAPTH = 0x050, BLTDPTH = 0x054, BLTSIZE = 0x058,
    BLTCMOD = 0x060, BLTBMOD = 0x062, BLTAMOD = 0x064, BLTDMOD = 0x066,
    BLTCDAT = 0x070, BLTBDAT = 0x072, BLTADAT = 0x074,
    COP1LCH = 0x080, COP1LCL = 0x082, COPJMP1 = 0x088,
    DIWSTRT = 0x08E, DIWSTOP = 0x090, DDFSTRT = 0x092, DDFSTOP = 0x094,
    DMACON = 0x096, INTENA = 0x09A, INTREQ = 0x09C,
    AUD0LCH = 0x0A0, AUD0LEN = 0x0A4, AUD0PER = 0x0A6, AUD0VOL = 0x0A8,
    BPL1PTH = 0x0E0, BPLCON0 = 0x100, BPLCON1 = 0x102, BPLCON2 = 0x104,
    BPL1MOD = 0x108, BPL2MOD = 0x10A, SPR0PTH = 0x120, COLOR00 = 0x180,
};

/* 32-bit pointer registers are written as two words (high, low). */
static inline void setPointer(u16 reg, u32 value) {
    REG(reg) = (u16)(value >> 16);
    REG(reg + 2) = (u16)value;
}

/* Two lores bitplanes of whatever chip RAM holds at $20000 and $30000, a 320x256 window
 * (BPLEN is the caller's to set). */
static inline void twoLoresPlanes(void) {
    REG(DIWSTRT) = 0x2C81;
    REG(DIWSTOP) = 0x2CC1;
    REG(DDFSTRT) = 0x0038;
    REG(DDFSTOP) = 0x00D0;
    REG(BPLCON0) = 0x2200;
    REG(BPL1MOD) = 0;
    REG(BPL2MOD) = 0;
    setPointer(BPL1PTH, 0x20000);
    setPointer(BPL1PTH + 4, 0x30000);
}

#define CIAA ((volatile u8*)0xBFE001)
#define CIAB ((volatile u8*)0xBFD000)
#define CIAREG(base, n) (base)[(n) * 0x100]
enum { CIA_PRA = 0, CIA_PRB = 1, CIA_DDRA = 2, CIA_DDRB = 3, CIA_TALO = 4, CIA_TAHI = 5,
       CIA_TBLO = 6, CIA_TBHI = 7, CIA_ICR = 0xD, CIA_CRA = 0xE, CIA_CRB = 0xF };

static inline void stopForever(void) {
    for (;;) __asm__ volatile("stop #0x2700");
}

#endif
