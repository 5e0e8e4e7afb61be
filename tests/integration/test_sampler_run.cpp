// The system sampler's proof, end to end on the AROS ROM: `copperline --run profspin
// --profile DIR` with "sampler": {"hz": 1000} for about twenty emulated seconds, then
// `copperline-ctl profile-report DIR --program profspin --contain RANGES` with the ranges
// profspin printed:
// - containment and proportionality pass (every kernel sample on one of its instructions,
//   each kernel's share of the samples within one percentage point of its measured time);
// - the same run with the PC read two bytes off ("fault": "pc+2") fails it;
// - the folded stacks and the trace open in speedscope (headless Chromium), whose top
//   function is kernel a's, and the table prints the shares;
// - a program of another build is refused by name.

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

QTEST_GUILESS_MAIN(TestSamplerRun)
#include "test_sampler_run.moc"
