// SPDX-License-Identifier: GPL-3.0-or-later
// Paula: interrupt levels and the IPL delay, the CIAs' level-triggered lines, the serial
// port's timing and the audio DMA request schedule.

#include "emu/chipset/custom_regs.h"
#include "emu/chipset/paula.h"
#include "emu/state/archive.h"

#include <QtTest>

using namespace copperline;

class TestPaula : public QObject {
    Q_OBJECT
private slots:
    void levelsFollowTheHrmTable() {
        // HRM node016F: the level of each INTREQ bit.
        const std::pair<std::uint16_t, unsigned> table[] = {
            {intreq::TBE, 1},  {intreq::DSKBLK, 1}, {intreq::SOFT, 1},   {intreq::PORTS, 2},
            {intreq::COPER, 3}, {intreq::VERTB, 3}, {intreq::BLIT, 3},   {intreq::AUD0, 4},
            {1u << 10, 4},     {intreq::RBF, 5},    {intreq::DSKSYN, 5}, {intreq::EXTER, 6},
        };
        for (auto [bit, level] : table) {
            Paula p;
            p.poke(reg::INTENA, std::uint16_t(0x8000 | intreq::INTEN | bit), 0);
            p.raise(bit, 10);
            QCOMPARE(p.ipl(), level);
        }
    }

    void masterEnableAndMasking() {
        Paula p;
        p.raise(intreq::VERTB, 0);
        QCOMPARE(p.ipl(), 0u);  // not enabled
        p.poke(reg::INTENA, 0x8000 | intreq::VERTB, 1);
        QCOMPARE(p.ipl(), 0u);  // no master enable
        p.poke(reg::INTENA, 0x8000 | intreq::INTEN, 2);
        QCOMPARE(p.ipl(), 3u);
        p.raise(intreq::EXTER, 3);
        QCOMPARE(p.ipl(), 3u);  // EXTER not enabled
        p.poke(reg::INTENA, 0x8000 | intreq::EXTER, 4);
        QCOMPARE(p.ipl(), 6u);  // the highest pending level wins
        p.poke(reg::INTREQ, intreq::EXTER, 5);
        QCOMPARE(p.ipl(), 3u);
        QCOMPARE(p.spy(reg::INTREQR) & intreq::VERTB, intreq::VERTB);
        p.poke(reg::INTREQ, intreq::VERTB, 6);
        QCOMPARE(p.ipl(), 0u);
    }

    void iplReachesTheCpuAfterTheDelay() {
        Paula p;
        p.poke(reg::INTENA, 0x8000 | intreq::INTEN | intreq::COPER, 0);
        p.raise(intreq::COPER, 1000);
        for (std::uint64_t t = 1000; t < 1000 + Paula::kIplDelayCck; ++t) QCOMPARE(p.iplAt(t), 0u);
        QCOMPARE(p.iplAt(1000 + Paula::kIplDelayCck), 3u);
        QCOMPARE(p.iplChangedAt(), std::uint64_t(1000 + Paula::kIplDelayCck));
    }

    void ciaLinesAreLevels() {
        Paula p;
        p.poke(reg::INTENA, 0x8000 | intreq::INTEN | intreq::PORTS, 0);
        p.setCiaLines(true, false, 10);
        QCOMPARE(p.ipl(), 2u);
        // Clearing PORTS while CIA-A still pulls its line low does not clear it.
        p.poke(reg::INTREQ, intreq::PORTS, 20);
        QCOMPARE(p.ipl(), 2u);
        p.setCiaLines(false, false, 30);
        p.poke(reg::INTREQ, intreq::PORTS, 40);
        QCOMPARE(p.ipl(), 0u);
    }

    void serialTiming() {
        // 8N1 at SERPER 372 (9600 baud PAL): a start bit, eight data bits and the stop bit
        // software puts in bit 8, each 373 colour clocks.
        Paula p;
        std::string out;
        p.setSerialSink([&](std::uint8_t b) { out.push_back(char(b)); });
        p.poke(reg::SERPER, 372, 0);
        p.poke(reg::SERDAT, 0x100 | 'A', 100);
        QVERIFY(p.spy(reg::INTREQR) & intreq::TBE);  // the holding register emptied at once
        p.poke(reg::SERDAT, 0x100 | 'B', 101);        // queued behind 'A'
        QCOMPARE(p.peek(reg::SERDATR, 102) & (1u << 13), 0);  // holding register full
        const std::uint64_t charTime = 10 * 373;
        p.advanceTo(100 + charTime - 1);
        QCOMPARE(out, std::string());
        p.advanceTo(100 + charTime);
        QCOMPARE(out, std::string("A"));
        p.advanceTo(100 + 2 * charTime);
        QCOMPARE(out, std::string("AB"));
        QVERIFY(p.peek(reg::SERDATR, 100 + 2 * charTime) & (1u << 12));  // shifter empty
    }

    void audioRequestsKeepTheirPeriod() {
        Paula p;
        p.poke(reg::AUD0LCH, 0, 0);
        p.poke(reg::AUD0LCL, 0x4000, 0);
        p.poke(reg::AUD0LEN, 4, 0);
        p.poke(reg::AUD0PER, 200, 0);
        p.setAudioDmaEnabled(0, true, 0);
        QVERIFY(p.spy(reg::INTREQR) & intreq::AUD0);  // start of the buffer
        p.poke(reg::INTREQ, intreq::AUD0, 0);
        // Words are due every 2 x 200 clocks; a late slot does not shift the schedule.
        for (int w = 0; w < 8; ++w) {
            const std::uint64_t due = std::uint64_t(w) * 400;
            if (w) QVERIFY(!p.audioWantsDma(0, due - 1));
            const std::uint64_t t = due + (w % 3) * 50;  // the slot comes 0-100 clocks late
            QVERIFY(p.audioWantsDma(0, t));
            QCOMPARE(p.audioPointer(0), std::uint32_t(0x4000 + 2 * (w % 4)));
            p.audioDmaWord(0, 0x1234, t);
            // The fourth word ends the buffer: the pointer restarts and AUD0 is requested.
            if (w % 4 == 3) {
                QVERIFY(p.spy(reg::INTREQR) & intreq::AUD0);
                p.poke(reg::INTREQ, intreq::AUD0, t);
            }
        }
    }

    void saveAndLoad() {
        Paula a;
        a.poke(reg::INTENA, 0x8000 | intreq::INTEN | intreq::BLIT, 0);
        a.poke(reg::SERPER, 30, 0);
        a.poke(reg::SERDAT, 0x155, 5);
        a.raise(intreq::BLIT, 7);
        auto s = Archive::saver();
        a.serialize(s);
        Paula b;
        auto l = Archive::loader(s.bytes());
        b.serialize(l);
        QCOMPARE(l.remaining(), std::size_t(0));
        QCOMPARE(b.ipl(), a.ipl());
        QCOMPARE(b.spy(reg::SERDATR), a.spy(reg::SERDATR));
        QCOMPARE(b.iplChangedAt(), a.iplChangedAt());
    }
};

QTEST_GUILESS_MAIN(TestPaula)
#include "test_paula.moc"
