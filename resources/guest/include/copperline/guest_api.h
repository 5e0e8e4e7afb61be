/* Copperline's host calls for guest programs (docs/guest-api.md).
 *
 * A guest talks to the emulator by writing to a reserved window of the address space,
 * $F7FF00-$F7FFFF, which nothing on an A500 decodes (writes there are ignored by real
 * hardware, so a program that uses these calls still runs on an Amiga). Each call is one
 * MOVE: a word for the idle markers, a longword pointer for the rest. Reading the first
 * word of the window gives $434C ("CL") under Copperline.
 *
 * Usable from C and from assembly (through the C preprocessor, .S files).
 */
#ifndef COPPERLINE_GUEST_API_H
#define COPPERLINE_GUEST_API_H

#define CL_API_BASE      0xF7FF00
#define CL_API_MAGIC     (CL_API_BASE + 0x00) /* read: $434C under Copperline */
#define CL_API_VERSION   (CL_API_BASE + 0x02) /* read: interface version, 1 */
#define CL_API_IDLE      (CL_API_BASE + 0x10) /* word: 1 = idle starts, 0 = idle stops */
#define CL_API_LOG       (CL_API_BASE + 0x20) /* long: address of a NUL-terminated message */
#define CL_API_RESOURCE  (CL_API_BASE + 0x30) /* long: address of a struct cl_resource */
#define CL_API_RUN       (CL_API_BASE + 0x40) /* long: address of a struct cl_run_event */

#define CL_MAGIC 0x434C

/* Resource kinds. */
#define CL_RESOURCE_REMOVE   0 /* forget the resource registered at this address */
#define CL_RESOURCE_BITMAP   1 /* planar bitmap: width, height, depth, bytes_per_row */
#define CL_RESOURCE_PALETTE  2 /* colour table: count words of $0RGB */
#define CL_RESOURCE_COPPER   3 /* copper list: size in bytes */

/* Run events (the --run protocol; the runner sends them, docs/guest-api.md). */
#define CL_RUN_STARTED     1 /* a = DOSBase, b = Output() of the shell */
#define CL_RUN_LOADED      2 /* a = LoadSeg's segment list (a BPTR) */
#define CL_RUN_LOAD_FAILED 3 /* a = IoErr() */
#define CL_RUN_EXITED      4 /* a = the program's return code */

#ifdef __ASSEMBLER__

/* Assembly: CL_IDLE_START / CL_IDLE_STOP, and CL_LOG label (the label of a string). */
    .macro CL_IDLE_START
    move.w  #1,CL_API_IDLE
    .endm
    .macro CL_IDLE_STOP
    move.w  #0,CL_API_IDLE
    .endm
    .macro CL_LOG label
    move.l  #\label,CL_API_LOG
    .endm
    .macro CL_REGISTER resource
    move.l  #\resource,CL_API_RESOURCE
    .endm

#else

struct cl_resource {
    unsigned long kind;          /* CL_RESOURCE_... */
    unsigned long address;       /* where it lives in guest memory */
    unsigned long size;          /* bytes */
    unsigned short width;        /* bitmap: pixels */
    unsigned short height;       /* bitmap: rows */
    unsigned short depth;        /* bitmap: planes; palette: colours */
    unsigned short bytes_per_row;/* bitmap: row modulo included */
    const char* name;            /* NUL-terminated, up to 63 characters */
};

struct cl_run_event {
    unsigned long event;         /* CL_RUN_... */
    unsigned long a, b, c;
};

/* The emulator reads the record a pointer names when the pointer is written: the barrier
 * makes the compiler finish storing the record (and the string) first. */
#define CL__BARRIER() __asm__ volatile("" ::: "memory")

static inline int cl_present(void) { return *(volatile unsigned short*)CL_API_MAGIC == CL_MAGIC; }
/* The CPU is idle from here (waiting for the next frame, say) until cl_idle_stop(). */
static inline void cl_idle_start(void) { *(volatile unsigned short*)CL_API_IDLE = 1; }
static inline void cl_idle_stop(void) { *(volatile unsigned short*)CL_API_IDLE = 0; }
/* A message for the host's log. The string must stay put until the call returns. */
static inline void cl_log(const char* message) {
    CL__BARRIER();
    *(const char* volatile*)CL_API_LOG = message;
}
static inline void cl_register(const struct cl_resource* r) {
    CL__BARRIER();
    *(const void* volatile*)CL_API_RESOURCE = r;
}
static inline void cl_run_event(const struct cl_run_event* e) {
    CL__BARRIER();
    *(const void* volatile*)CL_API_RUN = e;
    CL__BARRIER();
}

#endif
#endif
