// SPDX-License-Identifier: GPL-3.0-or-later
// The Copper on its own: COP2LC jumps, the danger bit, the blitter-finished-disable bit,
// the end of a list, the restart at each frame, and the frame trace a debugger reads
// (which is no part of the state).

#include "emu/chipset/copper.h"
#include "emu/chipset/custom_regs.h"
#include "emu/state/archive.h"

#include <QtTest>

using namespace copperline;

namespace {

struct Rig {
    ChipRam ram;
    Copper copper;
    std::vector<std::pair<std::uint16_t, std::uint16_t>> writes;
    void list(std::uint32_t at, std::initializer_list<std::uint16_t> words) {
        for (auto w : words) {
            ram.writeWord(at, w);
            at += 2;
        }
    }
    // Runs even clocks from (v, h) for n clocks with the bus always free.
    void run(std::uint16_t v, std::uint16_t h, unsigned n, bool blitterBusy = false) {
        for (unsigned i = 0; i < n; ++i, h = std::uint16_t(h + 2)) {
            const auto s = copper.clock(v, h, true, blitterBusy, ram);
            if (s.move) writes.push_back({s.reg, s.value});
        }
    }
};

} // namespace

class TestCopper : public QObject {
    Q_OBJECT
private slots:
    void jumpsToCop2lc() {
        Rig r;
        r.list(0x1000, {reg::COLOR00, 0x0123, reg::COPJMP2, 0, reg::COLOR00, 0x0BAD});
        r.list(0x2000, {reg::COLOR00 + 2, 0x0456, 0xFFFF, 0xFFFE});
        r.copper.poke(reg::COP1LCH, 0);
        r.copper.poke(reg::COP1LCL, 0x1000);
        r.copper.poke(reg::COP2LCH, 0);
        r.copper.poke(reg::COP2LCL, 0x2000);
        r.copper.startOfFrame(true);
        r.writes.clear();
        // The Copper itself handles COPJMP2; the machine sees the MOVEs.
        for (unsigned i = 0; i < 40; ++i) {
            const auto s = r.copper.clock(0x30, std::uint16_t(2 * i), true, false, r.ram);
            if (s.move) {
                if (s.reg == reg::COPJMP2) r.copper.poke(s.reg, s.value);
                else r.writes.push_back({s.reg, s.value});
            }
        }
        QCOMPARE(r.writes.size(), std::size_t(2));
        QCOMPARE(r.writes[0].second, std::uint16_t(0x0123));
        QCOMPARE(r.writes[1], (std::pair<std::uint16_t, std::uint16_t>{reg::COLOR00 + 2, 0x0456}));
        QCOMPARE(r.copper.state(), Copper::State::Wait);  // at the end of the list
    }

    void dangerBitOpensTheBlitterRegisters() {
        for (const bool cdang : {false, true}) {
            Rig r;
            r.list(0, {reg::BLTCON0, 0x09F0, reg::COLOR00, 0x0FFF});
            r.copper.poke(reg::COPCON, cdang ? 2 : 0);
            r.copper.startOfFrame(true);
            r.run(0x30, 0, 10);
            if (cdang) {
                QCOMPARE(r.writes.size(), std::size_t(2));
                QCOMPARE(r.writes[0].first, std::uint16_t(reg::BLTCON0));
            } else {
                QVERIFY(r.writes.empty());
                QCOMPARE(r.copper.state(), Copper::State::Halted);
            }
        }
        // Below $40 nothing is ever writable.
        Rig r;
        r.list(0, {reg::COPCON, 0x0000});
        r.copper.poke(reg::COPCON, 2);
        r.copper.startOfFrame(true);
        r.run(0x30, 0, 4);
        QCOMPARE(r.copper.state(), Copper::State::Halted);
        // The next frame restarts it.
        r.copper.startOfFrame(true);
        QCOMPARE(r.copper.state(), Copper::State::Fetch1);
    }

    void blitterFinishedDisable() {
        // WAIT with BFD clear also waits for the blitter; with BFD set it does not.
        for (const bool bfd : {false, true}) {
            Rig r;
            r.list(0, {0x3001, std::uint16_t(bfd ? 0xFFFE : 0x7FFE), reg::COLOR00, 0x0F00});
            r.copper.startOfFrame(true);
            r.run(0x40, 0, 20, /*blitterBusy=*/true);
            QCOMPARE(r.writes.size(), std::size_t(bfd ? 1 : 0));
            if (!bfd) {
                r.run(0x40, 40, 6, false);
                QCOMPARE(r.writes.size(), std::size_t(1));
            }
        }
    }

    void maskedCompareAndVerticalBit7() {
        // VE masks out V6-V0 but VP7 is always compared: WAIT $80 with VE=0 waits for
        // line $80 and on.
        Rig r;
        r.list(0, {0x8001, 0x80FE, reg::COLOR00, 0x0ABC});
        r.copper.startOfFrame(true);
        r.run(0x7F, 0, 50);
        QVERIFY(r.writes.empty());
        r.run(0x80, 0, 10);
        QCOMPARE(r.writes.size(), std::size_t(1));
    }

    void saveAndLoadMidList() {
        Rig r;
        r.list(0, {reg::COLOR00, 1, reg::COLOR00, 2, reg::COLOR00, 3, 0xFFFF, 0xFFFE});
        r.copper.startOfFrame(true);
        r.run(0x30, 0, 3);
        auto s = Archive::saver();
        r.copper.serialize(s);
        Rig q;
        q.ram = r.ram;
        auto l = Archive::loader(s.bytes());
        q.copper.serialize(l);
        r.run(0x30, 6, 10);
        q.run(0x30, 6, 10);
        using Writes = std::vector<std::pair<std::uint16_t, std::uint16_t>>;
        const Writes after(r.writes.begin() + 1, r.writes.end());
        QCOMPARE(q.writes, after);
    }

    void frameTraceFollowsTheListsAndIsNoState() {
        Rig r;
        // List 1: a MOVE, a SKIP whose position has passed, the MOVE it passes over, a jump.
        r.list(0x1000, {reg::COLOR00, 1, 0x3001, 0xFFFF, reg::COLOR00 + 2, 2, reg::COPJMP2, 0});
        r.list(0x2000, {reg::COLOR00 + 4, 3, 0xFFFF, 0xFFFE});
        r.copper.poke(reg::COP1LCL, 0x1000);
        r.copper.poke(reg::COP2LCL, 0x2000);
        r.copper.startOfFrame(true);
        for (unsigned i = 0; i < 60; ++i) {
            const auto s = r.copper.clock(0x40, std::uint16_t(2 * i), true, false, r.ram);
            if (s.move && s.reg == reg::COPJMP2) r.copper.poke(s.reg, s.value);
        }
        const Copper::FrameTrace& t = r.copper.frameTrace();
        QVERIFY(t.known);
        QVERIFY(!t.overflow);
        QCOMPARE(t.runCount, 2u);
        QCOMPARE(t.runs[0].start, 0x1000u);
        QCOMPARE(t.runs[0].end, 0x1010u); // through the jump
        QCOMPARE(t.runs[1].start, 0x2000u);
        QCOMPARE(t.runs[1].end, 0x2008u); // through the end, where it waits
        QCOMPARE(t.skippedCount, 1u);
        QCOMPARE(t.skipped[0], 0x1008u);
        QCOMPARE(t.fetched, 6u);

        // Not state: a loaded Copper has the same hash and does the same, but does not know
        // what ran before the load until its next frame.
        auto saved = Archive::saver();
        r.copper.serialize(saved);
        Rig q;
        q.ram = r.ram;
        auto l = Archive::loader(saved.bytes());
        q.copper.serialize(l);
        auto h1 = Archive::hasher(), h2 = Archive::hasher();
        r.copper.serialize(h1);
        q.copper.serialize(h2);
        QCOMPARE(h1.hash(), h2.hash());
        QVERIFY(!q.copper.frameTrace().known);
        QVERIFY(r.copper.frameTrace().known);
        q.copper.startOfFrame(true);
        QVERIFY(q.copper.frameTrace().known);
        QCOMPARE(q.copper.frameTrace().runCount, 1u);
        QCOMPARE(q.copper.frameTrace().fetched, 0u);
    }

    void theRegistersItMayWrite() {
        Copper c;
        QVERIFY(!c.mayWrite(reg::COPCON));
        QVERIFY(!c.mayWrite(reg::BLTSIZE));
        QVERIFY(c.mayWrite(reg::COP1LCH));
        QVERIFY(c.mayWrite(reg::COLOR00));
        c.poke(reg::COPCON, 2); // CDANG
        QVERIFY(c.mayWrite(reg::BLTSIZE));
        QVERIFY(!c.mayWrite(reg::COPCON));
        QVERIFY(!c.mayWrite(reg::DMACONR));
    }
};

QTEST_GUILESS_MAIN(TestCopper)
#include "test_copper.moc"
