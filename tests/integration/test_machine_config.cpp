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
