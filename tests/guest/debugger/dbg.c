// SPDX-License-Identifier: GPL-3.0-or-later
/* The source-level debugger's program (tests/integration/test_debugger.cpp), built at -O0
 * and at -O2 and run under AROS with --run. Each line a test names carries a marker comment
 * ("@name"); the test reads this file to find its line. What it computes is known, so every
 * variable a test reads has an exact expected value:
 *   items[i] = {x = i + 2, y = 10 * (i + 1), shape, flags {visible = i & 1, layer = i + 1,
 *               delta = -(i + 1)}, name = names[i], next = &items[i + 1] or 0}
 *   area(items[i]) = 2 * x * y + 1 = 41, 121, 241;  walk(items) = 403;  ticks = 3
 *   word.l = 0x11223344 (word.b[1] = 0x22);  scale(ticks + 31 = 34, 3) = 103
 * scale() is inlined into area() and main() at -O2: two inlined copies of its lines. */
#include <copperline/amiga.h>

#define NOINLINE __attribute__((noinline))

typedef enum { SHAPE_NONE, SHAPE_BOX = 3, SHAPE_ROUND } Shape;

struct Flags {
    unsigned visible : 1;
    unsigned layer : 3;
    int delta : 4;
};

typedef struct Item {
    short x, y;
    Shape shape;
    struct Flags flags;
    const char* name;
    struct Item* next;
} Item;

union Word {
    unsigned long l;
    unsigned short w[2];
    unsigned char b[4];
};

volatile long ticks;
static Item items[3];
static const char* const names[3] = {"alpha", "beta", "gamma"};
int results[2];

static inline int scale(int v, int f) {
    int r = v * f; /* @scale_body */
    return r + 1;  /* @scale_ret */
}

static NOINLINE int area(const Item* it) {
    int w = it->x;      /* @area_w */
    int h = it->y;      /* @area_h */
    int a = w * h;      /* @area_a */
    return scale(a, 2); /* @area_ret */
}

static NOINLINE long walk(Item* head) {
    long total = 0;                        /* @walk_total */
    for (Item* p = head; p; p = p->next) { /* @walk_for */
        total += area(p);                  /* @walk_add */
        ticks++;                           /* @walk_tick */
    }
    return total; /* @walk_ret */
}

static NOINLINE void fill(void) {
    for (int i = 0; i < 3; i++) { /* @fill_for */
        Item* it = &items[i];
        it->x = (short)(i + 2);
        it->y = (short)(10 * (i + 1));
        it->shape = i ? SHAPE_ROUND : SHAPE_BOX;
        it->flags.visible = (unsigned)i & 1;
        it->flags.layer = (unsigned)i + 1;
        it->flags.delta = -(i + 1);
        it->name = names[i];
        it->next = i < 2 ? &items[i + 1] : 0; /* @fill_next */
    }
}

int main(void) {
    union Word word;
    word.l = 0x11223344;          /* @main_word */
    fill();                       /* @main_fill */
    long total = walk(items);     /* @main_walk */
    int s = scale((int)ticks + 31, 3); /* @main_scale */
    results[0] = (int)total;      /* @main_results */
    results[1] = s + word.b[1] - 0x22;
    void* mem = AllocMem(64, 0);  /* @main_alloc */
    FreeMem(mem, 64);             /* @main_free */
    return results[0] == 403 && results[1] == 103 ? 0 : 20; /* @main_ret */
}
