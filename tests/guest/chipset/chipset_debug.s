| SPDX-License-Identifier: GPL-3.0-or-later
| A bare-metal program for the chipset debugger's tests (copper.list, custom.dump,
| custom.writer, mem.find, mem.regions and their panes). It copies three Copper lists from
| the tables below into chip RAM, points COP1LC at the first and COP2LC at the second,
| starts the Copper, and copies a text to slow RAM. Then, once a frame at line $E0, the CPU
| writes COLOR00 itself and counts the frame in slow RAM.
|
| List 1 ($30000) runs every frame: MOVEs to COLOR00 and BPLCON0, a WAIT for line $40, a
| SKIP whose position is long passed (so the MOVE after it is passed over), a WAIT for line
| $80 that waits for the blitter too and compares no horizontal bits, a MOVE to COLOR01, a
| WAIT for line $C0, a MOVE to COLOR00 and the end. List 2 ($30100) halts on a MOVE to
| BLTSIZE (protected: COPCON's danger bit is clear); list 3 ($30200) ends in a jump
| (COPJMP2). Neither runs.
    .section .text.start,"ax"
    .globl  _start, set_cop1lc, set_cop2lc, jump_list1, enable_dma, main_loop, cpu_color
    .globl  list1_src, list2_src, list3_src, find_text
    .set    LIST1, 0x30000
    .set    LIST2, 0x30100
    .set    LIST3, 0x30200
    .set    TEXT_COPY, 0xC20000
    .set    COUNTER, 0xC20100
_start:
    lea     0x8000, %sp
    lea     0xDFF000, %a5
    move.w  #0x7FFF, 0x96(%a5)          | DMACON: everything off
    move.w  #0x7FFF, 0x9A(%a5)          | INTENA: everything off
    move.w  #0x7FFF, 0x9C(%a5)          | INTREQ: clear
    lea     list1_src, %a0
    lea     LIST1, %a1
    moveq   #(list1_end - list1_src) / 4 - 1, %d0
1:  move.l  (%a0)+, (%a1)+
    dbra    %d0, 1b
    lea     list2_src, %a0
    lea     LIST2, %a1
    moveq   #(list2_end - list2_src) / 4 - 1, %d0
2:  move.l  (%a0)+, (%a1)+
    dbra    %d0, 2b
    lea     list3_src, %a0
    lea     LIST3, %a1
    moveq   #(list3_end - list3_src) / 4 - 1, %d0
3:  move.l  (%a0)+, (%a1)+
    dbra    %d0, 3b
    lea     find_text, %a0
    lea     TEXT_COPY, %a1
4:  move.b  (%a0)+, (%a1)+
    bne.s   4b
    clr.l   COUNTER
set_cop1lc:
    move.l  #LIST1, 0x80(%a5)           | COP1LCH/COP1LCL
set_cop2lc:
    move.l  #LIST2, 0x84(%a5)           | COP2LCH/COP2LCL
jump_list1:
    move.w  %d0, 0x88(%a5)              | COPJMP1
enable_dma:
    move.w  #0x8280, 0x96(%a5)          | DMACON: DMAEN | COPEN
| The branches go to local labels: gas leaves a short branch to a global label to the
| linker, and a byte displacement cannot hold the relocation.
main_loop:
6:  move.w  6(%a5), %d0                 | VHPOSR: wait for line $E0
    lsr.w   #8, %d0
    cmp.w   #0xE0, %d0
    bne.s   6b
cpu_color:
    move.w  #0x0555, 0x180(%a5)         | COLOR00, from the CPU
    addq.l  #1, COUNTER
5:  move.w  6(%a5), %d0                 | until the line has passed
    lsr.w   #8, %d0
    cmp.w   #0xE0, %d0
    beq.s   5b
    bra.s   6b

    .section .data
    .balign 4
list1_src:
    .word   0x0180, 0x0F00              | MOVE #$0F00,COLOR00
    .word   0x0100, 0x0200              | MOVE #$0200,BPLCON0 (COLOR)
    .word   0x4007, 0xFFFE              | WAIT $40,$06
    .word   0x3001, 0xFFFF              | SKIP $30,$00
    .word   0x0180, 0x0FFF              | MOVE #$0FFF,COLOR00 (passed over)
    .word   0x8021, 0x7F00              | WAIT $80,$20, no horizontal compare, blitter too
    .word   0x0182, 0x00F0              | MOVE #$00F0,COLOR01
    .word   0xC051, 0xFFFE              | WAIT $C0,$50
    .word   0x0180, 0x000F              | MOVE #$000F,COLOR00
    .word   0xFFFF, 0xFFFE              | the end
list1_end:
list2_src:
    .word   0x0184, 0x0123              | MOVE #$0123,COLOR02
    .word   0x0058, 0x0041              | MOVE #$0041,BLTSIZE: the Copper halts
    .word   0xFFFF, 0xFFFE
list2_end:
list3_src:
    .word   0x0186, 0x0456              | MOVE #$0456,COLOR03
    .word   0x008A, 0x0000              | MOVE #0,COPJMP2: a jump
    .word   0xFFFF, 0xFFFE
list3_end:
find_text:
    .asciz  "COPPERLINE-FINDS-ME"
