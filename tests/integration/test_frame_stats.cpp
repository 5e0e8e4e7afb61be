// SPDX-License-Identifier: GPL-3.0-or-later
// The per-frame accounting (emu/chipset/frame_stats.h): every CPU cycle of a frame is in
// exactly one of the four counters, frame observers hear of each frame once, at an
// instruction boundary, and watching changes nothing in the emulated timeline.

#ifndef Q_MOC_RUN
#include "aros_machine.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#endif

#include <QtTest>

#include <memory>
#include <set>
#include <vector>

using namespace copperline;
using copperline::testing::arosMachine;

namespace {

struct Recorder : FrameObserver {
    Machine* machine = nullptr;
    std::vector<FrameStats> frames;
    std::vector<std::uint64_t> cpuAt; // the CPU's clock when told
    void frameCompleted(const FrameStats& s) override {
        frames.push_back(s);
        cpuAt.push_back(machine->now());
    }
};

// Runs `a` a frame at a time, `b` one step at a time and `c` up to a's clock, `frames`
// frames. After each frame the three stand at the same clock with the same CPU counters
// for it, and (every `hashEvery` frames and at the end) the same state. `stopped` adds up
// a's stopped cycles. A failed comparison returns at once (QTest::currentTestFailed).
void runThreeWays(Machine& a, Machine& b, Machine& c, int frames, int hashEvery, std::uint64_t& stopped) {
    for (int i = 0; i < frames; ++i) {
        a.runFrame();
        const std::uint64_t frame = b.frame();
        while (b.frame() == frame) b.stepInstruction();
        c.runUntil(a.now());
        QCOMPARE(b.now(), a.now());
        QCOMPARE(c.now(), a.now());
        for (Machine* m : {&b, &c}) {
            const FrameStats &x = a.lastFrameStats(), &y = m->lastFrameStats();
            QCOMPARE(y.frame, x.frame);
            QCOMPARE(y.cpuStoppedCycles, x.cpuStoppedCycles);
            QCOMPARE(y.cpuInstructionCycles, x.cpuInstructionCycles);
            QCOMPARE(y.cpuIrqCycles, x.cpuIrqCycles);
            QCOMPARE(y.cpuWaitCycles, x.cpuWaitCycles);
        }
        stopped += a.lastFrameStats().cpuStoppedCycles;
        if (i % hashEvery == 0) {
            QCOMPARE(b.stateHash(), a.stateHash());
            QCOMPARE(c.stateHash(), a.stateHash());
        }
    }
    QCOMPARE(b.stateHash(), a.stateHash());
    QCOMPARE(c.stateHash(), a.stateHash());
}

} // namespace

class TestFrameStats : public QObject {
    Q_OBJECT
private slots:
    void cpuCountersAddUpToTheFrame() {
        auto m = arosMachine();
        Recorder r;
        r.machine = m.get();
        m->attachFrameObserver(&r);
        // 400 frames of the boot: ROM checks, the Copper and blitter clearing the screen,
        // interrupts and STOP.
        for (int i = 0; i < 400; ++i) m->runFrame();
        // runFrame returns inside the first instruction of the next frame; the step that
        // straddles the last boundary may not have ended yet.
        QVERIFY(r.frames.size() >= 399);
        std::uint64_t irq = 0, stopped = 0, waits = 0;
        for (std::size_t i = 0; i < r.frames.size(); ++i) {
            const FrameStats& f = r.frames[i];
            QCOMPARE(f.frame, std::uint64_t(i));
            if (i > 0) {
                QCOMPARE(f.firstCck, r.frames[i - 1].firstCck + r.frames[i - 1].lengthCck);
                QVERIFY(!f.partial);
                const std::uint64_t sum =
                    f.cpuInstructionCycles + f.cpuWaitCycles + f.cpuIrqCycles + f.cpuStoppedCycles;
                QCOMPARE(sum, 2 * std::uint64_t(f.lengthCck));
            } else {
                QVERIFY(f.partial);
            }
            QCOMPARE(f.lengthCck, f.lines * 227u);
            QVERIFY(f.lines == 313 || f.lines == 312);
            // Observers are told at the boundary after the frame's end, never before it.
            QVERIFY(r.cpuAt[i] >= 2 * (f.firstCck + f.lengthCck));
            irq += f.cpuIrqCycles;
            stopped += f.cpuStoppedCycles;
            waits += f.cpuWaitCycles;
        }
        // The boot takes interrupts (VERTB at least) and waits for the bus.
        QVERIFY(irq > 0);
        QVERIFY(waits > 0);
        // AROS waits in STOP for its interrupts once its screen is up.
        QVERIFY(stopped > 0);
    }

    void mutedObserversHearNothing() {
        auto m = arosMachine();
        Recorder r;
        r.machine = m.get();
        m->attachFrameObserver(&r);
        m->setObserversMuted(true);
        for (int i = 0; i < 20; ++i) m->runFrame();
        QCOMPARE(r.frames.size(), std::size_t(0));
        m->setObserversMuted(false);
        m->runFrame();
        m->runFrame();
        QVERIFY(r.frames.size() >= 1);
    }

    void watchingChangesNothing() {
        auto a = arosMachine(), b = arosMachine();
        Recorder r;
        r.machine = b.get();
        b->attachFrameObserver(&r);
        // Slot records too: the interrupt mask, the CPU's interrupts and the CIAs' events
        // noted from outside Agnus change nothing either.
        b->agnus().setRecordSlots(true);
        for (int i = 0; i < 200; ++i) {
            a->runFrame();
            b->runFrame();
            if (i % 20 == 0) QCOMPARE(a->stateHash(), b->stateHash());
        }
        QCOMPARE(a->stateHash(), b->stateHash());
    }

#ifdef STRIP_LOOP_BIN
    // runFrame and runUntil take the CPU's steps of STOP (one colour clock each) without the
    // per-step bookkeeping when nobody watches steps; they must be the very steps
    // stepInstruction takes one by one: the same boundaries, states and frame counters.
    // The strip's bare-metal loop waits for every vertical blank in STOP.
    // runFrame and runUntil take a sleeping CPU's clocks as stretches (Machine::
    // runStoppedSteps); stepInstruction takes them one by one. Both must be the same
    // machine, clock for clock, whatever wakes the CPU and wherever in a line it does.
    void stopStepsTakenTogetherAreTheSameSteps_data() {
        QTest::addColumn<QString>("program");
        QTest::addColumn<int>("frames");
        QTest::newRow("strip loop (VERTB)") << QString(STRIP_LOOP_BIN) << 120;
        QTest::newRow("mid-line wakes") << QString(HW_STOP_WAKE) << 60;
    }
    void stopStepsTakenTogetherAreTheSameSteps() {
        QFETCH(QString, program);
        QFETCH(int, frames);
        const std::vector<std::uint8_t> bytes = readFileBytes(program.toStdString());
        Machine a, b, c;
        for (Machine* m : {&a, &b, &c}) m->bootBareMetal(bytes);
        std::uint64_t stopped = 0;
        runThreeWays(a, b, c, frames, 20, stopped);
        if (QTest::currentTestFailed()) return;
        // Most of every frame was spent in STOP.
        QVERIFY(stopped > std::uint64_t(frames) * 100000);
        if (program != QString(HW_STOP_WAKE)) return;

        // The wakes happened, each kind, where the program put them: a COPER less than a
        // line after its WAIT's position, the CIA's anywhere in a line.
        const auto word = [&](std::uint32_t at) { return unsigned(a.chipRam().readWord(at)); };
        const unsigned logged = word(0x7F000);
        QVERIFY2(logged >= 256, qPrintable(QString::number(logged)));
        unsigned counts[5] = {};
        std::set<unsigned> ciaColumns;
        for (unsigned k = 0; k < 256; ++k) {
            const unsigned beam = word(0x7F002 + 4 * k), source = word(0x7F004 + 4 * k);
            QVERIFY(source >= 1 && source <= 4);
            ++counts[source];
            if (source == 2) {
                // Within a line after one of the Copper's four positions.
                bool near = false;
                for (const unsigned wait : {0x4040u, 0x609Au, 0x8022u, 0xA0C6u}) {
                    const unsigned line = wait >> 8, h = wait & 0xFF;
                    const unsigned at = ((beam >> 8) - line) * 227 + (beam & 0xFF) - h;
                    near = near || ((beam >> 8) >= line && (beam >> 8) <= line + 1 && at > 0 && at < 227);
                }
                QVERIFY2(near, qPrintable(QString::number(beam, 16)));
            }
            if (source == 4) ciaColumns.insert(beam & 0xFF);
        }
        for (unsigned s = 1; s <= 4; ++s) QVERIFY2(counts[s] > 0, qPrintable(QString::number(s)));
        // The timer's period is no multiple of a line: its wakes fall all over the line.
        QVERIFY2(ciaColumns.size() > 10, qPrintable(QString::number(ciaColumns.size())));
    }
#endif

#ifdef HW_BLIT_IRQ
    // Inside runFrame and runUntil a step's catch-up may wait for the next one while a blit
    // runs, short of the earliest clock the blit could finish in (Agnus::quietUntil). The
    // program takes each blit's interrupt between long DIVU and MULU instructions, whose
    // ends are far from their bus cycles: a catch-up left waiting past a blit's end would
    // show the interrupt an instruction late. Stepped one instruction at a time, every step
    // is caught up. Both must be the same machine, step for step.
    void catchUpsWaitingInABlitChangeNothing() {
        const std::vector<std::uint8_t> bytes = readFileBytes(HW_BLIT_IRQ);
        Machine a, b, c;
        for (Machine* m : {&a, &b, &c}) m->bootBareMetal(bytes);
        std::uint64_t stopped = 0;
        runThreeWays(a, b, c, 40, 1, stopped);
        if (QTest::currentTestFailed()) return;
        // The blits ended all over the lines, each with its interrupt taken.
        const auto word = [&](std::uint32_t at) { return unsigned(a.chipRam().readWord(at)); };
        const unsigned taken = word(0x7F000);
        QVERIFY2(taken > 500, qPrintable(QString::number(taken)));
        std::set<unsigned> columns;
        for (unsigned k = 0; k < 256; ++k) columns.insert(word(0x7F002 + 2 * k) & 0xFF);
        QVERIFY2(columns.size() > 50, qPrintable(QString::number(columns.size())));
    }
#endif
};

QTEST_GUILESS_MAIN(TestFrameStats)
#include "test_frame_stats.moc"
