| SPDX-License-Identifier: GPL-3.0-or-later
| A bare-metal program that writes chip RAM on every few colour clocks of every line: the CPU
| stores a counter, one more each time, in longwords from $20000 up to $60000 and round
| again, while the blitter clears a block at $70000 over and over. For test_frame_capture's
| NTSC capture, whose memory replay must place every write on its clock.
    .section .text.start,"ax"
    .globl  _start
_start:
    lea     0x8000, %sp
    lea     0xDFF000, %a5
    move.w  #0x7FFF, 0x96(%a5)          | DMACON: everything off
    move.w  #0x7FFF, 0x9A(%a5)          | INTENA: everything off
    move.w  #0x8240, 0x96(%a5)          | DMACON: master + blitter
    moveq   #0, %d0
1:  lea     0x20000, %a0
2:  btst    #6, 0x02(%a5)               | DMACONR BBUSY
    bne.s   3f
    move.l  #0x01000000, 0x40(%a5)      | BLTCON0/1: D only, minterm 0
    move.l  #0x70000, 0x54(%a5)         | BLTDPT
    move.w  #0, 0x66(%a5)               | BLTDMOD
    move.w  #2064, 0x58(%a5)            | BLTSIZE: 32 rows of 16 words
3:  addq.l  #1, %d0
    move.l  %d0, (%a0)+
    cmpa.l  #0x60000, %a0
    bne.s   2b
    bra.s   1b
