// SPDX-License-Identifier: GPL-3.0-or-later
// PAL and NTSC beams: lines per frame, colour clocks per line, the long/short line
// alternation and the Agnus identification.

#ifndef Q_MOC_RUN
#include "emu/chipset/custom_regs.h"
#include "emu/machine.h"
#endif

#include <QtTest>

using namespace copperline;

namespace {
// A program that only stops: the beam runs on its own.
const std::vector<std::uint8_t> kStop = {0x4E, 0x72, 0x27, 0x00, 0x60, 0xFA};  // stop #$2700; bra.s *-4
}

class TestMachineConfig : public QObject {
    Q_OBJECT
private slots:
    void palFrames() {
        Machine m;
        m.bootBareMetal(kStop);
        m.runFrame();
        const std::uint64_t start = m.agnus().cck();
        m.runFrame();
        QCOMPARE(m.agnus().committedLines(), 313u);  // long frames only, without LACE
        QCOMPARE(m.agnus().cck() - start, std::uint64_t(313 * 227));
        QCOMPARE(m.agnus().spyCustom(reg::VPOSR) & 0x7F00, 0);  // 8371 PAL
        QCOMPARE(m.agnus().lineLength(), 227u);
    }

    void lastWrittenValuesForDebuggers() {
        // move.w #$4200,$dff100 (BPLCON0); move.w #$0F0F,$dff180 (COLOR00); stop
        const std::vector<std::uint8_t> program = {0x33, 0xFC, 0x42, 0x00, 0x00, 0xDF, 0xF1, 0x00,
                                                   0x33, 0xFC, 0x0F, 0x0F, 0x00, 0xDF, 0xF1, 0x80,
                                                   0x4E, 0x72, 0x27, 0x00};
        Machine m;
        m.bootBareMetal(program);
        m.runFrame();
        QCOMPARE(m.agnus().lastWritten(reg::BPLCON0).value_or(0), std::uint16_t(0x4200));
        QCOMPARE(m.agnus().lastWritten(reg::COLOR00).value_or(0), std::uint16_t(0x0F0F));
        QVERIFY(!m.agnus().lastWritten(reg::DIWSTRT).has_value());
    }

    void ddfBeyondItsLimitFetchesNothing() {
        // DDFSTRT past $D8 (the last position the comparator can start at): no bitplane
        // fetches, and the refresh slots stay where they are.
        Machine m;
        m.bootBareMetal(kStop);
        Agnus& a = m.agnus();
        a.writeCustom(reg::DIWSTRT, 0x2C81);
        a.writeCustom(reg::DIWSTOP, 0x2CC1);
        a.writeCustom(reg::BPLCON0, 0x4200);
        a.writeCustom(reg::DDFSTOP, 0xD0);
        a.writeCustom(reg::DMACON, 0x8300);
        for (std::uint16_t ddf : {0xDCu, 0xE0u, 0xFCu}) {
            a.writeCustom(reg::DDFSTRT, ddf);
            m.runFrame();
            m.runFrame();
            const auto& o = a.committedOwners();
            for (unsigned h = 0; h < 227; ++h) {
                const auto owner = BusOwner(o[0x50 * Agnus::kMaxLineCck + h]);
                QVERIFY(owner != BusOwner::Bitplane);
                const bool refresh = h == 1 || h == 3 || h == 5 || h == 0xE2;
                QCOMPARE(owner == BusOwner::Refresh, refresh);
            }
        }
    }

    void coldStartRestartsTheCias() {
        // A machine that has run, started again from cold: the CIAs' clocks start again
        // too, so their timers run at once.
        Machine m;
        m.bootBareMetal(kStop);
        for (int f = 0; f < 50; ++f) m.runFrame();
        m.bootBareMetal(kStop);
        Cia& cia = m.ciaA();
        cia.poke(Cia::TALO, 100);
        cia.poke(Cia::TAHI, 0);
        cia.poke(Cia::CRA, Cia::CrSTART | Cia::CrLOAD);
        m.runFrame();
        QVERIFY(cia.spy(Cia::ICR) & Cia::IcrTA);
    }

    void ntscFramesAndLongLines() {
        Machine::Config config;
        config.ntsc = true;
        Machine m(config);
        m.bootBareMetal(kStop);
        m.runFrame();
        m.runFrame();
        const std::uint64_t start = m.agnus().cck();
        m.runFrame();
        QCOMPARE(m.agnus().committedLines(), 263u);
        // Lines alternate 227 and 228 colour clocks (HRM; ocs-timing-facts section 1).
        const std::uint64_t length = m.agnus().cck() - start;
        QVERIFY2(length == 263 * 227 + 131 || length == 263 * 227 + 132, qPrintable(QString::number(length)));
        QCOMPARE(m.agnus().spyCustom(reg::VPOSR) & 0x7F00, 0x1000);
        // The fourth refresh slot marks the long lines: $E3 on them, $E2 on the others.
        const auto& owners = m.agnus().committedOwners();
        unsigned longLines = 0;
        for (unsigned v = 0; v < 263; ++v) {
            const bool atE2 = owners[v * Agnus::kMaxLineCck + 0xE2] == std::uint8_t(BusOwner::Refresh);
            const bool atE3 = owners[v * Agnus::kMaxLineCck + 0xE3] == std::uint8_t(BusOwner::Refresh);
            QVERIFY(atE2 != atE3);
            longLines += atE3;
            if (v) {
                const bool prevLong = owners[(v - 1) * Agnus::kMaxLineCck + 0xE3] == std::uint8_t(BusOwner::Refresh);
                QVERIFY(prevLong != atE3);
            }
        }
        QCOMPARE(std::uint64_t(longLines), length - 263 * 227);
        // Denise draws the longest line whole.
        QCOMPARE(m.lastField().width, 228u * 4);
        QCOMPARE(m.lastField().lines, 263u);
    }
};

QTEST_GUILESS_MAIN(TestMachineConfig)
#include "test_machine_config.moc"
