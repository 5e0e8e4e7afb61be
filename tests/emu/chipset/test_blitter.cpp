// SPDX-License-Identifier: GPL-3.0-or-later
// The blitter: every minterm, shift, mask, modulo and fill against a per-pixel model built
// here; lines in all eight octants against a coordinate Bresenham; the channel sequence of
// every channel mix against the HRM cycle table; clock counts, stalls, flags and
// save/load in the middle of a blit.

#include "emu/chipset/blitter.h"
#include "emu/chipset/custom_regs.h"
#include "emu/memory/chip_ram.h"
#include "emu/state/archive.h"

#include <QtTest>
#include <bit>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace copperline;

namespace {

using Memory = std::vector<std::uint8_t>;

struct Rig {
    ChipRam ram;
    Blitter blt{ram};
    Memory snapshot() const { return Memory(ram.data(), ram.data() + ram.size()); }
};

std::uint16_t readWord(const Memory& m, std::uint32_t a) {
    a &= 0x7FFFE;
    return std::uint16_t(m[a] << 8 | m[a + 1]);
}
void writeWord(Memory& m, std::uint32_t a, std::uint16_t v) {
    a &= 0x7FFFE;
    m[a] = std::uint8_t(v >> 8);
    m[a + 1] = std::uint8_t(v);
}

// The first differing byte, or -1.
long firstDifference(const Memory& a, const Memory& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return long(i);
    return -1;
}

void pokePointer(Blitter& b, std::uint16_t regHigh, std::uint32_t addr) {
    b.poke(regHigh, std::uint16_t(addr >> 16));
    b.poke(std::uint16_t(regHigh + 2), std::uint16_t(addr));
}

// An area blit as a programmer sets it up.
struct AreaBlit {
    std::uint16_t con0 = 0, con1 = 0, afwm = 0xFFFF, alwm = 0xFFFF;
    std::uint16_t adat = 0, bdat = 0, cdat = 0;
    std::uint32_t apt = 0, bpt = 0, cpt = 0, dpt = 0;
    std::int16_t amod = 0, bmod = 0, cmod = 0, dmod = 0;
    int w = 1, h = 1;
    std::uint16_t size() const { return std::uint16_t((h & 1023) << 6 | (w & 63)); }
};

// Writes the registers (BLTCON1 before BLTBDAT, as the B shift happens at the write).
void program(Blitter& b, const AreaBlit& s) {
    b.reset();
    b.poke(reg::BLTCON0, s.con0);
    b.poke(reg::BLTCON1, s.con1);
    b.poke(reg::BLTAFWM, s.afwm);
    b.poke(reg::BLTALWM, s.alwm);
    pokePointer(b, reg::BLTAPTH, s.apt);
    pokePointer(b, reg::BLTBPTH, s.bpt);
    pokePointer(b, reg::BLTCPTH, s.cpt);
    pokePointer(b, reg::BLTDPTH, s.dpt);
    b.poke(reg::BLTAMOD, std::uint16_t(s.amod));
    b.poke(reg::BLTBMOD, std::uint16_t(s.bmod));
    b.poke(reg::BLTCMOD, std::uint16_t(s.cmod));
    b.poke(reg::BLTDMOD, std::uint16_t(s.dmod));
    b.poke(reg::BLTADAT, s.adat);
    b.poke(reg::BLTBDAT, s.bdat);
    b.poke(reg::BLTCDAT, s.cdat);
}

struct Expected {
    Memory mem;
    bool zero = true;
    std::uint16_t lastD = 0;
    std::uint32_t apt = 0, bpt = 0, cpt = 0, dpt = 0;
};

// The model: every pixel of D is the minterm's bit for that pixel's A, B and C, where A
// and B come from one bit stream per channel in the order the blit visits them (zeros
// before the first bit), delayed by the channel's shift. Ascending blits visit each word
// from its leftmost pixel, descending ones from its rightmost (HRM "Shifts",
// "Descending Mode"). Fill then runs through each row from bit 0 of its first word.
Expected modelArea(const Memory& before, const AreaBlit& s) {
    const bool desc = s.con1 & 0x0002;
    const bool useA = s.con0 & 0x0800, useB = s.con0 & 0x0400, useC = s.con0 & 0x0200,
               useD = s.con0 & 0x0100;
    const int dir = desc ? -1 : 1;
    auto addr = [&](std::uint32_t p, int mod, int x, int y) {
        return std::uint32_t(long(p) + dir * (long(y) * (2 * s.w + mod) + 2 * x)) & 0x7FFFE;
    };
    const int n = s.w * s.h;
    std::vector<std::uint16_t> A(n), B(n), C(n);
    for (int y = 0; y < s.h; ++y) {
        for (int x = 0; x < s.w; ++x) {
            const int k = y * s.w + x;
            std::uint16_t mask = 0xFFFF;
            if (x == 0) mask &= s.afwm;
            if (x == s.w - 1) mask &= s.alwm;
            A[k] =
                std::uint16_t((useA ? readWord(before, addr(s.apt, s.amod, x, y)) : s.adat) & mask);
            B[k] = useB ? readWord(before, addr(s.bpt, s.bmod, x, y)) : 0;
            C[k] = useC ? readWord(before, addr(s.cpt, s.cmod, x, y)) : s.cdat;
        }
    }
    // Position i of a word: i = 0 is the first pixel visited.
    auto bitOf = [&](int i) { return desc ? i : 15 - i; };
    auto streamBit = [&](const std::vector<std::uint16_t>& words, long p) -> unsigned {
        if (p < 0) return 0;
        return (words[std::size_t(p / 16)] >> bitOf(int(p % 16))) & 1u;
    };
    const int ash = s.con0 >> 12, bsh = s.con1 >> 12;
    // A disabled B channel holds BLTBDAT as shifted at its write (a fresh blitter: zeros
    // come in from the previous word).
    const std::uint16_t bHeld = desc ? std::uint16_t(s.bdat << bsh) : std::uint16_t(s.bdat >> bsh);
    const unsigned lf = s.con0 & 0xFF;

    std::vector<std::uint16_t> D(n);
    for (int k = 0; k < n; ++k) {
        std::uint16_t d = 0;
        for (int i = 0; i < 16; ++i) {
            const int bit = bitOf(i);
            const unsigned a = streamBit(A, 16L * k + i - ash);
            const unsigned b = useB ? streamBit(B, 16L * k + i - bsh) : (bHeld >> bit) & 1u;
            const unsigned c = (C[k] >> bit) & 1u;
            if ((lf >> (a << 2 | b << 1 | c)) & 1) d = std::uint16_t(d | 1u << bit);
        }
        D[k] = d;
    }
    const bool ife = s.con1 & 0x0008, efe = s.con1 & 0x0010;
    if (ife || efe) {
        for (int y = 0; y < s.h; ++y) {
            bool inside = s.con1 & 0x0004; // FCI
            for (int x = 0; x < s.w; ++x) {
                std::uint16_t& d = D[std::size_t(y * s.w + x)];
                std::uint16_t out = 0;
                for (int bit = 0; bit < 16; ++bit) {
                    const bool edge = (d >> bit) & 1;
                    bool set;
                    if (efe) {
                        // Exclusive: an edge flips the state and shows the new state.
                        if (edge) inside = !inside;
                        set = inside;
                    } else {
                        // Inclusive: edges always show; the state flips after them.
                        set = edge || inside;
                        if (edge) inside = !inside;
                    }
                    if (set) out = std::uint16_t(out | 1u << bit);
                }
                d = out;
            }
        }
    }

    Expected e;
    e.mem = before;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const std::uint16_t d = D[std::size_t(y * s.w + x)];
            if (d) e.zero = false;
            if (useD) writeWord(e.mem, addr(s.dpt, s.dmod, x, y), d);
        }
    e.lastD = D.back();
    auto end = [&](std::uint32_t p, int mod, bool used) {
        return used ? std::uint32_t(long(p) + dir * long(s.h) * (2 * s.w + mod)) & 0x7FFFE
                    : p & 0x7FFFE;
    };
    e.apt = end(s.apt, s.amod, useA);
    e.bpt = end(s.bpt, s.bmod, useB);
    e.cpt = end(s.cpt, s.cmod, useC);
    e.dpt = end(s.dpt, s.dmod, useD);
    return e;
}

// Per word, in clocks (HRM Table 6-2; the fill idle slot from the HRM errata).
int clocksPerWord(unsigned use, bool fill) {
    const bool b = use & 4, c = use & 2, d = use & 1;
    return 2 + (b ? 1 : 0) + (c && d ? 1 : 0) + (fill && d && !c ? 1 : 0);
}

// Runs a started blit with the given grant pattern; returns the clocks until idle.
template <class Grant>
long runClocked(Blitter& b, Grant grant, long limit = 10'000'000) {
    long clocks = 0;
    while (b.running() && clocks < limit) {
        b.clock(grant(clocks));
        ++clocks;
    }
    return clocks;
}

// The bus activity of a started blit, one token per clock: "A0", "D2", or "-".
std::string sequence(Blitter& b) {
    std::string out;
    int counts[4] = {};
    while (b.running()) {
        const Blitter::Step s = b.clock(true);
        if (!out.empty()) out += ' ';
        if (s.usedBus) {
            out += "ABCD"[s.channel];
            out += std::to_string(counts[s.channel]++);
        } else {
            out += '-';
        }
    }
    return out;
}

// A line as the HRM's recipe sets it up ("Line Mode", Table 6-3), drawn into a plane of
// `rowBytes` bytes per row at `plane`.
struct LineSetup {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    std::uint16_t texture = 0xFFFF;
    unsigned bsh = 0;
    bool sing = false;
    std::uint8_t lf = 0xCA;
    std::uint32_t plane = 0x20000;
    int rowBytes = 40;
};

// HRM Figure 6-8: the octant of a line from its start, and Table 6-3: its BLTCON1 code.
int octantOf(int dx, int dy) {
    const bool shallow = std::abs(dx) >= std::abs(dy);
    if (dy <= 0) {
        if (dx >= 0) return shallow ? 0 : 1;
        return shallow ? 3 : 2;
    }
    if (dx < 0) return shallow ? 4 : 5;
    return shallow ? 7 : 6;
}
constexpr std::uint16_t kOctantCode[8] = {0b110, 0b001, 0b011, 0b111, 0b101, 0b010, 0b000, 0b100};

void programLine(Blitter& b, const LineSetup& l) {
    const int dx = l.x1 - l.x0, dy = l.y1 - l.y0;
    const int dmax = std::max(std::abs(dx), std::abs(dy)),
              dmin = std::min(std::abs(dx), std::abs(dy));
    const int err = 4 * dmin - 2 * dmax;
    const std::uint32_t start = l.plane + std::uint32_t(l.y0 * l.rowBytes + (l.x0 >> 3 & ~1));
    b.reset();
    b.poke(reg::BLTCON0, std::uint16_t((l.x0 & 15) << 12 | 0x0B00 | l.lf));
    b.poke(reg::BLTCON1, std::uint16_t(l.bsh << 12 | kOctantCode[octantOf(dx, dy)] << 2 |
                                       (err < 0 ? 0x40 : 0) | (l.sing ? 0x02 : 0) | 0x01));
    b.poke(reg::BLTAPTL, std::uint16_t(err));
    b.poke(reg::BLTAMOD, std::uint16_t(4 * (dmin - dmax)));
    b.poke(reg::BLTBMOD, std::uint16_t(4 * dmin));
    b.poke(reg::BLTCMOD, std::uint16_t(l.rowBytes));
    b.poke(reg::BLTDMOD, std::uint16_t(l.rowBytes));
    pokePointer(b, reg::BLTCPTH, start);
    pokePointer(b, reg::BLTDPTH, start);
    b.poke(reg::BLTAFWM, 0xFFFF);
    b.poke(reg::BLTALWM, 0xFFFF);
    b.poke(reg::BLTADAT, 0x8000);
    b.poke(reg::BLTBDAT, l.texture);
    b.poke(reg::BLTSIZE, std::uint16_t((dmax + 1) << 6 | 2));
}

// The expected picture: textbook Bresenham in x/y, plotting through the minterm with the
// texture bit for pixel k being BLTBDAT bit (BSH - k) mod 16 (HRM: "the B shift value
// should be set to the bit number at which to start the line texture").
Memory modelLine(const Memory& before, const LineSetup& l, int* pixelsDrawn = nullptr) {
    Memory m = before;
    const int dx = l.x1 - l.x0, dy = l.y1 - l.y0;
    const int sx = dx < 0 ? -1 : 1, sy = dy < 0 ? -1 : 1;
    const bool xMajor = std::abs(dx) >= std::abs(dy);
    const int dmax = std::max(std::abs(dx), std::abs(dy)),
              dmin = std::min(std::abs(dx), std::abs(dy));
    int e = 2 * dmin - dmax;
    int x = l.x0, y = l.y0;
    bool dotOnRow = false;
    int drawn = 0;
    for (int k = 0; k <= dmax; ++k) {
        if (!l.sing || !dotOnRow) {
            const std::uint32_t a = l.plane + std::uint32_t(y * l.rowBytes + (x >> 4) * 2);
            const std::uint16_t c = readWord(m, a);
            const unsigned t = (l.texture >> ((l.bsh - unsigned(k)) & 15)) & 1;
            std::uint16_t d = 0;
            for (int bit = 0; bit < 16; ++bit) {
                const unsigned av = bit == 15 - (x & 15) ? 1 : 0;
                const unsigned cv = (c >> bit) & 1;
                if ((l.lf >> (av << 2 | t << 1 | cv)) & 1) d = std::uint16_t(d | 1u << bit);
            }
            writeWord(m, a, d);
            ++drawn;
        }
        dotOnRow = true;
        const int oldY = y;
        if (e >= 0) {
            if (xMajor)
                y += sy;
            else
                x += sx;
            e += 2 * (dmin - dmax);
        } else {
            e += 2 * dmin;
        }
        if (xMajor)
            x += sx;
        else
            y += sy;
        if (y != oldY) dotOnRow = false;
    }
    if (pixelsDrawn) *pixelsDrawn = drawn;
    return m;
}

void fillRandom(ChipRam& ram, std::mt19937& rng, std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t a = from; a < to; ++a)
        ram.writeByte(a, std::uint8_t(rng()));
}

} // namespace

class TestBlitter : public QObject {
    Q_OBJECT

    // Random area blits with the given minterm and fill bits; `clocked` runs them one clock
    // at a time with a random grant pattern instead of runToCompletion.
    bool checkArea(Rig& r, std::mt19937& rng, std::uint8_t lf, std::uint16_t fillBits, bool desc,
                   bool clocked, bool useDAlways = true) {
        auto pick = [&](int lo, int hi) { return lo + int(rng() % unsigned(hi - lo + 1)); };
        AreaBlit s;
        s.w = pick(1, 6);
        s.h = pick(1, 5);
        unsigned use = rng() & 0xE;
        if (useDAlways || (rng() & 1)) use |= 1;
        s.con0 = std::uint16_t(pick(0, 15) << 12 | use << 8 | lf);
        s.con1 = std::uint16_t(pick(0, 15) << 12 | fillBits | (desc ? 0x0002 : 0));
        s.afwm = std::uint16_t(rng());
        s.alwm = std::uint16_t(rng());
        s.adat = std::uint16_t(rng());
        s.bdat = std::uint16_t(rng());
        s.cdat = std::uint16_t(rng());
        // Sources may read overlapping rows (negative modulos); D rows never overlap.
        s.amod = std::int16_t(2 * pick(-(s.w - 1), 8));
        s.bmod = std::int16_t(2 * pick(-(s.w - 1), 8));
        s.cmod = std::int16_t(2 * pick(-(s.w - 1), 8));
        s.dmod = std::int16_t(2 * pick(0, 8));
        auto place = [&](std::uint32_t base, int mod) {
            return desc ? base + std::uint32_t((s.h - 1) * (2 * s.w + mod) + 2 * (s.w - 1)) : base;
        };
        s.apt = place(0x08000 + 2 * std::uint32_t(pick(0, 64)), s.amod);
        s.bpt = place(0x10000 + 2 * std::uint32_t(pick(0, 64)), s.bmod);
        s.cpt = place(0x18000 + 2 * std::uint32_t(pick(0, 64)), s.cmod);
        s.dpt = place(0x20000 + 2 * std::uint32_t(pick(0, 64)), s.dmod);

        program(r.blt, s);
        const Expected e = modelArea(r.snapshot(), s);
        r.blt.poke(reg::BLTSIZE, s.size());
        if (clocked) {
            std::uint32_t seed = rng();
            runClocked(r.blt,
                       [&](long) { return ((seed = seed * 1103515245u + 12345u) >> 16) & 1; });
        } else {
            r.blt.runToCompletion();
        }
        const long diff = firstDifference(r.snapshot(), e.mem);
        const Blitter::Info i = r.blt.info();
        if (diff >= 0 || r.blt.zero() != e.zero || r.blt.bltddat() != e.lastD || i.apt != e.apt ||
            i.bpt != e.bpt || i.cpt != e.cpt || i.dpt != e.dpt) {
            qWarning("lf=%02X con0=%04X con1=%04X %dx%d mods %d/%d/%d/%d fwm %04X lwm %04X: "
                     "byte %ld differs, zero %d/%d, ddat %04X/%04X",
                     lf, s.con0, s.con1, s.w, s.h, s.amod, s.bmod, s.cmod, s.dmod, s.afwm, s.alwm,
                     diff, r.blt.zero(), e.zero, r.blt.bltddat(), e.lastD);
            return false;
        }
        return true;
    }

private slots:
    void resetState() {
        Rig r;
        QVERIFY(!r.blt.busy());
        QVERIFY(!r.blt.running());
        QVERIFY(r.blt.zero());
        QVERIFY(!r.blt.wantsBus());
        const Blitter::Step s = r.blt.clock(true);
        QVERIFY(!s.usedBus);
        QVERIFY(!s.finished);
    }

    void allMinterms() {
        Rig r;
        std::mt19937 rng(1);
        fillRandom(r.ram, rng, 0x08000, 0x28000);
        for (int lf = 0; lf < 256; ++lf) {
            for (int rep = 0; rep < 4; ++rep) {
                const bool desc = rep & 1;
                QVERIFY2(checkArea(r, rng, std::uint8_t(lf), 0, desc, rep >= 2),
                         qPrintable(QString("minterm %1").arg(lf, 2, 16)));
            }
        }
    }

    void disabledDestinationStillSetsZero() {
        Rig r;
        std::mt19937 rng(2);
        fillRandom(r.ram, rng, 0x08000, 0x28000);
        for (int i = 0; i < 200; ++i)
            QVERIFY(checkArea(r, rng, std::uint8_t(rng()), 0, i & 1, false, false));
        // A blit whose output is all zero leaves BZERO set.
        AreaBlit s;
        s.con0 = 0x0900; // A, D, minterm 0
        s.w = 3;
        s.h = 2;
        s.apt = 0x8000;
        s.dpt = 0x20000;
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        r.blt.runToCompletion();
        QVERIFY(r.blt.zero());
        QCOMPARE(r.ram.readWord(0x20000), std::uint16_t(0));
    }

    void fills() {
        Rig r;
        std::mt19937 rng(3);
        // Sparse edges, so that fills have something to fill between.
        for (std::uint32_t a = 0x08000; a < 0x28000; a += 2) {
            std::uint16_t v = 0;
            for (int k = 0; k < 2; ++k)
                if (rng() % 3 == 0) v = std::uint16_t(v | 1u << (rng() % 16));
            r.ram.writeWord(a, v);
        }
        const std::uint16_t modes[] = {0x0008, 0x0010, 0x0018}; // IFE, EFE, both
        for (std::uint16_t mode : modes)
            for (std::uint16_t fci : {std::uint16_t(0), std::uint16_t(0x0004)})
                for (int rep = 0; rep < 40; ++rep) {
                    // A copy ($F0) is the usual fill; random minterms cover the rest.
                    const std::uint8_t lf = rep % 4 == 0 ? std::uint8_t(rng()) : std::uint8_t(0xF0);
                    QVERIFY(
                        checkArea(r, rng, lf, std::uint16_t(mode | fci), rep % 3 != 0, rep & 1));
                }
    }

    void fillExample() {
        // HRM "Area Fill Mode", Figure 6-13/6-14 style: two outlines in one word, descending.
        Rig r;
        AreaBlit s;
        s.con0 = 0x09F0;          // A to D
        s.con1 = 0x0002 | 0x0008; // DESC, IFE
        s.apt = 0x1000;
        s.dpt = 0x2000;
        r.ram.writeWord(0x1000, 0b0010'0100'0100'0010);
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        r.blt.runToCompletion();
        QCOMPARE(r.ram.readWord(0x2000), std::uint16_t(0b0011'1100'0111'1110));
        s.con1 = 0x0002 | 0x0010; // EFE
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        r.blt.runToCompletion();
        QCOMPARE(r.ram.readWord(0x2000), std::uint16_t(0b0001'1100'0011'1110));
    }

    void bltbdatShiftHappensAtWrite() {
        Rig r;
        AreaBlit s;
        s.con0 = 0x01CC; // D only, D = B
        s.con1 = 0x4000; // BSH 4 when BLTBDAT is written
        s.bdat = 0xF0F0;
        s.w = 2;
        s.dpt = 0x3000;
        program(r.blt, s);
        r.blt.poke(reg::BLTCON1, 0x0000); // a later BSH does not reshift the held value
        r.blt.poke(reg::BLTSIZE, s.size());
        r.blt.runToCompletion();
        QCOMPARE(r.ram.readWord(0x3000), std::uint16_t(0x0F0F));
        QCOMPARE(r.ram.readWord(0x3002), std::uint16_t(0x0F0F));
    }

    void shiftCarriesAcrossRows() {
        // HRM "Shifts": zeros go into the first word of the blit only; the bits shifted out
        // of a row's last word enter the next row's first word.
        Rig r;
        AreaBlit s;
        s.con0 = 0x49F0; // ASH 4, A to D
        s.w = 1;
        s.h = 2;
        s.apt = 0x1000;
        s.dpt = 0x2000;
        r.ram.writeWord(0x1000, 0x1234);
        r.ram.writeWord(0x1002, 0x5678);
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        r.blt.runToCompletion();
        QCOMPARE(r.ram.readWord(0x2000), std::uint16_t(0x0123));
        QCOMPARE(r.ram.readWord(0x2002), std::uint16_t(0x4567));
    }

    void channelSequences_data() {
        QTest::addColumn<int>("use");
        QTest::addColumn<bool>("fill");
        QTest::addColumn<QString>("expected");
        // HRM Table 6-2 for a three-word blit, after the three set-up clocks (the clock in
        // which the BLTSIZE write takes effect, then WinUAE's CYCLECOUNT_START 2, vAmiga's
        // BLT_STRT1/2: the first slot at write+4; docs/blitter.md, Start), with what the
        // table leaves out written in: the A slot is idle when A is off (the table starts at
        // the first access), the last group's idle slots are shown, D alone is pipelined
        // like every D blit, and the final D write always follows an idle clock (vAmiga's
        // microprograms; WinUAE: "2 more cycles ... (idle cycle, final D write)"). Fill
        // mode with D but not C: the HRM errata of 17 Oct 1985.
        const char* plain[16] = {
            "- - - - - -",
            "- - - D0 - D1 - D2",
            "- C0 - C1 - C2",
            "- C0 - - C1 D0 - C2 D1 - D2",
            "- B0 - - B1 - - B2 -",
            "- B0 - - B1 D0 - B2 D1 - D2",
            "- B0 C0 - B1 C1 - B2 C2",
            "- B0 C0 - - B1 C1 D0 - B2 C2 D1 - D2",
            "A0 - A1 - A2 -",
            "A0 - A1 D0 A2 D1 - D2",
            "A0 C0 A1 C1 A2 C2",
            "A0 C0 - A1 C1 D0 A2 C2 D1 - D2",
            "A0 B0 - A1 B1 - A2 B2 -",
            "A0 B0 - A1 B1 D0 A2 B2 D1 - D2",
            "A0 B0 C0 A1 B1 C1 A2 B2 C2",
            "A0 B0 C0 - A1 B1 C1 D0 A2 B2 C2 D1 - D2",
        };
        for (int use = 0; use < 16; ++use) {
            QTest::addRow("%X", use) << use << false << QString(plain[use]);
        }
        QTest::addRow("1 fill") << 1 << true << QString("- - - - D0 - - D1 - - D2");
        QTest::addRow("5 fill") << 5 << true << QString("- B0 - - - B1 D0 - - B2 D1 - - D2");
        QTest::addRow("9 fill") << 9 << true << QString("A0 - - A1 D0 - A2 D1 - - D2");
        QTest::addRow("D fill") << 13 << true << QString("A0 B0 - - A1 B1 D0 - A2 B2 D1 - - D2");
        QTest::addRow("F fill") << 15 << true << QString(plain[15]);
        QTest::addRow("B fill") << 11 << true << QString(plain[11]);
    }

    void channelSequences() {
        QFETCH(int, use);
        QFETCH(bool, fill);
        QFETCH(QString, expected);
        Rig r;
        AreaBlit s;
        s.con0 = std::uint16_t(use << 8 | 0xCA);
        s.con1 = std::uint16_t(0x0002 | (fill ? 0x0008 : 0));
        s.w = 3;
        s.apt = 0x1000;
        s.bpt = 0x2000;
        s.cpt = 0x3000;
        s.dpt = 0x4000;
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        QCOMPARE(QString::fromStdString(sequence(r.blt)), "- - - " + expected);
    }

    void sequenceRecordsAddressesAndData() {
        // An A-to-D copy: each D write carries the previous word to its address, one word
        // behind the reads.
        Rig r;
        r.ram.writeWord(0x1000, 0x1111);
        r.ram.writeWord(0x1002, 0x2222);
        AreaBlit s;
        s.con0 = 0x09F0;
        s.w = 2;
        s.apt = 0x1000;
        s.dpt = 0x5000;
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        std::vector<Blitter::Step> steps;
        while (r.blt.running())
            steps.push_back(r.blt.clock(true));
        QCOMPARE(steps.size(), std::size_t(3 + 2 * 2 + 2));
        // Three set-up clocks (the write taking effect, then two), then "A0 - A1 D0 - D1".
        for (int k = 0; k < 3; ++k)
            QVERIFY(!steps[std::size_t(k)].usedBus);
        QVERIFY(steps[3].usedBus && steps[3].channel == 0 && steps[3].address == 0x1000);
        QVERIFY(!steps[4].usedBus);
        QVERIFY(steps[5].usedBus && steps[5].channel == 0 && steps[5].address == 0x1002);
        QVERIFY(steps[6].usedBus && steps[6].write && steps[6].channel == 3);
        QCOMPARE(steps[6].address, std::uint32_t(0x5000));
        QCOMPARE(steps[6].data, std::uint16_t(0x1111));
        QVERIFY(steps[6].finished); // the last main cycle
        QVERIFY(!steps[7].usedBus);
        QVERIFY(steps[8].usedBus && steps[8].write);
        QCOMPARE(steps[8].address, std::uint32_t(0x5002));
        QCOMPARE(steps[8].data, std::uint16_t(0x2222));
    }

    void clockCounts() {
        std::mt19937 rng(4);
        for (unsigned use = 0; use < 16; ++use) {
            for (bool fill : {false, true}) {
                for (int rep = 0; rep < 4; ++rep) {
                    Rig r;
                    AreaBlit s;
                    s.w = 1 + int(rng() % 8);
                    s.h = 1 + int(rng() % 6);
                    s.con0 = std::uint16_t(use << 8 | 0xCA);
                    s.con1 = std::uint16_t(0x0002 | (fill ? 0x0010 : 0));
                    s.apt = 0x1000;
                    s.bpt = 0x2000;
                    s.cpt = 0x3000;
                    s.dpt = 0x4000;
                    program(r.blt, s);
                    r.blt.poke(reg::BLTSIZE, s.size());
                    QVERIFY(r.blt.busy());
                    long toFinish = 0, total = 0;
                    while (r.blt.running()) {
                        const Blitter::Step st = r.blt.clock(true);
                        ++total;
                        if (st.finished) {
                            QCOMPARE(toFinish, 0L);
                            toFinish = total;
                            QVERIFY(!r.blt.busy());
                        } else if (!toFinish) {
                            QVERIFY(r.blt.busy());
                        }
                    }
                    const long words = long(s.w) * s.h;
                    const long expectFinish = 3 + clocksPerWord(use, fill) * words;
                    QCOMPARE(toFinish, expectFinish);
                    QCOMPARE(total, expectFinish + ((use & 1) ? 2 : 0));
                    const int channels = std::popcount(use);
                    QCOMPARE(long(r.blt.clocksUsed()), channels * words);
                    QCOMPARE(r.blt.clocksStalled(), 0u);
                }
            }
        }
    }

    void deniedClocksStretchTheBlit() {
        std::mt19937 rng(5);
        for (unsigned use = 0; use < 16; ++use) {
            for (bool useSlotFree : {false, true}) {
                Rig r;
                AreaBlit s;
                s.w = 1 + int(rng() % 8);
                s.h = 1 + int(rng() % 6);
                s.con0 = std::uint16_t(use << 8 | 0xCA);
                s.con1 = (use & 8) ? 0x0000 : 0x0010;
                s.apt = 0x1000;
                s.bpt = 0x2000;
                s.cpt = 0x3000;
                s.dpt = 0x4000;
                program(r.blt, s);
                r.blt.poke(reg::BLTSIZE, s.size());
                const long base =
                    3 + clocksPerWord(use, s.con1 != 0) * long(s.w) * s.h + ((use & 1) ? 2 : 0);
                long total = 0, denied = 0;
                while (r.blt.running()) {
                    // slotFree false models a clock taken by fixed DMA; granted false alone
                    // a clock the CPU won. The first clock, in which the BLTSIZE write
                    // takes effect, passes whoever has the bus.
                    const bool slotFree = !useSlotFree || rng() % 4 != 0;
                    const bool granted = slotFree && rng() % 3 != 0;
                    if (total > 0 && (r.blt.wantsBus() ? !granted : !slotFree)) ++denied;
                    r.blt.clock(granted, slotFree);
                    ++total;
                }
                if (use || useSlotFree) QVERIFY(denied > 0);
                QCOMPARE(total, base + denied);
                QCOMPARE(long(r.blt.clocksStalled()), denied);
            }
        }
    }

    void freezesWithoutFreeSlots() {
        // With BLTEN clear (or every slot taken by fixed DMA) not even idle steps advance;
        // only the clock in which the BLTSIZE write takes effect passes.
        Rig r;
        AreaBlit s;
        s.con0 = 0x01F0; // D only: mostly idle steps
        s.w = 2;
        s.dpt = 0x2000;
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        for (int i = 0; i < 100; ++i)
            QVERIFY(!r.blt.clock(false, false).usedBus);
        QCOMPARE(r.blt.clocksStalled(), 99u);
        QCOMPARE(r.blt.info().remaining, 2u);
        QCOMPARE(runClocked(r.blt, [](long) { return true; }), 2L + 2 * 2 + 2);
    }

    void stalledResultsMatch() {
        // The data path does not depend on when the clocks come.
        Rig a, b;
        std::mt19937 rng(6);
        fillRandom(a.ram, rng, 0x08000, 0x28000);
        std::copy(a.ram.data(), a.ram.data() + a.ram.size(), b.ram.data());
        AreaBlit s;
        s.con0 = 0x3FE2;
        s.con1 = 0x5000;
        s.w = 7;
        s.h = 9;
        s.afwm = 0x0FFF;
        s.alwm = 0xFF00;
        s.amod = 4;
        s.bmod = -2;
        s.cmod = 6;
        s.dmod = 6;
        s.apt = 0x8000;
        s.bpt = 0x10000;
        s.cpt = 0x18000;
        s.dpt = 0x20000;
        program(a.blt, s);
        program(b.blt, s);
        a.blt.poke(reg::BLTSIZE, s.size());
        b.blt.poke(reg::BLTSIZE, s.size());
        a.blt.runToCompletion();
        runClocked(b.blt, [&](long) { return rng() % 5 == 0; });
        QCOMPARE(firstDifference(a.snapshot(), b.snapshot()), -1L);
        QCOMPARE(a.blt.zero(), b.blt.zero());
    }

    void linesInAllOctants() {
        std::mt19937 rng(7);
        for (int octant = 0; octant < 8; ++octant) {
            for (int rep = 0; rep < 12; ++rep) {
                Rig r;
                fillRandom(r.ram, rng, 0x20000, 0x22000);
                LineSetup l;
                l.x0 = 40 + int(rng() % 200);
                l.y0 = 40 + int(rng() % 100);
                const int major = int(rng() % 40), minor = rep == 0 ? 0 : int(rng() % (major + 1));
                // Octants 0..7 of HRM Figure 6-8.
                const int sx[8] = {1, 1, -1, -1, -1, -1, 1, 1},
                          sy[8] = {-1, -1, -1, -1, 1, 1, 1, 1};
                const bool shallow = octant == 0 || octant == 3 || octant == 4 || octant == 7;
                l.x1 = l.x0 + sx[octant] * (shallow ? major : minor);
                l.y1 = l.y0 + sy[octant] * (shallow ? minor : major);
                if (major == minor && major) continue; // on a border: either octant
                l.texture = rep % 3 == 0 ? 0xFFFF : std::uint16_t(rng());
                l.bsh = rng() % 16;
                l.lf = rep % 4 == 3 ? 0x4A : 0xCA;
                const Memory expected = modelLine(r.snapshot(), l);
                programLine(r.blt, l);
                r.blt.runToCompletion();
                const long diff = firstDifference(r.snapshot(), expected);
                if (diff >= 0)
                    qWarning("octant %d (%d,%d)-(%d,%d) tex %04X bsh %u lf %02X: byte %lX differs",
                             octant, l.x0, l.y0, l.x1, l.y1, l.texture, l.bsh, l.lf, diff);
                QCOMPARE(diff, -1L);
            }
        }
    }

    void singDrawsOnePixelPerRow() {
        std::mt19937 rng(8);
        for (int rep = 0; rep < 40; ++rep) {
            Rig r;
            LineSetup l;
            l.x0 = 100 + int(rng() % 50);
            l.y0 = 60 + int(rng() % 50);
            l.x1 = l.x0 + int(rng() % 81) - 40;
            l.y1 = l.y0 + int(rng() % 81) - 40;
            l.sing = true;
            l.lf = 0x4A; // XOR, as fill outlines are drawn
            int drawn = 0;
            const Memory expected = modelLine(r.snapshot(), l, &drawn);
            programLine(r.blt, l);
            long clocks = 0, writes = 0;
            while (r.blt.running()) {
                const Blitter::Step s = r.blt.clock(true);
                ++clocks;
                if (s.usedBus && s.write) ++writes;
            }
            QCOMPARE(firstDifference(r.snapshot(), expected), -1L);
            QCOMPARE(writes, long(drawn));
            const int len = std::max(std::abs(l.x1 - l.x0), std::abs(l.y1 - l.y0)) + 1;
            QCOMPARE(clocks, 3L + 4L * len); // skipped writes still take their clock
        }
    }

    void lineTimingAndPointers() {
        Rig r;
        LineSetup l;
        l.x0 = 10;
        l.y0 = 10;
        l.x1 = 30;
        l.y1 = 17;
        programLine(r.blt, l);
        std::string seq;
        long finishedAt = 0, clocks = 0;
        while (r.blt.running()) {
            const Blitter::Step s = r.blt.clock(true);
            ++clocks;
            if (s.finished) finishedAt = clocks;
            seq += s.usedBus ? "ABCD"[s.channel] : '-';
        }
        // "-C-D" per pixel after the three set-up clocks (the BLTSIZE write taking effect,
        // then two) (WinUAE: "line draw takes 4 cycles").
        std::string expected = "---";
        for (int k = 0; k <= 20; ++k)
            expected += "-C-D";
        QCOMPARE(QString::fromStdString(seq), QString::fromStdString(expected));
        QCOMPARE(finishedAt, clocks); // the interrupt comes with the last D slot
        QVERIFY(!r.blt.busy());
        // After the line, ASH holds the x position past the end and D follows C.
        const Blitter::Info i = r.blt.info();
        QCOMPARE(i.bltcon0 >> 12, (31 & 15));
        QCOMPARE(i.dpt, i.cpt);
    }

    void lineFirstPixelGoesToBltdpt() {
        // The first pixel's D write uses BLTDPT; the rest follow the C pointer.
        Rig r;
        LineSetup l;
        l.x0 = 16;
        l.y0 = 0;
        l.x1 = 19;
        l.y1 = 0;
        programLine(r.blt, l);
        pokePointer(r.blt, reg::BLTDPTH, 0x30000);
        r.blt.poke(reg::BLTSIZE, 4 << 6 | 2);
        r.blt.runToCompletion();
        QCOMPARE(r.ram.readWord(0x30000), std::uint16_t(0x8000));
        QCOMPARE(r.ram.readWord(0x20002), std::uint16_t(0x7000));
    }

    void busyZeroAndFinished() {
        Rig r;
        r.ram.writeWord(0x1000, 0x0100);
        AreaBlit s;
        s.con0 = 0x09F0;
        s.w = 1;
        s.apt = 0x1000;
        s.dpt = 0x2000;
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        QVERIFY(r.blt.busy()); // set by the BLTSIZE write (8371)
        QVERIFY(r.blt.zero());
        int finished = 0;
        while (r.blt.running())
            if (r.blt.clock(true).finished) ++finished;
        QCOMPARE(finished, 1);
        QVERIFY(!r.blt.zero());
        QCOMPARE(r.blt.bltddat(), std::uint16_t(0x0100));
        // The next blit starts with BZERO set again, and an all-zero result keeps it.
        r.ram.writeWord(0x1000, 0x0000);
        pokePointer(r.blt, reg::BLTAPTH, 0x1000);
        r.blt.poke(reg::BLTSIZE, s.size());
        QVERIFY(r.blt.zero());
        r.blt.runToCompletion();
        QVERIFY(r.blt.zero());
        QCOMPARE(r.blt.bltddat(), std::uint16_t(0));
    }

    void blitStartedDuringFinalWrite() {
        // BBUSY clears two clocks before the final D write; a blit started then waits for
        // that write, then takes its own set-up clocks.
        Rig r;
        r.ram.writeWord(0x1000, 0xAAAA);
        r.ram.writeWord(0x1100, 0x5555);
        AreaBlit s;
        s.con0 = 0x09F0;
        s.apt = 0x1000;
        s.dpt = 0x2000;
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        while (r.blt.busy())
            r.blt.clock(true);
        QVERIFY(r.blt.running());
        pokePointer(r.blt, reg::BLTAPTH, 0x1100);
        pokePointer(r.blt, reg::BLTDPTH, 0x2100);
        r.blt.poke(reg::BLTSIZE, s.size());
        QCOMPARE(QString::fromStdString(sequence(r.blt)), QString("- D0 - - A0 - - D1"));
        QCOMPARE(r.ram.readWord(0x2000), std::uint16_t(0xAAAA));
        QCOMPARE(r.ram.readWord(0x2100), std::uint16_t(0x5555));
    }

    void saveAndLoadMidBlit() {
        std::mt19937 rng(9);
        for (int kind = 0; kind < 3; ++kind) {
            // Negative cut points count back from the end: inside the final D write.
            for (long at : {0L, 1L, 3L, 17L, 60L, 131L, -1L, -2L, -3L}) {
                Rig ref;
                fillRandom(ref.ram, rng, 0x08000, 0x28000);
                auto start = [&](Rig& r) {
                    if (kind == 2) {
                        LineSetup l;
                        l.x0 = 50;
                        l.y0 = 70;
                        l.x1 = 13;
                        l.y1 = 99;
                        l.texture = 0xF38C;
                        l.bsh = 5;
                        programLine(r.blt, l);
                        return;
                    }
                    AreaBlit s;
                    s.con0 = std::uint16_t(0x7F00 | (kind ? 0x0E : 0xCA));
                    s.con1 = std::uint16_t(kind ? 0x300A : 0x3000);
                    s.w = 5;
                    s.h = 7;
                    s.afwm = 0x3FFF;
                    s.alwm = 0xFFF0;
                    s.amod = 2;
                    s.cmod = 4;
                    s.dmod = 4;
                    s.apt = kind ? 0x8100 : 0x8000;
                    s.bpt = kind ? 0x10100 : 0x10000;
                    s.cpt = kind ? 0x18100 : 0x18000;
                    s.dpt = kind ? 0x20100 : 0x20000;
                    program(r.blt, s);
                    r.blt.poke(reg::BLTSIZE, s.size());
                };
                std::uint32_t seed = 77;
                auto grant = [&seed](long) {
                    return ((seed = seed * 1103515245u + 12345u) >> 16) % 3 != 0;
                };

                Rig whole;
                std::copy(ref.ram.data(), ref.ram.data() + ref.ram.size(), whole.ram.data());
                start(whole);
                std::vector<Blitter::Step> wholeSteps;
                while (whole.blt.running())
                    wholeSteps.push_back(whole.blt.clock(grant(0)));

                seed = 77;
                start(ref);
                std::vector<Blitter::Step> steps;
                const long cut = at >= 0 ? at : long(wholeSteps.size()) + at;
                for (long i = 0; i < cut && ref.blt.running(); ++i)
                    steps.push_back(ref.blt.clock(grant(0)));
                auto saver = Archive::saver();
                ref.blt.serialize(saver);
                ref.ram.serialize(saver);
                Rig copy;
                auto loader = Archive::loader(saver.bytes());
                copy.blt.serialize(loader);
                copy.ram.serialize(loader);
                QCOMPARE(loader.remaining(), std::size_t(0));
                while (copy.blt.running())
                    steps.push_back(copy.blt.clock(grant(0)));

                QCOMPARE(steps.size(), wholeSteps.size());
                for (std::size_t i = 0; i < steps.size(); ++i) {
                    QCOMPARE(steps[i].usedBus, wholeSteps[i].usedBus);
                    QCOMPARE(steps[i].address, wholeSteps[i].address);
                    QCOMPARE(steps[i].data, wholeSteps[i].data);
                    QCOMPARE(steps[i].finished, wholeSteps[i].finished);
                }
                QCOMPARE(firstDifference(copy.snapshot(), whole.snapshot()), -1L);
                auto h1 = Archive::hasher(), h2 = Archive::hasher();
                copy.blt.serialize(h1);
                whole.blt.serialize(h2);
                QCOMPARE(h1.hash(), h2.hash());
            }
        }
    }

    void infoReportsProgress() {
        Rig r;
        AreaBlit s;
        s.con0 = 0x09F0;
        s.w = 4;
        s.h = 3;
        s.apt = 0x1000;
        s.dpt = 0x2000;
        program(r.blt, s);
        r.blt.poke(reg::BLTSIZE, s.size());
        Blitter::Info i = r.blt.info();
        QCOMPARE(i.width, std::uint16_t(4));
        QCOMPARE(i.height, std::uint16_t(3));
        QCOMPARE(i.remaining, 12u);
        for (int k = 0; k < 3 + 2 * 5; ++k)
            r.blt.clock(true);
        QCOMPARE(r.blt.info().remaining, 7u);
        r.blt.runToCompletion();
        i = r.blt.info();
        QCOMPARE(i.remaining, 0u);
        QVERIFY(!i.busy);
        QCOMPARE(i.apt, std::uint32_t(0x1000 + 24));
    }
};

QTEST_GUILESS_MAIN(TestBlitter)
#include "test_blitter.moc"
