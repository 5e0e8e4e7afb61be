// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile input gets error replies and never takes the emulator down or changes the
// machine: malformed JSON, unknown methods, wrong parameter types, a 10 MiB line, binary
// garbage and 1,000 connect/disconnect cycles. Afterwards the server answers and the
// machine's state hash is the one it had before.

#include "test_control_fixture.h"

#include <random>

using namespace copperline;
using namespace copperline::testing;
using nlohmann::json;

class TestControlHostile : public QObject {
    Q_OBJECT

    ControlEmulator emu;
    std::string path;
    std::string hashBefore;
    json regsBefore;

private slots:
    void initTestCase() {
        QVERIFY(emu.start(uniqueName("test-hostile")));
        path = emu.socketPath();
        QVERIFY(!path.empty());
        emu.ok("step_frame", {{"n", 20}});
        hashBefore = emu.ok("state.hash").value("hash", "");
        QVERIFY(!hashBefore.empty());
        regsBefore = emu.ok("regs.get");
    }

    void malformedJson() {
        Raw c(path);
        QVERIFY(c.connected());
        c.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"\n"); // unterminated object
        json r = c.next();
        QCOMPARE(errorCode(r), -32700);
        QVERIFY(r.at("id").is_null());
        c.send("[1,2,3]\n");
        QCOMPARE(errorCode(c.next()), -32600);
        c.send("42\n");
        QCOMPARE(errorCode(c.next()), -32600);
        c.send("{\"method\":\"status\"}\n"); // no id
        QCOMPARE(errorCode(c.next()), -32600);
        c.send("{\"id\":{\"x\":1},\"method\":\"status\"}\n");
        QCOMPARE(errorCode(c.next()), -32600);
        c.send("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"status\"}\n");
        r = c.next();
        QCOMPARE(errorCode(r), -32600);
        QCOMPARE(r.value("id", 0), 5);
        c.send("{\"id\":6,\"method\":7}\n");
        QCOMPARE(errorCode(c.next()), -32600);
        // Blank lines are skipped; the next request is answered.
        c.send("\n\r\n   \n{\"id\":\"s\",\"method\":\"status\"}\n");
        r = c.next();
        QCOMPARE(r.value("id", ""), std::string("s"));
        QVERIFY(r.contains("result"));
    }

    void unknownMethods() {
        Raw c(path);
        QVERIFY(c.connected());
        c.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"rm -rf /\"}\n");
        const json r = c.next();
        QCOMPARE(errorCode(r), -32601);
        QCOMPARE(r.value("id", 0), 2);
        c.send("{\"id\":3,\"method\":\"\"}\n");
        QCOMPARE(errorCode(c.next()), -32601);
    }

    void wrongParameterTypes() {
        Raw c(path);
        QVERIFY(c.connected());
        const std::pair<const char*, json> cases[] = {
            {"step", {{"n", "many"}}},
            {"step", {{"n", -1}}},
            {"step", {{"n", 1.5}}},
            {"step_frame", {{"n", json::array({1})}}},
            {"mem.read", {{"addr", true}}},
            {"mem.read", {{"addr", 0}, {"len", 1 << 30}}},
            {"mem.write", {{"addr", 0x1000}, {"data", "12zz"}}},
            {"mem.write", {{"addr", 0x1000}, {"data", "AAAA"}, {"encoding", "rot13"}}},
            {"mem.write",
             {{"addr", 0x1FFFFE}, {"data", "0102030405"}}}, // runs off chip RAM partway
            {"regs.set", {{"reg", "pc"}, {"value", 0x1001}}},
            {"regs.set", {{"reg", 7}, {"value", 0}}},
            {"break.add", {{"kind", "pc"}, {"addr", "zz"}}},
            {"break.add", {{"kind", "laser"}, {"addr", 0}}},
            {"run_until", {{"pc", 0x1000}, {"frame", 9}}},
            {"machine.reset", {{"kind", "lukewarm"}}},
            {"state.load", {{"path", 12}}},
            {"frame.slots", {{"row", "$FFFF"}}},
            {"events.subscribe", {{"events", "all"}}},
            {"events.subscribe", {{"events", json::array({"event.nope"})}}},
            // Misspelt parameters are refused, never taken for absent ones.
            {"mem.read", {{"addr", 0}, {"length", 16}}},
            {"break.add", {{"kind", "watch"}, {"addr", 4}, {"acess", "read"}}},
            {"step", {{"count", 100}}},
            {"events.subscribe", {{"events", json::array({"event.frame"})}, {"interval", 5}}},
            {"events.list", {{"all", true}}},
        };
        int id = 100;
        for (const auto& [method, params] : cases) {
            c.send(QByteArray::fromStdString(
                       json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}
                           .dump()) +
                   "\n");
            const json r = c.replyTo(id);
            if (errorCode(r) != -32602)
                qWarning("%s %s -> %s", method, params.dump().c_str(), r.dump().c_str());
            QCOMPARE(errorCode(r), -32602);
            ++id;
        }
        // params that are not an object at all
        c.send("{\"id\":9,\"method\":\"status\",\"params\":[1]}\n");
        QCOMPARE(errorCode(c.replyTo(9)), -32602);
        // A missing file is a host I/O error, not a crash.
        c.send(
            "{\"id\":10,\"method\":\"state.load\",\"params\":{\"path\":\"/nonexistent/state\"}}\n");
        QCOMPARE(errorCode(c.replyTo(10)), -32005);
    }

    void tenMebibyteLine() {
        Raw c(path);
        QVERIFY(c.connected());
        QByteArray huge(10 << 20, 'A');
        huge.prepend("{\"id\":1,\"method\":\"mem.write\",\"params\":{\"addr\":0,\"data\":\"");
        c.send(huge);
        c.send("\"}}\n{\"id\":\"after\",\"method\":\"status\"}\n");
        const json r = c.next(60000);
        QCOMPARE(errorCode(r), -32010);
        const json after = c.replyTo("after", 60000);
        QVERIFY(after.contains("result"));
        QCOMPARE(after["result"].value("state", ""), std::string("paused"));
    }

    void binaryGarbage() {
        Raw c(path);
        QVERIFY(c.connected());
        std::mt19937 rng(1985);
        QByteArray junk(1 << 20, '\0');
        for (auto& b : junk)
            b = char(rng());
        c.send(junk);
        c.send("\n{\"id\":\"after\",\"method\":\"status\"}\n");
        int errors = 0;
        json r;
        while (true) {
            r = c.next(60000);
            QVERIFY(!r.is_discarded());
            if (r.value("id", json()) == "after") break;
            QVERIFY(errorCode(r) != 0);
            ++errors;
        }
        QVERIFY(errors > 0);
        QVERIFY(r.contains("result"));
        // Invalid UTF-8 inside a JSON string is refused too.
        c.send(QByteArray("{\"id\":1,\"method\":\"\xff\xfe\"}\n"));
        QCOMPARE(errorCode(c.next()), -32700);
    }

    void thousandConnections() {
        for (int i = 0; i < 1000; ++i) {
            QLocalSocket s;
            s.connectToServer(QString::fromStdString(path));
            QVERIFY(s.waitForConnected(5000));
            switch (i % 4) {
            case 0: break;                                                // connect and leave
            case 1: s.write("{\"id\":1,\"meth"); break;                   // half a request
            case 2: s.write("{\"id\":1,\"method\":\"status\"}\n"); break; // leave before the reply
            case 3:
                s.write("{\"id\":1,\"method\":\"events.subscribe\",\"params\":{\"events\":[\"event."
                        "frame\"]}}\n");
                break;
            }
            s.flush();
            s.disconnectFromServer();
            if (s.state() != QLocalSocket::UnconnectedState) s.waitForDisconnected(1000);
        }
        Raw c(path);
        QVERIFY(c.connected());
        c.send("{\"id\":7,\"method\":\"status\"}\n");
        QVERIFY(c.replyTo(7).contains("result"));
    }

    void serverAliveAndMachineUnchanged() {
        QCOMPARE(emu.process().state(), QProcess::Running);
        const json s = emu.ok("status");
        QCOMPARE(s.value("state", ""), std::string("paused"));
        QCOMPARE(emu.ok("state.hash").value("hash", ""), hashBefore);
        QCOMPARE(emu.ok("regs.get"), regsBefore);
        // And it still runs.
        QCOMPARE(emu.ok("step_frame").value("reason", ""), std::string("step"));
    }

    void cleanupTestCase() { QVERIFY(emu.quit()); }
};

QTEST_GUILESS_MAIN(TestControlHostile)
#include "test_control_hostile.moc"
