// SPDX-License-Identifier: GPL-3.0-or-later
// The profile strip's cuts (profiler/strip/strip_cutter.h) on boundaries made by hand: the
// cut limit (4,096: a pass one, a call two), a start while stopped, a nested call, the reach
// of a return, an interrupt pending at the return, and a run from an earlier moment.

#include "profiler/strip/strip_cutter.h"

#include <QtTest>

using namespace copperline::strip;

namespace {

StripCutter::Boundary at(std::uint32_t pc, std::uint64_t cycle, std::uint32_t usp = 0x8000) {
    StripCutter::Boundary b;
    b.pc = pc;
    b.usp = usp;
    b.ssp = 0x7F000;
    b.at = {cycle, cycle / 4, cycle / 2, cycle / 142000};
    return b;
}

} // namespace

class TestStripCutter : public QObject {
    Q_OBJECT
private slots:
    void theLatestCutsAreKept() {
        StripCutter c;
        c.set({0x1000, StripCutter::Mode::Pass, std::nullopt});
        for (std::uint64_t i = 0; i < 5000; ++i) c.boundary(at(0x1000, 100 * (i + 1)));
        QCOMPARE(c.frames().size(), StripCutter::kMaxCuts); // a pass takes one cut
        QCOMPARE(c.frames().back().end.cycle, 500000ull);
        QCOMPARE(c.evicted(), 5000ull - 1 - 4096);
        c.set({0x1000, StripCutter::Mode::Call, std::nullopt});
        QVERIFY(c.frames().empty());
        for (std::uint64_t i = 0; i < 5000; ++i) {
            c.boundary(at(0x1000, 1000 * i + 1, 0x8000));
            c.boundary(at(0x1100, 1000 * i + 500, 0x8004)); // returned: 4 bytes above
        }
        QCOMPARE(c.frames().size(), StripCutter::kMaxCuts / 2); // a call takes two
    }

    void callsEndByTheStackWithinReach() {
        StripCutter c;
        c.set({0x2000, StripCutter::Mode::Call, std::nullopt});
        c.boundary(at(0x2000, 10, 0x8000));
        c.boundary(at(0x2000, 20, 0x7FF0)); // recursion: inside the open call
        c.boundary(at(0x2100, 30, 0x7FF8)); // deeper than the start: still open
        QVERIFY(c.open().has_value());
        auto pending = at(0x3000, 40, 0x8004);
        pending.interruptPending = true; // an interrupt taken at the return is inside
        c.boundary(pending);
        QVERIFY(c.open().has_value());
        c.boundary(at(0x3000, 50, 0x8004));
        QCOMPARE(c.frames().size(), std::size_t(1));
        QCOMPARE(c.frames()[0].begin.cycle, 10ull);
        QCOMPARE(c.frames()[0].end.cycle, 50ull);
        // A stack pointer moved far above the start's has been borrowed, not returned.
        c.boundary(at(0x2000, 60, 0x8000));
        c.boundary(at(0x2200, 70, 0x8000 + StripCutter::kCallReach + 2));
        QVERIFY(c.open().has_value());
    }

    void aStartInStopBeginsNothingAndAnEarlierRunDropsWhatCameAfter() {
        StripCutter c;
        c.set({0x1000, StripCutter::Mode::Pass, std::nullopt});
        auto stopped = at(0x1000, 5);
        stopped.stopped = true;
        c.boundary(stopped);
        QVERIFY(!c.open().has_value());
        for (std::uint64_t i = 1; i <= 10; ++i) c.boundary(at(0x1000, 100 * i));
        QCOMPARE(c.frames().size(), std::size_t(9));
        // The same boundary told again cuts once.
        c.boundary(at(0x1000, 1000));
        QCOMPARE(c.frames().size(), std::size_t(9));
        // Run on from 450: the frames after it are dropped, and the one it stands in is open.
        c.runFrom(450);
        QCOMPARE(c.frames().size(), std::size_t(3));
        QVERIFY(c.open().has_value());
        QCOMPARE(c.open()->begin.cycle, 400ull);
        c.boundary(at(0x1000, 500));
        QCOMPARE(c.frames().size(), std::size_t(4));
        QCOMPARE(c.frames().back().end.cycle, 500ull);
    }

    void untilEndsAtItsEndOrTheNextStart() {
        StripCutter c;
        c.set({0x1000, StripCutter::Mode::Until, 0x1200});
        c.boundary(at(0x1000, 10));
        c.boundary(at(0x1200, 30));
        c.boundary(at(0x1000, 100));
        c.boundary(at(0x1000, 150)); // no end this time: ends at the next start
        QCOMPARE(c.frames().size(), std::size_t(2));
        QCOMPARE(c.frames()[0].lengthCck(), 10ull);
        QCOMPARE(c.frames()[1].end.cycle, 150ull);
        // An end given to another mode is dropped.
        c.set({0x1000, StripCutter::Mode::Pass, 0x1200});
        QVERIFY(!c.spec().end.has_value());
    }
};

QTEST_GUILESS_MAIN(TestStripCutter)
#include "test_strip_cutter.moc"
