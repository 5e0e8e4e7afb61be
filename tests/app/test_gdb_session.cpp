// SPDX-License-Identifier: GPL-3.0-or-later
// A gdb client's session (app/gdb/session.h) against the real emulator running a bare-metal
// program: each packet becomes the debugger's command, and the replies carry what the
// commands answered (registers, memory, a breakpoint's stop, a step back through the record),
// in the protocol's framing, with acknowledgements until no-ack mode.

#include "app/control/emulator.h"
#include "app/gdb/registers.h"
#include "app/gdb/session.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"

#include <QtTest>
#include <memory>
#include <string>
#include <vector>

using namespace copperline;
using namespace copperline::gdb;
using nlohmann::json;

namespace {

struct Client {
    std::unique_ptr<Emulator> emu;
    std::unique_ptr<Session> session;
    std::string out;

    explicit Client(const char* program) {
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(readFileBytes(program));
        emu = std::make_unique<Emulator>(std::move(m), Emulator::Options{});
        emu->start();
        Port port;
        port.call = [this](const std::string& method, const json& params) {
            const CommandResult r = emu->call(method, params);
            if (!r.ok) throw CommandRefused(r.errorMessage);
            return r.result;
        };
        port.resume = [this](const std::string& method, const json& params, std::function<void(const json&)> done) {
            const CommandResult r = emu->call(method, params);
            done(r.ok ? r.result : json{{"error", r.errorMessage}});
        };
        session = std::make_unique<Session>(std::move(port), [this](const std::string& bytes) { out += bytes; });
    }
    // Sends a packet; returns the replies' payloads (acknowledgements as "+" / "-").
    std::vector<std::string> send(const std::string& payload) { return raw(framePacket(payload)); }
    std::vector<std::string> raw(const std::string& bytes) {
        out.clear();
        session->receive(bytes);
        PacketReader r;
        r.feed(out);
        std::vector<std::string> got;
        while (auto e = r.next()) {
            if (e->kind == PacketReader::Event::Kind::Ack) got.push_back("+");
            else if (e->kind == PacketReader::Event::Kind::Nack) got.push_back("-");
            else if (e->kind == PacketReader::Event::Kind::Packet) got.push_back(e->payload);
            else got.push_back(std::string("<bad: ").append(e->error).append(">"));
        }
        return got;
    }
    // The one reply to a packet in no-ack mode.
    std::string ask(const std::string& payload) {
        const auto got = send(payload);
        if (got.size() == 1) return got[0];
        return std::string("<replies: ").append(std::to_string(got.size())).append(">");
    }
    json call(const std::string& method, const json& params = json::object()) { return emu->call(method, params).result; }
};

std::string hex(std::uint32_t v, int digits) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%0*x", digits, v);
    return buf;
}

} // namespace

class TestGdbSession : public QObject {
    Q_OBJECT
private slots:
    void aConversation() {
        Client c(HW_STOP_WAKE);
        QVERIFY(c.emu->call("step_frame", {{"n", 3}}).ok);
        // Acknowledged until the client asks for no-ack mode.
        auto got = c.send("qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=m68k");
        QCOMPARE(got.size(), std::size_t(2));
        QCOMPARE(got[0], std::string("+"));
        QVERIFY2(got[1].find("ReverseStep+") != std::string::npos && got[1].find("qXfer:features:read+") != std::string::npos,
                 got[1].c_str());
        QCOMPARE(c.raw("$g#00"), std::vector<std::string>{"-"}); // a wrong checksum
        got = c.send("QStartNoAckMode");
        QCOMPARE(got, (std::vector<std::string>{"+", "OK"}));
        QVERIFY(c.session->noAck());

        // The target description, read in pieces, is the one gdb-multiarch reads.
        std::string xml;
        for (std::uint32_t off = 0;; off += 100) {
            const std::string part = c.ask("qXfer:features:read:target.xml:" + hex(off, 1) + ",64");
            QVERIFY(!part.empty() && (part[0] == 'm' || part[0] == 'l'));
            xml += part.substr(1);
            if (part[0] == 'l') break;
        }
        QCOMPARE(xml, targetDescription());

        // Registers as regs.get has them.
        const json regs = c.call("regs.get");
        const std::string g = c.ask("g");
        QCOMPARE(g.size(), std::size_t(144));
        QCOMPARE(g.substr(17 * 8), hex(regs.value("pc", 0u), 8));
        QCOMPARE(g.substr(16 * 8, 8), hex(regs.value("sr", 0u), 8));
        QCOMPARE(c.ask("p11"), hex(regs.value("pc", 0u), 8));
        QCOMPARE(c.ask("pf"), hex(regs.value("a7", 0u), 8));
        QCOMPARE(c.ask("p12"), std::string("E01"));
        QCOMPARE(c.ask("P3=0badcafe"), std::string("OK"));
        QCOMPARE(c.call("regs.get").value("d3", 0u), 0x0badcafeu);

        // Memory: read, written in hex and in binary (escaped bytes included).
        QCOMPARE(c.ask("m6c,4"), c.call("mem.read", {{"addr", 0x6C}, {"len", 4}}).value("data", std::string()));
        QCOMPARE(c.ask("M70000,4:a1b2c3d4"), std::string("OK"));
        QCOMPARE(c.call("mem.read", {{"addr", 0x70000}, {"len", 4}}).value("data", std::string()), std::string("a1b2c3d4"));
        QCOMPARE(c.ask(std::string("X70000,3:") + "$#}"), std::string("OK"));
        QCOMPARE(c.call("mem.read", {{"addr", 0x70000}, {"len", 4}}).value("data", std::string()), std::string("24237dd4"));
        QCOMPARE(c.ask("M70000,4:zz"), std::string("E01"));
        QCOMPARE(c.ask("m70000,100000"), std::string("E01"));

        // A breakpoint on the level 3 handler: continue stops there, as swbreak.
        const std::uint32_t level3 = std::stoul(c.ask("m6c,4"), nullptr, 16);
        QCOMPARE(c.ask("Z0," + hex(level3, 1) + ",2"), std::string("OK"));
        QCOMPARE(c.ask("vCont?"), std::string("vCont;c;C;s;S;t;r"));
        const std::string cont = c.ask("c");
        QVERIFY2(cont == "T05swbreak:;", (cont + " " + c.call("break.list").dump()).c_str());
        QCOMPARE(c.ask("p11"), hex(level3, 8));
        QCOMPARE(c.ask("?"), std::string("T05swbreak:;"));
        // A step, and back through the record.
        QCOMPARE(c.ask("vCont;s:1"), std::string("T05"));
        QVERIFY(c.ask("p11") != hex(level3, 8));
        QCOMPARE(c.ask("bs"), std::string("T05"));
        QCOMPARE(c.ask("p11"), hex(level3, 8));
        QCOMPARE(c.ask("z0," + hex(level3, 1) + ",2"), std::string("OK"));
        QCOMPARE(c.ask("z0," + hex(level3, 1) + ",2"), std::string("E01"));
        QVERIFY(c.call("break.list")["breakpoints"].empty());
        // A write watchpoint on the bytes the program's handler changes stops as watch:ADDR.
        QCOMPARE(c.ask("Z2,70000,4"), std::string("OK"));
        QCOMPARE(c.ask("M70000,4:00000000"), std::string("OK"));
        QCOMPARE(c.call("break.list")["breakpoints"][0].value("kind", std::string()), std::string("watch"));

        QCOMPARE(c.ask("z2,70000,4"), std::string("OK"));

        // Range stepping: runs while the pc stays in [start, end); a range that holds the
        // pc alone stops at the next instruction.
        const std::uint32_t pc = std::stoul(c.ask("p11"), nullptr, 16);
        QCOMPARE(c.ask("vCont;r" + hex(pc, 1) + "," + hex(pc + 2, 1) + ":1;c"), std::string("T05"));
        const std::uint32_t after = std::stoul(c.ask("p11"), nullptr, 16);
        QVERIFY(after != pc);
        QCOMPARE(c.ask("vCont;r5,4"), std::string("E01"));
        // C passes no signal: it continues; t alone is nothing to do.
        QCOMPARE(c.ask("vCont;t"), std::string("E01"));

        // Output made while stopped waits for the next resume, and comes before its stop reply.
        c.out.clear();
        c.session->output("held ");
        QCOMPARE(c.out, std::string());
        QCOMPARE(c.ask("Z0," + hex(level3, 1) + ",2"), std::string("OK"));
        const auto resumed = c.send("vCont;C05:1;c");
        QCOMPARE(resumed.size(), std::size_t(2));
        QCOMPARE(resumed[0], std::string("O") + "68656c6420"); // "held "
        QCOMPARE(resumed[1], std::string("T05swbreak:;"));

        // Monitor commands: their output in hex.
        const auto monitor = [&c](const std::string& command) {
            std::vector<std::uint8_t> bytes(command.begin(), command.end());
            const auto h = fromHex(c.ask("qRcmd," + toHex(bytes)));
            return h ? std::string(h->begin(), h->end()) : std::string("<not hex>");
        };
        QVERIFY(monitor("help").find("last-writer ADDR") != std::string::npos);
        const std::string status = monitor("status");
        QVERIFY2(status.rfind("paused at pc $", 0) == 0, status.c_str());
        QVERIFY(monitor("reg dmacon").find("DMACON") != std::string::npos);
        QVERIFY(monitor("nosuch").find("unknown monitor command") != std::string::npos);
        QVERIFY(monitor("last-writer").find("usage") != std::string::npos);

        // What is not supported has the empty reply; detach ends the session.
        QCOMPARE(c.ask("qNoSuchThing"), std::string());
        QCOMPARE(c.ask("D"), std::string("OK"));
        QVERIFY(c.session->ended());
    }

    void stopReplies() {
        QCOMPARE(Session::stopReply({{"reason", "breakpoint"}}), std::string("T05swbreak:;"));
        QCOMPARE(Session::stopReply({{"reason", "watchpoint"}, {"detail", {{"address", 0x1234}, {"access", "write"}}}}),
                 std::string("T05watch:1234;"));
        QCOMPARE(Session::stopReply({{"reason", "watchpoint"}, {"detail", {{"address", 0x10}, {"access", "read"}}}}),
                 std::string("T05rwatch:10;"));
        QCOMPARE(Session::stopReply({{"reason", "pause"}, {"interrupted", true}}), std::string("T02"));
        QCOMPARE(Session::stopReply({{"reason", "reverse"}, {"detail", {{"reached_oldest", true}}}}),
                 std::string("T05replaylog:begin;"));
        QCOMPARE(Session::stopReply({{"reason", "step"}}), std::string("T05"));
        // A caught fault is its signal.
        QCOMPARE(Session::stopReply({{"reason", "catch"}, {"detail", {{"vector", 3}}}}), std::string("T0a"));
        QCOMPARE(Session::stopReply({{"reason", "catch"}, {"detail", {{"vector", 4}}}}), std::string("T04"));
        QCOMPARE(Session::stopReply({{"reason", "catch"}, {"detail", {{"vector", 5}}}}), std::string("T08"));
        QCOMPARE(Session::stopReply({{"reason", "catch"}, {"detail", {{"vector", 39}}}}), std::string("T05"));
        // Bartman's: S packets, eight-digit watch addresses, his three faults.
        const auto bartman = [](const json& stop) { return Session::stopReply(stop, Dialect::Bartman); };
        QCOMPARE(bartman({{"reason", "step"}}), std::string("S05"));
        QCOMPARE(bartman({{"reason", "pause"}, {"interrupted", true}}), std::string("S05"));
        QCOMPARE(bartman({{"reason", "breakpoint"}}), std::string("T05swbreak:;"));
        QCOMPARE(bartman({{"reason", "watchpoint"}, {"detail", {{"address", 0x1234}, {"access", "write"}}}}),
                 std::string("T05watch:00001234;"));
        QCOMPARE(bartman({{"reason", "watchpoint"}, {"detail", {{"address", 0}, {"access", "read"}}}}),
                 std::string("S0B"));
        QCOMPARE(bartman({{"reason", "catch"}, {"detail", {{"vector", 3}}}}), std::string("S0A"));
        QCOMPARE(bartman({{"reason", "catch"}, {"detail", {{"vector", 4}}}}), std::string("S04"));
        QCOMPARE(bartman({{"reason", "catch"}, {"detail", {{"vector", 39}}}}), std::string("S07"));
    }
};

QTEST_GUILESS_MAIN(TestGdbSession)
#include "test_gdb_session.moc"
