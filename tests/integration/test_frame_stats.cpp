// The per-frame accounting (emu/chipset/frame_stats.h): every CPU cycle of a frame is in
// exactly one of the four counters, frame observers hear of each frame once, at an
// instruction boundary, and watching changes nothing in the emulated timeline.

#ifndef Q_MOC_RUN
#include "aros_machine.h"
#include "emu/machine.h"
#endif

#include <QtTest>

#include <memory>
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
        for (int i = 0; i < 200; ++i) {
            a->runFrame();
            b->runFrame();
            if (i % 20 == 0) QCOMPARE(a->stateHash(), b->stateHash());
        }
        QCOMPARE(a->stateHash(), b->stateHash());
    }
};

QTEST_GUILESS_MAIN(TestFrameStats)
#include "test_frame_stats.moc"
