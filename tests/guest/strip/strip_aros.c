// SPDX-License-Identifier: GPL-3.0-or-later
/* strip_aros: an AmigaOS main loop for the profile strip's tests, with names. A vertical
 * blank interrupt server (strip_routines.S: vblserver, which calls vblwork) counts frames;
 * the main loop waits for each and calls step(), which calls thrice() three times, third()
 * on every third pass, recurse(3) (itself twice more) and jumper(), which leaves by a JMP
 * into tail(). It runs PASSES passes (its argument line's first number, default 150) and
 * returns 0. */
#include <copperline/amiga.h>

void thrice(void);
void third(void);
void recurse(unsigned depth);
void jumper(void);
void vblserver(void); /* called by exec with A1 = is_Data; not from C */

volatile unsigned long vblanks;
static unsigned long passes;
volatile unsigned long steps; /* after jumper(), so that the call to it is not a jump */

__attribute__((noinline)) void step(void) {
    int i;
    for (i = 0; i < 3; ++i) thrice();
    if (passes % 3 == 0) third();
    recurse(3);
    jumper();
    ++steps;
}

int main(void) {
    static struct Interrupt server = {0, 0, 2 /* NT_INTERRUPT */, 0, "strip vblank", (void*)&vblanks, (void*)vblserver};
    unsigned long total = 0, last;
    const char* p = __commandline;
    while (p < __commandline + __commandlen && *p >= '0' && *p <= '9') total = total * 10 + (unsigned long)(*p++ - '0');
    if (!total) total = 150;
    AddIntServer(5 /* INTB_VERTB */, &server);
    last = vblanks;
    for (passes = 0; passes < total; ++passes) {
        while (vblanks == last) {
        }
        last = vblanks;
        step();
    }
    RemIntServer(5, &server);
    return 0;
}
