// SPDX-License-Identifier: GPL-3.0-or-later
// A headless `copperline --control`, driven through copperline-ctl the way a script drives
// it: pause, step, registers, memory, breakpoints, a slot row, state, a screenshot, quit.

#include "profiler/capture/png.h"
#include "test_control_fixture.h"

#include <QDir>
#include <QFileInfo>

#include <sys/stat.h>

using namespace copperline;
using namespace copperline::testing;
using nlohmann::json;

class TestControl : public QObject {
    Q_OBJECT

    ControlEmulator emu;

private slots:
    void initTestCase() { QVERIFY(emu.start(uniqueName("test-control"))); }

    void infoFileAndSocketAreOwnerOnly() {
        struct stat st {};
        QCOMPARE(::stat(emu.infoFile().toLocal8Bit().constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
        const std::string socket = emu.socketPath();
        QVERIFY(!socket.empty());
        QCOMPARE(::lstat(socket.c_str(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(int(st.st_mode & 077), 0); // nobody but the owner
        QCOMPARE(st.st_uid, ::geteuid());
        const std::string folder = socket.substr(0, socket.rfind('/'));
        QCOMPARE(::lstat(folder.c_str(), &st), 0);
        QVERIFY(S_ISDIR(st.st_mode));
        QCOMPARE(int(st.st_mode & 0777), 0700);
        QCOMPARE(st.st_uid, ::geteuid());
    }

    void startsPausedAndPauses() {
        const json s = emu.ok("status");
        QCOMPARE(s.value("state", ""), std::string("paused"));
        QCOMPARE(s.value("frame", -1), 0);
        const json p = emu.ok("pause");
        QCOMPARE(p.value("reason", ""), std::string("pause"));
        QCOMPARE(emu.ok("status").value("instructions", -1), s.value("instructions", -2));
    }

    void stepsAndReadsRegisters() {
        const json before = emu.ok("status");
        const json stop = emu.ok("step", {{"n", 25}});
        QCOMPARE(stop.value("reason", ""), std::string("step"));
        QCOMPARE(stop.value("instructions", 0ull), before.value("instructions", 0ull) + 25);
        const json regs = emu.ok("regs.get");
        QCOMPARE(regs.value("pc", 0u), stop.value("pc", 1u));
        QVERIFY(regs.value("sr", 0u) & 0x2000);     // the reset left it in supervisor mode
        QVERIFY(regs.value("pc", 0u) >= 0xF80000u); // still in the ROM

        // A register written is a register read back; a wrong name or type is refused.
        QCOMPARE(emu.ok("regs.set", {{"reg", "d3"}, {"value", "0x12345678"}}).value("d3", 0u),
                 0x12345678u);
        QCOMPARE(emu.ok("regs.get").value("d3", 0u), 0x12345678u);
        QCOMPARE(emu.ctl("regs.set", {{"reg", "d9"}, {"value", 1}}).exitCode, 1);
        QCOMPARE(emu.ctl("regs.set", {{"reg", "d1"}, {"value", true}}).json.value("code", 0),
                 -32602);
    }

    void runsFramesWritesAndReadsMemory() {
        const json stop = emu.ok("step_frame", {{"n", 60}});
        QCOMPARE(stop.value("frame", 0), 60);
        QCOMPARE(stop.value("vpos", -1), 0);

        const json w = emu.ok("mem.write", {{"addr", "$7F000"}, {"data", "0123456789abcdef"}});
        QCOMPARE(w.value("written", 0), 8);
        const json r = emu.ok("mem.read", {{"addr", 0x7F000}, {"len", 8}});
        QCOMPARE(r.value("data", ""), std::string("0123456789abcdef"));
        const json b = emu.ok("mem.read", {{"addr", 0x7F002}, {"len", 4}, {"encoding", "base64"}});
        QCOMPARE(b.value("data", ""), std::string("RWeJqw=="));
        QCOMPARE(
            emu.ok("mem.write", {{"addr", 0x7F010}, {"data", "3q2+7w=="}, {"encoding", "base64"}})
                .value("written", 0),
            4);
        QCOMPARE(emu.ok("mem.read", {{"addr", 0x7F010}, {"len", 4}}).value("data", ""),
                 std::string("deadbeef"));
        // The ROM is not RAM: nothing is written, and the error says so.
        const auto rom = emu.ctl("mem.write", {{"addr", 0xF80000}, {"data", "00"}});
        QCOMPARE(rom.exitCode, 1);
        QCOMPARE(rom.json.value("code", 0), -32602);
        const json d = emu.ok("disasm", {{"count", 4}});
        QCOMPARE(d["instructions"].size(), std::size_t(4));
        QCOMPARE(d["instructions"][0].value("addr", 0u), emu.ok("regs.get").value("pc", 1u));
    }

    // Under --run the program's own functions name its lines and its calls' targets.
    void disassemblyNamesTheRunProgramsFunctions() {
        const QString hello =
            QFileInfo(COPPERLINE_EXE).dir().filePath("../resources/guest/amiga/hello");
        if (!QFileInfo::exists(hello)) QSKIP("the guest programs are not built");
        ControlEmulator run;
        QVERIFY(run.start(uniqueName("test-control-run"), {"--run", hello}));
        const json stop = run.ok("continue");
        QCOMPARE(stop.value("reason", ""), std::string("loadseg"));
        const json lines = run.ok("disasm", {{"count", 16}})["instructions"];
        QCOMPARE(lines[0].value("symbol", ""), std::string("_start"));
        QCOMPARE(lines[0].value("symbol_offset", 99u), 0u);
        bool callsMain = false;
        for (const json& l : lines) {
            QCOMPARE(l.value("symbol", ""), std::string("_start"));
            callsMain |=
                l.value("text", "").starts_with("jsr") && l.value("target_symbol", "") == "main";
        }
        QVERIFY2(callsMain, lines.dump().c_str());
        QVERIFY(run.quit());
    }

    void stopsAtBreakpointsAndSavesAndLoadsState() {
        const QString state = emu.path("frame60.clstate");
        const json saved = emu.ok("state.save", {{"path", state.toStdString()}});
        QVERIFY(saved.value("bytes", 0) > 512 * 1024);
        const std::string hash = saved.value("hash", "");
        QCOMPARE(emu.ok("state.hash").value("hash", ""), hash);

        // Where the CPU is 5000 instructions on: the breakpoint's address.
        const json ahead = emu.ok("step", {{"n", 5000}});
        const unsigned target = ahead.value("pc", 0u);
        QVERIFY(emu.ok("state.hash").value("hash", "") != hash);

        // Back to frame 60, and the same state exactly.
        const json loaded = emu.ok("state.load", {{"path", state.toStdString()}});
        QCOMPARE(loaded.value("hash", ""), hash);
        QCOMPARE(emu.ok("status").value("frame", 0), 60);
        const json info = emu.ok("state.info", {{"path", state.toStdString()}});
        QVERIFY(info.value("compatible", false));

        const json bp = emu.ok("break.add", {{"kind", "pc"}, {"addr", target}});
        const int id = bp.value("id", 0);
        QVERIFY(id > 0);
        QCOMPARE(emu.ok("break.list")["breakpoints"].size(), std::size_t(1));
        const json hit = emu.ok("continue");
        QCOMPARE(hit.value("reason", ""), std::string("breakpoint"));
        QCOMPARE(hit.value("pc", 0u), target);
        QCOMPARE(hit["detail"].value("id", 0), id);
        QVERIFY(hit.value("instructions", 0ull) <= ahead.value("instructions", 0ull));
        QVERIFY(hit.contains("frame") && hit.contains("vpos") && hit.contains("hpos"));
        QCOMPARE(emu.ok("break.remove", {{"id", id}}).value("removed", 0), id);
        QCOMPARE(emu.ctl("break.remove", {{"id", id}}).json.value("code", 0), -32007);

        // A watchpoint: AROS reads SysBase from $4 all the time.
        const json wp =
            emu.ok("break.add", {{"kind", "watch"}, {"addr", 4}, {"len", 4}, {"access", "read"}});
        const json watch = emu.ok("continue");
        QCOMPARE(watch.value("reason", ""), std::string("watchpoint"));
        QCOMPARE(watch["detail"].value("access", ""), std::string("read"));
        QVERIFY(watch["detail"].value("address", 99u) < 8u);
        QCOMPARE(emu.ok("break.clear").value("removed", 0), 1);
    }

    void readsASlotRow() {
        emu.ok("frame.slots", {{"row", 100}}); // arms recording from here on
        emu.ok("step_frame", {{"n", 1}});
        const json row = emu.ok("frame.slots", {{"row", 100}});
        QVERIFY(row.value("recorded", false));
        QCOMPARE(row.value("row", 0), 100);
        QCOMPARE(row.value("line_cck", 0), 227);
        const json& cells = row["slots"];
        QCOMPARE(cells.size(), std::size_t(227));
        // Memory refresh takes the line's odd clocks $01, $03 and $05 (ocs-timing-facts 2).
        constexpr std::size_t kRefresh[] = {1, 3, 5};
        for (const std::size_t h : kRefresh)
            QCOMPARE(cells[h].value("owner", ""), std::string("refresh"));
        QCOMPARE(cells[1].value("hpos", 0), 1);
        QVERIFY(cells[1].contains("events") && cells[1].contains("flags"));
        QCOMPARE(emu.ctl("frame.slots", {{"row", 400}}).json.value("code", 0), -32602);
    }

    void takesAScreenshot() {
        const QString png = emu.path("shot.png");
        const json shot = emu.ok("capture.screenshot", {{"path", png.toStdString()}});
        QCOMPARE(shot.value("width", 0), 908);
        QCOMPARE(shot.value("height", 0), 626);
        const Image img = readPng(png.toStdString());
        QCOMPARE(img.width, 908u);
        QCOMPARE(img.height, 626u);
        const auto unwritable = emu.ctl("capture.screenshot", {{"path", "/nonexistent-dir/x.png"}});
        QCOMPARE(unwritable.json.value("code", 0), -32005);
    }

    void replPrintsRepliesAndNotifications() {
        QProcess repl;
        repl.start(COPPERLINE_CTL_EXE, {"--info", emu.infoFile(), "--repl"});
        QVERIFY(repl.waitForStarted());
        repl.write("# frames and stops arrive as notifications\n"
                   "events.subscribe {\"events\": [\"event.frame\", \"event.stopped\", "
                   "\"event.serial\"]}\n"
                   "step_frame {\"n\": 3}\n"
                   "status\n");
        repl.closeWriteChannel();
        QVERIFY(repl.waitForFinished(60000));
        QCOMPARE(repl.exitCode(), 0);
        int replies = 0, frames = 0, stops = 0;
        for (const QByteArray& line : repl.readAllStandardOutput().split('\n')) {
            if (line.trimmed().isEmpty()) continue;
            const json j = json::parse(line.constData(), nullptr, false);
            QVERIFY2(j.is_object(), line.constData());
            if (j.contains("id")) ++replies;
            const std::string method = j.value("method", "");
            if (method == "event.frame") {
                ++frames;
                QVERIFY(j["params"].contains("owner_cck"));
                QCOMPARE(j["params"].value("dropped_notifications", -1), 0);
            }
            if (method == "event.stopped") {
                ++stops;
                QCOMPARE(j["params"].value("reason", ""), std::string("step"));
            }
        }
        QCOMPARE(replies, 3);
        QCOMPARE(frames, 3);
        QCOMPARE(stops, 1);
    }

    void oneResumeAtATime() {
        // A free run: a step is refused until the machine is paused.
        QCOMPARE(emu.ok("continue", {{"wait", false}}).value("state", ""), std::string("running"));
        QCOMPARE(emu.ctl("step").json.value("code", 0), -32003);
        QCOMPARE(emu.ok("pause").value("reason", ""), std::string("pause"));

        // A waiting continue: a second resume is refused, and a pause answers the first.
        QProcess waiting;
        waiting.start(COPPERLINE_CTL_EXE, {"--info", emu.infoFile(), "continue"});
        QVERIFY(waiting.waitForStarted());
        QTRY_COMPARE(emu.ok("status").value("state", ""), std::string("running"));
        QCOMPARE(emu.ctl("continue").json.value("code", 0), -32002);
        QCOMPARE(emu.ctl("run_until", {{"frame", 1000000}}).json.value("code", 0), -32002);
        QCOMPARE(emu.ctl("state.load", {{"path", "/nonexistent"}}).json.value("code", 0), -32003);
        emu.ok("pause");
        QVERIFY(waiting.waitForFinished(30000));
        QCOMPARE(waiting.exitCode(), 0);
        const json stop = json::parse(waiting.readAllStandardOutput().constData(), nullptr, false);
        QCOMPARE(stop.value("reason", ""), std::string("pause"));
    }

    // For a person copperline-ctl prints addresses and registers in hex (--hex, the default
    // on a terminal); for a script (--raw, the default into a pipe) the protocol's numbers.
    void ctlPrintsAddressesInHexOnRequest() {
        const json raw = emu.ok("regs.get");
        QVERIFY(raw["pc"].is_number_unsigned());
        QProcess p;
        p.start(COPPERLINE_CTL_EXE, {"--info", emu.infoFile(), "--hex", "regs.get"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const json hex = json::parse(p.readAllStandardOutput().constData(), nullptr, false);
        char want[16];
        std::snprintf(want, sizeof want, "$%08X", raw.value("pc", 0u));
        QCOMPARE(hex.value("pc", ""), std::string(want));
        std::snprintf(want, sizeof want, "$%08X", raw.value("d3", 0u));
        QCOMPARE(hex.value("d3", ""), std::string(want));
        std::snprintf(want, sizeof want, "$%08X", raw.value("a7", 0u));
        QCOMPARE(hex.value("a7", ""), std::string(want));
        std::snprintf(want, sizeof want, "$%04X", raw.value("sr", 0u));
        QCOMPARE(hex.value("sr", ""), std::string(want));
        // Counts stay numbers; nested addresses are hex too.
        p.start(COPPERLINE_CTL_EXE,
                {"--info", emu.infoFile(), "--hex", "disasm", R"({"count": 2})"});
        QVERIFY(p.waitForFinished(30000));
        const json lines = json::parse(p.readAllStandardOutput().constData(), nullptr, false);
        QVERIFY2(lines["instructions"][0].value("addr", "").starts_with("$00"),
                 lines.dump().c_str());
        QVERIFY(lines["instructions"][0]["length"].is_number());
        p.start(COPPERLINE_CTL_EXE, {"--info", emu.infoFile(), "--raw", "status"});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY(
            json::parse(p.readAllStandardOutput().constData(), nullptr, false)["pc"].is_number());
        // The REPL too.
        QProcess repl;
        repl.start(COPPERLINE_CTL_EXE, {"--info", emu.infoFile(), "--hex", "--repl"});
        QVERIFY(repl.waitForStarted());
        repl.write("regs.get\n");
        repl.closeWriteChannel();
        QVERIFY(repl.waitForFinished(30000));
        const json line =
            json::parse(repl.readAllStandardOutput().trimmed().constData(), nullptr, false);
        QCOMPARE(line["result"].value("pc", ""), hex.value("pc", ""));
    }

    void unknownMethodsFail() {
        const auto r = emu.ctl("no.such.method");
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.json.value("code", 0), -32601);
    }

    // `quit` from one client while another waits for a resume and more requests queue
    // behind it: every request gets its answer before the sockets close.
    void quitAnswersEveryClient() {
        ControlEmulator second;
        QVERIFY(second.start(uniqueName("test-control-quit")));
        Raw runner(second.socketPath()), quitter(second.socketPath());
        QVERIFY(runner.connected());
        QVERIFY(quitter.connected());
        runner.send(R"({"jsonrpc":"2.0","id":1,"method":"continue"})"
                    "\n");
        // The continue has run once the machine reports itself running.
        bool running = false;
        for (int i = 0; i < 200 && !running; ++i) {
            quitter.send(QByteArray(R"({"jsonrpc":"2.0","id":"s","method":"status"})") + "\n");
            const json s = quitter.replyTo("s");
            QVERIFY(s.is_object());
            running = s["result"].value("state", "") == "running";
        }
        QVERIFY(running);
        // The quit, and a request behind it in the same write.
        quitter.send(R"({"jsonrpc":"2.0","id":7,"method":"quit"})"
                     "\n"
                     R"({"jsonrpc":"2.0","id":8,"method":"status"})"
                     "\n");
        const json quit = quitter.replyTo(7);
        QCOMPARE(quit.value("result", json()).value("quitting", false), true);
        QCOMPARE(errorCode(quitter.replyTo(8)), -32011);
        QCOMPARE(errorCode(runner.replyTo(1)), -32011);
        QVERIFY(second.process().waitForFinished(20000));
        QCOMPARE(second.process().exitStatus(), QProcess::NormalExit);
        QCOMPARE(second.process().exitCode(), 0);
    }

    // No command writes over a file it did not create unless the call says "overwrite".
    void refusesToOverwriteAFile() {
        const QString mine = emu.path("mine.png");
        {
            QFile f(mine);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("a user's file");
        }
        for (const char* method : {"capture.screenshot", "state.save"}) {
            const auto r = emu.ctl(method, {{"path", mine.toStdString()}});
            QCOMPARE(r.json.value("code", 0), -32005);
            QVERIFY2(QString::fromStdString(r.json.value("message", ""))
                         .contains("exists; \"overwrite\": true writes over it"),
                     r.err.constData());
        }
        QFile f(mine);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("a user's file"));
        f.close();
        emu.ok("capture.screenshot", {{"path", mine.toStdString()}, {"overwrite", true}});
        QCOMPARE(readPng(mine.toStdString()).width, 908u);
        QCOMPARE(emu.ctl("state.save", {{"path", mine.toStdString()}, {"overwrite", "yes"}})
                     .json.value("code", 0),
                 -32602);
    }

    // A relative path is the client's: copperline-ctl sends it absolute, and the result
    // names the absolute file.
    void relativePathsAreTheClients() {
        QDir(emu.path("")).mkdir("client");
        const QString folder = QFileInfo(emu.path("client")).canonicalFilePath();
        QProcess p;
        p.setWorkingDirectory(folder);
        p.start(COPPERLINE_CTL_EXE,
                {"--info", emu.infoFile(), "state.save", R"({"path": "sub/../rel.clstate"})"});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const json r = json::parse(p.readAllStandardOutput().constData(), nullptr, false);
        QCOMPARE(QString::fromStdString(r.value("path", "")), folder + "/rel.clstate");
        QVERIFY(QFile::exists(folder + "/rel.clstate"));
    }

    // --repl sends a line only when the previous reply has come: after a continue that
    // stops at a breakpoint, regs.get sees the machine stopped there.
    void replWaitsForEachReply() {
        const QString state = emu.path("repl.clstate");
        emu.ok("state.save", {{"path", state.toStdString()}});
        const unsigned target = emu.ok("step", {{"n", 20000}}).value("pc", 0u);
        emu.ok("state.load", {{"path", state.toStdString()}});
        const int id = emu.ok("break.add", {{"kind", "pc"}, {"addr", target}}).value("id", 0);
        QProcess repl;
        repl.start(COPPERLINE_CTL_EXE, {"--info", emu.infoFile(), "--repl"});
        QVERIFY(repl.waitForStarted());
        repl.write("continue\nregs.get\n");
        repl.closeWriteChannel();
        QVERIFY(repl.waitForFinished(60000));
        QCOMPARE(repl.exitCode(), 0);
        unsigned stoppedAt = 0, regsPc = 0;
        for (const QByteArray& line : repl.readAllStandardOutput().split('\n')) {
            const json j = json::parse(line.constData(), nullptr, false);
            if (!j.is_object() || !j.contains("id")) continue;
            if (j.value("id", 0) == 1) stoppedAt = j["result"].value("pc", 0u);
            if (j.value("id", 0) == 2) regsPc = j["result"].value("pc", 0u);
        }
        QCOMPARE(stoppedAt, target);
        QCOMPARE(regsPc, target);
        emu.ok("break.remove", {{"id", id}});
    }

    // copperline-ctl with nothing listening says so, and how to start one.
    void noServerListening() {
        QProcess p;
        p.start(COPPERLINE_CTL_EXE, {"--socket", "copperline-test-nobody-here", "status"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 3);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("no Copperline is listening on copperline-test-nobody-here") &&
                     err.contains("copperline --control copperline-test-nobody-here"),
                 qPrintable(err));
    }

    // The disassembly names what it shows: a jump-table entry's target (exec's AllocMem,
    // LVO -198, through ExecBase at 4) and the function's first line.
    void disassemblyNamesRomFunctions() {
        emu.ok("step_frame", {{"n", 300}}); // exec is up and its jump table made
        const json base = emu.ok("mem.read", {{"addr", 4}, {"len", 4}});
        const std::uint32_t execBase =
            std::uint32_t(std::stoul(base.value("data", "0"), nullptr, 16));
        QVERIFY(execBase > 0);
        const json entry =
            emu.ok("disasm", {{"addr", execBase - 198}, {"count", 1}})["instructions"][0];
        QVERIFY2(entry.value("text", "").starts_with("jmp"), entry.dump().c_str());
        QCOMPARE(entry.value("target_symbol", ""), std::string("[Kick]exec/AllocMem"));
        // The slot is named as the JMP to the function it is.
        QCOMPARE(entry.value("symbol", ""), std::string("[Kick]exec/AllocMem (jump table)"));
        const std::uint32_t allocMem = entry.value("target", 0u);
        const json body = emu.ok("disasm", {{"addr", allocMem}, {"count", 3}})["instructions"];
        QCOMPARE(body[0].value("symbol", ""), std::string("[Kick]exec/AllocMem"));
        QCOMPARE(body[0].value("symbol_offset", 99u), 0u);
        QCOMPARE(body[1].value("symbol", ""), std::string("[Kick]exec/AllocMem"));
        QCOMPARE(body[1].value("symbol_offset", 0u), body[1].value("addr", 0u) - allocMem);
        // Chip RAM holds no function.
        QVERIFY(!emu.ok("disasm", {{"addr", 0x7F000}, {"count", 1}})["instructions"][0].contains(
            "symbol"));
    }

    void cleanupTestCase() { QVERIFY(emu.quit()); }
};

QTEST_GUILESS_MAIN(TestControl)
#include "test_control.moc"
