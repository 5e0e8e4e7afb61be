// SPDX-License-Identifier: GPL-3.0-or-later
/* Runs for fifteen emulated seconds and returns: fifteen rounds of a short computation and
 * a second's Delay, then a line. What --run --profile must capture to its end. */
#include <copperline/amiga.h>

static unsigned long __attribute__((noinline)) work(unsigned long x) {
    for (int i = 0; i < 2000; ++i) {
        x ^= x << 5;
        x ^= x >> 3;
        x += 0x1357;
    }
    return x;
}

int main(void) {
    unsigned long x = 1;
    for (int second = 0; second < 15; ++second) {
        x = work(x);
        Delay(50);
    }
    char line[64];
    unsigned n = text_put(line, 0, "fifteen: done ");
    n = text_put_hex(line, n, x);
    n = text_put(line, n, "\n");
    BPTR out = Output();
    Write(out, line, (LONG)n);
    return 0;
}
