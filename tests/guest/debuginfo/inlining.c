// SPDX-License-Identifier: GPL-3.0-or-later
/* Optimised C for the debug-info reader tests: functions that -O2 inlines (one inlined into
 * another, so a call site has a chain of two inline frames), file-static functions, and a
 * function aligned to 16 bytes so the code before it ends in padding that no function owns.
 * guest_main returns a checksum so nothing is optimised away. */

#define NOINLINE __attribute__((noinline))

extern int table[8];
int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
static int state;

static inline int square(int x) { return x * x; }

static inline int sumSquares(int a, int b) {
    int s = square(a);
    s += square(b);
    return s;
}

static NOINLINE int mix(int a, int b) {
    state ^= a;
    return sumSquares(a, b) + state;
}

static NOINLINE int accumulate(const int* values, int n) {
    int total = 0;
    for (int i = 0; i < n; ++i) total += values[i] * (i + 1);
    return total;
}

NOINLINE int largest(const int* values, int n) {
    int best = values[0];
    for (int i = 1; i < n; ++i)
        if (values[i] > best) best = values[i];
    return best;
}

__attribute__((aligned(16))) NOINLINE int aligned(int x) {
    return sumSquares(x, x + 1) - 1;
}

int guest_main(void) {
    int sum = accumulate(table, 8);
    sum += mix(table[2], table[5]);
    sum += largest(table, 8);
    sum += aligned(sum & 7);
    return sum;
}
