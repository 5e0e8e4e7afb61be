// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the Debug Adapter Protocol's message reader (app/ctl/dap/dap_protocol.h,
// docs/testing.md): the input is the byte stream an editor sends. It is read in one piece and
// in pieces whose sizes come from a generator seeded by the first byte. Besides the
// sanitizers:
//
// - both readings hand back the same messages and the same refusals, each with its reason;
// - the reader holds at most a header's worth (8 KiB and the 3 bytes of an unfinished empty
//   line) or what a Content-Length of the input asked for, never past 16 MiB;
// - every message, framed again with frame(), reads back as the same one message;
// - parseRequest's answer on every message agrees with its fields: a request has a seq from
//   0 up, a command and object arguments; a refusal says why and names the seq it could read;
// - the reader goes on: after the input, bytes that finish whatever body it waits for, then a
//   line of junk, then a request, and the request comes out last.

#include "tests/fuzz/fuzz_fail.h"
#include "app/control/json_rpc.h"
#include "app/ctl/dap/dap_protocol.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace copperline;
using nlohmann::json;

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
    copperline::testing::fuzzFail("dap_message_fuzzer", what, detail);
}

struct Read {
    std::vector<json> messages;
    std::vector<std::string> errors;
};

// The largest number written in decimal digits in the input (saturated): no Content-Length
// the reader accepts from it can be larger.
std::size_t largestNumber(std::string_view s) {
    std::size_t best = 0, n = 0;
    for (const char c : s) {
        if (c >= '0' && c <= '9') {
            n = std::min<std::size_t>(n * 10 + std::size_t(c - '0'), std::size_t(1) << 40);
            best = std::max(best, n);
        } else {
            n = 0;
        }
    }
    return best;
}

void checkHeld(const dap::MessageReader& reader, std::size_t largest) {
    const std::size_t held = reader.buffered();
    if (held <= dap::kMaxHeaderBytes + 3) return;
    if (held < std::min(largest, dap::kMaxBodyBytes)) return; // a body on its way
    std::fprintf(stderr, "dap_message_fuzzer: %zu bytes held\n", held);
    fail("the reader holds more than a header or the body it waits for");
}

void feed(dap::MessageReader& reader, std::string_view bytes, Read& out, std::size_t largest) {
    reader.feed(
        bytes, [&](json m) { out.messages.push_back(std::move(m)); },
        [&](const std::string& e) { out.errors.push_back(e); });
    checkHeld(reader, largest);
}

Read readInPieces(std::string_view bytes, std::uint32_t seed, std::size_t largest) {
    dap::MessageReader reader;
    Read out;
    std::uint32_t state = seed * 2654435761u + 1;
    std::size_t at = 0;
    while (at < bytes.size()) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        // Mostly short pieces (a header cut anywhere), sometimes empty, sometimes long.
        std::size_t n = state % 8 == 0 ? (state >> 8) % 128 : (state >> 8) % 6;
        n = std::min(n, bytes.size() - at);
        feed(reader, bytes.substr(at, n), out, largest);
        at += n;
    }
    return out;
}

void checkRequest(const json& message) {
    const auto parsed = dap::parseRequest(message);
    if (const auto* request = std::get_if<dap::Request>(&parsed)) {
        if (!message.is_object() || message.value("type", json()) != "request")
            fail("a request accepted that is no request", rpc::dump(message));
        if (request->seq < 0 || request->command.empty() || !request->arguments.is_object())
            fail("a request accepted without seq, command or object arguments", rpc::dump(message));
        if (message.at("seq") != request->seq || message.at("command") != request->command)
            fail("a request's seq or command is not the message's", rpc::dump(message));
        return;
    }
    const auto& refusal = std::get<dap::Refusal>(parsed);
    if (refusal.message.empty()) fail("a request refused without a reason", rpc::dump(message));
    if (refusal.seq != -1) {
        // The very number the message holds (json's == takes 2^63 for -2^63).
        const auto seq = message.is_object() ? message.find("seq") : message.end();
        bool same = false;
        if (seq != message.end() && seq->is_number_unsigned())
            same = refusal.seq >= 0 && seq->get<std::uint64_t>() == std::uint64_t(refusal.seq);
        else if (seq != message.end() && seq->is_number_integer())
            same = seq->get<std::int64_t>() == refusal.seq;
        if (!same) fail("a refusal names a seq the message does not have", rpc::dump(message));
    }
}

void checkMessage(const json& message) {
    // Framed again, it reads back as itself.
    const std::string framed = dap::frame(message);
    dap::MessageReader reader;
    Read again;
    feed(reader, framed, again, framed.size());
    if (again.messages.size() != 1 || !again.errors.empty() || again.messages[0] != message ||
        reader.buffered() != 0)
        fail("a message framed again does not read back the same", framed);
    checkRequest(message);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const std::size_t largest = largestNumber(bytes);

    dap::MessageReader reader;
    Read whole;
    feed(reader, bytes, whole, largest);
    for (const std::string& e : whole.errors)
        if (e.empty()) fail("a refusal without a reason");
    for (const json& m : whole.messages) checkMessage(m);

    const Read pieces = readInPieces(bytes, size ? data[0] | std::uint32_t(size) << 8 : 0, largest);
    if (pieces.messages != whole.messages || pieces.errors != whole.errors) {
        std::fprintf(stderr, "dap_message_fuzzer: %zu messages and %zu refusals in one piece, %zu and %zu in many\n",
                     whole.messages.size(), whole.errors.size(), pieces.messages.size(), pieces.errors.size());
        for (std::size_t i = 0; i < std::max(whole.errors.size(), pieces.errors.size()); ++i)
            std::fprintf(stderr, "  %s | %s\n", i < whole.errors.size() ? whole.errors[i].c_str() : "-",
                         i < pieces.errors.size() ? pieces.errors[i].c_str() : "-");
        fail("one piece and many pieces disagree");
    }

    // The reader goes on. A body it waits for is at most `largest` bytes, so that many and one
    // finish it; the junk and its empty line then end whatever header is open, twice, so that
    // a header the first one completed has its body too; the request comes after.
    if (largest < (std::size_t(1) << 16)) {
        const std::string filler(largest + 1, 'x');
        const json probe = {{"seq", 7}, {"type", "request"}, {"command", "probe"}};
        Read after;
        feed(reader, filler + "\r\n\r\n" + filler + "\r\n\r\n" + dap::frame(probe), after, largest + 1);
        if (after.messages.empty() || after.messages.back() != probe)
            fail("the reader did not go on to the next header after the input");
        if (reader.buffered() != 0) fail("bytes held after a whole message");
    }
    return 0;
}
