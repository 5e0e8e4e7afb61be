/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The entry of an AmigaOS program built with Copperline's toolchain.
 *
 * The shell calls the first hunk's first instruction with A0 = the argument line and
 * D0 = its length, and takes the return code from D0 (AmigaDOS manual, "Calling
 * conventions"). SysBase lives at address 4. We keep the registers the caller may expect
 * preserved, open dos.library (any version) and call main().
 */
    .section .text.start, "ax"
    .globl  _start
    .type   _start, @function
_start:
    movem.l %d2-%d7/%a2-%a6,-(%sp)
    move.l  %a0,__commandline
    move.l  %d0,__commandlen
    movea.l 4.w,%a6
    move.l  %a6,SysBase
    lea     dosname,%a1
    moveq   #0,%d0
    jsr     -552(%a6)           /* OpenLibrary(a1 name, d0 version) */
    move.l  %d0,DOSBase
    beq.s   .Lnodos
    jsr     main
    move.l  %d0,%d2
    movea.l SysBase,%a6
    movea.l DOSBase,%a1
    jsr     -414(%a6)           /* CloseLibrary(a1) */
    move.l  %d2,%d0
    bra.s   .Lout
.Lnodos:
    moveq   #20,%d0             /* RETURN_FAIL */
.Lout:
    movem.l (%sp)+,%d2-%d7/%a2-%a6
    rts
    .size   _start, . - _start

    .section .rodata
dosname:
    .asciz  "dos.library"

    .section .bss
    .align  2
    .globl  SysBase, DOSBase, __commandline, __commandlen
SysBase:        .skip 4
DOSBase:        .skip 4
__commandline:  .skip 4
__commandlen:   .skip 4
