// SPDX-License-Identifier: GPL-3.0-or-later
// The record (emu/record/record.h) stands the machine on past boundaries exactly: after
// running from a state, standing k steps back gives the very state the machine had there
// (its hash, its registers, its memory), for many k, across frame boundaries, interrupts,
// STOP, blits and disk DMA; inputs logged on the way are applied again where they landed;
// the byte budget holds.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/ofs.h"
#include "emu/media/rom.h"
#include "emu/record/record.h"
#endif

#include <QtTest>
#include <map>
#include <memory>
#include <set>

using namespace copperline;

namespace {

// The emulator thread's run loop in miniature: inputs due before the step, the snapshot
// at the first boundary after a committed frame.
struct Rig {
    std::unique_ptr<Machine> m;
    std::unique_ptr<Record> r;
    bool committed = false;
    explicit Rig(std::unique_ptr<Machine> machine, std::size_t budget = Record::kDefaultBudgetBytes)
        : m(std::move(machine)) {
        m->setFrameCallback([this](std::uint64_t) { committed = true; });
        r = std::make_unique<Record>(*m, budget);
    }
    void step() {
        if (m->now() >= r->nextDue()) r->applyDue();
        m->stepInstruction();
        if (committed) {
            committed = false;
            r->frameStarted();
        }
    }
    // Where a forward `step` stops: the next boundary outside STOP.
    void countedStep() {
        do
            step();
        while (m->cpu().stopped());
    }
    void frames(unsigned n) {
        const auto end = m->frame() + n;
        while (m->frame() < end)
            step();
    }
};

class StepBoundaries : public ReplayVisitor {
public:
    bool boundary(Machine& m) override { return !m.cpu().stopped(); }
};

struct Saved {
    std::uint64_t hash = 0;
    m68k::Registers regs;
    std::vector<std::uint8_t> chip;
};

Saved save(Machine& m) {
    return {m.stateHash(),
            m.cpu().registers(),
            {m.chipRam().data(), m.chipRam().data() + m.chipRam().size()}};
}

struct Seen {
    bool irq = false, blit = false, disk = false, stop = false;
    std::uint64_t frames = 0;
};

// Runs n counted steps, saving the state at n - k for each k, then stands on each of
// them through the record and compares.
Seen checkReverseSteps(Rig& rig, std::uint64_t n, const std::set<std::uint64_t>& ks) {
    Seen seen;
    std::map<std::uint64_t, Saved> saved;
    const std::uint64_t frame0 = rig.m->frame();
    for (std::uint64_t i = 1; i <= n; ++i) {
        seen.irq |= rig.m->cpu().interruptNext();
        rig.countedStep();
        seen.blit |= rig.m->blitter().busy();
        seen.disk |= rig.m->agnus().committedOwnerCounts()[unsigned(BusOwner::Disk)] > 0 &&
                     rig.m->frame() > frame0;
        if (ks.count(n - i)) saved[n - i] = save(*rig.m);
    }
    seen.frames = rig.m->frame() - frame0;
    const std::uint64_t present = rig.m->now();
    for (const std::uint64_t k : ks) {
        StepBoundaries v;
        const auto at = rig.r->findBack(rig.m->now(), k, v);
        if (!at) {
            qWarning("k=%llu: the record does not reach", static_cast<unsigned long long>(k));
            return {};
        }
        if (!rig.r->seek(Record::Key::Cycle, *at)) return {};
        const Saved here = save(*rig.m);
        const Saved& want = saved.at(k);
        if (here.hash != want.hash || here.regs.pc != want.regs.pc || here.regs.d != want.regs.d ||
            here.regs.a != want.regs.a || here.regs.sr != want.regs.sr || here.chip != want.chip) {
            qWarning("k=%llu: the state differs", static_cast<unsigned long long>(k));
            return {};
        }
        // Back to the present for the next one.
        if (!rig.r->seek(Record::Key::Cycle, present) || rig.m->now() != present) return {};
    }
    return seen;
}

std::unique_ptr<Machine> churn() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(RECORD_CHURN));
    return m;
}

std::unique_ptr<Machine> aros() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    return m;
}

} // namespace

class TestRecord : public QObject {
    Q_OBJECT
private slots:
    void reverseStepsAcrossBlitsInterruptsAndFrames() {
        Rig rig(churn());
        // Past its noise fill (about 150 frames), into the frames of blits and interrupts.
        rig.frames(170);
        QVERIFY(rig.m->spyWord(0x402) > 0);
        const std::uint64_t n = 40000;
        const Seen s =
            checkReverseSteps(rig, n, {1, 2, 3, 17, 250, 1000, 2999, 7777, 15000, 30000, n - 1});
        QVERIFY(s.frames >= 1); // the steps crossed a frame boundary
        QVERIFY(s.irq);
        QVERIFY(s.blit);
        // The program keeps counting frames and blits as it should.
        QVERIFY(rig.m->spyWord(0x402) >= 3);
        QVERIFY(rig.m->spyWord(0x406) >= 1);
    }

    void reverseStepsAcrossDiskDma() {
        // AROS with a formatted disk in DF0 reads its boot block by disk DMA.
        auto m = aros();
        m->insertDisk(0, ofs::writeVolume(ofs::Volume{}));
        Rig rig(std::move(m));
        for (int f = 0; f < 50 * 20; ++f) {
            rig.frames(1);
            if (rig.m->agnus().committedOwnerCounts()[unsigned(BusOwner::Disk)] > 0) break;
        }
        QVERIFY2(rig.m->agnus().committedOwnerCounts()[unsigned(BusOwner::Disk)] > 0,
                 "no disk DMA in 20 s");
        const std::uint64_t n = 40000;
        const Seen s = checkReverseSteps(rig, n, {1, 5, 64, 4096, 20000, 39000});
        QVERIFY(s.frames >= 1);
        QVERIFY(s.irq);
        QVERIFY(s.disk);
    }

    void inputsAreAppliedAgainWhereTheyLanded() {
        Rig rig(churn());
        rig.frames(2);
        // A key press now, its release later, a mouse move and a button: logged inputs.
        rig.r->input(MachineInput::key(0x45, true));
        rig.r->input(MachineInput::key(0x45, false), rig.m->now() + 300'000);
        rig.r->input(MachineInput::mouse(0, 5, -3));
        rig.r->input(MachineInput::buttons(0, MachineInput::kButtonLeft));
        rig.r->input(MachineInput::memory(0x300, {0xCA, 0xFE}));
        QCOMPARE(rig.m->spyWord(0x300), std::uint16_t(0xCAFE));
        QCOMPARE(rig.m->spyWord(0xDFF00A), std::uint16_t(0xFD05)); // JOY0DAT: y -3, x +5
        QCOMPARE(rig.m->ciaA().portAPins() & 0x40, 0);             // /FIR0 low
        std::vector<std::uint64_t> hashes;
        std::vector<std::uint64_t> at;
        for (int f = 0; f < 10; ++f) {
            rig.frames(1);
            at.push_back(rig.m->now());
            hashes.push_back(rig.m->stateHash());
        }
        // Back to the start of the inputs' frame, and forward again frame by frame.
        QVERIFY(rig.r->seek(Record::Key::Cycle, at.front() - 1));
        for (std::size_t i = 0; i < at.size(); ++i) {
            QVERIFY(rig.r->seek(Record::Key::Cycle, at[i]));
            QCOMPARE(rig.m->stateHash(), hashes[i]);
        }
        // An input while standing in the past forks the timeline: the future is dropped.
        QVERIFY(rig.r->seek(Record::Key::Cycle, at[4]));
        rig.r->input(MachineInput::mouse(0, 1, 1));
        QCOMPARE(rig.r->newest().cycle, at[4]);
        QVERIFY(!rig.r->inPast());
    }

    void beyondTheRecordIsRefused() {
        Rig rig(churn());
        rig.frames(5);
        const std::uint64_t hash = rig.m->stateHash();
        StepBoundaries v;
        QVERIFY(!rig.r->findBack(rig.m->now(), 100'000'000, v).has_value());
        QVERIFY(rig.r->seek(Record::Key::Cycle, rig.r->newest().cycle));
        QCOMPARE(rig.m->stateHash(), hash);
        QVERIFY(rig.r->holdsStart());
        QVERIFY(!rig.r->seek(Record::Key::Cycle, rig.r->oldest().cycle - 2));
        QCOMPARE(rig.m->stateHash(), hash);
    }

    void theBudgetHoldsAndTheOldestGoFirst() {
        const std::size_t budget = 8u << 20;
        Rig rig(churn(), budget);
        std::uint64_t lastOldest = 0;
        for (int f = 0; f < 300; ++f) {
            rig.frames(1);
            QVERIFY(rig.r->bytesUsed() <= budget);
            QVERIFY(rig.r->oldest().cycle >= lastOldest);
            lastOldest = rig.r->oldest().cycle;
        }
        QVERIFY(!rig.r->holdsStart());
        // What is held can still be stood on exactly.
        const auto target = rig.r->oldest().cycle;
        QVERIFY(rig.r->seek(Record::Key::Cycle, target));
        QCOMPARE(rig.m->now(), target);
    }

    void snapshotsThinWithAge() {
        Rig rig(churn());
        rig.frames(700);
        QVERIFY(rig.r->holdsStart());
        const std::uint64_t span = rig.r->newest().frame - rig.r->oldest().frame;
        QVERIFY(span >= 699);
        // Every frame in the newest 256, every other one before.
        QVERIFY(rig.r->snapshotCount() < span - 150);
        QVERIFY(rig.r->snapshotCount() > 256);
    }
};

QTEST_GUILESS_MAIN(TestRecord)
#include "test_record.moc"
