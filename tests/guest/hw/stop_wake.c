// SPDX-License-Identifier: GPL-3.0-or-later
/* A CPU that sleeps in STOP and is woken in the middle of lines: the Copper requests
 * COPER at four beam positions a frame (and, between them, a request the CPU never sees:
 * DSKSYN is not enabled), the first COPER of each frame starts a blit whose BLIT
 * interrupt arrives while the CPU sleeps again, CIA-A's timer A underflows every 1,111
 * E cycles (which no line or frame length divides) and VERTB starts each frame. Every
 * handler logs the beam and its source at $7F000: a count, then (VHPOSR, source) pairs in
 * a ring of 256. Bitplane DMA runs, so the sleeping clocks are not all idle ones. */
#include "hw.h"

#define LOG ((volatile u16*)0x7F000)
#define LOG_SIZE 256

enum { SRC_VERTB = 1, SRC_COPER = 2, SRC_BLIT = 3, SRC_CIA = 4 };

void level2(void);
void level3(void);
void logBeam(u16 source);

/* The handlers save what logBeam may use (d0-d1, a0-a1); logBeam reads VHPOSR first. */
__asm__(".globl level2\n"
        "level2:\n"
        "    movem.l %d0-%d1/%a0-%a1,-(%sp)\n"
        "    move.b 0xBFED01,%d0\n" /* CIA-A ICR: reading clears it */
        "    move.l #4,-(%sp)\n"
        "    jsr logBeam\n"
        "    addq.l #4,%sp\n"
        "    move.w #0x0008,0xDFF09C\n" /* INTREQ: clear PORTS */
        "    movem.l (%sp)+,%d0-%d1/%a0-%a1\n"
        "    rte\n"
        ".globl level3\n"
        "level3:\n"
        "    movem.l %d0-%d1/%a0-%a1,-(%sp)\n"
        "    move.w 0xDFF01E,%d0\n" /* INTREQR */
        "    btst #4,%d0\n"
        "    beq.s 1f\n"
        "    move.w #0x0010,0xDFF09C\n"
        "    move.l #2,-(%sp)\n"
        "    jsr logBeam\n"
        "    addq.l #4,%sp\n"
        "1:  move.w 0xDFF01E,%d0\n"
        "    btst #6,%d0\n"
        "    beq.s 2f\n"
        "    move.w #0x0040,0xDFF09C\n"
        "    move.l #3,-(%sp)\n"
        "    jsr logBeam\n"
        "    addq.l #4,%sp\n"
        "2:  move.w 0xDFF01E,%d0\n"
        "    btst #5,%d0\n"
        "    beq.s 3f\n"
        "    move.w #0x0020,0xDFF09C\n"
        "    move.l #1,-(%sp)\n"
        "    jsr logBeam\n"
        "    addq.l #4,%sp\n"
        "3:  movem.l (%sp)+,%d0-%d1/%a0-%a1\n"
        "    rte\n");

static volatile u16 firstCoper;

void logBeam(u16 source) {
    const u16 beam = REG(VHPOSR);
    const u16 n = LOG[0];
    LOG[1 + 2 * (n % LOG_SIZE)] = beam;
    LOG[2 + 2 * (n % LOG_SIZE)] = source;
    LOG[0] = (u16)(n + 1);
    if (source == SRC_VERTB) firstCoper = 1;
    if (source == SRC_COPER && firstCoper) {
        /* A blit of 64 words x 16 rows, D only (a clear), from the first COPER. */
        firstCoper = 0;
        REG(BLTCON0) = 0x0100;
        REG(BLTCON1) = 0;
        REG(BLTDMOD) = 0;
        setPointer(BLTDPTH, 0x60000);
        REG(BLTSIZE) = (u16)(16 << 6 | 64);
    }
}

static u16 copperList[] __attribute__((aligned(4))) = {
    0x4041, 0xFFFE, 0x009C, 0x8010, /* line $40, h $40: COPER */
    0x5073, 0xFFFE, 0x009C, 0x9000, /* line $50, h $72: DSKSYN, not enabled */
    0x609B, 0xFFFE, 0x009C, 0x8010, /* line $60, h $9A: COPER */
    0x8023, 0xFFFE, 0x009C, 0x8010, /* line $80, h $22: COPER */
    0xA0C7, 0xFFFE, 0x009C, 0x8010, /* line $A0, h $C6: COPER */
    0xFFFF, 0xFFFE,
};

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    REG(INTREQ) = 0x7FFF;
    LOG[0] = 0;
    __asm__ volatile("move.l %0,0x68\n    move.l %1,0x6C" : : "g"(level2), "g"(level3) : "memory");

    twoLoresPlanes();

    setPointer(COP1LCH, (u32)copperList);
    REG(COPJMP1) = 0;

    /* CIA-A timer A: continuous, 1,111 E cycles, its interrupt enabled. */
    CIAREG(CIAA, CIA_ICR) = 0x7F;
    CIAREG(CIAA, CIA_TALO) = (u8)1111;
    CIAREG(CIAA, CIA_TAHI) = (u8)(1111 >> 8);
    CIAREG(CIAA, CIA_CRA) = 0x11; /* START | LOAD, continuous */
    (void)CIAREG(CIAA, CIA_ICR);
    CIAREG(CIAA, CIA_ICR) = 0x81; /* SET | TA */

    REG(DMACON) = 0x83C0;      /* DMAEN, BPLEN, COPEN, BLTEN */
    REG(INTENA) = 0xC078;      /* INTEN, PORTS, COPER, VERTB, BLIT */
    for (;;) __asm__ volatile("stop #0x2000");
    return 0;
}
