| SPDX-License-Identifier: GPL-3.0-or-later
| Guest code coverage, in assembly (tests/integration/test_coverage_run.cpp): loops of
| known counts, a routine that is never called, and one that control enters only in the
| middle, whose function count is then its most executed instruction's. The bracketed
| tags mark the lines the test looks up.

    .text

    .globl  main
    .type   main, @function
main:
    move.l  %d2,-(%sp)
    moveq   #4-1,%d2            | [asm-setup]
1:  bsr.s   count_up            | [asm-call] 4 times
    dbra    %d2,1b              | [asm-dbra] 4 times
    bsr.s   .Lmidway            | [asm-mid-call]
    move.l  (%sp)+,%d2
    moveq   #0,%d0
    rts
    .size   main, .-main

| Ten passes of its loop a call.
    .type   count_up, @function
count_up:
    moveq   #10-1,%d0           | [asm-count-setup] 4 times
2:  addq.l  #1,%d1              | [asm-loop] 40 times
    dbra    %d0,2b              | [asm-loop-dbra] 40 times
    rts                         | [asm-count-rts] 4 times
    .size   count_up, .-count_up

    .type   unused_routine, @function
unused_routine:
    moveq   #1,%d0              | [asm-never]
    rts
    .size   unused_routine, .-unused_routine

    .type   entered_midway, @function
entered_midway:
    moveq   #5,%d0              | [asm-skipped] control enters below
.Lmidway:
    addq.l  #2,%d0              | [asm-midway] once
    rts
    .size   entered_midway, .-entered_midway
