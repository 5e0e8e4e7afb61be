// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/media/sha1.h"

#include <array>
#include <cstring>

namespace copperline {

namespace {

std::uint32_t rol(std::uint32_t v, int n) {
    return v << n | v >> (32 - n);
}

void compress(std::array<std::uint32_t, 5>& h, const std::uint8_t* block) {
    std::uint32_t w[80];
    for (int i = 0; i < 16; ++i)
        w[i] = std::uint32_t(block[4 * i]) << 24 | std::uint32_t(block[4 * i + 1]) << 16 |
               std::uint32_t(block[4 * i + 2]) << 8 | block[4 * i + 3];
    for (int i = 16; i < 80; ++i)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
        std::uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        const std::uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

} // namespace

std::string sha1Hex(const std::uint8_t* data, std::size_t size) {
    std::array<std::uint32_t, 5> h{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    std::size_t i = 0;
    for (; i + 64 <= size; i += 64)
        compress(h, data + i);
    // The tail, a 1 bit, zeros, and the length in bits as a big-endian 64-bit number.
    std::uint8_t last[128] = {};
    const std::size_t rest = size - i;
    if (rest) std::memcpy(last, data + i, rest);
    last[rest] = 0x80;
    const std::size_t blocks = rest + 9 <= 64 ? 1 : 2;
    const std::uint64_t bits = std::uint64_t(size) * 8;
    for (int b = 0; b < 8; ++b)
        last[blocks * 64 - 1 - b] = std::uint8_t(bits >> (8 * b));
    for (std::size_t b = 0; b < blocks; ++b)
        compress(h, last + 64 * b);
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const std::uint32_t v : h)
        for (int s = 28; s >= 0; s -= 4)
            out += digits[(v >> s) & 15];
    return out;
}

} // namespace copperline
