// SPDX-License-Identifier: GPL-3.0-or-later
// The GDB remote protocol's framing (app/gdb/rsp_packet.h): packets built as gdb reads them,
// and a reader that takes gdb's bytes in any pieces and refuses what is malformed, wrongly
// summed or too long with a reason, holding no more than one packet's bytes.

#include "app/gdb/rsp_packet.h"

#include <QtTest>
#include <string>
#include <vector>

using namespace copperline::gdb;
using Kind = PacketReader::Event::Kind;

class TestGdbPackets : public QObject {
    Q_OBJECT

    static std::vector<PacketReader::Event> all(PacketReader& r) {
        std::vector<PacketReader::Event> out;
        while (auto e = r.next()) out.push_back(*e);
        return out;
    }

private slots:
    void framesAsGdbExpects() {
        // Examples of the protocol's documentation: `$g#67`, `$OK#9a`.
        QCOMPARE(framePacket("g"), std::string("$g#67"));
        QCOMPARE(framePacket("OK"), std::string("$OK#9a"));
        QCOMPARE(framePacket(""), std::string("$#00"));
        // `$ # } *` are escaped as `}` and the byte xor 0x20; the checksum covers what is sent.
        const std::string framed = framePacket(std::string("a$b#c}d*e"));
        QCOMPARE(framed.substr(0, 14), std::string("$a}\x04" "b}\x03" "c}]d}\x0a" "e"));
        QCOMPARE(checksum(framed.substr(1, framed.size() - 4)),
                 std::uint8_t(std::stoul(framed.substr(framed.size() - 2), nullptr, 16)));
    }

    void hexBothWays() {
        QCOMPARE(toHex({0x00, 0x1f, 0xa0, 0xff}), std::string("001fa0ff"));
        QCOMPARE(fromHex("001FA0ff").value(), (std::vector<std::uint8_t>{0x00, 0x1f, 0xa0, 0xff}));
        QVERIFY(!fromHex("abc"));
        QVERIFY(!fromHex("zz"));
        QVERIFY(fromHex("").value().empty());
    }

    void readsPacketsInAnyPieces() {
        const std::string stream = "+$qSupported:multiprocess+;swbreak+#1b" + framePacket("m1000,4") + "-\x03" +
                                   framePacket(std::string("X10,2:\x24\x7d"));
        // Byte by byte, and all at once: the same events.
        for (const std::size_t piece : {std::size_t(1), std::size_t(3), stream.size()}) {
            PacketReader r;
            std::vector<PacketReader::Event> got;
            for (std::size_t i = 0; i < stream.size(); i += piece) {
                r.feed(std::string_view(stream).substr(i, piece));
                for (auto& e : all(r)) got.push_back(e);
            }
            QCOMPARE(got.size(), std::size_t(6));
            QCOMPARE(got[0].kind, Kind::Ack);
            QCOMPARE(got[1].kind, Kind::Packet);
            QCOMPARE(got[1].payload, std::string("qSupported:multiprocess+;swbreak+"));
            QCOMPARE(got[2].payload, std::string("m1000,4"));
            QCOMPARE(got[3].kind, Kind::Nack);
            QCOMPARE(got[4].kind, Kind::Interrupt);
            // Escaped binary data comes back as it was.
            QCOMPARE(got[5].kind, Kind::Packet);
            QCOMPARE(got[5].payload, std::string("X10,2:\x24\x7d"));
            QCOMPARE(r.pending(), std::size_t(0));
        }
    }

    void refusesWhatIsWrong() {
        PacketReader r(64);
        // A wrong checksum, a checksum that is not hex, a packet cut by the next one, an
        // escape at the end, and noise between packets (dropped).
        r.feed("$g#00$g#zz$m10$g#67xyz$ab}#");
        r.feed("0"); // not enough yet: one checksum digit
        auto events = all(r);
        QCOMPARE(events.size(), std::size_t(4));
        QCOMPARE(events[0].kind, Kind::Bad);
        QVERIFY2(events[0].error.find("wrong checksum 00") != std::string::npos, events[0].error.c_str());
        QCOMPARE(events[1].kind, Kind::Bad);
        QVERIFY(events[1].error.find("not two hex digits") != std::string::npos);
        QCOMPARE(events[2].kind, Kind::Bad);
        QVERIFY(events[2].error.find("began before") != std::string::npos);
        QCOMPARE(events[3].kind, Kind::Packet);
        QCOMPARE(events[3].payload, std::string("g"));
        r.feed("0");
        events = all(r);
        QCOMPARE(events.size(), std::size_t(1));
        QCOMPARE(events[0].kind, Kind::Bad); // "$ab}#00": the sum of "ab}" is not 00
        r.feed("$ab}" "#" + std::string(1, "0123456789abcdef"[checksum("ab}") >> 4]) +
               std::string(1, "0123456789abcdef"[checksum("ab}") & 15]));
        events = all(r);
        QCOMPARE(events.size(), std::size_t(1));
        QCOMPARE(events[0].kind, Kind::Bad);
        QVERIFY2(events[0].error.find("inside an escape") != std::string::npos, events[0].error.c_str());
    }

    void boundsAHugePacket() {
        PacketReader r(1000);
        r.feed("$");
        const std::string chunk(4096, 'A');
        for (int i = 0; i < 256; ++i) {
            r.feed(chunk); // a megabyte that never ends
            QVERIFY(r.pending() <= 1000);
        }
        r.feed("#41");
        auto events = all(r);
        QCOMPARE(events.size(), std::size_t(1));
        QCOMPARE(events[0].kind, Kind::Bad);
        QVERIFY2(events[0].error.find("1048576 bytes") != std::string::npos, events[0].error.c_str());
        // The reader goes on with the next packet.
        r.feed(framePacket("?"));
        events = all(r);
        QCOMPARE(events.size(), std::size_t(1));
        QCOMPARE(events[0].payload, std::string("?"));
    }
};

QTEST_APPLESS_MAIN(TestGdbPackets)
#include "test_gdb_packets.moc"
