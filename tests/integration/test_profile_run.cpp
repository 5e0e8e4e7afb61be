// SPDX-License-Identifier: GPL-3.0-or-later
// The whole profiling loop a user types: `copperline --run PROG --profile DIR`, then
// `copperline-ctl profile-report DIR --program PROG`, on the guest program
// tests/guest/profile/profiled.c, whose loops (burn.s) cost known numbers of cycles.
// - Every colour clock is accounted for: the samples of each frame add up to the frame
//   (from the capture's start in the first), and their instruction, wait, interrupt-entry
//   and stopped parts to the frame's own CPU accounting.
// - The numbers are true: each loop's self time in the report is exactly its cost from the
//   68000 timing tables, called from both phases; its chip-bus waits are the [Bus wait]
//   child, larger where six bitplanes fetch; the static function and the helper inlined
//   into it keep their own names.
// - Real viewers open the merged and a per-frame file with the right top function.

#include "test_control_fixture.h"

#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/report/amigaprofile.h"
#include "profiler/report/cpuprofile.h"
#include "profiler/report/sample_report.h"
#include "profiler/sampling/sample_reader.h"
#include "tests/tools/profile_tree.h"
#include "tests/tools/run_process.h"
#include "tests/tools/viewer_checks.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

using namespace copperline;

namespace {

using Result = copperline::testing::ProcessResult;

Result run(const char* exe, const QStringList& args) { return copperline::testing::runProcess(exe, args); }

// The loops' costs in 68000 cycles (burn.s), as the program calls them (profiled.c).
constexpr std::uint64_t kLoopN = 2000, kMulN = 300;
constexpr std::uint64_t loopCycles(std::uint64_t n) { return 18 * n + 30; }
constexpr std::uint64_t mulCycles(std::uint64_t n) { return 56 * n + 34; }

using copperline::testing::selfByFunction;
using copperline::testing::walkTree;

} // namespace

class TestProfileRun : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString capture_, merged_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        capture_ = tmp_.filePath("capture");
        // With what Bartman's formats need too: slots, memory, registers, pictures.
        const Result r = run(COPPERLINE_EXE, {"--factory", "--noaudio", "--fast", "0", "--run", GUEST_PROFILED, "--profile", capture_, "--profile-options",
                                              R"({"slots": true, "memory": true, "registers": true, "screenshots": "every"})"});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY2(r.err.contains("copperline: profile: "), r.err.constData());
        merged_ = tmp_.filePath("profiled.cpuprofile");
        const Result rep = run(COPPERLINE_CTL, {"profile-report", capture_, "--program", GUEST_PROFILED, "--out", merged_});
        QVERIFY2(rep.status == 0, rep.err.constData());
        QVERIFY2(rep.out.contains("sample(s)"), rep.out.constData());
    }

    void everyColourClockIsAccountedFor() {
        const CaptureFiles c = readCapture(capture_.toStdString());
        QVERIFY(c.summary.is_object());
        QVERIFY(c.summary["sampling"].is_object());
        QCOMPARE(c.summary["samples_dropped"].get<std::uint64_t>(), 0u);
        QVERIFY(!c.frames.empty());
        std::uint64_t interval = 0, sampled = 0, count = 0, irqs = 0;
        for (std::size_t i = 0; i < c.frames.size(); ++i) {
            const auto& r = c.frames[i];
            const auto samples = readSamples((std::filesystem::path(capture_.toStdString()) / r["samples"].get<std::string>()).string(),
                                             (std::filesystem::path(capture_.toStdString()) / r["samples_meta"].get<std::string>()).string(),
                                             true);
            std::uint64_t total = 0, instr = 0, wait = 0, irq = 0, stopped = 0;
            for (const Sample& s : samples) {
                total += s.meta.totalCck;
                wait += s.meta.waitCck;
                if (s.isIrq()) {
                    irq += s.meta.instructionCck;
                    // The A500's interrupts are autovectored: level N takes vector 24 + N.
                    QVERIFY(s.meta.irqLevel >= 1 && s.meta.irqLevel <= 6);
                    QCOMPARE(s.meta.irqVector, 24 + s.meta.irqLevel);
                    ++irqs;
                }
                else if (s.isStopped())
                    stopped += s.meta.instructionCck;
                else
                    instr += s.meta.instructionCck;
            }
            QCOMPARE(total, r["samples_cck"].get<std::uint64_t>());
            QCOMPARE(samples.size(), r["samples_count"].get<std::size_t>());
            const std::uint64_t first = r["first_cck"].get<std::uint64_t>(), length = r["length_cck"].get<std::uint64_t>();
            const std::uint64_t from = r.value("samples_from_cck", first);
            // Only the capture's first frame starts late, where the program's first instruction ran.
            if (i > 0) QCOMPARE(from, first);
            QCOMPARE(total, first + length - from);
            interval += first + length - from;
            sampled += total;
            count += samples.size();
            if (i == 0) continue;
            // A whole frame: the samples' split is the frame's own CPU accounting.
            const auto& cpu = r["cpu"]["cycles"];
            QCOMPARE(2 * instr, cpu["instruction"].get<std::uint64_t>());
            QCOMPARE(2 * wait, cpu["wait"].get<std::uint64_t>());
            QCOMPARE(2 * irq, cpu["irq"].get<std::uint64_t>());
            QCOMPARE(2 * stopped, cpu["stopped"].get<std::uint64_t>());
        }
        QCOMPARE(sampled, interval);
        QVERIFY(irqs > 5); // AROS's vertical blank, at least
        QCOMPARE(c.summary["samples_total"].get<std::uint64_t>(), count);
        // The program's hunks as LoadSeg placed them, and its code as the unwinder's text.
        const auto& sampling = c.summary["sampling"];
        QVERIFY(sampling["relocation_bases"].size() >= 1);
        QCOMPARE(sampling["hunks"].size(), sampling["relocation_bases"].size());
        QVERIFY(sampling["unwind"].is_object());
        QVERIFY(sampling["layouts"]["samples"]["text_relative"].get<bool>());
    }

    void selfTimesAreTheTimingTables() {
        const ProfileTree t = readCpuProfileFile(merged_.toStdString());
        // Per phase: the loop under phase_quiet and under phase_busy, each called once.
        std::map<QString, std::uint64_t> self, busWait;
        walkTree(t, [&](ProfileTree::NodeId id, const QStringList& path) {
            if (path.size() < 2) return;
            const QString key = path.mid(0, path.size()).join('/');
            if (path.back() == "burn_loop" || path.back() == "burn_mul") self[key] += t.node(id).self;
            if (path.back() == kBusWaitNode && path.size() >= 2) busWait[path.mid(0, path.size() - 1).join('/')] += t.node(id).self;
        });
        std::uint64_t quietLoop = 0, busyLoop = 0, quietMul = 0, busyMul = 0, quietWait = 0, busyWait = 0;
        for (const auto& [path, w] : self) {
            if (path.endsWith("phase_quiet/burn_loop")) quietLoop += w;
            if (path.endsWith("phase_busy/burn_loop")) busyLoop += w;
            if (path.endsWith("phase_quiet/burn_mul")) quietMul += w;
            if (path.endsWith("phase_busy/burn_mul")) busyMul += w;
        }
        for (const auto& [path, w] : busWait) {
            if (path.endsWith("phase_quiet/burn_loop")) quietWait += w;
            if (path.endsWith("phase_busy/burn_loop")) busyWait += w;
        }
        QCOMPARE(quietLoop, loopCycles(kLoopN) / 2);
        QCOMPARE(busyLoop, loopCycles(kLoopN) / 2);
        QCOMPARE(quietMul, mulCycles(kMulN) / 2);
        QCOMPARE(busyMul, mulCycles(kMulN) / 2);
        // Bitplane DMA takes the chip bus from the loop: the difference is its waits alone.
        QVERIFY2(busyWait > quietWait + 1000, qPrintable(QString("%1 vs %2").arg(busyWait).arg(quietWait)));

        const auto byFunction = selfByFunction(t);
        QVERIFY(byFunction.count("checksum_words") && byFunction.at("checksum_words") > 0);
        QVERIFY(byFunction.count("mix") && byFunction.at("mix") > 0);
        bool inlinedUnderStatic = false, irq = false, kick = false;
        walkTree(t, [&](ProfileTree::NodeId, const QStringList& path) {
            if (path.size() >= 2 && path.back() == "mix" && path[path.size() - 2] == "checksum_words") inlinedUnderStatic = true;
            if (!path.isEmpty() && path.front() == kIrqNode) irq = true;
            if (!path.isEmpty() && path.back().startsWith("[Kick]")) kick = true;
        });
        QVERIFY(inlinedUnderStatic);
        QVERIFY(irq);
        QVERIFY(kick);
        // main is the root of the program's own code, and the report's file and lines come
        // from the debug information.
        bool mainHasFile = false;
        walkTree(t, [&](ProfileTree::NodeId id, const QStringList& path) {
            if (!path.isEmpty() && path.back() == "main")
                mainHasFile |= QString::fromStdString(t.node(id).frame.url).endsWith("profiled.c") && t.node(id).frame.lineNumber > 0;
        });
        QVERIFY(mainHasFile);
    }

    void perFrameFilesAddUpToTheMergedOne() {
        const QString out = tmp_.filePath("frames/p.cpuprofile");
        QVERIFY(QDir().mkpath(tmp_.filePath("frames")));
        const Result rep = run(COPPERLINE_CTL, {"profile-report", capture_, "--program", GUEST_PROFILED, "--out", out, "--per-frame"});
        QVERIFY2(rep.status == 0, rep.err.constData());
        const QStringList files = QDir(tmp_.filePath("frames")).entryList({"p-*-frame-*.cpuprofile"}, QDir::Files, QDir::Name);
        const CaptureFiles c = readCapture(capture_.toStdString());
        QCOMPARE(std::size_t(files.size()), c.frames.size());
        std::uint64_t sum = 0;
        for (const QString& f : files) {
            const ProfileTree t = readCpuProfileFile(tmp_.filePath("frames/" + f).toStdString());
            sum += t.total(ProfileTree::kRoot);
        }
        QCOMPARE(sum, readCpuProfileFile(merged_.toStdString()).total(ProfileTree::kRoot));
        // Refuses to write over them again.
        const Result again = run(COPPERLINE_CTL, {"profile-report", capture_, "--program", GUEST_PROFILED, "--out", out, "--per-frame"});
        QVERIFY(again.status != 0);
        QVERIFY2(again.err.contains("--force"), again.err.constData());
    }

    void refusesWhatDoesNotFit() {
        // Another program than the one profiled.
        const QString out = tmp_.filePath("refused.cpuprofile");
        Result r = run(COPPERLINE_CTL, {"profile-report", capture_, "--program", GUEST_HELLO, "--out", out});
        QVERIFY(r.status != 0);
        QVERIFY2(r.err.contains("is not the program profiled"), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));

        // A copy of the capture to spoil, one thing at a time.
        const auto spoil = [&](const QString& name, const std::function<void(const QString&)>& f) {
            const QString dir = tmp_.filePath(name);
            std::filesystem::copy(capture_.toStdString(), dir.toStdString(), std::filesystem::copy_options::recursive);
            f(dir);
            return run(COPPERLINE_CTL, {"profile-report", dir, "--program", GUEST_PROFILED, "--out", dir + "/x.cpuprofile"});
        };
        const auto editSummary = [](const QString& dir, const std::function<void(nlohmann::json&)>& f) {
            const std::string path = (dir + "/profile.json").toStdString();
            nlohmann::json s = nlohmann::json::parse(std::ifstream(path));
            f(s);
            std::ofstream(path) << s.dump(2);
        };
        const CaptureFiles c = readCapture(capture_.toStdString());
        const QString firstBin = QString::fromStdString(c.frames[1]["samples"].get<std::string>());
        const QString firstMeta = QString::fromStdString(c.frames[1]["samples_meta"].get<std::string>());

        r = spoil("bases", [&](const QString& d) { editSummary(d, [](nlohmann::json& s) { s["sampling"]["relocation_bases"].erase(0); s["sampling"].erase("hunks"); }); });
        QVERIFY2(r.status != 0 && r.err.contains("relocation_bases has"), r.err.constData());
        r = spoil("text", [&](const QString& d) { editSummary(d, [](nlohmann::json& s) { s["sampling"]["text"]["size"] = "0x100000"; }); });
        QVERIFY2(r.status != 0 && r.err.contains("the samples' text is 1048576 bytes"), r.err.constData());
        // A capture from before "text": the unwind table's text.
        r = spoil("unwind", [&](const QString& d) {
            editSummary(d, [](nlohmann::json& s) {
                s["sampling"].erase("text");
                s["sampling"]["unwind"]["size"] = "0x100000";
            });
        });
        QVERIFY2(r.status != 0 && r.err.contains("the samples' text is 1048576 bytes"), r.err.constData());
        r = spoil("hunks", [&](const QString& d) { editSummary(d, [](nlohmann::json& s) { s["sampling"]["hunks"][0]["size"] = 4; }); });
        QVERIFY2(r.status != 0 && r.err.contains("is not the program profiled"), r.err.constData());
        r = spoil("nosampling", [&](const QString& d) { editSummary(d, [](nlohmann::json& s) { s.erase("sampling"); }); });
        QVERIFY2(r.status != 0 && r.err.contains("\"samples\": true"), r.err.constData());
        r = spoil("truncated", [&](const QString& d) { std::filesystem::resize_file((d + "/" + firstBin).toStdString(), 6); });
        QVERIFY2(r.status != 0 && r.err.contains(firstBin.toUtf8()), r.err.constData());
        r = spoil("meta", [&](const QString& d) {
            std::fstream f((d + "/" + firstMeta).toStdString(), std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(12);
            f.put('\x7F'); // the first row's total no longer matches its stream
        });
        QVERIFY2(r.status != 0 && r.err.contains("meta row says"), r.err.constData());
        r = spoil("missing", [&](const QString& d) { std::filesystem::remove((d + "/" + firstMeta).toStdString()); });
        QVERIFY2(r.status != 0 && r.err.contains("cannot be read"), r.err.constData());
        r = spoil("dropped", [&](const QString& d) { editSummary(d, [](nlohmann::json& s) { s["samples_dropped"] = 17; }); });
        QVERIFY2(r.status == 0 && r.err.contains("dropped 17 sample(s)"), r.err.constData());
    }

    void segmentsListOverTheSocket() {
        // A floppy whose Startup-Sequence runs a program that never returns: segments.list
        // finds it in its CLI process, with the hunks LoadSeg made of its file.
        const QString adf = tmp_.filePath("forever.adf");
        const Result made = run(COPPERLINE_CTL, {"exe2adf", GUEST_FOREVER, "--out", adf});
        QVERIFY2(made.status == 0, made.err.constData());
        copperline::testing::ControlEmulator emu;
        QVERIFY(emu.start(copperline::testing::uniqueName("test-segments"), {"--floppy0", adf}));
        const HunkFile hunks = readHunkFile(readFileBytes(GUEST_FOREVER), GUEST_FOREVER);
        nlohmann::json found, last;
        for (int i = 0; i < 40 && found.is_null(); ++i) {
            emu.ok("step_frame", {{"n", 50}});
            last = emu.ok("segments.list");
            for (const auto& p : last["programs"])
                if (p["command"].get<std::string>().find("run_forever") != std::string::npos) found = p;
        }
        QVERIFY2(!found.is_null(), ("segments.list never showed the program: " + last.dump()).c_str());
        QCOMPARE(found["hunks"].size(), hunks.sections.size());
        for (std::size_t i = 0; i < hunks.sections.size(); ++i)
            QCOMPARE(found["hunks"][i]["size"].get<std::uint32_t>(), hunks.sections[i].allocSize);
        QCOMPARE(found["relocation_bases"].size(), hunks.sections.size());
        // Its relocation bases are what profile.start takes, and the PC is in its code.
        const std::uint32_t base = std::stoul(found["hunks"][0]["base"].get<std::string>(), nullptr, 16);
        const std::uint32_t pc = emu.ok("regs.get")["pc"].get<std::uint32_t>();
        QVERIFY2(pc >= base && pc < base + hunks.sections[0].allocSize, qPrintable(QString::number(pc, 16)));
        QVERIFY(emu.quit());
    }

    void bartmansFrameProfile() {
        const QString out = tmp_.filePath("profiled.amigaprofile");
        const Result rep = run(COPPERLINE_CTL, {"profile-report", capture_, "--program", GUEST_PROFILED, "--format", "bartman", "--out", out});
        QVERIFY2(rep.status == 0, rep.err.constData());
        const AmigaProfileInput in = readAmigaProfileFile(out.toStdString());
        const CaptureFiles c = readCapture(capture_.toStdString());
        QCOMPARE(in.frames.size(), c.frames.size());
        QCOMPARE(in.chipMem.size(), std::size_t(512 * 1024));
        QCOMPARE(in.bogoMem.size(), std::size_t(1536 * 1024)); // --run's machine has 1.5M slow RAM
        bool burn = false;
        for (const AmigaSymbol& s : in.symbols) burn |= s.name == "burn_loop";
        QVERIFY(burn);
        QVERIFY(!in.sections.empty() && in.sections[0].name == ".text");
        // The disassembly the extension lists, in objdump's form, at text offsets.
        QVERIFY(in.objdump.find(" <burn_loop>:\n") != std::string::npos);
        QVERIFY(in.objdump.find("\tmulu.w %d2,%d0\n") != std::string::npos);
        QVERIFY(in.objdump.find("burn.s:") != std::string::npos);
        std::uint64_t loopCyclesSeen = 0;
        for (std::size_t i = 0; i < in.frames.size(); ++i) {
            const AmigaProfileFrame& f = in.frames[i];
            QCOMPARE(f.dma.size(), std::size_t(bartman::kDmaCount));
            QCOMPARE(f.pcTrace.size(), c.frames[i]["samples_count"].get<std::size_t>());
            QCOMPARE(f.registerTrace.size(), f.pcTrace.size());
            std::uint64_t cycles = 0;
            for (const PcTraceEntry& e : f.pcTrace) cycles += e.cycles;
            QCOMPARE(cycles, 2 * c.frames[i]["samples_cck"].get<std::uint64_t>());
            QVERIFY(!f.screenshot.empty());
            QCOMPARE(f.callFrames.size(), std::size_t((in.sections[0].size + 1) / 2));
            for (const auto& [name, w] : selfByFunction(f.tree))
                if (name == "burn_loop") loopCyclesSeen += w;
        }
        // The call trees are in CPU cycles: both calls of the loop, at their table cost.
        QCOMPARE(loopCyclesSeen, 2 * loopCycles(kLoopN));

        // A program's capture needs the program (only a saved state's goes without).
        const Result unnamed = run(COPPERLINE_CTL, {"profile-report", capture_, "--format", "bartman", "--out", tmp_.filePath("unnamed.amigaprofile")});
        QVERIFY(unnamed.status != 0);
        QVERIFY2(unnamed.err.contains("profiled a program: --program PROG names it"), unnamed.err.constData());
        QVERIFY(!QFile::exists(tmp_.filePath("unnamed.amigaprofile")));
        // The frames carry the chipset flags WinUAE writes for an OCS A500.
        for (const AmigaProfileFrame& f : in.frames) QCOMPARE(f.chipsetFlags, 0x100u);

        // A capture without what the format shows is refused, naming the option.
        const QString bare = tmp_.filePath("bare");
        std::filesystem::copy(capture_.toStdString(), bare.toStdString(), std::filesystem::copy_options::recursive);
        {
            const std::string path = (bare + "/profile.json").toStdString();
            nlohmann::json s = nlohmann::json::parse(std::ifstream(path));
            s["options"]["slots"] = false;
            std::ofstream(path) << s.dump();
        }
        const Result refused = run(COPPERLINE_CTL, {"profile-report", bare, "--program", GUEST_PROFILED, "--format", "bartman", "--out", bare + "/x.amigaprofile"});
        QVERIFY(refused.status != 0);
        QVERIFY2(refused.err.contains("\"slots\": true"), refused.err.constData());
    }

    void viewersOpenTheReports() {
        const ProfileTree t = readCpuProfileFile(merged_.toStdString());
        const auto self = selfByFunction(t);
        QString top;
        std::uint64_t best = 0;
        for (const auto& [name, w] : self)
            if (w > best) best = w, top = name;
        const viewer_checks::Sandwich shown = viewer_checks::speedscopeSandwich(merged_, "profiled.cpuprofile");
        QVERIFY2(shown.error.isEmpty(), qPrintable(shown.error));
        QCOMPARE(shown.rows[0].name, top);

        QString error;
        const QJsonObject seen = viewer_checks::devtoolsModel(merged_, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const double usPerCck = 1e6 / 3546895.0;
        for (const char* view : {"treeSelf", "timelineSelf"}) {
            const QJsonObject w = seen[view].toObject();
            for (const char* fn : {"burn_loop", "burn_mul", "checksum_words"})
                QVERIFY2(std::llround(w[fn].toDouble() / usPerCck) == qint64(self.at(fn)),
                         qPrintable(QString("%1 %2: %3 us").arg(view, fn).arg(w[fn].toDouble())));
        }

        // One per-frame file: the frame with the busy phase, whose top is burn_loop's waits' owner.
        const QString frames = tmp_.filePath("frames");
        const QStringList files = QDir(frames).entryList({"p-*-frame-*.cpuprofile"}, QDir::Files, QDir::Name);
        QVERIFY(!files.isEmpty());
        const QString one = frames + "/" + files.first();
        const auto oneSelf = selfByFunction(readCpuProfileFile(one.toStdString()));
        QString oneTop;
        best = 0;
        for (const auto& [name, w] : oneSelf)
            if (w > best) best = w, oneTop = name;
        const viewer_checks::Sandwich frame = viewer_checks::speedscopeSandwich(one, files.first());
        QVERIFY2(frame.error.isEmpty(), qPrintable(frame.error));
        QCOMPARE(frame.rows[0].name, oneTop);
        const QJsonObject frameSeen = viewer_checks::devtoolsModel(one, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(std::llround(frameSeen["treeSelf"].toObject()[oneTop].toDouble() / usPerCck) == qint64(best));
    }
};

QTEST_GUILESS_MAIN(TestProfileRun)
#include "test_profile_run.moc"
