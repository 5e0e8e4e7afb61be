// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/base64.h"

#include <array>

namespace copperline {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string toBase64(const std::uint8_t* data, std::size_t size) {
    std::string out;
    out.reserve((size + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= size; i += 3) {
        const std::uint32_t v =
            std::uint32_t(data[i]) << 16 | std::uint32_t(data[i + 1]) << 8 | data[i + 2];
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (const std::size_t left = size - i; left) {
        std::uint32_t v = std::uint32_t(data[i]) << 16;
        if (left == 2) v |= std::uint32_t(data[i + 1]) << 8;
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::vector<std::uint8_t>> fromBase64(std::string_view text) {
    static const std::array<int, 256> value = [] {
        std::array<int, 256> v;
        v.fill(-1);
        for (int i = 0; i < 64; ++i) v[std::uint8_t(kAlphabet[i])] = i;
        return v;
    }();
    if (text.size() % 4) return std::nullopt;
    std::vector<std::uint8_t> out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text[i + std::size_t(k)];
            if (c == '=' && i + 4 == text.size() && k >= 2) {
                v[k] = 0;
                ++pad;
            } else if (pad || (v[k] = value[std::uint8_t(c)]) < 0) {
                return std::nullopt;
            }
        }
        const std::uint32_t w = std::uint32_t(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
        out.push_back(std::uint8_t(w >> 16));
        if (pad < 2) out.push_back(std::uint8_t(w >> 8));
        if (pad < 1) out.push_back(std::uint8_t(w));
    }
    return out;
}

} // namespace copperline
