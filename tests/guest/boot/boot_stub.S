/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot block of the trackmo test (tests/integration/test_symbols_run.cpp): what a demo's
 * boot block does, reduced. The boot strap enters it at offset 12 of the loaded boot block
 * (AmigaDOS manual, "The boot block"), wherever it loaded it; it takes the machine over
 * (interrupts and DMA off) and copies what follows it in the boot block, the part that
 * runs (boot_part.c, linked at PART_ADDRESS), to PART_ADDRESS and jumps there. The part's
 * code has no hunk file and no symbols of its own in memory: only its ELF names it. */
    .section .text.start, "ax"
    .globl  _start
_start:
    lea     0xDFF000,%a5
    move.w  #0x7FFF,0x9A(%a5)       /* INTENA: all off */
    move.w  #0x7FFF,0x9C(%a5)       /* INTREQ: none pending */
    move.w  #0x7FFF,0x96(%a5)       /* DMACON: all off */
    lea     (.Lpart,%pc),%a0
    lea     PART_ADDRESS,%a1
    /* Everything up to the boot block's end: 1024 bytes less the 12 of its header. */
    move.w  #((1012 - (.Lpart - _start)) / 4) - 1,%d0
.Lcopy:
    move.l  (%a0)+,(%a1)+
    dbra    %d0,.Lcopy
    jmp     PART_ADDRESS
    .balign 4
.Lpart:
