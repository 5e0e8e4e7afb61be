// SPDX-License-Identifier: GPL-3.0-or-later
/* Bare metal: calls uaelib the way gcc8_c_support.c does (check the word at $F0FF60,
 * then call it as a C function with the function number and four longwords), and keeps
 * what it saw in a results block at $7F100 for tests/integration/test_uaelib.cpp:
 *
 *   +$00 word  the word at $F0FF60
 *   +$04 long  the beam (VPOSR << 16 | VHPOSR) just after debug_start_idle returned
 *   +$08 long  the beam just before debug_stop_idle was called
 *   +$0C long  KPrintF's result
 *   +$10..     D0 of each further call, in the order of `enum Result` below
 *   +$6C long  D0 of a KPrintF call made with the trace bit set, so that a trace exception
 *              is pending when the CPU reaches $F0FF60 (the call must happen once, after it)
 *   +$70 long  trace exceptions taken around it
 *   +$7C long  $600DF00D when done
 *
 * and, at $7F180, what function 82 answered (enum Config below) and the first byte it left
 * in its output buffer.
 *
 * The files test needs the test's folder to hold "input.bin" (it is loaded to $60000).
 */
#include "../hw/hw.h"

#define RESULTS ((volatile u32*)0x7F100)
#define LOAD_TO ((u8*)0x60000)

enum Result {
    R_WORD = 0,
    R_BEAM_IDLE = 1,
    R_BEAM_BUSY = 2,
    R_LOG = 3,
    R_REG_BITMAP = 4,
    R_REG_PALETTE,
    R_REG_COPPER,
    R_UNREG_COPPER,
    R_CLEAR,
    R_RECT,
    R_FILLED,
    R_TEXT,
    R_LOAD_SIZE,
    R_SAVE,
    R_SAVE_AGAIN,
    R_SAVE_ESCAPE,
    R_SAVE_ABSOLUTE,
    R_SAVE_EXISTING,
    R_LOAD_LINK,
    R_LOG_GARBAGE,
    R_LOG_UNTERMINATED,
    R_REG_GARBAGE,
    R_REG_UNTERMINATED,
    R_UNKNOWN_FN,
    R_UNKNOWN_CMD,
    R_TEXT_UNTERMINATED,
    R_STILL_RUNNING,
    R_TRACED_LOG,
    R_TRACES,
    R_DONE = 31
};

/* Function 82, as gcc8_c_support.c's warpmode() calls it. */
#define CONFIG_RESULTS ((volatile u32*)0x7F180)
enum Config {
    C_SPEED_MAX = 0,
    C_SPEED_REAL,
    C_WARP_TRUE,
    C_WARP_FALSE,
    C_CYCLE_EXACT,
    C_BAD,
    C_BAD_AGAIN,
    C_OUT_BYTE,
    C_WARP_AGAIN,
    C_DONE = 15
};

/* Their calling sequence, our code. */
typedef long (*UaeLibFn)(unsigned int, unsigned int, unsigned int, unsigned int, unsigned int);
typedef long (*UaeDbgLogFn)(long, const char*);

static int uaelib_present(void) {
    const u16 w = *(volatile u16*)0xf0ff60;
    return w == 0x4eb9 || w == 0xa00e;
}

static long debug_cmd(unsigned int a1, unsigned int a2, unsigned int a3, unsigned int a4) {
    UaeLibFn UaeLib = (UaeLibFn)0xf0ff60;
    if (uaelib_present()) return UaeLib(88, a1, a2, a3, a4);
    return -1;
}

typedef long (*UaeConfFn)(long mode, int index, const char* param, int param_len, char* outbuf, int outbuf_len);

static long uae_conf(const char* option, char* out) {
    UaeConfFn UaeConf = (UaeConfFn)0xf0ff60;
    if (uaelib_present()) return UaeConf(82, -1, option, 0, out, 1);
    return -1;
}

static long kprintf(const char* text) {
    UaeDbgLogFn UaeDbgLog = (UaeDbgLogFn)0xf0ff60;
    if (uaelib_present()) return UaeDbgLog(86, text);
    return -1;
}

/* struct debug_resource: 50 bytes, as the toolchain lays it out. */
struct debug_resource {
    unsigned int address;
    unsigned int size;
    char name[32];
    unsigned short type;
    unsigned short flags;
    union {
        struct {
            short width, height, numPlanes;
        } bitmap;
        struct {
            short numEntries;
        } palette;
    } u;
};
typedef char debug_resource_is_50_bytes[sizeof(struct debug_resource) == 50 ? 1 : -1];

static void set_name(struct debug_resource* r, const char* name) {
    unsigned i = 0;
    for (; name[i] && i < 31; ++i)
        r->name[i] = name[i];
    for (; i < 32; ++i)
        r->name[i] = 0;
}

static long reg(unsigned addr, unsigned size, const char* name, unsigned short type,
                unsigned short flags, short a, short b, short c) {
    struct debug_resource r;
    r.address = addr;
    r.size = size;
    set_name(&r, name);
    r.type = type;
    r.flags = flags;
    r.u.bitmap.width = a;
    r.u.bitmap.height = b;
    r.u.bitmap.numPlanes = c;
    return debug_cmd(4, (unsigned)&r, 0, 0);
}

static unsigned load(void* to, const char* name) {
    struct debug_resource r;
    r.address = (unsigned)to;
    r.size = 0;
    set_name(&r, name);
    r.type = r.flags = 0;
    debug_cmd(7, (unsigned)&r, 0, 0);
    return *(volatile unsigned*)&r.size;
}

static long save(const void* from, unsigned size, const char* name) {
    struct debug_resource r;
    r.address = (unsigned)from;
    r.size = size;
    set_name(&r, name);
    r.type = r.flags = 0;
    return debug_cmd(8, (unsigned)&r, 0, 0);
}

static u32 beam(void) {
    /* VPOSR then VHPOSR, read again if the line moved between them. */
    u32 v, h;
    do {
        v = REG(VPOSR) & 1;
        h = REG(VHPOSR);
    } while ((REG(VPOSR) & 1) != v || (REG(VHPOSR) >> 8) != (h >> 8));
    return v << 16 | h;
}

static unsigned line(void) {
    return (unsigned)((REG(VPOSR) & 1) << 8 | REG(VHPOSR) >> 8);
}

static u8 bitmap[40 * 16 * 2];
static const u16 palette[4] = {0x000, 0xF00, 0x0F0, 0x00F};
static const u16 copper[4] = {0x0180, 0x0F00, 0xFFFF, 0xFFFE};
static char unterminated[1100];

/* The trace handler counts (vector 9, at $24). */
volatile u32 uaelib_traces;
void trace_handler(void);
__asm__(".globl trace_handler\ntrace_handler:\n\taddq.l #1,uaelib_traces\n\trte\n");

/* KPrintF's call with SR's T bit set for the JSR, the RTS at $F0FF60 and the ANDI after:
 * a trace exception is pending when the CPU reaches $F0FF60. */
static long traced_kprintf(const char* text) {
    long r;
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "pea 86.w\n\t"
                     "ori.w #0x8000,%%sr\n\t"
                     "jsr 0xf0ff60\n\t"
                     "andi.w #0x7fff,%%sr\n\t"
                     "addq.l #8,%%sp\n\t"
                     "move.l %%d0,%0"
                     : "=d"(r)
                     : "g"(text)
                     : "d0", "d1", "a0", "a1", "cc", "memory");
    return r;
}

#define XY(x, y) (((unsigned)(x) << 16) | (unsigned)(unsigned short)(y))

int guest_main(void) {
    unsigned i;
    RESULTS[R_WORD] = *(volatile u16*)0xf0ff60;

    /* Idle from line 64 to line 192 of one frame. */
    while (line() != 10) {
    }
    while (line() != 64) {
    }
    debug_cmd(5, 1, 0, 0);
    RESULTS[R_BEAM_IDLE] = beam();
    while (line() != 192) {
    }
    RESULTS[R_BEAM_BUSY] = beam();
    debug_cmd(5, 0, 0, 0);

    RESULTS[R_LOG] = kprintf("uaelib_calls: hello from bare metal");

    RESULTS[R_REG_BITMAP] = reg((unsigned)bitmap, sizeof bitmap, "ship", 0, 1, 320, 16, 2);
    RESULTS[R_REG_PALETTE] = reg((unsigned)palette, sizeof palette, "ship colours", 1, 0, 4, 0, 0);
    RESULTS[R_REG_COPPER] = reg((unsigned)copper, sizeof copper, "copper", 2, 0, 0, 0, 0);
    RESULTS[R_UNREG_COPPER] = debug_cmd(6, (unsigned)copper, 0, 0);

    RESULTS[R_CLEAR] = debug_cmd(0, 0, 0, 0);
    RESULTS[R_RECT] = debug_cmd(1, XY(10, 20), XY(100, 50), 0xFF0000);
    RESULTS[R_FILLED] = debug_cmd(2, XY(-5, 500), XY(40, 575), 0x00FF00);
    RESULTS[R_TEXT] = debug_cmd(3, XY(16, 32), (unsigned)"SCORE 42", 0xFFFFFF);

    RESULTS[R_LOAD_SIZE] = load(LOAD_TO, "input.bin");
    RESULTS[R_SAVE] = save(LOAD_TO, RESULTS[R_LOAD_SIZE], "output.bin");
    RESULTS[R_SAVE_AGAIN] = save(palette, sizeof palette, "output.bin");
    RESULTS[R_SAVE_ESCAPE] = save(palette, sizeof palette, "../escape.bin");
    RESULTS[R_SAVE_ABSOLUTE] = save(palette, sizeof palette, "/tmp/escape.bin");
    RESULTS[R_SAVE_EXISTING] = save(palette, sizeof palette, "input.bin");
    RESULTS[R_LOAD_LINK] = load(LOAD_TO, "link.bin");

    /* Garbage: pointers into nothing, strings with no end, calls that do not exist. */
    for (i = 0; i < sizeof unterminated; ++i)
        unterminated[i] = 'A';
    RESULTS[R_LOG_GARBAGE] = kprintf((const char*)0xE90000);
    RESULTS[R_LOG_UNTERMINATED] = kprintf(unterminated);
    RESULTS[R_REG_GARBAGE] = debug_cmd(4, 0xEF0000, 0, 0);
    RESULTS[R_REG_UNTERMINATED] = debug_cmd(4, (unsigned)unterminated, 0, 0);
    RESULTS[R_UNKNOWN_FN] = ((UaeLibFn)0xf0ff60)(99, 0, 0, 0, 0);
    RESULTS[R_UNKNOWN_CMD] = debug_cmd(42, 0, 0, 0);
    RESULTS[R_TEXT_UNTERMINATED] = debug_cmd(3, 0, (unsigned)unterminated, 0);
    RESULTS[R_STILL_RUNNING] = 1;

    {
        char out = 'x';
        CONFIG_RESULTS[C_SPEED_MAX] = uae_conf("cpu_speed max", &out);
        CONFIG_RESULTS[C_OUT_BYTE] = (u8)out;
        CONFIG_RESULTS[C_SPEED_REAL] = uae_conf("cpu_speed real", &out);
        CONFIG_RESULTS[C_WARP_TRUE] = uae_conf("warp true", &out);
        CONFIG_RESULTS[C_WARP_FALSE] = uae_conf("warp false", &out);
        CONFIG_RESULTS[C_CYCLE_EXACT] = uae_conf("blitter_cycle_exact true", &out);
        CONFIG_RESULTS[C_BAD] = uae_conf("cpu_model 68020", &out);
        CONFIG_RESULTS[C_BAD_AGAIN] = uae_conf("cpu_model 68020", &out);
        /* And warp on again, as warpmode(1) leaves it while a program precalculates. */
        CONFIG_RESULTS[C_WARP_AGAIN] = uae_conf("cpu_speed max", &out);
        CONFIG_RESULTS[C_DONE] = 0x600DF00D;
    }

    *(volatile u32*)0x24 = (u32)trace_handler;
    uaelib_traces = 0;
    RESULTS[R_TRACED_LOG] = traced_kprintf("uaelib_calls: traced");
    RESULTS[R_TRACES] = uaelib_traces;
    RESULTS[R_DONE] = 0x600DF00D;
    return 0;
}
