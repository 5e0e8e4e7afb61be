// SPDX-License-Identifier: GPL-3.0-or-later
/* A CPU that computes while the blitter works and takes each blit's BLIT interrupt in the
 * middle of its sums: a loop of DIVU and MULU (long instructions with few bus cycles), two
 * lores bitplanes fetched, and a level-3 handler that logs the beam and starts the next
 * blit, a D-only clear (a fill every other time) whose size changes from blit to blit. The log at $7F000: a count,
 * then VHPOSR at each interrupt in a ring of 256. */
#include "hw.h"

#define LOG ((volatile u16*)0x7F000)
#define LOG_SIZE 256

void level3(void);
void blitDone(void);

/* The handler saves what blitDone may use (d0-d1, a0-a1). */
__asm__(".globl level3\n"
        "level3:\n"
        "    movem.l %d0-%d1/%a0-%a1,-(%sp)\n"
        "    jsr blitDone\n"
        "    movem.l (%sp)+,%d0-%d1/%a0-%a1\n"
        "    rte\n");

static void startBlit(u16 k) {
    /* D only, with inclusive fill on every other blit: a fill's word ends in an idle
     * slot, so the blit can end in a clock the CPU is given. */
    REG(BLTCON0) = 0x0100;
    REG(BLTCON1) = (u16)((k & 1) ? 0x0008 : 0);
    REG(BLTDMOD) = 0;
    setPointer(BLTDPTH, 0x60000);
    /* 8-14 rows of 20-32 words: the blitter busy most of the time, its blits ending all
     * over the line. */
    REG(BLTSIZE) = (u16)((k % 7 + 8) << 6 | (k % 13 + 20));
}

void blitDone(void) {
    const u16 beam = REG(VHPOSR);
    REG(INTREQ) = 0x0040;
    const u16 n = LOG[0];
    LOG[1 + n % LOG_SIZE] = beam;
    LOG[0] = (u16)(n + 1);
    startBlit((u16)(n + 1));
}

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    REG(INTREQ) = 0x7FFF;
    LOG[0] = 0;
    __asm__ volatile("move.l %0,0x6C" : : "g"(level3) : "memory");

    twoLoresPlanes();

    REG(DMACON) = 0x8340; /* DMAEN, BPLEN, BLTEN */
    REG(INTENA) = 0xC040; /* INTEN, BLIT */
    startBlit(0);
    __asm__ volatile("move.w #0x2000,%%sr\n"
                     "    moveq #1,%%d1\n"
                     "1:  move.l #0x12345,%%d0\n"
                     "    divu #7,%%d0\n"
                     "    mulu #0x5A5A,%%d1\n"
                     "    addq.w #3,%%d1\n"
                     "    bra.s 1b"
                     :
                     :
                     : "d0", "d1", "cc", "memory");
    return 0;
}
