// SPDX-License-Identifier: GPL-3.0-or-later
// The profiler on the programs Amiga developers build, as a user runs it: `copperline --run
// PROG --profile DIR`, then `copperline-ctl profile-report DIR --program PROG`.
// - Bartman's template (tests/data/bartman-template: a.mingw.exe beside a.mingw.elf, his
//   gcc and his elf2hunk): the ELF is found beside it; every sample lands on a named node
//   (profile-report's unnamed share is 0); LoadView, called from main at main.c:87, stands
//   as [Kick]graphics/LoadView under main with the line of its call; its warpmode() is
//   answered, not refused.
// - bebbo's amiga-gcc (stabs), vbcc and vasm programs: named, unnamed share 0.
// - A program that runs fifteen seconds is captured to its return without
//   --profile-frames; with --profile-frames 100 the capture says it stopped early.
// - A trackmo's boot block that copies its part to $40000 and runs it there, captured with
//   --symbols part.elf@0x40000: its routines are named in the .cpuprofile and in strip.tree.

#include "emu/media/adf.h"
#include "emu/media/file_bytes.h"
#include "emu/media/ofs.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/report/cpuprofile.h"
#include "profiler/sampling/sample_reader.h"
#include "tests/integration/served.h"
#include "tests/tools/call_tree_json.h"
#include "tests/tools/profile_tree.h"
#include "tests/tools/run_process.h"

#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <map>

using namespace copperline;
using copperline::testing::Served;
using Result = copperline::testing::ProcessResult;
using nlohmann::json;

namespace {

const QString kData = COPPERLINE_SOURCE_DIR "/tests/data/";

Result run(const char* exe, const QStringList& args) { return copperline::testing::runProcess(exe, args); }

using copperline::testing::selfByFunction;
using copperline::testing::walkTree;

// profile-report's "unnamed: N CCK" line.
std::uint64_t unnamedCck(const QByteArray& out) {
    const int at = out.indexOf("unnamed: ");
    if (at < 0) return ~0ull;
    return out.mid(at + 9).split(' ').value(0).toULongLong();
}

// Profiles PROG (with any more arguments) and reports it; the report's tree.
struct Profiled {
    Result run, report;
    ProfileTree tree;
    json summary;
};
Profiled profile(const QTemporaryDir& tmp, const QString& name, const QString& program, const QStringList& more,
                 const QStringList& reportArgs = {}) {
    Profiled p;
    const QString dir = tmp.filePath(name);
    p.run = run(COPPERLINE_EXE, QStringList{"--factory", "--noaudio", "--run", program, "--profile", dir} + more);
    if (p.run.status < 0) return p;
    const QString out = tmp.filePath(name + ".cpuprofile");
    p.report = run(COPPERLINE_CTL, QStringList{"profile-report", dir, "--program", program, "--out", out} + reportArgs);
    if (p.report.status == 0) p.tree = readCpuProfileFile(out.toStdString());
    p.summary = readCapture(dir.toStdString()).summary;
    return p;
}

} // namespace

class TestToolchainsRun : public QObject {
    Q_OBJECT
private slots:
    void bartmansTemplate() {
        QTemporaryDir tmp;
        // Past its Delay(50), LoadView(0) and the WaitTOFs of TakeSystem, into its loop.
        const Profiled p = profile(tmp, "template", kData + "bartman-template/a.mingw.exe", {"--profile-frames", "250"});
        QVERIFY2(p.run.status == 0, p.run.err.constData());
        QVERIFY2(p.report.status == 0, p.report.err.constData());
        // The ELF was found beside it: no warning, and its functions are in the tree.
        QVERIFY2(!p.report.err.contains("warning"), p.report.err.constData());
        QCOMPARE(unnamedCck(p.report.out), 0ull);
        // warpmode(): warp asked for and noted once; nothing refused.
        QVERIFY2(p.run.err.contains("asks for warp on (warp true)"), p.run.err.constData());
        QCOMPARE(p.run.err.count("asks for warp"), 1);
        QVERIFY2(!p.run.err.contains("refused"), p.run.err.constData());
        // It stopped before the program returned (it waits for the mouse), and says so.
        QVERIFY2(p.run.err.contains("before a.mingw.exe returned"), p.run.err.constData());
        QCOMPARE(p.summary["run"]["returned"], false);

        // LoadView below main, with the line of the call, and time in it.
        bool loadView = false;
        walkTree(p.tree, [&](ProfileTree::NodeId id, const QStringList& path) {
            if (path.isEmpty() || path.back() != "[Kick]graphics/LoadView") return;
            QVERIFY2(path.contains("main"), qPrintable(path.join(" > ")));
            const CallFrame& f = p.tree.node(id).frame;
            if (f.url.ends_with("template/main.c") && f.lineNumber == 86) loadView = p.tree.total(id) > 0;
        });
        QVERIFY(loadView);
        const auto totals = selfByFunction(p.tree);
        QVERIFY(totals.count("main") && totals.at("main") > 0);
        QVERIFY(totals.count("WaitVbl") && totals.at("WaitVbl") > 0);
        // AROS's LoadView waits for a vertical blank, and TakeSystem turned the interrupts
        // off before calling it: the template stands there, in AROS's display driver, and
        // the tree says so below the call.
        bool driver = false;
        walkTree(p.tree, [&](ProfileTree::NodeId id, const QStringList& path) {
            if (path.size() >= 2 && path.back() == "[Kick]amigavideo.hidd" && path[path.size() - 2] == "[Kick]graphics/LoadView")
                driver = p.tree.node(id).self > p.tree.total(ProfileTree::kRoot) / 2;
        });
        QVERIFY(driver);
        // Nothing stands in (root), [IRQ] or a level's own node; every interrupt's time is
        // below the routine it runs.
        QCOMPARE(p.tree.node(ProfileTree::kRoot).self, 0ull);
        bool handler = false;
        walkTree(p.tree, [&](ProfileTree::NodeId id, const QStringList& path) {
            if (path.isEmpty()) return;
            if (path.back() == "[IRQ]" || path.back().startsWith("level ")) QCOMPARE(p.tree.node(id).self, 0ull);
            if (path.size() == 3 && path[0] == "[IRQ]") handler = handler || p.tree.node(id).self > 0;
        });
        QVERIFY(handler);
        // The one naming of system code: AROS's interrupt servers by their names.
        QVERIFY(totals.count("[Kick]GFX VBlank server"));

        // The stream: hunk 0's PCs relative to its base, callers too; ROM absolute. A sample
        // in LoadView's wait is [leaf in ROM, LoadView's entry in ROM, the call's return
        // address in hunk 0, ...].
        const json& sampling = p.summary["sampling"];
        QCOMPARE(sampling["layouts"]["samples"]["text_relative"], true);
        QCOMPARE(sampling["text"]["base"], sampling["relocation_bases"][0]);
        const std::uint32_t textSize = std::uint32_t(std::stoul(sampling["text"]["size"].get<std::string>(), nullptr, 0));
        QCOMPARE(textSize, 1964u);
        const QString dir = tmp.filePath("template");
        const json last = readCapture(dir.toStdString()).frames.back();
        bool seen = false;
        for (const Sample& smp : readSamples((dir + "/" + QString::fromStdString(last["samples"])).toStdString(),
                                             (dir + "/" + QString::fromStdString(last["samples_meta"])).toStdString(), false)) {
            const auto rom = [](std::uint32_t a) { return a >= 0xF80000 || (a >= 0xE00000 && a < 0xE80000); };
            if (smp.isIrq() || smp.stack.size() < 3 || !rom(smp.stack[0])) continue;
            QVERIFY(rom(smp.stack[1]));               // the entered function (in AROS's extension ROM), absolute
            QVERIFY(smp.stack[2] < textSize);         // main's call, relative
            QCOMPARE(smp.stack[2], 0x1A6u + 2);       // the JSR -222(A6) at $1A6, + 2
            seen = true;
        }
        QVERIFY(seen);
    }

    void aProgramsInterruptServerStandsUnderTheInterrupt() {
        // strip_aros adds a VBlank server of its own (vblserver, "strip vblank"): its code
        // is below [IRQ] > level 3 > the routine the vector runs, not below what it
        // interrupted.
        QTemporaryDir tmp;
        const Profiled p = profile(tmp, "server", GUEST_STRIP_AROS, {"--run-args", "100"});
        QVERIFY2(p.run.status == 0, p.run.err.constData());
        QVERIFY2(p.report.status == 0, p.report.err.constData());
        QCOMPARE(unnamedCck(p.report.out), 0ull);
        bool server = false, elsewhere = false;
        walkTree(p.tree, [&](ProfileTree::NodeId id, const QStringList& path) {
            if (path.isEmpty() || path.back() != "vblserver" || !p.tree.node(id).self) return;
            if (path.size() >= 3 && path[0] == "[IRQ]" && path[1] == "level 3, vector 27") server = true;
            else elsewhere = true;
        });
        QVERIFY(server);
        QVERIFY(!elsewhere);
    }

    void bebbosGccVbccAndVasm() {
        QTemporaryDir tmp;
        for (const QString& program : {kData + "amitools/dos_stdout_gcc_dbg", kData + "amitools/dos_stdout_vc_dbg",
                                       kData + "vscode-amiga-assembly/hello-vbcc"}) {
            const Profiled p = profile(tmp, QFileInfo(program).fileName(), program, {});
            QVERIFY2(p.run.status == 0, (program + ": " + p.run.err).toLocal8Bit().constData());
            QVERIFY2(p.run.out.contains(program.contains("hello") ? "10 * 9 = 90" : "Hello, world!?"),
                     p.run.out.constData());
            QVERIFY2(p.report.status == 0, p.report.err.constData());
            QCOMPARE(unnamedCck(p.report.out), 0ull);
            QCOMPARE(p.summary["run"]["returned"], true);
            const auto totals = selfByFunction(p.tree);
            const QString main = program.contains("gcc") ? "main" : "_main";
            QVERIFY2(totals.count(main), program.toLocal8Bit().constData());
            // Without an ELF the stream is text-relative all the same, and lcov reads it.
            const QString name = QFileInfo(program).fileName();
            const QString info = tmp.filePath(name + ".info");
            const Result lcov = run(COPPERLINE_CTL, {"profile-report", tmp.filePath(name), "--program", program,
                                                     "--format", "lcov", "--out", info});
            QVERIFY2(lcov.status == 0, lcov.err.constData());
            QFile f(info);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray text = f.readAll();
            QVERIFY2(text.contains(program.contains("hello") ? "hello.c" : "dos_stdout.c"), text.left(300).constData());
            QVERIFY2(!text.contains("lines 0/"), text.left(300).constData());
        }
        // vasm's gencop takes the machine over and waits for the mouse: bounded.
        const Profiled g =
            profile(tmp, "gencop", kData + "vscode-amiga-assembly/gencop", {"--profile-frames", "100"});
        QVERIFY2(g.report.status == 0, g.report.err.constData());
        QCOMPARE(unnamedCck(g.report.out), 0ull);
        QVERIFY(selfByFunction(g.tree).count("init"));
    }

    void aProgramIsCapturedToItsReturn() {
        QTemporaryDir tmp;
        const Profiled whole = profile(tmp, "whole", GUEST_FIFTEEN, {});
        QVERIFY2(whole.run.status == 0, whole.run.err.constData());
        QVERIFY2(whole.run.out.contains("fifteen: done"), whole.run.out.constData());
        QVERIFY2(!whole.run.err.contains("before"), whole.run.err.constData());
        QCOMPARE(whole.summary["run"]["returned"], true);
        QCOMPARE(whole.summary["run"]["until"], "return");
        QVERIFY2(whole.summary["frames_written"].get<unsigned>() >= 750, whole.summary["frames_written"].dump().c_str());
        QVERIFY(selfByFunction(whole.tree).count("work"));

        // Ended by the last --screenshot-after, not by its return: said so too.
        const Profiled shot = profile(tmp, "shot", GUEST_FIFTEEN, {"--screenshot-after", "26", tmp.filePath("f.png")});
        QVERIFY2(shot.run.status == 0, shot.run.err.constData());
        QVERIFY2(shot.run.err.contains("the capture ended with the run, before run_fifteen returned"),
                 shot.run.err.constData());
        QCOMPARE(shot.summary["run"]["returned"], false);

        const Profiled early = profile(tmp, "early", GUEST_FIFTEEN, {"--profile-frames", "100"});
        QVERIFY2(early.run.status == 0, early.run.err.constData());
        QVERIFY2(early.run.err.contains("the capture stopped after 100 frames, before run_fifteen returned"),
                 early.run.err.constData());
        QCOMPARE(early.summary["run"]["returned"], false);
        QCOMPARE(early.summary["frames_written"], 100);
    }

    void aBootBlocksPartIsNamedFromItsElf() {
        QTemporaryDir tmp;
        // The boot block: the stub, then the part it copies to $40000.
        std::vector<std::uint8_t> code = readFileBytes(GUEST_BOOT_STUB);
        const std::vector<std::uint8_t> part = readFileBytes(GUEST_BOOT_PART);
        code.insert(code.end(), part.begin(), part.end());
        QVERIFY2(code.size() <= 1012, qPrintable(QString::number(code.size())));
        ofs::Volume v;
        v.name = "Trackmo";
        AdfImage img = ofs::writeVolume(v);
        ofs::installBootBlock(img, code);
        const QString adf = tmp.filePath("trackmo.adf");
        saveAdf(adf.toStdString(), img);
        const QString symbols = QString(GUEST_BOOT_PART_ELF) + "@0x40000";

        // The capture: --symbols gives its samples the part's code range, base and unwind.
        const QString dir = tmp.filePath("boot");
        const Result r = run(COPPERLINE_EXE, {"--factory", "--noaudio", "--floppy0", adf, "--symbols", symbols,
                                              "--profile", dir, "--profile-after", "25", "--profile-frames", "20"});
        QVERIFY2(r.status == 0, r.err.constData());
        const QString out = tmp.filePath("boot.cpuprofile");
        const Result rep = run(COPPERLINE_CTL, {"profile-report", dir, "--elf", GUEST_BOOT_PART_ELF, "--base", "0x40000",
                                                "--out", out});
        QVERIFY2(rep.status == 0, rep.err.constData());
        QCOMPARE(unnamedCck(rep.out), 0ull);
        const ProfileTree tree = readCpuProfileFile(out.toStdString());
        const auto totals = selfByFunction(tree);
        for (const char* f : {"wait_frame", "mix", "paint"})
            QVERIFY2(totals.count(f) && totals.at(f) > 0, f);
        // mix and paint are called from boot_main (the unwind table from the part's ELF).
        bool mixUnderMain = false;
        walkTree(tree, [&](ProfileTree::NodeId, const QStringList& path) {
            if (path.size() >= 2 && path.back() == "mix" && path[path.size() - 2] == "boot_main") mixUnderMain = true;
        });
        QVERIFY(mixUnderMain);

        // The strip, over the control socket: symbols.load names the part's routines.
        Served s("trackmo", {"--floppy0", adf});
        QVERIFY(s.started());
        QVERIFY(s.call("symbols.load", {{"path", "/nonexistent.elf"}}).status != 0);
        const json loaded = s.json("symbols.load", {{"path", GUEST_BOOT_PART_ELF}, {"base", "0x40000"}});
        QVERIFY2(loaded.contains("sections"), loaded.dump().c_str());
        QCOMPARE(loaded["sections"][0]["base"], "0x40000");
        QVERIFY(s.json("run_until", {{"frame", 1300}}).contains("pc")); // 26 s: the part runs
        const json resolved = s.json("symbols.resolve", {{"addr", "0x40000"}});
        QCOMPARE(resolved.value("function", std::string()), std::string("_start"));
        const json set = s.json("strip.set", {{"start", "wait_frame"}});
        QVERIFY2(set.value("start", std::string()) == "wait_frame", set.dump().c_str());
        QVERIFY(s.json("step_frame", {{"n", 8}}).contains("frame"));
        const json bars = s.json("strip.bars")["bars"];
        QVERIFY2(bars.size() >= 5, bars.dump().c_str());
        const json tree2 = s.json("strip.tree", {{"bar", bars[bars.size() - 2].value("bar", 0)}});
        copperline::testing::checkTreeSums(tree2);
        std::function<bool(const json&, const std::string&)> has = [&](const json& n, const std::string& name) {
            if (n.value("routine", std::string()) == name && n.value("named", false)) return true;
            for (const json& c : n["children"])
                if (has(c, name)) return true;
            return false;
        };
        for (const char* f : {"mix", "paint", "wait_frame"}) QVERIFY2(has(tree2, f), (std::string(f) + " " + tree2.dump()).c_str());
    }
};

QTEST_GUILESS_MAIN(TestToolchainsRun)
#include "test_toolchains_run.moc"
