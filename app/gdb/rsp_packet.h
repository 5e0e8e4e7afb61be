// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The GDB remote serial protocol's framing (docs/gdb.md): `$payload#cs` packets with a
// two-digit hex checksum, `}`-escaping of `$ # } *`, the `+`/`-` acknowledgements, and the
// interrupt byte 0x03 a client sends between packets. PacketReader takes bytes as they arrive,
// in any pieces, and hands back whole events; whatever a hostile or broken client sends
// becomes a `Bad` event that says what was wrong (the stub answers `-` in ack mode), never
// an unbounded buffer. No Qt: the stub's socket code feeds it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace copperline::gdb {

// The packet that carries `payload`: `$`, the payload with `$ # } *` escaped, `#`, checksum.
std::string framePacket(std::string_view payload);

// The sum of the bytes modulo 256, as the protocol's checksum.
std::uint8_t checksum(std::string_view bytes);

// Hex text of bytes ("0a1b"), and bytes of hex text (nullopt for an odd length or a
// character that is no hex digit).
std::string toHex(const std::vector<std::uint8_t>& bytes);
std::optional<std::vector<std::uint8_t>> fromHex(std::string_view text);

class PacketReader {
public:
    struct Event {
        enum class Kind : std::uint8_t {
            Packet,    // `payload` unescaped, its checksum right
            Interrupt, // 0x03 between packets (Ctrl-C)
            Ack,       // `+`
            Nack,      // `-`: the client asks for the last reply again
            Bad,       // a packet refused: `error` says why
        };
        Kind kind = Kind::Packet;
        std::string payload;
        std::string error;
    };

    // A packet's payload longer than `maxPayload` bytes (as sent, escapes included) is
    // refused once its end arrives, and not kept meanwhile.
    explicit PacketReader(std::size_t maxPayload = 16384) : maxPayload_(maxPayload) {}

    void feed(std::string_view bytes);
    // The next whole event, in arrival order; nullopt until more bytes come.
    std::optional<Event> next();
    // Bytes of an unfinished packet held now (bounded by maxPayload + 3).
    std::size_t pending() const { return packet_.size(); }
    std::size_t maxPayload() const { return maxPayload_; }

private:
    enum class State : std::uint8_t { Idle, Payload, Sum1, Sum2 };
    void finish();

    std::size_t maxPayload_;
    State state_ = State::Idle;
    std::string packet_;     // the payload as sent, while it fits
    std::size_t length_ = 0; // bytes of payload seen, kept or not
    char sum_[2] = {0, 0};
    std::vector<Event> events_;
    std::size_t nextEvent_ = 0;
};

} // namespace copperline::gdb
