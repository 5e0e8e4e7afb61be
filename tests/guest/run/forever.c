// SPDX-License-Identifier: GPL-3.0-or-later
/* Never returns. */
#include <copperline/amiga.h>

int main(void) {
    for (;;) {
    }
}
