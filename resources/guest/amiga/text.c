// SPDX-License-Identifier: GPL-3.0-or-later
/* A line of output without printf, so that a program stays small and needs no division
 * routine: each function writes at line[n] and returns the next n. */
#include <copperline/amiga.h>

unsigned text_put(char* line, unsigned n, const char* s) {
    while (*s) line[n++] = *s++;
    return n;
}

unsigned text_put_hex(char* line, unsigned n, unsigned long v) {
    int i;
    line[n++] = '$';
    for (i = 28; i >= 0; i -= 4) line[n++] = "0123456789ABCDEF"[(v >> i) & 15];
    return n;
}

unsigned text_put_decimal(char* line, unsigned n, unsigned long v) {
    static const unsigned long powers[] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                           10000,      1000,      100,      10,      1};
    unsigned i;
    int digits = 0;
    for (i = 0; i < sizeof powers / sizeof powers[0]; ++i) {
        char d = '0';
        while (v >= powers[i]) v -= powers[i], ++d;
        if (d != '0' || digits || powers[i] == 1) line[n++] = d, digits = 1;
    }
    return n;
}
