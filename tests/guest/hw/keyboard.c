// SPDX-License-Identifier: GPL-3.0-or-later
/* Reads the keyboard the way the ROM does: waits for CIA-A's serial flag, reads SDR,
 * undoes the keyboard's inversion and rotation, and acknowledges by driving SP low for
 * more than 85 us. Stores each code at $7F002 on, the count at $7F000. */
#include "hw.h"

#define COUNT ((volatile u16*)0x7F000)
#define CODES ((volatile u8*)0x7F002)

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    CIAREG(CIAA, CIA_ICR) = 0x7F;
    CIAREG(CIAA, CIA_CRA) = 0x00;
    for (;;) {
        while (!(CIAREG(CIAA, CIA_ICR) & 0x08)) {
        }
        u8 v = (u8)~CIAREG(CIAA, 0xC);
        v = (u8)(v >> 1 | v << 7);
        CODES[*COUNT] = v;
        *COUNT = (u16)(*COUNT + 1);
        /* Handshake: SPMODE output for at least 85 us, two whole lines (128 us) here. */
        CIAREG(CIAA, CIA_CRA) = 0x40;
        u16 line = REG(VHPOSR) >> 8;
        for (int n = 0; n < 3;) {
            const u16 now = REG(VHPOSR) >> 8;
            if (now != line) {
                line = now;
                ++n;
            }
        }
        CIAREG(CIAA, CIA_CRA) = 0x00;
    }
    return 0;
}
