| SPDX-License-Identifier: GPL-3.0-or-later
| Loops of known cost for the sampling tests (tests/integration/test_profile_run.cpp). The
| cycle counts are the MC68000 User's Manual's (section 8, instruction execution times),
| with no wait states; the test checks that each function's self time in the report is
| exactly this many colour clocks (two cycles each) per call.

    .text

| void burn_loop(unsigned long n), n >= 1: 18 * n + 30 cycles.
    .globl  burn_loop
    .type   burn_loop, @function
burn_loop:
    move.l  4(%sp),%d0          | 16: MOVE.L (d16,An),Dn
1:  subq.l  #1,%d0              | 8:  SUBQ.L #q,Dn
    bne.s   1b                  | 10 taken, 8 not taken
    rts                         | 16
    .size   burn_loop, .-burn_loop

| void burn_mul(unsigned long n), n >= 1: 56 * n + 34 cycles (MULU by zero: 38 + 2 * 0).
    .globl  burn_mul
    .type   burn_mul, @function
burn_mul:
    move.l  4(%sp),%d1          | 16
    moveq   #0,%d2              | 4:  MOVEQ
1:  mulu.w  %d2,%d0             | 38: MULU.W Dn,Dn with no bits set in the source
    subq.l  #1,%d1              | 8
    bne.s   1b                  | 10 / 8
    rts                         | 16
    .size   burn_mul, .-burn_mul
