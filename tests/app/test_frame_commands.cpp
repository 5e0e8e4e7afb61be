// SPDX-License-Identifier: GPL-3.0-or-later
// frame.waits, frame.blits and blit.render through the command bus, on the known load of
// tests/guest/hw/frame_load.S (a cookie-cut blit of 20 x 64 words from blit_pc while the
// MOVEM.L at poll_pc reads chip RAM, and a clear across the frame's end): the numbers the
// commands give are the machine's, and every bad parameter is refused, changing nothing.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/png.h"

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace copperline;
using nlohmann::json;

namespace {

std::unique_ptr<Emulator> frameLoad() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(HW_FRAME_LOAD));
    Emulator::Options o;
    o.startRunning = false;
    o.paced = false;
    auto e = std::make_unique<Emulator>(std::move(m), o);
    e->start();
    return e;
}

std::uint32_t hexField(const json& j, const char* key) {
    return std::uint32_t(std::stoul(j.value(key, std::string("0")), nullptr, 16));
}

std::uint32_t readLong(Emulator& e, std::uint32_t addr) {
    const auto r = e.call("mem.read", {{"addr", addr}, {"len", 4}, {"encoding", "hex"}});
    return std::uint32_t(std::stoul(r.result.value("data", std::string("0")), nullptr, 16));
}

} // namespace

class TestFrameCommands : public QObject {
    Q_OBJECT
private slots:
    void waitsNameTheDenierAndTheInstruction() {
        auto e = frameLoad();
        QVERIFY(e->call("step_frame", {{"n", 6}}).ok);
        const std::uint32_t pollPc = readLong(*e, 0x1008);
        const auto r = e->call("frame.waits", {{"grid", true}, {"top", 4}});
        QVERIFY2(r.ok, r.errorMessage.c_str());
        const json& w = r.result;
        QCOMPARE(w.value("frame", 0), 5);
        const std::uint64_t denied = w.value("wait_cck", std::uint64_t(0));
        QVERIFY(denied > 1000);
        QCOMPARE(w["cpu"]["cycles"].value("wait", std::uint64_t(0)), 2 * denied);
        QCOMPARE(w["cpu"].value("wait_cck", std::uint64_t(0)), denied);
        const json& byOwner = w["cpu_wait_classes"]["by_owner"];
        const std::uint64_t blitter = byOwner.value("blitter", std::uint64_t(0));
        const std::uint64_t refresh = byOwner.value("refresh", std::uint64_t(0));
        QCOMPARE(blitter + refresh, denied);
        QVERIFY(blitter > refresh);
        std::uint64_t kinds = 0;
        for (const char* k : {"fetch", "read", "write"})
            kinds += w["cpu_wait_classes"]["by_kind"].value(k, std::uint64_t(0));
        QCOMPARE(kinds, denied);
        // The polling MOVEM.L first, at most `top` of them, the rest summed.
        const json& stalls = w["stall_pcs"];
        QVERIFY(stalls.size() <= 4);
        QCOMPARE(hexField(stalls.at(0), "pc"), pollPc);
        std::uint64_t listed = 0;
        for (const auto& s : stalls)
            listed += s.value("wait_cck", std::uint64_t(0));
        QCOMPARE(listed + w["stall_pcs_rest"].value("wait_cck", std::uint64_t(0)), denied);
        // Each line's denied clocks add up; the grid holds each denied clock's denier.
        std::uint64_t perLine = 0;
        for (const auto& n : w["line_wait_cck"])
            perLine += n.get<std::uint64_t>();
        QCOMPARE(perLine, denied);
        QCOMPARE(w["line_wait_cck"].size(), std::size_t(w.value("lines", 0)));
        const QByteArray grid =
            QByteArray::fromBase64(QByteArray::fromStdString(w.value("grid", std::string())));
        QCOMPARE(std::size_t(grid.size()),
                 std::size_t(w.value("lines", 0)) * w.value("line_cck", 0u));
        std::uint64_t byBlitter = 0, cells = 0;
        for (char c : grid)
            if (c) {
                ++cells;
                if (std::uint8_t(c) == 1 + unsigned(BusOwner::Blitter)) ++byBlitter;
            }
        QCOMPARE(cells, denied);
        QCOMPARE(byBlitter, blitter);
    }

    void blitsListAndRender() {
        auto e = frameLoad();
        QVERIFY(e->call("step_frame", {{"n", 4}}).ok);
        // Not armed yet: the list is there, the words are not.
        auto r = e->call("frame.blits");
        QVERIFY(r.ok);
        QCOMPARE(r.result["blits"].size(), std::size_t(3));
        QVERIFY(!r.result["blits"][1].value("traced", true));
        const std::uint32_t early = r.result["blits"][1].value("id", 0u);
        QCOMPARE(e->call("blit.render", {{"id", early}, {"channel", "A"}, {"path", "/tmp/x.png"}})
                     .errorCode,
                 errc::NotFound);
        QVERIFY(e->call("step_frame", {{"n", 2}}).ok);
        r = e->call("frame.blits");
        const json& cookie = r.result["blits"][1];
        QCOMPARE(hexField(cookie, "start_pc"), readLong(*e, 0x1004));
        QCOMPARE(cookie.value("size", std::string()), std::string("20x64"));
        QCOMPARE(cookie.value("channels", std::string()), std::string("ABCD"));
        QCOMPARE(cookie.value("minterm", std::string()), std::string("0xCA"));
        QCOMPARE(cookie.value("formula", std::string()), std::string("AB+!AC"));
        QCOMPARE(cookie.value("mode", std::string()), std::string("copy"));
        QCOMPARE(cookie.value("width_words", 0), 20);
        QCOMPARE(hexField(cookie["pointers"], "d"), 0x2C000u);
        QCOMPARE(cookie.value("direction", std::string()), std::string("ascending"));
        QCOMPARE(cookie.value("clocks_used", 0u), 5120u);
        QVERIFY(cookie.value("clocks_stalled", 0u) > 0);
        QCOMPARE(cookie["words"].value("d", 0u), 1280u);
        QVERIFY(cookie.value("finished", false));
        QVERIFY(cookie.value("traced", false));
        const json& clear = r.result["blits"][2];
        QCOMPARE(clear.value("channels", std::string()), std::string("D"));
        QCOMPARE(clear.value("formula", std::string()), std::string("0"));
        QVERIFY(!clear.value("finished", true));
        QVERIFY(clear["end"].is_null());

        QTemporaryDir dir;
        const std::uint32_t id = cookie.value("id", 0u);
        const std::string path = dir.filePath("result.png").toStdString();
        const auto drawn =
            e->call("blit.render", {{"id", id}, {"channel", "result"}, {"path", path}});
        QVERIFY2(drawn.ok, drawn.errorMessage.c_str());
        QCOMPARE(drawn.result.value("width", 0), 320);
        QCOMPARE(drawn.result.value("height", 0), 64);
        QCOMPARE(drawn.result.value("words", 0), 1280);
        const Image img = readPng(path);
        QCOMPARE(img.width, 320u);
        QCOMPARE(img.height, 64u);
        // D wrote the same words the result stream holds: the pictures are equal.
        const std::string dPath = dir.filePath("d.png").toStdString();
        QVERIFY(e->call("blit.render", {{"id", id}, {"channel", "D"}, {"path", dPath}}).ok);
        const Image d = readPng(dPath);
        QCOMPARE(d.width, img.width);

        // Refusals: each names what is wrong, and nothing is written or replaced.
        const auto before = std::filesystem::file_size(path);
        QCOMPARE(
            e->call("blit.render", {{"id", id}, {"channel", "result"}, {"path", path}}).errorCode,
            errc::HostIo); // exists
        QCOMPARE(std::filesystem::file_size(path), before);
        QVERIFY(e->call("blit.render",
                        {{"id", id}, {"channel", "result"}, {"path", path}, {"overwrite", true}})
                    .ok);
        const auto bad =
            e->call("blit.render",
                    {{"id", id}, {"channel", "E"}, {"path", dir.filePath("e.png").toStdString()}});
        QCOMPARE(bad.errorCode, errc::InvalidParams);
        QVERIFY(QString::fromStdString(bad.errorMessage).contains("channel"));
        QCOMPARE(e->call("blit.render", {{"channel", "A"}, {"path", "/tmp/y.png"}}).errorCode,
                 errc::InvalidParams);
        QCOMPARE(e->call("blit.render", {{"id", id}, {"channel", "A"}}).errorCode,
                 errc::InvalidParams);
        const std::uint32_t clearId = clear.value("id", 0u);
        const auto off = e->call(
            "blit.render",
            {{"id", clearId}, {"channel", "A"}, {"path", dir.filePath("a.png").toStdString()}});
        QCOMPARE(off.errorCode, errc::CommandFailed);
        QVERIFY(!QFile::exists(dir.filePath("a.png")));
        QCOMPARE(e->call("blit.render", {{"id", 999999},
                                         {"channel", "A"},
                                         {"path", dir.filePath("n.png").toStdString()}})
                     .errorCode,
                 errc::NotFound);
        QCOMPARE(e->call("blit.render",
                         {{"id", id}, {"channel", "A"}, {"path", "/nonexistent/dir/a.png"}})
                     .errorCode,
                 errc::HostIo);
        QCOMPARE(e->call("frame.waits", {{"top", 5000}}).errorCode, errc::InvalidParams);
        QCOMPARE(e->call("frame.waits", {{"grid", "yes"}}).errorCode, errc::InvalidParams);
    }

    void recordArmsTheTrace() {
        auto e = frameLoad();
        auto r = e->call("frame.record", {{"on", true}});
        QVERIFY(r.ok);
        QVERIFY(r.result.value("blit_trace", false));
        QVERIFY(e->call("step_frame", {{"n", 3}}).ok);
        r = e->call("frame.blits");
        QVERIFY(r.result["blits"][1].value("traced", false));
        r = e->call("frame.record", {{"on", false}});
        QVERIFY(!r.result.value("blit_trace", true));
        QVERIFY(!e->call("frame.blits").result["blits"][1].value("traced", true));
    }

    // The frame before the last and the one in progress: {frame} asks for either, and each
    // says what the machine said of that frame when it was the last (the same numbers,
    // denied clock for denied clock), so the Frame Analyzer can draw across the boundary.
    void theFramesAroundTheLast() {
        auto e = frameLoad();
        QVERIFY(e->call("step_frame", {{"n", 6}}).ok);
        const json waits5 = e->call("frame.waits", {{"grid", true}, {"top", 8}}).result;
        const json blits5 = e->call("frame.blits").result;
        QCOMPARE(waits5.value("frame", 0), 5);
        // Half-way into frame 6: the frame in progress, to the beam.
        QVERIFY(e->call("run_until", {{"vpos", 200}, {"hpos", 0}}).ok);
        auto r = e->call("frame.waits", {{"grid", true}, {"frame", 6}});
        QVERIFY2(r.ok, r.errorMessage.c_str());
        const json progress = r.result;
        QCOMPARE(progress.value("frame", 0), 6);
        QVERIFY(progress.value("in_progress", false));
        QVERIFY(progress.value("partial", false));
        QVERIFY(progress.value("wait_cck", 0ull) > 1000); // the cookie cut's waits at line 100
        // Nothing denied past the beam, and the waits so far are the ones the finished
        // frame will have.
        const QByteArray grid6 = QByteArray::fromBase64(QByteArray::fromStdString(progress.value("grid", std::string())));
        const int cols = progress.value("line_cck", 0);
        for (int i = 200 * cols; i < grid6.size(); ++i)
            QCOMPARE(int(grid6[i]), 0);
        json blits6 = e->call("frame.blits", {{"frame", 6}}).result;
        QVERIFY(blits6.value("in_progress", false));
        // The clear that frame 5 left running ends in frame 6, under the same id.
        const json& runningClear = blits5["blits"][2];
        QVERIFY(runningClear["end"].is_null());
        QCOMPARE(blits6["blits"][0].value("id", 0u), runningClear.value("id", 1u));
        QVERIFY(blits6["blits"][0]["end"].is_object());
        QCOMPARE(blits6["blits"][0]["end"].value("frame", 0), 6);
        QVERIFY(e->call("step_frame", {{"n", 1}}).ok); // frame 6 ends
        const json waits6 = e->call("frame.waits", {{"grid", true}}).result;
        QCOMPARE(waits6.value("frame", 0), 6);
        const QByteArray done6 = QByteArray::fromBase64(QByteArray::fromStdString(waits6.value("grid", std::string())));
        QCOMPARE(done6.left(200 * cols), grid6.left(200 * cols));
        // Frame 5 is now the one before: the same as when it was the last.
        r = e->call("frame.waits", {{"grid", true}, {"top", 8}, {"frame", 5}});
        QVERIFY2(r.ok, r.errorMessage.c_str());
        QCOMPARE(r.result.dump(), waits5.dump());
        r = e->call("frame.blits", {{"frame", 5}});
        QVERIFY2(r.ok, r.errorMessage.c_str());
        json old = blits5, now = r.result;
        // The trace's flags may differ (it was armed by the first call); the blits may not.
        for (json* j : {&old, &now})
            for (json& b : (*j)["blits"]) {
                b.erase("traced");
                b.erase("truncated");
            }
        QCOMPARE(now.dump(), old.dump());
        // A frame the machine does not hold is refused, naming the ones it does.
        for (const json& bad : {json(4), json(8), json("five"), json(-1), json(5.5)}) {
            r = e->call("frame.waits", {{"frame", bad}});
            QVERIFY2(r.errorCode == errc::InvalidParams, bad.dump().c_str());
            r = e->call("frame.blits", {{"frame", bad}});
            QVERIFY2(r.errorCode == errc::InvalidParams, bad.dump().c_str());
        }
        r = e->call("frame.waits", {{"frame", 4}});
        QVERIFY2(r.errorMessage.find("5, 6 (the last committed) and 7 (in progress)") != std::string::npos,
                 r.errorMessage.c_str());
        // After a state load the frame before is not known until two frames have ended.
        QTemporaryDir dir;
        const std::string path = dir.filePath("s.clst").toStdString();
        QVERIFY(e->call("state.save", {{"path", path}}).ok);
        QVERIFY(e->call("state.load", {{"path", path}}).ok);
        QCOMPARE(e->call("frame.waits", {{"frame", 5}}).errorCode, errc::InvalidParams);
        QVERIFY(e->call("step_frame", {{"n", 2}}).ok);
        QVERIFY(e->call("frame.waits", {{"frame", 7}}).ok);
    }
};

QTEST_GUILESS_MAIN(TestFrameCommands)
#include "test_frame_commands.moc"
