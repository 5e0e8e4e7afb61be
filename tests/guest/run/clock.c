// SPDX-License-Identifier: GPL-3.0-or-later
/* Prints the system time as dos.library keeps it (which AmigaOS sets from the battery-
 * backed clock at boot): "clock days D minute M tick T", then the same a second later, so
 * that a test can see what time the machine's clock gave and that it advances. */
#include <copperline/amiga.h>

static void show(void) {
    struct DateStamp now;
    char line[80];
    unsigned n = 0;
    DateStamp(&now);
    n = text_put(line, n, "clock days ");
    n = text_put_decimal(line, n, (unsigned long)now.days);
    n = text_put(line, n, " minute ");
    n = text_put_decimal(line, n, (unsigned long)now.minute);
    n = text_put(line, n, " tick ");
    n = text_put_decimal(line, n, (unsigned long)now.tick);
    n = text_put(line, n, "\n");
    Write(Output(), line, (LONG)n);
}

int main(void) {
    show();
    Delay(50);
    show();
    return 0;
}
