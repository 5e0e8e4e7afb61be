// SPDX-License-Identifier: GPL-3.0-or-later
/* A known load for the capture tests (tests/profiler/test_frame_capture.cpp), bare metal:
 * a two-plane lores display fetched by bitplane DMA from a Copper list, one blit a frame
 * started from start_blit() with the blitter given priority (BLTPRI), so that the CPU's
 * next chip-bus access (in start_blit) waits for it; wait_blit() then polls chip RAM;
 * and the wait for the next frame marked idle through the guest interface. Every 40th
 * frame (counter % 40 == 39) is heavy: the CPU works through most of the frame before it
 * waits.
 *
 * What the program measured itself goes to the table at $7F000 (struct Report): for each
 * iteration, the beam at its idle start and at its idle stop. */
#include "../hw/hw.h"

#include <copperline/guest_api.h>

#define PLANE0 0x20000u
#define PLANE1 0x22000u
#define BLIT_SRC 0x30000u
#define BLIT_DST 0x34000u
#define COPLIST ((volatile u16*)0x10000)
#define BLIT_WORDS 16
#define BLIT_ROWS 64

struct Report {
    u32 frames;    /* iterations completed */
    u32 blits;     /* blits started */
    u32 from[400]; /* per iteration: the beam (colour clocks into the frame) at idle start */
    u32 to[400];   /* ... and at idle stop, in the next frame */
};
#define REPORT ((volatile struct Report*)0x7F000)

/* The beam as VPOSR << 16 | VHPOSR, in one longword read (two bus cycles, 2 colour clocks
 * apart), so that reading it inside the idle interval costs little: the uaelib calls
 * that mark the interval already cost the program their pushes, JSR and RTS. */
static inline u32 beam_raw(void) {
    return *(volatile u32*)0xDFF004;
}

/* A raw beam as one number of colour clocks from the frame's start. */
static u32 beam_cck(u32 raw) {
    return (((raw >> 16) & 1) << 8 | ((raw >> 8) & 0xFF)) * 227u + (raw & 0xFF);
}

__attribute__((noipa)) void start_blit(void) {
    setPointer(BLTAPTH, BLIT_SRC);
    setPointer(BLTDPTH, BLIT_DST);
    REG(BLTAMOD) = 0;
    REG(BLTDMOD) = 0;
    REG(BLTAFWM) = 0xFFFF;
    REG(BLTALWM) = 0xFFFF;
    REG(BLTCON0) = 0x09F0; /* A and D, minterm $F0: D = A */
    REG(BLTCON1) = 0;
    REG(BLTSIZE) = (u16)((BLIT_ROWS << 6) | BLIT_WORDS);
}

/* Polls chip RAM until the blitter is done: with BLTPRI set, every read waits. */
__attribute__((noipa)) u32 wait_blit(void) {
    volatile u16* p = (volatile u16*)0x40000;
    u32 sum = 0;
    (void)REG(DMACONR);
    while (REG(DMACONR) & 0x4000)
        sum += p[0];
    return sum;
}

__attribute__((noipa)) u32 heavy_work(unsigned n) {
    u32 x = 1;
    for (unsigned i = 0; i < n; ++i)
        x = x * 3 + i;
    return x;
}

static void copperList(void) {
    volatile u16* c = COPLIST;
    *c++ = BPL1PTH;
    *c++ = (u16)(PLANE0 >> 16);
    *c++ = BPL1PTH + 2;
    *c++ = (u16)PLANE0;
    *c++ = BPL1PTH + 4;
    *c++ = (u16)(PLANE1 >> 16);
    *c++ = BPL1PTH + 6;
    *c++ = (u16)PLANE1;
    *c++ = COLOR00;
    *c++ = 0x0000;
    *c++ = COLOR00 + 2;
    *c++ = 0x0F00;
    *c++ = 0x8001;
    *c++ = 0xFFFE; /* wait for line $80 */
    *c++ = COLOR00;
    *c++ = 0x0008;
    *c++ = 0xFFFF;
    *c++ = 0xFFFE; /* end */
}

volatile u32 sink;

int guest_main(void) {
    REG(DMACON) = 0x7FFF;
    REG(INTENA) = 0x7FFF;
    for (u32 i = 0; i < 0x2000; i += 2) {
        *(volatile u16*)(PLANE0 + i) = (u16)(0xAAAA ^ i);
        *(volatile u16*)(PLANE1 + i) = (u16)(0x0F0F + i);
    }
    for (u32 i = 0; i < BLIT_WORDS * BLIT_ROWS * 2; i += 2)
        *(volatile u16*)(BLIT_SRC + i) = (u16)(i * 7);
    copperList();
    REG(DIWSTRT) = 0x2C81;
    REG(DIWSTOP) = 0xF4C1;
    REG(DDFSTRT) = 0x0038;
    REG(DDFSTOP) = 0x00D0;
    REG(BPLCON0) = 0x2200; /* two planes, colour */
    REG(BPL1MOD) = 0;
    REG(BPL2MOD) = 0;
    setPointer(COP1LCH, (u32)COPLIST);
    REG(COPJMP1) = 0;
    /* DMA: master, bitplanes, Copper, blitter, and blitter priority. */
    REG(DMACON) = (u16)(0x8000 | 0x0200 | 0x0100 | 0x0080 | 0x0040 | 0x0400);
    REPORT->frames = 0;
    REPORT->blits = 0;
    REG(INTREQ) = 0x7FFF; /* the first wait is for the next vertical blank, not an old one */
    for (u32 frame = 0;; ++frame) {
        /* Work for this frame: a line or two of setup, the blit, and on heavy frames most
         * of the frame's time. */
        start_blit();
        REPORT->blits = REPORT->blits + 1;
        sink = wait_blit();
        if (frame % 40 == 39) sink = heavy_work(1200);
        /* Wait for the vertical blank (line 0), idle. */
        cl_idle_start();
        const u32 from = beam_raw();
        while ((REG(INTREQR) & 0x0020) == 0) {
        }
        const u32 to = beam_raw();
        cl_idle_stop();
        REG(INTREQ) = 0x0020;
        if (frame < 400) {
            REPORT->from[frame] = beam_cck(from);
            REPORT->to[frame] = beam_cck(to);
        }
        REPORT->frames = frame + 1;
    }
    return 0;
}
