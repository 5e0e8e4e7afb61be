// SPDX-License-Identifier: GPL-3.0-or-later
/* A test program that exercises every kind of relocation a hunk executable carries, the
 * runtime's 32-bit multiply and divide, and a static function for the debug-info tests.
 * guest_main returns a checksum the host can compute too (tests/guest/roundtrip_model.h). */

#define NOINLINE __attribute__((noinline))

static int counter;                     /* BSS */
int values[6] = {7, -3, 1000, 65537, -70000, 12345};   /* data */
static const char message[] = "copperline";            /* read-only data, in the data hunk */

static NOINLINE int scale(int x) { counter += 1; return x * 3 + counter; }
NOINLINE int twice(int x) { return x + x; }

int (*const operations[2])(int) = {scale, twice};       /* data pointing at code */
int* const counterRef = &counter;                       /* data pointing at BSS */

/* 65537 * -70000 overflows int: multiplied as unsigned, the product wraps the same way on
 * the 68000 and on the host (signed overflow is undefined in C), and the 68000 build still
 * calls the runtime's 32-bit multiply. */
NOINLINE int multiply(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
NOINLINE int divide(int a, int b) { return a / b + a % b; }
NOINLINE unsigned udivide(unsigned a, unsigned b) { return a / b + a % b; }

int guest_main(void) {
    unsigned sum = 0;
    for (int i = 0; i < 6; ++i) {
        sum += (unsigned)operations[i & 1](values[i]);
        sum += (unsigned)multiply(values[i], values[(i + 1) % 6]);
        sum += (unsigned)divide(values[i], (i & 1) ? 7 : -123457);
        sum += udivide((unsigned)values[i], (i & 2) ? 3u : 0x12345u);
    }
    for (const char* p = message; *p; ++p) sum = sum * 31 + (unsigned char)*p;
    return (int)(sum + (unsigned)*counterRef);
}
