| SPDX-License-Identifier: GPL-3.0-or-later
| A bare-metal program that loads an A500 the way a demo does, every frame, for
| copperline-bootbench (tests/bench/machine/boot_bench.cpp):
|   - a 5-bitplane lores display, 320x256 (DIW $2C81-$2CC1, DDF $38-$D0), fetched by
|     bitplane DMA from $10000;
|   - a Copper list that sets the bitplane and sprite pointers at the top of each frame and
|     then, on each of the 256 display lines, waits for the line and changes COLOR00-03;
|   - sprites 0-3 with 64 lines of data each (4-7 point at an empty sprite);
|   - the blitter busy all frame, BLTPRI off: an A->D copy of 51,200 bytes into the
|     bitplanes and a D-only clear of 64 KiB, back to back, each started as soon as the one
|     before is done (DMACONR bit 14);
|   - the CPU, between the blit starts, reading, summing and writing back 512 longwords of
|     a 64 KiB buffer, then polling DMACONR until the blitter is free;
|   - the vertical-blank interrupt (level 3) counting frames.
| Everything lies in chip RAM below $80000. Counters (longs): frames at $400, blits started
| at $404, CPU work chunks done at $408. The long at $1004 holds the address of the main
| loop, where one copy and one clear begin.

    .equ    FRAMES, 0x400
    .equ    BLITS, 0x404
    .equ    CHUNKS, 0x408
    .equ    COPLIST, 0x3000             | about 5.3 KiB
    .equ    SPRITES, 0x5000             | 4 sprites of SPR_BYTES
    .equ    SPR_LINES, 64
    .equ    SPR_BYTES, 4 + SPR_LINES * 4 + 4
    .equ    NULLSPR, 0x5800             | an empty sprite: its POS and CTL words zero
    .equ    STACK, 0x8000
    .equ    PLANES, 0x10000             | 5 planes of 40 bytes by 256 lines, one after another
    .equ    PLANE_BYTES, 40 * 256
    .equ    SOURCE, 0x20000             | what the copy reads: 5 planes' worth of noise
    .equ    CLEARED, 0x30000            | the 64 KiB the clear writes
    .equ    WORK, 0x40000               | the CPU's 64 KiB

    .section .text.start,"ax"
    .globl  _start
_start:
    bra.w   main
    .long   loop

main:
    lea     STACK, %sp
    lea     0xDFF000, %a6
    move.w  #0x7FFF, 0x9A(%a6)          | INTENA: everything off
    move.w  #0x7FFF, 0x96(%a6)          | DMACON: everything off
    move.w  #0x7FFF, 0x9C(%a6)          | INTREQ: clear
    clr.l   FRAMES.w
    clr.l   BLITS.w
    clr.l   CHUNKS.w

    | The copy's source: noise, so that the display shows something that moves nowhere.
    lea     SOURCE, %a0
    move.l  #0x2545F491, %d7
    move.w  #5 * PLANE_BYTES / 4 - 1, %d2
fill:
    move.l  %d7, (%a0)+
    rol.l   #5, %d7
    add.l   #0x9E3779B9, %d7
    dbf     %d2, fill

    | COLOR04-COLOR31 once (the sprites' colours among them); the Copper sets 00-03.
    lea     0x188(%a6), %a0
    move.w  #0x0123, %d0
    moveq   #27, %d2
palette:
    move.w  %d0, (%a0)+
    add.w   #0x0137, %d0
    and.w   #0x0FFF, %d0
    dbf     %d2, palette

    | Sprites 0-3: sprite n from line $60 + 16n for SPR_LINES lines, at lores pixel $80 + 32n.
    lea     SPRITES, %a0
    moveq   #0, %d4
sprite:
    move.w  %d4, %d0
    lsl.w   #4, %d0
    add.w   #0x60, %d0                  | VSTART
    move.w  %d0, %d1
    lsl.w   #8, %d1
    move.w  %d4, %d3
    lsl.w   #4, %d3
    add.w   #0x40, %d3                  | HSTART >> 1
    or.w    %d3, %d1
    move.w  %d1, (%a0)+                 | SPRxPOS
    add.w   #SPR_LINES, %d0             | VSTOP
    lsl.w   #8, %d0
    move.w  %d0, (%a0)+                 | SPRxCTL
    move.w  #SPR_LINES - 1, %d2
sprite_line:
    move.w  %d2, %d0
    mulu.w  #0x0F0F, %d0
    move.w  %d0, (%a0)+                 | SPRxDATA
    not.w   %d0
    move.w  %d0, (%a0)+                 | SPRxDATB
    dbf     %d2, sprite_line
    clr.l   (%a0)+                      | the end: POS and CTL zero
    addq.w  #1, %d4
    cmp.w   #4, %d4
    blo.s   sprite
    clr.l   NULLSPR

    | The Copper list.
    lea     COPLIST, %a0
    move.l  #PLANES, %d0                | BPL1PT-BPL5PT
    move.w  #0x00E0, %d1
    moveq   #4, %d2
cop_planes:
    bsr.w   cop_pointer
    add.l   #PLANE_BYTES, %d0
    dbf     %d2, cop_planes
    move.w  #0x0120, %d1                | SPR0PT-SPR7PT
    moveq   #0, %d4
cop_sprites:
    move.l  #NULLSPR, %d0
    cmp.w   #4, %d4
    bhs.s   1f
    move.w  %d4, %d0
    mulu.w  #SPR_BYTES, %d0
    add.l   #SPRITES, %d0
1:  bsr.w   cop_pointer
    addq.w  #1, %d4
    cmp.w   #8, %d4
    blo.s   cop_sprites
    move.w  #0x2C, %d3                  | each display line, $2C-$12B
cop_line:
    cmp.w   #0x100, %d3
    bne.s   1f
    move.l  #0xFFDFFFFE, (%a0)+         | past line 255: the waits compare V7-V0 from here
1:  move.w  %d3, %d0
    lsl.w   #8, %d0
    or.w    #0x0007, %d0
    move.w  %d0, (%a0)+                 | WAIT for the line, H $06
    move.w  #0xFFFE, (%a0)+
    move.w  #0x0180, (%a0)+             | COLOR00: a blue ramp
    move.w  %d3, %d0
    lsr.w   #4, %d0
    and.w   #0x000F, %d0
    move.w  %d0, (%a0)+
    move.w  #0x0182, (%a0)+             | COLOR01: green stripes
    move.w  %d3, %d0
    and.w   #0x000F, %d0
    lsl.w   #4, %d0
    move.w  %d0, (%a0)+
    move.w  #0x0184, (%a0)+             | COLOR02: red stripes
    move.w  %d3, %d0
    lsl.w   #8, %d0
    and.w   #0x0F00, %d0
    move.w  %d0, (%a0)+
    move.w  #0x0186, (%a0)+             | COLOR03: grey
    move.w  %d3, %d0
    mulu.w  #0x0111, %d0
    and.w   #0x0FFF, %d0
    move.w  %d0, (%a0)+
    addq.w  #1, %d3
    cmp.w   #0x12C, %d3
    blo.s   cop_line
    move.l  #0xFFFFFFFE, (%a0)+         | the end

    | The display.
    move.w  #0x5200, 0x100(%a6)         | BPLCON0: 5 planes, colour
    clr.w   0x102(%a6)                  | BPLCON1
    move.w  #0x0024, 0x104(%a6)         | BPLCON2: sprites in front of the playfield
    clr.w   0x108(%a6)                  | BPL1MOD
    clr.w   0x10A(%a6)                  | BPL2MOD
    move.w  #0x2C81, 0x8E(%a6)          | DIWSTRT
    move.w  #0x2CC1, 0x90(%a6)          | DIWSTOP
    move.w  #0x0038, 0x92(%a6)          | DDFSTRT
    move.w  #0x00D0, 0x94(%a6)          | DDFSTOP
    move.l  #COPLIST, 0x80(%a6)         | COP1LC
    move.w  %d0, 0x88(%a6)              | COPJMP1

    lea     vbl(%pc), %a0
    move.l  %a0, 0x6C.w                 | level 3 autovector
    move.w  #0x83E0, 0x96(%a6)          | DMACON: SET, DMAEN, BPLEN, COPEN, BLTEN, SPREN
    move.w  #0xC020, 0x9A(%a6)          | INTENA: INTEN + VERTB
    move.w  #0x2000, %sr                | interrupts in

    lea     WORK, %a2
    moveq   #0, %d5
loop:
    | The copy: A -> D, the noise into the bitplanes, 400 rows of 64 words.
    bsr.w   wait_blitter
    move.l  #0x09F00000, 0x40(%a6)      | BLTCON0 $09F0 (USEA, USED, D = A), BLTCON1 0
    move.l  #0xFFFFFFFF, 0x44(%a6)      | BLTAFWM, BLTALWM
    clr.l   0x64(%a6)                   | BLTAMOD, BLTDMOD
    move.l  #SOURCE, 0x50(%a6)          | BLTAPT
    move.l  #PLANES, 0x54(%a6)          | BLTDPT
    move.w  #400 << 6, 0x58(%a6)        | BLTSIZE
    addq.l  #1, BLITS.w
    bsr.w   work
    | The clear: D only, 64 KiB, 512 rows of 64 words.
    bsr.w   wait_blitter
    move.l  #0x01000000, 0x40(%a6)      | BLTCON0 $0100 (USED, D = 0), BLTCON1 0
    clr.w   0x66(%a6)                   | BLTDMOD
    move.l  #CLEARED, 0x54(%a6)         | BLTDPT
    move.w  #0x8000, 0x58(%a6)          | BLTSIZE: 512 rows (the field's 0 is 64 words)
    addq.l  #1, BLITS.w
    bsr.w   work
    bra.s   loop

| Writes the Copper MOVEs that load the pointer register pair at D1 (high word first) with
| D0, at A0; D1 steps past the pair.
cop_pointer:
    swap    %d0
    move.w  %d1, (%a0)+
    move.w  %d0, (%a0)+
    addq.w  #2, %d1
    swap    %d0
    move.w  %d1, (%a0)+
    move.w  %d0, (%a0)+
    addq.w  #2, %d1
    rts

| The CPU's work while a blit runs: 512 longwords of WORK read, summed and written back
| (a2 walks the buffer and wraps at its end; d5 holds the sum).
work:
    move.w  #511, %d2
1:  move.l  (%a2), %d1
    add.l   %d1, %d5
    move.l  %d5, (%a2)+
    dbf     %d2, 1b
    cmpa.l  #WORK + 0x10000, %a2
    blo.s   2f
    lea     WORK, %a2
2:  addq.l  #1, CHUNKS.w
    rts

| Waits until the blitter is idle; DMACONR is read once first (HRM: BBUSY is set a clock
| late on the first Agnus).
wait_blitter:
    btst    #6, 0x02(%a6)
1:  btst    #6, 0x02(%a6)
    bne.s   1b
    rts

vbl:
    move.w  #0x0020, 0xDFF09C           | INTREQ: clear VERTB
    addq.l  #1, FRAMES.w
    rte
