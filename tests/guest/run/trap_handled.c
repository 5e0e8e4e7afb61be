// SPDX-License-Identifier: GPL-3.0-or-later
/* Handles its own TRAP #5 through its task's tc_TrapCode, which exec calls with the
 * exception number pushed above the exception frame, and returns 7 when the handler ran.
 * --run must let it return, not report a crash. */
#include <copperline/amiga.h>

extern void trap_handler(void);
volatile long traps;

__asm__("    .text\n"
        "    .globl trap_handler\n"
        "trap_handler:\n"
        "    addq.l #1,traps\n"
        "    addq.l #4,%sp\n" /* the exception number */
        "    rte\n");

int main(void) {
    char* task = (char*)FindTask(0);
    *(void (**)(void))(task + 50) = trap_handler; /* tc_TrapCode, exec/tasks.h */
    __asm__ volatile("trap #5" ::: "memory");
    return traps == 1 ? 7 : 1;
}
