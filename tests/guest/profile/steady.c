// SPDX-License-Identifier: GPL-3.0-or-later
/* A steady per-frame loop for `copperline-ctl profile-diff` (tests/integration/test_profile_diff.cpp):
 * FRAMES times, wait for line WAIT_LINE of the next frame (the wait marked idle with
 * uaelib's idle markers), then call three functions whose work is a loop of known cost.
 * The same source is built three ways:
 *   - plain: the reference;
 *   - -DSLOWER: draw_scene runs one more loop of SLOWER_N turns, 18 * SLOWER_N + 10 cycles
 *     a call, and nothing else changes;
 *   - -DSHIFTED: an unused function first in the code, so that every function of the
 *     program lies at another address, with the same work.
 * Interrupts are off meanwhile, so that every frame's work costs the same, and the loop
 * starts on a frame of its own (one wait, not marked idle, before it): how long the
 * program took to load (its file's size, which its debug information's paths change) then
 * moves no start-up work into the loop's first frame.
 * The wait polls the beam through a function of its own, so that the wait a slower frame
 * loses is shared by two functions (and their bus waits), each losing less than draw_scene
 * gains. */
#include <copperline/amiga.h>
#include <copperline/guest_api.h>

#define FRAMES 40
#define WAIT_LINE 40
#define SLOWER_N 500

#define INTENAR (*(volatile unsigned short*)0xDFF01C)
#define INTENA (*(volatile unsigned short*)0xDFF09A)
#define VPOSR (*(volatile unsigned short*)0xDFF004)
#define VHPOSR (*(volatile unsigned short*)0xDFF006)

/* n turns of SUBQ.L/BNE.S, from the MC68000 User's Manual's tables (no wait states):
 * MOVE.L #imm,Dn 12, SUBQ.L #q,Dn 8, BNE.S 10 taken and 8 not: 18 * n + 10 cycles. */
#define SPIN(n)                                                                                      \
    do {                                                                                             \
        unsigned long count_;                                                                        \
        __asm__ volatile("move.l %1,%0\n1:\tsubq.l #1,%0\n\tbne.s 1b" : "=&d"(count_) : "i"(n) : "cc"); \
    } while (0)

#ifdef SHIFTED
/* Never called: it only moves the functions below. */
__attribute__((noinline, used)) void layout_padding(void) {
    SPIN(3);
    SPIN(5);
    SPIN(7);
    SPIN(11);
}
#endif

__attribute__((noinline)) unsigned read_line(void) {
    return (unsigned)((VPOSR & 1) << 8 | VHPOSR >> 8);
}

/* Waits for line WAIT_LINE of the next frame: for the frame to end, then for the line
 * (or a later one, when an interrupt hid the line itself from the poll). */
__attribute__((noinline)) void wait_frame(void) {
    while (read_line() >= WAIT_LINE) {
    }
    while (read_line() < WAIT_LINE) {
    }
}

__attribute__((noinline)) void update_world(void) {
    SPIN(1000);
}

__attribute__((noinline)) void draw_scene(void) {
    SPIN(2000);
#ifdef SLOWER
    SPIN(SLOWER_N);
#endif
}

__attribute__((noinline)) void mix_audio(void) {
    SPIN(600);
}

int main(void) {
    /* The machine taken over, as a game takes it: no interrupt, and so no other task, comes
     * between the frames' work, and every frame costs the same. */
    const unsigned short enabled = INTENAR;
    INTENA = 0x7FFF;
    wait_frame();
    for (int f = 0; f < FRAMES; ++f) {
        cl_idle_start();
        wait_frame();
        cl_idle_stop();
        update_world();
        draw_scene();
        mix_audio();
    }
    INTENA = (unsigned short)(0x8000 | (enabled & 0x7FFF));
    return 0;
}
