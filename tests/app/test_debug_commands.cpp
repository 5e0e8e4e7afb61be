// The debug family and the debug overlay through the emulator thread: a bare-metal
// program calls uaelib as gcc8_c_support does (tests/guest/uaelib/uaelib_calls.c), and
// debug.resources, debug.idle, event.debug and capture.screenshot report what it did.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/overlay.h"

#include <QTemporaryDir>
#include <QtTest>
#include <mutex>

using namespace copperline;
using nlohmann::json;

class TestDebugCommands : public QObject {
    Q_OBJECT
private slots:
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
};

QTEST_GUILESS_MAIN(TestDebugCommands)
#include "test_debug_commands.moc"
