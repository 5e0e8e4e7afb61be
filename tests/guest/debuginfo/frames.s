| SPDX-License-Identifier: GPL-3.0-or-later
| Hand-written 68000 functions with call-frame information for the unwind-table tests: an
| A5 frame pointer (link/unlk, as the Amiga compilers make it), an A6 frame pointer (what gcc
| for m68k Linux makes), a frame too large for the table's 12-bit CFA offset, and a return
| address that moves into a register. Only the first kind fits the table; the others must
| come out as default rows, counted.

    .cfi_sections .debug_frame
    .text

    .globl  guest_main
    .type   guest_main, @function
guest_main:
    .cfi_startproc
    link.w  %a5,#-8
    .cfi_def_cfa %a5,8
    .cfi_offset %a5,-8
    jsr     frame_a6
    move.l  %d0,-4(%a5)
    jsr     big_frame
    add.l   -4(%a5),%d0
    jsr     lost_return
    unlk    %a5
    .cfi_def_cfa %sp,4
    .cfi_restore %a5
    rts
    .cfi_endproc
    .size   guest_main, . - guest_main

    .globl  frame_a6
    .type   frame_a6, @function
frame_a6:
    .cfi_startproc
    link.w  %a6,#-4
    .cfi_def_cfa %a6,8
    .cfi_offset %a6,-8
    moveq   #2,%d0
    unlk    %a6
    .cfi_def_cfa %sp,4
    .cfi_restore %a6
    rts
    .cfi_endproc
    .size   frame_a6, . - frame_a6

    .globl  big_frame
    .type   big_frame, @function
big_frame:
    .cfi_startproc
    lea     -5000(%sp),%sp
    .cfi_adjust_cfa_offset 5000
    moveq   #3,%d0
    move.l  %d0,(%sp)
    lea     5000(%sp),%sp
    .cfi_adjust_cfa_offset -5000
    rts
    .cfi_endproc
    .size   big_frame, . - big_frame

    .globl  lost_return
    .type   lost_return, @function
lost_return:
    .cfi_startproc
    move.l  (%sp)+,%a0
    .cfi_def_cfa_offset 0
    .cfi_register 24, %a0
    moveq   #4,%d0
    jmp     (%a0)
    .cfi_endproc
    .size   lost_return, . - lost_return
