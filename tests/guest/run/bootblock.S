/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A boot block program for the floppy tests: entered by the boot strap at offset 12 of
 * the loaded boot block with A6 = SysBase and A1 = the trackdisk IOStdReq it read the
 * boot block with (AmigaDOS manual, "The boot block").
 *
 * With WRITE_BLOCK it first writes the boot block's own first 512 bytes to block 1000
 * through trackdisk (CMD_WRITE, CMD_UPDATE, motor off). Then it turns all DMA and
 * interrupts off and sets the background colour: green when every request succeeded,
 * red when one failed. A screenshot shows which. */
    .section .text.start, "ax"
    .globl  _start
_start:
    moveq   #0,%d2
#ifdef WRITE_BLOCK
    movea.l %a1,%a2
    lea     (_start-12,%pc),%a0     /* the boot block as loaded */
    move.w  #3,28(%a2)              /* io_Command = CMD_WRITE */
    move.l  #512,36(%a2)            /* io_Length */
    move.l  %a0,40(%a2)             /* io_Data */
    move.l  #512*1000,44(%a2)       /* io_Offset: block 1000 */
    movea.l %a2,%a1
    jsr     -456(%a6)               /* DoIO: d0 = io_Error */
    move.l  %d0,%d2
    move.w  #4,28(%a2)              /* CMD_UPDATE: the track buffer to the disk */
    movea.l %a2,%a1
    jsr     -456(%a6)
    or.l    %d0,%d2
    move.w  #9,28(%a2)              /* TD_MOTOR, io_Length 0: off */
    clr.l   36(%a2)
    movea.l %a2,%a1
    jsr     -456(%a6)
#endif
    lea     0xDFF000,%a5
    move.w  #0x7FFF,0x9A(%a5)       /* INTENA: all off */
    move.w  #0x7FFF,0x96(%a5)       /* DMACON: all off, so the display is COLOR00 */
    move.w  #0x00F0,%d0             /* green */
    tst.l   %d2
    beq.s   .Lset
    move.w  #0x0F00,%d0             /* red */
.Lset:
    move.w  %d0,0x180(%a5)          /* COLOR00 */
.Lloop:
    bra.s   .Lloop
