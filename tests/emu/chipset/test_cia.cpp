// SPDX-License-Identifier: GPL-3.0-or-later
// The 8520 timers, interrupts, TOD and ports, timed in E cycles.

#include "emu/chipset/cia.h"
#include "emu/state/archive.h"

#include <QtTest>

using namespace copperline;

namespace {

// Drives a CIA one E cycle at a time; e(n) is the time at the end of E cycle n.
struct Rig {
    Cia cia;
    std::uint64_t ecycle = 0;
    void run(std::uint64_t n) {
        ecycle += n;
        cia.advanceTo(ecycle * kCyclesPerEClock);
    }
    // E cycles until ICR shows any of `flags` (polling with spy, which clears nothing).
    std::uint64_t untilFlag(std::uint8_t flags, std::uint64_t limit = 1'000'000) {
        for (std::uint64_t n = 1; n <= limit; ++n) {
            run(1);
            if (cia.spy(Cia::ICR) & flags) return n;
        }
        return 0;
    }
};

void startTimerA(Cia& c, std::uint16_t latch, std::uint8_t extra = 0) {
    c.poke(Cia::TALO, std::uint8_t(latch));
    c.poke(Cia::TAHI, std::uint8_t(latch >> 8));
    c.poke(Cia::CRA, std::uint8_t(Cia::CrSTART | Cia::CrLOAD | extra));
}

} // namespace

class TestCia : public QObject {
    Q_OBJECT
private slots:
    void resetState() {
        Cia c;
        QCOMPARE(c.spy(Cia::TALO), std::uint8_t(0xFF));
        QCOMPARE(c.spy(Cia::TAHI), std::uint8_t(0xFF));
        QCOMPARE(c.spy(Cia::DDRA), std::uint8_t(0));
        // All pins are inputs after reset, pulled high: the overlay bit (PA0) reads 1.
        QCOMPARE(c.portAPins() & 1, 1);
        QVERIFY(!c.irq());
    }

    void continuousPeriodIsLatchPlusOne() {
        Rig r;
        startTimerA(r.cia, 99);
        QVERIFY(r.untilFlag(Cia::IcrTA) > 0);
        r.cia.peek(Cia::ICR);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(r.untilFlag(Cia::IcrTA), std::uint64_t(100));
            r.cia.peek(Cia::ICR);
        }
    }

    void firstUnderflowTiming() {
        // START written at the end of E cycle 0. The force-load lands at E 2, counting
        // starts in E 3, the counter underflows L+1 counts later, and the flag is readable
        // in that cycle (vAmiga CIA.cpp, after Lorenz's 6526 model). This was 3 + 10 + 1
        // while every flag waited an E cycle; only IR and /IRQ do.
        Rig r;
        startTimerA(r.cia, 10);
        QCOMPARE(r.untilFlag(Cia::IcrTA), std::uint64_t(3 + 10));
    }

    void flagNowInterruptNextCycle() {
        // A CPU polling ICR sees the timer's bit in the underflow cycle; IR and /IRQ follow
        // one E cycle later (vAmiga: the timer bits are set at once, the Interrupt1 stage a
        // cycle on; WinUAE's cia.cpp delays the bits too, see docs/chipset.md).
        Rig r;
        r.cia.poke(Cia::ICR, 0x80 | Cia::IcrTA);
        startTimerA(r.cia, 10);
        QCOMPARE(r.untilFlag(Cia::IcrTA), std::uint64_t(3 + 10));
        QCOMPARE(r.cia.spy(Cia::ICR) & Cia::IcrIR, 0);
        QVERIFY(!r.cia.irq());
        r.run(1);
        QCOMPARE(r.cia.spy(Cia::ICR), std::uint8_t(Cia::IcrIR | Cia::IcrTA));
        QVERIFY(r.cia.irq());
        // A read in the underflow cycle takes the flag before it could interrupt.
        r.cia.peek(Cia::ICR);
        QVERIFY(r.untilFlag(Cia::IcrTA) > 0);
        QCOMPARE(r.cia.peek(Cia::ICR), std::uint8_t(Cia::IcrTA));
        r.run(1);
        QVERIFY(!r.cia.irq());
        QCOMPARE(r.cia.spy(Cia::ICR), std::uint8_t(0));
    }

    void oneShotStopsAndReloads() {
        Rig r;
        startTimerA(r.cia, 20, Cia::CrRUNMODE);
        QVERIFY(r.untilFlag(Cia::IcrTA) > 0);
        QCOMPARE(r.cia.spy(Cia::CRA) & Cia::CrSTART, 0);
        QCOMPARE(r.cia.timerA(), std::uint16_t(20));
        r.cia.peek(Cia::ICR);
        QCOMPARE(r.untilFlag(Cia::IcrTA, 1000), std::uint64_t(0));
    }

    void oneShotHighByteWriteStarts() {
        Rig r;
        r.cia.poke(Cia::CRA, Cia::CrRUNMODE);
        r.cia.poke(Cia::TALO, 5);
        r.cia.poke(Cia::TAHI, 0);  // loads and starts (8520)
        QVERIFY(r.cia.spy(Cia::CRA) & Cia::CrSTART);
        QVERIFY(r.untilFlag(Cia::IcrTA, 100) > 0);
    }

    void forceLoadLandsTwoECyclesLater() {
        Rig r;
        r.cia.poke(Cia::TALO, 0x34);
        r.cia.poke(Cia::TAHI, 0x12);  // stopped: loads too
        r.run(5);
        QCOMPARE(r.cia.timerA(), std::uint16_t(0x1234));
        r.cia.poke(Cia::TALO, 0x78);
        r.cia.poke(Cia::CRA, Cia::CrLOAD);
        r.run(1);
        QCOMPARE(r.cia.timerA(), std::uint16_t(0x1234));
        r.run(1);
        QCOMPARE(r.cia.timerA(), std::uint16_t(0x1278));
        QCOMPARE(r.cia.spy(Cia::CRA) & Cia::CrLOAD, 0);  // a strobe reads back 0
    }

    void icrMaskAndReadClear() {
        Rig r;
        startTimerA(r.cia, 3);
        r.untilFlag(Cia::IcrTA);
        QVERIFY(!r.cia.irq());  // masked
        r.cia.poke(Cia::ICR, 0x80 | Cia::IcrTA);  // enabling a pending flag raises /IRQ
        QVERIFY(r.cia.irq());
        const std::uint8_t v = r.cia.peek(Cia::ICR);
        QCOMPARE(v & (Cia::IcrIR | Cia::IcrTA), Cia::IcrIR | Cia::IcrTA);
        QVERIFY(!r.cia.irq());
        QCOMPARE(r.cia.spy(Cia::ICR), std::uint8_t(0));
        r.cia.poke(Cia::ICR, Cia::IcrTA);  // clear the mask bit
        r.untilFlag(Cia::IcrTA);
        QVERIFY(!r.cia.irq());
    }

    void timerBCountsTimerAUnderflows() {
        Rig r;
        r.cia.poke(Cia::TBLO, 2);
        r.cia.poke(Cia::TBHI, 0);
        r.cia.poke(Cia::CRB, Cia::CrSTART | Cia::CrLOAD | 0x40);  // INMODE 10: TA underflows
        startTimerA(r.cia, 9);
        // A first underflows in E 3+9, then every 10 E cycles. B counts 2, 1, 0 on A's
        // underflows and underflows itself on the third, its flag readable in that cycle.
        const auto n = r.untilFlag(Cia::IcrTB, 10'000);
        QCOMPARE(n, std::uint64_t(3 + 9 + 2 * 10));
    }

    void todLatchStopAndAlarm() {
        Cia c;
        for (int i = 0; i < 0x12345; ++i) c.todPulse();
        QCOMPARE(c.tod(), std::uint32_t(0x12345));
        QCOMPARE(c.peek(Cia::TODHI), std::uint8_t(0x01));  // latches
        c.todPulse();
        c.todPulse();
        QCOMPARE(c.peek(Cia::TODMID), std::uint8_t(0x23));
        QCOMPARE(c.peek(Cia::TODLO), std::uint8_t(0x45));  // unlatches
        QCOMPARE(c.peek(Cia::TODLO), std::uint8_t(0x47));
        // Writing the high byte stops the counter until the low byte is written.
        c.poke(Cia::TODHI, 0);
        c.poke(Cia::TODMID, 0);
        c.todPulse();
        QCOMPARE(c.tod(), std::uint32_t(0x47));
        c.poke(Cia::TODLO, 0);
        c.todPulse();
        QCOMPARE(c.tod(), std::uint32_t(1));
        // Alarm at 5 (CRB bit 7 selects the alarm for writes).
        c.poke(Cia::CRB, Cia::CrbALARM);
        c.poke(Cia::TODHI, 0);
        c.poke(Cia::TODMID, 0);
        c.poke(Cia::TODLO, 5);
        c.poke(Cia::CRB, 0);
        c.poke(Cia::ICR, 0x80 | Cia::IcrALRM);
        for (int i = 0; i < 4; ++i) c.todPulse();
        c.advanceTo(100);
        QVERIFY(c.irq());
        QCOMPARE(c.peek(Cia::ICR) & Cia::IcrALRM, Cia::IcrALRM);
    }

    void portsFollowDataDirection() {
        Cia c;
        c.setPortAInput(0xF0);
        c.poke(Cia::PRA, 0x05);
        c.poke(Cia::DDRA, 0x03);  // PA0/PA1 outputs: overlay off, LED on
        QCOMPARE(c.portAPins(), std::uint8_t(0xF1));
        QCOMPARE(c.peek(Cia::PRA), std::uint8_t(0xF1));
    }

    void serialInAndOut() {
        Rig r;
        r.cia.receiveSerialByte(0x5A);
        QVERIFY(r.untilFlag(Cia::IcrSP, 10) > 0);
        QCOMPARE(r.cia.peek(Cia::SDR), std::uint8_t(0x5A));
        r.cia.peek(Cia::ICR);
        // Output mode: 8 bits at two timer A underflows each.
        r.cia.poke(Cia::CRA, Cia::CraSPMODE);
        startTimerA(r.cia, 1, Cia::CraSPMODE);
        r.cia.poke(Cia::SDR, 0xC3);
        QVERIFY(r.cia.serialOutputMode());
        QVERIFY(r.untilFlag(Cia::IcrSP, 1000) > 0);
        QCOMPARE(r.cia.lastSerialOut(), std::uint8_t(0xC3));
    }

    // The fast path (skipping E cycles in bulk) and single-stepping give the same state.
    void bulkAdvanceMatchesStepping() {
        auto scenario = [](Cia& c) {
            c.poke(Cia::ICR, 0x80 | Cia::IcrTA | Cia::IcrTB);
            c.poke(Cia::TBLO, 0x10);
            c.poke(Cia::TBHI, 0x27);
            c.poke(Cia::CRB, Cia::CrSTART | Cia::CrLOAD);
            startTimerA(c, 0x1234);
        };
        Cia stepped, bulk;
        scenario(stepped);
        scenario(bulk);
        const MasterClock end = 10 * 200'003 + 7;
        // The bulk CIA is looked at now and then, as the machine's bus would: its timers
        // read the same as the stepped one's at every look.
        MasterClock look = 1;
        for (MasterClock t = 1; t <= end; ++t) {
            stepped.advanceTo(t);
            (void)stepped.peek(Cia::PRA);  // a read settles: this CIA runs every E cycle
            if (t == look) {
                bulk.advanceTo(t);
                QCOMPARE(bulk.spy(Cia::TALO), stepped.spy(Cia::TALO));
                QCOMPARE(bulk.spy(Cia::TBHI), stepped.spy(Cia::TBHI));
                QCOMPARE(bulk.irq(), stepped.irq());
                look += 1 + (t * 7919) % 40'000;
            }
        }
        bulk.advanceTo(end);
        auto h1 = Archive::hasher(), h2 = Archive::hasher();
        stepped.serialize(h1);
        bulk.serialize(h2);
        QCOMPARE(h1.hash(), h2.hash());
        QCOMPARE(stepped.timerA(), bulk.timerA());
    }

    void saveAndLoad() {
        Rig r;
        startTimerA(r.cia, 500);
        r.run(123);
        auto saver = Archive::saver();
        r.cia.serialize(saver);
        Cia copy;
        auto loader = Archive::loader(saver.bytes());
        copy.serialize(loader);
        QCOMPARE(loader.remaining(), std::size_t(0));
        r.run(1000);
        copy.advanceTo(r.ecycle * kCyclesPerEClock);
        QCOMPARE(copy.timerA(), r.cia.timerA());
        QCOMPARE(copy.spy(Cia::ICR), r.cia.spy(Cia::ICR));
    }
};

QTEST_GUILESS_MAIN(TestCia)
#include "test_cia.moc"
