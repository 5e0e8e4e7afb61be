// SPDX-License-Identifier: GPL-3.0-or-later
// `copperline --run PROG --coverage FILE` end to end on the AROS ROM, with the guest programs
// of tests/guest/coverage (the same C at -O0 and -O2, and assembly):
// - loops run a known number of times give exactly those DA counts, for headers count each
//   pass of their initialization and test runs, a helper inlined twice into one line counts
//   both copies, a function never called has FNDA:0 and its lines DA:n,0, a function entered
//   mid-body counts its most executed instruction;
// - the accounting header adds up, and its total is the CPU's own count of the instructions
//   retired from the program's first instruction to its return (--run-verbose says it);
// - Debian's genhtml renders the file without a warning and `lcov --summary` agrees with the
//   header;
// - the file is rewritten while a program that never returns runs, and a program that never
//   loads leaves the all-zero file that lists every line and function;
// - a program run again after it returned (--run-then), over its freed hunks, is not
//   counted twice;
// - --profile and --coverage together: the capture's precise samples convert to the same
//   line and function counts;
// - the refusals: no --run, an output that exists, one that cannot be written;
// - --run-file puts another program on the run disk, which --run-then runs as ":NAME", and
//   a --run-file whose name is PROG's is refused.

#include "tests/tools/lcov_info.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/tools/run_process.h"
#include <filesystem>
#include <fstream>

using namespace copperline::testing;

namespace {

const std::string kC = COPPERLINE_SOURCE_DIR "/tests/guest/coverage/cov.c";
const std::string kAsm = COPPERLINE_SOURCE_DIR "/tests/guest/coverage/cov_asm.s";

using Result = copperline::testing::ProcessResult;

Result run(const QString& exe, const QStringList& args) { return copperline::testing::runProcess(exe, args); }

QStringList emulatorArgs(const QStringList& more) {
    return QStringList{"--factory", "--noaudio",
                       "--rom",     COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin",
                       "--ext-rom", COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"} +
           more;
}

Result emulate(const QStringList& args) {
    return run(COPPERLINE_EXE, emulatorArgs(args));
}

std::uint32_t line(const std::string& source, const char* tag) {
    const std::uint32_t l = taggedLine(source, tag);
    if (!l) qFatal("%s is not tagged once in %s", tag, source.c_str());
    return l;
}

// What --run-verbose says the CPU retired from the program's first instruction to its return.
unsigned long long cpuRetired(const QByteArray& err) {
    const QRegularExpression re(
        "the CPU retired (\\d+) instruction\\(s\\) from the program's first instruction");
    const auto m = re.match(QString::fromUtf8(err));
    return m.hasMatch() ? m.captured(1).toULongLong() : 0;
}

// The header adds up, and agrees with the records.
void checkHeader(const LcovInfo& info, const std::string& program, unsigned long long retired) {
    LcovHeader h;
    QVERIFY2(parseLcovHeader(info.header, h),
             info.header.empty() ? "no header" : info.header[0].c_str());
    QCOMPARE(h.program, program);
    QCOMPARE(h.total, retired);
    QCOMPARE(h.onLines + h.withoutLine + h.outside, h.total);
    QVERIFY(h.outside > 0); // the ROM's code the program called (OpenLibrary, Write, ...)
    QCOMPARE(h.files, (unsigned long long)info.files.size());
    unsigned long long lines = 0, hit = 0, fns = 0, fnHit = 0;
    for (const auto& [path, f] : info.files) {
        lines += f.lf;
        hit += f.lh;
        fns += f.fnf;
        fnHit += f.fnh;
        QCOMPARE(f.testName, program);
    }
    QCOMPARE(h.lines, lines);
    QCOMPARE(h.linesOf, lines);
    QCOMPARE(h.linesHit, hit);
    QCOMPARE(h.functionsOf, fns);
    QCOMPARE(h.functionsHit, fnHit);
}

// genhtml renders it without a warning; lcov --summary counts what the header says.
void checkLcovTools(const QString& file, const QString& htmlDir, const LcovInfo& info) {
    const QString genhtml = QStandardPaths::findExecutable("genhtml");
    const QString lcov = QStandardPaths::findExecutable("lcov");
    QVERIFY2(!genhtml.isEmpty() && !lcov.isEmpty(),
             "genhtml and lcov are not installed: run scripts/setup.sh");
    const Result g = run(genhtml, {file, "-o", htmlDir});
    QVERIFY2(g.status == 0, g.err.constData());
    const QByteArray all = (g.out + g.err).toLower();
    QVERIFY2(!all.contains("warning") && !all.contains("error"), (g.out + g.err).constData());
    QVERIFY(QFileInfo::exists(htmlDir + "/index.html"));
    LcovHeader h;
    QVERIFY(parseLcovHeader(info.header, h));
    const Result s = run(lcov, {"--summary", file});
    QVERIFY2(s.status == 0, s.err.constData());
    const QString text = QString::fromUtf8(s.out + s.err);
    QVERIFY2(text.contains(QString("(%1 of %2 lines)").arg(h.linesHit).arg(h.lines)),
             qPrintable(text));
    QVERIFY2(text.contains(QString("(%1 of %2 functions)").arg(h.functionsHit).arg(h.functionsOf)),
             qPrintable(text));
}

// Runs PROG with --coverage; the .info read back and --run-verbose's CPU count.
struct Covered {
    Result result;
    LcovInfo info;
    unsigned long long retired = 0;
};

Covered cover(const QString& program, const QString& file, const QStringList& more = {}) {
    Covered c;
    c.result = emulate(QStringList{"--run", program, "--coverage", file, "--run-verbose"} + more);
    c.info = readLcov(file.toStdString());
    c.retired = cpuRetired(c.result.err);
    return c;
}

} // namespace

class TestCoverageRun : public QObject {
    Q_OBJECT

private slots:
    void cAtO0();
    void freedHunksReusedByTheNextCommand();
    void cAtO2();
    void assembly();
    void neverLoadedGivesTheAllZeroFile();
    void rewrittenWhileTheProgramRuns();
    void profileAndCoverageTogether();
    void refusals();
    void runFileRunByRunThen();
};

// The counts of the -O0 program run once (the loops' trip counts are in cov.c).
void checkO0Counts(const Covered& c) {
    const LcovFile* f = c.info.file("tests/guest/coverage/cov.c");
    QVERIFY(f);
    QCOMPARE(f->lines.at(line(kC, "[body]")), 21ull);     // 3 calls x 7 rounds
    QCOMPARE(f->lines.at(line(kC, "[for]")), 27ull);      // 3 x (1 initialization + 8 tests)
    QCOMPARE(f->lines.at(line(kC, "[outer-for]")), 5ull); // 1 + 4
    QCOMPARE(f->lines.at(line(kC, "[calls-inner]")), 3ull);
    QCOMPARE(f->lines.at(line(kC, "[calls-twice]")), 5ull);
    QCOMPARE(f->lines.at(line(kC, "[shared]")), 5ull);
    QCOMPARE(f->lines.at(line(kC, "[helper]")), 10ull); // both inlined copies, 5 calls each
    QCOMPARE(f->lines.at(line(kC, "[guard]")), 1ull);
    QCOMPARE(f->lines.at(line(kC, "[never-call]")), 0ull);
    QCOMPARE(f->lines.at(line(kC, "[never]")), 0ull);
    QCOMPARE(f->functions.at("never_called"), 0ull);
    QCOMPARE(f->functions.at("inner"), 3ull);
    QCOMPARE(f->functions.at("twice"), 5ull);
    QCOMPARE(f->functions.at("main"), 1ull);
    // The startup code ran once, the dos.library stubs it calls once each.
    const LcovFile* start = c.info.file("resources/guest/amiga/startup.S");
    QVERIFY(start);
    QCOMPARE(start->functions.at("_start"), 1ull);
}

// "hunk N at $X" lines of --run-verbose, for PROG or (prefix "--run-then line 1: ") a
// command after it.
std::vector<QString> hunkLines(const QByteArray& err, const QString& prefix) {
    std::vector<QString> bases;
    const QRegularExpression re("copperline: " + QRegularExpression::escape(prefix) +
                                "hunk (\\d+) at \\$([0-9A-F]{6})");
    for (auto it = re.globalMatch(QString::fromUtf8(err)); it.hasNext();) {
        const auto m = it.next();
        bases.push_back(m.captured(1) + "@" + m.captured(2));
    }
    return bases;
}

void TestCoverageRun::cAtO0() {
    QTemporaryDir tmp;
    const QString file = tmp.filePath("O0.info");
    const Covered c = cover(GUEST_COVERAGE_O0, file);
    QVERIFY2(c.result.status == 0, c.result.err.constData());
    QVERIFY2(c.info.error.empty(), c.info.error.c_str());
    QVERIFY2(c.retired > 0, c.result.err.constData());
    checkHeader(c.info, "coverage_c_O0", c.retired);
    checkO0Counts(c);
    if (QTest::currentTestFailed()) return;
    checkLcovTools(file, tmp.filePath("html"), c.info);
}

// The program returns and its hunks are freed; the loader then runs the same program again
// (--run-then), and LoadSeg puts it exactly where the first one was. The second run's
// instructions are not counted: every count is the one run's.
void TestCoverageRun::freedHunksReusedByTheNextCommand() {
    QTemporaryDir tmp;
    const QString file = tmp.filePath("again.info");
    const QString name = QFileInfo(GUEST_COVERAGE_O0).fileName();
    const Covered c = cover(GUEST_COVERAGE_O0, file, {"--run-then", ":" + name});
    QVERIFY2(c.result.status == 0, c.result.err.constData());
    QVERIFY2(c.info.error.empty(), c.info.error.c_str());
    const std::vector<QString> first = hunkLines(c.result.err, ""),
                               second = hunkLines(c.result.err, "--run-then line 1: ");
    QVERIFY2(!first.empty(), c.result.err.constData());
    // The second copy really stands on the first one's freed memory.
    QVERIFY2(first == second, c.result.err.constData());
    // It ran to its end: the run ended when the loader finished, not at a limit.
    QVERIFY2(!c.result.err.contains("did not return"), c.result.err.constData());
    checkHeader(c.info, "coverage_c_O0", c.retired);
    checkO0Counts(c);
}

void TestCoverageRun::cAtO2() {
    QTemporaryDir tmp;
    const QString file = tmp.filePath("O2.info");
    const Covered c = cover(GUEST_COVERAGE_O2, file);
    QVERIFY2(c.result.status == 0, c.result.err.constData());
    QVERIFY2(c.info.error.empty(), c.info.error.c_str());
    checkHeader(c.info, "coverage_c_O2", c.retired);
    const LcovFile* f = c.info.file("tests/guest/coverage/cov.c");
    QVERIFY(f);
    QCOMPARE(f->lines.at(line(kC, "[body]")), 21ull);
    // -O2 rotates the loop: the entry test runs once a call, the increment-and-test at the
    // bottom once a pass (3 x (1 + 7)).
    QCOMPARE(f->lines.at(line(kC, "[for]")), 24ull);
    // The outer loop counts down in a register; its test and branch run once a pass.
    QCOMPARE(f->lines.at(line(kC, "[outer-for]")), 3ull);
    QCOMPARE(f->lines.at(line(kC, "[calls-inner]")), 3ull);
    QCOMPARE(f->lines.at(line(kC, "[calls-twice]")), 5ull);
    // The two inlined copies are interleaved in one run of rows: each copy counts.
    QCOMPARE(f->lines.at(line(kC, "[helper]")), 10ull);
    QCOMPARE(f->lines.at(line(kC, "[guard]")), 1ull);
    QCOMPARE(f->lines.at(line(kC, "[never-call]")), 0ull);
    QCOMPARE(f->lines.at(line(kC, "[never]")), 0ull);
    QCOMPARE(f->functions.at("never_called"), 0ull);
    QCOMPARE(f->functions.at("inner"), 3ull);
    QCOMPARE(f->functions.at("twice"), 5ull);
    QCOMPARE(f->functions.at("main"), 1ull);
    checkLcovTools(file, tmp.filePath("html"), c.info);
}

void TestCoverageRun::assembly() {
    QTemporaryDir tmp;
    const QString file = tmp.filePath("asm.info");
    const Covered c = cover(GUEST_COVERAGE_ASM, file);
    QVERIFY2(c.result.status == 0, c.result.err.constData());
    QVERIFY2(c.info.error.empty(), c.info.error.c_str());
    checkHeader(c.info, "coverage_asm", c.retired);
    const LcovFile* f = c.info.file("tests/guest/coverage/cov_asm.s");
    QVERIFY(f);
    const std::pair<const char*, unsigned long long> expected[] = {
        {"[asm-setup]", 1},      {"[asm-call]", 4},        {"[asm-dbra]", 4},
        {"[asm-mid-call]", 1},   {"[asm-count-setup]", 4}, {"[asm-loop]", 40},
        {"[asm-loop-dbra]", 40}, {"[asm-count-rts]", 4},   {"[asm-never]", 0},
        {"[asm-skipped]", 0},    {"[asm-midway]", 1}};
    for (const auto& [tag, count] : expected) {
        QVERIFY2(f->lines.count(line(kAsm, tag)), tag);
        QCOMPARE(f->lines.at(line(kAsm, tag)), count);
    }
    QCOMPARE(f->functions.at("main"), 1ull);
    QCOMPARE(f->functions.at("count_up"), 4ull);
    QCOMPARE(f->functions.at("unused_routine"), 0ull);
    // Entered only at .Lmidway: its first instruction never ran, its most executed did once.
    QCOMPARE(f->functions.at("entered_midway"), 1ull);
    checkLcovTools(file, tmp.filePath("html"), c.info);
}

void TestCoverageRun::neverLoadedGivesTheAllZeroFile() {
    QTemporaryDir tmp;
    const QString ran = tmp.filePath("ran.info"), never = tmp.filePath("never.info");
    const Covered c = cover(GUEST_COVERAGE_O0, ran);
    QCOMPARE(c.result.status, 0);
    // The boot needs some 20 emulated seconds to load the program: 5 are not enough.
    const Covered z = cover(GUEST_COVERAGE_O0, never, {"--load-timeout", "5"});
    QCOMPARE(z.result.status, 126);
    QVERIFY2(z.result.err.contains("never ran: " + never.toUtf8()), z.result.err.constData());
    QVERIFY2(z.info.error.empty(), z.info.error.c_str());
    // Every line and function of the real run, none hit.
    QCOMPARE(z.info.files.size(), c.info.files.size());
    for (const auto& [path, f] : c.info.files) {
        QVERIFY(z.info.files.count(path));
        const LcovFile& zero = z.info.files.at(path);
        QCOMPARE(zero.lines.size(), f.lines.size());
        QCOMPARE(zero.functions.size(), f.functions.size());
        for (const auto& [l, n] : f.lines)
            QCOMPARE(zero.lines.at(l), 0ull);
        for (const auto& [fn, n] : f.functions)
            QCOMPARE(zero.functions.at(fn), 0ull);
        QCOMPARE(zero.lh, 0ull);
        QCOMPARE(zero.fnh, 0ull);
    }
    LcovHeader h;
    QVERIFY(parseLcovHeader(z.info.header, h));
    QCOMPARE(h.total, 0ull);
    QCOMPARE(h.linesHit, 0ull);
    QCOMPARE(h.lines, c.info.totalLines());
    checkLcovTools(never, tmp.filePath("html"), z.info);
}

void TestCoverageRun::rewrittenWhileTheProgramRuns() {
    // forever.c never returns: the file is rewritten every 250 frames while it runs.
    QTemporaryDir tmp;
    const QString file = tmp.filePath("forever.info");
    QProcess p;
    p.start(COPPERLINE_EXE,
            emulatorArgs({"--run", GUEST_FOREVER, "--coverage", file, "--timeout", "16"}));
    QVERIFY(p.waitForStarted());
    std::vector<unsigned long long> seen; // distinct totals read while the process ran
    QElapsedTimer clock;
    clock.start();
    // waitForFinished(0) after each read: the process was still running when the file was read.
    while (!p.waitForFinished(10) && clock.elapsed() < 240000) {
        const LcovInfo info = readLcov(file.toStdString());
        LcovHeader h;
        // Each read sees a whole file: it is replaced by a rename, never written in place.
        if (info.error.empty() && parseLcovHeader(info.header, h) && !p.waitForFinished(0) &&
            (seen.empty() || seen.back() != h.total)) {
            QCOMPARE(h.onLines + h.withoutLine + h.outside, h.total);
            seen.push_back(h.total);
        }
    }
    QCOMPARE(p.state(), QProcess::NotRunning);
    QCOMPARE(p.exitCode(), 124); // --timeout
    // The all-zero file from the start, then a rewrite every 250 frames (5, 10 and 15 emulated
    // seconds into the program), each with more counted; the last may be the final write.
    QVERIFY2(seen.size() >= 4, qPrintable(QString::number(seen.size())));
    QCOMPARE(seen.front(), 0ull);
    for (std::size_t i = 1; i < seen.size(); ++i)
        QVERIFY(seen[i] > seen[i - 1]);
    // The file at the end has the most.
    const LcovInfo last = readLcov(file.toStdString());
    LcovHeader h;
    QVERIFY(parseLcovHeader(last.header, h));
    QVERIFY(h.total >= seen.back());
    const LcovFile* f = last.file("tests/guest/run/forever.c");
    QVERIFY(f);
    unsigned long long loop = 0;
    for (const auto& [l, n] : f->lines)
        loop = std::max<unsigned long long>(loop, n);
    QVERIFY(loop > 1000000); // the loop ran for some emulated seconds
}

void TestCoverageRun::profileAndCoverageTogether() {
    QTemporaryDir tmp;
    const QString file = tmp.filePath("both.info"), dir = tmp.filePath("capture");
    const Result r = emulate({"--run", GUEST_COVERAGE_O0, "--profile", dir, "--coverage", file});
    QVERIFY2(r.status == 0, r.err.constData());
    QVERIFY(QFileInfo::exists(dir + "/profile.json"));
    const LcovInfo live = readLcov(file.toStdString());
    QVERIFY2(live.error.empty(), live.error.c_str());
    // The capture has no coverage.bin: --format lcov converts its samples' leaf PCs.
    const QString fromSamples = tmp.filePath("samples.info");
    const Result c = run(COPPERLINE_CTL_EXE, {"profile-report", dir, "--program", GUEST_COVERAGE_O0,
                                              "--format", "lcov", "--out", fromSamples});
    QVERIFY2(c.status == 0, c.err.constData());
    QVERIFY(c.out.startsWith("# Copperline guest coverage: coverage_c_O0\n"));
    const LcovInfo sampled = readLcov(fromSamples.toStdString());
    QVERIFY2(sampled.error.empty(), sampled.error.c_str());
    // The program's lines and functions: the same counts both ways. (The capture goes on to
    // the end of the frame the program returned in, so only its outside total is larger.)
    QCOMPARE(sampled.files.size(), live.files.size());
    for (const auto& [path, f] : live.files) {
        QVERIFY(sampled.files.count(path));
        QVERIFY2(sampled.files.at(path).lines == f.lines, path.c_str());
        QVERIFY2(sampled.files.at(path).functions == f.functions, path.c_str());
    }
    LcovHeader a, b;
    QVERIFY(parseLcovHeader(live.header, a) && parseLcovHeader(sampled.header, b));
    QCOMPARE(b.onLines, a.onLines);
    QVERIFY(b.outside > a.outside);
}

void TestCoverageRun::refusals() {
    QTemporaryDir tmp;
    const QString file = tmp.filePath("x.info");
    Result r = emulate({"--coverage", file});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("--coverage FILE needs --run PROG"), r.err.constData());
    r = emulate({"--run", GUEST_HELLO, "--coverage-source-map", "/a=/b"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("--coverage-source-map needs --coverage FILE"), r.err.constData());
    r = emulate({"--run", GUEST_HELLO, "--coverage", file, "--coverage-source-map", "nonsense"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("--coverage-source-map:"), r.err.constData());
    r = emulate({"--run", GUEST_HELLO, "--coverage", "/nonexistent/dir/x.info"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("/nonexistent/dir/x.info: cannot create"), r.err.constData());
    std::ofstream(file.toStdString()) << "mine\n";
    r = emulate({"--run", GUEST_HELLO, "--coverage", file});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("exists; --force writes over it"), r.err.constData());
    // --force writes over it; the source map rewrites the recorded paths.
    r = emulate({"--run", GUEST_HELLO, "--coverage", file, "--force", "--coverage-source-map",
                 QString(COPPERLINE_SOURCE_DIR) + "=/mapped"});
    QCOMPARE(r.status, 5); // hello's own return code
    QCOMPARE(r.out, QByteArray("hello\n"));
    const LcovInfo info = readLcov(file.toStdString());
    QVERIFY2(info.error.empty(), info.error.c_str());
    QVERIFY(info.files.count("/mapped/resources/guest/hello/hello.c"));
    QCOMPARE(info.files.at("/mapped/resources/guest/hello/hello.c").functions.at("main"), 1ull);
}

// hello goes on the disk beside PROG and runs after it; coverage counts only PROG.
void TestCoverageRun::runFileRunByRunThen() {
    QTemporaryDir tmp;
    const QString file = tmp.filePath("runfile.info");
    const QString hello = QFileInfo(GUEST_HELLO).fileName();
    const Covered c =
        cover(GUEST_COVERAGE_O0, file, {"--run-file", GUEST_HELLO, "--run-then", ":" + hello});
    QVERIFY2(c.result.status == 0, c.result.err.constData()); // PROG's, not hello's 5
    QVERIFY2(c.result.out.contains("hello\n"), c.result.out.constData());
    QVERIFY2(!hunkLines(c.result.err, "--run-then line 1: ").empty(), c.result.err.constData());
    QVERIFY2(!c.result.err.contains("could not load"), c.result.err.constData());
    checkO0Counts(c);
    // A name the disk already has: PROG's own.
    const Result r = emulate({"--run", GUEST_HELLO, "--run-file", GUEST_HELLO});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("the name '" + hello.toUtf8() + "' is taken on the run disk by the program"),
             r.err.constData());
}

QTEST_GUILESS_MAIN(TestCoverageRun)
#include "test_coverage_run.moc"
