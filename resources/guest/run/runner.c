/* CopperlineRun: the program `copperline --run` puts on its boot disk (docs/guest-api.md,
 * "The --run protocol").
 *
 *     CopperlineRun :PROG arguments...
 *
 * loads PROG with LoadSeg, tells the emulator where its segments are, runs it with
 * RunCommand on the shell's own input and output, and tells the emulator its return code,
 * which is also ours. The emulator learns the hunks' load addresses from LoadSeg's
 * segment list, exactly as AmigaDOS placed them. */
#include <copperline/amiga.h>
#include <copperline/guest_api.h>

#define STACK_BYTES 16384

static char name[256];

static void send(unsigned long event, unsigned long a, unsigned long b) {
    struct cl_run_event e;
    e.event = event;
    e.a = a;
    e.b = b;
    e.c = 0;
    cl_run_event(&e);
}

int main(void) {
    const char* p = __commandline;
    const char* end = p + __commandlen;
    unsigned n = 0;
    long rc;
    BPTR seg;

    while (p < end && *p == ' ') ++p;
    if (p < end && *p == '"') {
        ++p;
        while (p < end && *p != '"' && *p != '\n' && n < sizeof name - 1) name[n++] = *p++;
        if (p < end && *p == '"') ++p;
    } else {
        while (p < end && *p != ' ' && *p != '\n' && n < sizeof name - 1) name[n++] = *p++;
    }
    name[n] = 0;
    if (p < end && *p == ' ') ++p;
    /* The rest of the line, newline included, is the program's argument line. */

    send(CL_RUN_STARTED, (unsigned long)DOSBase, (unsigned long)Output());
    seg = LoadSeg(name);
    if (!seg) {
        send(CL_RUN_LOAD_FAILED, (unsigned long)IoErr(), 0);
        return 20;
    }
    send(CL_RUN_LOADED, (unsigned long)seg, 0);
    rc = RunCommand(seg, STACK_BYTES, p, end - p);
    send(CL_RUN_EXITED, (unsigned long)rc, 0);
    UnLoadSeg(seg);
    return (int)rc;
}
