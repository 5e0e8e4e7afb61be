// SPDX-License-Identifier: GPL-3.0-or-later
/* CopperlineRun: the program `copperline --run` puts on its boot disk (docs/guest-api.md,
 * "The --run protocol").
 *
 *     CopperlineRun :PROG arguments...
 *
 * loads PROG with LoadSeg, tells the emulator where its segments are, runs it with
 * RunCommand on the shell's own input and output, and tells the emulator its return code,
 * which is also ours. The emulator learns the hunks' load addresses from LoadSeg's
 * segment list, exactly as AmigaDOS placed them.
 *
 * Then, when the volume PROG is on holds a file Run-Then (`copperline --run-then`), the
 * loader runs each of its lines, "COMMAND arguments...", the same way in the same shell:
 * LoadSeg (which may put it where PROG's freed hunks were), RunCommand, UnLoadSeg. It
 * says "finished" when there is nothing more to run. */
#include <copperline/amiga.h>
#include <copperline/guest_api.h>

#define STACK_BYTES 16384

#define THEN_BYTES 4096

static char name[256];

static void send(unsigned long event, unsigned long a, unsigned long b) {
    struct cl_run_event e;
    e.event = event;
    e.a = a;
    e.b = b;
    e.c = 0;
    cl_run_event(&e);
}

/* What exec has free, for the emulator's "not enough memory" report. */
static void sendMemory(void) {
    send(CL_RUN_MEMORY, AvailMem(0), AvailMem(0x20000 /* MEMF_LARGEST */));
}

/* The program name at the start of [p, end): a word, or a quoted string. Returns where
 * its arguments start (after one space). */
static const char* parseName(const char* p, const char* end, char* out, unsigned size) {
    unsigned n = 0;
    while (p < end && *p == ' ') ++p;
    if (p < end && *p == '"') {
        ++p;
        while (p < end && *p != '"' && *p != '\n' && n < size - 1) out[n++] = *p++;
        if (p < end && *p == '"') ++p;
    } else {
        while (p < end && *p != ' ' && *p != '\n' && n < size - 1) out[n++] = *p++;
    }
    out[n] = 0;
    if (p < end && *p == ' ') ++p;
    return p;
}

/* The path of Run-Then on PROG's volume: PROG's name up to its last ':' (or none). */
static void thenPath(char* out, unsigned size) {
    unsigned colon = 0, n = 0, i;
    for (i = 0; name[i]; ++i)
        if (name[i] == ':') colon = i + 1;
    for (i = 0; i < colon && n < size - 10; ++i) out[n++] = name[i];
    for (i = 0; "Run-Then"[i]; ++i) out[n++] = "Run-Then"[i];
    out[n] = 0;
}

/* Its buffer is allocated only when there is a Run-Then, and read before PROG is loaded,
 * so that nothing of ours takes the memory PROG frees for the commands after it. */
static char* then;
static long thenLength;

static void readThen(void) {
    char path[280];
    BPTR file;
    thenPath(path, sizeof path);
    file = Open(path, 1005 /* MODE_OLDFILE */);
    if (!file) return;
    then = (char*)AllocMem(THEN_BYTES + 256, 0);
    if (then) thenLength = Read(file, then, THEN_BYTES - 1);
    Close(file);
}

static void runThen(void) {
    char* command = then + THEN_BYTES;
    long i, line = 0;
    if (!then) return;
    for (i = 0; i < thenLength;) {
        const char* start = then + i;
        const char* stop = start;
        const char* args;
        BPTR seg;
        while (stop < then + thenLength && *stop != '\n') ++stop;
        i = stop - then + 1;
        if (stop == start) continue;
        /* The argument line keeps its newline, as the shell passes it. */
        args = parseName(start, stop, command, 256);
        seg = LoadSeg(command);
        if (!seg) {
            sendMemory();
            send(CL_RUN_LOAD_FAILED, (unsigned long)IoErr(), (unsigned long)line + 1);
        } else {
            send(CL_RUN_THEN_LOADED, (unsigned long)seg, (unsigned long)line);
            RunCommand(seg, STACK_BYTES, args, stop + (stop < then + thenLength) - args);
            UnLoadSeg(seg);
        }
        ++line;
    }
    FreeMem(then, THEN_BYTES + 256);
}

int main(void) {
    const char* end = __commandline + __commandlen;
    /* The rest of the line, newline included, is the program's argument line. */
    const char* p = parseName(__commandline, end, name, sizeof name);
    long rc;
    BPTR seg;

    send(CL_RUN_STARTED, (unsigned long)DOSBase, (unsigned long)Output());
    readThen();
    seg = LoadSeg(name);
    if (!seg) {
        const long error = IoErr();
        sendMemory();
        send(CL_RUN_LOAD_FAILED, (unsigned long)error, 0);
        return 20;
    }
    send(CL_RUN_LOADED, (unsigned long)seg, 0);
    rc = RunCommand(seg, STACK_BYTES, p, end - p);
    /* RunCommand gives -1 when it could not start the program (no memory for its stack);
     * b carries IoErr() then. */
    if (rc == -1) sendMemory();
    send(CL_RUN_EXITED, (unsigned long)rc, rc == -1 ? (unsigned long)IoErr() : 0);
    UnLoadSeg(seg);
    runThen();
    send(CL_RUN_FINISHED, 0, 0);
    return (int)rc;
}
