// SPDX-License-Identifier: GPL-3.0-or-later
/* The loader pattern that hid a demo's logo: Copper DMA off, a new COP1LC written late in
 * the frame (line 292), Copper DMA back on with no COPJMP1 strobe. The old list writes
 * COP1LC back to itself each frame, so if the Copper resumed the old list it would keep
 * it forever. The old list sets COLOR00 red, the new one green; the test looks at which
 * won. Writes 1 at $7F000 when the switch is done. */
#include "hw.h"

#define OLD_LIST 0x7E000
#define NEW_LIST 0x7E100
#define DONE ((volatile u16*)0x7F000)

static unsigned line(void) {
    for (;;) {
        const u16 v = REG(VPOSR), h = REG(VHPOSR);
        if (v == REG(VPOSR)) return (unsigned)((v & 1) << 8 | h >> 8);
    }
}

static void waitLine(unsigned l) {
    while (line() != l) {
    }
}

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    volatile u16* old = (volatile u16*)OLD_LIST;
    const u16 oldList[] = {
        0x0080, (u16)(OLD_LIST >> 16), 0x0082, (u16)OLD_LIST, COLOR00, 0x0F00, 0xFFFF, 0xFFFE};
    for (unsigned i = 0; i < 8; ++i)
        old[i] = oldList[i];
    volatile u16* neu = (volatile u16*)NEW_LIST;
    const u16 newList[] = {COLOR00, 0x00F0, 0xFFFF, 0xFFFE};
    for (unsigned i = 0; i < 4; ++i)
        neu[i] = newList[i];

    setPointer(COP1LCH, OLD_LIST);
    (void)REG(COPJMP1);
    REG(DMACON) = 0x8000 | 0x0200 | 0x0080; /* DMAEN | COPEN */
    waitLine(100);
    waitLine(0);
    waitLine(100);
    REG(DMACON) = 0x0080; /* Copper DMA off while "loading" */
    waitLine(0);          /* a vertical blank passes with Copper DMA off */
    waitLine(292);
    setPointer(COP1LCH, NEW_LIST);
    waitLine(293);
    REG(DMACON) = 0x8000 | 0x0080; /* COPEN again, no strobe */
    *DONE = 1;
    stopForever();
    return 0;
}
