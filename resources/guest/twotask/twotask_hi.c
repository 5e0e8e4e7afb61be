// SPDX-License-Identifier: GPL-3.0-or-later
/* twotask_hi: the higher-priority process of twotask (twotask.c), which starts it with
 * CreateProc at priority 5. It has no CLI: it reads no argument line and prints nothing.
 * Each of its rounds waits for the next tick (Delay(1)) and then runs spin.library's SpinB
 * for about 4 ms, preempting twotask's main task. */
#include <copperline/amiga.h>

#define ROUNDS 150
#define SPIN_B_PASSES 700 /* about 4 ms (36 cycles a pass, and the interrupts) */

/* The library's SpinB: LVO -36, D0 passes, A6 its base. */
static void spinB(void* base, unsigned long passes) {
    register unsigned long d0 __asm__("d0") = passes;
    __asm__ volatile("move.l %%a6,-(%%sp)\n\t"
                     "movea.l %1,%%a6\n\t"
                     "jsr -36(%%a6)\n\t"
                     "movea.l (%%sp)+,%%a6"
                     : "+d"(d0)
                     : "a"(base)
                     : "d1", "a0", "a1", "cc", "memory");
}

int main(void) {
    void* base = OpenLibrary("spin.library", 1);
    int r;
    if (!base) return 20;
    for (r = 0; r < ROUNDS; ++r) {
        Delay(1);
        spinB(base, SPIN_B_PASSES);
    }
    CloseLibrary(base);
    return 0;
}
