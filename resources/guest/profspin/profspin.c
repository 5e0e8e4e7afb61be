// SPDX-License-Identifier: GPL-3.0-or-later
/* profspin: the sampler's proof (docs/profiling.md, "Proving the sampler"). An ordinary
 * program that links nothing of the profiler: four assembly kernels (kernels.S) run in
 * turn, in chunks, until each has run for its share of about twenty emulated seconds,
 * each chunk timed by CIA-B's time-of-day counter (one count per raster line, 64 us).
 * Then it prints, for each kernel, its exact byte range from the linker's own labels and
 * the raster lines it measured itself running:
 *
 *     kernel a $0001F2C4 $0001F2E0 $0001E848
 *
 * (the measured lines in hex too: the program stays small, no division routine in it)
 * which `copperline-ctl profile-report DIR --contain FILE` checks the samples against.
 * An argument scales the run: "profspin 2" runs twice as long. */
#include <copperline/amiga.h>

extern void profspin_a(unsigned long n), profspin_b(unsigned long n), profspin_c(unsigned long n),
    profspin_d(unsigned long n);
extern const char profspin_a_start[], profspin_a_end[], profspin_b_start[], profspin_b_end[],
    profspin_c_start[], profspin_c_end[], profspin_d_start[], profspin_d_end[];

struct kernel {
    const char* name;
    void (*run)(unsigned long);
    const char *start, *end;
    unsigned long chunk;  /* passes a call */
    unsigned long target; /* raster lines to run for (per unit of scale, then scaled) */
    unsigned long lines;  /* measured */
};

/* CIA-B's TOD: reading the high byte latches all three until the low byte is read. */
static unsigned long tod(void) {
    volatile const unsigned char* cia = (volatile const unsigned char*)0xBFD000;
    unsigned long hi = cia[0xA00], mid = cia[0x900], lo = cia[0x800];
    return hi << 16 | mid << 8 | lo;
}

static char line[64];



int main(void) {
    /* Shares of 20 s (312,500 lines at 15,625 a second): 40 %, 30 %, 20 %, 10 %. */
    static struct kernel k[4] = {
        {"a", profspin_a, profspin_a_start, profspin_a_end, 400, 125000, 0},
        {"b", profspin_b, profspin_b_start, profspin_b_end, 150, 93750, 0},
        {"c", profspin_c, profspin_c_start, profspin_c_end, 300, 62500, 0},
        {"d", profspin_d, profspin_d_start, profspin_d_end, 60, 31250, 0},
    };
    unsigned long scale = 0;
    long i;
    int busy = 1;
    for (i = 0; i < __commandlen; ++i)
        if (__commandline[i] >= '0' && __commandline[i] <= '9')
            scale = (scale << 3) + (scale << 1) + (unsigned long)(__commandline[i] - '0');
    if (!scale) scale = 1;
    for (i = 0; i < 4; ++i) {
        unsigned long j, t = k[i].target;
        for (j = 1; j < scale; ++j) k[i].target += t;
    }
    while (busy) {
        busy = 0;
        for (i = 0; i < 4; ++i) {
            unsigned long t0, t1;
            if (k[i].lines >= k[i].target) continue;
            busy = 1;
            t0 = tod();
            k[i].run(k[i].chunk);
            t1 = tod();
            k[i].lines += (t1 - t0) & 0xFFFFFF;
        }
    }
    for (i = 0; i < 4; ++i) {
        unsigned n = text_put(line, 0, "kernel ");
        n = text_put(line, n, k[i].name);
        n = text_put(line, n, " ");
        n = text_put_hex(line, n, (unsigned long)k[i].start);
        n = text_put(line, n, " ");
        n = text_put_hex(line, n, (unsigned long)k[i].end);
        n = text_put(line, n, " ");
        n = text_put_hex(line, n, k[i].lines);
        n = text_put(line, n, "\n");
        Write(Output(), line, (long)n);
    }
    return 0;
}
