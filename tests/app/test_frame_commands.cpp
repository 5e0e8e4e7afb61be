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
};

QTEST_GUILESS_MAIN(TestFrameCommands)
#include "test_frame_commands.moc"
