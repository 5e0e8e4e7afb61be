// SPDX-License-Identifier: GPL-3.0-or-later
/* A program to profile with `copperline --run profiled --profile DIR`
 * (tests/integration/test_profile_run.cpp). Two phases call the same loops of known cost
 * (burn.s): one with every DMA channel off, one with six lores bitplanes fetching, so
 * that the loops' self times are equal and only their chip-bus waits differ; interrupts
 * are off in both, so nothing else runs meanwhile. A static function with an inlined
 * helper shows that both keep their own names. */
#include <copperline/amiga.h>

#define REG(offset) (((volatile unsigned short*)0xDFF000)[(offset) / 2])
enum { DMACONR = 0x002, INTENAR = 0x01C, DIWSTRT = 0x08E, DIWSTOP = 0x090, DDFSTRT = 0x092,
       DDFSTOP = 0x094, DMACON = 0x096, INTENA = 0x09A, BPL1PTH = 0x0E0, BPLCON0 = 0x100,
       BPL1MOD = 0x108, BPL2MOD = 0x10A };

void burn_loop(unsigned long n);
void burn_mul(unsigned long n);

#define LOOP_N 2000
#define MUL_N 300

static unsigned short savedDma, savedInt;

static void quiet(void) {
    savedInt = REG(INTENAR);
    savedDma = REG(DMACONR);
    REG(INTENA) = 0x7FFF;
    REG(DMACON) = 0x7FFF;
}

static void restore(void) {
    REG(DMACON) = 0x7FFF;
    REG(DMACON) = (unsigned short)(0x8000 | (savedDma & 0x07FF));
    REG(INTENA) = (unsigned short)(0x8000 | (savedInt & 0x7FFF));
}

__attribute__((noinline)) void phase_quiet(void) {
    quiet();
    burn_loop(LOOP_N);
    burn_mul(MUL_N);
    restore();
}

__attribute__((noinline)) void phase_busy(void) {
    quiet();
    /* Six lores planes over a full PAL window: bitplane DMA takes six of every eight
     * fetch slots, so the CPU waits for most of its chip-bus accesses there. */
    REG(DIWSTRT) = 0x2C81;
    REG(DIWSTOP) = 0x2CC1;
    REG(DDFSTRT) = 0x0038;
    REG(DDFSTOP) = 0x00D0;
    REG(BPL1MOD) = 0;
    REG(BPL2MOD) = 0;
    for (int i = 0; i < 12; ++i) REG(BPL1PTH + 2 * i) = 0;
    REG(BPLCON0) = 0x6200;
    REG(DMACON) = 0x8300; /* DMAEN | BPLEN */
    burn_loop(LOOP_N);
    burn_mul(MUL_N);
    restore();
}

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x) {
    return (x << 3) ^ (x >> 5) ^ 0x9E37u;
}

static __attribute__((noinline)) unsigned long checksum_words(const volatile unsigned short* p, int n) {
    unsigned long sum = 0;
    for (int i = 0; i < n; ++i) sum = mix(sum + p[i]);
    return sum;
}

volatile unsigned long result;

int main(void) {
    phase_quiet();
    phase_busy();
    result = checksum_words((const volatile unsigned short*)0xF80000, 4000);
    return 0;
}
