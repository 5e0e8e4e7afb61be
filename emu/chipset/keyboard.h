// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The A500 keyboard: its own processor, which talks to CIA-A's serial port. It sends one
// byte at a time on SP, clocked by CNT, and waits for the computer to acknowledge each
// by pulsing SP low (CIA-A CRA SPMODE set to output, then back) for at least 85 us
// (HRM appendix H, "Keyboard"). After power-on it sends the "initiate power-up key
// stream" code $FD, then "terminate key stream" $FE; after that, key transitions.
//
// On the wire a code is rotated left by one (the up/down flag, bit 7, goes last) and
// inverted, so CIA-A's SDR reads ~(code << 1 | code >> 7).

#include <cstdint>
#include <deque>

namespace copperline {

class Archive;
class Cia;

class Keyboard {
public:
    static constexpr std::uint8_t kPowerUpStream = 0xFD;
    static constexpr std::uint8_t kEndOfStream = 0xFE;
    static constexpr std::uint8_t kLostSync = 0xF9;

    // Colour clocks: the self-test before the first byte (about half a second), the
    // time the computer has to acknowledge a byte (143 ms, HRM appendix H) before the
    // keyboard sends it again, and the gap between bytes.
    static constexpr std::uint64_t kPowerUpDelayCck = 1'773'447;  // 0.5 s
    static constexpr std::uint64_t kHandshakeTimeoutCck = 507'206;  // 143 ms
    static constexpr std::uint64_t kByteGapCck = 710;               // ~200 us

    void reset(std::uint64_t cck);
    // A key went down or up (raw Amiga key codes, HRM appendix H).
    void press(std::uint8_t code) { queue_.push_back(std::uint8_t(code & 0x7F)); }
    void release(std::uint8_t code) { queue_.push_back(std::uint8_t(code | 0x80)); }

    // Runs the keyboard's side of the line protocol at colour clock `cck`, watching
    // CIA-A's serial direction for the handshake.
    void update(std::uint64_t cck, Cia& ciaA);

    static std::uint8_t encode(std::uint8_t code) {
        return std::uint8_t(~(code << 1 | code >> 7));
    }
    bool idle() const { return queue_.empty() && !waiting_; }

    void serialize(Archive& ar);

private:
    std::deque<std::uint8_t> queue_;
    bool waiting_ = false;        // a byte is out, not yet acknowledged
    bool sawHandshakeLow_ = false;
    std::uint8_t current_ = 0;
    std::uint64_t nextSendAt_ = 0;
    std::uint64_t sentAt_ = 0;
};

} // namespace copperline
