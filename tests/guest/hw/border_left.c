// SPDX-License-Identifier: GPL-3.0-or-later
/* A red border and nothing else: DMA off, COLOR00 red, so the picture shows where the
 * horizontal blank ends at the display's left edge. */
#include "hw.h"

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    REG(COLOR00) = 0x0F00;
    stopForever();
    return 0;
}
