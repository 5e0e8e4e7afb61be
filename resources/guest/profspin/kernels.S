/* SPDX-License-Identifier: GPL-3.0-or-later */
/* profspin's kernels: four loops whose every instruction is four or six bytes long, so a
 * sample whose PC is read even two bytes off lands inside an instruction, never on one.
 * Each takes its iteration count on the stack and runs that many passes; the labels
 * profspin_X_start and profspin_X_end bound its bytes exactly.
 *
 *   a: additions of immediates (six-byte instructions)
 *   b: multiplications (MULU #imm, four bytes, about 40 cycles each)
 *   c: loads from memory (MOVE.L d16(A0), four bytes; chip bus accesses)
 *   d: divisions (DIVU #imm, four bytes, about 140 cycles each)
 */
    .text

    .globl  profspin_a
    .globl  profspin_a_start
    .globl  profspin_a_end
profspin_a:
    move.l  4(%sp),%d0
profspin_a_start:
.La:
    add.l   #0x12345,%d1
    add.l   #0x54321,%d1
    addi.l  #0x1111,%d1
    subi.l  #1,%d0
    bne.w   .La
profspin_a_end:
    rts

    .globl  profspin_b
    .globl  profspin_b_start
    .globl  profspin_b_end
profspin_b:
    move.l  4(%sp),%d0
    move.l  %d2,-(%sp)
profspin_b_start:
.Lb:
    mulu.w  #0x1234,%d2
    mulu.w  #0x00F1,%d2
    subi.l  #1,%d0
    bne.w   .Lb
profspin_b_end:
    move.l  (%sp)+,%d2
    rts

    .globl  profspin_c
    .globl  profspin_c_start
    .globl  profspin_c_end
profspin_c:
    move.l  4(%sp),%d0
    lea     profspin_data,%a0
profspin_c_start:
.Lc:
    move.l  4(%a0),%d1
    move.l  8(%a0),%d1
    move.l  12(%a0),%d1
    subi.l  #1,%d0
    bne.w   .Lc
profspin_c_end:
    rts

    .globl  profspin_d
    .globl  profspin_d_start
    .globl  profspin_d_end
profspin_d:
    move.l  4(%sp),%d0
    move.l  %d2,-(%sp)
profspin_d_start:
.Ld:
    move.l  #0x7FFF1234,%d2
    divu.w  #0x7F13,%d2
    subi.l  #1,%d0
    bne.w   .Ld
profspin_d_end:
    move.l  (%sp)+,%d2
    rts

    .data
    .balign 4
profspin_data:
    .long   1, 2, 3, 4, 5
