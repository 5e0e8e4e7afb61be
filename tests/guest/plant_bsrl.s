| SPDX-License-Identifier: GPL-3.0-or-later
| A 68000 program with one 68020-only instruction planted in it: BSR.L.
    .section .text.start,"ax"
    .globl  _start
_start:
    moveq   #1, %d0
    bsr.l   target
    stop    #0x2700
target:
    addq.l  #1, %d0
    rts
