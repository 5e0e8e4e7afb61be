// SPDX-License-Identifier: GPL-3.0-or-later
/* twotask: a system with two busy tasks for the system sampler (docs/profiling.md). It
 * loads spin.library from its disk (LoadSeg, InitResident on the library's RomTag,
 * OpenLibrary), starts twotask_hi from its disk as a process of priority 5 and then, at
 * its own priority (0), runs rounds of
 *
 *     SpinA through the library   about 25 ms
 *     main_work, its own loop     about 10 ms
 *     Delay(1)                    at least a tick (1/50 s)
 *
 * while twotask_hi wakes from its own Delay(1) to run SpinB for about 4 ms, preempting
 * it. Between the two, both tasks wait and the machine is idle. The work is counted in
 * passes, not timed, so each run does the same. At the end it waits for the process to be
 * gone and prints
 *
 *     twotask: library $00C0A1B8 rounds 60
 *
 * (the library's base). An argument scales the rounds: "twotask 2" runs 120. The library
 * stays loaded and in exec's list, and the process's segments are never unloaded (the
 * process may still own them). */
#include <copperline/amiga.h>

#define ROUNDS 60
/* Passes for the times, measured with CIA-B's time-of-day counter on --run's machine: the
 * loops' own cycles (SpinA 42 a pass, main_work 26) and what the interrupts and the chip
 * bus take from them. */
#define SPIN_A_PASSES 3460 /* about 25 ms */
#define MAIN_PASSES 2200   /* about 10 ms */
#define HI_NAME "twotask.hi"
#define HI_PRIORITY 5
#define HI_STACK 4096

static char line[64];




static void say(unsigned n) {
    line[n++] = '\n';
    Write(Output(), line, (long)n);
}

static int fail(const char* step) {
    unsigned n = text_put(line, 0, "twotask: ");
    n = text_put(line, n, step);
    say(text_put(line, n, " failed"));
    return 20; /* RETURN_FAIL */
}

/* The library's SpinA: LVO -30, D0 passes, A6 its base. */
static void spinA(void* base, unsigned long passes) {
    register unsigned long d0 __asm__("d0") = passes;
    __asm__ volatile("move.l %%a6,-(%%sp)\n\t"
                     "movea.l %1,%%a6\n\t"
                     "jsr -30(%%a6)\n\t"
                     "movea.l (%%sp)+,%%a6"
                     : "+d"(d0)
                     : "a"(base)
                     : "d1", "a0", "a1", "cc", "memory");
}

/* The main task's own busy loop. */
static volatile unsigned long sink;

__attribute__((noinline)) void main_work(unsigned long passes) {
    unsigned long x = sink;
    while (passes--) {
        x = (x << 1) ^ passes;
        __asm__ volatile("" : "+d"(x));
    }
    sink = x;
}

/* The RomTag in a segment list's first segment: a word $4AFC followed by the RomTag's own
 * address (exec/resident.h). The segment's size, in the longword before it, bounds the
 * scan. */
static const void* findRomTag(BPTR seg) {
    const unsigned char* segment = (const unsigned char*)(seg << 2);
    unsigned long size = *(const unsigned long*)(segment - 4), at;
    if (size < 16) return 0;
    if (size > 0x40000) size = 0x40000;
    for (at = 4; at + 6 <= size - 4; at += 2) {
        const unsigned char* p = segment + at;
        if (*(const unsigned short*)p == 0x4AFC && *(const unsigned long*)(p + 2) == (unsigned long)p)
            return p;
    }
    return 0;
}

int main(void) {
    unsigned long scale = 0, rounds = 0, i;
    long c;
    BPTR seg, hiSeg;
    const void* romtag;
    void* base;
    unsigned n;

    for (c = 0; c < __commandlen; ++c)
        if (__commandline[c] >= '0' && __commandline[c] <= '9')
            scale = (scale << 3) + (scale << 1) + (unsigned long)(__commandline[c] - '0');
    if (!scale) scale = 1;

    seg = LoadSeg(":spin.library");
    if (!seg) return fail("LoadSeg :spin.library");
    romtag = findRomTag(seg);
    if (!romtag) return fail("finding spin.library's RomTag");
    if (!InitResident(romtag, seg)) return fail("InitResident spin.library");
    base = OpenLibrary("spin.library", 1);
    if (!base) return fail("OpenLibrary spin.library");

    hiSeg = LoadSeg(":twotask_hi");
    if (!hiSeg) return fail("LoadSeg :twotask_hi");
    if (!CreateProc(HI_NAME, HI_PRIORITY, hiSeg, HI_STACK)) return fail("CreateProc " HI_NAME);

    for (i = 0; i < scale; ++i) {
        unsigned long r;
        for (r = 0; r < ROUNDS; ++r) {
            spinA(base, SPIN_A_PASSES);
            main_work(MAIN_PASSES);
            Delay(1);
            ++rounds;
        }
    }

    while (FindTask(HI_NAME)) Delay(5);

    n = text_put(line, 0, "twotask: library ");
    n = text_put_hex(line, n, (unsigned long)base);
    n = text_put(line, n, " rounds ");
    say(text_put_decimal(line, n, rounds));
    CloseLibrary(base);
    return 0;
}
