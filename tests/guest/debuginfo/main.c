// SPDX-License-Identifier: GPL-3.0-or-later
/* Calls the assembly functions; asm_aligned is file-local to functions.s and stays unreferenced. */

int asm_add(int a, int b);
int asm_count(int n);
int asm_unsized(void);
extern int asm_words[4];

int guest_main(void) {
    return asm_add(asm_words[0], asm_words[3]) + asm_count(5) + asm_unsized();
}
