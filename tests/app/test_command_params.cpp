// SPDX-License-Identifier: GPL-3.0-or-later
// Every command refuses a parameter it does not take, naming it and the ones it takes, and
// `methods` lists each command's parameters. The check goes over whatever `methods` lists,
// so a command added later is held to it too.

#include "app/control/emulator.h"
#include "emu/machine.h"

#include <QtTest>

using namespace copperline;
using nlohmann::json;

namespace {

std::unique_ptr<Emulator> aros() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    auto e = std::make_unique<Emulator>(std::move(m), Emulator::Options{});
    e->start();
    return e;
}

bool mentions(const std::string& text, const std::string& word) {
    return text.find(word) != std::string::npos;
}

} // namespace

class TestCommandParams : public QObject {
    Q_OBJECT
private slots:
    void everyMethodRefusesAnUnknownParameter() {
        auto e = aros();
        const auto listed = e->call("methods");
        QVERIFY(listed.ok);
        const json& methods = listed.result.at("methods");
        QVERIFY(methods.size() >= 40);
        const auto before = e->call("status").result;
        for (const auto& m : methods) {
            const std::string name = m.at("name");
            QVERIFY2(m.contains("params") && m["params"].is_array(), name.c_str());
            const auto r = e->call(name, {{"bogus_parameter", 1}});
            const std::string what = name + ": " + r.errorMessage;
            QVERIFY2(!r.ok, what.c_str());
            QVERIFY2(r.errorCode == errc::InvalidParams, what.c_str());
            QVERIFY2(mentions(r.errorMessage, "\"bogus_parameter\""), what.c_str());
            QVERIFY2(mentions(r.errorMessage, name), what.c_str());
            if (m["params"].empty())
                QVERIFY2(mentions(r.errorMessage, "no parameters"), what.c_str());
            for (const auto& p : m["params"])
                QVERIFY2(mentions(r.errorMessage, p.get<std::string>()), what.c_str());
        }
        // Nothing ran: not a quit, a step, a reset or a resume.
        const auto after = e->call("status");
        QVERIFY(after.ok);
        QCOMPARE(after.result.value("instructions", 0ull), before.value("instructions", 1ull));
        QCOMPARE(after.result.value("state", ""), std::string("paused"));
    }

    void methodsListsWhatEachTakes() {
        auto e = aros();
        std::map<std::string, json> byName;
        const json methods = e->call("methods").result.at("methods");
        for (const auto& m : methods)
            byName[m.at("name").get<std::string>()] = m.at("params");
        QCOMPARE(byName["mem.read"].dump(), std::string(R"(["addr","len","encoding"])"));
        QCOMPARE(byName["step"].dump(), std::string(R"(["n"])"));
        QCOMPARE(byName["status"].dump(), std::string("[]"));
        QVERIFY(std::find(byName["profile.start"].begin(), byName["profile.start"].end(),
                          "frames") != byName["profile.start"].end());
        QCOMPARE(byName["break.add"].dump(),
                 std::string(R"(["kind","addr","len","access","file","line","name","expr","frame","cond","ignore","log","pending","vector","outside_rom"])"));
        QCOMPARE(byName["run_until"].dump(), std::string(R"(["pc","frame","vpos","hpos","pc_outside"])"));
        QCOMPARE(byName["profile.export"].dump(), std::string(R"(["path","out","format","overwrite"])"));
    }

    // catch, pc_outside and profile.export check what they are given before they act.
    void catchesRangesAndExportsAreChecked() {
        auto e = aros();
        const auto refused = [&e](const std::string& method, const json& params, const std::string& says) {
            const auto r = e->call(method, params);
            QVERIFY2(!r.ok && r.errorCode == errc::InvalidParams && r.errorMessage.find(says) != std::string::npos,
                     (method + " " + params.dump() + ": " + r.errorMessage).c_str());
        };
        refused("break.add", {{"kind", "catch"}, {"vector", 24}}, "24 is no exception an instruction raises");
        refused("break.add", {{"kind", "catch"}, {"vector", 9}}, "is no exception an instruction raises");
        refused("break.add", {{"kind", "catch"}, {"vector", 3}, {"cond", "1"}}, "cond: a catch breakpoint does not take it");
        refused("break.add", {{"kind", "catch"}, {"vector", 3}, {"addr", 4}}, "addr: a catch breakpoint does not take it");
        refused("break.add", {{"kind", "pc"}, {"addr", 4}, {"vector", 3}}, "vector: a pc breakpoint does not take it");
        refused("run_until", {{"pc_outside", {{"start", 16}, {"end", 16}}}}, "end must be above start");
        refused("run_until", {{"pc_outside", 5}}, "pc_outside: expected {start, end}");
        refused("run_until", {{"pc", 4}, {"pc_outside", {{"start", 0}, {"end", 16}}}}, "exactly one");
        refused("profile.export", {{"format", "json"}, {"out", "/tmp/x"}}, "format: expected \"bartman\"");
        const auto caught = e->call("break.add", {{"kind", "catch"}, {"vector", 39}});
        QVERIFY(caught.ok);
        QCOMPARE(caught.result.value("name", std::string()), std::string("TRAP #7"));
        const auto noCapture = e->call("profile.export", {{"format", "bartman"}, {"out", "/tmp/x"}});
        QCOMPARE(noCapture.errorCode, errc::InvalidState);
    }

    void theMisspellingsUsersMade() {
        auto e = aros();
        // mem.read's length is len: it returned one byte.
        auto r = e->call("mem.read", {{"addr", 0}, {"length", 16}});
        QCOMPARE(r.errorCode, errc::InvalidParams);
        QVERIFY2(mentions(r.errorMessage, "\"length\"") &&
                     mentions(r.errorMessage, "did you mean \"len\""),
                 r.errorMessage.c_str());
        // A watchpoint's access misspelt: it made a write watchpoint.
        r = e->call("break.add", {{"kind", "watch"}, {"addr", 4}, {"acess", "read"}});
        QCOMPARE(r.errorCode, errc::InvalidParams);
        QVERIFY2(mentions(r.errorMessage, "did you mean \"access\""), r.errorMessage.c_str());
        QCOMPARE(e->call("break.list").result.at("breakpoints").size(), std::size_t(0));
        // step's count is n: it stepped once.
        const auto at = e->call("status").result.value("instructions", 0ull);
        r = e->call("step", {{"count", 100}});
        QCOMPARE(r.errorCode, errc::InvalidParams);
        QVERIFY2(mentions(r.errorMessage, "it takes n"), r.errorMessage.c_str());
        QCOMPARE(e->call("status").result.value("instructions", 1ull), at);
        // What a kind of breakpoint does not take is refused by break.add itself.
        r = e->call("break.add", {{"kind", "pc"}, {"addr", 0xF80000}, {"len", 4}});
        QCOMPARE(r.errorCode, errc::InvalidParams);
        QVERIFY2(mentions(r.errorMessage, "len"), r.errorMessage.c_str());
        QCOMPARE(e->call("break.list").result.at("breakpoints").size(), std::size_t(0));
        // The parameters a command takes still work.
        r = e->call("mem.read", {{"addr", 0}, {"len", 16}, {"encoding", "hex"}});
        QVERIFY(r.ok);
        QCOMPARE(r.result.value("data", "").size(), std::size_t(32));
    }
};

QTEST_GUILESS_MAIN(TestCommandParams)
#include "test_command_params.moc"
