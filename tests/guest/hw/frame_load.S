/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A known load for the per-frame accounting (emu/chipset/frame_stats.h), bare metal.
 *
 * Every frame, from line 100: one cookie-cut blit, A, B, C and D with minterm $CA
 * ("AB+!AC"), 20 words by 64 rows, started by the MOVE.W at blit_pc; while it runs, the
 * MOVEM.L at poll_pc reads 20 words of chip RAM 32 times, so the CPU waits for the bus the
 * blitter holds. Then, from line 280, a D-only clear of 40 words by 100 rows (8,000
 * colour clocks) that runs on past the end of the frame into the next.
 *
 * The words at $1004 and $1008 hold blit_pc and poll_pc for the test to read; the long
 * at $7F000 counts the loops. Bitplanes, sprites, Copper and interrupts are off, so
 * only refresh and the blitter take clocks from the CPU. */
    .section .text.start, "ax"
    .globl  _start
_start:
    bra.w   main
    .long   blit_pc
    .long   poll_pc
main:
    lea     0xDFF000,%a6
    move.w  #0x7FFF,0x9A(%a6)       /* INTENA: all off */
    move.w  #0x7FFF,0x96(%a6)       /* DMACON: all off */
    move.w  #0x8240,0x96(%a6)       /* DMACON: set DMAEN and BLTEN */
    clr.l   0x7F000
loop:
    moveq   #100,%d1
    bsr     wait_line
    bsr     wait_blitter
    move.l  #0x0FCA0000,0x40(%a6)   /* BLTCON0 = $0FCA (USEA-D, LF $CA), BLTCON1 = 0 */
    move.l  #0xFFFFFFFF,0x44(%a6)   /* BLTAFWM, BLTALWM */
    move.l  #0x20000,0x50(%a6)      /* BLTAPT */
    move.l  #0x24000,0x4C(%a6)      /* BLTBPT */
    move.l  #0x28000,0x48(%a6)      /* BLTCPT */
    move.l  #0x2C000,0x54(%a6)      /* BLTDPT */
    clr.l   0x60(%a6)               /* BLTCMOD, BLTBMOD */
    clr.l   0x64(%a6)               /* BLTAMOD, BLTDMOD */
    move.w  #(64 << 6) + 20,%d0
blit_pc:
    move.w  %d0,0x58(%a6)           /* BLTSIZE: 64 rows of 20 words */
    lea     0x30000,%a0
    moveq   #31,%d2
poll_pc:
    movem.l (%a0),%d3-%d7/%a1-%a5   /* 10 longs: 20 chip-RAM reads */
    dbra    %d2,poll_pc
    bsr     wait_blitter
    move.w  #280 - 256,%d1
    bsr     wait_line_high
    move.l  #0x01000000,0x40(%a6)   /* BLTCON0 = $0100 (USED, LF 0): a clear */
    move.l  #0x40000,0x54(%a6)      /* BLTDPT */
    clr.w   0x66(%a6)               /* BLTDMOD */
    move.w  #(100 << 6) + 40,0x58(%a6) /* BLTSIZE: 100 rows of 40 words */
    addq.l  #1,0x7F000
    bra     loop

/* Waits for line d1 (0-255) of the next frame's first 256 lines. */
wait_line:
    move.w  0x04(%a6),%d0           /* VPOSR: V8 in bit 0 */
    btst    #0,%d0
    bne.s   wait_line
    move.b  0x06(%a6),%d0           /* VHPOSR high byte: V7-V0 */
    cmp.b   %d1,%d0
    bne.s   wait_line
    rts

/* Waits for line 256 + d1. */
wait_line_high:
    move.w  0x04(%a6),%d0
    btst    #0,%d0
    beq.s   wait_line_high
    move.b  0x06(%a6),%d0
    cmp.b   %d1,%d0
    bne.s   wait_line_high
    rts

/* Waits until the blitter is idle; DMACONR is read once first (HRM: BBUSY is set a
 * clock late on the first Agnus). */
wait_blitter:
    btst    #6,0x02(%a6)
1:  btst    #6,0x02(%a6)
    bne.s   1b
    rts
