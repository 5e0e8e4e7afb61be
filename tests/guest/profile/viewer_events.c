// SPDX-License-Identifier: GPL-3.0-or-later
/* What a demo's frame shows Bartman's viewer, in a program loaded into RAM under AROS
 * (tests/integration/test_bartman_viewer.cpp): forever, it waits for the blitter, starts a
 * blit of its own (A to D, 16 words by 32 rows, in chip memory it allocated), reads
 * CIA-A's port A and CIA-B's TOD counter, and works a while. AROS's interrupts (the
 * vertical blank, the CIA timers) run between, so its frames have blits that end,
 * interrupts taken, INTREQ written and CIA registers read. */
#include <copperline/amiga.h>

#define REG(offset) (((volatile unsigned short*)0xDFF000)[(offset) / 2])
enum { DMACONR = 0x002, BLTCON0 = 0x040, BLTCON1 = 0x042, BLTAFWM = 0x044, BLTALWM = 0x046,
       BLTAPTH = 0x050, BLTDPTH = 0x054, BLTSIZE = 0x058, BLTAMOD = 0x064, BLTDMOD = 0x066 };

#define WORDS 16
#define ROWS 32
#define MEMF_CHIP 2
#define MEMF_CLEAR 0x10000

static volatile unsigned long sink;

__attribute__((noinline)) static void wait_blitter(void) {
    (void)REG(DMACONR); /* the first read after a BLTSIZE write may miss BBUSY (HRM) */
    while (REG(DMACONR) & 0x4000) {
    }
}

__attribute__((noinline)) static void start_blit(const unsigned short* from, unsigned short* to) {
    REG(BLTCON0) = 0x09F0; /* A and D, D = A */
    REG(BLTCON1) = 0;
    REG(BLTAFWM) = 0xFFFF;
    REG(BLTALWM) = 0xFFFF;
    REG(BLTAMOD) = 0;
    REG(BLTDMOD) = 0;
    *(volatile const unsigned short**)(0xDFF000 + BLTAPTH) = from;
    *(volatile unsigned short**)(0xDFF000 + BLTDPTH) = to;
    REG(BLTSIZE) = (unsigned short)(ROWS << 6 | WORDS);
}

__attribute__((noinline)) static unsigned long read_cias(void) {
    const unsigned char pra = *(volatile unsigned char*)0xBFE001;   /* CIA-A PRA */
    const unsigned char tod = *(volatile unsigned char*)0xBFD800;   /* CIA-B TOD low */
    return (unsigned long)pra + tod;
}

__attribute__((noinline)) static void work(unsigned n) {
    unsigned long x = 1;
    for (unsigned i = 0; i < n; ++i) x = x * 3 + i;
    sink += x;
}

int main(void) {
    unsigned short* from = AllocMem(2 * WORDS * ROWS * 2, MEMF_CHIP | MEMF_CLEAR);
    if (!from) return 20;
    unsigned short* to = from + WORDS * ROWS;
    for (unsigned i = 0; i < WORDS * ROWS; ++i) from[i] = (unsigned short)(i * 0x0101);
    for (;;) {
        wait_blitter();
        start_blit(from, to);
        sink += read_cias();
        work(400);
    }
}
