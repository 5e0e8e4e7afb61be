| SPDX-License-Identifier: GPL-3.0-or-later
| A bare-metal program that changes as much chip RAM as an A500's bus allows, every frame:
| the blitter copies a 64 KiB block of $10000-$7FFFF one block along with a one-bit shift
| (so noise stays noise), the CPU stirs 4 KiB of pseudo-random longwords into the next block,
| and the vertical-blank interrupt (level 3) wakes the CPU from STOP for each frame. The
| record's benchmark and its exactness tests run it: blits, interrupts and STOP in every frame.
| Counters: frames at $400 (long), blits at $404 (long). A blit takes about two frames,
| the bus being shared with the CPU.
    .section .text.start,"ax"
    .globl  _start
_start:
    lea     0x8000, %sp                 | the stack stays below the blocks the blits rewrite
    lea     0xDFF000, %a5
    move.w  #0x7FFF, 0x96(%a5)          | DMACON: everything off
    move.w  #0x7FFF, 0x9A(%a5)          | INTENA: everything off
    move.w  #0x7FFF, 0x9C(%a5)          | INTREQ: clear
    lea     vbl(%pc), %a0
    move.l  %a0, 0x6C.w                 | level 3 autovector
    clr.l   0x400.w
    clr.l   0x404.w
    move.w  #0xC020, 0x9A(%a5)          | INTENA: master + VERTB
    move.w  #0x8240, 0x96(%a5)          | DMACON: DMAEN + BLTEN
    move.l  #0x2545F491, %d7            | the noise generator's state
    moveq   #0, %d6                     | which block the blitter copies from (0-6)
    | Fill $10000-$7FFFF with noise first (about a second), so that what the blits copy
    | does not compress.
    lea     0x10000, %a0
fill:
    bsr.w   noise
    move.l  %d7, (%a0)+
    cmpa.l  #0x80000, %a0
    blo.s   fill
frame:
    stop    #0x2000                     | wait for the vertical blank
    | Wait for the previous blit (read DMACONR once first: BBUSY is set a clock late).
    move.w  0x02(%a5), %d0
busy:
    btst    #6, 0x02(%a5)
    bne.s   busy
    | Source block d6, destination the next one, in 64 KiB steps from $10000.
    move.l  %d6, %d0
    addq.l  #1, %d0
    swap    %d0
    clr.w   %d0                         | (d6 + 1) << 16
    move.l  %d0, %d1
    add.l   #0x10000, %d1               | destination = source + 64 KiB
    cmp.l   #0x80000, %d1
    blo.s   inrange
    move.l  #0x10000, %d1
inrange:
    move.w  #0x19F0, 0x40(%a5)          | BLTCON0: ASH 1, use A and D, D = A
    clr.w   0x42(%a5)                   | BLTCON1
    move.w  #0xFFFF, 0x44(%a5)          | BLTAFWM
    move.w  #0xFFFF, 0x46(%a5)          | BLTALWM
    clr.w   0x64(%a5)                   | BLTAMOD
    clr.w   0x66(%a5)                   | BLTDMOD
    move.l  %d0, 0x50(%a5)              | BLTAPT
    move.l  %d1, 0x54(%a5)              | BLTDPT
    move.w  #0x8000, 0x58(%a5)          | BLTSIZE: 512 lines of 64 words
    addq.l  #1, 0x404.w
    | The CPU stirs 4 KiB of noise into the destination block while the blitter runs.
    move.l  %d1, %a0
    add.l   #0x8000, %a0
    move.w  #1023, %d2
stir:
    bsr.w   noise
    eor.l   %d7, (%a0)+
    dbf     %d2, stir
    addq.l  #1, %d6
    cmp.l   #7, %d6
    blo.w   frame
    moveq   #0, %d6
    bra.w   frame

| The next pseudo-random longword in d7 (xorshift32: x ^= x << 13; x ^= x >> 17;
| x ^= x << 5). Uses d3.
noise:
    move.l  %d7, %d3
    lsl.l   #8, %d3
    lsl.l   #5, %d3
    eor.l   %d3, %d7
    move.l  %d7, %d3
    swap    %d3
    lsr.w   #1, %d3
    andi.l  #0x7FFF, %d3
    eor.l   %d3, %d7
    move.l  %d7, %d3
    lsl.l   #5, %d3
    eor.l   %d3, %d7
    rts

vbl:
    move.w  #0x0020, 0xDFF09C           | INTREQ: clear VERTB
    addq.l  #1, 0x400.w
    rte
