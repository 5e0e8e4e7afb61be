// SPDX-License-Identifier: GPL-3.0-or-later
/* Runs a table of blits the test writes at $70000: for each, waits for the blitter to
 * finish, loads its registers and writes BLTSIZE, exactly as a program would. Records
 * DMACONR after each blit (BZERO) in the job. Then stops. */
#include "hw.h"

struct Job {
    u16 con0, con1, afwm, alwm;
    u32 apt, bpt, cpt, dpt;
    u16 amod, bmod, cmod, dmod;
    u16 adat, bdat, cdat, size;
    u16 dmaconr, pad;
};

struct Table {
    u16 count, dmacon; /* DMACON bits to set while blitting (BLTPRI or not) */
    u16 waitLine;      /* start the first blit at this line, so a frame holds them all */
    u16 intena;        /* INTENA bits to enable (the CPU stays at mask 7: only the pins show it) */
    struct Job jobs[];
};

#define TABLE ((volatile struct Table*)0x70000)

static void waitBlitter(void) {
    /* Read DMACONR once before testing BBUSY: old Agnus sets it a clock late (HRM). */
    (void)REG(DMACONR);
    while (REG(DMACONR) & 0x4000) {
    }
}

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    REG(DMACON) = (u16)(0x8000 | 0x0200 | 0x0040 | TABLE->dmacon);
    if (TABLE->intena) REG(INTENA) = (u16)(0xC000 | TABLE->intena);
    if (TABLE->waitLine) {
        while ((REG(VHPOSR) >> 8) != 0) {
        }
        while ((REG(VHPOSR) >> 8) < TABLE->waitLine) {
        }
    }
    for (unsigned i = 0; i < TABLE->count; ++i) {
        volatile struct Job* j = &TABLE->jobs[i];
        waitBlitter();
        REG(BLTCON0) = j->con0;
        REG(BLTCON1) = j->con1;
        REG(BLTAFWM) = j->afwm;
        REG(BLTALWM) = j->alwm;
        setPointer(BLTAPTH, j->apt);
        setPointer(BLTBPTH, j->bpt);
        setPointer(BLTCPTH, j->cpt);
        setPointer(BLTDPTH, j->dpt);
        REG(BLTAMOD) = j->amod;
        REG(BLTBMOD) = j->bmod;
        REG(BLTCMOD) = j->cmod;
        REG(BLTDMOD) = j->dmod;
        REG(BLTADAT) = j->adat;
        REG(BLTBDAT) = j->bdat;
        REG(BLTCDAT) = j->cdat;
        REG(BLTSIZE) = j->size;
        waitBlitter();
        j->dmaconr = REG(DMACONR);
    }
    stopForever();
    return 0;
}
