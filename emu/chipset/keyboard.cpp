// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/keyboard.h"

#include "emu/chipset/cia.h"
#include "emu/state/archive.h"

namespace copperline {

void Keyboard::reset(std::uint64_t cck) {
    queue_.clear();
    queue_.push_back(kPowerUpStream);
    queue_.push_back(kEndOfStream);
    waiting_ = false;
    sawHandshakeLow_ = false;
    current_ = 0;
    nextSendAt_ = cck + kPowerUpDelayCck;
    sentAt_ = 0;
}

void Keyboard::update(std::uint64_t cck, Cia& ciaA) {
    if (waiting_) {
        // The handshake: SP driven low (output mode), then released.
        if (ciaA.serialOutputMode()) {
            sawHandshakeLow_ = true;
            return;
        }
        if (sawHandshakeLow_) {
            waiting_ = false;
            sawHandshakeLow_ = false;
            queue_.pop_front();
            nextSendAt_ = cck + kByteGapCck;
        } else if (cck - sentAt_ >= kHandshakeTimeoutCck) {
            // No acknowledgement: send the byte again.
            waiting_ = false;
            nextSendAt_ = cck;
        }
        return;
    }
    if (queue_.empty() || cck < nextSendAt_) return;
    current_ = queue_.front();
    ciaA.receiveSerialByte(encode(current_));
    waiting_ = true;
    sawHandshakeLow_ = false;
    sentAt_ = cck;
}

void Keyboard::serialize(Archive& ar) {
    std::vector<std::uint8_t> q(queue_.begin(), queue_.end());
    std::uint32_t n = std::uint32_t(q.size());
    ar(n);
    if (ar.loading()) {
        // One byte of the file per queued code: a count past the end is a damaged file,
        // refused before it can ask for gigabytes (found by state_fuzzer).
        if (n > ar.remaining()) throw StateError("state data is truncated");
        q.assign(n, 0);
    }
    for (auto& b : q) ar(b);
    if (ar.loading()) queue_.assign(q.begin(), q.end());
    ar(waiting_, sawHandshakeLow_, current_, nextSendAt_, sentAt_);
}

} // namespace copperline
