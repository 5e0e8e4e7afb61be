// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gdb/rsp_packet.h"

namespace copperline::gdb {

namespace {

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

constexpr char kDigits[] = "0123456789abcdef";

} // namespace

std::uint8_t checksum(std::string_view bytes) {
    unsigned sum = 0;
    for (const char c : bytes) sum += static_cast<unsigned char>(c);
    return static_cast<std::uint8_t>(sum);
}

std::string framePacket(std::string_view payload) {
    std::string body;
    body.reserve(payload.size() + 8);
    for (const char c : payload) {
        if (c == '$' || c == '#' || c == '}' || c == '*') {
            body += '}';
            body += static_cast<char>(c ^ 0x20);
        } else {
            body += c;
        }
    }
    const std::uint8_t sum = checksum(body);
    std::string out;
    out.reserve(body.size() + 4);
    out += '$';
    out += body;
    out += '#';
    out += kDigits[sum >> 4];
    out += kDigits[sum & 15];
    return out;
}

std::string toHex(const std::vector<std::uint8_t>& bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const std::uint8_t b : bytes) {
        out += kDigits[b >> 4];
        out += kDigits[b & 15];
    }
    return out;
}

std::optional<std::vector<std::uint8_t>> fromHex(std::string_view text) {
    if (text.size() % 2) return std::nullopt;
    std::vector<std::uint8_t> out;
    out.reserve(text.size() / 2);
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int hi = hexDigit(text[i]), lo = hexDigit(text[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
    }
    return out;
}

void PacketReader::feed(std::string_view bytes) {
    for (const char c : bytes) {
        switch (state_) {
        case State::Idle:
            if (c == '$') {
                state_ = State::Payload;
                packet_.clear();
                length_ = 0;
            } else if (c == '\x03') {
                events_.push_back({Event::Kind::Interrupt, {}, {}});
            } else if (c == '+') {
                events_.push_back({Event::Kind::Ack, {}, {}});
            } else if (c == '-') {
                events_.push_back({Event::Kind::Nack, {}, {}});
            }
            // Anything else between packets is line noise: dropped, as gdbserver drops it.
            break;
        case State::Payload:
            if (c == '#') {
                state_ = State::Sum1;
            } else if (c == '$') {
                // A packet that never ended: refused, and this one starts afresh.
                events_.push_back({Event::Kind::Bad, {}, "a packet began before the one before it ended"});
                packet_.clear();
                length_ = 0;
            } else {
                if (length_ < maxPayload_) packet_ += c;
                ++length_;
            }
            break;
        case State::Sum1:
            sum_[0] = c;
            state_ = State::Sum2;
            break;
        case State::Sum2:
            sum_[1] = c;
            state_ = State::Idle;
            finish();
            break;
        }
    }
}

void PacketReader::finish() {
    Event e;
    e.kind = Event::Kind::Bad;
    if (length_ > maxPayload_) {
        e.error = "a packet of " + std::to_string(length_) + " bytes; at most " + std::to_string(maxPayload_) +
                  " are taken";
    } else {
        const int hi = hexDigit(sum_[0]), lo = hexDigit(sum_[1]);
        if (hi < 0 || lo < 0) {
            e.error = std::string("the checksum \"") + sum_[0] + sum_[1] + "\" is not two hex digits";
        } else if (static_cast<std::uint8_t>(hi << 4 | lo) != checksum(packet_)) {
            char want[3] = {kDigits[checksum(packet_) >> 4], kDigits[checksum(packet_) & 15], 0};
            e.error = std::string("wrong checksum ") + sum_[0] + sum_[1] + ", the bytes sum to " + want;
        } else {
            // Unescape: `}` and the next byte xor 0x20.
            std::string payload;
            payload.reserve(packet_.size());
            bool escaped = false;
            for (const char c : packet_) {
                if (escaped) {
                    payload += static_cast<char>(c ^ 0x20);
                    escaped = false;
                } else if (c == '}') {
                    escaped = true;
                } else {
                    payload += c;
                }
            }
            if (escaped) {
                e.error = "the packet ends inside an escape";
            } else {
                e.kind = Event::Kind::Packet;
                e.payload = std::move(payload);
            }
        }
    }
    events_.push_back(std::move(e));
    packet_.clear();
    packet_.shrink_to_fit();
    length_ = 0;
}

std::optional<PacketReader::Event> PacketReader::next() {
    if (nextEvent_ >= events_.size()) {
        events_.clear();
        nextEvent_ = 0;
        return std::nullopt;
    }
    Event e = std::move(events_[nextEvent_++]);
    if (nextEvent_ == events_.size()) {
        events_.clear();
        nextEvent_ = 0;
    }
    return e;
}

} // namespace copperline::gdb
