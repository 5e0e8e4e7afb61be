// SPDX-License-Identifier: GPL-3.0-or-later
/* Writes the status register in user mode: a privilege violation on a 68000, which the
 * program does not handle. The test expects the report to name this function and line. */
#include <copperline/amiga.h>

__attribute__((noinline)) void raise_privilege(void) {
    __asm__ volatile("move.w #0x2700,%%sr" ::: "memory", "cc");
}

int main(void) {
    raise_privilege();
    return 0;
}
