// SPDX-License-Identifier: GPL-3.0-or-later
/* The smallest AmigaOS program: "hello" on the shell's output through dos.library, and
 * return code 5 (RETURN_WARN), so a run shows both the output and the exit status. */
#include <copperline/amiga.h>

int main(void) {
    static const char text[] = "hello\n";
    Write(Output(), text, sizeof text - 1);
    return 5;
}
