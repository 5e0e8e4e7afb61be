// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Bounds-checked reading of big-endian files: every media loader reads through this, so a
// truncated or hostile file fails with a message instead of reading past its end.

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace copperline {

// A file that cannot be loaded: the message says what is wrong and where.
class MediaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class ByteReader {
public:
    ByteReader(std::span<const std::uint8_t> bytes, std::string what)
        : bytes_(bytes), what_(std::move(what)) {}

    std::size_t offset() const { return pos_; }
    std::size_t size() const { return bytes_.size(); }
    std::size_t remaining() const { return bytes_.size() - pos_; }
    bool atEnd() const { return pos_ == bytes_.size(); }

    std::uint32_t u32(const char* field) {
        need(4, field);
        const std::uint8_t* p = bytes_.data() + pos_;
        pos_ += 4;
        return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 |
               std::uint32_t(p[3]);
    }

    std::uint16_t u16(const char* field) {
        need(2, field);
        const std::uint8_t* p = bytes_.data() + pos_;
        pos_ += 2;
        return std::uint16_t(p[0] << 8 | p[1]);
    }

    std::span<const std::uint8_t> bytes(std::size_t n, const char* field) {
        need(n, field);
        auto out = bytes_.subspan(pos_, n);
        pos_ += n;
        return out;
    }

    void skip(std::size_t n, const char* field) { bytes(n, field); }

    // Fails with the file's name, the offset and the message.
    [[noreturn]] void fail(const std::string& message) const { failAt(pos_, message); }
    [[noreturn]] void failAt(std::size_t offset, const std::string& message) const {
        throw MediaError(what_ + ": " + message + " (at offset " + std::to_string(offset) + ")");
    }

private:
    void need(std::size_t n, const char* field) const {
        if (n > remaining())
            failAt(pos_, std::string("truncated: ") + field + " needs " + std::to_string(n) +
                             " bytes, " + std::to_string(remaining()) + " remain");
    }

    std::span<const std::uint8_t> bytes_;
    std::string what_;
    std::size_t pos_ = 0;
};

} // namespace copperline
