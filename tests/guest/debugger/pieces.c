// SPDX-License-Identifier: GPL-3.0-or-later
/* The source-level debugger's 64-bit values (tests/integration/test_debugger.cpp), built at
 * -O2: gcc keeps a long long in a pair of registers, which its DWARF describes in pieces
 * (DW_OP_reg2 DW_OP_piece 4 DW_OP_reg3 DW_OP_piece 4). What it computes is known:
 *   a = seed = 0x123456789, x = a * 3 + factor = 14660155042, v = x ^ a = 9841234219 */
#include <copperline/amiga.h>

#define NOINLINE __attribute__((noinline))

volatile long long seed = 0x123456789LL;
volatile int factor = 7;
volatile long long sink;

static NOINLINE long long widen(long long a, int k) {
    long long x = a * 3 + k; /* @widen_x */
    sink = x;                /* @widen_sink */
    return x ^ a;            /* @widen_ret */
}

int main(void) {
    long long v = widen(seed, factor); /* @main_v */
    sink = v;                          /* @main_sink */
    return (int)(v >> 32) + (int)v == 2 + 1251299627 ? 0 : 20; /* @main_ret */
}
