/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The scene of the USS import test (tests/integration/test_uss.cpp): a boot block program
 * that copies itself to $40000 (its link address), takes the machine over and shows a
 * picture: one bitplane of 16x8 checks at $50000 under a Copper list that changes the
 * colours in bands. Then it spins in uss_loop with known values in its registers,
 * counting in D7 and in `counter`, with every interrupt and every DMA but the Copper's and
 * the bitplanes' off. A state saved there by FS-UAE (tests/data/uss/make-state.sh) is
 * the moment the test loads: its registers, its memory and its next picture are known. */
    .section .text.start, "ax"
    .globl  _start
_start:
    lea     (_start,%pc),%a0        /* where the boot strap loaded the block */
    lea     _start,%a1              /* the link address */
    move.w  #((.Lend-_start)/2),%d0
.Lcopy:
    move.w  (%a0)+,(%a1)+
    dbf     %d0,.Lcopy
    move.l  #takeover,%a0           /* absolute: into the copy (a plain jmp would be */
    jmp     (%a0)                   /* made PC-relative by the assembler) */

takeover:
    lea     0xDFF000,%a5
    move.w  #0x7FFF,0x9A(%a5)       /* INTENA: all off */
    move.w  #0x7FFF,0x9C(%a5)       /* INTREQ: all clear */
    move.w  #0x7FFF,0x96(%a5)       /* DMACON: all off */
    /* The bitplane: 200 lines of 40 bytes, checks 16 pixels wide and 8 lines high. */
    lea     0x50000,%a0
    moveq   #0,%d3                  /* line */
.Lrow:
    move.l  #0xFFFF0000,%d4
    btst    #3,%d3
    beq.s   .Leven
    move.l  #0x0000FFFF,%d4
.Leven:
    moveq   #9,%d2
.Lword:
    move.l  %d4,(%a0)+
    dbf     %d2,.Lword
    addq.w  #1,%d3
    cmp.w   #200,%d3
    bne.s   .Lrow
    move.l  #copperlist,0x80(%a5)   /* COP1LC */
    move.w  %d0,0x88(%a5)           /* COPJMP1 */
    move.w  #0x8380,0x96(%a5)       /* DMACON: SET, DMAEN, BPLEN, COPEN */
    /* Known registers for the test to find. */
    move.l  #0x11111111,%d0
    move.l  #0x22222222,%d1
    move.l  #0x33333333,%d2
    move.l  #0x44444444,%d3
    move.l  #0x55555555,%d4
    move.l  #0x66666666,%d5
    move.l  #0x77777777,%d6
    moveq   #0,%d7
    lea     0xA0A0A0,%a0
    lea     0xA1A1A1,%a1
    lea     0xA2A2A2,%a2
    lea     0xA3A3A3,%a3
    lea     0xA4A4A4,%a4
    lea     counter,%a6

    .globl  uss_loop
    .type   uss_loop, @function
uss_loop:
.Lspin:
    addq.l  #1,%d7
    move.l  %d7,(%a6)
    bra.s   .Lspin
    .size   uss_loop, .-uss_loop

    .balign 4
    .globl  counter
counter:
    .long   0
copperlist:
    .word   0x00E0,0x0005, 0x00E2,0x0000    /* BPL1PT = $50000 */
    .word   0x0100,0x1200                   /* BPLCON0: one plane, colour */
    .word   0x0102,0x0000, 0x0104,0x0024
    .word   0x008E,0x2C81, 0x0090,0xF4C1    /* DIWSTRT, DIWSTOP: 320x200 */
    .word   0x0092,0x0038, 0x0094,0x00D0    /* DDFSTRT, DDFSTOP */
    .word   0x0108,0x0000, 0x010A,0x0000
    .word   0x0180,0x0006, 0x0182,0x0FF0
    .word   0x6001,0xFFFE, 0x0180,0x0A00
    .word   0x8001,0xFFFE, 0x0180,0x000A, 0x0182,0x00FF
    .word   0xA001,0xFFFE, 0x0180,0x0060, 0x0182,0x0F0F
    .word   0xFFFF,0xFFFE
.Lend:
