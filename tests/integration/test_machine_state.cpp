// SPDX-License-Identifier: GPL-3.0-or-later
// Determinism: two machines from power-on agree at every frame, and a machine saved at
// frame N, loaded and run on agrees with one that never stopped. Bad state files are
// refused and change nothing, however they were damaged. A loaded state shows its own
// picture. A cold reset gives exactly a new machine.

#ifndef Q_MOC_RUN
#include "aros_machine.h"
#include "emu/machine.h"
#include "emu/state/state_file.h"
#include "emu/state/archive.h"
#endif

#include <QtTest>

#include <algorithm>
#include <memory>
#include <random>

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

// A disk of no file system with a pattern on it, for the drive to have something to hold.
AdfImage patternDisk() {
    AdfImage disk;
    disk.name = "pattern";
    disk.bytes.resize(adf::kImageBytes);
    for (std::size_t i = 0; i < disk.bytes.size(); ++i)
        disk.bytes[i] = std::uint8_t(i * 7 + (i >> 9));
    return disk;
}

std::unique_ptr<Machine> arosWithDisk() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->connectDrive(1, true);
    m->insertDisk(0, patternDisk());
    m->powerOn();
    return m;
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

        // A state from a machine with another ROM.
        Machine noExt;
        noExt.setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        QVERIFY_THROWS_EXCEPTION(StateError, noExt.loadState(good));
    }

    // --chip 1M and 2M: an ECS Agnus (its id in VPOSR), DMA pointers as wide as the chip RAM,
    // and AROS finds all of it: exec's chip memory header ends at the chip RAM's end.
    void moreChipRamHasAnEcsAgnusAndAllOfItIsFound() {
        for (const std::uint32_t chip : {512u << 10, 1u << 20, 2u << 20}) {
            Machine::Config c;
            c.chipRamBytes = chip;
            auto m = std::make_unique<Machine>(c);
            m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
            m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
            m->powerOn();
            // VPOSR's Agnus id: 0 for the 8371, $20 for the 8372 (PAL).
            QCOMPARE(std::uint16_t(m->agnus().spyCustom(0x004) & 0x7F00), std::uint16_t(chip > (512u << 10) ? 0x2000 : 0));
            // The blitter's pointers are as wide as the chip RAM.
            QCOMPARE(m->blitter().pointerMask(), chip - 2);
            for (int i = 0; i < 300; ++i) m->runFrame();
            const auto lng = [&](std::uint32_t a) { return std::uint32_t(m->spyWord(a)) << 16 | m->spyWord(a + 2); };
            const std::uint32_t exec = lng(4);
            std::uint32_t chipUpper = 0;
            for (std::uint32_t node = lng(exec + 322), n = 0; lng(node) && n < 16; node = lng(node), ++n)
                if (m->spyWord(node + 14) & 2) chipUpper = std::max(chipUpper, lng(node + 24)); // MEMF_CHIP: mh_Upper
            QVERIFY2(chipUpper == chip, qPrintable(QString("chip %1: mh_Upper $%2").arg(chip).arg(chipUpper, 0, 16)));
            // The CPU's view wraps at the chip RAM's end: a byte written at its last address
            // shows at the mirror above it, and not below.
            m->pokeByte(chip - 1, 0xA5);
            QCOMPARE(m->spyByte(chip - 1), std::uint8_t(0xA5));
            if (chip < (2u << 20)) QCOMPARE(m->spyByte(2 * chip - 1), std::uint8_t(0xA5));
        }
    }

    // A machine of another configuration (NTSC, 2M chip with an ECS Agnus, 1.5M slow and 4M
    // fast RAM; or the A500's own) takes on the state's as it loads it: afterwards it is the
    // machine that saved the state, and it runs on exactly as that one does.
    void loadingAStateRestoresItsConfiguration() {
        const auto build = [](const Machine::Config& c) {
            auto m = std::make_unique<Machine>(c);
            m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
            m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
            m->powerOn();
            return m;
        };
        Machine::Config big;
        big.ntsc = true;
        big.chipRamBytes = 2u << 20;
        big.slowRamBytes = 1536u << 10;
        big.fastRamBytes = 4u << 20;
        for (const bool fromBig : {false, true}) {
            auto saver = build(fromBig ? big : Machine::Config{});
            for (int i = 0; i < 150; ++i) saver->runFrame();
            const auto state = saver->saveState();
            auto loader = build(fromBig ? Machine::Config{} : big);
            for (int i = 0; i < 20; ++i) loader->runFrame();
            loader->loadState(state);
            QVERIFY(Machine::sameConfig(loader->config(), saver->config()));
            QCOMPARE(loader->stateHash(), saver->stateHash());
            for (int i = 0; i < 100; ++i) {
                saver->runFrame();
                loader->runFrame();
            }
            QCOMPARE(loader->stateHash(), saver->stateHash());
            QCOMPARE(loader->lastField().pixels, saver->lastField().pixels);
        }
        // A state that cannot be read leaves the machine's own configuration in place.
        auto saver = build(big);
        for (int i = 0; i < 30; ++i) saver->runFrame();
        auto state = saver->saveState();
        state.resize(state.size() - 100);
        state_file::seal(state); // intact envelope, a body that ends too soon
        auto m = build(Machine::Config{});
        const std::uint64_t before = m->stateHash();
        QVERIFY_THROWS_EXCEPTION(StateError, m->loadState(state));
        QVERIFY(Machine::sameConfig(m->config(), Machine::Config{}));
        QCOMPARE(m->stateHash(), before);
    }

    // Any damage a disk, a copy or an editor can do: a byte changed anywhere (the header,
    // offset 40, the middle, the last byte, a thousand random places), a few bytes at
    // once, the file cut short or grown. Every one is refused with a StateError that says
    // the file is damaged, and the machine is as it was, down to its picture.
    void damagedStatesAreAllRefused() {
        auto m = arosMachine();
        for (int i = 0; i < 40; ++i)
            m->runFrame();
        const auto good = m->saveState();
        for (int i = 0; i < 5; ++i)
            m->runFrame();
        const std::uint64_t before = m->stateHash();
        const auto beforeFile = m->saveState();

        std::mt19937_64 rng(0xC0FFEE);
        int refused = 0;
        std::vector<std::string> failures;
        const auto refuse = [&](const std::vector<std::uint8_t>& bad, const std::string& how,
                                std::size_t at) {
            if (bad == good) return;
            bool threw = false;
            std::string message;
            try {
                m->loadState(bad);
            } catch (const StateError& e) {
                threw = true;
                message = e.what();
            }
            const std::string what =
                how + " at " + std::to_string(at) + ": " + (threw ? message : "loaded");
            // The magic is what says a file is a state at all; past it, the damage is named.
            const bool named = bad.size() < 8 || (how == "flip" && at < 4) ||
                               message.find("damaged") != std::string::npos;
            if (!threw || !named) {
                failures.push_back(what);
                m->loadState(beforeFile);
            } else if (m->stateHash() != before) {
                failures.push_back(what + " (and the machine changed)");
                m->loadState(beforeFile);
            }
            ++refused;
        };
        const auto flip = [&](std::size_t at, std::uint8_t mask) {
            auto bad = good;
            bad[at] ^= mask;
            refuse(bad, "flip", at);
        };
        for (std::size_t at = 0; at < 64; ++at)
            flip(at, 0x01);
        flip(40, 0x80);
        flip(good.size() / 2, 0x10);
        flip(good.size() - 1, 0xFF);
        for (int i = 0; i < 1000; ++i)
            flip(std::size_t(rng() % good.size()), std::uint8_t(1 + rng() % 255));
        for (int i = 0; i < 100; ++i) {
            auto bad = good;
            const std::size_t at = std::size_t(rng() % (good.size() - 8));
            for (int k = 0; k < 8; ++k)
                bad[at + std::size_t(k)] = std::uint8_t(rng());
            refuse(bad, "burst", at);
        }
        for (std::size_t cut : {std::size_t(0), std::size_t(1), std::size_t(8), std::size_t(44),
                                std::size_t(45), good.size() / 2, good.size() - 1}) {
            auto bad = good;
            bad.resize(cut);
            refuse(bad, "truncated", cut);
        }
        for (int i = 0; i < 50; ++i) {
            auto bad = good;
            bad.resize(std::size_t(rng() % good.size()));
            refuse(bad, "truncated", bad.size());
        }
        for (std::size_t more : {1, 2, 4096}) {
            auto bad = good;
            for (std::size_t k = 0; k < more; ++k)
                bad.push_back(std::uint8_t(rng()));
            refuse(bad, "extended", more);
        }
        {
            auto bad = good;
            bad.insert(bad.end(), good.begin(), good.end());
            refuse(bad, "doubled", good.size());
        }
        std::string list;
        for (std::size_t i = 0; i < failures.size() && i < 5; ++i)
            list += "\n  " + failures[i];
        const std::string report = std::to_string(failures.size()) +
                                   " damaged files were not refused as damaged, among them:" + list;
        QVERIFY2(failures.empty(), report.c_str());
        QVERIFY(refused > 1200);
        QCOMPARE(m->stateHash(), before);
        QVERIFY(m->saveState() == beforeFile);
        // The good file still loads.
        m->loadState(good);
        QCOMPARE(m->frame(), std::uint64_t(40));
    }

    // The picture is output, not state, but a loaded state shows the frame it was saved
    // after, not the one the machine showed before the load.
    void aLoadedStateShowsItsPicture() {
        auto a = arosMachine();
        for (int i = 0; i < 150; ++i)
            a->runFrame();
        while (a->agnus().vpos() < 0x40)
            a->stepInstruction();
        const auto state = a->saveState();
        const VideoField shown = a->lastField();
        QCOMPARE(shown.frame, std::uint64_t(149));
        const auto owners = a->agnus().committedOwners();
        const auto counts = a->agnus().committedOwnerCounts();

        auto b = arosMachine();
        for (int i = 0; i < 3; ++i)
            b->runFrame();
        QVERIFY(b->lastField().frame != shown.frame);
        b->loadState(state);
        QCOMPARE(b->lastField().frame, shown.frame);
        QCOMPARE(b->lastField().width, shown.width);
        QCOMPARE(b->lastField().lines, shown.lines);
        QVERIFY(b->lastField().pixels == shown.pixels);
        QVERIFY(b->agnus().committedOwners() == owners);
        QVERIFY(b->agnus().committedOwnerCounts() == counts);
        QCOMPARE(b->agnus().committedLines(), a->agnus().committedLines());
        // The file saves back as it was loaded.
        QVERIFY(b->saveState() == state);
    }

    // A cold reset is a power cycle: a machine that ran, then powered on again, is the new
    // machine with the same ROMs and disks, at once and frame after frame.
    void fastRamIsConfiguredByTheRomAndKeptInStates() {
        Machine::Config config;
        config.fastRamBytes = 1u << 20;
        auto m = std::make_unique<Machine>(config);
        m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        m->powerOn();
        // Unconfigured, the board answers at $E80000: er_Type $E5 (Zorro II, to the free
        // list, 1 MB) in the high nibbles of $00 and $02; er_Product 1 inverted at $04/$06.
        QCOMPARE(m->fastRamBase(), 0u);
        QCOMPARE(m->spyWord(0xE80000) >> 12, 0xEu);
        QCOMPARE(m->spyWord(0xE80002) >> 12, 0x5u);
        QCOMPARE(m->spyWord(0xE80004) >> 12, 0xFu);
        QCOMPARE(m->spyWord(0xE80006) >> 12, 0xEu);
        QCOMPARE(m->spyWord(0x200000), 0xFFFFu); // nothing there yet
        // The ROM's expansion code configures it and exec takes it as fast memory.
        int frames = 0;
        while (!m->fastRamBase() && frames < 600) {
            m->runFrame();
            ++frames;
        }
        QCOMPARE(m->fastRamBase(), 0x200000u);
        QCOMPARE(m->spyWord(0xE80000), 0xFFFFu); // gone from the configuration space
        for (int i = 0; i < 100; ++i) m->runFrame();
        // ExecBase->MemList holds a header of MEMF_FAST ($0004) memory from $200000.
        const auto lng = [&](std::uint32_t a) { return std::uint32_t(m->spyWord(a)) << 16 | m->spyWord(a + 2); };
        const std::uint32_t exec = lng(4);
        bool fastHeader = false;
        for (std::uint32_t node = lng(exec + 322), n = 0; lng(node) && n < 16; node = lng(node), ++n)
            if ((m->spyWord(node + 14) & 4) && lng(node + 20) >= 0x200000 && lng(node + 24) <= 0x300000)
                fastHeader = true;
        QVERIFY(fastHeader);
        // A state keeps the board's place and memory; a machine without the board refuses it.
        m->pokeByte(0x2FFFFF, 0x5A);
        const std::vector<std::uint8_t> state = m->saveState();
        auto again = std::make_unique<Machine>(config);
        again->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        again->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        again->powerOn();
        again->loadState(state);
        QCOMPARE(again->fastRamBase(), 0x200000u);
        QCOMPARE(again->spyByte(0x2FFFFF), std::uint8_t(0x5A));
        QCOMPARE(again->stateHash(), m->stateHash());
        // A machine without the board takes on the state's configuration with it.
        auto plain = arosMachine();
        QCOMPARE(plain->config().fastRamBytes, 0u);
        plain->loadState(state);
        QCOMPARE(plain->config().fastRamBytes, 1u << 20);
        QCOMPARE(plain->fastRamBase(), 0x200000u);
        QCOMPARE(plain->spyByte(0x2FFFFF), std::uint8_t(0x5A));
        QCOMPARE(plain->stateHash(), m->stateHash());
        // The RESET line sends the board back to $E80000; its memory keeps its contents.
        m->reset();
        QCOMPARE(m->fastRamBase(), 0u);
        QCOMPARE(m->spyWord(0xE80000) >> 12, 0xEu);
        QCOMPARE(m->fastRam()[0xFFFFF], std::uint8_t(0x5A));
        // Power clears it.
        m->powerOn();
        QCOMPARE(m->fastRam()[0xFFFFF], std::uint8_t(0));
    }

    void aColdResetIsANewMachine() {
        auto used = arosWithDisk();
        for (int i = 0; i < 200; ++i)
            used->runFrame();
        used->moveMouse(0, 5, -3);
        used->setPortButtons(1, true, false, false);
        used->powerOn();
        auto fresh = arosWithDisk();
        QCOMPARE(used->cpu().instructions(), fresh->cpu().instructions());
        QVERIFY(used->cpu().registers().d == fresh->cpu().registers().d);
        QVERIFY(used->cpu().registers().a == fresh->cpu().registers().a);
        QCOMPARE(used->frame(), std::uint64_t(0));
        QCOMPARE(used->stateHash(), fresh->stateHash());
        // The ROMs go through power-on whole (the new machine it builds borrows them).
        QVERIFY(!used->romBytes().empty() && used->romBytes() == fresh->romBytes());
        QVERIFY(!used->extRomBytes().empty() && used->extRomBytes() == fresh->extRomBytes());
        // Power-on's snapshot fits the buffer made for it (the disk's image included): one
        // allocation, not several.
        QVERIFY(used->saveSnapshot().size() <= used->snapshotBuffer().capacity());
        QVERIFY(used->lastField().pixels.empty());
        for (int i = 0; i < 120; ++i) {
            used->runFrame();
            fresh->runFrame();
            if (i % 10 == 9) QCOMPARE(used->stateHash(), fresh->stateHash());
        }
        QVERIFY(used->lastField().pixels == fresh->lastField().pixels);
    }
};

QTEST_GUILESS_MAIN(TestMachineState)
#include "test_machine_state.moc"
