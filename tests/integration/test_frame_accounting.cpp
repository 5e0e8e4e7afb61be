// SPDX-License-Identifier: GPL-3.0-or-later
// The per-frame accounting of waits and blits (emu/chipset/frame_stats.h) against a guest
// program with a known load (tests/guest/hw/frame_load.S): every frame one cookie-cut blit
// of 20 x 64 words started at blit_pc while the MOVEM.L at poll_pc reads chip RAM, then a
// 40 x 100 clear that runs across the frame's end. Only refresh and the blitter take
// clocks, so every denied CPU clock is theirs.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/blit_render.h"
#include "profiler/capture/frame_capture.h"
#endif

#include <QtTest>
#include <algorithm>
#include <memory>

using namespace copperline;

namespace {

constexpr std::uint32_t kSrcA = 0x20000, kSrcB = 0x24000, kSrcC = 0x28000, kDst = 0x2C000;
constexpr unsigned kWords = 20 * 64;

std::uint16_t patternA(unsigned i) {
    return std::uint16_t(0xF0F0 ^ (i * 0x1111));
}
std::uint16_t patternB(unsigned i) {
    return std::uint16_t(0x3C3C + i * 7);
}
std::uint16_t patternC(unsigned i) {
    return std::uint16_t(~(i * 0x0101));
}

void pokeWord(Machine& m, std::uint32_t a, std::uint16_t v) {
    m.pokeByte(a, std::uint8_t(v >> 8));
    m.pokeByte(a + 1, std::uint8_t(v));
}

std::unique_ptr<Machine> boot() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(HW_FRAME_LOAD));
    // The sources of the cookie cut; the program never writes them.
    for (unsigned i = 0; i < kWords; ++i) {
        pokeWord(*m, kSrcA + 2 * i, patternA(i));
        pokeWord(*m, kSrcB + 2 * i, patternB(i));
        pokeWord(*m, kSrcC + 2 * i, patternC(i));
    }
    return m;
}

std::uint32_t spyLong(const Machine& m, std::uint32_t a) {
    return std::uint32_t(m.spyWord(a)) << 16 | m.spyWord(a + 2);
}
std::uint32_t blitPc(const Machine& m) {
    return spyLong(m, 0x1004);
}
std::uint32_t pollPc(const Machine& m) {
    return spyLong(m, 0x1008);
}

} // namespace

class TestFrameAccounting : public QObject {
    Q_OBJECT
private slots:
    void waitsAreChargedToTheirDenierKindAndInstruction() {
        auto m = boot();
        for (int i = 0; i < 6; ++i)
            m->runFrame();
        const FrameStats& f = m->lastFrameStats();
        QVERIFY(!f.partial);
        QCOMPARE(m->agnus().committedLines(), f.lines);

        std::uint64_t byOwner = 0, byKind = 0, byPc = 0, cells = 0;
        for (auto n : f.cpuWaitByOwner)
            byOwner += n;
        for (auto n : f.cpuWaitByKind)
            byKind += n;
        for (const StallPc& s : f.stallPcs)
            byPc += s.waitCck;
        // Every denied clock is in the grid where the owner that held it was recorded.
        std::array<std::uint32_t, kBusOwnerCount> gridOwners{};
        const auto& owners = m->agnus().committedOwners();
        for (std::size_t i = 0; i < f.cpuWaitGrid.size(); ++i)
            if (f.cpuWaitGrid[i]) {
                ++cells;
                ++gridOwners[owners[i]];
            }
        QVERIFY(byOwner > 1000);
        QCOMPARE(2 * byOwner, f.cpuWaitCycles);
        QCOMPARE(byKind, byOwner);
        QCOMPARE(byPc, byOwner);
        QCOMPARE(cells, byOwner);
        QCOMPARE(gridOwners, f.cpuWaitByOwner);

        // Only refresh and the blitter ever hold a clock the CPU wants; the blitter most.
        for (unsigned o = 0; o < kBusOwnerCount; ++o)
            if (BusOwner(o) != BusOwner::Blitter && BusOwner(o) != BusOwner::Refresh)
                QCOMPARE(f.cpuWaitByOwner[o], 0u);
        const auto blitter = f.cpuWaitByOwner[unsigned(BusOwner::Blitter)],
                   refresh = f.cpuWaitByOwner[unsigned(BusOwner::Refresh)];
        // (Refresh denies the polling of VHPOSR a few times a line all frame long.)
        QVERIFY(refresh > 0);
        QVERIFY2(blitter > 5 * refresh,
                 qPrintable(QStringLiteral("blitter %1 refresh %2").arg(blitter).arg(refresh)));
        // MOVEM.L reads data; every instruction fetches its next words.
        QVERIFY(f.cpuWaitByKind[unsigned(CpuAccessKind::Read)] >
                f.cpuWaitByKind[unsigned(CpuAccessKind::Fetch)]);
        QVERIFY(f.cpuWaitByKind[unsigned(CpuAccessKind::Fetch)] > 0);

        // Most wait first, and the polling MOVEM.L waits most.
        for (std::size_t i = 1; i < f.stallPcs.size(); ++i)
            QVERIFY(f.stallPcs[i - 1].waitCck >= f.stallPcs[i].waitCck);
        QCOMPARE(f.stallPcs.at(0).pc, pollPc(*m));
        // 32 MOVEMs of 20 reads each, nearly all of them refused at first.
        QVERIFY(f.stallPcs[0].waits >= 32 * 20 / 2);
    }

    void blitsOfTheFrame() {
        auto m = boot();
        for (int i = 0; i < 6; ++i)
            m->runFrame();
        const FrameStats f = m->lastFrameStats();
        // The clear that began in the frame before, the cookie cut, the clear that begins.
        QCOMPARE(f.blits.size(), std::size_t(3));
        const BlitRecord& before = f.blits[0];
        const BlitRecord& cookie = f.blits[1];
        const BlitRecord& clear = f.blits[2];
        QCOMPARE(cookie.id, before.id + 1);
        QCOMPARE(clear.id, cookie.id + 1);

        QCOMPARE(cookie.startPc, blitPc(*m));
        QVERIFY(!cookie.byCopper);
        QVERIFY(cookie.finished);
        QCOMPARE(cookie.startFrame, f.frame);
        QCOMPARE(cookie.endFrame, f.frame);
        QVERIFY(cookie.startVpos == 100 || cookie.startVpos == 101);
        QVERIFY(cookie.endCck > cookie.startCck);
        QCOMPARE(cookie.bltcon0, std::uint16_t(0x0FCA));
        QCOMPARE(mintermFormula(std::uint8_t(cookie.bltcon0)), std::string("AB+!AC"));
        QCOMPARE(cookie.width, std::uint16_t(20));
        QCOMPARE(cookie.height, std::uint16_t(64));
        QCOMPARE(cookie.apt, kSrcA);
        QCOMPARE(cookie.bpt, kSrcB);
        QCOMPARE(cookie.cpt, kSrcC);
        QCOMPARE(cookie.dpt, kDst);
        QCOMPARE(cookie.afwm, std::uint16_t(0xFFFF));
        const std::array<std::uint32_t, 4> all{kWords, kWords, kWords, kWords};
        QCOMPARE(cookie.words, all);
        // A, B, C and D each take one clock per word; refresh and the CPU's turns stall it.
        QCOMPARE(cookie.clocksUsed, 4 * kWords);
        QVERIFY(cookie.clocksStalled > 0);
        // Besides those, three set-up clocks (the one in which the BLTSIZE write takes
        // effect, which never stalls, then two), the first word's D slot (nothing to write
        // yet) and the idle clock before the last word's write (blitter.h).
        QCOMPARE(std::uint64_t(cookie.endCck - cookie.startCck + 1),
                 std::uint64_t(cookie.clocksUsed + cookie.clocksStalled + 5));

        // The clear is in flight at the frame's end, and the next frame finalizes it.
        QVERIFY(!clear.finished);
        QCOMPARE(clear.bltcon0, std::uint16_t(0x0100));
        QVERIFY(clear.startVpos >= 280 && clear.startVpos < 290);
        QVERIFY(clear.words[3] > 0 && clear.words[3] < 4000);
        QVERIFY(before.finished);
        QCOMPARE(before.startFrame, f.frame - 1);
        QCOMPARE(before.endFrame, f.frame);
        QCOMPARE(before.words[3], 4000u);

        m->runFrame();
        const FrameStats& g = m->lastFrameStats();
        QCOMPARE(g.frame, f.frame + 1);
        QCOMPARE(g.blits.size(), std::size_t(3));
        const BlitRecord& ended = g.blits[0];
        QCOMPARE(ended.id, clear.id);
        QVERIFY(ended.finished);
        QCOMPARE(ended.startFrame, f.frame);
        QCOMPARE(ended.startCck, clear.startCck);
        QCOMPARE(ended.endFrame, g.frame);
        const std::array<std::uint32_t, 4> dOnly{0, 0, 0, 4000};
        QCOMPARE(ended.words, dOnly);
        QCOMPARE(ended.clocksUsed, 4000u);
        QCOMPARE(g.blits[1].id, clear.id + 1);
    }

    void traceKeepsTheWordsOfRecentBlits() {
        auto m = boot();
        m->blitTrace().setEnabled(true);
        for (int i = 0; i < 8; ++i)
            m->runFrame();
        const BlitRecord cookie = m->lastFrameStats().blits.at(1);
        const BlitWords* w = m->blitTrace().find(cookie.id);
        QVERIFY(w);
        QVERIFY(!w->truncated);
        for (unsigned s = 0; s < 4; ++s)
            QCOMPARE(w->words[s].size(), std::size_t(kWords));
        QCOMPARE(w->words[unsigned(BlitStream::Result)].size(), std::size_t(kWords));
        for (unsigned i = 0; i < kWords; ++i) {
            const std::uint16_t a = patternA(i), b = patternB(i), c = patternC(i);
            const auto want = std::uint16_t((a & b) | (~a & c));
            QCOMPARE(w->words[0][i], a);
            QCOMPARE(w->words[1][i], b);
            QCOMPARE(w->words[2][i], c);
            QCOMPARE(w->words[3][i], want);
            QCOMPARE(w->words[4][i], want);
            QCOMPARE(m->spyWord(kDst + 2 * i), want);
        }
        // Only the blits of the last committed frames stay: three a frame, two frames and
        // the clear in flight.
        QVERIFY(m->blitTrace().blitsKept() <= 7);
        QVERIFY(!m->blitTrace().find(1));

        // The picture: 16 pixels a word, a row per blit row, set bits in the stream colour.
        const Image img = renderBlitStream(*w, BlitStream::A);
        QCOMPARE(img.width, 320u);
        QCOMPARE(img.height, 64u);
        for (unsigned y : {0u, 31u, 63u})
            for (unsigned x : {0u, 5u, 17u, 319u}) {
                const std::uint16_t word = patternA(y * 20 + x / 16);
                const bool set = (word >> (15 - x % 16)) & 1;
                QCOMPARE(img.at(x, y) == blitStreamColour(BlitStream::A), set);
            }
    }

    void watchingChangesNothing() {
        auto plain = boot(), watched = boot();
        watched->blitTrace().setEnabled(true);
        watched->agnus().setRecordSlots(true);
        for (int i = 0; i < 12; ++i) {
            plain->runFrame();
            watched->runFrame();
            QCOMPARE(plain->stateHash(), watched->stateHash());
        }
    }

    void blitIdsComeWithTheState() {
        auto a = boot();
        for (int i = 0; i < 5; ++i)
            a->runFrame();
        const auto saved = a->saveState();
        auto b = std::make_unique<Machine>();
        b->bootBareMetal(readFileBytes(HW_FRAME_LOAD));
        b->loadState(saved);
        QCOMPARE(b->blitter().blitCount(), a->blitter().blitCount());
        for (int i = 0; i < 3; ++i) {
            a->runFrame();
            b->runFrame();
        }
        const auto& fa = a->lastFrameStats().blits;
        const auto& fb = b->lastFrameStats().blits;
        QCOMPARE(fb.size(), fa.size());
        for (std::size_t i = 0; i < fa.size(); ++i) {
            QCOMPARE(fb[i].id, fa[i].id);
            QCOMPARE(fb[i].words, fa[i].words);
        }
        // Power-on counts from zero again.
        a->bootBareMetal(readFileBytes(HW_FRAME_LOAD));
        QCOMPARE(a->blitter().blitCount(), 0u);
    }

    void anInstructionAtTheTopOfTheAddressSpaceHasItsOwnWaits() {
        // The 68000's PC holds 32 bits: a program that jumps to $FFFFFFFF takes an address
        // error there, and the exception's stack writes, refused while the blitter runs, are
        // that instruction's waits. They were once counted as the frame's first instruction's
        // (the stall cache marked its empty entries with $FFFFFFFF), or past the end of a
        // list still empty, which crashed.
        auto m = boot();
        for (int i = 0; i < 3; ++i)
            m->runFrame();
        int guard = 0;
        while (!m->blitter().busy() && ++guard < 1000000)
            m->stepInstruction();
        QVERIFY(m->blitter().busy());
        auto r = m->cpu().registers();
        r.pc = 3; // the core's pc is the prefetch address, two words past the instruction
        r.sr = 0x2700;
        m->cpu().setRegisters(r);
        QCOMPARE(m->cpu().instructionAddress(), 0xFFFFFFFFu);
        m->stepInstruction(); // the address error, its frame pushed under the blit
        const FrameStats& f = m->frameStatsInProgress();
        const auto top = std::find_if(f.stallPcs.begin(), f.stallPcs.end(),
                                      [](const StallPc& s) { return s.pc == 0xFFFFFFFFu; });
        QVERIFY(top != f.stallPcs.end());
        QVERIFY(top->waits > 0 && top->waitCck > 0);
        std::uint64_t byPc = 0, byOwner = 0;
        for (const StallPc& s : f.stallPcs)
            byPc += s.waitCck;
        for (auto n : f.cpuWaitByOwner)
            byOwner += n;
        QCOMPARE(byPc, byOwner);
    }
};

QTEST_GUILESS_MAIN(TestFrameAccounting)
#include "test_frame_accounting.moc"
