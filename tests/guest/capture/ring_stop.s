| SPDX-License-Identifier: GPL-3.0-or-later
| For the flight recorder's test (tests/profiler/test_capture_ring.cpp), bare metal: a loop
| that waits for each vertical blank in STOP (the level 3 interrupt wakes it) and then
| works a fixed amount, eight times as much in every 16th frame. A frame's time less the
| CPU's STOP is that work: about 1,800 colour clocks in a light frame, 14,400 in a heavy one.
    .section .text.start,"ax"
    .globl  _start
_start:
    lea     0x8000, %sp
    lea     0xDFF000, %a5
    move.w  #0x7FFF, 0x96(%a5)          | DMACON: everything off
    move.w  #0x7FFF, 0x9A(%a5)          | INTENA: everything off
    move.w  #0x7FFF, 0x9C(%a5)          | INTREQ: clear
    lea     vblank(%pc), %a0
    move.l  %a0, 0x6C                   | the level 3 autovector
    move.w  #0xC020, 0x9A(%a5)          | INTENA: master and VERTB
    moveq   #0, %d7
loop:
    stop    #0x2000
    addq.l  #1, %d7
    move.l  #200, %d1
    move.l  %d7, %d0
    and.w   #15, %d0
    bne.s   1f
    move.l  #1600, %d1
1:  subq.l  #1, %d1
    bne.s   1b
    bra.s   loop
vblank:
    move.w  #0x0020, 0x9C(%a5)          | INTREQ: VERTB seen
    move.w  #0x0020, 0x9C(%a5)
    rte
