// SPDX-License-Identifier: GPL-3.0-or-later
// A state FS-UAE saved (tests/data/uss/scene.uss: an A500 with the AROS ROM pair, our boot
// block program uss_scene spinning in uss_loop with a picture on screen) loads into
// Copperline and runs on:
//
// - the CPU's registers are the ones FS-UAE saved, and the ones the program set;
// - chip and slow RAM are FS-UAE's, byte for byte, the program's bitplane among them;
// - after the discarded first frame, the next picture is FS-UAE's screenshot in FS-UAE's
//   visible area (the alignment of test_aros_boot.cpp, docs/display.md);
// - the program keeps running (its counter goes up, its PC stays in its loop);
// - `copperline-ctl profile scene.uss --rom ...` captures frames whose samples, named from
//   the program's ELF, are uss_loop's; `--format bartman` writes the binary profile; and
//   `copperline --load-uss` takes the state headless.

#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "emu/state/uss.h"
#include "profiler/capture/screenshot.h"

#include <QDir>
#include <algorithm>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline;

namespace {

constexpr unsigned kFsUaeLeft = 184, kFsUaeTop = 52;
// uss_scene's layout (tests/guest/uss/uss_scene.S, linked at $40000).
constexpr std::uint32_t kBitplane = 0x50000;

std::unique_ptr<Machine> arosMachine() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    return m;
}

std::uint32_t symbol(const char* name) {
    // The program's symbols, from its ELF (nm's output: "ADDRESS TYPE NAME").
    QProcess nm;
    nm.start(M68K_NM, {USS_SCENE_ELF});
    if (!nm.waitForFinished(30000)) return 0;
    for (const QByteArray& line : nm.readAllStandardOutput().split('\n')) {
        const QList<QByteArray> f = line.simplified().split(' ');
        if (f.size() == 3 && f[2] == name) return f[0].toUInt(nullptr, 16);
    }
    return 0;
}

// Pixels of the visible area FS-UAE's "full" buffer and our display share that differ; with a
// name, the differences are written to NAME-diff.png (red) and ours to NAME-ours.png.
long differing(const Image& ours, const Image& ref, const char* name = nullptr) {
    if (ref.height + kFsUaeTop > ours.height || ours.width <= kFsUaeLeft) return long(ref.width) * ref.height;
    // FS-UAE's buffer is 188 colour clocks wide; its last 28 columns lie past the end of our
    // 227-clock line (docs/display.md), outside the visible area both pictures have.
    const unsigned width = std::min(ref.width, ours.width - kFsUaeLeft);
    long mismatches = 0;
    Image diff{ref.width, ref.height, std::vector<std::uint32_t>(ref.pixels.size())};
    for (unsigned y = 0; y < ref.height; ++y)
        for (unsigned x = 0; x < width; ++x) {
            const std::uint32_t mine = ours.at(x + kFsUaeLeft, y + kFsUaeTop);
            const bool same = (mine & 0xFFFFFF) == (ref.at(x, y) & 0xFFFFFF);
            mismatches += !same;
            diff.pixels[std::size_t(y) * ref.width + x] = same ? (ref.at(x, y) & 0xFF3F3F3F) | 0xFF000000 : 0xFFFF0000;
        }
    if (mismatches && name) {
        writePng(QDir::current().absoluteFilePath(QString(name) + "-diff.png").toStdString(), diff);
        writePng(QDir::current().absoluteFilePath(QString(name) + "-ours.png").toStdString(), ours);
    }
    return mismatches;
}

int run(const QString& exe, const QStringList& args, QByteArray* out = nullptr) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(exe, args);
    if (!p.waitForFinished(600000)) return -1;
    const QByteArray text = p.readAll();
    if (out) *out = text;
    if (p.exitCode() != 0) qWarning("%s", text.constData());
    return p.exitCode();
}

} // namespace

class TestUssFsUae : public QObject {
    Q_OBJECT
private slots:
    void registersAndMemoryAreFsUaes() {
        const auto file = readFileBytes(SCENE_USS);
        const uss::State state = uss::readUss(file);
        auto m = arosMachine();
        const uss::LoadResult loaded = uss::loadUss(*m, state);
        QVERIFY(loaded.emulator.find("UAE") != std::string::npos);

        // What FS-UAE saved.
        const m68k::Registers r = m->cpu().registers();
        for (unsigned i = 0; i < 8; ++i) {
            QCOMPARE(r.d[i], state.d[i]);
            QCOMPARE(r.a[i], state.a[i]);
        }
        QCOMPARE(r.sr, state.sr);
        QCOMPARE(m->cpu().instructionAddress(), state.pc);
        QCOMPARE(r.ird, state.ir);
        QCOMPARE(r.irc, state.irc);
        QCOMPARE(r.usp, state.usp);
        QCOMPARE(r.ssp, state.ssp);
        // ... which is what the program set: known values, its counter, its loop.
        const std::uint32_t loop = symbol("uss_loop"), counter = symbol("counter");
        QVERIFY(loop >= 0x40000 && counter > loop);
        QCOMPARE(r.d[0], 0x11111111u);
        QCOMPARE(r.d[6], 0x77777777u);
        QCOMPARE(r.a[4], 0xA4A4A4u);
        QCOMPARE(r.a[6], counter);
        QVERIFY(r.d[7] > 1000);
        QVERIFY(m->cpu().instructionAddress() >= loop && m->cpu().instructionAddress() < loop + 6);

        // Memory: FS-UAE's chip and slow RAM, byte for byte.
        QCOMPARE(m->config().chipRamBytes, std::uint32_t(state.chipRam.size()));
        QVERIFY(std::equal(state.chipRam.begin(), state.chipRam.end(), m->chipRam().data()));
        QCOMPARE(m->slowRam().size(), state.slowRam.size());
        QVERIFY(std::equal(state.slowRam.begin(), state.slowRam.end(), m->slowRam().begin()));
        // The program's bitplane: 16x8 checks.
        QCOMPARE(m->spyWord(kBitplane), std::uint16_t(0xFFFF));
        QCOMPARE(m->spyWord(kBitplane + 2), std::uint16_t(0x0000));
        QCOMPARE(m->spyWord(kBitplane + 8 * 40), std::uint16_t(0x0000));
        QCOMPARE(m->spyWord(kBitplane + 8 * 40 + 2), std::uint16_t(0xFFFF));

        // What it does not restore is said.
        bool drives = false, input = false, rtc = false;
        for (const std::string& s : loaded.notRestored) {
            drives |= s.find("floppy drives") != std::string::npos;
            input |= s.find("input") != std::string::npos;
            rtc |= s.find("real-time clock") != std::string::npos;
        }
        QVERIFY(drives && input && rtc);

        // It runs on: the loop counts.
        const std::uint32_t d7 = r.d[7];
        for (int i = 0; i < 5; ++i) m->runFrame();
        QVERIFY(!m->halted());
        QVERIFY(m->cpu().registers().d[7] > d7 + 10000);
        QVERIFY(m->cpu().instructionAddress() >= loop && m->cpu().instructionAddress() < loop + 6);
        const std::uint32_t count = std::uint32_t(m->spyWord(counter)) << 16 | m->spyWord(counter + 2);
        QVERIFY(count + 1 >= m->cpu().registers().d[7] && count <= m->cpu().registers().d[7]);
    }

    void pictureAfterTheDiscardedFrameIsFsUaes() {
        auto m = arosMachine();
        uss::loadUss(*m, readFileBytes(SCENE_USS));
        m->runFrame(); // the reconstructed frame, discarded
        m->runFrame();
        const Image ours = composeDisplay(*m);
        const Image ref = readPng(SCENE_FSUAE_PNG);
        QCOMPARE(ours.width, 908u);
        const long mismatches = differing(ours, ref, "uss-scene");
        qInfo("%ld of %u pixels of the visible area differ from FS-UAE's", mismatches,
              (ours.width - kFsUaeLeft) * ref.height);
        QCOMPARE(mismatches, 0L);
    }

    void profileNamesTheLoop() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("scene");
        const QString rom = COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin", ext = COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin";
        QCOMPARE(run(COPPERLINE_CTL, {"profile", SCENE_USS, "--rom", rom, "--ext-rom", ext, "--frames", "2", "--out", out}),
                 0);
        QVERIFY(QFile::exists(out + "/profile.json"));
        const QString report = tmp.filePath("scene.cpuprofile");
        QCOMPARE(run(COPPERLINE_CTL, {"profile-report", out, "--elf", USS_SCENE_ELF, "--base", "0x40000", "--out", report}),
                 0);
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject profile = QJsonDocument::fromJson(f.readAll()).object();
        // The node with the most of the frames' time (hitCount: colour clocks) is the
        // program's loop, and the root's one child: all the time is under it.
        QString top;
        int most = -1, rootChildren = -1;
        for (const QJsonValue& n : profile["nodes"].toArray()) {
            const QString name = n["callFrame"].toObject()["functionName"].toString();
            if (name == "(root)") rootChildren = int(n["children"].toArray().size());
            if (n["hitCount"].toInt() > most) {
                most = n["hitCount"].toInt();
                top = name;
            }
        }
        QVERIFY(most > 0);
        QCOMPARE(rootChildren, 1);
        QCOMPARE(top, QStringLiteral("uss_loop"));

        // The same moment as Bartman's binary profile.
        const QString bartman = tmp.filePath("scene.profile");
        QCOMPARE(run(COPPERLINE_CTL, {"profile", SCENE_USS, "--rom", rom, "--ext-rom", ext, "--frames", "2", "--format",
                                      "bartman", "--out", bartman}),
                 0);
        QVERIFY(QFileInfo(bartman).size() > 0);
    }

    void profileWantsTheRom() {
        QTemporaryDir tmp;
        QByteArray text;
        // No --rom: a usage error that says why.
        QCOMPARE(run(COPPERLINE_CTL, {"profile", SCENE_USS, "--out", tmp.filePath("a")}, &text), 2);
        QVERIFY(text.contains("--rom"));
        // Another ROM: refused, naming the ROM the state wants. The extension ROM given as
        // the Kickstart is one the state does not know.
        QFile::copy(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin", tmp.filePath("other.rom"));
        QFile other(tmp.filePath("other.rom"));
        QVERIFY(other.open(QIODevice::ReadWrite));
        other.seek(0x4000);
        other.write("not the same ROM");
        other.close();
        const QString rom = COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin";
        QVERIFY(run(COPPERLINE_CTL, {"profile", SCENE_USS, "--rom", rom, "--ext-rom", tmp.filePath("other.rom"), "--out",
                                     tmp.filePath("b")},
                    &text) != 0);
        QVERIFY2(text.contains("A63586E4") && text.contains("Extended"), text.constData());
    }

    void commandLineRefusals() {
        QByteArray text;
        // --load-uss starts from the state: no program to run beside it.
        QCOMPARE(run(COPPERLINE_EXE, {"--load-uss", SCENE_USS, "--run", SCENE_USS, "--headless"}, &text), 2);
        QVERIFY2(text.contains("--load-uss"), text.constData());
        // Another Kickstart: the refusal names the one the state wants.
        QTemporaryDir tmp;
        QFile::copy(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin", tmp.filePath("other.rom"));
        QFile other(tmp.filePath("other.rom"));
        QVERIFY(other.open(QIODevice::ReadWrite));
        other.seek(0x40000);
        other.write("another ROM");
        other.close();
        QCOMPARE(run(COPPERLINE_EXE, {"--noaudio", "--load-uss", SCENE_USS, "--rom", tmp.filePath("other.rom"), "--ext-rom",
                                      COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin", "--screenshot-after", "0.1",
                                      tmp.filePath("x.png")},
                     &text),
                 2);
        QVERIFY2(text.contains("Kickstart 46.11") && text.contains("3AD2601F"), text.constData());
        QVERIFY(!QFile::exists(tmp.filePath("x.png")));
    }

    void commandLineLoadsTheState() {
        QTemporaryDir tmp;
        const QString shot = tmp.filePath("uss.png");
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        QStringList env = QProcess::systemEnvironment();
        env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
        p.setEnvironment(env);
        p.start(COPPERLINE_EXE, {"--factory", "--noaudio", "--load-uss", SCENE_USS, "--screenshot-after", "0.1", shot});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray text = p.readAll();
        QVERIFY2(p.exitCode() == 0, text.constData());
        QVERIFY2(text.contains("not restored"), text.constData());
        QVERIFY(text.contains("real-time clock"));
        // The picture does not change: the screenshot a few frames on is FS-UAE's too.
        QCOMPARE(differing(readPng(shot.toStdString()), readPng(SCENE_FSUAE_PNG)), 0L);
    }
};

QTEST_GUILESS_MAIN(TestUssFsUae)
#include "test_uss_fsuae.moc"
