// SPDX-License-Identifier: GPL-3.0-or-later
// Denise driven directly, as Agnus drives it: pokes (bitplane DMA words, Copper writes)
// inside a colour clock, then clock() for that clock, line after line. Pixel columns are
// 4*hpos + k; the display-window counter is column / 2 (docs/denise.md).

#include "emu/chipset/custom_regs.h"
#include "emu/chipset/denise.h"
#include "emu/state/archive.h"

#include <QtTest>
#include <functional>
#include <vector>

using namespace copperline;

namespace {

constexpr std::uint32_t rgb(unsigned c) {
    return 0xFF000000u | ((c >> 8) & 15) * 0x110000u | ((c >> 4) & 15) * 0x1100u | (c & 15) * 0x11u;
}

// Columns of some landmarks: DIW H $81 (the standard window start) is column $102.
constexpr unsigned kCol81 = 0x102;

using PerClock = std::function<void(Denise&, unsigned hpos)>;

struct Rig {
    Denise d;
    unsigned v = 0x40;

    // One whole line; `each` runs inside every clock before Denise's clock().
    void line(const PerClock& each = {}, bool blank = false) {
        for (unsigned h = 0; h < Denise::kPalLineCck; ++h) {
            if (each) each(d, h);
            d.clock(std::uint16_t(v), std::uint16_t(h), blank);
        }
        ++v;
    }
    std::uint32_t px(unsigned col) const { return d.line(v - 1)[col]; }

    void poke(std::uint16_t r, std::uint16_t value) { d.poke(r, value); }
    void colour(unsigned i, std::uint16_t c) { d.poke(std::uint16_t(reg::COLOR00 + 2 * i), c); }
    // The standard PAL window $2C81-$2CC1, set up and settled by one line.
    void standardWindow() {
        poke(reg::DIWSTRT, 0x2C81);
        poke(reg::DIWSTOP, 0x2CC1);
    }
};

// Pokes BPLxDAT as a fetch unit would, plane 1 last: words[0] is plane 1.
void fetch(Denise& d, const std::vector<std::uint16_t>& words) {
    for (std::size_t p = words.size(); p-- > 0;)
        d.poke(std::uint16_t(reg::BPL1DAT + 2 * p), words[p]);
}

// Per-clock action: the lores fetches of a DDFSTRT $38 display, plane 1 at $3F + 8n, with
// `words(n)` as the n-th unit's data, for `units` units.
PerClock loresFetches(unsigned units, std::function<std::vector<std::uint16_t>(unsigned)> words,
                      unsigned first = 0x3F, unsigned step = 8) {
    return [=](Denise& d, unsigned h) {
        if (h >= first && (h - first) % step == 0 && (h - first) / step < units)
            fetch(d, words((h - first) / step));
    };
}

// Plane words that make the 16 pixels of a word take the given 6-bit values.
std::vector<std::uint16_t> wordsFor(const std::vector<unsigned>& pixels, unsigned planes) {
    std::vector<std::uint16_t> w(planes, 0);
    for (unsigned i = 0; i < pixels.size() && i < 16; ++i)
        for (unsigned p = 0; p < planes; ++p)
            if (pixels[i] >> p & 1) w[p] = std::uint16_t(w[p] | 0x8000u >> i);
    return w;
}

void setSprite(Denise& d, unsigned n, unsigned hstart, std::uint16_t a, std::uint16_t b,
               bool attach = false) {
    const std::uint16_t base = std::uint16_t(reg::SPR0POS + 8 * n);
    d.poke(base, std::uint16_t(0x3000 | (hstart >> 1 & 0xFF)));
    d.poke(std::uint16_t(base + 2), std::uint16_t(0x4000 | (attach ? 0x80 : 0) | (hstart & 1)));
    d.poke(std::uint16_t(base + 6), b);
    d.poke(std::uint16_t(base + 4), a); // arms
}

} // namespace

class TestDenise : public QObject {
    Q_OBJECT
private slots:
    void geometryAndReset() {
        Denise d;
        QCOMPARE(d.width(), 908u);
        QCOMPARE(d.height(), 313u);
        QVERIFY(d.line(312) != nullptr);
        QVERIFY(d.line(313) == nullptr);
        QCOMPARE(d.line(0)[0], Denise::kBlack);
        d.setGeometry(263, 228);
        QCOMPARE(d.width(), 912u);
        QCOMPARE(d.height(), 263u);
        QCOMPARE(d.spy(reg::CLXDAT), std::uint16_t(0x8000));
    }

    void borderIsColour00AndBlankIsBlack() {
        Rig r;
        r.colour(0, 0x00F);
        r.line();
        for (unsigned c = 0; c < r.d.width(); ++c)
            QCOMPARE(r.px(c), rgb(0x00F));
        r.line({}, true);
        for (unsigned c = 0; c < r.d.width(); ++c)
            QCOMPARE(r.px(c), Denise::kBlack);
    }

    void registerReadback() {
        Rig r;
        r.colour(5, 0xFABC);
        QCOMPARE(r.d.spy(std::uint16_t(reg::COLOR00 + 10)), std::uint16_t(0xFABC));
        QCOMPARE(r.d.rgb(5), rgb(0xABC)); // 12 bits kept
        r.poke(reg::BPLCON0, 0x4200);
        QCOMPARE(r.d.spy(reg::BPLCON0), std::uint16_t(0x4200));
        QCOMPARE(r.d.peek(reg::BPLCON0), std::uint16_t(0)); // write-only: Denise drives nothing
    }

    // One lores plane with DDFSTRT $38: the word fetched at $3F starts exactly at DIW H $81.
    void loresFirstPixelAtWindowStart() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x1200);
        r.colour(0, 0x000);
        r.colour(1, 0xFFF);
        r.line();
        r.line(loresFetches(1, [](unsigned) { return std::vector<std::uint16_t>{0xA001}; }));
        QCOMPARE(r.px(kCol81 - 1), rgb(0x000));
        // Pixel i of the word covers columns $102 + 2i and +1.
        QCOMPARE(r.px(kCol81), rgb(0xFFF));
        QCOMPARE(r.px(kCol81 + 1), rgb(0xFFF));
        QCOMPARE(r.px(kCol81 + 2), rgb(0x000));
        QCOMPARE(r.px(kCol81 + 4), rgb(0xFFF));
        QCOMPARE(r.px(kCol81 + 28), rgb(0x000));
        QCOMPARE(r.px(kCol81 + 30), rgb(0xFFF));
        QCOMPARE(r.px(kCol81 + 31), rgb(0xFFF));
        QCOMPARE(r.px(kCol81 + 32), rgb(0x000)); // no further load: the shifter is empty
    }

    void hiresPixels() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x9200); // hires, 1 plane
        r.colour(1, 0xF00);
        r.line();
        // DDFSTRT $3C: plane 1 at $3F, $43, ...
        r.line(loresFetches(
            2,
            [](unsigned n) {
                return std::vector<std::uint16_t>{std::uint16_t(n ? 0x0001 : 0xA000)};
            },
            0x3F, 4));
        QCOMPARE(r.px(kCol81), rgb(0xF00));
        QCOMPARE(r.px(kCol81 + 1), rgb(0x000));
        QCOMPARE(r.px(kCol81 + 2), rgb(0xF00));
        QCOMPARE(r.px(kCol81 + 3), rgb(0x000));
        QCOMPARE(r.px(kCol81 + 16 + 14), rgb(0x000));
        QCOMPARE(r.px(kCol81 + 16 + 15), rgb(0xF00));
        QCOMPARE(r.px(kCol81 + 32), rgb(0x000));
    }

    // Every plane count picks its colour register: pixel i of the word holds value i (+16).
    void planeCountsSelectColours_data() {
        QTest::addColumn<unsigned>("planes");
        QTest::addColumn<bool>("hires");
        for (unsigned n = 1; n <= 5; ++n)
            QTest::addRow("lores %u", n) << n << false;
        for (unsigned n = 1; n <= 4; ++n)
            QTest::addRow("hires %u", n) << n << true;
    }
    void planeCountsSelectColours() {
        QFETCH(unsigned, planes);
        QFETCH(bool, hires);
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, std::uint16_t((hires ? 0x8000 : 0) | planes << 12 | 0x200));
        for (unsigned i = 0; i < 32; ++i)
            r.colour(i, std::uint16_t(0x100 + i * 0x21));
        r.line();
        std::vector<unsigned> pix;
        for (unsigned i = 0; i < 16; ++i)
            pix.push_back(planes == 5 ? 16 + i : i);
        const auto words = wordsFor(pix, planes);
        r.line(loresFetches(1, [&](unsigned) { return words; }));
        const unsigned mask = (1u << planes) - 1;
        for (unsigned i = 0; i < 16; ++i) {
            const unsigned col = kCol81 + (hires ? i : 2 * i);
            QCOMPARE(r.px(col), rgb(0x100 + (pix[i] & mask) * 0x21));
        }
    }

    void extraHalfBrite() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x6200); // 6 lores planes, no HAM, no DPF
        r.colour(5, 0xFE8);
        r.colour(31, 0x0F1);
        r.line();
        const auto words = wordsFor({5, 37, 31, 63}, 6);
        r.line(loresFetches(1, [&](unsigned) { return words; }));
        QCOMPARE(r.px(kCol81 + 0), rgb(0xFE8));
        QCOMPARE(r.px(kCol81 + 2), rgb(0x774)); // each gun halved
        QCOMPARE(r.px(kCol81 + 4), rgb(0x0F1));
        QCOMPARE(r.px(kCol81 + 6), rgb(0x070));
    }

    void holdAndModify() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x6A00); // 6 planes, HOMOD
        r.colour(0, 0x000);
        r.colour(3, 0x123);
        r.colour(9, 0x9AB);
        r.line();
        // 00xxxx colour register, 01 blue, 10 red, 11 green (planes 5/6 = bits 4/5).
        const auto words = wordsFor({0x03, 0x2F, 0x35, 0x10, 0x09, 0x1C, 0x00}, 6);
        r.line(loresFetches(1, [&](unsigned) { return words; }));
        QCOMPARE(r.px(kCol81 + 0), rgb(0x123));
        QCOMPARE(r.px(kCol81 + 2), rgb(0xF23)); // modify red
        QCOMPARE(r.px(kCol81 + 4), rgb(0xF53)); // modify green
        QCOMPARE(r.px(kCol81 + 6), rgb(0xF50)); // modify blue
        QCOMPARE(r.px(kCol81 + 8), rgb(0x9AB)); // colour register again
        QCOMPARE(r.px(kCol81 + 10), rgb(0x9AC));
        QCOMPARE(r.px(kCol81 + 12), rgb(0x000)); // value 0 is COLOR00
    }

    // BPLCON1: PF1H delays the odd planes, PF2H the even, in lores pixels (two columns).
    void scrollDelaysOddAndEven_data() {
        QTest::addColumn<unsigned>("pf1h");
        QTest::addColumn<unsigned>("pf2h");
        QTest::newRow("odd 3") << 3u << 0u;
        QTest::newRow("even 5") << 0u << 5u;
        QTest::newRow("odd 14 even 1") << 14u << 1u;
        QTest::newRow("odd 15 even 15") << 15u << 15u;
        QTest::newRow("odd 8 even 7") << 8u << 7u;
    }
    void scrollDelaysOddAndEven() {
        QFETCH(unsigned, pf1h);
        QFETCH(unsigned, pf2h);
        Rig r;
        r.poke(reg::DIWSTRT, 0x2C40); // open early so no delay is clipped
        r.poke(reg::DIWSTOP, 0x2CC1);
        r.poke(reg::BPLCON0, 0x2200);
        r.poke(reg::BPLCON1, std::uint16_t(pf2h << 4 | pf1h));
        r.colour(1, 0xF00);
        r.colour(2, 0x0F0);
        r.colour(3, 0xFF0);
        r.line();
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0x8000, 0x8000};
        }));
        const unsigned odd = kCol81 + 2 * pf1h, even = kCol81 + 2 * pf2h;
        for (unsigned c = kCol81 - 2; c < kCol81 + 34; ++c) {
            const unsigned v =
                (c >= odd && c < odd + 2 ? 1 : 0) | (c >= even && c < even + 2 ? 2 : 0);
            QCOMPARE(r.px(c), rgb(v == 0 ? 0 : v == 1 ? 0xF00 : v == 2 ? 0x0F0 : 0xFF0));
        }
    }

    // In hires the delay still counts lores pixels (two hires columns) and bit 3 is ignored.
    void hiresScroll() {
        for (unsigned pf2h : {5u, 13u}) {
            Rig r;
            r.poke(reg::DIWSTRT, 0x2C40);
            r.poke(reg::DIWSTOP, 0x2CC1);
            r.poke(reg::BPLCON0, 0xA200); // hires, 2 planes
            r.poke(reg::BPLCON1, std::uint16_t(pf2h << 4));
            r.colour(1, 0xF00);
            r.colour(2, 0x0F0);
            r.line();
            r.line(loresFetches(
                1,
                [](unsigned) {
                    return std::vector<std::uint16_t>{0x8000, 0x8000};
                },
                0x3F, 4));
            QCOMPARE(r.px(kCol81), rgb(0xF00));
            QCOMPARE(r.px(kCol81 + 1), rgb(0x000));
            QCOMPARE(r.px(kCol81 + 9), rgb(0x000));
            QCOMPARE(r.px(kCol81 + 10), rgb(0x0F0));
            QCOMPARE(r.px(kCol81 + 11), rgb(0x000));
        }
    }

    // The load waits for the comparator: a word written off the unit grid shows at the next
    // grid point (lores: the next CCK that is a multiple of 8, plus two columns).
    void offGridWriteWaitsForTheComparator() {
        Rig r;
        r.poke(reg::DIWSTRT, 0x2C40);
        r.poke(reg::DIWSTOP, 0x2CC1);
        r.poke(reg::BPLCON0, 0x1200);
        r.colour(1, 0xFFF);
        r.line();
        r.line([](Denise& d, unsigned h) {
            if (h == 0x40) d.poke(reg::BPL1DAT, 0x8000);
        });
        QCOMPARE(r.px(4 * 0x48 + 1), rgb(0x000));
        QCOMPARE(r.px(4 * 0x48 + 2), rgb(0xFFF));
        QCOMPARE(r.px(4 * 0x48 + 3), rgb(0xFFF));
        QCOMPARE(r.px(4 * 0x48 + 4), rgb(0x000));
    }

    void dualPlayfieldPriorities() {
        for (bool pf2pri : {false, true}) {
            Rig r;
            r.standardWindow();
            r.poke(reg::BPLCON0, 0x4600); // 4 lores planes, DBLPF
            r.poke(reg::BPLCON2, pf2pri ? 0x40 : 0x00);
            r.colour(0, 0x111);
            r.colour(1, 0xF00);
            r.colour(2, 0xE00);
            r.colour(3, 0xD00);
            r.colour(9, 0x0F0);
            r.colour(10, 0x0E0);
            r.colour(11, 0x0D0);
            r.line();
            // Pixel values (planes 1..4 = bits 0..3): PF1 = planes 1/3, PF2 = planes 2/4.
            const auto words = wordsFor({0x0, 0x1, 0x4, 0x5, 0x2, 0x8, 0xA, 0x3, 0xF}, 4);
            r.line(loresFetches(1, [&](unsigned) { return words; }));
            QCOMPARE(r.px(kCol81 + 0), rgb(0x111));                        // both transparent
            QCOMPARE(r.px(kCol81 + 2), rgb(0xF00));                        // PF1 1
            QCOMPARE(r.px(kCol81 + 4), rgb(0xE00));                        // PF1 2
            QCOMPARE(r.px(kCol81 + 6), rgb(0xD00));                        // PF1 3
            QCOMPARE(r.px(kCol81 + 8), rgb(0x0F0));                        // PF2 1 -> COLOR09
            QCOMPARE(r.px(kCol81 + 10), rgb(0x0E0));                       // PF2 2 -> COLOR10
            QCOMPARE(r.px(kCol81 + 12), rgb(0x0D0));                       // PF2 3 -> COLOR11
            QCOMPARE(r.px(kCol81 + 14), pf2pri ? rgb(0x0F0) : rgb(0xF00)); // overlap
            QCOMPARE(r.px(kCol81 + 16), pf2pri ? rgb(0x0D0) : rgb(0xD00));
        }
    }

    void dualPlayfieldScrollsIndependently() {
        Rig r;
        r.poke(reg::DIWSTRT, 0x2C40);
        r.poke(reg::DIWSTOP, 0x2CC1);
        r.poke(reg::BPLCON0, 0x2600);
        r.poke(reg::BPLCON1, 0x0040); // PF2 by 4
        r.colour(1, 0xF00);
        r.colour(9, 0x0F0);
        r.line();
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0x8000, 0x8000};
        }));
        QCOMPARE(r.px(kCol81), rgb(0xF00));
        QCOMPARE(r.px(kCol81 + 2), rgb(0x000));
        QCOMPARE(r.px(kCol81 + 8), rgb(0x0F0));
    }

    void windowClipsHorizontally() {
        Rig r;
        r.poke(reg::DIWSTRT, 0x2C90);
        r.poke(reg::DIWSTOP, 0x2CA0); // H8 = 1 implied: $1A0
        r.poke(reg::BPLCON0, 0x1200);
        r.colour(0, 0x008);
        r.colour(1, 0xFF0);
        r.line();
        r.line(loresFetches(20, [](unsigned) { return std::vector<std::uint16_t>{0xFFFF}; }));
        QCOMPARE(r.px(2 * 0x90 - 1), rgb(0x008));
        QCOMPARE(r.px(2 * 0x90), rgb(0xFF0));
        QCOMPARE(r.px(2 * 0x1A0 - 1), rgb(0xFF0));
        QCOMPARE(r.px(2 * 0x1A0), rgb(0x008));
        // The flip-flop is set at HSTART and holds across lines until HSTOP.
        r.poke(reg::DIWSTOP, 0x2CFF); // $1FF: never reached in a PAL line
        r.line();
        r.line(loresFetches(20, [](unsigned) { return std::vector<std::uint16_t>{0xFFFF}; }));
        QCOMPARE(r.px(4 * 0x46), rgb(0xFF0)); // open from the previous line
    }

    // DIWSTRT written in CCK s is compared from column 4s+4 (counter 2s+2).
    void windowRegisterDelay() {
        for (unsigned h : {0xA2u, 0xA1u}) {
            Rig r;
            r.poke(reg::DIWSTOP, 0x2CC1);
            r.poke(reg::DIWSTRT, 0x2CFF);
            r.colour(0, 0x00F);
            r.poke(reg::BPLCON0, 0x1200);
            r.colour(1, 0xF00);
            r.line();
            r.line([&](Denise& d, unsigned hp) {
                if (hp == 0x50) d.poke(reg::DIWSTRT, std::uint16_t(0x2C00 | h));
                if (hp >= 0x3F && (hp - 0x3F) % 8 == 0) d.poke(reg::BPL1DAT, 0xFFFF);
            });
            // Written at $50: counter $A2 is the first it can match; $A1 passes unseen.
            QCOMPARE(r.px(2 * 0xA2 - 1), rgb(0x00F));
            QCOMPARE(r.px(2 * 0xA2), h == 0xA2 ? rgb(0xF00) : rgb(0x00F));
            QCOMPARE(r.px(2 * 0xB0), h == 0xA2 ? rgb(0xF00) : rgb(0x00F));
        }
    }

    // A colour write in CCK s changes the pixels from column 4s on.
    void colourChangeMidLine() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x1200);
        r.colour(0, 0x000);
        r.colour(1, 0x00F);
        r.line();
        r.line([](Denise& d, unsigned h) {
            if (h >= 0x3F && (h - 0x3F) % 8 == 0 && h < 0xD0) d.poke(reg::BPL1DAT, 0xFFFF);
            if (h == 0x60) d.poke(reg::COLOR00 + 2, 0xF00);
            if (h == 0x10) d.poke(reg::COLOR00, 0x0F0);
        });
        QCOMPARE(r.px(4 * 0x10 - 1), rgb(0x000));
        QCOMPARE(r.px(4 * 0x10), rgb(0x0F0)); // in the border too
        QCOMPARE(r.px(4 * 0x60 - 1), rgb(0x00F));
        QCOMPARE(r.px(4 * 0x60), rgb(0xF00));
    }

    // BPLCON2 written in CCK s takes effect at column 4s+8.
    void priorityRegisterDelay() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x2600);
        r.colour(1, 0xF00);
        r.colour(9, 0x0F0);
        r.line();
        r.line([](Denise& d, unsigned h) {
            if (h >= 0x3F && (h - 0x3F) % 8 == 0 && h < 0xD0) fetch(d, {0xFFFF, 0xFFFF});
            if (h == 0x60) d.poke(reg::BPLCON2, 0x40);
        });
        QCOMPARE(r.px(4 * 0x60 + 7), rgb(0xF00));
        QCOMPARE(r.px(4 * 0x60 + 8), rgb(0x0F0));
    }

    void spritePosition() {
        for (unsigned hstart : {0x90u, 0x91u}) {
            Rig r;
            r.standardWindow();
            r.colour(0, 0x000);
            r.colour(17, 0xF00);
            r.colour(18, 0x0F0);
            r.colour(19, 0x00F);
            setSprite(r.d, 0, hstart, 0xC001, 0xA001);
            r.line();
            // The first pixel shows at counter HSTART + 1, two columns per lores pixel.
            const unsigned c = 2 * (hstart + 1);
            QCOMPARE(r.px(c - 1), rgb(0x000));
            QCOMPARE(r.px(c), rgb(0x00F)); // A=1 B=1: colour 3
            QCOMPARE(r.px(c + 1), rgb(0x00F));
            QCOMPARE(r.px(c + 2), rgb(0xF00)); // A=1: colour 1
            QCOMPARE(r.px(c + 4), rgb(0x0F0)); // B=1: colour 2
            QCOMPARE(r.px(c + 6), rgb(0x000));
            QCOMPARE(r.px(c + 30), rgb(0x00F));
            QCOMPARE(r.px(c + 32), rgb(0x000));
            // Still armed: the same sprite on the next line (Denise has no vertical compare).
            r.line();
            QCOMPARE(r.px(c), rgb(0x00F));
        }
    }

    // SPRxPOS written in CCK s is compared from column 4s+6 (counter 2s+3): a sprite moved
    // there by the Copper still starts on the same line, one step earlier it is missed.
    void spritePositionWriteDelay() {
        for (unsigned first : {0xA3u, 0xA2u}) {
            Rig r;
            r.standardWindow();
            r.colour(17, 0xF00);
            setSprite(r.d, 0, 0x40, 0x8000, 0); // armed, far left
            r.line();
            // Written at $50: HSTART = first - 1 makes the first pixel counter `first`.
            r.line([&](Denise& d, unsigned h) {
                if (h == 0x50) d.poke(reg::SPR0POS, std::uint16_t(0x3000 | ((first - 1) >> 1)));
                if (h == 0x50) d.poke(reg::SPR0CTL, std::uint16_t(0x4000 | ((first - 1) & 1)));
                if (h == 0x50) d.poke(reg::SPR0DATA, 0x8000);
            });
            QCOMPARE(r.px(2 * first), first == 0xA3 ? rgb(0xF00) : rgb(0x000));
            r.line();
            QCOMPARE(r.px(2 * first), rgb(0xF00)); // the next line has it either way
        }
    }

    // A HAM switch and a colour write in the same CCK meet the same pixel (column 4s).
    void hamSwitchMidLine() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x6200); // 6 planes: EHB
        r.colour(0, 0x000);
        r.colour(16 + 15, 0x0F0);
        r.line();
        const PerClock each = [](Denise& d, unsigned h) {
            if (h >= 0x3F && (h - 0x3F) % 8 == 0 && h < 0xD0)
                fetch(d, wordsFor(std::vector<unsigned>(16, 0x1F), 6));
            if (h == 0x80) {
                d.poke(reg::BPLCON0, 0x6A00); // HAM: $1F is "modify blue to F"
                d.poke(reg::COLOR00, 0xF00);
            }
        };
        r.line(each);
        QCOMPARE(r.px(4 * 0x80 - 1), rgb(0x0F0)); // COLOR31
        // From column $200 the previous pixel's colour $0F0 is held, blue set to F.
        QCOMPARE(r.px(4 * 0x80), rgb(0x0FF));
        QCOMPARE(r.px(4 * 0xC0), rgb(0x0FF));
    }

    // BPU = 7 is not a mode: Denise takes six planes (here, EHB).
    void sevenPlanesMeanSix() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x7200);
        r.colour(1, 0xEEE);
        r.line();
        r.line(loresFetches(1, [](unsigned) { return wordsFor({33}, 6); }));
        QCOMPARE(r.px(kCol81), rgb(0x777));
    }

    // Blanked pixels are black, but HAM's hold register runs on through them.
    void blankingKeepsTheChipRunning() {
        Rig r;
        r.poke(reg::DIWSTRT, 0x2C40);
        r.poke(reg::DIWSTOP, 0x2CC1);
        r.poke(reg::BPLCON0, 0x6A00);
        r.colour(4, 0x123);
        r.line();
        // Word 1 (sixteen pixels of colour 4) shows in blanked clocks, word 2 modifies blue.
        for (unsigned h = 0; h < Denise::kPalLineCck; ++h) {
            if (h == 0x3F) fetch(r.d, wordsFor(std::vector<unsigned>(16, 0x04), 6));
            if (h == 0x47) fetch(r.d, wordsFor({0x1F}, 6));
            r.d.clock(std::uint16_t(r.v), std::uint16_t(h), h < 0x48);
        }
        ++r.v;
        QCOMPARE(r.px(kCol81), Denise::kBlack);
        QCOMPARE(r.px(kCol81 + 29), Denise::kBlack);
        QCOMPARE(r.px(kCol81 + 30), rgb(0x123));  // hpos $48: no longer blanked
        QCOMPARE(r.px(kCol81 + 32), rgb(0x12F));
    }

    void spriteControlDisarmsAndDataArms() {
        Rig r;
        r.standardWindow();
        r.colour(17, 0xF00);
        setSprite(r.d, 0, 0xA0, 0x8000, 0);
        r.line();
        QCOMPARE(r.px(2 * 0xA1), rgb(0xF00));
        r.poke(reg::SPR0CTL, 0);
        r.line();
        QCOMPARE(r.px(2 * 0xA1), rgb(0x000));
        r.poke(reg::SPR0DATA, 0x8000);
        r.line();
        QCOMPARE(r.px(2 * 0xA1), rgb(0xF00)); // re-armed at the same HSTART
    }

    void spritesSharePairColoursAndLowerWins() {
        Rig r;
        r.standardWindow();
        for (unsigned i = 16; i < 32; ++i)
            r.colour(i, std::uint16_t(i * 0x101));
        setSprite(r.d, 2, 0xA0, 0xFF00, 0);      // pair 1: colour 21 on its first 8 pixels
        setSprite(r.d, 3, 0xA0, 0x0000, 0xFFFF); // pair 1: colour 22, behind sprite 2
        setSprite(r.d, 4, 0xA8, 0xFFFF, 0);      // pair 2: colour 25, behind pair 1
        setSprite(r.d, 0, 0xB0, 0xFFFF, 0xFFFF); // pair 0: colour 19, in front of pair 2
        r.line();
        QCOMPARE(r.px(2 * 0xA1), rgb(21 * 0x101));
        QCOMPARE(r.px(2 * 0xA8), rgb(21 * 0x101));
        QCOMPARE(r.px(2 * 0xA9), rgb(22 * 0x101));
        QCOMPARE(r.px(2 * 0xB0), rgb(22 * 0x101));
        QCOMPARE(r.px(2 * 0xB1), rgb(19 * 0x101));
        QCOMPARE(r.px(2 * 0xB8), rgb(19 * 0x101));
        QCOMPARE(r.px(2 * 0xC1 - 1), rgb(19 * 0x101));
        QCOMPARE(r.px(2 * 0xC1), rgb(0x000));
    }

    void attachedSprites() {
        Rig r;
        r.standardWindow();
        for (unsigned i = 16; i < 32; ++i)
            r.colour(i, std::uint16_t(0x100 + i));
        // Sprite 0 gives bits 0/1, sprite 1 bits 2/3 of a 4-bit colour 16-31.
        setSprite(r.d, 0, 0xA0, 0x8800, 0x8400);
        setSprite(r.d, 1, 0xA0, 0x8280, 0x8140, true);
        r.line();
        const unsigned c = 2 * 0xA1;
        QCOMPARE(r.px(c + 0), rgb(0x100 + 31));
        for (unsigned i = 4; i <= 9; ++i) {
            const unsigned v = (i == 4 ? 1 : i == 5 ? 2 : i == 6 ? 4 : i == 7 ? 8 : i == 8 ? 4 : 8);
            QCOMPARE(r.px(c + 2 * i), rgb(0x100 + 16 + v));
        }
        QCOMPARE(r.px(c + 2), rgb(0x000)); // 0 is transparent
    }

    void spritesOnlyInsideTheWindow() {
        Rig r;
        r.poke(reg::DIWSTRT, 0x2CA8);
        r.poke(reg::DIWSTOP, 0x2CC1);
        r.colour(0, 0x222);
        r.colour(17, 0xF00);
        setSprite(r.d, 0, 0xA0, 0xFFFF, 0);
        r.line(); // the window registers settle
        r.line();
        QCOMPARE(r.px(2 * 0xA1), rgb(0x222));
        QCOMPARE(r.px(2 * 0xA8 - 1), rgb(0x222));
        QCOMPARE(r.px(2 * 0xA8), rgb(0xF00));
    }

    // Sprite pair g shows in front of the playfield if g comes before the playfield's code.
    void spritePlayfieldPriority_data() {
        QTest::addColumn<unsigned>("code");
        for (unsigned c = 0; c <= 4; ++c)
            QTest::addRow("PF2P %u", c) << c;
    }
    void spritePlayfieldPriority() {
        QFETCH(unsigned, code);
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x1200);
        r.poke(reg::BPLCON2, std::uint16_t(code << 3 | 0)); // single playfield: PF2P
        r.colour(1, 0x0F0);
        for (unsigned g = 0; g < 4; ++g)
            r.colour(17 + 4 * g, std::uint16_t(0xF00 + g));
        for (unsigned g = 0; g < 4; ++g)
            setSprite(r.d, 2 * g, 0x90 + 0x20 * g, 0xFFFF, 0);
        r.line();
        r.line(loresFetches(20, [](unsigned) { return std::vector<std::uint16_t>{0xFF00}; }));
        for (unsigned g = 0; g < 4; ++g) {
            const unsigned start = 2 * (0x91 + 0x20 * g);
            // Find a column of this sprite over playfield colour 1 and one over colour 0.
            unsigned onPf = 0, onBack = 0;
            for (unsigned c = start; c < start + 32; c += 2) {
                const unsigned rel = c - kCol81;
                const bool pf = (rel / 2) % 16 < 8;
                (pf ? onPf : onBack) = c;
            }
            QVERIFY(onPf && onBack);
            QCOMPARE(r.px(onBack), rgb(0xF00 + g));
            QCOMPARE(r.px(onPf), g < code ? rgb(0xF00 + g) : rgb(0x0F0));
        }
    }

    void dualPlayfieldSpritePriority() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x2600);
        r.poke(reg::BPLCON2, 4 << 3 | 0); // PF1 in front of all sprites, PF2 behind all
        r.colour(1, 0xF00);
        r.colour(9, 0x0F0);
        r.colour(17, 0x00F);
        setSprite(r.d, 0, 0x80, 0xFFFF, 0);
        r.line();
        // Plane 1 (PF1) on the first 8 pixels, plane 2 (PF2) on the last 8.
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0xFF00, 0x00FF};
        }));
        QCOMPARE(r.px(kCol81), rgb(0xF00));
        QCOMPARE(r.px(kCol81 + 16), rgb(0x00F));
    }

    void spriteCollisions() {
        Rig r;
        r.standardWindow();
        setSprite(r.d, 0, 0xA0, 0x8000, 0);
        setSprite(r.d, 3, 0xA0, 0x8000, 0); // odd sprite of pair 1
        setSprite(r.d, 4, 0xA0, 0x8000, 0);
        r.line();
        QCOMPARE(r.d.peek(reg::CLXDAT) & 0x7E00, 1 << 10);     // 0/1 with 4/5; sprite 3 not enabled
        QCOMPARE(r.d.spy(reg::CLXDAT), std::uint16_t(0x8000)); // cleared by the read
        r.poke(reg::CLXCON, 1 << 13);                          // ENSP3
        r.line();
        const std::uint16_t v = r.d.spy(reg::CLXDAT);
        QCOMPARE(v & 0x7E00, (1 << 9) | (1 << 10) | (1 << 12));
        QCOMPARE(r.d.spy(reg::CLXDAT), v); // spy does not clear
    }

    void spritePlayfieldCollisions() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x2600); // dual playfield so PF1 and PF2 are independent
        // ENBP1 and ENBP2, match plane 1 = 1, plane 2 = 1.
        r.poke(reg::CLXCON, 0x00C3);
        setSprite(r.d, 6, 0x80, 0x8000, 0); // pair 3 over the first pixel
        setSprite(r.d, 2, 0x88, 0x8000, 0); // pair 1 over pixel 8
        r.line();
        r.d.peek(reg::CLXDAT);
        // Pixel 0: plane 1 only. Pixel 8: plane 2 only.
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0x8000, 0x0080};
        }));
        const std::uint16_t v = r.d.peek(reg::CLXDAT);
        QCOMPARE(v & 0x01FE, (1 << 4) | (1 << 6)); // odd planes-6/7, even planes-2/3
    }

    void playfieldCollisionsAndReadClear() {
        Rig r;
        r.standardWindow();
        r.poke(reg::BPLCON0, 0x2200);
        r.poke(reg::CLXCON, 0x00C3); // planes 1 and 2 enabled, both must be 1
        r.line();
        r.d.peek(reg::CLXDAT);
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0xF000, 0x0F00};
        }));
        QCOMPARE(r.d.peek(reg::CLXDAT) & 1, 0);
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0xF000, 0x0800};
        }));
        QCOMPARE(r.d.peek(reg::CLXDAT) & 1, 0); // adjacent, not overlapping
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0xF000, 0x1000};
        }));
        QCOMPARE(r.d.peek(reg::CLXDAT), std::uint16_t(0x8001));
        QCOMPARE(r.d.peek(reg::CLXDAT), std::uint16_t(0x8000));
        // Match value 0 on plane 2: plane 1 set where plane 2 is clear.
        r.poke(reg::CLXCON, 0x00C1);
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0x8000, 0x8000};
        }));
        QCOMPARE(r.d.peek(reg::CLXDAT) & 1, 0);
        r.line(loresFetches(1, [](unsigned) {
            return std::vector<std::uint16_t>{0x8000, 0x0000};
        }));
        QCOMPARE(r.d.peek(reg::CLXDAT) & 1, 1);
        // With no plane enabled a playfield collision is always detected (HRM table 7-4).
        r.poke(reg::CLXCON, 0);
        r.line();
        QCOMPARE(r.d.peek(reg::CLXDAT) & 1, 1);
    }

    void joystickCounters() {
        Denise d;
        d.moveMouse(0, 3, -2);
        QCOMPARE(d.peek(reg::JOY0DAT), std::uint16_t(0xFE03));
        d.poke(reg::JOYTEST, 0xA4A4);
        QCOMPARE(d.spy(reg::JOY0DAT), std::uint16_t(0xA6A7));
        QCOMPARE(d.spy(reg::JOY1DAT), std::uint16_t(0xA4A4));
    }

    void frameHookAndCounter() {
        Denise d;
        int calls = 0;
        d.setFrameHook([&](const Denise& f) {
            ++calls;
            QCOMPARE(f.line(5)[100], rgb(0x0F0));
        });
        d.beginFrame(true, false);
        QCOMPARE(d.framesCompleted(), std::uint64_t(0));
        d.poke(reg::COLOR00, 0x0F0);
        for (unsigned v = 0; v < 313; ++v)
            for (unsigned h = 0; h < 227; ++h)
                d.clock(std::uint16_t(v), std::uint16_t(h), false);
        d.beginFrame(false, true);
        QCOMPARE(calls, 1);
        QCOMPARE(d.framesCompleted(), std::uint64_t(1));
        QVERIFY(!d.longFrame());
        QVERIFY(d.interlaced());
    }

    // Save in the middle of a busy line (a loaded shifter, a pending BPLCON2 and sprite
    // write, a sprite shifting); a restored copy must draw the rest of the line the same.
    void serializeRoundTrip() {
        const PerClock busy = [](Denise& d, unsigned h) {
            if (h >= 0x3F && (h - 0x3F) % 8 == 0 && h < 0xD0)
                fetch(d, {std::uint16_t(0x1234 * h), 0xF0F0, 0x3C3C});
            if (h == 0x71) d.poke(reg::BPLCON2, 0x24);
            if (h == 0x70) d.poke(reg::COLOR00 + 6, 0x0AF);
            if (h == 0x72) d.poke(std::uint16_t(reg::SPR0POS + 16), 0x3070);
        };
        auto setup = [](Denise& d) {
            d.poke(reg::DIWSTRT, 0x2C81);
            d.poke(reg::DIWSTOP, 0x2CC1);
            d.poke(reg::BPLCON0, 0x3200);
            d.poke(reg::BPLCON1, 0x0031);
            for (unsigned i = 0; i < 32; ++i)
                d.poke(std::uint16_t(reg::COLOR00 + 2 * i), std::uint16_t(i * 0x111 + 7));
            setSprite(d, 2, 0xD8, 0xF0F0, 0xFF00);
            setSprite(d, 1, 0xDC, 0x0FF0, 0x00FF);
            d.poke(reg::CLXCON, 0xF0C3);
        };
        Denise a;
        setup(a);
        for (unsigned h = 0; h < 227; ++h)
            a.clock(0x2B, std::uint16_t(h), false);
        for (unsigned h = 0; h <= 0x72; ++h) {
            busy(a, h);
            a.clock(0x2C, std::uint16_t(h), false);
        }
        Archive saver = Archive::saver();
        a.serialize(saver);
        Denise b;
        Archive loader = Archive::loader(saver.bytes());
        b.serialize(loader);
        QCOMPARE(loader.remaining(), std::size_t(0));
        Archive ha = Archive::hasher(), hb = Archive::hasher();
        a.serialize(ha);
        b.serialize(hb);
        QCOMPARE(ha.hash(), hb.hash());
        for (Denise* d : {&a, &b}) {
            for (unsigned h = 0x73; h < 227; ++h) {
                busy(*d, h);
                d->clock(0x2C, std::uint16_t(h), false);
            }
            for (unsigned h = 0; h < 227; ++h)
                d->clock(0x2D, std::uint16_t(h), false);
        }
        for (unsigned v : {0x2Cu, 0x2Du})
            for (unsigned c = 4 * 0x73; c < a.width(); ++c)
                QCOMPARE(b.line(v)[c], a.line(v)[c]);
        QCOMPARE(b.spy(reg::CLXDAT), a.spy(reg::CLXDAT));
        QVERIFY(a.spy(reg::CLXDAT) != 0x8000);
        // A truncated state is refused.
        std::vector<std::uint8_t> cut(saver.bytes().begin(), saver.bytes().end() - 3);
        Archive bad = Archive::loader(cut);
        Denise c;
        bool refused = false;
        try {
            c.serialize(bad);
        } catch (const StateError&) {
            refused = true;
        }
        QVERIFY(refused);
    }

    // clockRun(v, h0, h1, blank) is clock() for h0 .. h1-1: two Denises get the same
    // writes at the same clocks, one clock by clock, the other in runs cut at random
    // between the writes (as Agnus cuts them), through lores, hires, dual playfield, HAM,
    // scroll, window, sprite, palette and collision changes; pictures, collisions and
    // states must stay equal. A third gets the bitplane words as bitplane DMA gives them
    // (BPL1DAT queued ahead of her drawing, queueBitplaneLoad; BPL2DAT-BPL6DAT at once) and
    // draws only before the other writes and at random clocks, in random runs; BPL1DAT
    // comes every 8 clocks, every 4, and sometimes in clocks next to each other, so that a
    // write replaces words whose load has not come yet.
    void clocksInRunsEqualClocksOneByOne() {
        std::uint32_t seed = 12345;
        const auto next = [&seed](unsigned n) {
            seed = seed * 1103515245u + 12345u;
            return (seed >> 8) % n;
        };
        Denise a, b, c;
        std::uint64_t runs = 0, plainStretches = 0, queuedTotal = 0;
        unsigned mostQueued = 0;
        const std::uint16_t modes[] = {0x2200, 0x4200, 0x5200, 0x6200, 0x9200, 0xA200, 0x6A00, 0x6600, 0x0200};
        unsigned lastSprite = 0; // the sprite last started (cases 6 and 10)
        for (unsigned v = 0; v < 300; ++v) {
            const bool vblank = v < 0x1A || v > 0x128;
            unsigned drawnB = 0, drawnC = 0; // b and c have drawn clocks 0 .. drawn-1 of this line
            unsigned queued = 0;             // BPL1DAT writes c holds queued
            const auto blankAt = [&](unsigned h) { return vblank || (h >= 0x0F && h < 0x2E); };
            const auto catchUpC = [&](unsigned upTo) {
                while (drawnC < upTo) {
                    unsigned end = drawnC + 1;
                    while (end < upTo && blankAt(end) == blankAt(drawnC) && next(24) != 0) ++end;
                    c.clockRun(std::uint16_t(v), drawnC, end, blankAt(drawnC));
                    drawnC = end;
                }
                queued = 0;
            };
            // Where this line's BPL1DAT writes come: lores units, hires units, or those
            // and now and then one more in the clock after.
            const unsigned spacing = next(2) ? 8 : 4;
            const bool extra = next(3) == 0;
            // Some lines have no other writes: c's queue grows long there.
            const bool quiet = next(4) == 0;
            const auto catchUp = [&](unsigned upTo) {
                // b draws [drawnB, upTo) in runs of one blank value, cut at random too.
                while (drawnB < upTo) {
                    unsigned end = drawnB + 1;
                    while (end < upTo && blankAt(end) == blankAt(drawnB) && next(16) != 0) ++end;
                    b.clockRun(std::uint16_t(v), drawnB, end, blankAt(drawnB));
                    ++runs;
                    if (end - drawnB > 4) ++plainStretches;
                    drawnB = end;
                }
            };
            for (unsigned h = 0; h < Denise::kPalLineCck; ++h) {
                // Writes in this clock (before its pixels), as bitplane DMA, the Copper and
                // the CPU make them.
                std::vector<std::pair<std::uint16_t, std::uint16_t>> writes;
                const bool unit = (h & (spacing - 1)) == spacing - 1 || (extra && (h & 7) == 0 && next(2));
                if (h >= 0x38 && h < 0xD8 && unit) {
                    for (unsigned p = 6; p-- > 1;) writes.push_back({std::uint16_t(reg::BPL1DAT + 2 * p), std::uint16_t(next(0x10000))});
                    writes.push_back({reg::BPL1DAT, std::uint16_t(next(0x10000))});
                }
                const bool dmaOnly = !writes.empty();
                switch (quiet ? 40u : next(40)) {
                case 0: writes.push_back({std::uint16_t(reg::COLOR00 + 2 * next(32)), std::uint16_t(next(0x1000))}); break;
                case 1: writes.push_back({reg::BPLCON0, modes[next(9)]}); break;
                case 2: writes.push_back({reg::BPLCON1, std::uint16_t(next(0x100))}); break;
                case 3: writes.push_back({reg::BPLCON2, std::uint16_t(next(0x80))}); break;
                case 4: writes.push_back({reg::DIWSTRT, std::uint16_t(0x2C00 | (0x40 + next(0x80)))}); break;
                case 5: writes.push_back({reg::DIWSTOP, std::uint16_t(0x2C00 | (0x80 + next(0x80)))}); break;
                case 6: {
                    const unsigned n = lastSprite = next(8);
                    writes.push_back({std::uint16_t(reg::SPR0POS + 8 * n), std::uint16_t(0x3000 | next(0x100))});
                    writes.push_back({std::uint16_t(reg::SPR0CTL + 8 * n), std::uint16_t(next(2) ? 0x0080 : 0)});
                    writes.push_back({std::uint16_t(reg::SPR0DATB + 8 * n), std::uint16_t(next(0x10000))});
                    writes.push_back({std::uint16_t(reg::SPR0DATA + 8 * n), std::uint16_t(next(0x10000))});
                    break;
                }
                case 7: writes.push_back({reg::CLXCON, std::uint16_t(next(0x10000))}); break;
                case 8: writes.push_back({reg::CLXDAT, 0}); break; // a read: clears
                case 9: // SPRxCTL alone disarms a sprite whose shifters may still hold pixels
                    writes.push_back({std::uint16_t(reg::SPR0CTL + 8 * next(8)), std::uint16_t(next(2) ? 0x0080 : 0)});
                    break;
                case 10:
                case 11: {
                    // A sprite started again a few clocks ahead, perhaps while its last
                    // words still shift out (one sprite used twice on a line), or only
                    // moved ahead, disarmed, with its pixels still shifting.
                    const unsigned n = next(2) ? lastSprite : next(8);
                    writes.push_back({std::uint16_t(reg::SPR0POS + 8 * n), std::uint16_t(0x3000 | ((h + 1 + next(6)) & 0xFF))});
                    if (next(4)) {
                        writes.push_back({std::uint16_t(reg::SPR0DATB + 8 * n), std::uint16_t(next(0x10000))});
                        writes.push_back({std::uint16_t(reg::SPR0DATA + 8 * n), std::uint16_t(next(0x10000))});
                        lastSprite = n;
                    } else {
                        writes.push_back({std::uint16_t(reg::SPR0CTL + 8 * n), 0}); // disarms
                    }
                    break;
                }
                default: break;
                }
                if (!writes.empty()) catchUp(h);
                // c draws before any write but bitplane DMA's, before a full queue, and
                // now and then at random.
                if ((writes.size() > (dmaOnly ? 6u : 0u)) || c.loadsQueueFull() || next(quiet ? 200 : 50) == 0)
                    catchUpC(h);
                for (const auto& [r, value] : writes) {
                    if (r == reg::CLXDAT) {
                        const std::uint16_t read = a.peek(r); // (the read clears it)
                        QCOMPARE(b.peek(r), read);
                        QCOMPARE(c.peek(r), read);
                        continue;
                    }
                    a.poke(r, value);
                    b.poke(r, value);
                    if (r == reg::BPL1DAT && dmaOnly) {
                        c.queueBitplaneLoad(h - drawnC, value);
                        mostQueued = std::max(mostQueued, ++queued);
                        ++queuedTotal;
                    } else if (r > reg::BPL1DAT && r < reg::BPL1DAT + 12 && dmaOnly) {
                        c.writeBitplane((r - reg::BPL1DAT) >> 1, value);
                    } else {
                        c.poke(r, value);
                    }
                }
                a.clock(std::uint16_t(v), std::uint16_t(h), blankAt(h));
            }
            catchUp(Denise::kPalLineCck);
            catchUpC(Denise::kPalLineCck);
            for (unsigned x = 0; x < a.width(); ++x) {
                if (a.line(v)[x] != b.line(v)[x])
                    QFAIL(qPrintable(QString("line %1 column %2: %3 clock by clock, %4 in runs")
                                         .arg(v).arg(x).arg(a.line(v)[x], 8, 16).arg(b.line(v)[x], 8, 16)));
                if (a.line(v)[x] != c.line(v)[x])
                    QFAIL(qPrintable(QString("line %1 column %2: %3 clock by clock, %4 with queued loads")
                                         .arg(v).arg(x).arg(a.line(v)[x], 8, 16).arg(c.line(v)[x], 8, 16)));
            }
            QCOMPARE(b.spy(reg::CLXDAT), a.spy(reg::CLXDAT));
            QCOMPARE(c.spy(reg::CLXDAT), a.spy(reg::CLXDAT));
        }
        Archive ha = Archive::hasher(), hb = Archive::hasher(), hc = Archive::hasher();
        a.serialize(ha);
        b.serialize(hb);
        c.serialize(hc);
        QCOMPARE(ha.hash(), hb.hash());
        QCOMPARE(hc.hash(), ha.hash());
        // Many loads waited in the queue, many at once.
        QVERIFY(queuedTotal > 3000);
        QVERIFY(mostQueued >= 10);
        // The runs were many, and many of them long.
        QVERIFY(runs > 5000);
        QVERIFY(plainStretches > 500);
    }
};

QTEST_APPLESS_MAIN(TestDenise)
#include "test_denise.moc"
