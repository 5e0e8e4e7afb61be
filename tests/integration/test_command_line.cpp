// SPDX-License-Identifier: GPL-3.0-or-later
// The command line: every argument checked before a display is opened (exit status 2
// with a message), no file written over unasked, a positional disk or program refused
// with what to type, and ROMs that cannot boot refused; copperline-ctl's tools and
// elf2hunk keep a user's files too.

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Result {
    int status = -1;
    QString err;
};

Result run(const QString& exe, const QStringList& args, bool display = false) {
    QProcess p;
    QStringList env = QProcess::systemEnvironment();
    env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
    if (!display) {
        // Where there is no display at all: Qt must never be asked to open one.
        env.removeIf([](const QString& v) {
            return v.startsWith("DISPLAY=") || v.startsWith("WAYLAND_DISPLAY=") ||
                   v.startsWith("QT_QPA_PLATFORM=");
        });
    }
    p.setEnvironment(env);
    p.start(exe, args);
    Result r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

Result copperline(const QStringList& args) {
    return run(COPPERLINE_EXE, QStringList{"--factory", "--noaudio"} + args);
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

} // namespace

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void badArgumentsExitTwoWithoutADisplay() {
        const Result bogus = run(COPPERLINE_EXE, {"--bogus"});
        QCOMPARE(bogus.status, 2);
        QVERIFY2(bogus.err.contains("Unknown option 'bogus'"), qPrintable(bogus.err));
        const Result missing = run(COPPERLINE_EXE, {"--rom"});
        QCOMPARE(missing.status, 2);
        QVERIFY2(missing.err.contains("Missing value after '--rom'"), qPrintable(missing.err));
        for (const char* bad : {"abc", "-5", "inf"}) {
            const Result r = copperline({"--seconds", bad});
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.contains(QString("--seconds wants a number of emulated seconds (0 or "
                                            "more), not '%1'")
                                        .arg(bad)),
                     qPrintable(r.err));
        }
        const Result shot = copperline({"--screenshot-after", "soon", "x.png"});
        QCOMPARE(shot.status, 2);
        QVERIFY2(shot.err.contains("--screenshot-after wants seconds"), qPrintable(shot.err));
        const Result info = copperline({"--control-info", "x.json"});
        QCOMPARE(info.status, 2);
        QVERIFY2(info.err.contains("--control-info needs --control"), qPrintable(info.err));
        // The GDB stub's options: an address that is one, one stub, no second controller.
        const struct {
            QStringList args;
            const char* message;
        } gdbCases[] = {
            {{"--gdb", "70000"}, "--gdb: \"70000\" is no [HOST:]PORT"},
            {{"--gdb", "localhost:"}, "is no [HOST:]PORT"},
            {{"--gdb", "nowhere:2345"}, "\"nowhere\" is no IP address"},
            {{"--gdb", "2345", "--gdb-gui", "2346"}, "give --gdb (headless) or --gdb-gui (the window), not both"},
            {{"--gdb", "2345", "--control", "x"}, "--gdb serves gdb; it does not combine with --control"},
            {{"--gdb-dialect", "bartman"}, "--gdb-dialect goes with --gdb or --gdb-gui"},
            {{"--gdb", "2345", "--gdb-dialect", "lldb"}, "--gdb-dialect wants standard or bartman, not 'lldb'"},
        };
        for (const auto& c : gdbCases) {
            const Result r = copperline(c.args);
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.contains(c.message), qPrintable(c.args.join(' ') + ": " + r.err));
        }
    }

    void aPositionalDiskOrProgramIsRefusedWithWhatToType() {
        QTemporaryDir tmp;
        const QString adf = tmp.filePath("game.adf");
        const QByteArray disk(901120, '\x5A');
        writeAll(adf, disk);
        const Result r = copperline({"--screenshot-after", "1", adf});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("is a disk image; to insert it, type: copperline --floppy0 " + adf),
                 qPrintable(r.err));
        QCOMPARE(readAll(adf), disk);

        const QString prog = tmp.filePath("prog");
        writeAll(prog, QByteArray("\0\0\x03\xF3\0\0\0\0", 8));
        const Result p = copperline({"--screenshot-after", "1", prog});
        QCOMPARE(p.status, 2);
        QVERIFY2(p.err.contains("is an AmigaOS program; to run it, type: copperline --run " + prog),
                 qPrintable(p.err));
    }

    void anExistingScreenshotNeedsForce() {
        QTemporaryDir tmp;
        const QString png = tmp.filePath("shot.png");
        writeAll(png, "not yet a picture");
        const Result r = copperline({"--screenshot-after", "0.5", png});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("shot.png exists; --force writes over it"), qPrintable(r.err));
        QCOMPARE(readAll(png), QByteArray("not yet a picture"));
        const Result forced = copperline({"--force", "--screenshot-after", "0.5", png});
        QCOMPARE(forced.status, 0);
        QVERIFY(readAll(png).startsWith("\x89PNG"));
    }

    void romsThatCannotBootAreRefused() {
        const QString rom = COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin";
        const Result alone = copperline({"--rom", rom, "--seconds", "1"});
        QCOMPARE(alone.status, 2);
        QVERIFY2(alone.err.contains("does not boot without its extension ROM: add --ext-rom FILE"),
                 qPrintable(alone.err));
        QTemporaryDir tmp;
        const QString half = tmp.filePath("half.rom");
        writeAll(half, readAll(rom).left(256 * 1024));
        const Result cut = copperline({"--rom", half, "--seconds", "1"});
        QCOMPARE(cut.status, 2);
        QVERIFY2(cut.err.contains("a truncated or damaged image"), qPrintable(cut.err));
    }

    // exe2adf --out, size-report --out and elf2hunk -o write over nothing without --force.
    void toolsKeepExistingFiles() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("taken");
        writeAll(out, "keep me");
        const Result adf = run(COPPERLINE_CTL_EXE, {"exe2adf", GUEST_HELLO, "--out", out});
        QCOMPARE(adf.status, 1);
        QVERIFY2(adf.err.contains("taken exists; --force writes over it"), qPrintable(adf.err));
        const Result size = run(COPPERLINE_CTL_EXE, {"size-report", GUEST_HELLO, "--out", out});
        QCOMPARE(size.status, 1);
        QVERIFY2(size.err.contains("taken exists; --force writes over it"), qPrintable(size.err));
        const Result hunk = run(ELF2HUNK_EXE, {GUEST_HELLO_ELF, "-o", out});
        QCOMPARE(hunk.status, 1);
        QVERIFY2(hunk.err.contains("taken exists; --force writes over it"), qPrintable(hunk.err));
        QCOMPARE(readAll(out), QByteArray("keep me"));
        QCOMPARE(run(COPPERLINE_CTL_EXE, {"exe2adf", GUEST_HELLO, "--out", out, "--force"}).status,
                 0);
        QCOMPARE(readAll(out).size(), 901120);
        QCOMPARE(run(ELF2HUNK_EXE, {GUEST_HELLO_ELF, "-o", out, "--force"}).status, 0);
        QCOMPARE(readAll(out), readAll(GUEST_HELLO));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "test_command_line.moc"
