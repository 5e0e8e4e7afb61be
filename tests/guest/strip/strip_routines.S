/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The routines strip_aros calls, of fixed cost: busy loops of DBRA (strip_aros.c). */
    .text
    .globl  thrice, third, recurse, jumper, tail, vblserver, vblwork
    .type   thrice, @function
thrice:
    moveq   #40, %d1
1:  dbra    %d1, 1b
    rts

    .type   third, @function
third:
    move.w  #200, %d1
1:  dbra    %d1, 1b
    rts

/* void recurse(unsigned depth): calls itself until depth reaches 0. */
    .type   recurse, @function
recurse:
    move.l  4(%sp), %d0
    moveq   #10, %d1
1:  dbra    %d1, 1b
    subq.l  #1, %d0
    beq.s   2f
    move.l  %d0, -(%sp)
    bsr.w   recurse
    addq.l  #4, %sp
2:  rts

    .type   jumper, @function
jumper:
    moveq   #20, %d1
1:  dbra    %d1, 1b
    jmp     tail

    .type   tail, @function
tail:
    moveq   #30, %d1
1:  dbra    %d1, 1b
    rts

/* The vertical blank server: A1 is is_Data (the frame count). Returns Z set, so that the
 * servers after it run too. */
    .type   vblserver, @function
vblserver:
    addq.l  #1, (%a1)
    bsr.w   vblwork
    moveq   #0, %d0
    rts

    .type   vblwork, @function
vblwork:
    moveq   #15, %d1
1:  dbra    %d1, 1b
    rts

