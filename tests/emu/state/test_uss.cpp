// SPDX-License-Identifier: GPL-3.0-or-later
// The USS reader (emu/state/uss.h): the chunk layout, a machine built from a small state,
// every refusal by name, the limits, the ROM check, and a randomized corruption test on the
// state FS-UAE wrote (tests/data/uss/scene.uss): whatever the damage, a file is read or
// refused with a StateError, and a refused one leaves the machine as it was.

#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/state/uss.h"
#include "tests/emu/state/uss_builder.h"

#include <QtTest>

#include <random>

using namespace copperline;
using namespace copperline::testing;

namespace {

std::unique_ptr<Machine> testMachine(const std::vector<std::uint8_t>& rom) {
    auto m = std::make_unique<Machine>();
    RomImage image;
    image.bytes = rom;
    image.originalSize = std::uint32_t(rom.size());
    m->setRom(image);
    m->powerOn();
    return m;
}

std::vector<UssChunk>::iterator find(std::vector<UssChunk>& chunks, const std::string& name) {
    return std::find_if(chunks.begin(), chunks.end(), [&](const UssChunk& c) { return c.name == name; });
}

// The message of the UssError reading (and loading) `file` throws, or "" if none.
std::string refusal(const std::vector<std::uint8_t>& file, const std::vector<std::uint8_t>& rom) {
    auto m = testMachine(rom);
    try {
        uss::loadUss(*m, file);
    } catch (const UssError& e) {
        return e.what();
    }
    return "";
}

} // namespace

class TestUss : public QObject {
    Q_OBJECT
private slots:
    void readsTheChunks() {
        const auto rom = testRom();
        const auto file = writeUss(minimalUss(rom));
        const auto chunks = uss::readChunks(file);
        QCOMPARE(chunks.front().name, std::string("ASF "));
        QCOMPARE(chunks.back().name, std::string("END "));
        const auto cram = std::find_if(chunks.begin(), chunks.end(), [](const auto& c) { return c.name == "CRAM"; });
        QCOMPARE(cram->payload.size(), std::size_t(512 * 1024)); // unpacked
        // What follows END (FS-UAE's configuration) is not read.
        auto longer = file;
        longer.insert(longer.end(), {'C', 'O', 'N', 'F', 0xFF, 0xFF, 0xFF, 0xFF});
        QCOMPARE(uss::readChunks(longer).size(), chunks.size());
    }

    void buildsTheMachine() {
        const auto rom = testRom();
        auto m = testMachine(rom);
        const auto loaded = uss::loadUss(*m, writeUss(minimalUss(rom)));
        QCOMPARE(loaded.emulator, std::string("UAE 3.3.0"));
        QCOMPARE(loaded.pc, 0x1000u);
        const auto r = m->cpu().registers();
        QCOMPARE(m->cpu().instructionAddress(), 0x1000u);
        QCOMPARE(r.d[3], 0x3003u);
        QCOMPARE(r.a[6], 0xE00Eu);
        QCOMPARE(r.a[7], 0x7E000u); // supervisor: the ISP
        QCOMPARE(r.usp, 0x7F000u);
        QCOMPARE(r.sr, std::uint16_t(0x2700));
        QCOMPARE(m->agnus().vpos(), std::uint16_t(0));
        QCOMPARE(m->agnus().hpos(), std::uint16_t(16));
        QCOMPARE(m->agnus().dmacon() & 0x03FF, 0x0280);
        QVERIFY(!m->romOverlay());
        QCOMPARE(m->spyWord(0x1000), std::uint16_t(0x60FE));
        QCOMPARE(m->spyByte(0xC00000), std::uint8_t(0x5A));
        m->runFrame();
        m->runFrame();
        QVERIFY(!m->halted());
        QCOMPARE(m->cpu().instructionAddress(), 0x1000u);
    }

    // ---- refusals, each by name --------------------------------------------------------
    void refusesByName_data() {
        QTest::addColumn<QString>("chunk");
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<QString>("named");
        QTest::newRow("FPU") << "FPU " << QByteArray(40, 0) << "floating-point unit";
        QTest::newRow("MMU") << "MMU " << QByteArray(8, 0) << "MMU";
        QTest::newRow("board ROM") << "BORO" << QByteArray(16, 0) << "board's ROM";
        QTest::newRow("CD32") << "CD32" << QByteArray(16, 0) << "CD";
        QTest::newRow("CDTV") << "CDTV" << QByteArray(16, 0) << "CD";
        QTest::newRow("RTG") << "P96 " << QByteArray(16, 0) << "RTG";
        QTest::newRow("filesystem") << "FSYS" << QByteArray(16, 0) << "filesystem";
        QTest::newRow("fast RAM") << "FRAM" << QByteArray(64, 0) << "fast RAM";
        QTest::newRow("Z3 RAM") << "ZRAM" << QByteArray(64, 0) << "Zorro III";
        QTest::newRow("IDE") << "IDE " << QByteArray(16, 0) << "IDE";
    }
    void refusesByName() {
        QFETCH(QString, chunk);
        QFETCH(QByteArray, payload);
        QFETCH(QString, named);
        const auto rom = testRom();
        auto chunks = minimalUss(rom);
        chunks.insert(chunks.end() - 1, {chunk.toStdString(), std::vector<std::uint8_t>(payload.begin(), payload.end())});
        const std::string why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find(named.toStdString()) != std::string::npos, why.c_str());
    }

    void refusesAga() {
        const auto rom = testRom();
        auto chunks = minimalUss(rom);
        find(chunks, "CHIP")->payload[3] = 4;
        const std::string why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find("AGA") != std::string::npos, why.c_str());
    }

    void refusesABlitInFlight() {
        const auto rom = testRom();
        for (std::uint8_t flags : {4, 6}) { // not done; finished by force when saved
            auto chunks = minimalUss(rom);
            find(chunks, "BLIT")->payload[3] = flags;
            const std::string why = refusal(writeUss(chunks), rom);
            QVERIFY2(why.find("blit in flight") != std::string::npos, why.c_str());
        }
    }

    void refusesDiskDmaInFlight() {
        const auto rom = testRom();
        auto chunks = minimalUss(rom);
        find(chunks, "DISK")->payload[5] = 2; // reading
        std::string why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find("disk DMA in flight") != std::string::npos, why.c_str());
        // The registers alone: DSKLEN's DMA bit with DSKEN and DMAEN on.
        chunks = minimalUss(rom);
        auto& chip = find(chunks, "CHIP")->payload;
        chip[4 + 0x024] = 0x80;
        chip[4 + 0x096] = 0x02;
        chip[4 + 0x097] = 0x10;
        why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find("disk DMA in flight") != std::string::npos, why.c_str());
    }

    void refusesAnotherCpu() {
        const auto rom = testRom();
        auto chunks = minimalUss(rom);
        auto& cpu = find(chunks, "CPU ")->payload;
        cpu[2] = 0x09;
        cpu[3] = 0xA0 + 20; // 68020
        cpu[1] = 0x01;
        const std::string why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find("68000") != std::string::npos, why.c_str());
    }

    void refusesABoardRomChunk() {
        const auto rom = testRom();
        auto chunks = minimalUss(rom);
        auto board = *find(chunks, "ROM ");
        board.payload[11] = 5; // type: neither Kickstart nor extension
        chunks.insert(chunks.end() - 1, board);
        const std::string why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find("board's ROM") != std::string::npos, why.c_str());
    }

    void romCheckNamesTheRomTheStateWants() {
        const auto rom = testRom();
        auto other = rom;
        other[100] ^= 1;
        const auto file = writeUss(minimalUss(rom));
        auto m = testMachine(other);
        const std::uint64_t before = m->stateHash();
        try {
            uss::loadUss(*m, file);
            QFAIL("loaded with another ROM");
        } catch (const UssError& e) {
            const std::string why = e.what();
            QVERIFY2(why.find("Kickstart 1.0") != std::string::npos, why.c_str());
            QVERIFY2(why.find("/roms/test.rom") != std::string::npos, why.c_str());
            char crc[16];
            std::snprintf(crc, sizeof crc, "%08X", unsigned(crc32(0L, rom.data(), uInt(rom.size()))));
            QVERIFY2(why.find(crc) != std::string::npos, why.c_str());
        }
        QCOMPARE(m->stateHash(), before); // and the machine is as it was
        // An extension ROM the machine has not.
        auto chunks = minimalUss(rom);
        auto ext = *find(chunks, "ROM ");
        ext.payload[11] = 1;
        chunks.insert(chunks.end() - 1, ext);
        const std::string why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find("extension ROM") != std::string::npos && why.find("--ext-rom") != std::string::npos,
                 why.c_str());
    }

    void limits() {
        const auto rom = testRom();
        // More than 4,096 chunks.
        auto chunks = minimalUss(rom);
        for (int i = 0; i < 4100; ++i) chunks.insert(chunks.end() - 1, {"XTRA", {1, 2, 3, 4}});
        std::string why = refusal(writeUss(chunks), rom);
        QVERIFY2(why.find("4096 chunks") != std::string::npos, why.c_str());
        // A chunk that says it is larger than 128 MiB.
        const auto file = writeUss(minimalUss(rom));
        const std::uint8_t big[] = {'X', 'T', 'R', 'A', 0x08, 0x00, 0x00, 0x10, 0, 0, 0, 0};
        std::vector<std::uint8_t> huge(file.begin(), file.end() - 8);
        huge.insert(huge.end(), std::begin(big), std::end(big));
        why = refusal(huge, rom);
        QVERIFY2(why.find("128 MiB") != std::string::npos, why.c_str());
        // A compressed chunk that says it unpacks to more than 128 MiB.
        std::vector<std::uint8_t> bomb(file.begin(), file.end() - 8);
        const std::uint8_t packed[] = {'X', 'T', 'R', 'A', 0, 0, 0, 20, 0, 0, 0, 1, 0x09, 0, 0, 0, 0x78, 0x9C, 3, 0, 0};
        bomb.insert(bomb.end(), std::begin(packed), std::end(packed));
        why = refusal(bomb, rom);
        QVERIFY2(why.find("128 MiB") != std::string::npos, why.c_str());
        // Chunks that unpack to more than 256 MiB between them (each under the chunk limit).
        std::vector<std::uint8_t> many(file.begin(), file.end() - 8);
        for (int i = 0; i < 3; ++i) {
            const std::uint8_t c[] = {'X', 'T', 'R', 'A', 0, 0, 0, 20, 0, 0, 0, 1, 0x07, 0xF0, 0, 0,
                                      0x78, 0x9C, 3, 0, 0, 0, 0, 0};
            many.insert(many.end(), std::begin(c), std::end(c));
        }
        why = refusal(many, rom);
        QVERIFY2(why.find("256 MiB") != std::string::npos, why.c_str());
        // A file larger than 256 MiB is refused before it is read (readUss's first check).
        QVERIFY(uss::kMaxTotalBytes == 256ull << 20 && uss::kMaxChunkBytes == 128ull << 20 && uss::kMaxChunks == 4096);
    }

    void damagedFiles() {
        const auto rom = testRom();
        const auto file = writeUss(minimalUss(rom));
        // No END, a truncated chunk, not a state at all.
        QVERIFY(refusal(std::vector<std::uint8_t>(file.begin(), file.end() - 8), rom).find("END") != std::string::npos);
        QVERIFY(refusal(std::vector<std::uint8_t>(file.begin(), file.begin() + 40), rom) != "");
        QVERIFY(refusal({'F', 'O', 'R', 'M', 0, 0, 0, 0, 0, 0, 0, 0}, rom).find("ASF") != std::string::npos);
        // A damaged zlib stream.
        auto chunks = minimalUss(rom);
        auto bad = writeUss(chunks);
        const auto at = std::search(bad.begin(), bad.end(), std::begin("CRAM"), std::end("CRAM") - 1);
        at[20] ^= 0xFF;
        QVERIFY(refusal(bad, rom) != "");
        // Missing chunks.
        for (const char* name : {"CPU ", "CHIP", "CRAM", "ROM "}) {
            auto c = minimalUss(rom);
            c.erase(find(c, name));
            QVERIFY2(refusal(writeUss(c), rom) != "", name);
        }
    }

    // Random damage to FS-UAE's own file: read, or refused with a StateError that leaves the
    // machine as it was; never a crash, never another exception.
    void randomizedCorruption() {
        const auto original = readFileBytes(SCENE_USS);
        auto m = std::make_unique<Machine>();
        m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        m->powerOn();
        QVERIFY(uss::loadUss(*m, original).pc != 0); // the undamaged file loads
        std::mt19937 rng(20240407);
        int loaded = 0, refused = 0;
        for (int round = 0; round < 400; ++round) {
            auto file = original;
            switch (rng() % 4) {
            case 0: // a few bytes flipped anywhere
                for (unsigned n = 1 + rng() % 8; n; --n) file[rng() % file.size()] ^= std::uint8_t(1 + rng() % 255);
                break;
            case 1: // cut short
                file.resize(rng() % file.size());
                break;
            case 2: { // a chunk size or flags word changed (chunk headers sit at 4-byte boundaries)
                const std::size_t at = (rng() % (file.size() / 4)) * 4;
                for (int i = 0; i < 4 && at + i < file.size(); ++i) file[at + i] = std::uint8_t(rng());
                break;
            }
            default: // the first 4 KiB damaged, where the small chunks are
                for (unsigned n = 1 + rng() % 4; n; --n) file[rng() % std::min<std::size_t>(file.size(), 4096)] ^= 0x80;
                break;
            }
            const std::uint64_t before = m->stateHash();
            try {
                uss::loadUss(*m, file);
                ++loaded;
                for (int i = 0; i < 200 && !m->halted(); ++i) m->stepInstruction();
            } catch (const StateError&) {
                ++refused;
                QCOMPARE(m->stateHash(), before);
            }
        }
        qInfo("randomized corruption: %d loaded, %d refused", loaded, refused);
        QVERIFY(refused > 0);
    }
};

QTEST_GUILESS_MAIN(TestUss)
#include "test_uss.moc"
