// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/floppy_mfm.h"

#include <cassert>

namespace copperline::mfm {

namespace {

constexpr std::uint32_t kDataMask = 0x55555555;

void putLong(std::uint8_t* p, std::uint32_t v) {
    p[0] = std::uint8_t(v >> 24);
    p[1] = std::uint8_t(v >> 16);
    p[2] = std::uint8_t(v >> 8);
    p[3] = std::uint8_t(v);
}

std::uint32_t getLong(std::span<const std::uint8_t> loop, std::size_t at) {
    const std::size_t n = loop.size();
    std::uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i)
        v = v << 8 | loop[(at + i) % n];
    return v;
}

std::uint32_t bigEndian(std::span<const std::uint8_t> bytes, std::size_t at) {
    return std::uint32_t(bytes[at]) << 24 | std::uint32_t(bytes[at + 1]) << 16 |
           std::uint32_t(bytes[at + 2]) << 8 | bytes[at + 3];
}

// Encodes `count` longs of `src` (big-endian) as an odd-bit block then an even-bit block
// at `out`; returns the XOR of the encoded data bits, the AmigaDOS checksum's term.
std::uint32_t putOddEven(std::uint8_t* out, std::span<const std::uint8_t> src, unsigned count) {
    std::uint32_t sum = 0;
    for (unsigned i = 0; i < count; ++i) {
        const std::uint32_t v = bigEndian(src, 4 * i);
        const std::uint32_t odd = (v >> 1) & kDataMask, even = v & kDataMask;
        putLong(out + 4 * i, odd);
        putLong(out + 4 * (count + i), even);
        sum ^= odd ^ even;
    }
    return sum;
}

std::uint32_t oddEven(std::uint32_t odd, std::uint32_t even) {
    return ((odd & kDataMask) << 1) | (even & kDataMask);
}

} // namespace

void addClockBits(std::span<std::uint8_t> bytes, bool previous) {
    bool prev = previous;
    for (auto& b : bytes) {
        std::uint8_t v = b & 0x55;
        for (int bit = 7; bit >= 1; bit -= 2) {
            const bool next = (v >> (bit - 1)) & 1;
            if (!prev && !next) v |= std::uint8_t(1u << bit);
            prev = next;
        }
        b = v;
    }
}

std::vector<std::uint8_t> encodeTrack(std::span<const std::uint8_t> sectors, unsigned track) {
    assert(sectors.size() == kSectors * 512);
    std::vector<std::uint8_t> out(kTrackBytes, 0);
    std::uint8_t* p = out.data();
    for (unsigned s = 0; s < kSectors; ++s) {
        std::uint8_t* sec = p + s * kSectorBytes;
        // Bytes 0-3 stay zero (the pre-sync gap's data), 4-7 are the sync words.
        const std::uint8_t info[4] = {0xFF, std::uint8_t(track), std::uint8_t(s),
                                      std::uint8_t(kSectors - s)};
        const std::uint8_t label[16] = {};
        std::uint32_t headerSum = putOddEven(sec + 8, info, 1);
        headerSum ^= putOddEven(sec + 16, label, 4);
        const std::uint8_t hs[4] = {std::uint8_t(headerSum >> 24), std::uint8_t(headerSum >> 16),
                                    std::uint8_t(headerSum >> 8), std::uint8_t(headerSum)};
        putOddEven(sec + 48, hs, 1);
        const std::uint32_t dataSum = putOddEven(sec + 64, sectors.subspan(s * 512, 512), 128);
        const std::uint8_t ds[4] = {std::uint8_t(dataSum >> 24), std::uint8_t(dataSum >> 16),
                                    std::uint8_t(dataSum >> 8), std::uint8_t(dataSum)};
        putOddEven(sec + 56, ds, 1);
    }
    // Clock bits everywhere but in the sync words, whose missing clock is the point.
    bool prev = false;
    for (unsigned s = 0; s < kSectors; ++s) {
        std::uint8_t* sec = p + s * kSectorBytes;
        addClockBits({sec, 4}, prev);
        for (unsigned i = 0; i < 2; ++i) {
            sec[4 + 2 * i] = kSync >> 8;
            sec[5 + 2 * i] = kSync & 0xFF;
        }
        addClockBits({sec + 8, kSectorBytes - 8}, (kSync & 1) != 0);
        prev = sec[kSectorBytes - 1] & 1;
    }
    addClockBits({p + kSectors * kSectorBytes, kTrackBytes - kSectors * kSectorBytes}, prev);
    return out;
}

std::array<bool, kSectors> decodeTrack(std::span<const std::uint8_t> mfm, unsigned track,
                                       std::span<std::uint8_t> sectors) {
    std::array<bool, kSectors> found{};
    const std::size_t n = mfm.size();
    if (n < kSectorBytes || sectors.size() < kSectors * 512) return found;
    auto at = [&](std::size_t i) { return mfm[i % n]; };
    for (std::size_t i = 0; i < n; ++i) {
        if (at(i) != (kSync >> 8) || at(i + 1) != (kSync & 0xFF)) continue;
        std::size_t j = i + 2;
        while (at(j) == (kSync >> 8) && at(j + 1) == (kSync & 0xFF) && j < i + 8)
            j += 2;
        const std::uint32_t infoOdd = getLong(mfm, j), infoEven = getLong(mfm, j + 4);
        const std::uint32_t info = oddEven(infoOdd, infoEven);
        const unsigned sector = (info >> 8) & 0xFF;
        if ((info >> 24) != 0xFF || ((info >> 16) & 0xFF) != track || sector >= kSectors) continue;
        std::uint32_t headerSum = (infoOdd ^ infoEven) & kDataMask;
        for (unsigned k = 0; k < 8; ++k)
            headerSum ^= getLong(mfm, j + 8 + 4 * k) & kDataMask;
        if (headerSum != oddEven(getLong(mfm, j + 40), getLong(mfm, j + 44))) continue;
        const std::uint32_t dataSumStored = oddEven(getLong(mfm, j + 48), getLong(mfm, j + 52));
        const std::size_t data = j + 56;
        std::uint32_t dataSum = 0;
        std::uint8_t decoded[512];
        for (unsigned k = 0; k < 128; ++k) {
            const std::uint32_t odd = getLong(mfm, data + 4 * k),
                                even = getLong(mfm, data + 512 + 4 * k);
            dataSum ^= (odd ^ even) & kDataMask;
            putLong(decoded + 4 * k, oddEven(odd, even));
        }
        if (dataSum != dataSumStored) continue;
        std::copy(decoded, decoded + 512, sectors.begin() + std::ptrdiff_t(sector) * 512);
        found[sector] = true;
        i = j + 56 + 1024 - 1;
        if (i >= n + kSectorBytes) break;
    }
    return found;
}

} // namespace copperline::mfm
