// SPDX-License-Identifier: GPL-3.0-or-later
// The emulator thread on an AROS boot, through Emulator::call as the window and the server
// use it: beam targets, write watchpoints, all-or-nothing memory writes, the pc, resets,
// and snapshots that follow the machine, a state load and a power cycle; damaged state files
// refused.

#include "app/control/emulator.h"
#include "app/control/params.h"
#include "emu/machine.h"
#include "profiler/capture/png.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <iterator>
#include <mutex>

using namespace copperline;
using nlohmann::json;

namespace {

std::unique_ptr<Emulator> aros(Emulator::Options options = {}) {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    auto e = std::make_unique<Emulator>(std::move(m), options);
    e->start();
    return e;
}

std::vector<char> fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

class TestEmulator : public QObject {
    Q_OBJECT
private slots:
    void notStartedRefusesToWait() {
        auto m = std::make_unique<Machine>();
        Emulator e(std::move(m), {});
        QCOMPARE(e.call("status").errorCode, errc::ShuttingDown);
    }

    void runsToABeamPosition() {
        auto e = aros();
        QVERIFY(e->call("step_frame", {{"n", 5}}).ok);
        const auto r = e->call("run_until", {{"vpos", 100}, {"hpos", 50}});
        QVERIFY(r.ok);
        QCOMPARE(r.result.value("reason", ""), std::string("target"));
        QCOMPARE(r.result.value("frame", 0), 5);
        QCOMPARE(r.result.value("vpos", 0), 100);
        // The first instruction boundary at or after the position: within one instruction.
        const int h = r.result.value("hpos", 0);
        QVERIFY(h >= 50 && h < 50 + 40);
        // Already past it: the next frame.
        QCOMPARE(e->call("run_until", {{"vpos", 10}}).result.value("frame", 0), 6);
        const auto s = e->snapshot();
        QCOMPARE(s->frame, 6ull);
        QCOMPARE(s->vpos, 10u);
        QVERIFY(!s->running);
    }

    void customDumpShowsWriteOnlyRegisters() {
        // After 100 frames AROS has set up its display: BPLCON0 and the bitplane pointers
        // are write-only, so custom.dump gives the values last written.
        auto e = aros();
        QVERIFY(e->call("step_frame", {{"n", 100}}).ok);
        const auto r = e->call("custom.dump");
        QVERIFY(r.ok);
        QVERIFY(r.result["registers"].contains("VPOSR"));
        QVERIFY(!r.result["registers"].contains("BPLCON0"));
        const auto& written = r.result["written"];
        QVERIFY(written.contains("DMACON"));
        QVERIFY(written.contains("BPLCON0"));
        QVERIFY(!written.contains("VPOSR"));
    }

    void stopsOnAWriteWithItsValue() {
        auto e = aros();
        // AROS stores SysBase at $4 early in its boot.
        const auto bp = e->call("break.add", {{"kind", "watch"}, {"addr", 4}, {"len", 4}});
        QVERIFY(bp.ok);
        const auto r = e->call("continue");
        QVERIFY(r.ok);
        QCOMPARE(r.result.value("reason", ""), std::string("watchpoint"));
        const json d = r.result["detail"];
        QCOMPARE(d.value("access", ""), std::string("write"));
        QVERIFY(d.contains("value"));
        const auto mem =
            e->call("mem.read", {{"addr", d.value("address", 0u)}, {"len", d.value("size", 0u)}});
        char expect[8];
        std::snprintf(expect, sizeof expect, d.value("size", 0) == 2 ? "%04x" : "%02x",
                      d.value("value", 0u));
        QCOMPARE(mem.result.value("data", ""), std::string(expect));
    }

    void memoryWritesAreAllOrNothing() {
        auto e = aros();
        const auto before =
            e->call("mem.read", {{"addr", 0x1FFFFC}, {"len", 4}}).result.value("data", "");
        const auto r = e->call("mem.write", {{"addr", 0x1FFFFC}, {"data", "0102030405060708"}});
        QCOMPARE(r.errorCode, errc::InvalidParams);
        QVERIFY(QString::fromStdString(r.errorMessage).contains("$200000"));
        QCOMPARE(e->call("mem.read", {{"addr", 0x1FFFFC}, {"len", 4}}).result.value("data", ""),
                 before);
        // Slow RAM is writable.
        QVERIFY(e->call("mem.write", {{"addr", 0xC00010}, {"data", "cafe"}}).ok);
        QCOMPARE(e->call("mem.read", {{"addr", 0xC00010}, {"len", 2}}).result.value("data", ""),
                 std::string("cafe"));
    }

    void setsThePcAndResets() {
        auto e = aros();
        QVERIFY(e->call("step_frame", {{"n", 20}}).ok);
        const std::uint32_t entry = e->call("regs.get").result.value("pc", 0u);
        QVERIFY(e->call("regs.set", {{"reg", "pc"}, {"value", 0xF80010}}).ok);
        QCOMPARE(e->call("regs.get").result.value("pc", 0u), 0xF80010u);
        const auto d = e->call("disasm", {{"count", 1}}).result["instructions"][0];
        QCOMPARE(d.value("addr", 0u), 0xF80010u);
        QVERIFY(entry != 0xF80010u);
        QCOMPARE(e->call("regs.set", {{"reg", "pc"}, {"value", 0xF80011}}).errorCode,
                 errc::InvalidParams);

        const auto cold = e->call("machine.reset", {{"kind", "cold"}});
        QVERIFY(cold.ok);
        QCOMPARE(cold.result.value("cck", 1), 10); // the clocks start again, as at power-on
        QCOMPARE(cold.result.value("frame", 1), 0);
        QCOMPARE(e->snapshot()->regs.pc, cold.result.value("pc", 0u));
    }

    // A cold reset over the bus is a power cycle: the state of a new machine with the same
    // ROMs, now and after the same frames.
    void coldResetIsANewMachine() {
        auto used = aros();
        QVERIFY(used->call("step_frame", {{"n", 90}}).ok);
        QVERIFY(used->call("regs.set", {{"reg", "d5"}, {"value", 0x12345678}}).ok);
        QVERIFY(used->call("machine.reset", {{"kind", "cold"}}).ok);
        auto fresh = aros();
        const auto hash = [](Emulator& e) { return e.call("state.hash").result.value("hash", ""); };
        QCOMPARE(used->call("regs.get").result, fresh->call("regs.get").result);
        QCOMPARE(used->call("status").result.value("instructions", 1ull),
                 fresh->call("status").result.value("instructions", 2ull));
        QCOMPARE(hash(*used), hash(*fresh));
        // Nothing shown yet, as on a new machine.
        QCOMPARE(used->snapshot()->grid->lines, 0u);
        for (int i = 0; i < 3; ++i) {
            QVERIFY(used->call("step_frame", {{"n", 20}}).ok);
            QVERIFY(fresh->call("step_frame", {{"n", 20}}).ok);
            QCOMPARE(hash(*used), hash(*fresh));
        }
    }

    // After state.load, everything shown is the loaded machine's: capture.screenshot's
    // frame and picture, the snapshot's picture, owner grid and counters.
    void viewsFollowAStateLoad() {
        QTemporaryDir dir;
        const auto path = [&](const char* name) { return dir.filePath(name).toStdString(); };
        Emulator::Options o;
        o.pictures = true;
        auto e = aros(o);
        QVERIFY(e->call("step_frame", {{"n", 3}}).ok);
        const auto atA = e->call("capture.screenshot", {{"path", path("a.png")}});
        QVERIFY(atA.ok);
        const auto snapA = e->snapshot();
        QVERIFY(snapA->picture && snapA->grid);
        QVERIFY(e->call("state.save", {{"path", path("a.state")}}).ok);

        QVERIFY(e->call("step_frame", {{"n", 120}}).ok);
        const auto atB = e->call("capture.screenshot", {{"path", path("b.png")}});
        QVERIFY(atB.ok);
        QVERIFY(atB.result.value("frame", 0) != atA.result.value("frame", 0));
        QVERIFY(fileBytes(path("a.png")) != fileBytes(path("b.png"))); // the picture moved on

        const auto loaded = e->call("state.load", {{"path", path("a.state")}});
        QVERIFY(loaded.ok);
        const auto afterLoad = e->snapshot();
        const auto shot = e->call("capture.screenshot", {{"path", path("c.png")}});
        QVERIFY(shot.ok);
        QCOMPARE(shot.result.value("frame", 0), atA.result.value("frame", 1));
        QVERIFY(fileBytes(path("c.png")) == fileBytes(path("a.png")));
        QCOMPARE(afterLoad->frame, snapA->frame);
        QCOMPARE(afterLoad->instructions, snapA->instructions);
        QCOMPARE(afterLoad->pictureFrame, snapA->pictureFrame);
        QVERIFY(afterLoad->picture->pixels == snapA->picture->pixels);
        QCOMPARE(afterLoad->grid->frame, snapA->grid->frame);
        QVERIFY(afterLoad->grid->owners == snapA->grid->owners);
        QVERIFY(afterLoad->grid->counts == snapA->grid->counts);
        // And the next frame is drawn on from there, as it was the first time.
        QVERIFY(e->call("step_frame", {{"n", 1}}).ok);
        QCOMPARE(e->snapshot()->pictureFrame, snapA->pictureFrame + 1);
    }

    // A damaged state file is refused over the bus, says so, and changes nothing;
    // state.info says which file is intact.
    void damagedStateFilesAreRefused() {
        QTemporaryDir dir;
        const std::string good = dir.filePath("good.state").toStdString();
        const std::string bad = dir.filePath("bad.state").toStdString();
        auto e = aros();
        QVERIFY(e->call("step_frame", {{"n", 10}}).ok);
        QVERIFY(e->call("state.save", {{"path", good}}).ok);
        auto bytes = fileBytes(good);
        bytes[bytes.size() / 2] ^= 0x20;
        std::ofstream(bad, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
        QVERIFY(e->call("step_frame", {{"n", 2}}).ok);
        const std::string before = e->call("state.hash").result.value("hash", "");
        const auto r = e->call("state.load", {{"path", bad}});
        QCOMPARE(r.errorCode, errc::CommandFailed);
        QVERIFY2(r.errorMessage.find("damaged") != std::string::npos, r.errorMessage.c_str());
        QCOMPARE(e->call("state.hash").result.value("hash", ""), before);
        const auto info = e->call("state.info", {{"path", bad}});
        QVERIFY(info.ok);
        QCOMPARE(info.result.value("intact", true), false);
        QCOMPARE(info.result.value("compatible", true), false);
        QVERIFY(info.result.value("problem", "").find("damaged") != std::string::npos);
        const auto fine = e->call("state.info", {{"path", good}}).result;
        QCOMPARE(fine.value("intact", false), true);
        QCOMPARE(fine.value("compatible", false), true);
        QCOMPARE(fine.value("version", 0), 7);
    }

    // state.load takes on the configuration the state was saved with (here 1M chip with the
    // ECS Agnus, 1M slow, 2M fast RAM), and says so; state.info tells the two apart. During
    // a capture, whose files are laid out for one machine, such a load is refused.
    void stateLoadTakesOnTheStatesConfiguration() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.state").toStdString();
        Machine::Config c;
        c.chipRamBytes = 1u << 20;
        c.slowRamBytes = 1u << 20;
        c.fastRamBytes = 2u << 20;
        auto big = std::make_unique<Machine>(c);
        big->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        big->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        big->powerOn();
        for (int i = 0; i < 200; ++i) big->runFrame();
        const auto bytes = big->saveState();
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));

        auto e = aros();
        QVERIFY(e->call("step_frame", {{"n", 5}}).ok);
        const auto info = e->call("state.info", {{"path", path}}).result;
        QCOMPARE(info.value("loadable", false), true);
        QCOMPARE(info.value("compatible", true), false);
        QCOMPARE(info.value("fast_ram", 0u), 2u << 20);
        // Refused while a capture records.
        const std::string capture = dir.filePath("cap").toStdString();
        QVERIFY(e->call("profile.start", {{"path", capture}, {"frames", 50}}).ok);
        const auto refused = e->call("state.load", {{"path", path}});
        QCOMPARE(refused.errorCode, errc::InvalidState);
        QVERIFY2(refused.errorMessage.find("2048K fast") != std::string::npos, refused.errorMessage.c_str());
        QVERIFY(e->call("profile.stop").ok);
        const auto loaded = e->call("state.load", {{"path", path}});
        QVERIFY2(loaded.ok, loaded.errorMessage.c_str());
        QCOMPARE(loaded.result.value("reconfigured", false), true);
        QCOMPARE(loaded.result["configuration"].value("chip_ram", 0u), 1u << 20);
        QCOMPARE(loaded.result["configuration"].value("fast_ram", 0u), 2u << 20);
        QCOMPARE(loaded.result.value("hash", std::string()), params::hex64(big->stateHash()));
        // And it runs on as the machine that saved it.
        QVERIFY(e->call("step_frame", {{"n", 20}}).ok);
        for (int i = 0; i < 20; ++i) big->runFrame();
        QCOMPARE(e->call("state.hash").result.value("hash", std::string()), params::hex64(big->stateHash()));
    }

    void serialOutputIsAnEvent() {
        auto e = aros();
        std::mutex m;
        std::string text;
        const int id = e->addListener([&](const std::string& method, const json& params) {
            if (method != "event.serial") return;
            std::lock_guard lock(m);
            text += params.value("text", "");
        });
        e->wantSerialEvents(true);
        QVERIFY(e->call("step_frame", {{"n", 100}}).ok);
        e->removeListener(id);
        std::lock_guard lock(m);
        QVERIFY2(text.starts_with("[reset]\r\nROM Location: 00f80000"), text.c_str());
        // AROS's banner has a Latin-1 copyright sign; it arrives as UTF-8.
        QVERIFY(text.find("Copyright \u00a9 1995") != std::string::npos);
    }

    void snapshotsCarryTheOwnerGrid() {
        auto e = aros();
        QVERIFY(e->call("frame.record", {{"on", true}}).ok);
        QVERIFY(e->call("step_frame", {{"n", 3}}).ok);
        const auto s = e->snapshot();
        QVERIFY(s->grid);
        QCOMPARE(s->grid->frame, 2ull);
        QCOMPARE(s->grid->lines, 313u);
        QCOMPARE(s->grid->records.size(), s->grid->owners.size());
        std::uint64_t total = 0;
        for (auto c : s->grid->counts)
            total += c;
        QCOMPARE(total, std::uint64_t(313 * 227));
        QVERIFY(!s->picture); // pictures are for the window; this emulator composes none
    }
};

QTEST_GUILESS_MAIN(TestEmulator)
#include "test_emulator.moc"
