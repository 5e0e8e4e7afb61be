// SPDX-License-Identifier: GPL-3.0-or-later
// The Debug Adapter Protocol's framing (app/ctl/dap/dap_protocol.*): messages in any pieces,
// and every malformed input refused with a reason, the reader going on with the next header
// and never holding more than a message's worth of bytes.

#include "app/ctl/dap/dap_protocol.h"

#include <QtTest>
#include <string>
#include <vector>

using copperline::dap::MessageReader;
using nlohmann::json;

namespace {

struct Read {
    std::vector<json> messages;
    std::vector<std::string> errors;
};

Read feedAll(MessageReader& reader, const std::string& bytes, std::size_t piece = 0) {
    Read out;
    const auto onMessage = [&](json m) { out.messages.push_back(std::move(m)); };
    const auto onError = [&](const std::string& e) { out.errors.push_back(e); };
    if (piece == 0) {
        reader.feed(bytes, onMessage, onError);
    } else {
        for (std::size_t i = 0; i < bytes.size(); i += piece)
            reader.feed(std::string_view(bytes).substr(i, piece), onMessage, onError);
    }
    return out;
}

std::string framed(const std::string& body) {
    return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kRequest = R"({"seq":1,"type":"request","command":"initialize"})";

} // namespace

class TestDapProtocol : public QObject {
    Q_OBJECT
private slots:
    void messagesInAnyPieces() {
        const std::string two =
            framed(kRequest) + "\r\n" + framed(R"({"seq":2,"type":"request","command":"threads"})");
        for (std::size_t piece : {0, 1, 2, 3, 7, 50}) {
            MessageReader reader;
            const Read r = feedAll(reader, two, piece);
            QCOMPARE(r.errors.size(), std::size_t(0));
            QCOMPARE(r.messages.size(), std::size_t(2));
            QCOMPARE(r.messages[1]["command"].get<std::string>(), std::string("threads"));
            QCOMPARE(reader.buffered(), std::size_t(0));
        }
    }

    void otherHeadersAndCase() {
        MessageReader reader;
        const Read r = feedAll(
            reader, "content-length: " + std::to_string(kRequest.size()) +
                        "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" +
                        kRequest);
        QCOMPARE(r.errors.size(), std::size_t(0));
        QCOMPARE(r.messages.size(), std::size_t(1));
    }

    // After a refusal the reader finds the next header spelt in any case, as it reads one.
    void recoveryFindsTheHeaderInAnyCase() {
        const std::string lower = "content-length: " + std::to_string(kRequest.size()) + "\r\n\r\n" + kRequest;
        for (const std::string& before : {std::string("Content-Length: abc\r\n\r\n"),
                                          std::string("Content-Length: 20\r\n\r\n") + kRequest}) {
            for (std::size_t piece : {0, 1, 5}) {
                MessageReader reader;
                const Read r = feedAll(reader, before + lower, piece);
                QVERIFY2(!r.errors.empty(), before.c_str());
                QCOMPARE(r.messages.size(), std::size_t(1));
                QCOMPARE(r.messages[0]["command"].get<std::string>(), std::string("initialize"));
            }
        }
    }

    void bodyNotJson() {
        MessageReader reader;
        const Read r = feedAll(reader, framed("{not json}") + framed(kRequest));
        QCOMPARE(r.errors.size(), std::size_t(1));
        QVERIFY(r.errors[0].find("not JSON") != std::string::npos);
        QCOMPARE(r.messages.size(), std::size_t(1));
    }

    void shortLengthThenRecovery() {
        MessageReader reader;
        const Read r =
            feedAll(reader, "Content-Length: 20\r\n\r\n" + kRequest + framed(kRequest), 5);
        QVERIFY(!r.errors.empty());
        QCOMPARE(r.messages.size(), std::size_t(1));
    }

    void badHeaders() {
        for (const std::string& bad :
             {std::string("Content-Length: abc\r\n\r\n"), std::string("Content-Type: x\r\n\r\n"),
              std::string("no colon here\r\n\r\n"),
              std::string("Content-Length: 5\r\nContent-Length: 6\r\n\r\n")}) {
            MessageReader reader;
            const Read r = feedAll(reader, bad + framed(kRequest));
            QVERIFY2(!r.errors.empty(), bad.c_str());
            QCOMPARE(r.messages.size(), std::size_t(1));
        }
    }

    void hugeLengthRefusedUnread() {
        MessageReader reader;
        Read r = feedAll(reader, "Content-Length: 99999999999\r\n\r\n");
        QCOMPARE(r.errors.size(), std::size_t(1));
        QVERIFY(r.errors[0].find("refused") != std::string::npos);
        // What follows is passed over without being kept, up to the next header.
        const std::string junk(1 << 20, 'x');
        for (int i = 0; i < 8; ++i) {
            r = feedAll(reader, junk);
            QVERIFY(reader.buffered() < 64);
        }
        r = feedAll(reader, framed(kRequest), 3);
        QCOMPARE(r.messages.size(), std::size_t(1));
    }

    void endlessHeader() {
        MessageReader reader;
        const Read r = feedAll(reader, std::string(20000, 'h'));
        QCOMPARE(r.errors.size(), std::size_t(1));
        QVERIFY(reader.buffered() <= copperline::dap::kMaxHeaderBytes);
        QCOMPARE(feedAll(reader, framed(kRequest)).messages.size(), std::size_t(1));
    }

    void headerOfTheLimitInPieces() {
        // A header block of exactly kMaxHeaderBytes is taken, also when the read ends inside
        // the empty line after it (found by dap_message_fuzzer: the reader refused it then,
        // once it held more than the limit, though it took the same bytes in one piece).
        std::string header = "Content-Length: " + std::to_string(kRequest.size()) + "\r\nX-Pad: ";
        header.resize(copperline::dap::kMaxHeaderBytes, 'p');
        const std::string message = header + "\r\n\r\n" + kRequest;
        for (const std::size_t cut : {std::size_t(1), std::size_t(2), std::size_t(3)}) {
            MessageReader reader;
            Read r = feedAll(reader, message.substr(0, header.size() + cut));
            QCOMPARE(r.errors.size(), std::size_t(0));
            r = feedAll(reader, message.substr(header.size() + cut));
            QCOMPARE(r.errors.size(), std::size_t(0));
            QCOMPARE(r.messages.size(), std::size_t(1));
        }
        // One byte more and it is refused, in one piece or cut the same way.
        for (const std::size_t cut : {std::size_t(3), std::size_t(4), std::size_t(0)}) {
            MessageReader reader;
            const std::string longer = header + "p\r\n\r\n" + kRequest;
            const std::size_t at = cut ? header.size() + 1 + cut : longer.size();
            Read r = feedAll(reader, longer.substr(0, at));
            const Read rest = feedAll(reader, longer.substr(at));
            r.errors.insert(r.errors.end(), rest.errors.begin(), rest.errors.end());
            QCOMPARE(r.errors.size(), std::size_t(1));
            QVERIFY(r.errors[0].find("more than 8 KiB") != std::string::npos);
        }
    }

    void requestsChecked() {
        using copperline::dap::parseRequest;
        using copperline::dap::Refusal;
        using copperline::dap::Request;
        QVERIFY(std::holds_alternative<Request>(parseRequest(json::parse(kRequest))));
        const auto noSeq = parseRequest(json{{"type", "request"}, {"command", "x"}});
        QCOMPARE(std::get<Refusal>(noSeq).seq, std::int64_t(-1));
        const auto event = parseRequest(json{{"seq", 4}, {"type", "event"}, {"event", "x"}});
        QCOMPARE(std::get<Refusal>(event).seq, std::int64_t(4));
        const auto args = parseRequest(
            json{{"seq", 5}, {"type", "request"}, {"command", "launch"}, {"arguments", 3}});
        QVERIFY(std::get<Refusal>(args).message.find("arguments") != std::string::npos);
        QVERIFY(std::holds_alternative<Refusal>(parseRequest(json::array({1, 2}))));
        // A seq past 2^63 - 1 is refused and not named as the int64 it would wrap to (found
        // by dap_message_fuzzer's check).
        const auto huge = parseRequest(json::parse(R"({"seq":9223372036854775808,"type":"event"})"));
        QCOMPARE(std::get<Refusal>(huge).seq, std::int64_t(-1));
        const auto hugeRequest =
            parseRequest(json::parse(R"({"seq":18446744073709551614,"type":"request","command":"x"})"));
        QCOMPARE(std::get<Refusal>(hugeRequest).seq, std::int64_t(-1));
        QVERIFY(std::get<Refusal>(hugeRequest).message.find("seq") != std::string::npos);
    }

    void frameRepairsText() {
        const std::string f = copperline::dap::frame(json{{"output", std::string("caf\xe9")}});
        QVERIFY(f.starts_with("Content-Length: "));
        MessageReader reader;
        QCOMPARE(feedAll(reader, f).messages.size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestDapProtocol)
#include "test_dap_protocol.moc"
