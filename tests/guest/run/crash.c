// SPDX-License-Identifier: GPL-3.0-or-later
/* Reads a word at an odd address: an address error on a 68000. */
#include <copperline/amiga.h>

int main(void) {
    volatile const short* p = (volatile const short*)0x1001;
    return *p;
}
