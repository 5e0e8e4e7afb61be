// SPDX-License-Identifier: GPL-3.0-or-later
/* Runs a Copper list of WAITs, MOVEs and a SKIP, so the test can read from the slot
 * records where each fetch and each register write happened. */
#include "hw.h"

#define COPPER_LIST 0x7E000

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    static const u16 list[] = {
        0x4041, 0xFFFE,        /* WAIT line $40, hpos $40 */
        COLOR00, 0x0111,       /* three MOVEs back to back */
        COLOR00, 0x0222,
        COLOR00, 0x0333,
        0x4121, 0xFFFE,        /* WAIT line $41, hpos $20 */
        0x0182, 0x0444,        /* MOVE COLOR01 */
        0x4111, 0xFFFF,        /* SKIP if past line $41, hpos $10: it is */
        0x0184, 0x0555,        /* MOVE COLOR02: skipped */
        0x0186, 0x0666,        /* MOVE COLOR03 */
        0x4281, 0xFFFE,        /* WAIT line $42, hpos $80 */
        0x4281, 0xFFFE,        /* the same WAIT again: already reached */
        0x0188, 0x0777,        /* MOVE COLOR04 */
        0x0040, 0x0000,        /* MOVE BLTCON0 without CDANG: illegal, the Copper halts */
        0x018A, 0x0888,        /* never reached */
        0xFFFF, 0xFFFE,
    };
    volatile u16* c = (volatile u16*)COPPER_LIST;
    for (unsigned i = 0; i < sizeof list / sizeof *list; ++i) c[i] = list[i];
    setPointer(COP1LCH, COPPER_LIST);
    REG(COPCON) = 0;
    REG(DMACON) = 0x8000 | 0x0200 | 0x0080; /* DMAEN | COPEN */
    stopForever();
    return 0;
}
