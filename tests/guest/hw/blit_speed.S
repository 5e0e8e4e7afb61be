/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Timed cookie-cut blits, after alpine9000's amiga_examples 010.blit_speed: five blits of
 * 64x64 pixels in one bitplane (4 words by 64 rows), A, B, C and D on, minterm $CA
 * ("AB+!AC": A selects B over C, D = C's area), the CPU waiting for each by polling
 * DMACONR BBUSY, then a COLOR00 write that marks the end.
 *
 * BLTPRI is set, so the CPU gets no clock the blitter wants: the CPU's place in its
 * instructions when a blit ends does not depend on the beam, and the distance from the
 * first BLTSIZE write to the COLOR00 write follows from the blitter's rule and the
 * 68000's bus cycles alone (test_hardware, blitSpeedEndsWhereTheRuleSays). Only DMAEN and
 * BLTEN are on besides: bitplanes, sprites, Copper, disk, audio and interrupts are off, so
 * only refresh takes clocks from the blitter and the CPU.
 *
 * The pointers are set once: each blit carries on where the last one ended (modulos 0).
 * The instructions in the loop are the ones the test's count names; change them together. */
    .section .text.start, "ax"
    .globl  _start
_start:
    lea     0xDFF000,%a6
    move.w  #0x7FFF,0x9A(%a6)       /* INTENA: all off */
    move.w  #0x7FFF,0x96(%a6)       /* DMACON: all off */
    move.w  #0x8640,0x96(%a6)       /* DMACON: set DMAEN, BLTEN and BLTPRI */
    move.l  #0x0FCA0000,0x40(%a6)   /* BLTCON0 = $0FCA (USEA-D, LF $CA), BLTCON1 = 0 */
    move.l  #0xFFFFFFFF,0x44(%a6)   /* BLTAFWM, BLTALWM */
    clr.l   0x60(%a6)               /* BLTCMOD, BLTBMOD */
    clr.l   0x64(%a6)               /* BLTAMOD, BLTDMOD */
    move.l  #0x20000,0x50(%a6)      /* BLTAPT: the mask */
    move.l  #0x22000,0x4C(%a6)      /* BLTBPT: the object */
    move.l  #0x24000,0x48(%a6)      /* BLTCPT: the background */
    move.l  #0x24000,0x54(%a6)      /* BLTDPT: the same background */
    move.w  #(64 << 6) + 4,%d0      /* BLTSIZE: 64 rows of 4 words */
    move.w  #0x0F00,%d1             /* the end's colour */
    moveq   #4,%d7                  /* five blits */
blit:
    move.w  %d0,0x58(%a6)           /* BLTSIZE: starts the blit */
wait:
    btst    #6,0x02(%a6)            /* DMACONR BBUSY */
    bne.s   wait
    dbra    %d7,blit
    move.w  %d1,0x180(%a6)          /* COLOR00: the end */
    stop    #0x2700
    bra.s   .
