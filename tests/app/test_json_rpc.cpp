// SPDX-License-Identifier: GPL-3.0-or-later
// The protocol's plain parts: line framing with its size limit, request validation, and
// the parameter readers (numbers in three notations, hex and base64).

#include "app/control/json_rpc.h"
#include "app/control/params.h"
#include "emu/base64.h"

#include <QtTest>
#include <random>

using namespace copperline;
using nlohmann::json;

class TestJsonRpc : public QObject {
    Q_OBJECT

    static std::vector<std::string>
    frame(rpc::LineFramer& f, const std::vector<std::string>& chunks, int* overlong = nullptr) {
        std::vector<std::string> lines;
        for (const auto& c : chunks)
            f.feed(
                c, [&](std::string_view l) { lines.emplace_back(l); },
                [&] {
                    if (overlong) ++*overlong;
                });
        return lines;
    }

private slots:
    void framesLinesAcrossChunks() {
        rpc::LineFramer f;
        const auto lines = frame(f, {"ab", "c\nde", "f\n\n", "g"});
        QCOMPARE(lines.size(), std::size_t(3));
        QCOMPARE(lines[0], std::string("abc"));
        QCOMPARE(lines[1], std::string("def"));
        QCOMPARE(lines[2], std::string(""));
        // "g" waits for its newline.
        QCOMPARE(frame(f, {"h\n"}).at(0), std::string("gh"));
    }

    void dropsOverlongLinesWhole() {
        rpc::LineFramer f(16);
        int overlong = 0;
        const auto lines = frame(
            f, {"0123456789", "0123456789", "0123456789\nok\n", std::string(40, 'x') + "\nfine\n"},
            &overlong);
        QCOMPARE(overlong, 2);
        QCOMPARE(lines.size(), std::size_t(2));
        QCOMPARE(lines[0], std::string("ok"));
        QCOMPARE(lines[1], std::string("fine"));
        // Exactly the limit is allowed.
        QCOMPARE(frame(f, {std::string(16, 'y') + "\n"}).at(0), std::string(16, 'y'));
    }

    void validatesRequests() {
        auto code = [](std::string_view line) {
            auto r = rpc::parseRequest(line);
            return std::holds_alternative<rpc::Rejection>(r) ? std::get<rpc::Rejection>(r).code : 0;
        };
        QCOMPARE(code(R"({"jsonrpc":"2.0","id":1,"method":"status"})"), 0);
        QCOMPARE(code(R"({"id":"a","method":"status","params":{"n":1}})"), 0);
        QCOMPARE(code("{"), errc::ParseError);
        QCOMPARE(code("\xff\xfe"), errc::ParseError);
        QCOMPARE(code(R"([{"id":1,"method":"status"}])"), errc::InvalidRequest);
        QCOMPARE(code(R"({"method":"status"})"), errc::InvalidRequest);
        QCOMPARE(code(R"({"id":1.5,"method":"status"})"), errc::InvalidRequest);
        QCOMPARE(code(R"({"id":1,"jsonrpc":"1.0","method":"status"})"), errc::InvalidRequest);
        QCOMPARE(code(R"({"id":1,"method":["status"]})"), errc::InvalidRequest);
        QCOMPARE(code(R"({"id":1,"method":"status","params":[1]})"), errc::InvalidParams);
        const auto ok = std::get<rpc::Request>(rpc::parseRequest(R"({"id":7,"method":"step"})"));
        QCOMPARE(ok.id.get<int>(), 7);
        QVERIFY(ok.params.is_object());
    }

    void repliesAreOneLineEvenWithBadUtf8() {
        CommandResult r;
        r.errorCode = errc::InvalidParams;
        r.errorMessage = "bad \xff byte";
        const std::string line = rpc::replyLine(3, r);
        QVERIFY(line.ends_with("\n"));
        QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1L);
        const json j = json::parse(line);
        QCOMPARE(j["error"]["code"].get<int>(), errc::InvalidParams);
        QCOMPARE(j["id"].get<int>(), 3);
    }

    void readsNumbers() {
        const json p = {{"a", 10}, {"b", "0x1F"}, {"c", "$ff"}, {"d", "42"},
                        {"e", -1}, {"f", "0x"},   {"g", 1.5}};
        QCOMPARE(params::number(p, "a"), 10ull);
        QCOMPARE(params::number(p, "b"), 31ull);
        QCOMPARE(params::number(p, "c"), 255ull);
        QCOMPARE(params::number(p, "d"), 42ull);
        QVERIFY(!params::optionalNumber(p, "missing"));
        for (const char* bad : {"e", "f", "g", "missing"}) {
            try {
                params::number(p, bad);
                QFAIL(bad);
            } catch (const CommandError& e) {
                QCOMPARE(e.code(), errc::InvalidParams);
            }
        }
        try {
            params::number(p, "c", 100);
            QFAIL("over the limit");
        } catch (const CommandError& e) {
            QCOMPARE(e.code(), errc::InvalidParams);
        }
    }

    void encodesAndDecodesBytes() {
        std::mt19937 rng(7);
        for (std::size_t n = 0; n < 40; ++n) {
            std::vector<std::uint8_t> bytes(n);
            for (auto& b : bytes)
                b = std::uint8_t(rng());
            for (const char* enc : {"hex", "base64"})
                QCOMPARE(params::decode(params::encode(bytes, enc), enc), bytes);
        }
        QCOMPARE(copperline::toBase64(reinterpret_cast<const std::uint8_t*>("Amiga"), 5),
                 std::string("QW1pZ2E="));
        for (const auto& [text, enc] :
             std::vector<std::pair<std::string, std::string>>{{"abc", "hex"},
                                                              {"zz", "hex"},
                                                              {"QW1", "base64"},
                                                              {"QW=1", "base64"},
                                                              {"QW1pZ2E*", "base64"},
                                                              {"00", "rot13"}}) {
            try {
                params::decode(text, enc);
                QFAIL(text.c_str());
            } catch (const CommandError& e) {
                QCOMPARE(e.code(), errc::InvalidParams);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestJsonRpc)
#include "test_json_rpc.moc"
