// SPDX-License-Identifier: GPL-3.0-or-later
// Bare-metal guest programs (tests/guest/hw) check the chipset: the test loads each raw
// binary straight into chip RAM, lets the 68000 program the hardware as any Amiga program
// would, and compares what happened with the Hardware Reference Manual, computed here.

#ifndef Q_MOC_RUN
#include "emu/chipset/custom_regs.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#endif

#include <QtTest>

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>

using namespace copperline;

namespace {

std::unique_ptr<Machine> boot(const char* program) {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(program));
    return m;
}

void pokeWord(Machine& m, std::uint32_t a, std::uint16_t v) {
    m.pokeByte(a, std::uint8_t(v >> 8));
    m.pokeByte(a + 1, std::uint8_t(v));
}
void pokeLong(Machine& m, std::uint32_t a, std::uint32_t v) {
    pokeWord(m, a, std::uint16_t(v >> 16));
    pokeWord(m, a + 2, std::uint16_t(v));
}

// The parameter block dma_slots.c reads at $7F000 (its struct Params), with the PAL
// standard window ($2C81/$2CC1: lines $2C..$12C) unless told otherwise.
struct SlotParams {
    std::uint16_t bplcon0 = 0, ddfstrt = 0x38, ddfstop = 0xD0, diwstrt = 0x2C81, diwstop = 0x2CC1, dmacon = 0;
    std::uint16_t spriteStart = 0, spriteStop = 0, audioPeriod = 0, audioLength = 0;
};

void writeSlotParams(Machine& m, const SlotParams& s) {
    const std::uint16_t words[] = {s.bplcon0,     s.ddfstrt,    s.ddfstop,     s.diwstrt,    s.diwstop,
                                   s.dmacon,      s.spriteStart, s.spriteStop, s.audioPeriod, s.audioLength};
    for (std::size_t i = 0; i < std::size(words); ++i) pokeWord(m, 0x7F000 + 2 * std::uint32_t(i), words[i]);
}

BusOwner ownerAt(const Machine& m, unsigned v, unsigned h) {
    return BusOwner(const_cast<Machine&>(m).agnus().committedOwners()[std::size_t(v) * Agnus::kMaxLineCck + h]);
}

// ---- the HRM's slot diagram (figures 6-9, 6-11, 6-12; ocs-timing-facts section 2) -----

struct SlotCase {
    const char* name;
    std::uint16_t bplcon0, ddfstrt, ddfstop;
    bool sprite;
};

// Owners of one line: refresh at $01,$03,$05,$E2; sprite 0 at $15/$17 when it shows on
// the line; bitplanes in fetch units of 8 clocks from DDFSTRT to DDFSTOP inclusive, in the
// order of figure 6-11 (lores: -,4,6,2,-,3,5,1) or 6-12 (hires: 4,2,3,1 twice).
std::array<BusOwner, 227> expectedLine(const SlotCase& c, bool spriteOnLine, bool windowLine) {
    std::array<BusOwner, 227> out;
    out.fill(BusOwner::Idle);
    for (unsigned h : {0x01u, 0x03u, 0x05u, 0xE2u}) out[h] = BusOwner::Refresh;
    if (c.sprite && spriteOnLine) out[0x15] = out[0x17] = BusOwner::Sprite;
    const unsigned planes = (c.bplcon0 >> 12) & 7;
    const bool hires = c.bplcon0 & 0x8000;
    if (windowLine && planes) {
        static const unsigned lores[8] = {0, 4, 6, 2, 0, 3, 5, 1};
        static const unsigned hiresOrder[4] = {4, 2, 3, 1};
        for (unsigned u = c.ddfstrt; u <= c.ddfstop; u += 8)
            for (unsigned off = 0; off < 8; ++off) {
                const unsigned p = hires ? hiresOrder[off & 3] : lores[off];
                if (p && p <= planes) out[u + off] = BusOwner::Bitplane;
            }
    }
    return out;
}

// ---- a model of the blitter in area mode (HRM chapter 6) ---------------------------------

struct Job {
    std::uint16_t con0 = 0, con1 = 0, afwm = 0xFFFF, alwm = 0xFFFF;
    std::uint32_t apt = 0, bpt = 0, cpt = 0, dpt = 0;
    std::uint16_t amod = 0, bmod = 0, cmod = 0, dmod = 0;
    std::uint16_t adat = 0, bdat = 0, cdat = 0, size = 0;
};

std::uint16_t rd(const std::vector<std::uint8_t>& mem, std::uint32_t a) {
    a &= 0x7FFFE;
    return std::uint16_t(mem[a] << 8 | mem[a + 1]);
}
void wr(std::vector<std::uint8_t>& mem, std::uint32_t a, std::uint16_t v) {
    a &= 0x7FFFE;
    mem[a] = std::uint8_t(v >> 8);
    mem[a + 1] = std::uint8_t(v);
}

std::uint16_t applyMinterm(std::uint8_t lf, std::uint16_t a, std::uint16_t b, std::uint16_t c) {
    std::uint16_t d = 0;
    for (unsigned i = 0; i < 8; ++i)
        if (lf & (1u << i))
            d |= std::uint16_t(((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c));
    return d;
}

// Runs one area blit on `mem`; returns whether every D word was zero (BZERO).
bool modelArea(std::vector<std::uint8_t>& mem, const Job& j) {
    const bool useA = j.con0 & 0x800, useB = j.con0 & 0x400, useC = j.con0 & 0x200, useD = j.con0 & 0x100;
    const unsigned ash = j.con0 >> 12, bsh = j.con1 >> 12;
    const bool desc = j.con1 & 2, ife = j.con1 & 8, efe = j.con1 & 0x10, fci = j.con1 & 4;
    const unsigned w = (j.size & 0x3F) ? (j.size & 0x3F) : 64, h = (j.size >> 6) ? (j.size >> 6) : 1024;
    const int step = desc ? -2 : 2;
    std::uint32_t apt = j.apt, bpt = j.bpt, cpt = j.cpt, dpt = j.dpt;
    // Zeros shift into the first word of the blit only; later rows take the previous
    // row's last word (HRM "Shifts").
    std::uint16_t aprev = 0, bprev = 0;
    bool zero = true;
    auto shift = [&](std::uint16_t prev, std::uint16_t cur, unsigned s) -> std::uint16_t {
        return desc ? std::uint16_t((std::uint32_t(cur) << s | std::uint32_t(prev) >> (16 - s)) & 0xFFFF)
                    : std::uint16_t(((std::uint32_t(prev) << 16 | cur) >> s) & 0xFFFF);
    };
    for (unsigned r = 0; r < h; ++r) {
        bool carry = fci;
        for (unsigned i = 0; i < w; ++i) {
            std::uint16_t a = useA ? rd(mem, apt) : j.adat;
            if (useA) apt += std::uint32_t(step);
            if (i == 0) a &= j.afwm;
            if (i == w - 1) a &= j.alwm;
            const std::uint16_t as = shift(aprev, a, ash);
            aprev = a;
            const std::uint16_t b = useB ? rd(mem, bpt) : j.bdat;
            if (useB) bpt += std::uint32_t(step);
            const std::uint16_t bs = shift(bprev, b, bsh);
            bprev = b;
            const std::uint16_t c = useC ? rd(mem, cpt) : j.cdat;
            if (useC) cpt += std::uint32_t(step);
            std::uint16_t d = applyMinterm(std::uint8_t(j.con0), as, bs, c);
            if (ife || efe) {
                std::uint16_t out = 0;
                for (unsigned bit = 0; bit < 16; ++bit) {
                    const bool in = d & (1u << bit);
                    if (in) carry = !carry;
                    if (efe ? carry : (carry || in)) out |= std::uint16_t(1u << bit);
                }
                d = out;
            }
            if (d) zero = false;
            if (useD) {
                wr(mem, dpt, d);
                dpt += std::uint32_t(step);
            }
        }
        const auto mod = [&](std::uint16_t m) { return std::uint32_t(desc ? -std::int32_t(std::int16_t(m)) : std::int16_t(m)); };
        if (useA) apt += mod(j.amod);
        if (useB) bpt += mod(j.bmod);
        if (useC) cpt += mod(j.cmod);
        if (useD) dpt += mod(j.dmod);
    }
    return zero;
}

// Line mode from HRM "Line mode" and Table 6-3 (the octant codes of figure 6-8).
struct Line {
    int x0, y0, x1, y1;
};
constexpr std::uint32_t kLinePlane = 0x30000;
constexpr int kLineRowBytes = 40;
constexpr std::uint16_t kOctantCode[8] = {0b110, 0b001, 0b011, 0b111, 0b101, 0b010, 0b000, 0b100};

Job lineJob(const Line& l) {
    const int dx = l.x1 - l.x0, dy = l.y1 - l.y0;
    const bool shallow = std::abs(dx) >= std::abs(dy);
    const int octant = dy <= 0 ? (dx >= 0 ? (shallow ? 0 : 1) : (shallow ? 3 : 2))
                               : (dx < 0 ? (shallow ? 4 : 5) : (shallow ? 7 : 6));
    const int dmax = std::max(std::abs(dx), std::abs(dy)), dmin = std::min(std::abs(dx), std::abs(dy));
    const int err = 4 * dmin - 2 * dmax;
    Job j;
    const std::uint32_t start = kLinePlane + std::uint32_t(l.y0 * kLineRowBytes + (l.x0 >> 3 & ~1));
    j.con0 = std::uint16_t((l.x0 & 15) << 12 | 0x0B00 | 0xCA);  // A, C, D; D = A·B + ¬A·C
    j.con1 = std::uint16_t(kOctantCode[octant] << 2 | (err < 0 ? 0x40 : 0) | 0x01);
    j.apt = std::uint32_t(std::int16_t(err)) & 0xFFFF;
    j.amod = std::uint16_t(4 * (dmin - dmax));
    j.bmod = std::uint16_t(4 * dmin);
    j.cmod = j.dmod = kLineRowBytes;
    j.cpt = j.dpt = start;
    j.adat = 0x8000;
    j.bdat = 0xFFFF;
    j.size = std::uint16_t((dmax + 1) << 6 | 2);
    return j;
}

// A solid line by Bresenham: step the major axis every pixel, the minor one when the
// error term is not negative.
void modelLine(std::vector<std::uint8_t>& mem, const Line& l) {
    const int dx = l.x1 - l.x0, dy = l.y1 - l.y0;
    const int sx = dx < 0 ? -1 : 1, sy = dy < 0 ? -1 : 1;
    const bool xMajor = std::abs(dx) >= std::abs(dy);
    const int dmax = std::max(std::abs(dx), std::abs(dy)), dmin = std::min(std::abs(dx), std::abs(dy));
    int e = 2 * dmin - dmax, x = l.x0, y = l.y0;
    for (int k = 0; k <= dmax; ++k) {
        const std::uint32_t a = kLinePlane + std::uint32_t(y * kLineRowBytes + (x >> 4) * 2);
        wr(mem, a, std::uint16_t(rd(mem, a) | (0x8000 >> (x & 15))));
        if (e >= 0) {
            if (xMajor) y += sy;
            else x += sx;
            e -= 2 * dmax;
        }
        e += 2 * dmin;
        if (xMajor) x += sx;
        else y += sy;
    }
}

constexpr std::uint32_t kTable = 0x70000;
constexpr unsigned kJobBytes = 44;

void writeJobs(Machine& m, const std::vector<Job>& jobs, std::uint16_t dmacon,
               std::uint16_t waitLine, std::uint16_t intena = 0) {
    pokeWord(m, kTable, std::uint16_t(jobs.size()));
    pokeWord(m, kTable + 2, dmacon);
    pokeWord(m, kTable + 4, waitLine);
    pokeWord(m, kTable + 6, intena);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const Job& j = jobs[i];
        const std::uint32_t a = kTable + 8 + std::uint32_t(i) * kJobBytes;
        pokeWord(m, a, j.con0);
        pokeWord(m, a + 2, j.con1);
        pokeWord(m, a + 4, j.afwm);
        pokeWord(m, a + 6, j.alwm);
        pokeLong(m, a + 8, j.apt);
        pokeLong(m, a + 12, j.bpt);
        pokeLong(m, a + 16, j.cpt);
        pokeLong(m, a + 20, j.dpt);
        pokeWord(m, a + 24, j.amod);
        pokeWord(m, a + 26, j.bmod);
        pokeWord(m, a + 28, j.cmod);
        pokeWord(m, a + 30, j.dmod);
        pokeWord(m, a + 32, j.adat);
        pokeWord(m, a + 34, j.bdat);
        pokeWord(m, a + 36, j.cdat);
        pokeWord(m, a + 38, j.size);
    }
}

void runUntilStopped(Machine& m, int maxFrames) {
    for (int f = 0; f < maxFrames && !m.cpu().stopped(); ++f) m.runFrame();
}

// dma_slots showing two lores planes (bitplane and Copper DMA on), stopped once set up;
// slot records not armed.
std::unique_ptr<Machine> twoPlaneSlots() {
    SlotParams params;
    params.bplcon0 = 0x2200; // two planes
    params.dmacon = 0x0200 | 0x0100 | 0x0080; // DMAEN BPLEN COPEN
    params.diwstrt = 0x2C81;
    params.diwstop = 0xF4C1;
    auto m = boot(HW_DMA_SLOTS);
    writeSlotParams(*m, params);
    runUntilStopped(*m, 10);
    return m;
}

constexpr MasterClock kPalFrame = 2 * 227 * 313;

// The beam's clock as an index into a frame's records.
std::size_t beamIndex(Machine& m) {
    return std::size_t(m.agnus().vpos()) * Agnus::kMaxLineCck + m.agnus().hpos();
}

std::ptrdiff_t bitplaneWords(const std::vector<SlotRecord>& r, std::size_t from, std::size_t to) {
    return std::count_if(r.begin() + std::ptrdiff_t(from), r.begin() + std::ptrdiff_t(to),
                         [](const SlotRecord& x) { return x.owner == BusOwner::Bitplane; });
}

// The first record of [from, to) in which got and want differ, described (empty if none).
QString firstDifference(const std::vector<SlotRecord>& got, const std::vector<SlotRecord>& want, std::size_t from,
                        std::size_t to, const char* whose) {
    for (std::size_t i = from; i < to; ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(SlotRecord)) != 0)
            return QString("record %1 (line %2, clock %3) differs from %4")
                .arg(i)
                .arg(i / Agnus::kMaxLineCck)
                .arg(i % Agnus::kMaxLineCck)
                .arg(whose);
    return {};
}

} // namespace

class TestHardware : public QObject {
    Q_OBJECT
private slots:
    void slotRecordsNeedNoClearing() {
        // Agnus writes every clock's whole record and reuses the frame before last's buffer
        // without clearing it; a short NTSC line's spare column and the rows past a frame's
        // lines are cleared. Interlace switched on mid-run makes a 262-line frame follow
        // 263-line ones and shifts which rows are short: each frame is compared with one
        // from a machine that began recording just before it, in a zeroed buffer.
        Machine::Config ntsc;
        ntsc.ntsc = true;
        SlotParams params;
        params.bplcon0 = 0x2200; // two planes, COLOR
        params.dmacon = 0x0200 | 0x0100 | 0x0080 | 0x0020; // DMAEN BPLEN COPEN SPREN
        params.diwstrt = 0x2C81;
        params.diwstop = 0xF4C1;
        const auto start = [&] {
            auto m = std::make_unique<Machine>(ntsc);
            m->bootBareMetal(readFileBytes(HW_DMA_SLOTS));
            writeSlotParams(*m, params);
            return m;
        };
        constexpr int kLaceAfter = 4, kLast = 8;
        auto a = start();
        a->agnus().setRecordSlots(true);
        std::vector<std::unique_ptr<Machine>> fresh; // fresh[k]: records from frame k on
        for (int k = 0; k <= kLast; ++k) fresh.push_back(start());
        std::set<unsigned> lengths;
        for (int f = 0; f <= kLast; ++f) {
            // Before frame f: machine f-1 begins recording (its frame f-1 is partial, f whole).
            if (f >= 1) fresh[f - 1]->agnus().setRecordSlots(true);
            if (f == kLaceAfter + 1) {
                a->agnus().writeCustom(reg::BPLCON0, 0x2204);
                for (auto& m : fresh) m->agnus().writeCustom(reg::BPLCON0, 0x2204);
            }
            a->runFrame();
            for (auto& m : fresh) m->runFrame();
            if (f < 2) continue;
            lengths.insert(a->agnus().committedLines());
            const auto& want = fresh[f - 1]->agnus().committedRecords();
            const auto& got = a->agnus().committedRecords();
            QCOMPARE(got.size(), want.size());
            QVERIFY2(std::memcmp(got.data(), want.data(), got.size() * sizeof(SlotRecord)) == 0,
                     qPrintable(QString("frame %1's records differ from a fresh buffer's").arg(f)));
        }
        QCOMPARE(lengths, (std::set<unsigned>{262, 263}));
    }

    void slotRecordsSurviveARewindInTheFrame() {
        // A state loaded in the middle of a frame sends the beam back over clocks that
        // already ran, in a buffer that is never cleared. Where the first timeline fetched
        // bitplanes and the new one (bitplane DMA switched off) leaves the bus idle, every
        // record must be the new timeline's, as in a machine that only ever ran that one
        // (its buffer zeroed): an idle clock whose record is left unwritten shows the
        // fetch that was there before.
        auto m = twoPlaneSlots();
        m->agnus().setRecordSlots(true);
        m->runFrame();
        const std::size_t all = m->agnus().committedRecords().size();
        QVERIFY2(bitplaneWords(m->agnus().committedRecords(), 0, all) > 1000, "the first timeline fetched too little");
        // Mid-frame, in the display window: save, run on a quarter frame, come back.
        m->runUntil(m->now() + kPalFrame / 2);
        const std::vector<std::uint8_t> state = m->saveState();
        const std::size_t from = beamIndex(*m);
        m->runUntil(m->now() + kPalFrame / 4);
        m->loadState(state);
        auto ref = twoPlaneSlots();
        ref->loadState(state);
        ref->agnus().setRecordSlots(true);
        for (Machine* x : {m.get(), ref.get()}) {
            x->agnus().writeCustom(reg::DMACON, 0x0100); // clear BPLEN
            x->runFrame();
        }
        const auto& got = m->agnus().committedRecords();
        const auto& want = ref->agnus().committedRecords();
        QCOMPARE(got.size(), want.size());
        QCOMPARE(bitplaneWords(want, 0, want.size()), 0);
        const std::size_t end = std::size_t(m->agnus().committedLines()) * Agnus::kMaxLineCck;
        QVERIFY(from > 0 && from < end);
        QString diff = firstDifference(got, want, from, end, "the new timeline's");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // The clocks before the rewound beam are the same history: a machine that ran the
        // frame straight, recording all of it, has the same records there.
        auto straight = twoPlaneSlots();
        straight->agnus().setRecordSlots(true);
        straight->runFrame();
        straight->runUntil(straight->now() + kPalFrame / 2);
        straight->agnus().writeCustom(reg::DMACON, 0x0100);
        straight->runFrame();
        const auto& whole = straight->agnus().committedRecords();
        QCOMPARE(whole.size(), got.size());
        QVERIFY(bitplaneWords(whole, 0, from) > 100);
        diff = firstDifference(got, whole, 0, end, "the run without a rewind's");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void slotRecordsAfterALoadFurtherOnInTheFrame() {
        // A state from further on in the frame moves the beam forward over clocks this
        // timeline never ran, whose bytes in the buffer are the frame before last's: they
        // must come out empty, and every record from the new beam on the new timeline's.
        const auto start = [] {
            auto m = twoPlaneSlots();
            m->runFrame();
            m->runFrame();
            return m;
        };
        auto m = start();
        m->agnus().setRecordSlots(true);
        m->runFrame();
        m->runFrame();
        m->runUntil(m->now() + kPalFrame / 4);
        const std::size_t before = beamIndex(*m);
        auto later = start();
        later->runFrame();
        later->runFrame();
        later->runUntil(later->now() + kPalFrame / 2);
        const std::vector<std::uint8_t> state = later->saveState();
        m->loadState(state);
        const std::size_t from = beamIndex(*m);
        QVERIFY2(from > before + 10 * Agnus::kMaxLineCck,
                 qPrintable(QString("the beam moved from %1 to %2").arg(before).arg(from)));
        auto ref = start();
        ref->loadState(state);
        ref->agnus().setRecordSlots(true);
        m->runFrame();
        ref->runFrame();
        const auto& got = m->agnus().committedRecords();
        const auto& want = ref->agnus().committedRecords();
        QCOMPARE(got.size(), want.size());
        QVERIFY(bitplaneWords(want, from, want.size()) > 1000);
        const std::size_t end = std::size_t(m->agnus().committedLines()) * Agnus::kMaxLineCck;
        const QString diff = firstDifference(got, want, before, end, "the new timeline's");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void dmaSlotsFollowTheSlotDiagram_data() {
        QTest::addColumn<int>("index");
        static const SlotCase cases[] = {
            {"lores 0", 0x0200, 0x38, 0xD0, false}, {"lores 1", 0x1200, 0x38, 0xD0, false},
            {"lores 2", 0x2200, 0x38, 0xD0, false}, {"lores 3", 0x3200, 0x38, 0xD0, true},
            {"lores 4", 0x4200, 0x38, 0xD0, false}, {"lores 5", 0x5200, 0x38, 0xD0, false},
            {"lores 6", 0x6200, 0x38, 0xD0, true},  {"hires 0", 0x8200, 0x3C, 0xD4, false},
            {"hires 1", 0x9200, 0x3C, 0xD4, false}, {"hires 2", 0xA200, 0x3C, 0xD4, true},
            {"hires 3", 0xB200, 0x3C, 0xD4, false}, {"hires 4", 0xC200, 0x3C, 0xD4, true},
            {"lores 4 narrow", 0x4200, 0x50, 0xA0, true},
        };
        for (int i = 0; i < int(std::size(cases)); ++i) QTest::newRow(cases[i].name) << i;
        cases_ = cases;
    }

    void dmaSlotsFollowTheSlotDiagram() {
        QFETCH(int, index);
        const SlotCase c = cases_[index];
        auto m = boot(HW_DMA_SLOTS);
        SlotParams params;
        params.bplcon0 = c.bplcon0;
        params.ddfstrt = c.ddfstrt;
        params.ddfstop = c.ddfstop;
        params.dmacon = 0x0200 | 0x0100 | 0x0080 | 0x0020 | 0x0001;  // DMAEN BPLEN COPEN SPREN AUD0EN
        params.spriteStart = c.sprite ? 0x48 : 0;
        params.spriteStop = c.sprite ? 0x58 : 0;
        params.audioPeriod = 200;  // a word every 400 colour clocks
        params.audioLength = 100;
        writeSlotParams(*m, params);
        for (int f = 0; f < 3; ++f) m->runFrame();

        // Inside the window, with and without the sprite; above the window.
        for (const auto& [line, window, sprite] :
             {std::tuple{0x50u, true, true}, std::tuple{0x70u, true, false}, std::tuple{0x20u, false, false}}) {
            const auto want = expectedLine(c, sprite, window);
            for (unsigned h = 0; h < 227; ++h) {
                if (h == 0x0D) continue;  // audio: checked below
                const BusOwner got = ownerAt(*m, line, h);
                if (got != want[h])
                    QFAIL(qPrintable(QString("line $%1 hpos $%2: %3, expected %4")
                                         .arg(line, 0, 16).arg(h, 0, 16)
                                         .arg(busOwnerName(got), busOwnerName(want[h]))));
            }
        }
        // Audio channel 0 fetches only in its slot, a word every 2 x period clocks.
        unsigned audio = 0;
        for (unsigned v = 0; v < 313; ++v)
            for (unsigned h = 0; h < 227; ++h)
                if (ownerAt(*m, v, h) == BusOwner::Audio) {
                    QCOMPARE(h, 0x0Du);
                    ++audio;
                }
        const unsigned perFrame = 313 * 227 / 400;
        QVERIFY2(audio >= perFrame - 1 && audio <= perFrame + 1, qPrintable(QString::number(audio)));
    }

    void slotEventsMarkTheBeam() {
        // docs/formats/slots.md: VB/VS/VDIW on the first refresh slot, LOF/LOL on the
        // second, comparator edges where they match.
        auto m = boot(HW_DMA_SLOTS);
        SlotParams params;
        params.bplcon0 = 0x2200;
        params.dmacon = 0x0200 | 0x0100 | 0x0080;
        writeSlotParams(*m, params);
        m->agnus().setRecordSlots(true);
        for (int f = 0; f < 3; ++f) m->runFrame();
        const auto& rec = m->agnus().committedRecords();
        auto events = [&](unsigned v, unsigned h) { return rec[std::size_t(v) * Agnus::kMaxLineCck + h].events; };
        using namespace slot_event;
        QCOMPARE(events(0x10, 0x01), VB);          // vertical blank, window shut
        QCOMPARE(events(3, 0x01), VB | VS);        // vertical sync lines 2-4
        QCOMPARE(events(0x50, 0x01), VDIW);        // inside the window
        QCOMPARE(events(0x50, 0x03), LOF);         // PAL progressive: long frames
        QCOMPARE(events(0x50, 0x12), HSS);
        QCOMPARE(events(0x50, 0x23), HSE);
        QCOMPARE(events(0x50, 0x0F), HBS);
        QCOMPARE(events(0x50, 0x2E), HBE); // Denise's hardwired blank end (docs/display.md)
        QCOMPARE(events(0x50, 0x38), DDFS);
        QCOMPARE(events(0x50, 0x40), HDIWS);       // DIWSTRT H $81 / 2
        QCOMPARE(events(0x50, 0xD0), DDFE);
        QCOMPARE(events(0x50, 0xE0), HDIWE);       // DIWSTOP H $1C1 / 2
        QCOMPARE(events(0x50, 0x60), 0u);
    }

    void dmaconWriteOnTheSpriteControlLine() {
        // A DMACON write on line $19, after the sprites fetched their control words, must
        // not send them back to fetch control words from their data.
        auto m = boot(HW_DMA_SLOTS);
        SlotParams params;
        params.bplcon0 = 0x1200;
        params.dmacon = 0x0200 | 0x0100 | 0x0080 | 0x0020;
        params.spriteStart = 0x48;
        params.spriteStop = 0x58;
        writeSlotParams(*m, params);
        for (int f = 0; f < 2; ++f) m->runFrame();
        while (!(m->agnus().vpos() == 0x19 && m->agnus().hpos() > 0x40)) m->stepInstruction();
        m->agnus().writeCustom(reg::DMACON, 0x8002);  // AUD1EN: any change will do
        m->runFrame();
        QCOMPARE(ownerAt(*m, 0x50, 0x15), BusOwner::Sprite);
        QCOMPARE(ownerAt(*m, 0x50, 0x17), BusOwner::Sprite);
        QCOMPARE(ownerAt(*m, 0x60, 0x15), BusOwner::Idle);
    }

    void copperWaitMoveAndSkipTiming() {
        auto m = boot(HW_COPPER_TIMING);
        m->agnus().setRecordSlots(true);
        for (int f = 0; f < 3; ++f) m->runFrame();
        const auto& rec = m->agnus().committedRecords();
        std::map<std::uint16_t, std::vector<std::pair<unsigned, unsigned>>> writes;  // reg -> (line, hpos)
        for (unsigned v = 0; v < 313; ++v)
            for (unsigned h = 0; h < 227; ++h) {
                const SlotRecord& r = rec[std::size_t(v) * Agnus::kMaxLineCck + h];
                if (r.owner != BusOwner::Copper) continue;
                QVERIFY2(h % 2 == 0, "the Copper uses even clocks only");
                if ((r.flags & slot_flag::Write) && (r.flags & slot_flag::Register)) writes[r.reg].push_back({v, h});
            }
        // The first MOVE after WAIT ($40,$40): the comparator sees the beam 2 clocks ahead
        // and wakes at $3E, the wake-up clock is $40, the MOVE is fetched at $42 and $44
        // and writes at $44 (docs/chipset.md). Each later MOVE takes 4 clocks (HRM: two
        // memory cycles).
        const auto& c0 = writes[reg::COLOR00];
        QCOMPARE(c0.size(), std::size_t(3));
        QCOMPARE(c0[0], (std::pair<unsigned, unsigned>{0x40, 0x44}));
        QCOMPARE(c0[1], (std::pair<unsigned, unsigned>{0x40, 0x48}));
        QCOMPARE(c0[2], (std::pair<unsigned, unsigned>{0x40, 0x4C}));
        QCOMPARE(writes[reg::COLOR00 + 2].size(), std::size_t(1));
        QCOMPARE(writes[reg::COLOR00 + 2][0], (std::pair<unsigned, unsigned>{0x41, 0x24}));
        // The SKIP found the beam past its position: COLOR02 is skipped, COLOR03 written.
        QVERIFY(writes[reg::COLOR00 + 4].empty());
        QCOMPARE(writes[reg::COLOR00 + 6].size(), std::size_t(1));
        // A WAIT whose position has passed still costs 8 clocks: COLOR04 lands 8 after the
        // $84 a MOVE right after the first WAIT would have.
        QCOMPARE(writes[reg::COLOR00 + 8].size(), std::size_t(1));
        QCOMPARE(writes[reg::COLOR00 + 8][0], (std::pair<unsigned, unsigned>{0x42, 0x8C}));
        // The MOVE to BLTCON0 without CDANG halts the Copper: nothing after it.
        QVERIFY(writes[reg::COLOR00 + 10].empty());
        QVERIFY(writes[reg::BLTCON0].empty());
        // The picture shows the colours at those clocks.
        QCOMPARE(m->denise().spy(reg::COLOR00), std::uint16_t(0x333));
    }

    void blitterResultsMatchTheModel() {
        std::mt19937 rng(1985);
        auto m = boot(HW_BLITTER_JOBS);
        // Sources in $10000-$17FFF, random.
        for (std::uint32_t a = 0x10000; a < 0x18000; ++a) m->pokeByte(a, std::uint8_t(rng()));
        std::vector<Job> jobs;
        for (unsigned lf = 0; lf < 256; ++lf) {
            Job j;
            const bool useA = rng() % 4, useB = rng() % 4, useC = rng() % 4;
            j.con0 = std::uint16_t((useA ? (rng() % 16) << 12 : 0) | (useA ? 0x800 : 0) | (useB ? 0x400 : 0) |
                                   (useC ? 0x200 : 0) | 0x100 | lf);
            const bool desc = rng() % 2;
            j.con1 = std::uint16_t((useB ? (rng() % 16) << 12 : 0) | (desc ? 2 : 0));
            if (lf % 5 == 0) j.con1 |= std::uint16_t(desc ? (rng() % 2 ? 0x08 : 0x10) | (rng() % 2 ? 0x04 : 0) : 0);
            j.afwm = std::uint16_t(rng());
            j.alwm = std::uint16_t(rng());
            const unsigned w = 1 + rng() % 6, h = 1 + rng() % 5;
            j.amod = std::uint16_t(2 * (rng() % 4));
            j.bmod = std::uint16_t(2 * (rng() % 4));
            j.cmod = std::uint16_t(2 * (rng() % 4));
            j.dmod = std::uint16_t(2 * (rng() % 4));
            const std::uint32_t span = 2 * (w + 4) * h;
            auto place = [&](std::uint32_t base) { return base + 2 * (rng() % 256) + (desc ? span : 0); };
            j.apt = place(0x10000);
            j.bpt = place(0x12000);
            j.cpt = place(0x14000);
            j.dpt = place(0x18000);
            j.adat = std::uint16_t(rng());
            j.bdat = std::uint16_t(rng());
            j.cdat = std::uint16_t(rng());
            j.size = std::uint16_t(h << 6 | w);
            jobs.push_back(j);
        }
        // Lines in every octant, on a cleared plane at $30000.
        const std::vector<Line> lines = {{80, 60, 140, 45}, {80, 60, 95, 10},  {80, 60, 70, 5},   {80, 60, 20, 50},
                                         {80, 60, 10, 75},  {80, 60, 66, 110}, {80, 60, 93, 118}, {80, 60, 150, 81},
                                         {5, 5, 5, 40},     {3, 100, 60, 100}};
        for (const Line& l : lines) jobs.push_back(lineJob(l));
        writeJobs(*m, jobs, 0, 0);

        std::vector<std::uint8_t> model(m->chipRam().data(), m->chipRam().data() + 0x80000);
        std::vector<bool> zero;
        for (std::size_t i = 0; i < 256; ++i) zero.push_back(modelArea(model, jobs[i]));
        for (const Line& l : lines) modelLine(model, l);

        runUntilStopped(*m, 200);
        QVERIFY(m->cpu().stopped());
        for (std::uint32_t a = 0x18000; a < 0x1C000; a += 2)
            if (rd(model, a) != m->spyWord(a))
                QFAIL(qPrintable(QString("area blits: $%1 is $%2, the model says $%3")
                                     .arg(a, 0, 16).arg(m->spyWord(a), 4, 16, QChar('0')).arg(rd(model, a), 4, 16, QChar('0'))));
        for (std::uint32_t a = kLinePlane; a < kLinePlane + 40 * 130; a += 2)
            if (rd(model, a) != m->spyWord(a))
                QFAIL(qPrintable(QString("lines: $%1 is $%2, the model says $%3")
                                     .arg(a, 0, 16).arg(m->spyWord(a), 4, 16, QChar('0')).arg(rd(model, a), 4, 16, QChar('0'))));
        for (std::size_t i = 0; i < 256; ++i) {
            const std::uint16_t dmaconr = m->spyWord(kTable + 8 + std::uint32_t(i) * kJobBytes + 40);
            QCOMPARE(bool(dmaconr & 0x2000), bool(zero[i]));
        }
    }

    void blitterCycleCountsPerChannelMix() {
        // Clocks per word by the channels in use (HRM "Blitter Speed", Table 6-2), with
        // fill adding one where D is used without C (ocs-timing-facts section 4).
        static const unsigned perWord[16] = {2, 2, 2, 3, 3, 3, 3, 4, 2, 2, 2, 3, 3, 3, 3, 4};
        // Table 6-2's sequences end in an idle clock for B alone ("- B -"), A alone
        // ("A -") and AB ("A B -"): a blit without D has its last bus clock one before
        // its end. A blit with D ends with its final write, two clocks after the end.
        auto trailingIdle = [](unsigned use) { return use == 4 || use == 8 || use == 12 ? 1u : 0u; };
        auto m = boot(HW_BLITTER_JOBS);
        m->agnus().setRecordSlots(true);
        std::vector<Job> jobs;
        const unsigned w = 6, h = 4;
        for (unsigned use = 0; use < 16; ++use)
            for (int fill = 0; fill < 2; ++fill) {
                Job j;
                j.con0 = std::uint16_t(use << 8 | 0xF0);
                j.con1 = fill ? 0x0A : 0;  // inclusive fill, descending
                j.apt = 0x10100;
                j.bpt = 0x12100;
                j.cpt = 0x14100;
                j.dpt = 0x18100;
                j.size = std::uint16_t(h << 6 | w);
                jobs.push_back(j);
            }
        // BLTPRI: the blitter takes every clock it can; the CPU waits.
        writeJobs(*m, jobs, 0x8400, 0x30);
        std::vector<SlotRecord> all;
        for (int f = 0; f < 6 && !m->cpu().stopped(); ++f) {
            m->runFrame();
            const auto& rec = m->agnus().committedRecords();
            for (unsigned v = 0; v < m->agnus().committedLines(); ++v)
                all.insert(all.end(), rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck,
                           rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck + 227);
        }
        QVERIFY(m->cpu().stopped());
        // Split the clocks at each BLTSIZE write; count the blitter's bus clocks by channel
        // and the span from the write to its last bus clock.
        std::vector<std::size_t> starts;
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].owner == BusOwner::Cpu && (all[i].flags & slot_flag::Write) && all[i].reg == reg::BLTSIZE)
                starts.push_back(i);
        QCOMPARE(starts.size(), jobs.size());
        for (std::size_t k = 0; k < starts.size(); ++k) {
            const unsigned use = jobs[k].con0 >> 8 & 15;
            const bool fill = jobs[k].con1 & 0x08;
            std::size_t end = k + 1 < starts.size() ? starts[k + 1] : all.size();
            std::array<unsigned, 4> channel{};
            std::size_t last = starts[k];
            for (std::size_t i = starts[k] + 1; i < end; ++i)
                if (all[i].owner == BusOwner::Blitter) {
                    ++channel[all[i].subtype & 3];
                    last = i;
                }
            const std::array<unsigned, 4> want = {(use & 8) ? w * h : 0, (use & 4) ? w * h : 0, (use & 2) ? w * h : 0,
                                                  (use & 1) ? w * h : 0};
            QCOMPARE(channel, want);
            if (!use) continue;
            // BLTPRI and nothing else on the bus: the blit runs flat out, three set-up
            // clocks (the one in which the BLTSIZE write takes effect, then two), then its
            // words, then (with D) the final write two clocks later.
            const unsigned cpw = perWord[use] + (fill && (use & 1) && !(use & 2) ? 1 : 0);
            // Every clock fixed DMA (refresh here) takes inside the blit holds it up by one,
            // except the clock right after the write: the write takes effect in it whoever
            // has the bus (docs/blitter.md, Start), so counting starts one clock later.
            std::size_t held = 0;
            for (std::size_t i = starts[k] + 2; i <= last; ++i)
                held += all[i].owner != BusOwner::Blitter && all[i].owner != BusOwner::Idle &&
                        all[i].owner != BusOwner::Cpu;
            const std::size_t span = last - starts[k];
            const std::size_t expect = 3 + std::size_t(cpw) * w * h + ((use & 1) ? 2 : 0) - trailingIdle(use) + held;
            QVERIFY2(span == expect,
                     qPrintable(QString("USE %1%2: %3 clocks, expected %4 (%5 held by other DMA)")
                                    .arg(use, 4, 2, QChar('0')).arg(fill ? " fill" : "").arg(span).arg(expect).arg(held)));
        }
    }

    void blitterPriorityAgainstTheCpu() {
        // A long ABCD blit wants the bus in every clock while the CPU polls DMACONR. With
        // BLTPRI clear the blitter gives the CPU one clock after refusing it three in a row
        // (HRM chapter 6, "Blitter priority"); with BLTPRI set the CPU waits it out.
        for (const bool nasty : {false, true}) {
            auto m = boot(HW_BLITTER_JOBS);
            m->agnus().setRecordSlots(true);
            Job j;
            j.con0 = 0x0FCA;
            j.apt = 0x10000;
            j.bpt = 0x12000;
            j.cpt = 0x14000;
            j.dpt = 0x18000;
            j.size = std::uint16_t(8 << 6 | 32);  // 256 words, about 1,000 clocks
            writeJobs(*m, {j}, nasty ? 0x8400 : 0, 0x30);
            std::vector<SlotRecord> all;
            for (int f = 0; f < 4 && !m->cpu().stopped(); ++f) {
                m->runFrame();
                const auto& rec = m->agnus().committedRecords();
                for (unsigned v = 0; v < m->agnus().committedLines(); ++v)
                    all.insert(all.end(), rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck,
                               rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck + 227);
            }
            std::size_t first = 0, last = 0;
            for (std::size_t i = 0; i < all.size(); ++i)
                if (all[i].owner == BusOwner::Blitter) {
                    if (!first) first = i;
                    last = i;
                }
            QVERIFY(first && last > first + 900);
            unsigned cpu = 0, run = 0, longestRun = 0;
            for (std::size_t i = first; i <= last; ++i) {
                if (all[i].owner == BusOwner::Cpu) {
                    ++cpu;
                    run = 0;
                } else if (all[i].owner == BusOwner::Blitter && (all[i].flags & slot_flag::CpuWaited)) {
                    longestRun = std::max(longestRun, ++run);
                }
            }
            if (nasty) {
                // Only the blit's own idle clocks: the first word's D slot (nothing to
                // write yet) and the one before the final write.
                QCOMPARE(cpu, 2u);
                QVERIFY(longestRun > 900);
            } else {
                QVERIFY2(cpu > 100, qPrintable(QString::number(cpu)));
                QCOMPARE(longestRun, 3u);
            }
        }
    }

    void blitSpeedEndsWhereTheRuleSays() {
        // tests/guest/hw/blit_speed.S, after alpine9000's 010.blit_speed: five cookie-cut
        // blits (A, B, C, D, minterm $CA) of 4 words by 64 rows, BLTPRI set, the CPU
        // polling DMACONR BBUSY after each, then a COLOR00 write. Where each BLTSIZE write
        // and the COLOR00 write land follows from the first BLTSIZE write by these rules,
        // with only refresh ($01 $03 $05 $E2, docs/chipset.md) taken from the records:
        //
        // The blitter (docs/blitter.md, Start; HRM table 6-2). A BLTSIZE write in clock W
        // takes effect in W+1, whoever has the bus. Two set-up clocks follow, then a group
        // "A B C D" of 4 clocks per word (ABCD is 4 cycles a word), 256 of them; the first
        // group's D slot is idle (D lags a word). Each of those 2 + 1,024 clocks needs a
        // clock refresh leaves free, so the first A fetch comes at W+4 with no refresh in
        // the way. BBUSY clears in the last of them, E. Then an idle clock, which needs a
        // free clock, and the final D write, which needs the bus.
        //
        // The CPU. With BLTPRI set it gets no clock the blitter wants the bus in (HRM
        // chapter 6); the blitter's set-up clocks and idle steps leave the bus to it. A
        // 68000 bus cycle takes 4 CPU clocks, 2 colour clocks, and holds the bus in the
        // first; an internal step "n" is 2 CPU clocks, one colour clock. The loop's
        // instructions as the M68000 User's Manual times them and Yacht orders them:
        //   move.w d0,$58(a6)    12 clocks  np nw np      (nw: the BLTSIZE write, W)
        //   btst   #6,2(a6)      16 clocks  np np nr np   (nr: DMACONR)
        //   bne.s  wait          not taken: 8 clocks, nn np
        //   dbra   d7,blit       taken: 10 clocks, n np np; expired: 14 clocks, n np np np
        //   move.w d1,$180(a6)   12 clocks  np nw np      (nw: the COLOR00 write)
        // After the write at W the CPU's np takes W+2 (a set-up clock); btst's first np
        // wants W+4, the A slot, and gets the first group's idle D slot, W+7; its second np
        // waits for the blit to end and gets E+1 (the idle clock); nr comes at E+3, after the
        // final D write in E+2, and reads BBUSY clear, so the loop runs once per blit. So
        // with no refresh in the way a blit's BLTSIZE write follows the last one's by
        // 3 + 1,024 + 18 = 1,045 clocks (E = W+1,027; np E+5, nn, np E+9, n, np E+12, np
        // E+14, then the next move's np E+16 and nw E+18), and the COLOR00 write comes 20
        // clocks after the fifth blit's E (the expired dbra's third np in E+16, np E+18,
        // nw E+20): 4 x 1,045 + 1,027 + 20 = 5,227 clocks after the first BLTSIZE write,
        // plus one for each clock refresh takes from the blitter or the CPU. With the first
        // slot at W+3 (the blitter without the clock in which BLTSIZE takes effect) it is
        // 5 clocks earlier.
        auto m = boot(HW_BLIT_SPEED);
        m->agnus().setRecordSlots(true);
        std::vector<SlotRecord> all;
        std::vector<std::pair<unsigned, unsigned>> beam; // (line, clock) of each record
        for (int f = 0; f < 3 && !m->cpu().stopped(); ++f) {
            m->runFrame();
            const auto& rec = m->agnus().committedRecords();
            for (unsigned v = 0; v < m->agnus().committedLines(); ++v)
                for (unsigned h = 0; h < 227; ++h) {
                    all.push_back(rec[std::size_t(v) * Agnus::kMaxLineCck + h]);
                    beam.emplace_back(v, h);
                }
        }
        QVERIFY(m->cpu().stopped());
        std::vector<std::size_t> writes;
        std::size_t colour = 0;
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (all[i].owner != BusOwner::Cpu || !(all[i].flags & slot_flag::Write)) continue;
            if (all[i].reg == reg::BLTSIZE) writes.push_back(i);
            if (all[i].reg == reg::COLOR00) colour = i;
        }
        QCOMPARE(writes.size(), std::size_t(5));
        QVERIFY(colour > writes.back());

        // Refresh (and any other fixed DMA) is the only owner read from the records.
        auto fixed = [&](std::size_t c) {
            const BusOwner o = all[c].owner;
            return o != BusOwner::Idle && o != BusOwner::Blitter && o != BusOwner::Cpu;
        };
        auto freeFrom = [&](std::size_t c) {
            while (fixed(c)) ++c;
            return c;
        };
        std::size_t w = writes[0], expectColour = 0;
        std::vector<std::size_t> expectWrites{w};
        std::size_t refreshHeld = 0;
        for (int k = 0; k < 5; ++k) {
            // The blitter's clocks: W+1, then 2 set-up clocks and 1,024 slots in free clocks.
            std::set<std::size_t> busClocks; // the clocks in which the blitter takes the bus
            std::size_t c = w + 1;
            for (unsigned step = 0; step < 2 + 1024; ++step) {
                c = freeFrom(c + 1);
                // Steps 0 and 1 are the set-up clocks, step 5 the first group's idle D slot.
                if (step >= 2 && step != 5) busClocks.insert(c);
            }
            const std::size_t e = c;
            refreshHeld += e - (w + 3 + 1024);
            const std::size_t finalD = freeFrom(freeFrom(e + 1) + 1);
            busClocks.insert(finalD);
            // The CPU from the BLTSIZE write on: 'a' a bus cycle, 'n' an internal clock;
            // 'r' the DMACONR read, 'W' the next write (BLTSIZE, or COLOR00 after the fifth).
            const char* cpu = k < 4 ? "a" "aara" "nna" "naa" "aW" : "a" "aara" "nna" "naaa" "aW";
            std::size_t t = w + 2;
            for (const char* p = cpu; *p; ++p) {
                if (*p == 'n') {
                    ++t;
                    continue;
                }
                while (fixed(t) || busClocks.count(t)) ++t;
                if (*p == 'r') QVERIFY2(t > e, "the DMACONR read must come after BBUSY clears");
                if (*p == 'W') {
                    if (k < 4) expectWrites.push_back(t);
                    else expectColour = t;
                }
                t += 2;
            }
            w = expectWrites.back();
        }
        for (std::size_t k = 0; k < 5; ++k)
            QVERIFY2(writes[k] == expectWrites[k],
                     qPrintable(QString("BLTSIZE write %1 at clock %2 after the first, expected %3")
                                    .arg(k).arg(writes[k] - writes[0]).arg(expectWrites[k] - writes[0])));
        // The first A fetch of each blit: 4 clocks after its write when refresh is not in the way.
        for (std::size_t k = 0; k < 5; ++k) {
            std::size_t first = writes[k] + 1;
            while (all[first].owner != BusOwner::Blitter) ++first;
            std::size_t want = writes[k] + 1;
            for (int n = 0; n < 3; ++n) want = freeFrom(want + 1);
            QCOMPARE(first - writes[k], want - writes[k]);
        }
        QVERIFY2(colour == expectColour,
                 qPrintable(QString("COLOR00 written %1 clocks after the first BLTSIZE write (line %2, clock $%3), "
                                    "expected %4 = 5,227 + %5 refresh clocks")
                                .arg(colour - writes[0]).arg(beam[colour].first).arg(beam[colour].second, 2, 16, QChar('0'))
                                .arg(expectColour - writes[0]).arg(expectColour - writes[0] - 5227)));
        QVERIFY(refreshHeld > 0);
        qInfo("COLOR00 at line %u clock $%02X, %zu clocks after the first BLTSIZE write (%zu of them refresh's)",
              beam[colour].first, beam[colour].second, colour - writes[0], colour - writes[0] - 5227);
    }

    void blitterYieldHoldsItsIdleSteps() {
        // A 64x64 descending fill with D only takes 3 clocks a word ("- - D": the fill adds
        // an idle step). With BLTPRI clear and the CPU polling DMACONR, the CPU is refused
        // three clocks in a row around the refresh slots; the blitter then loses the next
        // clock whole, its idle step included (HRM chapter 6; vAmiga's BLS line denies
        // BUSIDLE steps too). So the blit's span is its own length plus one clock for
        // every clock fixed DMA took and every clock it yielded to the CPU.
        auto m = boot(HW_BLITTER_JOBS);
        m->agnus().setRecordSlots(true);
        Job j;
        j.con0 = 0x01F0;  // D only, D = A
        j.con1 = 0x0A;    // inclusive fill, descending
        j.adat = 0x8001;
        j.dpt = 0x20000 - 2;
        j.size = 64 << 6;  // 64 rows of 64 words
        writeJobs(*m, {j}, 0, 0x30);
        std::vector<SlotRecord> all;
        for (int f = 0; f < 4 && !m->cpu().stopped(); ++f) {
            m->runFrame();
            const auto& rec = m->agnus().committedRecords();
            for (unsigned v = 0; v < m->agnus().committedLines(); ++v)
                all.insert(all.end(), rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck,
                           rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck + 227);
        }
        QVERIFY(m->cpu().stopped());
        std::size_t start = 0, last = 0;
        unsigned writes = 0;
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (all[i].owner == BusOwner::Cpu && (all[i].flags & slot_flag::Write) && all[i].reg == reg::BLTSIZE)
                start = i;
            if (start && all[i].owner == BusOwner::Blitter) {
                last = i;
                ++writes;
            }
        }
        QVERIFY(start);
        QCOMPARE(writes, 64u * 64u);
        // From the clock after the one in which the BLTSIZE write takes effect: that one
        // passes whoever has the bus (docs/blitter.md, Start).
        std::size_t held = 0, yielded = 0;
        for (std::size_t i = start + 2; i <= last; ++i) {
            const BusOwner o = all[i].owner;
            held += o != BusOwner::Blitter && o != BusOwner::Idle && o != BusOwner::Cpu;
            // A clock the CPU won after three refused in a row is one the blitter yielded.
            if (o == BusOwner::Cpu && i >= 3 && (all[i - 1].flags & all[i - 2].flags & all[i - 3].flags & slot_flag::CpuWaited))
                ++yielded;
        }
        QVERIFY2(yielded >= 8, qPrintable(QString::number(yielded)));
        const std::size_t expect = 3 + 3 * 64 * 64 + 2 + held + yielded;
        QVERIFY2(last - start == expect, qPrintable(QString("%1 clocks, expected %2 (%3 held by fixed DMA, %4 yielded)")
                                                        .arg(last - start).arg(expect).arg(held).arg(yielded)));
    }

    void blitterInterruptFollowsTheLastCycle() {
        // INTREQ BLIT is set 4 colour clocks after the blit's last main cycle (WinUAE
        // INTREQ_INT(6, 3); vAmiga one DMA cycle after its BLTDONE step, which follows the
        // final D write), and the pins show level 3 Paula::kIplDelayCck (3) clocks later:
        // 7 after the last main cycle, the D slot of the last word's group, which is the
        // blitter's last clock before the final D write. The CPU stays at mask 7; only the
        // pins show it.
        auto m = boot(HW_BLITTER_JOBS);
        m->agnus().setRecordSlots(true);
        Job j;
        j.con0 = 0x09F0; // A -> D
        j.apt = 0x10000;
        j.dpt = 0x18000;
        j.size = std::uint16_t(4 << 6 | 8);
        writeJobs(*m, {j}, 0x0400, 0x30, 0x0040); // BLTPRI; INTENA BLIT
        std::vector<SlotRecord> all;
        for (int f = 0; f < 3 && !m->cpu().stopped(); ++f) {
            m->runFrame();
            const auto& rec = m->agnus().committedRecords();
            for (unsigned v = 0; v < m->agnus().committedLines(); ++v)
                all.insert(all.end(), rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck,
                           rec.begin() + std::ptrdiff_t(v) * Agnus::kMaxLineCck + 227);
        }
        QVERIFY(m->cpu().stopped());
        std::size_t lastMain = 0, lastWrite = 0, ipl3 = 0;
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (all[i].owner == BusOwner::Blitter) {
                lastMain = lastWrite;
                lastWrite = i;
            }
            if (!ipl3 && all[i].ipl == 3) ipl3 = i;
        }
        QVERIFY(lastMain && ipl3);
        QVERIFY(all[lastWrite].flags & slot_flag::Write);
        QCOMPARE(ipl3 - lastMain, std::size_t(4 + Paula::kIplDelayCck));
        QVERIFY(m->paula().spy(reg::INTREQR) & 0x0040);
    }

    void ciaTimerOneShotAndContinuous() {
        auto m = boot(HW_CIA_TIMERS);
        const std::uint16_t latch = 300, underflows = 10;
        pokeWord(*m, 0x7F000, latch);
        pokeWord(*m, 0x7F002, underflows);
        for (int f = 0; f < 20 && !m->spyWord(0x7F010); ++f) m->runFrame();
        QCOMPARE(m->spyWord(0x7F010), std::uint16_t(1));
        const unsigned oneShot = m->spyWord(0x7F004);
        const unsigned longer = m->spyWord(0x7F006);
        const unsigned cra = m->spyWord(0x7F008) & 0xFF;
        const unsigned counter = m->spyWord(0x7F00A);
        const unsigned continuous = m->spyWord(0x7F00C);
        const unsigned overhead = m->spyWord(0x7F00E);
        // One-shot: counting starts 3 E cycles after the write that starts it, underflow
        // comes latch+1 counts later, and the flag is readable in that cycle (vAmiga; see
        // docs/chipset.md). The stopwatch read, the start write and the polling loop add
        // their own cost: one stopwatch read (`overhead`), a CIA write (2-3 E cycles with
        // its instruction) and up to one polling loop, 10 at the most. The loop is a
        // move.b from the CIA (E-synchronised: the read ends 10 clocks after an E edge),
        // btst and a taken beq.s: the next read starts 32 clocks after the last one ends,
        // so polls are exactly 5 E cycles apart.
        const int excess = int(oneShot) - int(latch + 1 + 3);
        QVERIFY2(excess >= int(overhead) && excess <= int(overhead) + 10,
                 qPrintable(QString("one-shot took %1 E cycles, overhead %2").arg(oneShot).arg(overhead)));
        // A latch 1000 larger takes 1000 E cycles longer, to within one poll.
        QVERIFY2(std::abs(int(longer) - int(oneShot) - 1000) <= 3,
                 qPrintable(QString("latch +1000 took %1 E cycles more").arg(int(longer) - int(oneShot))));
        QCOMPARE(cra & 1, 0u);  // stopped itself
        QCOMPARE(counter, unsigned(latch));  // and reloaded
        // Continuous: underflows every latch+1 E cycles; between two polled flags the
        // polling error cancels to within one loop (5 E cycles, above). The bound was 4
        // while the flag came an E cycle late; that put both polls on the same side of it.
        const int drift = int(continuous) - int(underflows) * (latch + 1);
        QVERIFY2(std::abs(drift) <= 5, qPrintable(QString("continuous: %1 E cycles for %2 periods").arg(continuous).arg(underflows)));
    }

    void keyboardPowerUpAndKeys() {
        auto m = boot(HW_KEYBOARD);
        auto codes = [&] {
            std::vector<unsigned> out;
            for (unsigned i = 0; i < m->spyWord(0x7F000); ++i) out.push_back(m->spyByte(0x7F002 + i));
            return out;
        };
        // Half a second of self-test, then the power-up stream markers.
        for (int f = 0; f < 20; ++f) m->runFrame();
        QVERIFY(codes().empty());
        for (int f = 0; f < 20; ++f) m->runFrame();
        QCOMPARE(codes(), (std::vector<unsigned>{0xFD, 0xFE}));
        // Keys from the host arrive with their up/down flag, one byte per handshake.
        m->keyboard().press(0x45);   // Esc
        m->keyboard().release(0x45);
        m->keyboard().press(0x20);   // A
        for (int f = 0; f < 5; ++f) m->runFrame();
        QCOMPARE(codes(), (std::vector<unsigned>{0xFD, 0xFE, 0x45, 0xC5, 0x20}));
        QVERIFY(m->keyboard().idle());
    }

    void keyboardResendsWithoutHandshake() {
        // No program acknowledges: the keyboard sends the same byte again after 143 ms.
        Cia cia;
        Keyboard kb;
        kb.reset(0);
        std::uint64_t cck = Keyboard::kPowerUpDelayCck;
        kb.update(cck, cia);
        cia.advanceTo(cck * 2 + 100);
        QCOMPARE(cia.peek(0xC), Keyboard::encode(0xFD));
        QVERIFY(cia.peek(Cia::ICR) & Cia::IcrSP);
        kb.update(cck + Keyboard::kHandshakeTimeoutCck - 1, cia);
        cia.advanceTo((cck + Keyboard::kHandshakeTimeoutCck) * 2);
        QCOMPARE(cia.peek(Cia::ICR) & Cia::IcrSP, 0);
        kb.update(cck + Keyboard::kHandshakeTimeoutCck, cia);
        kb.update(cck + Keyboard::kHandshakeTimeoutCck + 1, cia);
        cia.advanceTo((cck + Keyboard::kHandshakeTimeoutCck) * 2 + 100);
        QVERIFY(cia.peek(Cia::ICR) & Cia::IcrSP);
        QCOMPARE(cia.peek(0xC), Keyboard::encode(0xFD));
    }

private:
    const SlotCase* cases_ = nullptr;
};

QTEST_GUILESS_MAIN(TestHardware)
#include "test_hardware.moc"
