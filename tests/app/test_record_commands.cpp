// SPDX-License-Identifier: GPL-3.0-or-later
// The record's commands through Emulator::call, as the window and the control server use
// them: reverse_step against states saved on the way, an AROS session with scheduled key
// and mouse input sought back 8 s and run forward again frame by frame, last_writer,
// reverse_continue, the input commands' shapes, and bad input that changes nothing.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "profiler/capture/png.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <map>
#include <future>
#include <mutex>

using namespace copperline;
using nlohmann::json;

namespace {

std::unique_ptr<Emulator> start(std::unique_ptr<Machine> m) {
    auto e = std::make_unique<Emulator>(std::move(m), Emulator::Options{});
    e->start();
    return e;
}

std::unique_ptr<Emulator> churn() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(RECORD_CHURN));
    return start(std::move(m));
}

std::unique_ptr<Emulator> aros() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    return start(std::move(m));
}

std::string hash(Emulator& e) {
    return e.call("state.hash").result.value("hash", std::string());
}

int code(const CommandResult& r) {
    return r.ok ? 0 : r.errorCode;
}

} // namespace

class TestRecordCommands : public QObject {
    Q_OBJECT
private slots:
    void reverseStepStandsWhereTheStepsWere() {
        auto e = churn();
        // Past the program's noise fill, into its frames of blits and interrupts.
        QVERIFY(e->call("step_frame", {{"n", 170}}).ok);
        std::vector<std::string> hashes{hash(*e)};
        std::vector<json> regs{e->call("regs.get").result};
        for (int i = 0; i < 400; ++i) {
            QVERIFY(e->call("step", {{"n", 41}}).ok);
            hashes.push_back(hash(*e));
            regs.push_back(e->call("regs.get").result);
        }
        std::vector<std::string> events;
        std::mutex mu;
        const int id = e->addListener([&](const std::string& method, const json& p) {
            std::lock_guard lock(mu);
            if (method == "event.stopped") events.push_back(p.value("reason", ""));
        });
        // Back 41*k steps, then forward again the same way.
        for (const int k : {1, 3, 50, 400}) {
            const auto r = e->call("reverse_step", {{"n", 41 * k}});
            QVERIFY2(r.ok, r.errorMessage.c_str());
            QCOMPARE(r.result.value("reason", ""), std::string("reverse"));
            QCOMPARE(hash(*e), hashes[hashes.size() - 1 - std::size_t(k)]);
            QCOMPARE(e->call("regs.get").result, regs[regs.size() - 1 - std::size_t(k)]);
            QVERIFY(e->call("step", {{"n", 41 * k}}).ok);
            QCOMPARE(hash(*e), hashes.back());
        }
        e->removeListener(id);
        std::lock_guard lock(mu);
        QVERIFY(std::count(events.begin(), events.end(), "reverse") == 4);
        // Where the steps were in the past, the status says so.
        QVERIFY(e->call("reverse_frame", {{"n", 2}}).ok);
        const auto s = e->call("timeline.status").result;
        QVERIFY(s.value("in_past", false));
        QVERIFY(s.value("seconds_back", 0.0) > 0.02);
        QVERIFY(s.value("bytes_used", 0) <= s.value("budget", 0));
        QVERIFY(s.value("snapshots", 0) > 100);
    }

    void anArosSessionWithInputReplaysFrameByFrame() {
        auto e = aros();
        // Key and mouse input at known times during the boot.
        QVERIFY(e->call("input.key", {{"rawkey", 0x40}, {"at_seconds", 3.0}}).ok);
        QVERIFY(e->call("input.mouse", {{"dx", 10}, {"dy", -4}, {"at_seconds", 4.5}}).ok);
        QVERIFY(e->call("input.mouse", {{"left", true}, {"at_seconds", 6.0}}).ok);
        QVERIFY(e->call("input.mouse", {{"left", false}, {"at_seconds", 6.2}}).ok);
        QVERIFY(
            e->call("input.key", {{"rawkey", 0x45}, {"action", "press"}, {"at_seconds", 9.0}}).ok);
        QVERIFY(e->call("input.key", {{"rawkey", 0x45}, {"action", "release"}, {"at_seconds", 9.3}})
                    .ok);
        QVERIFY(e->call("step_frame", {{"n", 100}}).ok);
        std::vector<std::string> frames;
        for (int f = 0; f < 500; ++f) {
            QVERIFY(e->call("step_frame").ok);
            frames.push_back(hash(*e));
        }
        const auto last = e->call("status").result.value("frame", 0ull);
        QVERIFY(e->call("timeline.status").result.value("inputs", 0) >= 7);
        // 8 s back (400 frames), then forward again frame by frame.
        const auto r = e->call("timeline.seek", {{"frame", last - 400}});
        QVERIFY2(r.ok, r.errorMessage.c_str());
        QCOMPARE(r.result.value("reason", ""), std::string("seek"));
        QCOMPARE(r.result.value("frame", 0ull), last - 400);
        QCOMPARE(hash(*e), frames[frames.size() - 401]);
        for (std::size_t i = frames.size() - 400; i < frames.size(); ++i) {
            QVERIFY(e->call("step_frame").ok);
            QCOMPARE(hash(*e), frames[i]);
        }
        // And by seeks, the other way round.
        for (const int back : {1, 57, 300}) {
            QVERIFY(e->call("timeline.seek", {{"frame", last - std::uint64_t(back)}}).ok);
            QCOMPARE(hash(*e), frames[frames.size() - 1 - std::size_t(back)]);
        }
    }

    void lastWriterNamesTheLatestWrite() {
        auto e = churn();
        QVERIFY(e->call("step_frame", {{"n", 180}}).ok);
        // The interrupt handler counts frames in the long at $400.
        const auto r = e->call("last_writer", {{"addr", 0x403}});
        QVERIFY2(r.ok, r.errorMessage.c_str());
        QCOMPARE(r.result.value("outcome", ""), std::string("found"));
        const json w = r.result["record"];
        const auto now =
            e->call("mem.read", {{"addr", 0x403}, {"len", 1}}).result.value("data", "");
        QCOMPARE(w.value("new", -1), std::stoi(now, nullptr, 16));
        QCOMPARE((w.value("old", -1) + 1) & 0xFF, w.value("new", -1));
        QVERIFY(w.value("pc", 0u) >= 0x1000 && w.value("pc", 0u) < 0x1200);
        QVERIFY(w.value("pos", ~0ull) <= e->call("status").result.value("instructions", 0ull));
        // The machine did not move.
        QCOMPARE(r.result["position"].value("position", 0ull),
                 e->call("status").result.value("instructions", 0ull));
        // Nothing writes $500.
        QCOMPARE(e->call("last_writer", {{"addr", 0x500}}).result.value("outcome", ""),
                 std::string("never_written"));
        // A mirror of chip RAM is the same byte.
        json mirrored = e->call("last_writer", {{"addr", 0x80403}}).result["record"];
        QCOMPARE(mirrored.value("addr", 0), 0x80403);
        mirrored["addr"] = 0x403;
        QCOMPARE(mirrored, w);
        // Not RAM.
        const std::string before = hash(*e);
        QCOMPARE(code(e->call("last_writer", {{"addr", 0xE80000}})), errc::InvalidParams);
        QCOMPARE(code(e->call("last_writer", {{"addr", 0xF80000}})), errc::InvalidParams);
        QCOMPARE(hash(*e), before);
    }

    void reverseContinueFindsTheLatestHit() {
        auto e = churn();
        QVERIFY(e->call("step_frame", {{"n", 175}}).ok);
        QCOMPARE(code(e->call("reverse_continue")), errc::InvalidState); // nothing set
        // A watchpoint set now still finds writes in the past.
        QVERIFY(e->call("break.add", {{"kind", "watch"}, {"addr", 0x400}, {"len", 4}}).ok);
        const auto frames =
            e->call("mem.read", {{"addr", 0x400}, {"len", 4}}).result.value("data", "");
        const auto r = e->call("reverse_continue");
        QVERIFY2(r.ok, r.errorMessage.c_str());
        QCOMPARE(r.result.value("reason", ""), std::string("reverse"));
        QCOMPARE(r.result["detail"].value("kind", ""), std::string("watch"));
        // Standing just after the latest write: $400 holds what it holds now.
        QCOMPARE(e->call("mem.read", {{"addr", 0x400}, {"len", 4}}).result.value("data", ""),
                 frames);
        // Once more: the write before it, one frame earlier.
        const auto r2 = e->call("reverse_continue");
        QVERIFY(r2.ok);
        QCOMPARE(r2.result.value("frame", 0) + 1, r.result.value("frame", 0));
    }

    void inputCommandsReachThePorts() {
        auto e = churn();
        QVERIFY(e->call("step_frame", {{"n", 2}}).ok);
        QVERIFY(e->call("input.joy", {{"right", true}, {"fire", true}}).ok);
        // JOY1DAT: right sets bit 1, and bit 0 (down XOR right).
        QCOMPARE(e->call("mem.read", {{"addr", 0xDFF00C}, {"len", 2}}).result.value("data", ""),
                 std::string("0003"));
        // /FIR1 (CIA-A PA7) low.
        const auto pra = std::stoi(
            e->call("mem.read", {{"addr", 0xBFE001}, {"len", 1}}).result.value("data", ""), nullptr,
            16);
        QCOMPARE(pra & 0x80, 0);
        QVERIFY(e->call("input.mouse", {{"dx", -2}, {"dy", 3}}).ok);
        QCOMPARE(e->call("mem.read", {{"addr", 0xDFF00A}, {"len", 2}}).result.value("data", ""),
                 std::string("03fe"));
        const auto m = e->call("input.mouse", {{"right", true}});
        QVERIFY(m.ok);
        QVERIFY(m.result.value("right", false));
        QVERIFY(!m.result.value("left", true));
        // POTGOR DATLY (bit 10) low while the right button is held.
        const auto potgor = std::stoi(
            e->call("mem.read", {{"addr", 0xDFF016}, {"len", 2}}).result.value("data", ""), nullptr,
            16);
        QCOMPARE(potgor & 0x400, 0);
    }

    void aCaptureHearsOfReverseFrame() {
        auto e = churn();
        QVERIFY(e->call("step_frame", {{"n", 175}}).ok);
        QTemporaryDir dir;
        const std::string path = dir.filePath("capture").toStdString();
        const auto started = e->call("profile.start", {{"path", path}, {"frames", 4}});
        QVERIFY2(started.ok, started.errorMessage.c_str());
        QVERIFY(e->call("step_frame", {{"n", 2}}).ok);
        QVERIFY(e->call("reverse_frame").ok);
        QVERIFY(e->call("step_frame", {{"n", 2}}).ok);
        QTRY_VERIFY(e->call("profile.status").result.value("done", false));
        std::ifstream in(path + "/profile.jsonl");
        std::vector<json> lines;
        for (std::string line; std::getline(in, line);)
            lines.push_back(json::parse(line));
        QCOMPARE(lines.size(), std::size_t(5));
        QCOMPARE(lines[2].value("marker", std::string()), std::string("reposition"));
        // The frame after the marker is the second one again, counted from its start: the
        // replay that stood the machine there fed the capture nothing.
        QCOMPARE(lines[3].value("frame", 0ull), lines[1].value("frame", 1ull));
        QCOMPARE(lines[3]["cpu"].dump(), lines[1]["cpu"].dump());
        QCOMPARE(lines[3].value("retired_instructions", 0ull), lines[1].value("retired_instructions", 1ull));
    }

    // Standing somewhere else in the record, every view follows at once: the published
    // picture and owner grid are those of the frame before the one the machine stands in,
    // as they were when the machine first ran there, and capture.screenshot writes that
    // picture, never the one of the frame the seek came from.
    void picturesFollowASeek() {
        // AROS's pointer, moved a little every frame, changes the picture from frame to frame.
        auto m = std::make_unique<Machine>();
        m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        m->powerOn();
        Emulator::Options o;
        o.pictures = true;
        auto e = std::make_unique<Emulator>(std::move(m), o);
        e->start();
        QVERIFY(e->call("step_frame", {{"n", 1000}}).ok);
        std::map<std::uint64_t, std::vector<std::uint32_t>> seen;
        std::map<std::uint64_t, std::vector<std::uint8_t>> owners;
        for (int i = 0; i < 30; ++i) {
            QVERIFY(e->call("input.mouse", {{"dx", 4}, {"dy", 2}}).ok);
            QVERIFY(e->call("step_frame", {{"n", 1}}).ok);
            const auto s = e->snapshot();
            QVERIFY(s->picture && s->grid);
            seen[s->pictureFrame] = s->picture->pixels;
            owners[s->grid->frame] = s->grid->owners;
        }
        int changes = 0;
        for (std::uint64_t f = 1002; f < 1029; ++f) changes += seen.at(f) != seen.at(f + 1);
        QVERIFY2(changes > 10, qPrintable(QString("%1 picture changes").arg(changes)));
        QTemporaryDir dir;
        for (const std::uint64_t frame : {1011ull, 1025ull, 1005ull}) {
            const auto r = e->call("timeline.seek", {{"frame", frame}});
            QVERIFY2(r.ok, r.errorMessage.c_str());
            const auto s = e->snapshot();
            QCOMPARE(s->pictureFrame, frame - 1);
            QVERIFY(s->picture->pixels == seen.at(frame - 1));
            QCOMPARE(s->grid->frame, frame - 1);
            QVERIFY(s->grid->owners == owners.at(frame - 1));
            const std::string path = dir.filePath(QString("seek-%1.png").arg(frame)).toStdString();
            const auto shot = e->call("capture.screenshot", {{"path", path}});
            QVERIFY2(shot.ok, shot.errorMessage.c_str());
            QCOMPARE(shot.result.value("frame", 0ull), frame - 1);
            QVERIFY(readPng(path).pixels == seen.at(frame - 1));
        }
        // Inside a frame (by colour clock), the oldest the record holds included: the
        // picture is the frame before's, whichever way the machine came.
        const std::uint64_t oldest = e->call("timeline.status").result["oldest"].value("frame", 0ull);
        for (const std::uint64_t frame : std::vector<std::uint64_t>{1020, 1008, 1021, oldest, 1027, oldest + 1, oldest}) {
            QVERIFY(e->call("timeline.seek", {{"frame", frame}}).ok);
            const std::uint64_t start = e->call("timeline.status").result["here"].value("cck", 0ull);
            const auto r = e->call("timeline.seek", {{"cck", start + 20000}});
            QVERIFY2(r.ok, r.errorMessage.c_str());
            const auto s = e->snapshot();
            QCOMPARE(s->frame, frame);
            if (!seen.count(frame - 1)) continue; // (before the frames this test saw)
            QCOMPARE(s->pictureFrame, frame - 1);
            QVERIFY2(s->picture->pixels == seen.at(frame - 1), qPrintable(QString("frame %1").arg(frame)));
        }
    }

    // In the oldest snapshot's frame no frame's end can be replayed: after a state load the
    // picture there is the state's own; once the budget has dropped that snapshot, no
    // picture (never the one of the frame the seek came from).
    void theOldestFrameShowsItsOwnPicture() {
        auto m = std::make_unique<Machine>();
        m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        m->powerOn();
        Emulator::Options o;
        o.pictures = true;
        auto e = std::make_unique<Emulator>(std::move(m), o);
        e->start();
        QVERIFY(e->call("step_frame", {{"n", 1000}}).ok);
        QTemporaryDir dir;
        const std::string path = dir.filePath("at1000.clstate").toStdString();
        QVERIFY(e->call("state.save", {{"path", path}}).ok);
        QVERIFY(e->call("state.load", {{"path", path}}).ok);
        const auto loaded = e->snapshot();
        QVERIFY(loaded->picture);
        const std::vector<std::uint32_t> own = loaded->picture->pixels;
        const std::uint64_t oldestCck = e->call("timeline.status").result["oldest"].value("cck", 0ull);
        for (int i = 0; i < 12; ++i) {
            QVERIFY(e->call("input.mouse", {{"dx", 6}, {"dy", 3}}).ok);
            QVERIFY(e->call("step_frame", {{"n", 1}}).ok);
        }
        QVERIFY(e->snapshot()->picture->pixels != own); // the pointer moved
        QVERIFY(e->call("timeline.seek", {{"cck", oldestCck + 20000}}).ok);
        auto s = e->snapshot();
        QCOMPARE(s->frame, loaded->frame);
        QVERIFY(s->picture && s->picture->pixels == own);
        // Forward again, and back into the oldest frame from the stretch after it.
        QVERIFY(e->call("timeline.seek", {{"frame", loaded->frame + 3}}).ok);
        QVERIFY(e->call("timeline.seek", {{"cck", oldestCck + 30000}}).ok);
        QVERIFY(e->snapshot()->picture->pixels == own);


        // A budget the record cannot keep its start in: the oldest frame has no picture.
        auto small = std::make_unique<Machine>();
        small->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        small->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        small->powerOn();
        o.recordBudgetBytes = std::size_t(6) << 20;
        auto f = std::make_unique<Emulator>(std::move(small), o);
        f->start();
        QVERIFY(f->call("step_frame", {{"n", 600}}).ok);
        const json status = f->call("timeline.status").result;
        QVERIFY(!status.value("holds_start", true));
        const std::uint64_t oldestFrame = status["oldest"].value("frame", 0ull);
        QVERIFY(oldestFrame > 0);
        QVERIFY(f->call("timeline.seek", {{"cck", status["oldest"].value("cck", 0ull) + 20000}}).ok);
        s = f->snapshot();
        QCOMPARE(s->frame, oldestFrame);
        QVERIFY(!s->picture);
        // One frame on, the frame before is drawn again.
        QVERIFY(f->call("timeline.seek", {{"frame", oldestFrame + 1}}).ok);
        s = f->snapshot();
        QVERIFY(s->picture);
        QCOMPARE(s->pictureFrame, oldestFrame);
    }

    void badInputChangesNothing() {
        auto e = churn();
        QVERIFY(e->call("step_frame", {{"n", 20}}).ok);
        // A state load starts a new record: nothing before it can be reached.
        QTemporaryDir dir;
        const std::string path = dir.filePath("at20.state").toStdString();
        QVERIFY(e->call("state.save", {{"path", path}}).ok);
        QVERIFY(e->call("step_frame", {{"n", 5}}).ok);
        QVERIFY(e->call("state.load", {{"path", path}}).ok);
        QVERIFY(e->call("step_frame", {{"n", 10}}).ok);
        const std::string before = hash(*e);
        const auto status = e->call("timeline.status").result;
        const auto oldestFrame = status["oldest"].value("frame", 0ull);
        QVERIFY(oldestFrame >= 20);
        QCOMPARE(code(e->call("reverse_step", {{"n", 0}})), errc::InvalidParams);
        QCOMPARE(code(e->call("reverse_step", {{"n", -1}})), errc::InvalidParams);
        QCOMPARE(code(e->call("reverse_step", {{"n", 2'000'000}})), errc::InvalidParams);
        QCOMPARE(code(e->call("reverse_step", {{"n", 1'000'000}})), errc::HistoryExhausted);
        QCOMPARE(code(e->call("reverse_frame", {{"n", 11}})), errc::HistoryExhausted);
        QCOMPARE(code(e->call("reverse_frame", {{"n", "lots"}})), errc::InvalidParams);
        QCOMPARE(code(e->call("timeline.seek", {{"frame", oldestFrame - 1}})),
                 errc::HistoryExhausted);
        QCOMPARE(code(e->call("timeline.seek", {{"frame", 1'000'000}})), errc::InvalidParams);
        QCOMPARE(code(e->call("timeline.seek", {{"frame", 25}, {"cck", 5}})), errc::InvalidParams);
        QCOMPARE(code(e->call("timeline.seek", json::object())), errc::InvalidParams);
        QCOMPARE(code(e->call("timeline.seek", {{"position", -5}})), errc::InvalidParams);
        QCOMPARE(code(e->call("input.key", {{"rawkey", 256}})), errc::InvalidParams);
        QCOMPARE(code(e->call("input.key", {{"rawkey", 0x20}, {"action", "hold"}})),
                 errc::InvalidParams);
        QCOMPARE(code(e->call("input.key", {{"rawkey", 0x20}, {"at_seconds", 0.01}})),
                 errc::InvalidParams);
        QCOMPARE(code(e->call("input.mouse", {{"dx", 500}})), errc::InvalidParams);
        QCOMPARE(code(e->call("input.mouse", {{"port", 3}})), errc::InvalidParams);
        QCOMPARE(code(e->call("input.joy", {{"up", true}, {"down", true}})), errc::InvalidParams);
        QCOMPARE(code(e->call("input.joy", {{"green", true}})), errc::InvalidParams);
        QCOMPARE(code(e->call("input.joy", {{"left", "yes"}})), errc::InvalidParams);
        QCOMPARE(hash(*e), before);
        QCOMPARE(e->call("timeline.status").result.value("inputs", -1), 0);
        // A seek while a resume waits for the machine to stop.
        std::promise<CommandResult> resumed;
        e->submit("continue", json::object(),
                  [&](const CommandResult& r) { resumed.set_value(r); });
        QCOMPARE(code(e->call("timeline.seek", {{"frame", oldestFrame}})), errc::ResumePending);
        QCOMPARE(code(e->call("reverse_step")), errc::ResumePending);
        QVERIFY(e->call("pause").ok);
        QVERIFY(resumed.get_future().get().ok);
    }
};

QTEST_GUILESS_MAIN(TestRecordCommands)
#include "test_record_commands.moc"
