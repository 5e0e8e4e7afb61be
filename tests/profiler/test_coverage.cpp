// SPDX-License-Identifier: GPL-3.0-or-later
// Guest code coverage in the test's own machine (source document 000, "Guest code coverage"):
// - the counter on the bare-metal build of tests/guest/coverage/cov.c counts exactly the
//   instructions the CPU retired, and the lcov converter turns its counts into the lines'
//   known execution counts (loops, for headers, a helper inlined twice into one line, a
//   function never called), with a header that accounts for every instruction;
// - the emulated timeline is the same with the counter attached (state hashes, every frame
//   of the AROS boot), and the sparse map counts what it can take and reports the rest;
// - a stopped counter counts nothing, even code run again over the counted addresses;
// - coverage from precise samples equals the counter's over the same interval, frame
//   boundaries and interrupts included;
// - coverage.bin round-trips, every malformed file is refused with a message saying what is
//   wrong, random corruption never crashes the reader;
// - copperline-ctl profile-report --format lcov converts a coverage capture, and refuses a
//   program that is not the counted one and an output that exists.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/capture/frame_capture.h"
#include "profiler/coverage/coverage_counter.h"
#include "profiler/coverage/coverage_file.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/lcov.h"
#include "profiler/sampling/sampler.h"
#include "tests/tools/lcov_info.h"
#endif

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/tools/run_process.h"
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

using namespace copperline;
using namespace copperline::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kSource = COPPERLINE_SOURCE_DIR "/tests/guest/coverage/cov.c";

std::uint32_t line(const char* tag) {
    const std::uint32_t l = taggedLine(kSource, tag);
    if (!l) qFatal("%s is not tagged once in %s", tag, kSource.c_str());
    return l;
}

// The code hunks of a program at its link addresses: where the bare-metal load puts them.
CoverageOptions codeRangesOf(const DebugInfo& info) {
    CoverageOptions o;
    o.relocationBases = info.linkBases();
    for (std::size_t h = 0; h < info.hunks().size(); ++h)
        if (info.hunks()[h].kind == HunkKind::Code)
            o.codeRanges.push_back({o.relocationBases[h], info.hunks()[h].size});
    return o;
}

// Runs the bare-metal program until it stops (start.S ends in STOP); the CPU's retired
// instructions meanwhile.
std::uint64_t runToStop(Machine& m) {
    const std::uint64_t before = m.cpu().instructions();
    for (int i = 0; i < 100 && !m.cpu().stopped(); ++i)
        m.runFrame();
    if (!m.cpu().stopped()) qFatal("the bare-metal program did not stop");
    return m.cpu().instructions() - before;
}

std::vector<std::uint8_t> le(std::initializer_list<std::uint32_t> words) {
    std::vector<std::uint8_t> out;
    for (const std::uint32_t w : words)
        for (int i = 0; i < 4; ++i)
            out.push_back(std::uint8_t(w >> (8 * i)));
    return out;
}

// A hand-made file: "CLCV", version, then the words given.
std::vector<std::uint8_t> file(std::initializer_list<std::uint32_t> words,
                               std::uint32_t version = 1, const char* magic = "CLCV") {
    std::vector<std::uint8_t> out(magic, magic + 4);
    const auto v = le({version});
    out.insert(out.end(), v.begin(), v.end());
    const auto rest = le(words);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
}

using Run = copperline::testing::ProcessResult;

Run ctl(const QStringList& args) { return copperline::testing::runProcess(COPPERLINE_CTL_EXE, args, 120000); }

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

class TestCoverage : public QObject {
    Q_OBJECT

private slots:
    void counterCountsWhatTheCpuRetired();
    void lcovGivesTheKnownCounts();
    void timelineUnchangedAndSparseMap();
    void sparseMapOverflowIsReported();
    void stoppedCounterCountsNothing();
    void rangesAreChecked();
    void samplesGiveTheSameCounts();
    void fileRoundTrip();
    void fileRefusals_data();
    void fileRefusals();
    void randomCorruptionNeverCrashes();
    void profileReportConvertsACoverageCapture();
    void programWithoutLineInformation();
};

void TestCoverage::counterCountsWhatTheCpuRetired() {
    const DebugInfo info = DebugInfo::load(COVERAGE_BARE);
    Machine m;
    m.bootBareMetal(readFileBytes(COVERAGE_BARE_BIN));
    CoverageCounter counter(codeRangesOf(info));
    m.attachCpuObserver(&counter, CoverageCounter::kHooks);
    const std::uint64_t retired = runToStop(m);
    m.detachCpuObserver(&counter);
    const CoverageData d = counter.snapshot();
    QVERIFY(retired > 300);
    QCOMPARE(d.total, retired);
    // Everything the bare-metal program runs is its own code: nothing outside the range.
    QCOMPARE(d.outside, 0ull);
    QCOMPARE(d.instructionsInRanges(), retired);
    QVERIFY(d.sparse.empty());
    QCOMPARE(d.ranges.size(), std::size_t(1));
    QCOMPARE(d.ranges[0].base, 0x1000u);
    QCOMPARE(d.ranges[0].counters.size(), std::size_t(coverageWords(info.hunks()[0].size)));
    // The first instruction (start.S's JSR) ran once; extension words are never counted.
    QCOMPARE(d.ranges[0].counters[0], 1u);
    QCOMPARE(d.ranges[0].counters[1], 0u);
    QCOMPARE(d.relocationBases, info.linkBases());
}

void TestCoverage::lcovGivesTheKnownCounts() {
    const DebugInfo info = DebugInfo::load(COVERAGE_BARE);
    Machine m;
    m.bootBareMetal(readFileBytes(COVERAGE_BARE_BIN));
    CoverageCounter counter(codeRangesOf(info));
    m.attachCpuObserver(&counter, CoverageCounter::kHooks);
    const std::uint64_t retired = runToStop(m);
    m.detachCpuObserver(&counter);
    const LcovReport report = buildLcov(counter.snapshot(), info, "coverage_bare");
    const LcovInfo lcov = parseLcov(report.text);
    QVERIFY2(lcov.error.empty(), lcov.error.c_str());
    const LcovFile* c = lcov.file("tests/guest/coverage/cov.c");
    QVERIFY(c);
    QCOMPARE(c->testName, std::string("coverage_bare"));
    // -O0: the loop body ran 3 calls x 7 rounds; the for header's initialization run once a
    // call and its test run 8 times a call (3 x (1 + 8)); the outer for header 1 + 4 passes.
    QCOMPARE(c->lines.at(line("[body]")), 21ull);
    QCOMPARE(c->lines.at(line("[for]")), 27ull);
    QCOMPARE(c->lines.at(line("[outer-for]")), 5ull);
    QCOMPARE(c->lines.at(line("[calls-inner]")), 3ull);
    QCOMPARE(c->lines.at(line("[calls-twice]")), 5ull);
    QCOMPARE(c->lines.at(line("[shared]")), 5ull);
    // The helper is inlined twice into [shared]: its line counts both copies, 5 calls each.
    QCOMPARE(c->lines.at(line("[helper]")), 10ull);
    QCOMPARE(c->lines.at(line("[guard]")), 1ull);
    QCOMPARE(c->lines.at(line("[never-call]")), 0ull);
    QCOMPARE(c->lines.at(line("[never]")), 0ull);
    QCOMPARE(c->functions.at("inner"), 3ull);
    QCOMPARE(c->functions.at("twice"), 5ull);
    QCOMPARE(c->functions.at("guest_main"), 1ull);
    QCOMPARE(c->functions.at("never_called"), 0ull);
    QVERIFY(!c->functions.count("scaled")); // inlined everywhere: no code of its own
    // start.S has line information too: its JSR ran once.
    const LcovFile* start = lcov.file("tests/guest/start.S");
    QVERIFY(start);
    QCOMPARE(start->functions.at("_start"), 1ull);

    // The header accounts for every instruction, and says what the records say.
    const LcovSummary& s = report.summary;
    QCOMPARE(s.total, retired);
    QCOMPARE(s.onLines + s.withoutLine + s.outside, s.total);
    QCOMPARE(s.withoutLine, 0ull);
    QCOMPARE(s.outside, 0ull);
    LcovHeader h;
    QVERIFY2(parseLcovHeader(lcov.header, h), report.text.substr(0, 400).c_str());
    QCOMPARE(h.program, std::string("coverage_bare"));
    QCOMPARE(h.total, retired);
    QCOMPARE(h.onLines, retired);
    QCOMPARE(h.files, std::uint64_t(lcov.files.size()));
    QCOMPARE(h.lines, lcov.totalLines());
    QCOMPARE(h.linesOf, h.lines);
    std::uint64_t hit = 0, fns = 0, fnHit = 0;
    for (const auto& [p, f] : lcov.files) {
        hit += f.lh;
        fns += f.fnf;
        fnHit += f.fnh;
    }
    QCOMPARE(h.linesHit, hit);
    QCOMPARE(h.functionsOf, fns);
    QCOMPARE(h.functionsHit, fnHit);
    QCOMPARE(lcovHeader(s), report.text.substr(0, lcovHeader(s).size()));
}

void TestCoverage::timelineUnchangedAndSparseMap() {
    // Two AROS boots side by side, one counted in the sparse map: the same state every frame.
    const RomImage rom = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin");
    const RomImage ext = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin");
    Machine plain, counted;
    for (Machine* m : {&plain, &counted}) {
        m->setRom(rom);
        m->setExtRom(ext);
        m->powerOn();
    }
    CoverageCounter counter({});
    counted.attachCpuObserver(&counter, CoverageCounter::kHooks);
    const std::uint64_t before = counted.cpu().instructions();
    for (int f = 0; f < 300; ++f) {
        plain.runFrame();
        counted.runFrame();
        QCOMPARE(counted.stateHash(), plain.stateHash());
    }
    const CoverageData d = counter.snapshot();
    QCOMPARE(d.total, counted.cpu().instructions() - before);
    QCOMPARE(d.outside, 0ull);
    QCOMPARE(d.overflow, 0ull);
    QCOMPARE(d.instructionsInSparse(), d.total);
    QVERIFY2(d.sparse.size() > 1000, std::to_string(d.sparse.size()).c_str());
    QVERIFY(std::is_sorted(d.sparse.begin(), d.sparse.end()));
    // The ROM's reset entry ran once, right after power-on.
    const std::uint32_t entry =
        std::uint32_t(rom.bytes[4]) << 24 | rom.bytes[5] << 16 | rom.bytes[6] << 8 | rom.bytes[7];
    const auto it =
        std::lower_bound(d.sparse.begin(), d.sparse.end(), std::make_pair(entry & 0xFFFFFF, 0u));
    QVERIFY(it != d.sparse.end() && it->first == (entry & 0xFFFFFF));
    QCOMPARE(it->second, 1u);
}

void TestCoverage::sparseMapOverflowIsReported() {
    const DebugInfo info = DebugInfo::load(COVERAGE_BARE);
    Machine m;
    m.bootBareMetal(readFileBytes(COVERAGE_BARE_BIN));
    CoverageOptions o;
    o.relocationBases = info.linkBases();
    o.sparseLimit = 16;
    CoverageCounter counter(o);
    m.attachCpuObserver(&counter, CoverageCounter::kHooks);
    const std::uint64_t retired = runToStop(m);
    const CoverageData d = counter.snapshot();
    QCOMPARE(d.sparse.size(), std::size_t(16));
    QVERIFY(d.overflow > 0);
    QCOMPARE(d.outside, d.overflow); // only the overflow is outside: there are no ranges
    QCOMPARE(d.instructionsInSparse() + d.outside, retired);
    QCOMPARE(d.total, retired);
    // The file keeps the sparse entries and the totals; the header says what overflowed.
    const CoverageData back = parseCoverageBin(coverageBinBytes(d));
    QCOMPARE(back.sparse, d.sparse);
    QCOMPARE(back.outside, d.outside);
    const LcovReport r = buildLcov(d, info, "coverage_bare");
    QCOMPARE(r.summary.overflow, d.overflow);
    QCOMPARE(r.summary.onLines + r.summary.withoutLine + r.summary.outside, retired);
    QVERIFY(r.text.find(std::to_string(d.overflow) + " of them at addresses the full sparse map") !=
            std::string::npos);
}

void TestCoverage::stoppedCounterCountsNothing() {
    // The program runs twice at the same addresses, as a command loaded over a program's
    // freed hunks does; the counter stopped after the first run counts only that one.
    const DebugInfo info = DebugInfo::load(COVERAGE_BARE);
    const auto bin = readFileBytes(COVERAGE_BARE_BIN);
    Machine m;
    m.bootBareMetal(bin);
    CoverageCounter counter(codeRangesOf(info));
    m.attachCpuObserver(&counter, CoverageCounter::kHooks);
    const std::uint64_t first = runToStop(m);
    counter.setCounting(false);
    QVERIFY(!counter.counting());
    const CoverageData once = counter.snapshot();
    m.bootBareMetal(bin);
    const std::uint64_t second = runToStop(m);
    QCOMPARE(second, first);
    const CoverageData after = counter.snapshot();
    QCOMPARE(after.total, first);
    QCOMPARE(after.ranges[0].counters, once.ranges[0].counters);
    // Counting again: the same run adds the same counts.
    counter.setCounting(true);
    m.bootBareMetal(bin);
    runToStop(m);
    const CoverageData twice = counter.snapshot();
    QCOMPARE(twice.total, 2 * first);
    for (std::size_t i = 0; i < once.ranges[0].counters.size(); ++i)
        QCOMPARE(twice.ranges[0].counters[i], 2 * once.ranges[0].counters[i]);
}

void TestCoverage::rangesAreChecked() {
    CoverageOptions o;
    o.codeRanges = {{0x1000, 0x100}, {0x10F0, 0x20}};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CoverageCounter{o});
    try {
        CoverageCounter c(o);
    } catch (const std::invalid_argument& e) {
        QVERIFY2(std::strstr(e.what(), "overlaps code range 0"), e.what());
    }
    o.codeRanges = {{0xFFFF00, 0x200}};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CoverageCounter{o});
    // An odd size gets a counter for its last byte; an empty range is allowed.
    o.codeRanges = {{0x2000, 5}, {0x3000, 0}};
    CoverageCounter c(o);
    QCOMPARE(c.snapshot().ranges[0].counters.size(), std::size_t(3));
    // Saturation: the file keeps a saturated counter whose instructions exceed it in the
    // total, and refuses a total above the counts without one.
    CoverageData d;
    d.ranges.push_back({0x4000, 2, {coverage_format::kSaturated}});
    d.total = std::uint64_t(coverage_format::kSaturated) + 10;
    QCOMPARE(parseCoverageBin(coverageBinBytes(d)).total, d.total);
    QCOMPARE(d.saturatedCounters(), 1ull);
    d.ranges[0].counters[0] = coverage_format::kSaturated - 1;
    QVERIFY_THROWS_EXCEPTION(MediaError, parseCoverageBin(coverageBinBytes(d)));
    // The counter masks the PC to the 68000's 24 address lines.
    CoverageOptions one;
    one.codeRanges = {{0x4000, 2}};
    CoverageCounter s(one);
    m68k::RetireInfo r;
    r.pc = 0x4000;
    for (int i = 0; i < 3; ++i)
        s.instructionRetired(r);
    r.pc = 0xFF004000; // the same word
    s.instructionRetired(r);
    QCOMPARE(s.snapshot().ranges[0].counters[0], 4u);
    QCOMPARE(s.total(), 4ull);
}

namespace {

// Precise samples and the counter over the same interval of a machine: the same counts.
// The counter stops where the capture does, at the boundary after its last frame.
void compareWithSamples(Machine& m, const CodeRange& range, const std::string& dir, bool wantIrqs) {
    SamplerOptions so;
    so.codeRanges = {range};
    so.relocationBases = {range.base};
    Sampler sampler(m, so);
    FrameCapture::Context context;
    context.sidecars.push_back(&sampler);
    CaptureOptions co;
    co.path = dir;
    co.frames = 12;
    FrameCapture capture(m, co, std::move(context));
    CoverageOptions o;
    o.codeRanges = {range};
    CoverageCounter counter(o);
    m.attachCpuObserver(&counter, CoverageCounter::kHooks);
    struct StopWithCapture : FrameObserver {
        FrameCapture* capture;
        CoverageCounter* counter;
        void frameCompleted(const FrameStats&) override {
            if (!capture->status().active()) counter->setCounting(false);
        }
    } stopper;
    stopper.capture = &capture;
    stopper.counter = &counter;
    m.attachFrameObserver(&stopper);
    for (int i = 0; i < 20 && capture.status().active(); ++i)
        m.runFrame();
    QVERIFY(!capture.status().active());
    m.detachFrameObserver(&stopper);
    m.detachCpuObserver(&counter);
    const CoverageData live = counter.snapshot();

    const CaptureFiles files = readCapture(dir);
    std::uint64_t retired = 0;
    for (const json& r : files.frames)
        retired += r.value("retired_instructions", 0ull);
    QCOMPARE(retired, live.total); // the capture's own count of the interval
    if (wantIrqs) QVERIFY(files.summary.value("irq_cck", 0ull) > 0);
    std::vector<std::string> warnings;
    const CoverageData fromSamples = coverageFromSamples(files, &warnings);
    QVERIFY2(warnings.empty(), warnings.empty() ? "" : warnings[0].c_str());
    QCOMPARE(fromSamples.total, live.total);
    QCOMPARE(fromSamples.outside, live.outside);
    QCOMPARE(fromSamples.ranges.size(), std::size_t(1));
    QCOMPARE(fromSamples.ranges[0].base, range.base);
    QVERIFY(fromSamples.ranges[0].counters == live.ranges[0].counters);
    QCOMPARE(fromSamples.relocationBases, std::vector<std::uint32_t>{range.base});
    // Without coverage.bin, coverageFromCapture falls back to the samples.
    QVERIFY(coverageFromCapture(files).ranges[0].counters == live.ranges[0].counters);
}

} // namespace

void TestCoverage::samplesGiveTheSameCounts() {
    QTemporaryDir tmp;
    // capture_load, bare metal: a blit a frame and the CPU waiting on the bus.
    {
        const auto bin = readFileBytes(CAPTURE_LOAD_BIN);
        Machine m;
        m.bootBareMetal(bin);
        for (int i = 0; i < 3; ++i)
            m.runFrame();
        compareWithSamples(m, {0x1000, std::uint32_t(bin.size() + 1) & ~1u},
                           tmp.filePath("bare").toStdString(), false);
    }
    // The AROS boot, counting the Kickstart ROM: interrupts, STOP and instructions that
    // frame boundaries split, with code outside the range (RAM, the extension ROM).
    {
        Machine m;
        m.setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        m.setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        m.powerOn();
        for (int i = 0; i < 700; ++i)
            m.runFrame();
        compareWithSamples(m, {0xF80000, 0x80000}, tmp.filePath("aros").toStdString(), true);
    }
}

void TestCoverage::fileRoundTrip() {
    CoverageData d;
    d.ranges.push_back({0x123400, 9, {1, 0, 7, 0, 0xFFFFFFFF}});
    d.ranges.push_back({0x20A000, 4, {3, 4}});
    d.outside = 1000;
    d.total = 1000 + 1 + 7 + 0xFFFFFFFFull + 3 + 4 + 5;
    const auto bytes = coverageBinBytes(d);
    QCOMPARE(std::string(bytes.begin(), bytes.begin() + 4), std::string("CLCV"));
    QCOMPARE(bytes.size(), std::size_t(4 + 4 + 4 + (12 + 5 * 4) + (12 + 2 * 4) + 4 + 16));
    // Little-endian throughout: the version word, then the first range's base.
    QCOMPARE(bytes[4], std::uint8_t(1));
    QCOMPARE(bytes[12], std::uint8_t(0x00));
    QCOMPARE(bytes[13], std::uint8_t(0x34));
    QCOMPARE(bytes[14], std::uint8_t(0x12));
    const CoverageData back = parseCoverageBin(bytes);
    QCOMPARE(back.ranges.size(), std::size_t(2));
    QCOMPARE(back.ranges[0].counters, d.ranges[0].counters);
    QCOMPARE(back.ranges[1].base, 0x20A000u);
    QCOMPARE(back.outside, d.outside);
    QCOMPARE(back.total, d.total);
    QCOMPARE(coverageBinBytes(back), bytes);

    CoverageData s;
    s.sparse = {{0x1000, 2}, {0xF80010, 1}};
    s.outside = 3;
    s.total = 6;
    QCOMPARE(parseCoverageBin(coverageBinBytes(s)).sparse, s.sparse);

    QTemporaryDir tmp;
    const std::string path = tmp.filePath("coverage.bin").toStdString();
    writeCoverageBin(path, d);
    QCOMPARE(readCoverageBin(path).total, d.total);
    QVERIFY_THROWS_EXCEPTION(MediaError, writeCoverageBin(path, s));
    writeCoverageBin(path, s, true);
    QCOMPARE(readCoverageBin(path).sparse, s.sparse);
    QVERIFY(!fs::exists(path + ".tmp"));

    const json j = coverageSummaryJson(d);
    QCOMPARE(j["instructions_in_ranges"].get<std::uint64_t>(), 1 + 7 + 0xFFFFFFFFull + 3 + 4);
    QCOMPARE(j["total"].get<std::uint64_t>(), d.total);
    QCOMPARE(j["outside"].get<std::uint64_t>(), 1000ull);
    QCOMPARE(j["saturated_counters"].get<std::uint64_t>(), 1ull);
    QCOMPARE(j["ranges"][0]["base"].get<std::string>(), std::string("0x123400"));
    QCOMPARE(j["ranges"][0]["addresses_hit"].get<std::uint64_t>(), 3ull);
    QCOMPARE(j["file"].get<std::string>(), std::string("coverage.bin"));
}

void TestCoverage::fileRefusals_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const auto row = [](const char* name, const std::vector<std::uint8_t>& b, const char* message) {
        QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.data()),
                                          qsizetype(b.size()))
                            << QString(message);
    };
    const std::uint32_t none = 0;
    row("empty", {}, "not a coverage file");
    row("magic", file({0, 0, 0, 0, 0, 0}, 1, "CLSM"), "starts with 'CLSM', not 'CLCV'");
    row("version", file({0, 0, 0, 0, 0, 0}, 2), "version 2, but this reader knows version 1");
    row("no range count", file({}), "truncated: range count");
    row("range count too large", file({1000, 0, 0}), "the range count says 1000");
    row("word count", file({1, 0x1000, 8, 3, 1, 1, 1, none, 0, 0, 3, 0}),
        "word count 3 disagrees with its size of 8 bytes (4 words)");
    row("counters truncated", file({1, 0x1000, 8, 4, 1, 1}), "range 0's word count says 4");
    row("past 24 bits", file({1, 0xFFFFFE, 4, 2, 0, 0, none, 0, 0, 0, 0}),
        "leaves the 68000's 24-bit address space");
    row("overlap", file({2, 0x1000, 4, 2, 0, 0, 0x1002, 4, 2, 0, 0, none, 0, 0, 0, 0}),
        "range 1 (0x1002, 4 bytes) overlaps range 0");
    row("no sparse count", file({0}), "truncated: sparse-entry count");
    row("sparse truncated", file({0, 2, 0x1000, 1}), "the sparse-entry count says 2");
    row("sparse odd", file({0, 1, 0x1001, 1, 0, 0, 1, 0}), "0x1001 is no instruction address");
    row("sparse order", file({0, 2, 0x1004, 1, 0x1000, 1, 0, 0, 2, 0}),
        "0x1000 does not follow 0x1004");
    row("sparse in a range", file({1, 0x1000, 4, 2, 0, 0, 1, 0x1002, 1, 0, 0, 1, 0}),
        "0x1002 lies in range 0");
    row("no totals", file({0, 0, 5, 0}), "truncated: total count");
    row("trailing", file({0, 0, 0, 0, 0, 0, 7}), "4 byte(s) after the totals");
    row("more than the total", file({1, 0x1000, 2, 1, 5, 0, 0, 0, 4, 0}),
        "the counts cannot add up: the counters hold 5");
    row("less than the total", file({1, 0x1000, 2, 1, 5, 0, 0, 0, 6, 0}),
        "but the total is 6 (no counter saturated)");
}

void TestCoverage::fileRefusals() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    const std::span<const std::uint8_t> b(reinterpret_cast<const std::uint8_t*>(bytes.constData()),
                                          std::size_t(bytes.size()));
    try {
        parseCoverageBin(b, "test.bin");
        QFAIL("accepted");
    } catch (const MediaError& e) {
        const QString what = QString::fromUtf8(e.what());
        QVERIFY2(what.startsWith("test.bin: ") && what.contains(message) &&
                     what.contains("(at offset "),
                 qPrintable(what));
    }
}

void TestCoverage::randomCorruptionNeverCrashes() {
    CoverageData d;
    d.ranges.push_back({0x1000, 16, {1, 0, 2, 0, 3, 0, 4, 0}});
    d.ranges.push_back({0x8000, 6, {9, 9, 9}});
    d.sparse = {{0xF80000, 5}, {0xF80004, 6}};
    d.outside = 100;
    d.total = 100 + 10 + 27 + 11;
    const auto good = coverageBinBytes(d);
    std::mt19937 rng(20240601);
    unsigned accepted = 0, refused = 0;
    for (int i = 0; i < 20000; ++i) {
        auto b = good;
        switch (rng() % 4) {
        case 0: b[rng() % b.size()] ^= std::uint8_t(1u << (rng() % 8)); break;
        case 1: b[rng() % b.size()] = std::uint8_t(rng()); break;
        case 2: b.resize(rng() % b.size()); break;
        default:
            for (int k = 0; k < 4; ++k)
                b.insert(b.begin() + std::ptrdiff_t(rng() % (b.size() + 1)), std::uint8_t(rng()));
        }
        try {
            const CoverageData back = parseCoverageBin(b);
            // What the reader accepts, it writes back byte for byte.
            QCOMPARE(coverageBinBytes(back), b);
            ++accepted;
        } catch (const MediaError&) {
            ++refused;
        }
    }
    QVERIFY(refused > 15000);
    QCOMPARE(accepted + refused, 20000u);
}

void TestCoverage::profileReportConvertsACoverageCapture() {
    // A coverage capture as profile.stop leaves it: coverage.bin, profile.json's coverage
    // object with the relocation bases, and profile.jsonl.
    const DebugInfo info = DebugInfo::load(COVERAGE_BARE);
    Machine m;
    m.bootBareMetal(readFileBytes(COVERAGE_BARE_BIN));
    CoverageCounter counter(codeRangesOf(info));
    m.attachCpuObserver(&counter, CoverageCounter::kHooks);
    runToStop(m);
    const CoverageData d = counter.snapshot();
    QTemporaryDir tmp;
    const std::string dir = tmp.filePath("cov").toStdString();
    fs::create_directories(dir);
    writeCoverageBin(dir + "/coverage.bin", d);
    std::ofstream(dir + "/profile.json")
        << json{{"version", 1}, {"coverage", coverageSummaryJson(d)}}.dump();
    std::ofstream(dir + "/profile.jsonl").flush();

    const QString qdir = QString::fromStdString(dir);
    Run r = ctl({"profile-report", qdir, "--program", COVERAGE_BARE, "--format", "lcov"});
    QVERIFY2(r.status == 0, r.err.constData());
    const std::string out = dir + "/coverage_bare.info";
    const LcovReport expected = buildLcov(d, info, "coverage_bare");
    QCOMPARE(slurp(out), expected.text);
    // The converter prints the header's summary.
    QVERIFY2(r.out.startsWith(QByteArray::fromStdString(lcovHeader(expected.summary))),
             r.out.constData());
    QVERIFY(r.out.contains("wrote " + QByteArray::fromStdString(out)));

    // It never writes over a file unless told to.
    r = ctl({"profile-report", qdir, "--program", COVERAGE_BARE, "--format", "lcov"});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("exists; --force writes over it"), r.err.constData());
    r = ctl({"profile-report", qdir, "--program", COVERAGE_BARE, "--format", "lcov", "--force",
             "--source-map", QString::fromStdString(std::string(COPPERLINE_SOURCE_DIR)) + "=/src"});
    QCOMPARE(r.status, 0);
    const LcovInfo mapped = readLcov(out);
    QVERIFY2(mapped.error.empty(), mapped.error.c_str());
    QVERIFY(mapped.files.count("/src/tests/guest/coverage/cov.c"));

    // Another program: its hunks do not take the counted relocation bases.
    r = ctl({"profile-report", qdir, "--program", CAPTURE_LOAD, "--format", "lcov", "--out",
             tmp.filePath("x.info")});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("relocation base(s) given for a program of") ||
                 r.err.contains("is not the program that was counted"),
             r.err.constData());
    QVERIFY(!fs::exists(tmp.filePath("x.info").toStdString()));
    // An output that cannot be written, and per-frame files lcov does not have.
    r = ctl({"profile-report", qdir, "--program", COVERAGE_BARE, "--format", "lcov", "--out",
             "/nonexistent/dir/x.info"});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("/nonexistent/dir/x.info: cannot create"), r.err.constData());
    r = ctl(
        {"profile-report", qdir, "--program", COVERAGE_BARE, "--format", "lcov", "--per-frame"});
    QCOMPARE(r.status, 2);
    // A corrupt coverage.bin is named with what is wrong.
    auto bytes = readFileBytes(dir + "/coverage.bin");
    bytes.resize(bytes.size() - 3);
    writeFileBytes(dir + "/coverage.bin", bytes);
    r = ctl({"profile-report", qdir, "--program", COVERAGE_BARE, "--format", "lcov", "--force"});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("coverage.bin: truncated: total count"), r.err.constData());
    // A capture with neither coverage.bin nor samples.
    fs::remove(dir + "/coverage.bin");
    r = ctl({"profile-report", qdir, "--program", COVERAGE_BARE, "--format", "lcov", "--force"});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("has neither coverage.bin nor precise samples"), r.err.constData());
}

void TestCoverage::programWithoutLineInformation() {
    // cov.c built with -g0: symbols, but no line table anywhere, so only the totals remain,
    // every instruction "without line information".
    const DebugInfo info = DebugInfo::load(COVERAGE_NOLINES);
    QVERIFY(info.lineTable().empty());
    QVERIFY(!info.scopes().empty());
    Machine m;
    m.bootBareMetal(readFileBytes(COVERAGE_NOLINES_BIN));
    CoverageCounter counter(codeRangesOf(info));
    m.attachCpuObserver(&counter, CoverageCounter::kHooks);
    const std::uint64_t retired = runToStop(m);
    const LcovReport r = buildLcov(counter.snapshot(), info, "coverage_bare_nolines");
    QCOMPARE(r.summary.total, retired);
    QCOMPARE(r.summary.withoutLine, retired);
    QVERIFY(r.summary.withoutLineAddresses > 20);
    QCOMPARE(r.summary.files, 0ull);
    QCOMPARE(r.text, lcovHeader(r.summary));
    const LcovInfo lcov = parseLcov(r.text);
    QVERIFY2(lcov.error.empty(), lcov.error.c_str());
    LcovHeader h;
    QVERIFY(parseLcovHeader(lcov.header, h));
    QCOMPARE(h.withoutLine, retired);
}

QTEST_GUILESS_MAIN(TestCoverage)
#include "test_coverage.moc"
