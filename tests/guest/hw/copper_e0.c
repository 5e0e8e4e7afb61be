// SPDX-License-Identifier: GPL-3.0-or-later
/* A Copper list of MOVEs running through the end of a line while the CPU polls chip RAM,
 * so that the Copper and the CPU both want the bus at hpos $E0. The test reads the slot
 * records: who had $E0, $E1, and where each MOVE wrote. */
#include "hw.h"

#define COPPER_LIST 0x7E000

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    static const u16 list[] = {
        0x40D1,  0xFFFE, /* WAIT line $40, hpos $D0 */
        COLOR00, 0x0001,  COLOR00, 0x0002,  COLOR00, 0x0003,  COLOR00, 0x0004, COLOR00,
        0x0005,  COLOR00, 0x0006,  COLOR00, 0x0007,  COLOR00, 0x0008,  0xFFFF, 0xFFFE,
    };
    volatile u16* c = (volatile u16*)COPPER_LIST;
    for (unsigned i = 0; i < sizeof list / sizeof *list; ++i)
        c[i] = list[i];
    setPointer(COP1LCH, COPPER_LIST);
    REG(DMACON) = 0x8000 | 0x0200 | 0x0080; /* DMAEN | COPEN */
    volatile u16* poll = (volatile u16*)0x7F000;
    for (;;)
        (void)*poll;
    return 0;
}
