// SPDX-License-Identifier: GPL-3.0-or-later
/* A trackloader that times its own load with CIA-B's TOD counter (one count a line):
 * motor on and wait for /RDY, then read tracks 0-3 (cylinders 0 and 1, both sides) with
 * word-synchronised disk DMA, stepping once between cylinders with a 3 ms step delay and
 * no settle wait, as trackloaders do. Results at $7F000 (struct Results). */
#include "hw.h"

enum { DSKPTH = 0x020, DSKLEN = 0x024, DSKSYNC = 0x07E, ADKCON = 0x09E };
enum { CIA_TODLO = 8, CIA_TODMID = 9, CIA_TODHI = 10 };
enum { PRB_STEP = 0x01, PRB_DIR = 0x02, PRB_SIDE = 0x04, PRB_SEL0 = 0x08, PRB_MTR = 0x80 };

#define TRACKS 4
#define WORDS 6200 /* a track's worth after the sync word: 11 sectors and then some */
#define BUFFER 0x20000
#define SETTLES 8

struct Results {
    u16 readyLines;           /* motor on to /RDY */
    u16 trackLines[TRACKS];   /* DMA start to DSKBLK, per track */
    u16 syncLines[TRACKS];    /* DMA start to the first DSKSYN, per track */
    u16 loadLines;            /* /RDY to the last track's DSKBLK */
    u16 syncWords;            /* $4489 words found in the last track's buffer */
    u16 settleLines[SETTLES]; /* a step, the 3 ms delay, then lines to the first DSKSYN */
    u16 done;
};
#define RESULTS ((volatile struct Results*)0x7F000)

static u32 tod(void) {
    const u32 hi = CIAREG(CIAB, CIA_TODHI); /* latches the lower bytes until TODLO is read */
    const u32 mid = CIAREG(CIAB, CIA_TODMID);
    return hi << 16 | mid << 8 | CIAREG(CIAB, CIA_TODLO);
}

static u8 prb = 0xFF;
static void drive(u8 v) {
    prb = v;
    CIAREG(CIAB, CIA_PRB) = v;
}

/* The step delay, 3 ms, in TOD lines (64 us each): 47. */
static void waitLines(u32 n) {
    const u32 t = tod();
    while (tod() - t < n) {
    }
}

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    REG(INTREQ) = 0x7FFF;
    REG(DMACON) = 0x8000 | 0x0200 | 0x0010; /* DMAEN | DSKEN */
    drive(0xFF); /* the pins high before they become outputs: no stray /STEP edge */
    CIAREG(CIAB, CIA_DDRB) = 0xFF;

    /* Motor on: /MTR low, then select DF0 so the drive latches it. */
    const u32 t0 = tod();
    drive((u8)(prb & ~PRB_MTR));
    drive((u8)(prb & ~PRB_SEL0));
    while (CIAREG(CIAA, CIA_PRA) & 0x20) {
    }
    const u32 t1 = tod();
    RESULTS->readyLines = (u16)(t1 - t0);

    REG(ADKCON) = 0x7F00;
    REG(ADKCON) = 0x8000 | 0x1000 | 0x0400 | 0x0100; /* MFMPREC | WORDSYNC | FAST */
    REG(DSKSYNC) = 0x4489;
    for (unsigned t = 0; t < TRACKS; ++t) {
        if (t == 2) {
            /* One cylinder in: /DIR low, a /STEP pulse, the step delay. */
            drive((u8)(prb & ~PRB_DIR));
            drive((u8)(prb & ~PRB_STEP));
            drive((u8)(prb | PRB_STEP));
            waitLines(47);
        }
        /* /SIDE low reads the upper head, side 1. */
        drive((t & 1) ? (u8)(prb & ~PRB_SIDE) : (u8)(prb | PRB_SIDE));
        setPointer(DSKPTH, BUFFER);
        REG(INTREQ) = 0x1002; /* DSKSYN, DSKBLK */
        const u32 start = tod();
        REG(DSKLEN) = 0x4000;
        REG(DSKLEN) = (u16)(0x8000 | WORDS);
        REG(DSKLEN) = (u16)(0x8000 | WORDS);
        u32 sync = 0;
        while (!(REG(INTREQR) & 0x0002)) {
            if (!sync && (REG(INTREQR) & 0x1000)) sync = tod();
        }
        const u32 end = tod();
        REG(DSKLEN) = 0x4000;
        RESULTS->trackLines[t] = (u16)(end - start);
        RESULTS->syncLines[t] = (u16)(sync - start);
    }
    RESULTS->loadLines = (u16)(tod() - t1);
    u16 n = 0;
    for (volatile u16* p = (volatile u16*)BUFFER; p < (volatile u16*)BUFFER + WORDS; ++p)
        n += *p == 0x4489;
    RESULTS->syncWords = n;

    /* Steps at varied points of the revolution: after each, the 3 ms delay, then the
     * lines until a sync word passes the head (DSKSYN comes without DMA too). */
    for (unsigned i = 0; i < SETTLES; ++i) {
        waitLines(37 * i + 11);
        drive((i & 1) ? (u8)(prb | PRB_DIR) : (u8)(prb & ~PRB_DIR));
        drive((u8)(prb & ~PRB_STEP));
        drive((u8)(prb | PRB_STEP));
        waitLines(47);
        REG(INTREQ) = 0x1000;
        const u32 start = tod();
        while (!(REG(INTREQR) & 0x1000)) {
        }
        RESULTS->settleLines[i] = (u16)(tod() - start);
    }
    drive((u8)(prb | PRB_SEL0));
    drive((u8)(prb | PRB_MTR));
    drive((u8)(prb & ~PRB_SEL0)); /* motor off latched */
    RESULTS->done = 1;
    stopForever();
    return 0;
}
