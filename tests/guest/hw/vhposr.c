// SPDX-License-Identifier: GPL-3.0-or-later
/* Reads VHPOSR 400 times in a loop whose period drifts against the line, storing each
 * value from $70002 on (the count at $70000); the test sets each beside the clock the
 * slot records say the read was granted. */
#include "hw.h"

#define COUNT ((volatile u16*)0x70000)
#define VALUES ((volatile u16*)0x70002)

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    while ((REG(VHPOSR) >> 8) != 0x30) {
    }
    for (unsigned i = 0; i < 400; ++i) {
        VALUES[i] = REG(VHPOSR);
        __asm__ volatile("nop");
    }
    *COUNT = 400;
    stopForever();
    return 0;
}
