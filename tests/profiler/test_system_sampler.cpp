// SPDX-License-Identifier: GPL-3.0-or-later
// The system sampler (profiler/sampling/system_sampler.h) and its file (system_samples.h):
// - on an AROS boot, a capture with the sampler leaves the emulated timeline unchanged
//   (state hashes every frame against a machine without it), takes its samples at the exact
//   moments its rate gives (one at a fixed pseudo-random place in each period), and reads
//   ExecBase's task fields and the ROM's modules;
// - the precise sampler of the same capture gives the same attribution exactly (every step
//   weighted by its colour clocks), and the statistical shares agree with it within their
//   binomial error; the idle share is the time the CPU spent in STOP with SR $2000;
// - sampler.bin reads back what was written, and the reader refuses a truncated or
//   corrupt file with a message (a randomized corruption test never crashes it);
// - the attribution: contexts, the ROM's modules by their resident ranges and jump tables;
// - containment and proportionality fail when the PC is read two bytes off.

#include "emu/machine.h"
#include "emu/media/rom.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/capture/frame_capture.h"
#include "profiler/report/system_report.h"
#include "profiler/sampling/sampler.h"
#include "profiler/sampling/system_sampler.h"

#include <QTemporaryDir>
#include <QtTest>
#include <random>
#include <set>

using namespace copperline;

class TestSystemSampler : public QObject {
    Q_OBJECT
private slots:
    void timelineUnchangedAndExactMoments();
    void fileRoundTrip();
    void corruptFilesAreRefused();
    void containmentFailsTwoBytesOff();
};

namespace {

RomImage rom() { return loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"); }
RomImage ext() { return loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"); }

} // namespace

void TestSystemSampler::timelineUnchangedAndExactMoments() {
    Machine plain, sampled;
    const RomImage r = rom(), e = ext();
    for (Machine* m : {&plain, &sampled}) {
        m->setRom(r);
        m->setExtRom(e);
        m->powerOn();
    }
    // Boot to where exec runs its tasks (with no disk, AROS waits for one at 20 s: idle time), then
    // sample at 5 kHz for 200 frames.
    for (int f = 0; f < 1000; ++f) {
        plain.runFrame();
        sampled.runFrame();
    }
    QTemporaryDir tmp;
    SystemSamplerOptions so;
    so.hz = 5000;
    SystemSampler sampler(sampled, so);
    CaptureOptions co;
    co.path = tmp.filePath("cap").toStdString();
    co.frames = 200;
    FrameCapture::Context context;
    context.sidecars.push_back(&sampler);
    Sampler precise(sampled, SamplerOptions{});
    context.sidecars.push_back(&precise);
    const std::uint64_t startCck = sampled.now() / kCyclesPerCck;
    {
        FrameCapture capture(sampled, co, context);
        for (int f = 0; f < 200; ++f) {
            plain.runFrame();
            sampled.runFrame();
            QCOMPARE(sampled.stateHash(), plain.stateHash());
        }
        capture.finish();
    }
    QCOMPARE(sampled.cpuMomentObserver(), nullptr); // let go when the capture ended
    const SystemSampleFile f = readSystemSamples(co.path + "/sampler.bin");
    QCOMPARE(f.header.hz, 5000u);
    QCOMPARE(f.header.cckPerSecond, 3546895u);
    QCOMPARE(f.header.startCck, startCck);
    QVERIFY(f.samples.size() > 3500);
    QVERIFY(f.header.flags & sampler_format::kJitter);
    // Moment k lies in period k, [start + floor((k - 1) * cck-per-second / hz), start +
    // floor(k * cck-per-second / hz)), at a place that varies from period to period.
    std::set<std::uint64_t> offsets;
    for (std::size_t i = 0; i < f.samples.size(); ++i) {
        const std::uint64_t k = i + 1;
        const std::uint64_t begin = startCck + (k - 1) * 3546895 / 5000, end = startCck + k * 3546895 / 5000;
        QVERIFY(f.samples[i].cck >= begin && f.samples[i].cck < end);
        QCOMPARE(f.samples[i].cck, samplerMoment(startCck, k, 3546895, 5000, true));
        offsets.insert(f.samples[i].cck - begin);
    }
    QVERIFY2(offsets.size() > 500, std::to_string(offsets.size()).c_str()); // of 709 places
    // Without jitter, the end of each period.
    for (std::uint64_t k = 1; k < 100; ++k) QCOMPARE(samplerMoment(startCck, k, 3546895, 5000, false), startCck + k * 3546895 / 5000);
    std::uint64_t idle = 0, tasks = 0, rom = 0, noExec = 0;
    for (const SystemSample& s : f.samples) {
        if (s.idle()) ++idle;
        if (s.task && !(s.flags & sampler_format::kNoTask)) ++tasks;
        if (s.pc >= 0xF80000) ++rom;
        if (s.flags & sampler_format::kNoExec) ++noExec;
    }
    QVERIFY2(noExec == 0, (std::to_string(noExec) + " of " + std::to_string(f.samples.size()) +
                           " samples found no ExecBase").c_str());
    QVERIFY(tasks > 0);
    QVERIFY(rom > 0);
    // The modules: exec.library as a resident module in ROM, with its jump table.
    bool execResident = false, execLibrary = false;
    for (const SystemSampleModule& m : f.modules) {
        if (m.name == "exec.library" && m.kind == sampler_format::ModuleKind::Resident) execResident = true;
        if (m.name == "exec.library" && m.kind == sampler_format::ModuleKind::Library && !m.lvos.empty())
            execLibrary = true;
    }
    QVERIFY(execResident);
    QVERIFY(execLibrary);
    const SystemReport report = buildSystemReport(f, nullptr);
    QCOMPARE(report.samples.size(), f.samples.size());
    QCOMPARE(report.idle, idle);
    std::uint64_t idleContext = 0;
    for (const AttributedSample& a : report.samples) {
        if (a.context == "idle") ++idleContext;
        QVERIFY(!a.module.empty());
        QVERIFY(!a.taskName.empty());
    }
    QCOMPARE(idleContext, idle);
    // The vertical blank's level-3 handler is served, and an interrupt's samples are all in
    // supervisor mode (but for its entry, whose SR is the interrupted code's).
    QVERIFY2(report.irq[3] > 0, tableText(report).c_str());
    for (const SystemSample& s : f.samples)
        if (s.irqLevel && !(s.flags & sampler_format::kIrqEntry)) QVERIFY(s.supervisor());
    QVERIFY2(report.modules.count("exec.library"), tableText(report).c_str());
    const std::string folded = foldedText(report);
    QVERIFY(folded.find(";exec.library;") != std::string::npos);
    const nlohmann::json trace = traceJson(report);
    QVERIFY(trace["traceEvents"].size() > 2);

    // The precise samples of the same capture: every colour clock of the 200 frames, each
    // step attributed by the same rules.
    const SystemSampleFile exactFile = preciseSystemSamples(co.path);
    const SystemReport exact = buildSystemReport(exactFile, nullptr);
    QVERIFY(exact.precise);
    std::uint64_t frameCck = 0, stoppedCck = 0;
    const CaptureFiles files = readCapture(co.path);
    for (const nlohmann::json& record : files.frames) frameCck += record.at("samples_cck").get<std::uint64_t>();
    QCOMPARE(exact.total, frameCck);
    for (std::size_t i = 0; i < exactFile.samples.size(); ++i)
        if (exactFile.samples[i].stopped() && exactFile.samples[i].sr == 0x2000) stoppedCck += exactFile.weight(i);
    QCOMPARE(exact.idle, stoppedCck);
    QVERIFY2(exact.irq[3] > 0, tableText(exact).c_str());
    QVERIFY(exact.modules.count("exec.library"));
    QVERIFY(!exact.tasks.empty() && exact.tasks.begin()->first != "[unnamed task]");
    // The statistical shares agree with the exact ones.
    const AgreementResult agreement = checkAgreement(report, exact);
    QVERIFY2(agreement.pass(), agreement.text.c_str());
    QVERIFY(agreement.compared > 5);
    // A wrong exact profile does not: the largest context's time counted half.
    SystemReport wrong = exact;
    auto largest = std::max_element(wrong.contexts.begin(), wrong.contexts.end(),
                                    [](const auto& x, const auto& y) { return x.second < y.second; });
    largest->second /= 2;
    QVERIFY(!checkAgreement(report, wrong).pass());
}

void TestSystemSampler::fileRoundTrip() {
    SystemSamplesHeader h;
    h.hz = 1000;
    h.cckPerSecond = 3546895;
    h.startCck = 123456789012ull;
    h.flags = sampler_format::kFaultPcPlus2;
    std::vector<std::uint8_t> bytes = encodeSamplerHeader(h);
    SystemSampleModule m;
    m.kind = sampler_format::ModuleKind::Library;
    m.name = "foo.library";
    m.start = 0x20000;
    m.end = 0x20400;
    m.base = 0x30000;
    m.lvos = {{-6, 0x20000}, {-30, 0x20300}};
    m.lvoEnds = {0x20100, 0x20400};
    appendModuleRecord(bytes, m);
    // exec.library's jump table into ROM, with no resident module around it.
    SystemSampleModule rom;
    rom.kind = sampler_format::ModuleKind::Library;
    rom.name = "exec.library";
    rom.start = 0xF90000;
    rom.end = 0xFA0100;
    rom.base = 0x676;
    rom.lvos = {{-198, 0xF90000}, {-210, 0xFA0000}};
    rom.lvoEnds = {0xF90040, 0xFA0100};
    appendModuleRecord(bytes, rom);
    appendTaskRecord(bytes, 0x1234, "Shell Process");
    SystemSample s;
    s.cck = 99;
    s.pc = 0xF81234;
    s.sr = 0x2000;
    s.flags = sampler_format::kStopped;
    s.irqLevel = 3;
    s.idNestCnt = 0;
    s.tdNestCnt = -1;
    s.task = 0x1234;
    appendSampleRecord(bytes, s);
    const SystemSampleFile f = parseSystemSamples(bytes);
    QCOMPARE(f.header.startCck, h.startCck);
    QCOMPARE(f.header.flags, h.flags);
    QCOMPARE(f.header.version, sampler_format::kVersion);
    QCOMPARE(f.modules.size(), std::size_t(2));
    QCOMPARE(f.modules[0].name, std::string("foo.library"));
    QCOMPARE(f.modules[0].lvos.size(), std::size_t(2));
    QCOMPARE(f.modules[0].lvos[1].first, -30);
    QCOMPARE(f.modules[0].lvoEnds, (std::vector<std::uint32_t>{0x20100, 0x20400}));
    QCOMPARE(f.samples.size(), std::size_t(1));
    const SystemSample& r = f.samples[0];
    QCOMPARE(r.cck, 99ull);
    QCOMPARE(r.pc, 0xF81234u);
    QCOMPARE(r.irqLevel, std::uint8_t(3));
    QVERIFY(r.disabled());
    QVERIFY(!r.forbidden());
    QVERIFY(r.idle());
    QCOMPARE(f.names.at(f.sampleName.at(0)), std::string("Shell Process"));
    // Attribution of a RAM library by its jump table, and the contexts.
    const SystemReport report = buildSystemReport(f, nullptr);
    QCOMPARE(report.samples[0].context, std::string("idle"));
    SystemSampleFile g = f;
    g.samples[0].pc = 0x20310;
    g.samples[0].flags = 0;
    g.samples[0].sr = 0x0000;
    g.samples[0].irqLevel = 0;
    const SystemReport lib = buildSystemReport(g, nullptr);
    QCOMPARE(lib.samples[0].module, std::string("foo.library"));
    QCOMPARE(lib.samples[0].function, std::string("LVO-30"));
    QCOMPARE(lib.samples[0].context, std::string("disabled"));
    g.samples[0].idNestCnt = -1;
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].context, std::string("user"));
    g.samples[0].pc = 0x20200; // inside the hull, in no entry's function: the module alone
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].module, std::string("foo.library"));
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].function, std::string());
    g.samples[0].pc = 0x20500; // past the hull: nobody's
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].module, std::string("unknown"));
    g.samples[0].pc = 0xFC0000;
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].module, std::string("[Kickstart]"));
    // In ROM, a library's function by its measured extent; between its functions, the
    // ROM alone (not the function below).
    g.samples[0].pc = 0xF90010;
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].module, std::string("exec.library"));
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].function, std::string("AllocMem"));
    g.samples[0].pc = 0xF90800;
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].module, std::string("[Kickstart]"));
    g.samples[0].pc = 0xFA00FE;
    QCOMPARE(buildSystemReport(g, nullptr).samples[0].function, std::string("FreeMem"));
}

void TestSystemSampler::corruptFilesAreRefused() {
    SystemSamplesHeader h;
    h.hz = 1000;
    h.cckPerSecond = 3546895;
    std::vector<std::uint8_t> good = encodeSamplerHeader(h);
    appendTaskRecord(good, 0x1000, "task");
    SystemSample s;
    for (int i = 0; i < 50; ++i) {
        s.cck = std::uint64_t(i) * 100;
        s.task = 0x1000;
        appendSampleRecord(good, s);
    }
    QCOMPARE(parseSystemSamples(good).samples.size(), std::size_t(50));
    const auto refused = [](const std::vector<std::uint8_t>& b) {
        try {
            parseSystemSamples(b);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    QVERIFY(refused({good.begin(), good.begin() + 20}).find("truncated") != std::string::npos);
    QVERIFY(refused({good.begin(), good.end() - 3}).find("truncated") != std::string::npos);
    std::vector<std::uint8_t> bad = good;
    bad[0] = 'X';
    QVERIFY(refused(bad).find("magic") != std::string::npos);
    bad = good;
    bad[4] = 9;
    QVERIFY(refused(bad).find("version") != std::string::npos);
    {
        // A jump-table function that ends where it starts.
        std::vector<std::uint8_t> m = encodeSamplerHeader(h);
        SystemSampleModule lib;
        lib.name = "x.library";
        lib.start = 0x1000;
        lib.end = 0x1100;
        lib.lvos = {{-30, 0x1000}};
        lib.lvoEnds = {0x1000};
        appendModuleRecord(m, lib);
        QVERIFY(refused(m).find("not within 64 KB after its start") != std::string::npos);
        // Version 1 had no function ends: the same record without them still reads.
        lib.lvoEnds = {0x1040};
        std::vector<std::uint8_t> v1 = encodeSamplerHeader(h);
        appendModuleRecord(v1, lib);
        v1.resize(v1.size() - 4);
        v1[4] = 1;
        QVERIFY(refused(v1).empty());
        QVERIFY(parseSystemSamples(v1).modules.at(0).lvoEnds.empty());
        QCOMPARE(parseSystemSamples(v1).modules.at(0).lvos.at(0).second, 0x1000u);
        v1[4] = 3;
        QVERIFY(refused(v1).find("knows versions 1 and 2") != std::string::npos);
        // A stream of modules alone holds no sample.
        SystemSamplesHeader mh = h;
        mh.hz = 0;
        mh.flags = sampler_format::kModulesOnly;
        std::vector<std::uint8_t> only = encodeSamplerHeader(mh);
        QVERIFY(refused(only).empty());
        appendSampleRecord(only, s);
        QVERIFY(refused(only).find("a sample in a stream of modules alone") != std::string::npos);
    }
    bad = good;
    bad[32 + 12] = 7; // a record of no known type
    QVERIFY(refused(bad).find("record type") != std::string::npos);
    // Random damage: a message or a file, never a crash.
    std::mt19937 rng(17);
    for (int round = 0; round < 3000; ++round) {
        std::vector<std::uint8_t> b = good;
        const int flips = 1 + int(rng() % 6);
        for (int k = 0; k < flips; ++k) b[rng() % b.size()] = std::uint8_t(rng());
        if (rng() % 4 == 0) b.resize(rng() % b.size());
        try {
            const SystemSampleFile f = parseSystemSamples(b);
            for (const SystemSample& x : f.samples) QVERIFY(x.irqLevel <= 7);
        } catch (const std::runtime_error&) {
        }
    }
}

void TestSystemSampler::containmentFailsTwoBytesOff() {
    // A kernel of two four-byte instructions at $1000: samples on them pass, two bytes off
    // they all fail.
    const std::vector<std::uint16_t> code = {0xC4FC, 0x1234, 0xC4FC, 0x00F1}; // mulu #imm,d2 x2
    const auto readWord = [&](std::uint32_t a) -> std::uint16_t {
        return a >= 0x1000 && a < 0x1008 ? code[(a - 0x1000) / 2] : 0x4E71;
    };
    const std::vector<KernelRange> kernels = {{"x", 0x1000, 0x1008, 300}, {"y", 0x2000, 0x2004, 100}};
    SystemSampleFile f;
    f.header.hz = 1000;
    f.header.cckPerSecond = 3546895;
    for (int i = 0; i < 300; ++i) {
        SystemSample s;
        s.pc = i % 2 ? 0x1000 : 0x1004;
        f.samples.push_back(s);
    }
    for (int i = 0; i < 100; ++i) {
        SystemSample s;
        s.pc = 0x2000;
        f.samples.push_back(s);
    }
    const ContainResult ok = checkContainment(f, kernels, readWord);
    QVERIFY2(ok.pass(), ok.text.c_str());
    QVERIFY(ok.text.find("0 failures, PASS") != std::string::npos);
    for (SystemSample& s : f.samples) s.pc += 2;
    const ContainResult off = checkContainment(f, kernels, readWord);
    QVERIFY(!off.pass());
    QVERIFY2(off.failures >= 300, off.text.c_str());
    QVERIFY(off.text.find("FAIL") != std::string::npos);
    // Out of proportion: the same samples against other measured times.
    for (SystemSample& s : f.samples) s.pc -= 2;
    const std::vector<KernelRange> skewed = {{"x", 0x1000, 0x1008, 100}, {"y", 0x2000, 0x2004, 100}};
    QVERIFY(!checkContainment(f, skewed, readWord).pass());
    // Malformed ranges are refused with the line.
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, parseKernelRanges("kernel a $1000 zzz 5\n"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, parseKernelRanges("nothing here\n"));
    QCOMPARE(parseKernelRanges("x\nkernel a $001000 $001008 77\n").at(0).lines, 77ull);
}

QTEST_GUILESS_MAIN(TestSystemSampler)
#include "test_system_sampler.moc"
