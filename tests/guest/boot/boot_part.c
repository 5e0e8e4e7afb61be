// SPDX-License-Identifier: GPL-3.0-or-later
/* The part of the trackmo test that its boot block places at $40000 (boot_stub.S): a frame
 * loop of three routines with costs of their own, for the profiler to name from the ELF
 * alone (--symbols boot_part.elf@0x40000). No BSS: the boot block copies code and data
 * only. */
#include "../hw/hw.h"

/* Until the beam reaches line $20 of the next frame. */
static void __attribute__((noinline)) wait_frame(void) {
    while ((REG(VHPOSR) >> 8) == 0x20) {
    }
    while ((REG(VHPOSR) >> 8) != 0x20) {
    }
}

/* Some arithmetic worth seeing: a xorshift run 400 times. */
static unsigned long __attribute__((noinline)) mix(unsigned long x) {
    for (int i = 0; i < 400; ++i) {
        x ^= x << 7;
        x ^= x >> 9;
        x += 0x2545;
    }
    return x;
}

static void __attribute__((noinline)) paint(unsigned long v) {
    REG(COLOR00) = (u16)(v & 0x0FFF);
}

void __attribute__((noreturn)) boot_main(void) {
    unsigned long v = 1;
    for (;;) {
        wait_frame();
        v = mix(v);
        paint(v);
    }
}
