// SPDX-License-Identifier: GPL-3.0-or-later
/* Times the 68000's interrupt entry with the beam: each trial reads VHPOSR, requests a
 * level-1 interrupt (INTREQ SOFT) and lets the handler read VHPOSR as its first bus
 * access. The trials start at every E-clock phase (0 to 4 NOPs of padding, 4 clocks
 * each, step the start through all five even phases of the 10-clock E period), so an
 * acknowledge that waited for the E clock would show as a spread. Results at $7F000:
 * the number of trials, then the colour clocks from the request to the handler's read. */
#include "hw.h"

#define RESULTS ((volatile u16*)0x7F000)
#define TRIALS 20

static volatile u16 handlerBeam;

void level1(void);
__asm__(".globl level1\n"
        "level1:\n"
        "    move.w 0xDFF006,handlerBeam\n"
        "    move.w #0x0004,0xDFF09C\n"
        "    rte\n");

static u16 trial(unsigned padding) {
    u16 before;
    /* Mid-line, away from the refresh slots at the line's ends. */
    while ((REG(VHPOSR) & 0xFF) < 0x30 || (REG(VHPOSR) & 0xFF) > 0x90) {
    }
    for (unsigned i = 0; i < padding; ++i)
        __asm__ volatile("nop");
    __asm__ volatile("move.w 0xDFF006,%0\n"
                     "    move.w #0x8004,0xDFF09C\n"
                     "    nop\n    nop\n    nop\n    nop\n    nop\n    nop\n    nop\n    nop\n"
                     : "=d"(before)
                     :
                     : "memory");
    return (u16)((handlerBeam & 0xFF) - (before & 0xFF));
}

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    REG(INTREQ) = 0x7FFF;
    __asm__ volatile("move.l %0,0x64" : : "g"(level1) : "memory"); /* the level-1 vector */
    REG(INTENA) = 0xC004; /* master enable, SOFT */
    __asm__ volatile("move.w #0x2000,%%sr" ::: "cc");
    for (unsigned n = 0; n < TRIALS; ++n)
        RESULTS[1 + n] = trial(n % 5);
    RESULTS[0] = TRIALS;
    stopForever();
    return 0;
}
