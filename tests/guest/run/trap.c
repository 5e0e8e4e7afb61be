// SPDX-License-Identifier: GPL-3.0-or-later
/* Executes TRAP #5 with no handler of its own: exec's default gives no way back. The test
 * expects the report to name this function and line, not the pushed PC after the TRAP. */
#include <copperline/amiga.h>

__attribute__((noinline)) void raise_trap(void) {
    __asm__ volatile("trap #5" ::: "memory");
}

int main(void) {
    raise_trap();
    return 0;
}
