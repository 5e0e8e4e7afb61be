// Determinism: two machines from power-on agree at every frame, and a machine saved at
// frame N, loaded and run on agrees with one that never stopped. Bad state files are
// refused and change nothing.

#ifndef Q_MOC_RUN
#include "aros_machine.h"
#include "emu/machine.h"
#include "emu/state/archive.h"
#endif

#include <QtTest>

#include <memory>

using namespace copperline;
using copperline::testing::arosMachine;

namespace {

std::vector<std::uint64_t> hashesOverFrames(Machine& m, int frames) {
    std::vector<std::uint64_t> out;
    for (int i = 0; i < frames; ++i) {
        m.runFrame();
        out.push_back(m.stateHash());
    }
    return out;
}

} // namespace

class TestMachineState : public QObject {
    Q_OBJECT
private slots:
    void twoRunsAgreeAtEveryFrame() {
        auto a = arosMachine(), b = arosMachine();
        const auto ha = hashesOverFrames(*a, 150), hb = hashesOverFrames(*b, 150);
        QCOMPARE(ha, hb);
        // The hash sees the machine move.
        QVERIFY(ha[10] != ha[11]);
        QVERIFY(ha[148] != ha[149]);
    }

    void saveLoadRunMatchesUninterrupted() {
        auto a = arosMachine();
        for (int i = 0; i < 120; ++i) a->runFrame();
        // Save in the middle of a frame, below the vertical blank.
        while (a->agnus().vpos() < 0x80) a->stepInstruction();
        const auto state = a->saveState();
        const std::uint64_t atSave = a->stateHash();
        const auto continued = hashesOverFrames(*a, 60);

        auto b = arosMachine();
        b->runFrame();
        b->loadState(state);
        QCOMPARE(b->stateHash(), atSave);
        QCOMPARE(b->frame(), std::uint64_t(120));
        QCOMPARE(hashesOverFrames(*b, 60), continued);
        // The pictures agree too (the picture itself is output, not state).
        QVERIFY(a->lastField().pixels == b->lastField().pixels);
    }

    void badStatesAreRefusedAndChangeNothing() {
        auto m = arosMachine();
        for (int i = 0; i < 30; ++i) m->runFrame();
        const auto good = m->saveState();
        for (int i = 0; i < 5; ++i) m->runFrame();
        const std::uint64_t before = m->stateHash();

        auto truncated = good;
        truncated.resize(truncated.size() / 2);
        QVERIFY_THROWS_EXCEPTION(StateError, m->loadState(truncated));
        QCOMPARE(m->stateHash(), before);

        auto magic = good;
        magic[0] = 'X';
        QVERIFY_THROWS_EXCEPTION(StateError, m->loadState(magic));
        auto version = good;
        version[4] = 99;
        QVERIFY_THROWS_EXCEPTION(StateError, m->loadState(version));
        auto trailing = good;
        trailing.push_back(0);
        QVERIFY_THROWS_EXCEPTION(StateError, m->loadState(trailing));
        QCOMPARE(m->stateHash(), before);

        // A state from a machine with another configuration or ROM.
        Machine ntsc(Machine::Config{true});
        ntsc.setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        ntsc.setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        QVERIFY_THROWS_EXCEPTION(StateError, ntsc.loadState(good));
        Machine noExt;
        noExt.setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        QVERIFY_THROWS_EXCEPTION(StateError, noExt.loadState(good));
    }
};

QTEST_GUILESS_MAIN(TestMachineState)
#include "test_machine_state.moc"
