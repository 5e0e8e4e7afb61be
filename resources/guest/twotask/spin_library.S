/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spin.library: an ordinary AmigaOS shared library that twotask loads from its disk
 * (LoadSeg, InitResident on the RomTag below, OpenLibrary). Besides the four standard
 * vectors it has two busy loops, one for each of twotask's two tasks:
 *
 *   SpinA(passes)  D0   LVO -30   an addition and an exclusive or a pass, 42 cycles
 *   SpinB(passes)  D0   LVO -36   a rotation and a complement a pass, 36 cycles
 *
 * Every function takes A6 = the library base, as each library call does, and keeps all
 * registers but D0/D1/A0/A1. The labels spin_X_start and spin_X_end bound each loop's
 * bytes. Structure offsets: exec/libraries.h and exec/resident.h of the ROM Kernel
 * Manual's includes. */

#define NT_LIBRARY      9
#define LN_TYPE         8
#define LN_NAME         10
#define LIB_FLAGS       14
#define LIB_VERSION     20
#define LIB_REVISION    22
#define LIB_IDSTRING    24
#define LIB_OPENCNT     32
#define LIB_SIZE        34
#define SPIN_SEGLIST    LIB_SIZE        /* our own field: the segment list we came in */
#define SPIN_SIZE       (LIB_SIZE + 4)
#define LIBF_CHANGED    2
#define LIBF_SUMUSED    4
#define LIBB_DELEXP     3
#define VERSION         1
#define REVISION        0

#define LVO_MAKELIBRARY -84
#define LVO_ADDLIBRARY  -396

    .section .text.start, "ax"

/* Run as a program, the library does nothing and fails. */
    .globl  _start
    .type   _start, @function
_start:
    moveq   #-1,%d0
    rts
    .size   _start, . - _start

/* The RomTag, in the first hunk where InitResident's callers look for it. rt_Flags has no
 * RTF_AUTOINIT: rt_Init is code. */
    .globl  spin_romtag
spin_romtag:
    .word   0x4AFC                      /* rt_MatchWord: RTC_MATCHWORD */
    .long   spin_romtag                 /* rt_MatchTag: the RomTag itself */
    .long   spin_end                    /* rt_EndSkip */
    .byte   0                           /* rt_Flags */
    .byte   VERSION                     /* rt_Version */
    .byte   NT_LIBRARY                  /* rt_Type */
    .byte   0                           /* rt_Pri */
    .long   spin_name                   /* rt_Name */
    .long   spin_id                     /* rt_IdString */
    .long   spin_init                   /* rt_Init */

/* rt_Init, from InitResident: D0 = 0, A0 = the segment list, A6 = SysBase. Builds the
 * library base and adds it to exec's list; returns it in D0 (0 when there is no memory). */
    .type   spin_init, @function
spin_init:
    movem.l %d2/%a2,-(%sp)
    move.l  %a0,%d2
    lea     spin_vectors,%a0            /* absolute longwords, ended by -1 */
    suba.l  %a1,%a1                     /* no InitStruct table */
    suba.l  %a2,%a2                     /* no init routine */
    moveq   #SPIN_SIZE,%d0
    move.l  %d2,%d1
    jsr     LVO_MAKELIBRARY(%a6)        /* MakeLibrary(a0, a1, a2, d0 size, d1 segList) */
    tst.l   %d0
    beq.s   1f
    movea.l %d0,%a2
    move.b  #NT_LIBRARY,LN_TYPE(%a2)
    move.l  #spin_name,LN_NAME(%a2)
    move.b  #LIBF_SUMUSED+LIBF_CHANGED,LIB_FLAGS(%a2)
    move.w  #VERSION,LIB_VERSION(%a2)
    move.w  #REVISION,LIB_REVISION(%a2)
    move.l  #spin_id,LIB_IDSTRING(%a2)
    move.l  %d2,SPIN_SEGLIST(%a2)
    movea.l %a2,%a1
    jsr     LVO_ADDLIBRARY(%a6)         /* AddLibrary(a1) */
    move.l  %a2,%d0
1:  movem.l (%sp)+,%d2/%a2
    rts
    .size   spin_init, . - spin_init

    .text

/* Open(a6 base, d0 version): one more opener, no delayed expunge pending; the base. */
    .globl  spin_open
    .type   spin_open, @function
spin_open:
    addq.w  #1,LIB_OPENCNT(%a6)
    bclr    #LIBB_DELEXP,LIB_FLAGS(%a6)
    move.l  %a6,%d0
    rts
    .size   spin_open, . - spin_open

/* Close(a6 base): one opener less; 0, the library is never expunged. */
    .globl  spin_close
    .type   spin_close, @function
spin_close:
    subq.w  #1,LIB_OPENCNT(%a6)
    moveq   #0,%d0
    rts
    .size   spin_close, . - spin_close

/* Expunge(a6 base): never (no segment list to free). */
    .globl  spin_expunge
    .type   spin_expunge, @function
spin_expunge:
    moveq   #0,%d0
    rts
    .size   spin_expunge, . - spin_expunge

    .globl  spin_null
    .type   spin_null, @function
spin_null:
    moveq   #0,%d0
    rts
    .size   spin_null, . - spin_null

/* SpinA(d0 passes): ADD.L #imm (16 cycles), EOR.L (8), SUBQ.L (8), BNE (10) a pass. */
    .globl  spin_a
    .globl  spin_a_start
    .globl  spin_a_end
    .type   spin_a, @function
spin_a:
    tst.l   %d0
    beq.s   1f
spin_a_start:
.La:
    add.l   #0x00012345,%d1
    eor.l   %d0,%d1
    subq.l  #1,%d0
    bne.s   .La
spin_a_end:
1:  rts
    .size   spin_a, . - spin_a

/* SpinB(d0 passes): ROL.L #3 (14 cycles), NOT.W (4), SUBQ.L (8), BNE (10) a pass. The
 * last function of the jump table, its RTS the table's last byte of code. */
    .globl  spin_b
    .globl  spin_b_start
    .globl  spin_b_end
    .type   spin_b, @function
spin_b:
    tst.l   %d0
    beq.s   1f
spin_b_start:
.Lb:
    rol.l   #3,%d1
    not.w   %d1
    subq.l  #1,%d0
    bne.s   .Lb
spin_b_end:
1:  rts
    .size   spin_b, . - spin_b
spin_end:

    .data
    .balign 4
spin_vectors:
    .long   spin_open                   /* -6 */
    .long   spin_close                  /* -12 */
    .long   spin_expunge                /* -18 */
    .long   spin_null                   /* -24 */
    .long   spin_a                      /* -30 */
    .long   spin_b                      /* -36 */
    .long   -1
spin_name:
    .asciz  "spin.library"
spin_id:
    .asciz  "spin.library 1.0 (twotask's busy loops)\r\n"
