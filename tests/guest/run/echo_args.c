/* Writes its argument line back and uses the guest API: a log message, idle markers and
 * a resource registration. Returns 0 when the guest API answered. */
#include <copperline/amiga.h>
#include <copperline/guest_api.h>

static const char palette[4] = {0, 0, 0x0F, 0xFF};

int main(void) {
    struct cl_resource r = {CL_RESOURCE_PALETTE, (unsigned long)palette, 4, 0, 0, 2, 0, "test palette"};
    Write(Output(), __commandline, __commandlen);
    if (!cl_present()) return 10;
    cl_log("echo_args says hello to the host");
    cl_register(&r);
    cl_idle_start();
    Delay(5);
    cl_idle_stop();
    return 0;
}
