/* SPDX-License-Identifier: GPL-3.0-or-later */
/* 32-bit multiply and divide for the MC68000.
 *
 * gcc -m68000 calls these for int and long arithmetic the 68000 has no instruction for.
 * Arguments are on the stack (4(sp) first), the result is in d0; d0-d1/a0-a1 are scratch
 * in the m68k System V calling convention, everything else is preserved.
 */
    .text

/* __mulsi3(a, b): the low 32 bits of a * b, from three 16x16 MULUs. */
    .globl  __mulsi3
    .type   __mulsi3, @function
__mulsi3:
    move.w  4(%sp), %d0          /* high word of a */
    mulu.w  10(%sp), %d0         /* a.hi * b.lo */
    move.w  8(%sp), %d1          /* high word of b */
    mulu.w  6(%sp), %d1          /* b.hi * a.lo */
    add.w   %d1, %d0             /* only the low 16 bits of the cross terms survive */
    swap    %d0
    clr.w   %d0
    move.w  6(%sp), %d1
    mulu.w  10(%sp), %d1         /* a.lo * b.lo */
    add.l   %d1, %d0
    rts
    .size   __mulsi3, . - __mulsi3

/* udivmod: d0 = N / D, d1 = N % D, unsigned. Preserves d2 (kept in a1 meanwhile).
 * A divisor below 65536 takes two DIVU steps: the high word first, then the remainder
 * joined to the low word, whose quotient then fits in 16 bits. A larger divisor has a
 * quotient below 65536 but DIVU cannot take it, so it goes bit by bit. Division by zero
 * traps through DIVU in the first path. */
    .type   udivmod, @function
udivmod:
    move.l  %d2, %a1
    cmp.l   #0xffff, %d1
    bhi.s   2f
    move.l  %d0, %d2
    clr.w   %d2
    swap    %d2                  /* d2 = high word of N */
    divu.w  %d1, %d2             /* d2 = rem:quot of the high word */
    swap    %d0
    move.w  %d2, %d0
    swap    %d0                  /* d0 = high quotient : low word of N */
    move.w  %d0, %d2             /* d2 = rem : low word of N */
    divu.w  %d1, %d2             /* d2 = final rem : low quotient */
    move.w  %d2, %d0
    clr.w   %d2
    swap    %d2
    move.l  %d2, %d1
    move.l  %a1, %d2
    rts
2:  move.l  %d1, %a0             /* a0 = D */
    moveq   #0, %d1              /* running remainder */
    moveq   #31, %d2
3:  add.l   %d0, %d0             /* next dividend bit into X, a quotient bit slot at 0 */
    addx.l  %d1, %d1
    bcs.s   4f                   /* the remainder passed 32 bits: it exceeds D */
    cmp.l   %a0, %d1
    bcs.s   5f
4:  sub.l   %a0, %d1
    addq.l  #1, %d0
5:  dbra    %d2, 3b
    move.l  %a1, %d2
    rts
    .size   udivmod, . - udivmod

    .globl  __udivsi3
    .type   __udivsi3, @function
__udivsi3:
    move.l  4(%sp), %d0
    move.l  8(%sp), %d1
    bra.w   udivmod
    .size   __udivsi3, . - __udivsi3

    .globl  __umodsi3
    .type   __umodsi3, @function
__umodsi3:
    move.l  4(%sp), %d0
    move.l  8(%sp), %d1
    bsr.w   udivmod
    move.l  %d1, %d0
    rts
    .size   __umodsi3, . - __umodsi3

/* __divsi3(a, b): truncating signed division; the quotient is negative when the signs
 * differ. d2 holds the sign while udivmod runs. */
    .globl  __divsi3
    .type   __divsi3, @function
__divsi3:
    move.l  %d2, -(%sp)
    moveq   #0, %d2
    move.l  8(%sp), %d0
    bpl.s   1f
    neg.l   %d0
    not.l   %d2
1:  move.l  12(%sp), %d1
    bpl.s   2f
    neg.l   %d1
    not.l   %d2
2:  bsr.w   udivmod
    tst.l   %d2
    beq.s   3f
    neg.l   %d0
3:  move.l  (%sp)+, %d2
    rts
    .size   __divsi3, . - __divsi3

/* __modsi3(a, b): the remainder takes the sign of the dividend. */
    .globl  __modsi3
    .type   __modsi3, @function
__modsi3:
    move.l  %d2, -(%sp)
    moveq   #0, %d2
    move.l  8(%sp), %d0
    bpl.s   1f
    neg.l   %d0
    not.l   %d2
1:  move.l  12(%sp), %d1
    bpl.s   2f
    neg.l   %d1
2:  bsr.w   udivmod
    move.l  %d1, %d0
    tst.l   %d2
    beq.s   3f
    neg.l   %d0
3:  move.l  (%sp)+, %d2
    rts
    .size   __modsi3, . - __modsi3
