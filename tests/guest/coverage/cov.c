// SPDX-License-Identifier: GPL-3.0-or-later
/* Guest code coverage, in C (tests/integration/test_coverage_run.cpp and
 * tests/profiler/test_coverage.cpp): loops run known numbers of times, a function that is
 * never called, for headers whose line holds an initialization run and a test run, and a
 * static inline helper inlined twice into one line. Built at -O0 and -O2, as an AmigaOS
 * program (main) and for bare metal (guest_main, with -DBARE_METAL). The bracketed tags in
 * the comments mark the lines the tests look up. `rounds` is volatile so that no loop is
 * folded away at -O2, `sink` so that every read and write happens. */

#define NOINLINE __attribute__((noinline))

volatile int sink;
volatile int rounds = 7;

static inline __attribute__((always_inline)) int scaled(int x) {
    return (x ^ sink) * 3; /* [helper] */
}

NOINLINE void never_called(void) {
    sink = 99; /* [never] */
}

NOINLINE int inner(int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) /* [for] */
        s += sink;              /* [body] */
    return s;
}

NOINLINE int twice(int a, int b) {
    return scaled(a) + scaled(b); /* [shared] */
}

#ifdef BARE_METAL
int guest_main(void) {
#else
int main(void) {
#endif
    const int n = rounds;
    int total = 0;
    for (int k = 0; k < 3; ++k) /* [outer-for] */
        total += inner(n);      /* [calls-inner] */
    for (int k = 0; k < 5; ++k)
        total += twice(k, n);   /* [calls-twice] */
    if (total == -1)            /* [guard] */
        never_called();         /* [never-call] */
    sink = total;
    return 0;
}
