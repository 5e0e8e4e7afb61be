// SPDX-License-Identifier: GPL-3.0-or-later
/* Measures CIA-A timer A in one-shot and continuous mode with CIA-A timer B as a
 * stopwatch counting E cycles, and writes the results at $7F000 for the test. */
#include "hw.h"

struct Results {
    u16 latch;            /* timer A latch the test asked for (input) */
    u16 underflows;       /* continuous: how many underflows to time (input) */
    u16 oneShotElapsed;   /* E cycles from START to the flag, as the stopwatch saw them */
    u16 oneShotLonger;    /* the same with a latch 1000 larger */
    u16 oneShotCra;       /* CRA after the one-shot underflow */
    u16 oneShotCounter;   /* timer A after it */
    u16 continuousElapsed;/* E cycles from the first flag to the last */
    u16 overhead;         /* E cycles the stopwatch reads cost alone */
    u16 done;
};

static inline u16 stopwatch(void);

/* Starts a one-shot run of timer A with the latch given and returns the E cycles the
 * stopwatch saw between just before the start and just after the flag. */
static u16 oneShot(u16 latch) {
    CIAREG(CIAA, CIA_TALO) = (u8)latch;
    CIAREG(CIAA, CIA_CRA) = 0x08; /* RUNMODE one-shot, stopped */
    (void)CIAREG(CIAA, CIA_ICR);
    const u16 a = stopwatch();
    CIAREG(CIAA, CIA_TAHI) = (u8)(latch >> 8); /* loads and starts (8520 one-shot) */
    while (!(CIAREG(CIAA, CIA_ICR) & 1)) {
    }
    const u16 b = stopwatch();
    return (u16)(a - b);
}

#define RESULTS ((volatile struct Results*)0x7F000)

/* Reads the stopwatch; the high byte is read again so a carry between the two bytes is
 * never mistaken for 256 cycles. */
static inline u16 stopwatch(void) {
    u8 hi, lo;
    do {
        hi = CIAREG(CIAA, CIA_TBHI);
        lo = CIAREG(CIAA, CIA_TBLO);
    } while (hi != CIAREG(CIAA, CIA_TBHI));
    return (u16)(hi << 8 | lo);
}

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    CIAREG(CIAA, CIA_ICR) = 0x7F; /* no CIA interrupts: the flags are polled */
    CIAREG(CIAA, CIA_CRA) = 0;
    /* Stopwatch: timer B, continuous, from $FFFF. */
    CIAREG(CIAA, CIA_TBLO) = 0xFF;
    CIAREG(CIAA, CIA_TBHI) = 0xFF;
    CIAREG(CIAA, CIA_CRB) = 0x11; /* START | LOAD */
    for (volatile int i = 0; i < 10; ++i) {
    }

    /* What two stopwatch reads cost on their own. */
    u16 a = stopwatch();
    u16 b = stopwatch();
    RESULTS->overhead = (u16)(a - b);

    /* One-shot, twice. */
    const u16 latch = RESULTS->latch;
    RESULTS->oneShotLonger = oneShot((u16)(latch + 1000));
    RESULTS->oneShotElapsed = oneShot(latch);
    RESULTS->oneShotCra = CIAREG(CIAA, CIA_CRA);
    RESULTS->oneShotCounter = (u16)(CIAREG(CIAA, CIA_TAHI) << 8 | CIAREG(CIAA, CIA_TALO));

    /* Continuous: time N underflows. */
    CIAREG(CIAA, CIA_CRA) = 0x11; /* START | LOAD, continuous */
    while (!(CIAREG(CIAA, CIA_ICR) & 1)) {
    }
    a = stopwatch();
    for (u16 n = 0; n < RESULTS->underflows; ++n)
        while (!(CIAREG(CIAA, CIA_ICR) & 1)) {
        }
    b = stopwatch();
    RESULTS->continuousElapsed = (u16)(a - b);
    RESULTS->done = 1;
    stopForever();
    return 0;
}
