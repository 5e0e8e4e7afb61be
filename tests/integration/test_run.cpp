// SPDX-License-Identifier: GPL-3.0-or-later
// copperline --run on the AROS ROM: output, return codes and the special exit statuses;
// the floppy drives booting a boot block our toolchain built; ADF refusal and the write
// overlay; exe2adf's disk read back through the OFS reader; the guest API.

#include "emu/guest_api.h"
#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/ofs.h"
#include "profiler/capture/png.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/sampling/sample_reader.h"
#include "tests/integration/served.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline;
using copperline::testing::Served;

namespace {

struct Result {
    int status = -1;
    QByteArray out, err;
    qint64 ms = 0;
};

Result run(const char* exe, const QStringList& args) {
    QProcess p;
    QStringList env = QProcess::systemEnvironment();
    env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
    p.setEnvironment(env);
    QElapsedTimer t;
    t.start();
    p.start(exe, args);
    Result r;
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.ms = t.elapsed();
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

Result emulate(const QStringList& args) {
    return run(COPPERLINE_EXE, QStringList{"--factory", "--noaudio"} + args);
}

// A formatted OFS disk whose boot block holds `code` (a raw 68000 binary).
std::string bootDisk(const QTemporaryDir& tmp, const char* name, const char* codePath) {
    ofs::Volume v;
    v.name = "BootTest";
    AdfImage img = ofs::writeVolume(v);
    ofs::installBootBlock(img, readFileBytes(codePath));
    const std::string path = tmp.filePath(name).toStdString();
    saveAdf(path, img);
    return path;
}

// The colour in the middle of a screenshot, 0xRRGGBB.
std::uint32_t centreColour(const QString& png) {
    const Image img = readPng(png.toStdString());
    return img.at(img.width / 2, img.height / 2) & 0xFFFFFF;
}

std::string readFileText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll().toStdString();
}

// The bytes of block 1000 as bootblock_write leaves them: a copy of the boot block.
bool block1000IsTheBootBlock(const std::vector<std::uint8_t>& disk) {
    return disk.size() == adf::kImageBytes &&
           std::equal(disk.begin(), disk.begin() + 512, disk.begin() + 1000 * 512);
}

} // namespace

class TestRun : public QObject {
    Q_OBJECT
private slots:
    void aLargeProgramLoadsAndAllocatesWithTheDefaults() {
        // About 200 KB on the disk, 1 MB allocated: the default --run machine has room.
        QVERIFY(QFileInfo(GUEST_BIGALLOC).size() > 200 * 1024);
        const Result r = emulate({"--run", GUEST_BIGALLOC});
        QVERIFY2(r.status == 0, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("bigalloc: table $") && r.out.contains(" block $"), r.out.constData());
    }

    void fastRamRunsAProgramWithoutChipBusWaits() {
        // With --run's default 8 MB of fast RAM the program loads into Zorro II fast RAM and
        // its own instructions never wait for the chip bus (its block is there too); with
        // --fast 0, into slow RAM.
        std::uint64_t fastWaits = 0, slowWaits = 0;
        for (const bool fast : {true, false}) {
            QTemporaryDir tmp;
            const QString dir = tmp.filePath("cap");
            QStringList args = {"--run", GUEST_BIGALLOC, "--profile", dir};
            if (!fast) args = QStringList{"--fast", "0"} + args; // --run's default has 8M
            const Result r = emulate(args);
            if (!fast) {
                // Without fast RAM AROS keeps its own allocations in slow RAM: no 1 MB is left.
                QVERIFY2(r.status == 20 && r.out.contains("no 1 MB block"), (r.out + r.err).constData());
            } else {
                QVERIFY2(r.status == 0, (r.out + r.err).constData());
            }
            const nlohmann::json summary = nlohmann::json::parse(readFileText(dir + "/profile.json"));
            const nlohmann::json& hunks = summary.at("sampling").at("hunks");
            QVERIFY(!hunks.empty());
            const std::uint32_t base = std::uint32_t(std::stoul(hunks[0]["base"].get<std::string>(), nullptr, 16));
            const std::uint32_t size = hunks[0]["size"].get<std::uint32_t>();
            if (fast) QVERIFY2(base >= 0x200000 && base < 0xA00000, qPrintable(QString::number(base, 16)));
            else QVERIFY2(base >= 0xC00000, qPrintable(QString::number(base, 16)));
            std::uint64_t own = 0, waits = 0;
            for (const nlohmann::json& rec : readCapture(dir.toStdString()).frames) {
                if (!rec.contains("samples")) continue;
                forEachSampleIn((dir + "/" + QString::fromStdString(rec["samples"])).toStdString(),
                                (dir + "/" + QString::fromStdString(rec["samples_meta"])).toStdString(), false,
                                [&](const SampleView& v) {
                                    if (v.isIrq() || v.isStopped() || v.meta.pc - base >= size) return;
                                    own += v.meta.totalCck;
                                    waits += v.meta.waitCck;
                                });
            }
            QVERIFY2(own > (fast ? 100000u : 0u), qPrintable(QString::number(own)));
            qInfo("%s: %llu CCK of the program's own instructions, %llu of them chip-bus waits",
                  fast ? "fast RAM" : "slow RAM", static_cast<unsigned long long>(own),
                  static_cast<unsigned long long>(waits));
            (fast ? fastWaits : slowWaits) = waits;
        }
        // In fast RAM only its few reads of chip RAM (ExecBase at 4 in the startup) can wait.
        QVERIFY2(fastWaits <= 16, qPrintable(QString::number(fastWaits)));
        QVERIFY2(slowWaits > fastWaits, qPrintable(QString::number(slowWaits)));
    }

    void runUnderControlStopsAtTheFirstInstruction() {
        // copperline --control NAME --run hello: the client continues, the machine stops at
        // hello's first instruction (reason loadseg), segments.list and symbols.resolve know it.
        const QString name = QStringLiteral("run-control-%1").arg(QCoreApplication::applicationPid());
        QProcess server;
        QStringList env = QProcess::systemEnvironment();
        env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
        server.setEnvironment(env);
        server.start(COPPERLINE_EXE, {"--factory", "--noaudio", "--control", name, "--run", GUEST_HELLO});
        QVERIFY(server.waitForStarted());
        const auto call = [&](const QString& method, const QString& params = {}) {
            QStringList args = {"--socket", name, "--timeout", "900", method};
            if (!params.isEmpty()) args << params;
            for (int attempt = 0;; ++attempt) {
                const Result r = run(COPPERLINE_CTL, args);
                // The server may still be opening its socket.
                if (r.status == 0 || attempt >= 50 || !r.err.contains("listening")) return r;
                QTest::qWait(100);
            }
        };
        const Result stop = call("continue");
        QVERIFY2(stop.status == 0, (stop.out + stop.err).constData());
        const nlohmann::json s = nlohmann::json::parse(stop.out.toStdString());
        QCOMPARE(s.value("reason", std::string()), std::string("loadseg"));
        const nlohmann::json& d = s.at("detail");
        QCOMPARE(d.value("name", std::string()), std::string("hello"));
        QVERIFY(d.value("debug_info", false));
        QCOMPARE(d.at("hunks").size(), std::size_t(3));
        const std::uint32_t base = std::uint32_t(std::stoul(d["hunks"][0]["base"].get<std::string>(), nullptr, 16));
        QCOMPARE(s.value("pc", 0u), base);

        const Result segments = call("segments.list");
        QVERIFY2(segments.status == 0, segments.err.constData());
        QCOMPARE(nlohmann::json::parse(segments.out.toStdString())["run"]["relocation_bases"], d["relocation_bases"]);
        const Result where = call("symbols.resolve", QStringLiteral("{\"addr\": %1}").arg(base));
        QVERIFY2(where.status == 0, where.err.constData());
        const nlohmann::json w = nlohmann::json::parse(where.out.toStdString());
        QCOMPARE(w.value("module", std::string()), std::string("hello"));
        QCOMPARE(w.value("function", std::string()), std::string("_start"));
        QVERIFY2(w.value("file", std::string()).ends_with("startup.S"), where.out.constData());
        // It runs on from there.
        QVERIFY(call("step_frame", "{\"n\": 100}").status == 0);
        call("quit");
        QVERIFY(server.waitForFinished(30000));

        // What only a headless run does is refused.
        const Result refused = emulate({"--control", name + "-x", "--run", GUEST_HELLO, "--timeout", "5"});
        QCOMPARE(refused.status, 2);
        QVERIFY2(refused.err.contains("--timeout goes with a headless --run"), refused.err.constData());
        const Result shot = emulate({"--control", name + "-y", "--run", GUEST_HELLO, "--seconds", "5"});
        QCOMPARE(shot.status, 2);
        QVERIFY2(shot.err.contains("--seconds runs a headless session"), shot.err.constData());
    }

    void notEnoughMemoryIsReported() {
        // A 200 KB program on an A500 with 512K chip and 512K slow RAM: LoadSeg fails with
        // ERROR_NO_FREE_STORE, and the report says how much memory there was and was needed.
        const Result r = emulate({"--run", GUEST_BIGALLOC, "--fast", "0", "--slow", "512K"});
        QCOMPARE(r.status, 122);
        const QRegularExpression said(
            "not enough memory to load run_bigalloc: ([0-9,]+) bytes free \\(the largest block ([0-9,]+)\\), "
            "([0-9,]+) bytes needed for its 3 hunk\\(s\\)");
        const auto m = said.match(QString::fromUtf8(r.err));
        QVERIFY2(m.hasMatch(), r.err.constData());
        const auto number = [&](int i) { return m.captured(i).remove(',').toLongLong(); };
        QVERIFY(number(2) <= number(1));
        QVERIFY(number(1) > 1000);
        // What LoadSeg allocates: the hunks' sizes and 8 bytes each, more than the file.
        QVERIFY(number(3) > QFileInfo(GUEST_BIGALLOC).size() - 4096);
        QVERIFY(number(3) > number(2));
        QVERIFY2(r.err.contains("--fast 8M"), r.err.constData());
        QVERIFY(!r.err.contains("LoadSeg failed"));
        // On that machine even hello, loaded, cannot be started: RunCommand finds no memory
        // for its stack and says -1, which is reported as such, not as hello's return code.
        const Result h = emulate({"--run", GUEST_HELLO, "--fast", "0", "--slow", "512K"});
        QCOMPARE(h.status, 122);
        QVERIFY2(h.err.contains("not enough memory to run hello: RunCommand found no free store (IoErr 103) "
                                "for its 16,384-byte stack with "),
                 h.err.constData());
        QVERIFY(h.out.isEmpty());
    }

    void runProgramOverTheSocket() {
        // run.program: a --control session with no --run opens hello as --run does and stops
        // at its first instruction.
        Served s("program", {"--fast", "8M", "--slow", "1.5M"});
        QVERIFY(s.started());
        const nlohmann::json warp = s.json("warp.get");
        QCOMPARE(warp.value("source", std::string()), std::string("headless"));
        QVERIFY(warp.value("on", false));
        const nlohmann::json opened = s.json("run.program", {{"path", GUEST_HELLO}});
        QVERIFY2(opened.value("drive", 9) == 0, opened.dump().c_str());
        QVERIFY(opened.value("debug_info", false));
        const nlohmann::json stop = s.json("continue");
        QCOMPARE(stop.value("reason", std::string()), std::string("loadseg"));
        QCOMPARE(stop["detail"].value("name", std::string()), std::string("hello"));
        const std::uint32_t base =
            std::uint32_t(std::stoul(stop["detail"]["hunks"][0]["base"].get<std::string>(), nullptr, 16));
        QCOMPARE(stop.value("pc", 0u), base);
        const nlohmann::json where = s.json("symbols.resolve", {{"addr", base}});
        QCOMPARE(where.value("function", std::string()), std::string("_start"));
        // The drive holds the run disk, which is no file of the user's.
        const nlohmann::json drives = s.json("media.floppy.query");
        QVERIFY(drives["drives"][0].value("disk", false));
        QVERIFY(drives["drives"][0]["path"].is_null());
        // Bad input: no such program, an unknown parameter.
        const auto missing = s.call("run.program", {{"path", "/nonexistent/prog"}});
        QVERIFY(missing.status != 0);
        QVERIFY2((missing.out + missing.err).contains("/nonexistent/prog"), (missing.out + missing.err).constData());
        const auto typo = s.call("run.program", {{"pth", GUEST_HELLO}});
        QVERIFY2((typo.out + typo.err).contains("pth"), (typo.out + typo.err).constData());
        s.call("quit");
        QVERIFY(s.process().waitForFinished(30000));

        // A session whose memory nobody chose (the window's too): the program gets --run's
        // memory, and hello runs.
        Served plain("plain", {});
        QVERIFY(plain.started());
        const nlohmann::json before = plain.json("machine.memory");
        QCOMPARE(before.value("slow", 0u), 512u << 10);
        QCOMPARE(before.value("fast", 1u), 0u);
        const nlohmann::json given = plain.json("run.program", {{"path", GUEST_HELLO}});
        QCOMPARE(given["memory"].value("slow", 0u), 1536u << 10);
        QCOMPARE(given["memory"].value("fast", 0u), 8u << 20);
        QCOMPARE(plain.json("continue").value("reason", std::string()), std::string("loadseg"));
        // machine.memory: sizes refused by name, nothing changed; a change power-cycles.
        for (const char* bad : {R"({"fast": 3})", R"({"chip": 0})", R"({"slow": 2097152})", R"({"fast": "8M"})", R"({"fest": 0})"}) {
            const auto r = plain.call("machine.memory", nlohmann::json::parse(bad));
            QVERIFY2(r.status != 0, bad);
        }
        QCOMPARE(plain.json("machine.memory").value("fast", 0u), 8u << 20);
        const nlohmann::json changed = plain.json("machine.memory", {{"fast", 0}});
        QVERIFY(changed.value("power_cycled", false));
        QCOMPARE(changed.value("fast", 1u), 0u);
        QVERIFY(!plain.json("machine.memory", {{"fast", 0}}).value("power_cycled", true));
        plain.call("quit");
        QVERIFY(plain.process().waitForFinished(30000));

        // On the A500's own 512K + 512K, chosen, hello cannot be started: the client's
        // continue ends with reason run_failed and the reason, never waits for a first
        // instruction.
        Served small("small", {"--slow", "512K", "--fast", "0"});
        QVERIFY(small.started());
        QVERIFY(small.json("run.program", {{"path", GUEST_HELLO}}).contains("program"));
        const nlohmann::json failed = small.json("continue");
        QCOMPARE(failed.value("reason", std::string()), std::string("run_failed"));
        QVERIFY2(failed["detail"].value("message", std::string()).starts_with("not enough memory to run hello"),
                 failed.dump().c_str());
        QVERIFY(failed["detail"].value("largest", 0u) > 0);
        small.call("quit");
        QVERIFY(small.process().waitForFinished(30000));
    }

    void writebackUnderControlOnQuitEjectAndSignal() {
        // --floppy0-writeback under --control: the guest's write reaches the file when the
        // session quits, when the disk is ejected, and when the process gets SIGTERM.
        QTemporaryDir tmp;
        for (const char* end : {"quit", "eject", "sigterm"}) {
            const std::string adf = bootDisk(tmp, (std::string(end) + ".adf").c_str(), BOOTBLOCK_WRITE);
            QVERIFY(!block1000IsTheBootBlock(readFileBytes(adf)));
            const bool eject = std::string(end) == "eject";
            // For eject the disk goes in over the socket; the others come from the command line.
            Served s(end, eject ? QStringList{}
                                : QStringList{"--floppy0", QString::fromStdString(adf), "--floppy0-writeback"});
            QVERIFY(s.started());
            if (eject) {
                const nlohmann::json in = s.json("media.floppy.insert", {{"drive", 0}, {"path", adf}, {"writeback", true}});
                QVERIFY2(in.value("writeback", false), in.dump().c_str());
                QVERIFY(s.json("machine.reset", {{"kind", "cold"}}).contains("reset"));
            }
            const nlohmann::json ran = s.json("step_frame", {{"n", 1500}});
            QVERIFY2(ran.contains("reason"), ran.dump().c_str());
            const nlohmann::json q = s.json("media.floppy.query");
            QVERIFY2(q["drives"][0].value("modified", false), q.dump().c_str());
            QCOMPARE(q["drives"][0].value("path", std::string()), adf);
            // Nothing is written while the disk is in the drive.
            QVERIFY(!block1000IsTheBootBlock(readFileBytes(adf)));
            if (eject) {
                const nlohmann::json out = s.json("media.floppy.eject", {{"drive", 0}});
                QVERIFY2(out.value("ejected", std::string()) == adf, out.dump().c_str());
                QVERIFY(block1000IsTheBootBlock(readFileBytes(adf)));
                QVERIFY(!s.json("media.floppy.query")["drives"][0].value("disk", true));
                s.call("quit");
            } else if (std::string(end) == "quit") {
                s.call("quit");
            } else {
                s.process().terminate(); // SIGTERM
            }
            QVERIFY(s.process().waitForFinished(30000));
            QVERIFY2(block1000IsTheBootBlock(readFileBytes(adf)), end);
            if (std::string(end) == "sigterm") QCOMPARE(s.process().exitCode(), 128 + 15);
        }
        // Without write-back the file stays as it was, and the session says so as it ends.
        const std::string plain = bootDisk(tmp, "plain.adf", BOOTBLOCK_WRITE);
        const std::vector<std::uint8_t> before = readFileBytes(plain);
        Served s("plain", {"--floppy0", QString::fromStdString(plain)});
        QVERIFY(s.started());
        s.json("step_frame", {{"n", 1500}});
        s.call("quit");
        QVERIFY(s.process().waitForFinished(30000));
        QCOMPARE(readFileBytes(plain), before);
        QVERIFY(QString::fromUtf8(s.process().readAllStandardError()).contains("is unchanged"));
        // A file that is not an ADF is refused by name and the drive keeps what it had.
        Served t("bad", {});
        QVERIFY(t.started());
        const auto bad = t.call("media.floppy.insert", {{"drive", 0}, {"path", GUEST_HELLO}});
        QVERIFY(bad.status != 0);
        QVERIFY2((bad.out + bad.err).contains("ADF"), (bad.out + bad.err).constData());
        QVERIFY(!t.json("media.floppy.query")["drives"][0].value("disk", true));
        QVERIFY(t.call("media.floppy.insert", {{"drive", 4}, {"path", plain}}).status != 0);
        t.call("quit");
        QVERIFY(t.process().waitForFinished(30000));
    }

    void helloPrintsAndReturnsFive() {
        const Result r = emulate({"--run", GUEST_HELLO, "--run-verbose"});
        QCOMPARE(r.out, QByteArray("hello\n"));
        QCOMPARE(r.status, 5);
        // The hunks' load addresses, from LoadSeg's segment list.
        QVERIFY2(r.err.contains("hunk 0 at $") && r.err.contains("hunk 2 at $"), r.err.constData());
        qInfo("hello: %lld ms wall; %s", r.ms, r.err.right(120).trimmed().constData());
    }

    void argumentsAndGuestApi() {
        const Result r =
            emulate({"--run", GUEST_ECHO_ARGS, "--run-args", "one \"two three\"", "--run-verbose"});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out, QByteArray("one \"two three\"\n"));
        QVERIFY2(r.err.contains("copperline: guest: echo_args says hello to the host"),
                 r.err.constData());
        QVERIFY2(r.err.contains("resource palette 'test palette'"), r.err.constData());
        QVERIFY(r.err.contains("the guest marked idle time"));
    }

    // The A501's clock, which --run's slow RAM brings: AROS sets the system time from it at
    // boot, so a program's DateStamp shows --rtc-time (default 2000-01-01 00:00) plus the
    // emulated seconds since power-on, and counts on.
    void programsReadTheClock() {
        auto stamps = [](const QByteArray& out) {
            QList<QList<long>> lines;
            for (const QByteArray& line : out.split('\n')) {
                const QList<QByteArray> w = line.split(' ');
                if (w.size() == 7 && w[0] == "clock") lines.push_back({w[2].toLong(), w[4].toLong(), w[6].toLong()});
            }
            return lines;
        };
        Result r = emulate({"--run", GUEST_CLOCK, "--rtc-time", "2026-12-07T10:30:00"});
        QCOMPARE(r.status, 0);
        QList<QList<long>> s = stamps(r.out);
        QCOMPARE(s.size(), 2);
        QCOMPARE(s[0][0], 17872L); // days from 1978-01-01 to 2026-12-07
        QCOMPARE(s[0][1], 630L);   // 10:30, the boot's seconds later
        // A second's Delay and a line of output later: at least 50 ticks more (this run
        // measures 59: the Write and the Delay's own rounding), and not many more.
        const long ticks = (s[1][1] - s[0][1]) * 3000 + s[1][2] - s[0][2];
        QVERIFY2(ticks >= 50 && ticks <= 75, r.out.constData());
        r = emulate({"--run", GUEST_CLOCK});
        QCOMPARE(r.status, 0);
        s = stamps(r.out);
        QCOMPARE(s.size(), 2);
        QCOMPARE(s[0][0], 8035L); // 2000-01-01
        QCOMPARE(s[0][1], 0L);
        // The same run twice reads the same time at the same moment.
        QCOMPARE(emulate({"--run", GUEST_CLOCK}).out, r.out);
        // Refused: a time the chip's two year digits cannot hold, and no time at all.
        for (const char* bad : {"1977-12-31", "yesterday"}) {
            r = emulate({"--run", GUEST_CLOCK, "--rtc-time", bad});
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.contains("--rtc-time:") && r.err.contains(bad), r.err.constData());
        }
    }

    void timeoutStatus() {
        const Result r = emulate({"--run", GUEST_FOREVER, "--timeout", "2"});
        QCOMPARE(r.status, 124);
        QVERIFY2(r.err.contains("did not return within 2 emulated seconds"), r.err.constData());
    }

    void crashIsReported() {
        const Result r = emulate({"--run", GUEST_CRASH, "--timeout", "30"});
        QCOMPARE(r.status, 123);
        QVERIFY2(r.err.contains("crashed: address error at $") && r.err.contains("(hunk 0 + $"),
                 r.err.constData());
    }

    // A privilege violation in the program's own code is a crash, reported at the faulting
    // instruction with its function and line from the PROG.elf beside the program.
    void privilegeViolationIsReported() {
        const Result r = emulate({"--run", GUEST_PRIVILEGED, "--timeout", "30"});
        QCOMPARE(r.status, 123);
        QVERIFY2(r.err.contains("crashed: privilege violation at $") &&
                     r.err.contains("(hunk 0 + $") &&
                     r.err.contains("in raise_privilege at privileged.c:7"),
                 r.err.constData());
    }

    // An unhandled TRAP: the report names the TRAP instruction itself, while the exception
    // frame holds the address after it.
    void unhandledTrapIsReported() {
        const Result r = emulate({"--run", GUEST_TRAP, "--timeout", "30"});
        QCOMPARE(r.status, 123);
        const QString err = QString::fromUtf8(r.err);
        const QRegularExpression at(
            R"(crashed: TRAP #5 at \$([0-9A-F]{6}) \(hunk 0 \+ \$[0-9A-F]+\) in raise_trap at trap\.c:7)");
        const QRegularExpression frame(R"(the exception frame holds PC \$([0-9A-F]{6}) and SR)");
        const auto a = at.match(err), f = frame.match(err);
        QVERIFY2(a.hasMatch() && f.hasMatch(), r.err.constData());
        // TRAP #n is one word long; the frame holds the address of the next instruction.
        QCOMPARE(f.captured(1).toUInt(nullptr, 16), a.captured(1).toUInt(nullptr, 16) + 2);
    }

    // A program that handles its own TRAP through tc_TrapCode runs on and returns.
    void handledTrapIsNotACrash() {
        const Result r = emulate({"--run", GUEST_TRAP_HANDLED, "--timeout", "30"});
        QVERIFY2(!r.err.contains("crashed"), r.err.constData());
        QCOMPARE(r.status, 7);
    }

    // With no --timeout a program that never returns is stopped after the default, and
    // --timeout 0 is accepted as no limit (refused before as a non-positive number).
    void defaultTimeout() {
        const Result r = emulate({"--run", GUEST_FOREVER});
        QCOMPARE(r.status, 124);
        QVERIFY2(r.err.contains("did not return within 60 emulated seconds (the default --timeout"),
                 r.err.constData());
        const Result bad = emulate({"--run", GUEST_FOREVER, "--timeout", "-1"});
        QCOMPARE(bad.status, 2);
        QVERIFY2(bad.err.contains("--timeout 0 runs without a limit"), bad.err.constData());
        const Result unlimited = emulate({"--run", GUEST_HELLO, "--timeout", "0"});
        QCOMPARE(unlimited.status, 5);
    }

    void neverLoadedStatus() {
        // The user's disk boots instead of ours and never runs the program: a boot block
        // that takes the machine over.
        QTemporaryDir tmp;
        const std::string adf = bootDisk(tmp, "colour.adf", BOOTBLOCK_COLOUR);
        const Result r = emulate({"--run", GUEST_HELLO, "--floppy0", QString::fromStdString(adf)});
        QCOMPARE(r.status, 126);
        QVERIFY2(r.err.contains("was not loaded within 60 emulated seconds"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void missingProgramIsAUsageError() {
        const Result r = emulate({"--run", "/nonexistent/prog"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("no such file"), r.err.constData());
    }

    void bootBlockChangesTheBackground() {
        QTemporaryDir tmp;
        const std::string adf = bootDisk(tmp, "colour.adf", BOOTBLOCK_COLOUR);
        const QString before = tmp.filePath("before.png"), after = tmp.filePath("after.png");
        const Result r = emulate({"--floppy0", QString::fromStdString(adf), "--screenshot-after",
                                  "2", before, "--screenshot-after", "25", after});
        QCOMPARE(r.status, 0);
        QVERIFY(centreColour(before) != 0x00FF00);
        QCOMPARE(centreColour(after), 0x00FF00u);
    }

    void screenshotAfterBoundsARun() {
        // A program that never returns, bounded by the last --screenshot-after: the picture
        // is taken, the run ends with 0 and its coverage file is written with what ran.
        QTemporaryDir tmp;
        const QString png = tmp.filePath("forever.png"), info = tmp.filePath("forever.info");
        const Result r = emulate({"--run", GUEST_FOREVER, "--coverage", info, "--screenshot-after", "25", png});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY(QFileInfo(png).size() > 0);
        QFile f(info);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY2(text.contains("lines ") && !text.contains("lines 0/"), text.left(400).constData());
        // Before the program loads, the last picture ends the run as "never loaded".
        const Result early = emulate({"--run", GUEST_FOREVER, "--screenshot-after", "2", tmp.filePath("early.png")});
        QCOMPARE(early.status, 126);
        QVERIFY2(early.err.contains("was not loaded by the last --screenshot-after"), early.err.constData());
    }

    void truncatedAdfIsRefused() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("short.adf").toStdString();
        writeFileBytes(path, std::vector<std::uint8_t>(adf::kImageBytes / 2));
        const Result r = emulate({"--floppy0", QString::fromStdString(path), "--screenshot-after",
                                  "1", tmp.filePath("x.png")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--floppy0") &&
                     r.err.contains("not a double-density ADF image: 450560 bytes") &&
                     r.err.contains("truncated after 880 of 1760 sectors"),
                 r.err.constData());
    }

    void userAdfUnchangedAfterAWrite() {
        QTemporaryDir tmp;
        const std::string adf = bootDisk(tmp, "write.adf", BOOTBLOCK_WRITE);
        const std::vector<std::uint8_t> original = readFileBytes(adf);
        const QString shot = tmp.filePath("written.png");
        const Result r =
            emulate({"--floppy0", QString::fromStdString(adf), "--screenshot-after", "30", shot});
        QCOMPARE(r.status, 0);
        QCOMPARE(centreColour(shot), 0x00FF00u); // trackdisk reported success
        QVERIFY2(r.err.contains("the guest wrote to the disk") && r.err.contains("is unchanged"),
                 r.err.constData());
        QCOMPARE(readFileBytes(adf), original);

        // With write-back the same run changes exactly block 1000: the boot block's first
        // 512 bytes, through trackdisk, MFM, write DMA and our decoder.
        // The picture of the first run is written over, as --force asks.
        const Result w = emulate({"--floppy0", QString::fromStdString(adf), "--floppy0-writeback",
                                  "--force", "--screenshot-after", "30", shot});
        QCOMPARE(w.status, 0);
        const std::vector<std::uint8_t> after = readFileBytes(adf);
        QCOMPARE(after.size(), original.size());
        for (std::size_t i = 0; i < after.size(); ++i) {
            const std::size_t block = i / 512;
            const std::uint8_t expect = block == 1000 ? original[i % 512] : original[i];
            if (after[i] != expect)
                QFAIL(qPrintable(QString("byte %1 of block %2 differs").arg(i).arg(block)));
        }
    }

    void exe2adfWritesABootableDisk() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("hello.adf");
        const Result r =
            run(COPPERLINE_CTL, {"exe2adf", GUEST_HELLO, "--out", out, "--args", "a b"});
        QCOMPARE(r.status, 0);
        const AdfImage img = loadAdf(out.toStdString());
        QVERIFY(ofs::bootBlockValid(img));
        QCOMPARE(ofs::volumeName(img), std::string("hello"));
        QCOMPARE(ofs::readFile(img, "hello"), readFileBytes(GUEST_HELLO));
        const auto script = ofs::readFile(img, "s/startup-sequence");
        QCOMPARE(std::string(script.begin(), script.end()), std::string(":hello a b\n"));
        QCOMPARE(ofs::listDirectory(img, ""), (std::vector<std::string>{"S", "hello"}));
        // A program that is not a hunk executable is refused.
        const Result bad = run(COPPERLINE_CTL, {"exe2adf", out, "--out", tmp.filePath("x.adf")});
        QCOMPARE(bad.status, 1);
        QVERIFY(bad.err.contains("copperline-ctl:"));
    }

    void ofsLargeFilesAndChecksums() {
        // Files larger than a header's 72 blocks go through extension blocks.
        ofs::Volume v;
        std::vector<std::uint8_t> big(100'000);
        for (std::size_t i = 0; i < big.size(); ++i)
            big[i] = std::uint8_t(i * 13 + (i >> 8));
        v.files.push_back({"C/Big", big});
        v.files.push_back({"C/Small", {1, 2, 3}});
        AdfImage img = ofs::writeVolume(v);
        QCOMPARE(ofs::readFile(img, "c/big"), big);
        QCOMPARE(ofs::listDirectory(img, "C"), (std::vector<std::string>{"Big", "Small"}));
        img.bytes[882 * 512 + 300] ^= 1; // the first block after the bitmap: directory C
        QVERIFY_THROWS_EXCEPTION(MediaError, ofs::readFile(img, "c/big"));
        QVERIFY_THROWS_EXCEPTION(
            MediaError, ofs::writeVolume({"x", true, {{"S/" + std::string(31, 'a'), {}}}}));
        // The standard boot block's checksum (AmigaDOS manual: the sum is $FFFFFFFF).
        const auto boot = ofs::bootBlock(ofs::bootCode());
        QCOMPARE(ofs::bootBlockChecksum(boot),
                 std::uint32_t(boot[4] << 24 | boot[5] << 16 | boot[6] << 8 | boot[7]));
    }

    void guestApiAccounting() {
        GuestApi api;
        std::vector<std::uint8_t> mem(0x1000, 0);
        api.setMemoryReader(
            [&](std::uint32_t a) { return a < mem.size() ? mem[a] : std::uint8_t(0); });
        api.setRam(std::uint32_t(mem.size()), 0);
        QCOMPARE(api.read(GuestApi::kBase), std::uint16_t(0x434C));
        // Idle from clock 100 to 300 in a frame that ends at 1000, then idle across the
        // frame boundary: 200 in the first frame, 1000 - 900 = 100 and then 50 after it.
        // A nested start and stop inside (WinUAE keeps a stack of them) changes nothing.
        api.setIdle(true, 100);
        api.setIdle(true, 150);
        api.setIdle(false, 200);
        QVERIFY(api.idle());
        api.setIdle(false, 300);
        QVERIFY(!api.idle());
        api.setIdle(false, 400); // one stop too many is harmless
        api.setIdle(true, 900);
        api.frameCommitted(0, 1000);
        QCOMPARE(api.lastFrameIdleCck(), std::uint64_t(300));
        api.setIdle(false, 1050);
        api.frameCommitted(1, 2000);
        QCOMPARE(api.lastFrameIdleCck(), std::uint64_t(50));
        QCOMPARE(api.idleHistory().size(), std::size_t(2));
        QCOMPARE(api.idleHistory()[1].lengthCck, std::uint64_t(1000));
        // A uaelib call with the stack at $F00: function 88, command 4, a debug_resource at
        // $100 naming a 64 x 32 x 3 bitmap "bm" at $400.
        const std::uint8_t stack[] = {0, 0, 0, 0, 0, 0, 0, 88, 0, 0, 0, 4, 0, 0, 1, 0};
        std::copy(std::begin(stack), std::end(stack), mem.begin() + 0xF00);
        const std::uint8_t rec[12] = {0, 0, 4, 0, 0, 0, 0x03, 0, 'b', 'm', 0, 0};
        std::copy(rec, rec + 12, mem.begin() + 0x100);
        const std::uint8_t fields[10] = {0, 0, 0, 1, 0, 64, 0, 32, 0, 3};
        std::copy(fields, fields + 10, mem.begin() + 0x100 + 40);
        QCOMPARE(api.uaelibCall(0xF00, 0, 2), 1u);
        QCOMPARE(api.resources().size(), std::size_t(1));
        const auto& r = api.resources()[0];
        QCOMPARE(r.kind, GuestApi::ResourceKind::Bitmap);
        QCOMPARE(r.address, 0x400u);
        QCOMPARE(r.width, std::uint16_t(64));
        QCOMPARE(r.height, std::uint16_t(32));
        QCOMPARE(r.depth, std::uint16_t(3));
        QCOMPARE(r.flags, std::uint16_t(1));
        QCOMPARE(r.name, std::string("bm"));
        // The same call with the record's address out of memory is refused.
        mem[0xF0E] = 0x20;
        QCOMPARE(api.uaelibCall(0xF00, 0, 2), 0u);
        QVERIFY(api.log().back().refused);
        // A stack pointer into nothing: refused, nothing read.
        QCOMPARE(api.uaelibCall(0xE80000, 0, 2), 0u);
        QVERIFY(api.log().back().text.find("stack pointer") != std::string::npos);
        QCOMPARE(api.resources().size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestRun)
#include "test_run.moc"
