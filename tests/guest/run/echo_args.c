// SPDX-License-Identifier: GPL-3.0-or-later
/* Writes its argument line back and uses uaelib: a log line, idle markers and a resource
 * registration. Returns 0 when uaelib answered. */
#include <copperline/amiga.h>
#include <copperline/guest_api.h>

static const char palette[4] = {0, 0, 0x0F, 0xFF};

int main(void) {
    Write(Output(), __commandline, __commandlen);
    if (!cl_present()) return 10;
    if (cl_log("echo_args says hello to the host") != 1) return 11;
    if (cl_register_palette(palette, "test palette", 2) != 1) return 12;
    cl_idle_start();
    Delay(5);
    cl_idle_stop();
    return 0;
}
