// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One serialize() per component serves save, load and hashing (DESIGN.md section 3):
//
//     void Cia::serialize(Archive& ar) { ar(pra_, prb_, ddra_, timerA_.counter, ...); }
//
// An Archive in Save mode appends the values little-endian to a byte buffer, in Load mode
// reads them back in the same order (refusing a buffer that runs short), and in Hash mode
// folds them into a 64-bit FNV-1a hash, which is the frame hash determinism tests compare.

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace copperline {

class StateError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Archive {
public:
    enum class Mode { Save, Load, Hash };

    // A saver writes into `buffer`, emptied first: a caller that saves again and again
    // hands back the last buffer, so its memory is reused rather than freed and faulted in
    // anew (the record's snapshots are megabytes, one every few frames).
    static Archive saver(std::vector<std::uint8_t> buffer = {}) {
        Archive a(Mode::Save);
        buffer.clear();
        a.out_ = std::move(buffer);
        return a;
    }
    static Archive hasher() { return Archive(Mode::Hash); }
    static Archive loader(std::span<const std::uint8_t> bytes) {
        Archive a(Mode::Load);
        a.in_ = bytes;
        return a;
    }

    Mode mode() const { return mode_; }
    bool loading() const { return mode_ == Mode::Load; }

    template <class... T>
    void operator()(T&... values) {
        (item(values), ...);
    }

    const std::vector<std::uint8_t>& bytes() const { return out_; }
    std::vector<std::uint8_t> takeBytes() { return std::move(out_); }
    std::uint64_t hash() const { return hash_; }
    // Load mode: bytes not consumed yet.
    std::size_t remaining() const { return in_.size() - pos_; }

private:
    explicit Archive(Mode m) : mode_(m) {}

    template <class T>
    struct Raw {
        using type = T;
    };
    template <class T>
        requires std::is_enum_v<T>
    struct Raw<T> {
        using type = std::underlying_type_t<T>;
    };

    void item(bool& v) {
        std::uint8_t b = v ? 1 : 0;
        item(b);
        if (mode_ == Mode::Load) {
            if (b > 1) throw StateError("state data holds an invalid boolean");
            v = b != 0;
        }
    }

    template <class T>
        requires(std::is_integral_v<T> || std::is_enum_v<T>) && (!std::is_same_v<T, bool>)
    void item(T& v) {
        using U = std::make_unsigned_t<typename Raw<T>::type>;
        constexpr std::size_t n = sizeof(T);
        if (mode_ == Mode::Load) {
            if (remaining() < n) throw StateError("state data is truncated");
            U u = 0;
            for (std::size_t i = 0; i < n; ++i) u |= U(U(in_[pos_ + i]) << (8 * i));
            pos_ += n;
            v = static_cast<T>(u);
            return;
        }
        const U u = static_cast<U>(v);
        for (std::size_t i = 0; i < n; ++i) put(std::uint8_t(u >> (8 * i)));
    }

    template <class T, std::size_t N>
    void item(std::array<T, N>& a) {
        for (auto& v : a) item(v);
    }

    template <class T, std::size_t N>
    void item(T (&a)[N]) {
        for (auto& v : a) item(v);
    }

    // A vector is stored with its length; on load the length must match what the caller
    // sized it to (memory sizes are configuration, not state).
    template <class T>
    void item(std::vector<T>& v) {
        std::uint32_t n = std::uint32_t(v.size());
        item(n);
        if (mode_ == Mode::Load && n != v.size())
            throw StateError("state data has " + std::to_string(n) + " elements where " +
                             std::to_string(v.size()) + " are configured");
        if constexpr (std::is_same_v<T, std::uint8_t>) {
            if (mode_ == Mode::Load) {
                if (remaining() < n) throw StateError("state data is truncated");
                std::copy(in_.begin() + std::ptrdiff_t(pos_), in_.begin() + std::ptrdiff_t(pos_ + n), v.begin());
                pos_ += n;
            } else if (mode_ == Mode::Save) {
                out_.insert(out_.end(), v.begin(), v.end()); // memory: the bulk of a state
            } else {
                for (auto b : v) put(b);
            }
        } else {
            for (auto& e : v) item(e);
        }
    }

    template <class T>
        requires requires(T& t, Archive& a) { t.serialize(a); }
    void item(T& t) {
        t.serialize(*this);
    }

    void put(std::uint8_t b) {
        if (mode_ == Mode::Save) {
            out_.push_back(b);
        } else {
            hash_ ^= b;
            hash_ *= 0x100000001B3ull;  // FNV-1a 64-bit prime
        }
    }

    Mode mode_;
    std::vector<std::uint8_t> out_;
    std::span<const std::uint8_t> in_;
    std::size_t pos_ = 0;
    std::uint64_t hash_ = 0xCBF29CE484222325ull;  // FNV-1a 64-bit offset basis
};

} // namespace copperline
