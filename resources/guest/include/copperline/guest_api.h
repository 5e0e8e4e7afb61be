// SPDX-License-Identifier: GPL-3.0-or-later
/* Copperline's host calls for guest programs (docs/guest-api.md).
 *
 * A guest talks to the emulator through uaelib, the call UAE provides at $F0FF60, exactly
 * as programs built with Bartman's toolchain make it: the word at $F0FF60 reads $A00E (or
 * $4EB9 in other UAEs) when the call is there; the program then calls $F0FF60 as a C
 * function, the function number and four longwords on the stack, the result in D0 (1 done,
 * 0 refused). On a real Amiga the word is something else and these helpers do nothing.
 *
 * The --run loader's events, which uaelib has no call for, still go to the reserved
 * window $F7FF00-$F7FFFF.
 *
 * Usable from C and from assembly (through the C preprocessor, .S files).
 */
#ifndef COPPERLINE_GUEST_API_H
#define COPPERLINE_GUEST_API_H

#define CL_UAELIB          0xF0FF60
#define CL_UAELIB_TRAP     0xA00E /* the word at CL_UAELIB under UAE and Copperline */
#define CL_UAELIB_JSR      0x4EB9 /* the word at CL_UAELIB in UAEs that use a trampoline */
#define CL_FN_LOG          86     /* ARG1: NUL-terminated text */
#define CL_FN_DEBUG        88     /* ARG1: a CL_CMD_ command */

/* Function 88's commands. */
#define CL_CMD_CLEAR       0 /* the overlay */
#define CL_CMD_RECT        1 /* left << 16 | top, right << 16 | bottom, $RRGGBB */
#define CL_CMD_FILLED_RECT 2
#define CL_CMD_TEXT        3 /* left << 16 | top, text, $RRGGBB */
#define CL_CMD_REGISTER    4 /* struct cl_resource* */
#define CL_CMD_SET_IDLE    5 /* 1 idle starts, 0 idle stops */
#define CL_CMD_UNREGISTER  6 /* address, 0 for all */
#define CL_CMD_LOAD        7 /* struct cl_resource* {address, size (out), name} */
#define CL_CMD_SAVE        8 /* struct cl_resource* {address, size, name} */

/* Resource types and flags (struct cl_resource). */
#define CL_RESOURCE_BITMAP      0
#define CL_RESOURCE_PALETTE     1
#define CL_RESOURCE_COPPERLIST  2
#define CL_BITMAP_INTERLEAVED   1
#define CL_BITMAP_MASKED        2
#define CL_BITMAP_HAM           4

/* The --run protocol's window (docs/guest-api.md). */
#define CL_API_BASE      0xF7FF00
#define CL_API_MAGIC     (CL_API_BASE + 0x00) /* read: $434C under Copperline */
#define CL_API_VERSION   (CL_API_BASE + 0x02) /* read: interface version, 2 */
#define CL_API_RUN       (CL_API_BASE + 0x40) /* long: address of a struct cl_run_event */
#define CL_MAGIC 0x434C

/* Run events (the --run protocol; the runner sends them). */
#define CL_RUN_STARTED     1 /* a = DOSBase, b = Output() of the shell */
#define CL_RUN_LOADED      2 /* a = LoadSeg's segment list (a BPTR) */
#define CL_RUN_LOAD_FAILED 3 /* a = IoErr() */
#define CL_RUN_EXITED      4 /* a = the program's return code */
#define CL_RUN_THEN_LOADED 5 /* a = a then-command's segment list, b = its line (0, 1, ...) */
#define CL_RUN_FINISHED    6 /* the then-commands are done (sent after every run) */
#define CL_RUN_MEMORY      7 /* a = AvailMem(MEMF_ANY), b = AvailMem(MEMF_LARGEST): sent just
                                before a LOAD_FAILED, and before an EXITED whose RunCommand
                                failed (-1) */

#ifdef __ASSEMBLER__

/* Assembly: CL_CALL fn, a1, a2, a3, a4 (immediates) leaves the result in D0; it keeps
 * every other register. CL_IDLE_START, CL_IDLE_STOP and CL_LOG label build on it. */
    .macro CL_CALL fn, a1=0, a2=0, a3=0, a4=0
    move.l  #\a4,-(%sp)
    move.l  #\a3,-(%sp)
    move.l  #\a2,-(%sp)
    move.l  #\a1,-(%sp)
    move.l  #\fn,-(%sp)
    jsr     CL_UAELIB
    lea     20(%sp),%sp
    .endm
    .macro CL_IDLE_START
    CL_CALL CL_FN_DEBUG, CL_CMD_SET_IDLE, 1
    .endm
    .macro CL_IDLE_STOP
    CL_CALL CL_FN_DEBUG, CL_CMD_SET_IDLE, 0
    .endm
    .macro CL_LOG label
    CL_CALL CL_FN_LOG, \label
    .endm

#else

/* struct debug_resource of gcc8_c_support.c: 50 bytes, big-endian. */
struct cl_resource {
    unsigned long address;
    unsigned long size;    /* bytes */
    char name[32];         /* NUL-terminated */
    unsigned short type;   /* CL_RESOURCE_ */
    unsigned short flags;  /* CL_BITMAP_ */
    union {
        struct { short width, height, planes; } bitmap;
        struct { short entries; } palette;
    } u;
};

struct cl_run_event {
    unsigned long event; /* CL_RUN_... */
    unsigned long a, b, c;
};

typedef long (*cl_uaelib_fn)(unsigned long, unsigned long, unsigned long, unsigned long, unsigned long);

static inline int cl_present(void) {
    const unsigned short w = *(volatile const unsigned short*)CL_UAELIB;
    return w == CL_UAELIB_TRAP || w == CL_UAELIB_JSR;
}
/* The call itself; 0 when uaelib is absent. The compiler stores what the arguments point
 * to before the call, as for any function call. */
static inline long cl_uaelib(unsigned long fn, unsigned long a1, unsigned long a2, unsigned long a3,
                             unsigned long a4) {
    if (!cl_present()) return 0;
    return ((cl_uaelib_fn)CL_UAELIB)(fn, a1, a2, a3, a4);
}
static inline long cl_debug(unsigned long cmd, unsigned long a2, unsigned long a3, unsigned long a4) {
    return cl_uaelib(CL_FN_DEBUG, cmd, a2, a3, a4);
}

/* A line for the host's log (KPrintF's call, without the formatting). */
static inline long cl_log(const char* text) { return cl_uaelib(CL_FN_LOG, (unsigned long)text, 0, 0, 0); }
/* The CPU is idle from here (waiting for the next frame, say) until cl_idle_stop(). */
static inline void cl_idle_start(void) { cl_debug(CL_CMD_SET_IDLE, 1, 0, 0); }
static inline void cl_idle_stop(void) { cl_debug(CL_CMD_SET_IDLE, 0, 0, 0); }

static inline void cl__name(char* to, const char* from) {
    unsigned n = 0;
    while (from[n] && n < 31) {
        to[n] = from[n];
        ++n;
    }
    while (n < 32) to[n++] = 0;
}
static inline long cl_register(const struct cl_resource* r) {
    return cl_debug(CL_CMD_REGISTER, (unsigned long)r, 0, 0);
}
static inline long cl_register_bitmap(const void* a, const char* name, short width, short height, short planes,
                                      unsigned short flags) {
    struct cl_resource r;
    r.address = (unsigned long)a;
    r.size = (unsigned long)(width / 8) * height * planes * ((flags & CL_BITMAP_MASKED) ? 2 : 1);
    cl__name(r.name, name);
    r.type = CL_RESOURCE_BITMAP;
    r.flags = flags;
    r.u.bitmap.width = width;
    r.u.bitmap.height = height;
    r.u.bitmap.planes = planes;
    return cl_register(&r);
}
static inline long cl_register_palette(const void* a, const char* name, short entries) {
    struct cl_resource r;
    r.address = (unsigned long)a;
    r.size = (unsigned long)entries * 2;
    cl__name(r.name, name);
    r.type = CL_RESOURCE_PALETTE;
    r.flags = 0;
    r.u.bitmap.width = r.u.bitmap.height = r.u.bitmap.planes = 0;
    r.u.palette.entries = entries;
    return cl_register(&r);
}
static inline long cl_register_copperlist(const void* a, const char* name, unsigned long size) {
    struct cl_resource r;
    r.address = (unsigned long)a;
    r.size = size;
    cl__name(r.name, name);
    r.type = CL_RESOURCE_COPPERLIST;
    r.flags = 0;
    r.u.bitmap.width = r.u.bitmap.height = r.u.bitmap.planes = 0;
    return cl_register(&r);
}
static inline long cl_unregister(const void* a) { return cl_debug(CL_CMD_UNREGISTER, (unsigned long)a, 0, 0); }

/* The debug overlay, in PAL coordinates 0..767 x 0..575; colours $RRGGBB. */
static inline long cl_overlay_clear(void) { return cl_debug(CL_CMD_CLEAR, 0, 0, 0); }
#define CL__XY(x, y) (((unsigned long)(unsigned short)(x) << 16) | (unsigned short)(y))
static inline long cl_overlay_rect(short l, short t, short r, short b, unsigned long rgb) {
    return cl_debug(CL_CMD_RECT, CL__XY(l, t), CL__XY(r, b), rgb);
}
static inline long cl_overlay_filled_rect(short l, short t, short r, short b, unsigned long rgb) {
    return cl_debug(CL_CMD_FILLED_RECT, CL__XY(l, t), CL__XY(r, b), rgb);
}
static inline long cl_overlay_text(short l, short t, const char* text, unsigned long rgb) {
    return cl_debug(CL_CMD_TEXT, CL__XY(l, t), (unsigned long)text, rgb);
}

/* A host file in the folder the user named (--guest-files DIR). cl_load returns the bytes
 * loaded (0: refused); cl_save returns 1 when the file was written. */
static inline unsigned long cl_load(void* to, const char* name) {
    struct cl_resource r;
    r.address = (unsigned long)to;
    r.size = 0;
    cl__name(r.name, name);
    r.type = r.flags = 0;
    cl_debug(CL_CMD_LOAD, (unsigned long)&r, 0, 0);
    return *(volatile unsigned long*)&r.size;
}
static inline long cl_save(const void* from, unsigned long size, const char* name) {
    struct cl_resource r;
    r.address = (unsigned long)from;
    r.size = size;
    cl__name(r.name, name);
    r.type = r.flags = 0;
    return cl_debug(CL_CMD_SAVE, (unsigned long)&r, 0, 0);
}

/* The --run loader's events. The emulator reads the record when the pointer is written:
 * the barrier makes the compiler finish storing it first. */
#define CL__BARRIER() __asm__ volatile("" ::: "memory")
static inline void cl_run_event(const struct cl_run_event* e) {
    CL__BARRIER();
    *(const void* volatile*)CL_API_RUN = e;
    CL__BARRIER();
}

#endif
#endif
