| SPDX-License-Identifier: GPL-3.0-or-later
| A bare-metal main loop for the profile strip's tests: each pass waits for the vertical
| blank in STOP, then calls `thrice` three times, `third` on every third pass, `recurse`
| (which calls itself three levels deep), and `jumper`, which leaves by a JMP into `tail`,
| whose RTS returns for both. The level 3 interrupt's handler calls `vblwork`. Everything
| runs in chip RAM with no DMA but refresh, so every routine takes the same time each call.
| The pass counter is at $400 (long). While the byte at $410 is nonzero each pass also calls
| `spanning`, which runs longer than a frame, so that the vertical blank lands inside it.
    .section .text.start,"ax"
    .globl  _start, pass, passend, thrice, third, recurse, jumper, tail, vbl, vblwork, spanning
_start:
    lea     0x8000, %sp
    lea     0xDFF000, %a5
    move.w  #0x7FFF, 0x96(%a5)          | DMACON: everything off
    move.w  #0x7FFF, 0x9A(%a5)          | INTENA: everything off
    move.w  #0x7FFF, 0x9C(%a5)          | INTREQ: clear
    lea     vbl(%pc), %a0
    move.l  %a0, 0x6C.w                 | level 3 autovector
    clr.l   0x400.w
    clr.b   0x410.w
    move.w  #0xC020, 0x9A(%a5)          | INTENA: master + VERTB
loop:
    stop    #0x2000                     | wait for the vertical blank
pass:
    addq.l  #1, 0x400.w
    moveq   #2, %d2
calls:
    bsr.w   thrice
    dbra    %d2, calls
    move.l  0x400.w, %d0
    divu    #3, %d0
    swap    %d0
    tst.w   %d0
    bne.s   skip
    bsr.w   third
skip:
    moveq   #3, %d0
    bsr.w   recurse
    bsr.w   jumper
    tst.b   0x410.w
    beq.s   passend
    bsr.w   spanning
passend:
    bra.s   loop

thrice:
    moveq   #40, %d1
1:  dbra    %d1, 1b
    rts

third:
    move.w  #200, %d1
1:  dbra    %d1, 1b
    rts

recurse:
    moveq   #10, %d1
1:  dbra    %d1, 1b
    subq.w  #1, %d0
    beq.s   2f
    bsr.w   recurse
2:  rts

jumper:
    moveq   #20, %d1
1:  dbra    %d1, 1b
    jmp     tail

tail:
    moveq   #30, %d1
1:  dbra    %d1, 1b
    rts

spanning:
    move.w  #16000, %d1                 | 16,001 DBRAs: about 80,000 colour clocks, over a frame
1:  dbra    %d1, 1b
    rts

vbl:
    move.l  %d1, -(%sp)                 | what it interrupted may be counting in D1
    move.w  #0x0020, 0xDFF09C           | INTREQ: VERTB served
    bsr.w   vblwork
    move.l  (%sp)+, %d1
    rte

vblwork:
    moveq   #15, %d1
1:  dbra    %d1, 1b
    rts
