// SPDX-License-Identifier: GPL-3.0-or-later
/* Sets up bitplane, sprite and audio DMA from a parameter block the test writes at
 * $7F000, keeps the pointers fresh with a Copper list, and stops. The test then reads
 * Agnus's owner of every colour clock of a frame and compares it with the HRM's slot
 * diagram. */
#include "hw.h"

struct Params {
    u16 bplcon0, ddfstrt, ddfstop, diwstrt, diwstop, dmacon;
    u16 spriteStart, spriteStop; /* sprite 0's lines (0: no sprite) */
    u16 audioPeriod, audioLength; /* channel 0 (period 0: no audio) */
};

#define PARAMS ((volatile struct Params*)0x7F000)
#define COPPER_LIST 0x7E000
#define SPRITE0 0x7D000
#define EMPTY_SPRITE 0x7D800
#define PLANES 0x20000
#define SAMPLES 0x7C000

static u16* move(u16* c, u16 reg, u16 value) {
    c[0] = reg;
    c[1] = value;
    return c + 2;
}

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;

    const u16 vstart = PARAMS->spriteStart, vstop = PARAMS->spriteStop;
    volatile u16* spr = (volatile u16*)SPRITE0;
    const u16 hstart = 0x90;
    spr[0] = (u16)((vstart & 0xFF) << 8 | ((hstart >> 1) & 0xFF));
    spr[1] = (u16)((vstop & 0xFF) << 8 | ((vstart >> 8) & 1) << 2 | ((vstop >> 8) & 1) << 1 | (hstart & 1));
    unsigned n = 2;
    for (u16 line = vstart; line < vstop; ++line) {
        spr[n++] = 0xF0F0;
        spr[n++] = 0x0FF0;
    }
    spr[n++] = 0;
    spr[n++] = 0;
    ((volatile u16*)EMPTY_SPRITE)[0] = 0;
    ((volatile u16*)EMPTY_SPRITE)[1] = 0;

    u16* c = (u16*)COPPER_LIST;
    for (unsigned p = 0; p < 6; ++p) {
        const u32 plane = PLANES + p * 0x2000;
        c = move(c, (u16)(BPL1PTH + 4 * p), (u16)(plane >> 16));
        c = move(c, (u16)(BPL1PTH + 4 * p + 2), (u16)plane);
    }
    for (unsigned s = 0; s < 8; ++s) {
        const u32 sprite = (s == 0 && vstart) ? SPRITE0 : EMPTY_SPRITE;
        c = move(c, (u16)(SPR0PTH + 4 * s), (u16)(sprite >> 16));
        c = move(c, (u16)(SPR0PTH + 4 * s + 2), (u16)sprite);
    }
    c[0] = 0xFFFF;
    c[1] = 0xFFFE;
    setPointer(COP1LCH, COPPER_LIST);
    REG(COPJMP1) = 0;

    REG(BPLCON0) = PARAMS->bplcon0;
    REG(BPLCON1) = 0;
    REG(BPL1MOD) = 0;
    REG(BPL2MOD) = 0;
    REG(DDFSTRT) = PARAMS->ddfstrt;
    REG(DDFSTOP) = PARAMS->ddfstop;
    REG(DIWSTRT) = PARAMS->diwstrt;
    REG(DIWSTOP) = PARAMS->diwstop;
    if (PARAMS->audioPeriod) {
        setPointer(AUD0LCH, SAMPLES);
        REG(AUD0LEN) = PARAMS->audioLength;
        REG(AUD0PER) = PARAMS->audioPeriod;
        REG(AUD0VOL) = 0;
    }
    REG(DMACON) = (u16)(0x8000 | PARAMS->dmacon);
    stopForever();
    return 0;
}
