// SPDX-License-Identifier: GPL-3.0-or-later
// A capture survives its emulator: `copperline --run PROG --profile DIR` with precise
// samples and their registers, slot records, the memory baseline and the system sampler,
// killed with SIGKILL at seeded pseudo-random moments (when profile.jsonl reaches a random
// size, or after a random number of frames and a random pause), dozens of times. Each
// folder converts with every converter of a capture folder: `profile-report` to a
// .cpuprofile, to vscode-amiga-debug's .amigaprofile, and its tables from the precise
// samples and from sampler.bin (the .amigaprofile for every fifth). Each says it used exactly the whole frame records on disk,
// and says in one short line what was cut, without the cut bytes. The emulator runs with
// slow_capture_writes preloaded, so that the kills land inside a record often; at least
// one must have cut profile.jsonl inside a line.

#include "tests/tools/run_process.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <csignal>
#include <random>
#include <sys/types.h>

namespace {

constexpr int kKills = 30;
// The .amigaprofile replays memory and takes longest: every fifth folder.
constexpr int kBartmanEvery = 5;
constexpr unsigned kSeed = 20240601;

using copperline::testing::ProcessResult;

ProcessResult ctl(const QStringList& args) {
    return copperline::testing::runProcess(COPPERLINE_CTL, args, 120000);
}

// The frame records profile.jsonl holds whole (each ends with its newline), and whether
// it ends inside one.
struct OnDisk {
    int wholeFrames = 0;
    bool cutInsideLine = false;
    qint64 size = 0;
};

OnDisk onDisk(const QString& dir) {
    QFile f(dir + "/profile.jsonl");
    OnDisk d;
    if (!f.open(QIODevice::ReadOnly)) return d;
    const QByteArray all = f.readAll();
    d.size = all.size();
    d.cutInsideLine = !all.isEmpty() && !all.endsWith('\n');
    qsizetype at = 0;
    for (qsizetype nl = all.indexOf('\n'); nl >= 0; nl = all.indexOf('\n', at)) {
        if (!all.mid(at, nl - at).startsWith("{\"marker\"")) ++d.wholeFrames;
        at = nl + 1;
    }
    return d;
}

int newlines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return 0;
    return int(f.readAll().count('\n'));
}

// The number in "DIR: N frame(s)" of a converter's report.
int framesReported(const QByteArray& out, const QString& dir) {
    const QRegularExpression re(QRegularExpression::escape(dir) + R"(: (\d+) frame\(s\))");
    const auto m = re.match(QString::fromUtf8(out));
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

} // namespace

class TestCaptureKilled : public QObject {
    Q_OBJECT

private slots:
    void killedCapturesConvertTheirWholeFrames() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::mt19937 random(kSeed);
        int cutLines = 0, cutBeforeProfileJson = 0;
        for (int kill = 0; kill < kKills; ++kill) {
            const QString dir = tmp.filePath(QString("kill-%1").arg(kill));
            QProcess p;
            QStringList env = QProcess::systemEnvironment();
            env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR << "LD_PRELOAD=" SLOW_CAPTURE_WRITES;
            p.setEnvironment(env);
            p.setStandardOutputFile(QProcess::nullDevice());
            p.setStandardErrorFile(QProcess::nullDevice());
            p.start(COPPERLINE_EXE,
                    {"--factory", "--noaudio", "--fast", "0", "--run", GUEST_FOREVER, "--profile", dir,
                     "--profile-options",
                     R"({"slots": true, "memory": true, "registers": true, "sampler": {"hz": 2000}})"});
            QVERIFY(p.waitForStarted());
            // Half the kills when profile.jsonl reaches a random size, half after a random
            // number of whole frames and a random pause; never before the first whole frame.
            const bool bySize = kill % 2 == 0;
            const qint64 size = std::uniform_int_distribution<qint64>(1, 40'000)(random);
            const int frames = std::uniform_int_distribution<int>(1, 5)(random);
            const int pauseMs = std::uniform_int_distribution<int>(0, 15)(random);
            const QString jsonl = dir + "/profile.jsonl";
            // The size counts from the end of the first whole record (the first, with the
            // program's start, is the longest).
            bool ready = false;
            qint64 first = -1;
            for (int spin = 0; spin < 60000 && p.state() == QProcess::Running; ++spin) {
                const qint64 now = QFileInfo(jsonl).size();
                if (first < 0 && now > 0 && newlines(jsonl) >= 1) first = now;
                if (first >= 0 && (bySize ? now >= first + size : newlines(jsonl) >= frames)) {
                    ready = true;
                    break;
                }
                QThread::usleep(200);
            }
            QVERIFY2(ready, qPrintable(dir + ": the capture never wrote its frames"));
            if (!bySize) QThread::msleep(unsigned(pauseMs));
            ::kill(pid_t(p.processId()), SIGKILL);
            QVERIFY(p.waitForFinished());
            QCOMPARE(p.exitStatus(), QProcess::CrashExit);

            const OnDisk disk = onDisk(dir);
            QVERIFY(disk.wholeFrames >= 1);
            if (disk.cutInsideLine) ++cutLines;
            qInfo("kill %d (%s): %lld bytes, %d whole frames%s", kill, bySize ? "by size" : "by frames",
                  static_cast<long long>(disk.size), disk.wholeFrames, disk.cutInsideLine ? ", cut inside a line" : "");
            // The summary is there from the start, and says the capture did not finish.
            QFile summary(dir + "/profile.json");
            QVERIFY(summary.open(QIODevice::ReadOnly));
            const QByteArray summaryText = summary.readAll();
            if (!summaryText.contains("\"state\": \"recording\"")) ++cutBeforeProfileJson;
            QVERIFY2(summaryText.contains("\"state\": \"recording\""), qPrintable(dir));
            const QString what = QString("%1 (%2 bytes of profile.jsonl, %3 whole frames%4)")
                                     .arg(dir)
                                     .arg(disk.size)
                                     .arg(disk.wholeFrames)
                                     .arg(disk.cutInsideLine ? ", cut inside a line" : "");

            const auto checkNote = [&](const ProcessResult& r) {
                // One short line about the capture, none of the cut bytes.
                const QByteArray note = "the capture did not finish: " + QByteArray::number(disk.wholeFrames) +
                                        " whole frame(s)";
                QVERIFY2(r.err.contains(note), qPrintable(what + ": " + r.err));
                if (disk.cutInsideLine) QVERIFY2(r.err.contains("profile.jsonl: cut at byte"), r.err.constData());
                QVERIFY2(r.err.size() < 2000, qPrintable(what + ": " + r.err.left(300)));
                QVERIFY2(!r.err.contains("\"grids\"") && !r.err.contains("\"owner_cck\""), qPrintable(what));
            };
            const ProcessResult cpu =
                ctl({"profile-report", dir, "--program", GUEST_FOREVER, "--out", dir + "/forever.cpuprofile"});
            QVERIFY2(cpu.status == 0, qPrintable(what + ": " + cpu.err));
            QCOMPARE(framesReported(cpu.out, dir), disk.wholeFrames);
            checkNote(cpu);
            const ProcessResult samples = ctl({"profile-report", dir, "--format", "table", "--from", "samples"});
            QVERIFY2(samples.status == 0, qPrintable(what + ": " + samples.err));
            QCOMPARE(framesReported(samples.out, dir), disk.wholeFrames);
            checkNote(samples);
            const ProcessResult sampler = ctl({"profile-report", dir, "--format", "table", "--from", "sampler"});
            QVERIFY2(sampler.status == 0, qPrintable(what + ": " + sampler.err));
            QCOMPARE(framesReported(sampler.out, dir), disk.wholeFrames);
            checkNote(sampler);
            if (kill % kBartmanEvery == 0) {
                const ProcessResult bartman = ctl({"profile-report", dir, "--format", "bartman", "--program",
                                                   GUEST_FOREVER, "--out", dir + "/forever.amigaprofile"});
                QVERIFY2(bartman.status == 0, qPrintable(what + ": " + bartman.err));
                QCOMPARE(framesReported(bartman.out, dir), disk.wholeFrames);
                checkNote(bartman);
            }
            // The converters' own files are whole and the capture's are as the kill left them.
            QVERIFY(QFileInfo(dir + "/forever.cpuprofile").size() > 0);
            QCOMPARE(onDisk(dir).size, disk.size);
            QDir(dir).removeRecursively(); // the slot files are 1.7 MB a frame
        }
        qInfo("%d kills, %d cut profile.jsonl inside a record", kKills, cutLines);
        QCOMPARE(cutBeforeProfileJson, 0);
        QVERIFY2(cutLines >= 1, "no kill landed inside a profile.jsonl record");
    }
};

QTEST_GUILESS_MAIN(TestCaptureKilled)
#include "test_capture_killed.moc"
