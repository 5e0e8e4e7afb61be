// SPDX-License-Identifier: GPL-3.0-or-later
/* Values of every shape the source-level debugger formats, as initialized data: the test
 * (tests/integration/test_debugger.cpp) prints each with gdb from the ELF and with `eval`
 * in the running program, and expects the same text (addresses aside). */
#include <copperline/amiga.h>

typedef enum { RED, GREEN = 4, BLUE } Color;
typedef enum { F_A = 1, F_B = 2, F_C = 4 } Flags;
struct Inner { unsigned char u8; signed char s8; unsigned short u16; };
struct Outer {
    struct Inner in[2];
    const char* label;
    char name[8];
    Color c;
    int bits : 3;
    unsigned ub : 5;
    float f;
    double d;
    _Bool ok;
};
union Mix { unsigned long l; unsigned short w[2]; unsigned char b[4]; };

struct Outer o = {{{200, -3, 65535}, {1, 2, 3}}, "hey", "abc", BLUE, -2, 17, 1.5f, -0.25, 1};
struct Outer many[2];
Color unknown = (Color)7;
Flags both = F_A | F_C;
int matrix[2][3] = {{1, 2, 3}, {4, 5, 6}};
char buf[5] = {'a', 0, 'b', '\n', 0x7f};
unsigned char bytes[3] = {0, 128, 255};
const char* strs[2] = {"x", 0};
char z[16] = "ab";
char full[4] = {'a', 'b', 'c', 'd'};
char mixed[24] = {'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'y'};
int arr[5] = {7, 7, 7, 7, 7};
int zeros[16];
short mostly[14] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 1, 2};
int huge[300];
int* mid = &arr[2];
struct Outer* op = &o;
void* vp = &o;
long big = -2147483647L - 1;
unsigned long ubig = 4294967295UL;
short neg = -5;
long long wide = -1234567890123LL;
union Mix mix = {0x11223344UL};

int main(void) {
    return o.c + unknown + both + matrix[0][0] + buf[0] + bytes[0] + z[0] + full[0] + mixed[0] + *mid +
                   many[0].c + zeros[0] + mostly[0] + huge[0] + (op == vp) + (int)big + (int)ubig + neg +
                   (int)wide + (int)mix.l + (strs[0] != 0) ==
               0
               ? 1
               : 0;
}
