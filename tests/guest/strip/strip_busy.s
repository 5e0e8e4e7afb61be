| SPDX-License-Identifier: GPL-3.0-or-later
| A bare-metal main loop that waits for the vertical blank by reading INTREQR over and over
| instead of in STOP: each pass does the work of tests/guest/strip/strip_loop.s's passes (three
| calls of a short routine and a recursion three deep), then spins on the VERTB bit for the
| rest of the frame. For copperline-stripbench: a pass as long as a frame that never stops.
    .section .text.start,"ax"
    .globl  _start, pass, work, recurse
_start:
    lea     0x8000, %sp
    lea     0xDFF000, %a5
    move.w  #0x7FFF, 0x96(%a5)          | DMACON: everything off
    move.w  #0x7FFF, 0x9A(%a5)          | INTENA: everything off
    move.w  #0x7FFF, 0x9C(%a5)          | INTREQ: clear
loop:
    move.w  0x1E(%a5), %d0              | INTREQR
    btst    #5, %d0                     | VERTB
    beq.s   loop
    move.w  #0x0020, 0x9C(%a5)          | INTREQ: VERTB seen
pass:
    moveq   #2, %d2
1:  bsr.w   work
    dbra    %d2, 1b
    moveq   #3, %d0
    bsr.w   recurse
    bra.s   loop

work:
    moveq   #40, %d1
1:  dbra    %d1, 1b
    rts

recurse:
    moveq   #10, %d1
1:  dbra    %d1, 1b
    subq.w  #1, %d0
    beq.s   2f
    bsr.w   recurse
2:  rts
