// SPDX-License-Identifier: GPL-3.0-or-later
/* A program of about 200 KB (its table below is a data hunk of 200 KB) that allocates
 * 1 MB and writes through all of it: the size of programs users run with --run. Prints
 * where its hunks and the block landed and returns 0, or 20 when the memory was not there. */
#include <copperline/amiga.h>

#define TABLE_BYTES (200u * 1024u)
#define BLOCK_BYTES (1024u * 1024u)

/* Initialised, so the file holds all of it. */
static unsigned char table[TABLE_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8};

static char line[80];



int main(void) {
    unsigned long i, sum = 0;
    unsigned char* block;
    unsigned n;
    for (i = 0; i < TABLE_BYTES; i += 4096) sum += table[i];
    block = (unsigned char*)AllocMem(BLOCK_BYTES, 0);
    if (!block) {
        n = text_put(line, 0, "bigalloc: no 1 MB block\n");
        Write(Output(), line, (long)n);
        return 20;
    }
    for (i = 0; i < BLOCK_BYTES; i += 256) block[i] = (unsigned char)i;
    for (i = 0; i < BLOCK_BYTES; i += 256) sum += block[i];
    n = text_put(line, 0, "bigalloc: table ");
    n = text_put_hex(line, n, (unsigned long)table);
    n = text_put(line, n, " block ");
    n = text_put_hex(line, n, (unsigned long)block);
    n = text_put(line, n, " sum ");
    n = text_put_hex(line, n, sum);
    n = text_put(line, n, "\n");
    Write(Output(), line, (long)n);
    FreeMem(block, BLOCK_BYTES);
    return 0;
}
