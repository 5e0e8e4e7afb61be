// SPDX-License-Identifier: GPL-3.0-or-later
/* Nine hundred functions whose frames change all the time, so that building the unwind table
 * is measured on a text of realistic size (some 120 KB): every call pushes its arguments,
 * moving the CFA at each push and pop, and each function keeps values in saved registers. */

#define NOINLINE __attribute__((noinline))

NOINLINE int sink(int a, int b, int c) {
    return a * 3 + b - c;
}

#define F(n)                                                                                   \
    NOINLINE int f##n(const int* p, int a) {                                                   \
        int s = sink(p[0], a, n), t = sink(p[1], s, a), u = sink(p[2] + t, s, n);              \
        for (int i = 0; i < a; ++i)                                                            \
            s += sink(p[i & 3] * t, u, i) ^ (s >> 3);                                          \
        return s + t * u;                                                                      \
    }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n)                                                                                \
    F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) \
        F10(n##9)

F100(1) F100(2) F100(3) F100(4) F100(5) F100(6) F100(7) F100(8) F100(9)

int guest_main(void) {
    static const int values[4] = {1, 2, 3, 4};
    return f100(values, 3) + f999(values, 2);
}
