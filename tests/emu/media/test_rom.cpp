// SPDX-License-Identifier: GPL-3.0-or-later
// Kickstart ROM images: the AROS ROM loads; what is not a ROM is refused, saying why.

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

using namespace copperline;

namespace {
void expectRefused(std::vector<std::uint8_t> bytes, const char* needle) {
    try {
        romFromBytes(std::move(bytes), "test.rom");
    } catch (const MediaError& e) {
        QVERIFY2(QString(e.what()).contains(needle), e.what());
        return;
    }
    QFAIL(qPrintable(QString("accepted a bad ROM (%1)").arg(needle)));
}
} // namespace

class TestRom : public QObject {
    Q_OBJECT
private slots:
    void arosLoads() {
        const RomImage rom = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin");
        QCOMPARE(rom.bytes.size(), std::size_t(512 * 1024));
        QVERIFY(rom.checksumOk);
        QVERIFY(QString::fromStdString(rom.description).contains("AROS"));
        const RomImage ext = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin");
        QVERIFY(ext.checksumOk);
    }

    void a256KiBImageIsMirrored() {
        std::vector<std::uint8_t> bytes(256 * 1024, 0);
        bytes[0] = 0x11, bytes[1] = 0x11, bytes[2] = 0x4E, bytes[3] = 0xF9;
        bytes[100] = 0xAB;
        // Its size at the end, as a Kickstart's footer has it ($14 bytes before the end).
        bytes[256 * 1024 - 0x14 + 1] = 0x04;
        const RomImage rom = romFromBytes(bytes, "small.rom");
        QCOMPARE(rom.bytes.size(), std::size_t(512 * 1024));
        QCOMPARE(rom.bytes[256 * 1024 + 100], std::uint8_t(0xAB));
        QVERIFY(!rom.checksumOk);
    }

    void refusals() {
        auto good = readFileBytes(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin");
        expectRefused({good.begin(), good.begin() + 1000}, "not a Kickstart ROM size");
        auto notRom = good;
        notRom[0] = 0x7F;
        expectRefused(notRom, "does not start like a Kickstart");
        std::vector<std::uint8_t> cloanto(good.size() + 11, 0);
        std::memcpy(cloanto.data(), "AMIROMTYPE1", 11);
        expectRefused(cloanto, "encrypted");
        QVERIFY_THROWS_EXCEPTION(MediaError, loadRom("/nonexistent/kick.rom"));
    }

    // Half of a 512 KiB image is 256 KiB and starts like a Kickstart, but neither ends with
    // its size nor sums right: a truncated image, refused.
    void halfARomIsRefused() {
        const auto whole = readFileBytes(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin");
        expectRefused({whole.begin(), whole.begin() + 256 * 1024}, "truncated");
        const auto ext = readFileBytes(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin");
        expectRefused({ext.begin(), ext.begin() + 256 * 1024}, "truncated");
    }

    // AROS's main ROM does not boot without its extension; the extension is not a main ROM.
    void arosNeedsItsExtension() {
        const RomImage rom = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin");
        const RomImage ext = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin");
        QVERIFY(needsExtensionRom(rom));
        QVERIFY(!isExtensionRom(rom));
        QVERIFY(isExtensionRom(ext));
        QVERIFY(!needsExtensionRom(ext));
    }
};

QTEST_GUILESS_MAIN(TestRom)
#include "test_rom.moc"
