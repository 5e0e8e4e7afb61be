// SPDX-License-Identifier: GPL-3.0-or-later
// The debug family and the debug overlay through the emulator thread: a bare-metal
// program calls uaelib as gcc8_c_support does (tests/guest/uaelib/uaelib_calls.c), and
// debug.resources, debug.idle, event.debug and capture.screenshot report what it did.

#include "app/control/emulator.h"
#include "app/control/params.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/overlay.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>
#include <mutex>
#include <vector>

using namespace copperline;
using nlohmann::json;

class TestDebugCommands : public QObject {
    Q_OBJECT
private slots:
    // The emulator's own loop takes a sleeping CPU's STOP steps together too: the same
    // machine as runFrame, frame by frame, and a breakpoint on the handler that wakes it
    // stops where stepping one instruction at a time reaches it.
    void stopStepsInTheEmulatorLoop() {
        const std::vector<std::uint8_t> program = readFileBytes(HW_STOP_WAKE);
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(program);
        Machine ref;
        ref.bootBareMetal(program);
        Emulator e(std::move(m), {});
        e.start();
        const auto hash = [&e] { return e.call("state.hash").result.value("hash", std::string()); };
        std::uint64_t stopped = 0;
        for (int k = 0; k < 3; ++k) {
            QVERIFY(e.call("step_frame", {{"n", 20}}).ok);
            for (int i = 0; i < 20; ++i) {
                ref.runFrame();
                stopped += ref.lastFrameStats().cpuStoppedCycles;
            }
            QCOMPARE(hash(), params::hex64(ref.stateHash()));
        }
        QVERIFY(stopped > 60ull * 100000); // the CPU slept most of every frame

        const std::uint32_t level3 = std::uint32_t(ref.chipRam().readWord(0x6C)) << 16 | ref.chipRam().readWord(0x6E);
        QVERIFY(e.call("break.add", {{"kind", "pc"}, {"addr", level3}}).ok);
        for (int k = 0; k < 4; ++k) {
            const auto r = e.call("continue");
            QVERIFY(r.ok);
            QCOMPARE(r.result.value("reason", ""), std::string("breakpoint"));
            ref.stepInstruction();
            while (ref.cpu().instructionAddress() != level3) ref.stepInstruction();
            QCOMPARE(hash(), params::hex64(ref.stateHash()));
        }

        // A breakpoint on the stopped CPU's own pc: each continue (which passes the pc it
        // starts on once) takes the one STOP step it must, not a stretch of them, or runs
        // the handler that step woke the CPU for and stops on its return.
        QVERIFY(e.call("break.clear").ok);
        QVERIFY(e.call("step_frame", {{"n", 1}}).ok);
        ref.runFrame();
        QCOMPARE(hash(), params::hex64(ref.stateHash()));
        QVERIFY(ref.cpu().stopped());
        const std::uint32_t asleep = ref.cpu().instructionAddress();
        QVERIFY(e.call("break.add", {{"kind", "pc"}, {"addr", asleep}}).ok);
        for (int k = 0; k < 200; ++k) {
            const auto r = e.call("continue");
            QCOMPARE(r.result.value("reason", ""), std::string("breakpoint"));
            ref.stepInstruction();
            while (ref.cpu().instructionAddress() != asleep) ref.stepInstruction();
            QCOMPARE(hash(), params::hex64(ref.stateHash()));
        }
    }

    // uaelib function 82 as Bartman's warpmode(1) calls it: a paced session (the window)
    // runs unpaced while the program asks, and the person's warp.set has the last word.
    void theProgramsWarpReachesThePacing() {
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(readFileBytes(GUEST_UAELIB_CALLS));
        Emulator::Options o;
        o.paced = true;
        Emulator e(std::move(m), o);
        e.start();
        QCOMPARE(e.call("warp.get").result["source"], "none");
        QVERIFY(e.call("step_frame", {{"n", 20}}).ok);
        const json w = e.call("warp.get").result;
        QCOMPARE(w["on"], true);
        QCOMPARE(w["source"], "guest");
        const json off = e.call("warp.set", {{"on", false}}).result;
        QCOMPARE(off["on"], false);
        QCOMPARE(off["source"], "none");
    }

    void reportWhatTheGuestTold() {
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(readFileBytes(GUEST_UAELIB_CALLS));
        Emulator e(std::move(m), {});
        std::mutex mutex;
        std::vector<json> events;
        e.addListener([&](const std::string& method, const json& params) {
            if (method != "event.debug") return;
            std::lock_guard lock(mutex);
            events.push_back(params);
        });
        e.start();
        QVERIFY(e.call("step_frame", {{"n", 20}}).ok);

        const auto res = e.call("debug.resources");
        QVERIFY(res.ok);
        const json& list = res.result["resources"];
        QCOMPARE(list.size(), std::size_t(2));
        QCOMPARE(list[0]["kind"], "bitmap");
        QCOMPARE(list[0]["name"], "ship");
        QCOMPARE(list[0]["width"], 320);
        QCOMPARE(list[0]["height"], 16);
        QCOMPARE(list[0]["planes"], 2);
        QCOMPARE(list[0]["bytes_per_row"], 40);
        QCOMPARE(list[0]["flag_names"], json::array({"interleaved"}));
        QCOMPARE(list[1]["kind"], "palette");
        QCOMPARE(list[1]["entries"], 4);

        const auto idle = e.call("debug.idle", {{"frames", 64}});
        QVERIFY(idle.ok);
        QCOMPARE(idle.result["markers_seen"], true);
        QCOMPARE(idle.result["idle"], false);
        int idleFrames = 0;
        for (const auto& f : idle.result["frames"]) {
            QCOMPARE(f["idle_cck"].get<std::uint64_t>() + f["busy_cck"].get<std::uint64_t>(),
                     f["length_cck"].get<std::uint64_t>());
            idleFrames += f["idle_cck"] != 0;
        }
        QCOMPARE(idleFrames, 1);
        QCOMPARE(e.call("debug.idle", {{"frames", 1}}).result["frames"].size(), std::size_t(1));

        // The log line, the refusals and the resources arrived as event.debug.
        {
            std::lock_guard lock(mutex);
            bool hello = false, refusal = false, resources = false;
            for (const auto& ev : events)
                for (const auto& item : ev["items"]) {
                    if (item["kind"] == "log" &&
                        item["text"] == "uaelib_calls: hello from bare metal")
                        hello = !item["refused"].get<bool>();
                    if (item["kind"] == "log" && item["refused"] == true) refusal = true;
                    if (item["kind"] == "resources") resources = item["resources"].size() == 2;
                }
            QVERIFY(hello);
            QVERIFY(refusal);
            QVERIFY(resources);
        }

        // The overlay is drawn into the screenshot when asked, and only then. The program's
        // red rectangle's top left corner is the overlay's (10, 20).
        QTemporaryDir dir;
        const std::string plain = dir.filePath("plain.png").toStdString();
        const std::string over = dir.filePath("overlay.png").toStdString();
        QVERIFY(e.call("capture.screenshot", {{"path", plain}}).ok);
        QVERIFY(e.call("capture.screenshot", {{"path", over}, {"overlays", {"debug"}}}).ok);
        const Image a = readPng(plain), b = readPng(over);
        const unsigned x = kOverlayOriginX + 10, y = kOverlayOriginY + 20;
        QCOMPARE(b.at(x, y) & 0xFFFFFF, 0xFF0000u);
        QVERIFY((a.at(x, y) & 0xFFFFFF) != 0xFF0000u);
        QCOMPARE(b.at(x + 1, y + 1), a.at(x + 1, y + 1)); // inside the outline: the picture
        // "SCORE 42" at (16, 32): the S's first column lights rows 1, 2 and 6 of its cell.
        QCOMPARE(b.at(kOverlayOriginX + 16, kOverlayOriginY + 33) & 0xFFFFFF, 0xFFFFFFu);
        QCOMPARE(b.at(kOverlayOriginX + 16, kOverlayOriginY + 32),
                 a.at(kOverlayOriginX + 16, kOverlayOriginY + 32));
        QCOMPARE(e.snapshot()->overlay->size(), std::size_t(3));

        // Bad parameters are refused and name themselves.
        const auto bad = e.call("capture.screenshot", {{"path", over}, {"overlays", {"blits"}}});
        QCOMPARE(bad.errorCode, errc::InvalidParams);
        QVERIFY(bad.errorMessage.find("overlays") != std::string::npos);
        QCOMPARE(e.call("capture.screenshot", {{"path", over}, {"overlays", "debug"}}).errorCode,
                 errc::InvalidParams);
        QCOMPARE(e.call("debug.idle", {{"frames", 0}}).errorCode, errc::InvalidParams);
        QCOMPARE(e.call("debug.idle", {{"frames", 65}}).errorCode, errc::InvalidParams);
        QCOMPARE(e.call("debug.idle", {{"frames", "many"}}).errorCode, errc::InvalidParams);
        e.stop();
    }

    // step_over and step_out on a program of known calls: a BSR into a routine that calls
    // a leaf, a TRAP, a recursive routine whose call site is reached again deeper down,
    // and a loop that never returns.
    void stepsOverAndOutOfCalls() {
        constexpr std::uint32_t B = 0x1000, kStack = 0x60000;
        // clang-format off
        const std::vector<std::uint8_t> code = {
            0x61, 0x00, 0x00, 0x0A, // B+00  bsr.w  sub
            0x4E, 0x71,             // B+04  nop
            0x4E, 0x40,             // B+06  trap   #0
            0x4E, 0x71,             // B+08  nop
            0x60, 0xFE,             // B+0A  bra.s  .        (no caller: step_out's bound)
            0x52, 0x81,             // B+0C  sub:  addq.l #1,d1
            0x61, 0x00, 0x00, 0x06, // B+0E        bsr.w  leaf
            0x52, 0x81,             // B+12        addq.l #1,d1
            0x4E, 0x75,             // B+14        rts
            0x52, 0x82,             // B+16  leaf: addq.l #1,d2
            0x4E, 0x75,             // B+18        rts
            0x53, 0x80,             // B+1A  rec:  subq.l #1,d0
            0x67, 0x06,             // B+1C        beq.s  done
            0x61, 0x00, 0xFF, 0xFA, // B+1E        bsr.w  rec
            0x52, 0x83,             // B+22        addq.l #1,d3
            0x4E, 0x75,             // B+24  done: rts
            0x52, 0x84,             // B+26  trap0: addq.l #1,d4
            0x4E, 0x73,             // B+28         rte
        };
        // clang-format on
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(code, B, kStack);
        Emulator e(std::move(m), {});
        e.start();
        QVERIFY(e.call("mem.write", {{"addr", 0x80}, {"data", "00001026"}}).ok); // TRAP #0
        const auto reg = [&](const char* name) {
            return e.call("regs.get").result[name].get<std::uint32_t>();
        };
        const auto set = [&](const char* name, std::uint32_t v) {
            QVERIFY(e.call("regs.set", {{"reg", name}, {"value", v}}).ok);
        };
        set("sr", 0x2700); // no interrupt comes between the steps
        QCOMPARE(reg("pc"), B);

        // Over the BSR: sub and its leaf run, the stop is at the NOP after the call.
        auto stop = e.call("step_over");
        QVERIFY2(stop.ok, stop.errorMessage.c_str());
        QCOMPARE(stop.result["reason"], "step");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 4);
        QCOMPARE(stop.result["instructions"].get<std::uint64_t>(), 7u);
        QCOMPARE(reg("d1"), 2u);
        QCOMPARE(reg("d2"), 1u);
        QCOMPARE(reg("a7"), kStack);
        // Not a call: one step. Over the TRAP: its handler runs and returns.
        stop = e.call("step_over");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 6);
        QCOMPARE(stop.result["instructions"].get<std::uint64_t>(), 8u);
        stop = e.call("step_over");
        QCOMPARE(stop.result["reason"], "step");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 8);
        QCOMPARE(reg("d4"), 1u);

        // Into sub and its leaf, then out of each: the stop follows the call that returns.
        set("pc", B);
        QCOMPARE(e.call("step", {{"n", 3}}).result["pc"].get<std::uint32_t>(), B + 0x16);
        QCOMPARE(reg("a7"), kStack - 8);
        stop = e.call("step_out");
        QCOMPARE(stop.result["reason"], "step");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 0x12);
        QCOMPARE(reg("a7"), kStack - 4);
        stop = e.call("step_out");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 4);
        QCOMPARE(reg("a7"), kStack);

        // A breakpoint on the way stops there.
        set("pc", B);
        QVERIFY(e.call("break.add", {{"kind", "pc"}, {"addr", B + 0x16}}).ok);
        stop = e.call("step_over");
        QCOMPARE(stop.result["reason"], "breakpoint");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 0x16);
        QVERIFY(e.call("break.clear").ok);
        // The stop detached the watch: a plain step from here is one instruction.
        QCOMPARE(e.call("step").result["pc"].get<std::uint32_t>(), B + 0x18);

        // A recursive routine comes back to the instruction after its own call site three
        // levels deep; step_over stops there only at the depth it started from.
        set("pc", B + 0x1E);
        set("a7", kStack);
        set("d0", 3);
        set("d3", 0);
        stop = e.call("step_over");
        QCOMPARE(stop.result["reason"], "step");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 0x22);
        QCOMPARE(reg("d3"), 2u); // the two deeper returns ran on
        QCOMPARE(reg("a7"), kStack);

        // With no routine to return from, step_out ends at its bound, and says so.
        set("pc", B + 0x0A);
        const auto before = e.call("status").result["instructions"].get<std::uint64_t>();
        stop = e.call("step_out");
        QVERIFY(stop.ok);
        QCOMPARE(stop.result["reason"], "budget");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), B + 0x0A);
        QCOMPARE(stop.result["instructions"].get<std::uint64_t>() - before, 5'000'000u);

        // In user mode each task has its stack: a return in another task (exec's ThisTask
        // another) does not end the step, however high its stack. A made-up ExecBase at
        // $2000 (ChkBase its complement) names task $3000 or $3200.
        // clang-format off
        const std::vector<std::uint8_t> tasks = {
            0x23, 0xFC, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x21, 0x14, // C+00  move.l #$3200,ThisTask
            0x2E, 0x7C, 0x00, 0x06, 0x00, 0x00,                         // C+0A  movea.l #$60000,sp
            0x4E, 0x75,                                                 // C+10  rts (task $3200's)
            0x23, 0xFC, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x21, 0x14, // C+12  move.l #$3000,ThisTask
            0x2E, 0x7C, 0x00, 0x05, 0x00, 0x00,                         // C+1C  movea.l #$50000,sp
            0x4E, 0x75,                                                 // C+22  rts (ours)
            0x4E, 0x71,                                                 // C+24  nop
        };
        // clang-format on
        constexpr std::uint32_t C = 0x1100;
        const auto write = [&](std::uint32_t addr, const std::string& hex) {
            QVERIFY(e.call("mem.write", {{"addr", addr}, {"data", hex}}).ok);
        };
        std::string taskCode;
        for (const std::uint8_t b : tasks) {
            char two[3];
            std::snprintf(two, sizeof two, "%02x", b);
            taskCode += two;
        }
        write(C, taskCode);
        write(0x2000 + 38, "ffffdfff");  // ChkBase
        write(0x2000 + 276, "00003000"); // ThisTask
        write(4, "00002000");
        write(0x60000, "00001112"); // task $3200's return address: C+12
        write(0x50000, "00001124"); // ours: C+24
        set("pc", C);
        set("sr", 0x0700); // user mode, on the user stack
        set("a7", 0x50000);
        stop = e.call("step_out");
        QCOMPARE(stop.result["reason"], "step");
        QCOMPARE(stop.result["pc"].get<std::uint32_t>(), C + 0x24);
        QCOMPARE(reg("a7"), 0x50004u);

        // Both want a paused machine and take no parameters.
        QCOMPARE(e.call("step_over", {{"n", 2}}).errorCode, errc::InvalidParams);
        QVERIFY(e.call("continue", {{"wait", false}}).ok);
        QCOMPARE(e.call("step_over").errorCode, errc::InvalidState);
        QCOMPARE(e.call("step_out").errorCode, errc::InvalidState);
        QVERIFY(e.call("pause").ok);
        e.stop();
    }
};

QTEST_GUILESS_MAIN(TestDebugCommands)
#include "test_debug_commands.moc"
