/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The first instruction of the trackmo test's part (boot_part.c): a stack at the top of
 * the first 512 KB of chip RAM, then boot_main, which never returns. */
    .section .text.start, "ax"
    .globl  _start
_start:
    lea     0x7FFF0,%sp
    jsr     boot_main
.Lhang:
    bra.s   .Lhang
