// SPDX-License-Identifier: GPL-3.0-or-later
// The system sampler's proof, end to end on the AROS ROM: `copperline --run profspin
// --profile DIR` with "sampler": {"hz": 1000} for about twenty emulated seconds, then
// `copperline-ctl profile-report DIR --program profspin --contain RANGES` with the ranges
// profspin printed:
// - containment and proportionality pass (every kernel sample on one of its instructions,
//   each kernel's share of the samples within one percentage point of its measured time);
// - the same run with the PC read two bytes off ("fault": "pc+2") fails it;
// - the folded stacks and the trace open in speedscope (headless Chromium), whose top
//   function is kernel a's, and the table prints the shares;
// - a program of another build is refused by name;
// - two programs of ours competing on AROS (twotask, and twotask_hi at a higher priority
//   waiting on a timer), profiled with the sampler and the precise samples in one run: the
//   folded stacks split the samples by task, the library they load from disk is named by
//   its jump table, the idle share is the time the CPU spent in STOP with SR $2000, and the
//   statistical shares agree with the exact ones within their binomial error.

#include "tests/tools/run_process.h"
#include "tests/tools/viewer_checks.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline::testing;

namespace {

QStringList emulatorArgs(const QStringList& more) {
    return QStringList{"--factory", "--noaudio",
                       "--rom",     COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin",
                       "--ext-rom", COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"} +
           more;
}

// Runs profspin under the sampler into DIR; its kernel lines go to RANGES.
ProcessResult profile(const QString& dir, const QString& ranges, const QString& sampler) {
    const ProcessResult r = runProcess(
        COPPERLINE_EXE,
        emulatorArgs({"--run", GUEST_PROFSPIN, "--timeout", "120", "--profile", dir, "--profile-frames",
                      "3000", "--profile-options", "{\"samples\": false, \"sampler\": " + sampler + "}"}));
    QFile out(ranges);
    if (out.open(QIODevice::WriteOnly)) out.write(r.out);
    return r;
}

ProcessResult ctl(const QStringList& args) { return runProcess(COPPERLINE_CTL, args); }

} // namespace

class TestSamplerRun : public QObject {
    Q_OBJECT
private slots:
    void proofPassesAndTheWrongReadingFails();
    void twoTasksSplitAndAgreeWithThePreciseSamples();
};

void TestSamplerRun::proofPassesAndTheWrongReadingFails() {
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("spin"), ranges = tmp.filePath("spin.ranges");
    const ProcessResult run = profile(dir, ranges, "{\"hz\": 1000}");
    QVERIFY2(run.status == 0, run.err.constData());
    QVERIFY2(run.out.count("kernel ") == 4, run.out.constData());

    const ProcessResult proof = ctl({"profile-report", dir, "--program", GUEST_PROFSPIN, "--contain", ranges});
    QVERIFY2(proof.status == 0, (proof.out + proof.err).constData());
    QVERIFY2(proof.out.contains("containment and proportionality: 0 failures, PASS"), proof.out.constData());
    // About twenty emulated seconds at 1 kHz: tens of thousands of samples in the kernels.
    QRegularExpression count("kernel a \\$[0-9A-F]+-\\$[0-9A-F]+: (\\d+) samples");
    const auto m = count.match(QString::fromUtf8(proof.out));
    QVERIFY2(m.hasMatch() && m.captured(1).toULongLong() > 5000, proof.out.constData());

    // The wrong reading: every PC two bytes off.
    const QString bad = tmp.filePath("bad"), badRanges = tmp.filePath("bad.ranges");
    const ProcessResult badRun = profile(bad, badRanges, "{\"hz\": 1000, \"fault\": \"pc+2\"}");
    QVERIFY2(badRun.status == 0, badRun.err.constData());
    const ProcessResult badProof =
        ctl({"profile-report", bad, "--program", GUEST_PROFSPIN, "--contain", badRanges});
    QCOMPARE(badProof.status, 1);
    QVERIFY2(badProof.out.contains("FAIL") && !badProof.out.contains(" 0 failures"), badProof.out.constData());

    // Folded stacks, the trace and the table.
    const QString folded = tmp.filePath("spin.folded"), trace = tmp.filePath("spin.trace.json");
    const ProcessResult f = ctl({"profile-report", dir, "--program", GUEST_PROFSPIN, "--format", "folded",
                                 "--out", folded});
    QVERIFY2(f.status == 0, f.err.constData());
    QFile ff(folded);
    QVERIFY(ff.open(QIODevice::ReadOnly));
    const QByteArray text = ff.readAll();
    QVERIFY2(text.contains(";user;profspin;"), text.left(2000).constData());
    const ProcessResult t = ctl({"profile-report", dir, "--program", GUEST_PROFSPIN, "--format", "trace",
                                 "--out", trace});
    QVERIFY2(t.status == 0, t.err.constData());
    const ProcessResult table = ctl({"profile-report", dir, "--program", GUEST_PROFSPIN, "--format", "table"});
    QVERIFY2(table.status == 0, table.err.constData());
    QVERIFY2(table.out.contains("samples at 1000 Hz") && table.out.contains("profspin"), table.out.constData());
    for (const QString& file : {folded, trace}) {
        const viewer_checks::Sandwich s = viewer_checks::speedscopeSandwich(file, QFileInfo(file).fileName());
        QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
        QVERIFY2(s.rows.front().name.startsWith("profspin_a"), qPrintable(s.rows.front().name));
    }

    // Another build: the hello program is refused by name, not used to name profspin's code.
    const ProcessResult other = ctl({"profile-report", dir, "--program", GUEST_HELLO, "--format", "table"});
    QVERIFY(other.status != 0);
    QVERIFY2(other.err.contains("is not the program the capture profiled"), other.err.constData());
}

namespace {

// "name COUNT" lines of a folded file: the counts whose stack starts with `task;`.
std::map<QString, qulonglong> foldedByTask(const QByteArray& text) {
    std::map<QString, qulonglong> out;
    for (const QByteArray& line : text.split('\n')) {
        const int space = line.lastIndexOf(' ');
        if (space < 0) continue;
        const QString stack = QString::fromUtf8(line.left(space));
        out[stack.section(';', 0, 0)] += line.mid(space + 1).toULongLong();
    }
    return out;
}

double percentAfter(const QByteArray& table, const QString& label) {
    const QRegularExpression re(QRegularExpression::escape(label) + "\\s+([0-9.]+)%");
    const auto m = re.match(QString::fromUtf8(table));
    return m.hasMatch() ? m.captured(1).toDouble() : -1;
}

} // namespace

void TestSamplerRun::twoTasksSplitAndAgreeWithThePreciseSamples() {
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("two");
    const ProcessResult run = runProcess(
        COPPERLINE_EXE,
        emulatorArgs({"--run", GUEST_TWOTASK, "--run-file", GUEST_TWOTASK_HI, "--run-file", GUEST_SPIN_LIBRARY,
                      "--timeout", "120", "--profile", dir, "--profile-frames", "1000", "--profile-options",
                      "{\"sampler\": {\"hz\": 2000}}"}));
    QVERIFY2(run.status == 0, (run.out + run.err).constData());
    QVERIFY2(run.out.contains("twotask: library $"), run.out.constData());

    // Both reports, statistical and exact, split the time by task the same way.
    QMap<QString, std::map<QString, qulonglong>> byTask;
    for (const QString from : {"sampler", "samples"}) {
        const QString folded = tmp.filePath(from + ".folded");
        const ProcessResult f = ctl({"profile-report", dir, "--program", GUEST_TWOTASK, "--from", from, "--format",
                                     "folded", "--out", folded});
        QVERIFY2(f.status == 0, (f.out + f.err).constData());
        QFile ff(folded);
        QVERIFY(ff.open(QIODevice::ReadOnly));
        const QByteArray text = ff.readAll();
        byTask[from] = foldedByTask(text);
        // The library loaded from disk, named by its jump table, in both tasks.
        QVERIFY2(text.contains("twotask.hi;user;spin.library;"), text.constData());
        QVERIFY2(QRegularExpression("\\n[^;\\n]+;user;spin\\.library;").match(QString::fromUtf8(text)).hasMatch() &&
                     text.contains(";user;twotask;main_work "),
                 text.constData());
    }
    for (const QString from : {"sampler", "samples"}) {
        const auto& t = byTask[from];
        qulonglong all = 0;
        for (const auto& [k, n] : t) all += n;
        // The higher-priority process and the main one each hold a good share of the time.
        QVERIFY2(t.count("twotask.hi") && t.at("twotask.hi") > all / 20, qPrintable(from));
        qulonglong mainTask = 0;
        for (const auto& [k, n] : t)
            if (k != "twotask.hi" && n > mainTask) mainTask = n;
        QVERIFY2(mainTask > all / 5, qPrintable(from));
    }

    // Idle: the exact report's idle share is the time in STOP with SR $2000, which the
    // sampler's share matches within its error; both say so in their tables.
    const ProcessResult exactTable = ctl({"profile-report", dir, "--from", "samples", "--format", "table"});
    const ProcessResult sampledTable = ctl({"profile-report", dir, "--format", "table"});
    QVERIFY2(exactTable.status == 0 && sampledTable.status == 0, (exactTable.err + sampledTable.err).constData());
    const double exactIdle = percentAfter(exactTable.out, "idle (STOP with SR $2000)");
    const double sampledIdle = percentAfter(sampledTable.out, "idle (STOP with SR $2000)");
    QVERIFY2(exactIdle > 5 && exactIdle < 90, exactTable.out.constData());
    QVERIFY2(std::abs(exactIdle - sampledIdle) < 3, (exactTable.out + sampledTable.out).constData());

    // The agreement of every task, context and module share.
    const ProcessResult agree = ctl({"profile-report", dir, "--program", GUEST_TWOTASK, "--agree"});
    QVERIFY2(agree.status == 0, (agree.out + agree.err).constData());
    QVERIFY2(agree.out.contains("agreement with the precise samples: 0 outside 4 sigma, PASS"), agree.out.constData());
    QVERIFY2(agree.out.contains("task twotask.hi:") && agree.out.contains("module spin.library:") &&
                 agree.out.contains("context idle:"),
             agree.out.constData());

    // The exact trace opens in speedscope.
    const QString trace = tmp.filePath("samples.trace.json");
    const ProcessResult t = ctl({"profile-report", dir, "--program", GUEST_TWOTASK, "--from", "samples", "--format",
                                 "trace", "--out", trace});
    QVERIFY2(t.status == 0, t.err.constData());
    const viewer_checks::Sandwich s = viewer_checks::speedscopeSandwich(trace, QFileInfo(trace).fileName());
    QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
}

QTEST_GUILESS_MAIN(TestSamplerRun)
#include "test_sampler_run.moc"
