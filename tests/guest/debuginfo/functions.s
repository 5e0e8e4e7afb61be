| SPDX-License-Identifier: GPL-3.0-or-later
| Hand-written 68000 functions for the debug-info reader tests: typed and sized functions,
| a local label inside one, padding between two, and a label without a size.

    .text
    .globl  asm_add
    .type   asm_add, @function
asm_add:
    move.l  4(%sp),%d0
    add.l   8(%sp),%d0
    rts
    .size   asm_add, . - asm_add

    .globl  asm_count
    .type   asm_count, @function
asm_count:
    move.l  4(%sp),%d1
    moveq   #0,%d0
count_loop:
    addq.l  #1,%d0
    subq.l  #1,%d1
    bne.s   count_loop
    rts
    .size   asm_count, . - asm_count

    .balign 16, 0
    .type   asm_aligned, @function
asm_aligned:
    move.l  4(%sp),%d0
    lsl.l   #2,%d0
    rts
    .size   asm_aligned, . - asm_aligned

    .globl  asm_unsized
asm_unsized:
    moveq   #7,%d0
    rts

    .data
    .globl  asm_words
    .type   asm_words, @object
asm_words:
    .long   1, 2, 3, 4
    .size   asm_words, . - asm_words
