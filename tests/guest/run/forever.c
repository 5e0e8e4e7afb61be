/* Never returns. */
#include <copperline/amiga.h>

int main(void) {
    for (;;) {
    }
}
