// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the GDB remote protocol's packet reader (app/gdb/rsp_packet.h,
// docs/testing.md): the input is the byte stream a client sends. It is read twice per
// payload limit (16384 bytes, the stub's, and 32, so that overlong packets happen): in one
// piece, and in pieces whose sizes come from a generator seeded by the first byte, with the
// events taken at points it chooses too. Besides the sanitizers:
//
// - both readings give the same events (kinds, payloads, reasons), and the same events as a
//   plain model of the framing written here over the whole input;
// - every refusal says why; the reader never holds more than the limit + 3 bytes;
// - every packet handed back, framed again with framePacket, reads back as one packet with
//   the same payload;
// - payloads that are G/P register data or plain hex decode exactly when they should, and
//   encode back to the same digits.

#include "tests/fuzz/fuzz_fail.h"
#include "app/gdb/registers.h"
#include "app/gdb/rsp_packet.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace copperline::gdb;
using Event = PacketReader::Event;
using Kind = Event::Kind;

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
    copperline::testing::fuzzFail("gdb_packet_fuzzer", what, detail);
}

const char* kindName(Kind k) {
    switch (k) {
    case Kind::Packet: return "packet";
    case Kind::Interrupt: return "interrupt";
    case Kind::Ack: return "ack";
    case Kind::Nack: return "nack";
    case Kind::Bad: return "bad";
    }
    return "?";
}

// A small generator (xorshift) for piece sizes and the points where events are taken.
struct Pieces {
    std::uint32_t state;
    explicit Pieces(std::uint32_t seed) : state(seed * 2654435761u + 1) {}
    std::uint32_t next() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    }
};

void drain(PacketReader& r, std::vector<Event>& out) {
    while (auto e = r.next()) out.push_back(std::move(*e));
}

std::vector<Event> readWhole(std::string_view bytes, std::size_t limit) {
    PacketReader r(limit);
    r.feed(bytes);
    if (r.pending() > limit + 3) fail("the reader holds more than its limit");
    std::vector<Event> out;
    drain(r, out);
    if (r.next()) fail("an event after the reader said there was none");
    return out;
}

std::vector<Event> readInPieces(std::string_view bytes, std::size_t limit, std::uint32_t seed) {
    PacketReader r(limit);
    Pieces gen(seed);
    std::vector<Event> out;
    std::size_t at = 0;
    while (at < bytes.size()) {
        const std::uint32_t g = gen.next();
        // Mostly short pieces (every framing state cut), sometimes empty, sometimes long.
        std::size_t n = g % 8 == 0 ? (g >> 8) % 64 : (g >> 8) % 4;
        n = std::min(n, bytes.size() - at);
        r.feed(bytes.substr(at, n));
        at += n;
        if (r.pending() > limit + 3) fail("the reader holds more than its limit");
        if ((g >> 4) % 3 == 0) drain(r, out);
    }
    drain(r, out);
    return out;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The framing as docs/gdb.md describes it, over the whole stream at once: between packets
// 0x03, '+' and '-' are events and anything else is dropped; a packet is '$', the bytes up
// to '#' (a '$' first refuses it and starts another), and the two bytes after '#' as its
// checksum, which must be the hex sum of the bytes as sent; then '}' escapes the next byte.
// Packets whose payload as sent passes the limit are refused. Bad events carry no reason
// here: only their place is compared.
std::vector<Event> model(std::string_view s, std::size_t limit) {
    std::vector<Event> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c != '$') {
            if (c == '\x03') out.push_back({Kind::Interrupt, {}, {}});
            if (c == '+') out.push_back({Kind::Ack, {}, {}});
            if (c == '-') out.push_back({Kind::Nack, {}, {}});
            ++i;
            continue;
        }
        const std::size_t end = s.find_first_of("$#", i + 1);
        if (end == std::string_view::npos) break; // unfinished
        if (s[end] == '$') {
            out.push_back({Kind::Bad, {}, {}});
            i = end;
            continue;
        }
        if (end + 2 >= s.size()) break; // the checksum not all there yet
        const std::string_view sent = s.substr(i + 1, end - i - 1);
        i = end + 3;
        const int hi = hexValue(s[end + 1]), lo = hexValue(s[end + 2]);
        unsigned sum = 0;
        for (const char b : sent) sum += static_cast<unsigned char>(b);
        if (sent.size() > limit || hi < 0 || lo < 0 || unsigned(hi * 16 + lo) != (sum & 255)) {
            out.push_back({Kind::Bad, {}, {}});
            continue;
        }
        std::string payload;
        bool cut = false; // a '}' with nothing after it
        for (std::size_t k = 0; k < sent.size(); ++k) {
            if (sent[k] != '}') {
                payload += sent[k];
            } else if (k + 1 < sent.size()) {
                payload += static_cast<char>(sent[++k] ^ 0x20);
            } else {
                cut = true;
            }
        }
        if (cut)
            out.push_back({Kind::Bad, {}, {}});
        else
            out.push_back({Kind::Packet, std::move(payload), {}});
    }
    return out;
}

void sameEvents(const std::vector<Event>& a, const std::vector<Event>& b, bool reasons, const char* what) {
    if (a.size() != b.size()) {
        std::fprintf(stderr, "gdb_packet_fuzzer: %zu events against %zu\n", a.size(), b.size());
        fail(what);
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].kind != b[i].kind) {
            std::fprintf(stderr, "gdb_packet_fuzzer: event %zu is %s against %s\n", i, kindName(a[i].kind),
                         kindName(b[i].kind));
            fail(what);
        }
        if (a[i].payload != b[i].payload) fail(what, a[i].payload);
        if (reasons && a[i].error != b[i].error) fail(what, a[i].error);
    }
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool allHex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return hexValue(c) >= 0; });
}

// The register and hex decoders on a packet's payload: accepted exactly when the text is
// hex digits of the right length, and what is accepted encodes back to the same digits.
void checkRegisters(const std::string& payload) {
    const std::string_view p = payload;
    if (const auto bytes = fromHex(p)) {
        if (p.size() % 2 || !allHex(p)) fail("fromHex took what is not hex", p);
        if (toHex(*bytes) != lower(p)) fail("toHex does not give back fromHex's text", p);
    } else if (p.size() % 2 == 0 && allHex(p)) {
        fail("fromHex refused hex", p);
    }
    if (p.starts_with('G')) {
        const std::string_view data = p.substr(1);
        const auto regs = decodeRegisters(data);
        const bool valid = data.size() == std::size_t(kRegisterCount) * 8 && allHex(data);
        if (bool(regs) != valid) fail("decodeRegisters disagrees with the G packet's shape", p);
        if (regs && encodeRegisters(*regs) != lower(data)) fail("encodeRegisters does not give back G", p);
    }
    if (p.starts_with('P')) {
        const auto eq = p.find('=');
        if (eq != std::string_view::npos) {
            const std::string_view data = p.substr(eq + 1);
            const auto value = decodeRegister(data);
            const bool valid = data.size() == 8 && allHex(data);
            if (bool(value) != valid) fail("decodeRegister disagrees with the P packet's shape", p);
            if (value && encodeRegister(*value) != lower(data)) fail("encodeRegister does not give back P", p);
        }
    }
}

void checkEvents(const std::vector<Event>& events, std::size_t limit) {
    for (const Event& e : events) {
        if (e.kind == Kind::Bad) {
            if (e.error.empty()) fail("a refusal without a reason");
            continue;
        }
        if (!e.error.empty()) fail("an event that is no refusal carries a reason", e.error);
        if (e.kind != Kind::Packet) {
            if (!e.payload.empty()) fail("an ack or interrupt with a payload", e.payload);
            continue;
        }
        if (e.payload.size() > limit) fail("a packet longer than the limit", e.payload);
        // Framed again, the payload reads back the same.
        const std::string framed = framePacket(e.payload);
        if (framed.size() < 4 || framed.front() != '$' || framed[framed.size() - 3] != '#')
            fail("framePacket's output is no packet", framed);
        const std::vector<Event> again = readWhole(framed, framed.size());
        if (again.size() != 1 || again[0].kind != Kind::Packet || again[0].payload != e.payload)
            fail("a packet framed again does not read back the same", framed);
        checkRegisters(e.payload);
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const std::uint32_t seed = size ? data[0] | std::uint32_t(size) << 8 : 0;
    for (const std::size_t limit : {std::size_t(16384), std::size_t(32)}) {
        const std::vector<Event> whole = readWhole(bytes, limit);
        checkEvents(whole, limit);
        sameEvents(whole, readInPieces(bytes, limit, seed), true, "one piece and many pieces disagree");
        sameEvents(whole, model(bytes, limit), false, "the reader and the model of the framing disagree");
    }
    return 0;
}
