// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/state/state_file.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <zlib.h>

namespace copperline::state_file {

namespace {

constexpr std::size_t kLengthAt = kConfigBytes;
constexpr std::size_t kChecksumAt = kConfigBytes + 8;

std::uint64_t le(std::span<const std::uint8_t> b, std::size_t at, unsigned n) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i)
        v |= std::uint64_t(b[at + i]) << (8 * i);
    return v;
}

void putLe(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i)
        b[at + i] = std::uint8_t(v >> (8 * i));
}

std::uint32_t crc(std::uint32_t c, std::span<const std::uint8_t> bytes) {
    return std::uint32_t(crc32_z(c, bytes.data(), bytes.size()));
}

std::string hex32(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08X", unsigned(v));
    return buf;
}

} // namespace

std::uint32_t checksum(std::span<const std::uint8_t> file) {
    std::uint32_t c = crc(0, file.first(kChecksumAt));
    return crc(c, file.subspan(kChecksumAt + 4));
}

void seal(std::vector<std::uint8_t>& file) {
    putLe(file, kLengthAt, file.size() - kHeaderBytes, 8);
    putLe(file, kChecksumAt, checksum(file), 4);
}

Header read(std::span<const std::uint8_t> file) {
    if (file.size() < 8 || std::memcmp(file.data(), kMagic, 4) != 0)
        throw StateError("not a Copperline state file (it does not begin with CLST)");
    Header h;
    h.version = std::uint32_t(le(file, 4, 4));
    if (h.version != kVersion)
        throw StateError("state file version " + std::to_string(h.version) +
                         " is not supported (this build reads " + std::to_string(kVersion) +
                         (h.version > kVersion ? "; the file is newer, or damaged)"
                                               : "; the file is older, or damaged)"));
    if (file.size() < kHeaderBytes)
        throw StateError("the state file is truncated: " + std::to_string(file.size()) +
                         " bytes, less than its header (truncated or damaged)");
    h.ntsc = file[8] != 0;
    h.chipRamBytes = std::uint32_t(le(file, 9, 4));
    h.slowRamBytes = std::uint32_t(le(file, 13, 4));
    h.romHash = le(file, 17, 8);
    h.extRomHash = le(file, 25, 8);
    h.fastRamBytes = std::uint32_t(le(file, kFastAt, 4));
    h.uaelib = (file[kFastAt + 4] & kFlagUaelib) != 0;
    h.bodyBytes = le(file, kLengthAt, 8);
    h.checksum = std::uint32_t(le(file, kChecksumAt, 4));
    const std::uint64_t body = file.size() - kHeaderBytes;
    if (body < h.bodyBytes)
        throw StateError("the state file is truncated or damaged: its header gives " +
                         std::to_string(h.bodyBytes + kHeaderBytes) + " bytes, the file has " +
                         std::to_string(file.size()));
    if (body > h.bodyBytes)
        throw StateError("the state file is damaged or has bytes appended: its header gives " +
                         std::to_string(h.bodyBytes + kHeaderBytes) + " bytes, the file has " +
                         std::to_string(file.size()));
    if (const std::uint32_t c = checksum(file); c != h.checksum)
        throw StateError("the state file is damaged: its checksum does not match (CRC-32 " +
                         hex32(c) + ", the header says " + hex32(h.checksum) + ")");
    // Intact, and still a configuration no machine has: refused before anything is built.
    const auto pow2 = [](std::uint32_t v) { return v && !(v & (v - 1)); };
    if ((h.chipRamBytes != (512u << 10) && h.chipRamBytes != (1u << 20) && h.chipRamBytes != (2u << 20)) ||
        h.slowRamBytes > (1536u << 10) || (h.slowRamBytes & 0x7FFFF) ||
        (h.fastRamBytes && (!pow2(h.fastRamBytes) || h.fastRamBytes < (64u << 10) || h.fastRamBytes > (8u << 20))) ||
        (file[kFastAt + 4] & ~kFlagUaelib))
        throw StateError("the state file names an impossible configuration (" + std::to_string(h.chipRamBytes) +
                         " bytes of chip RAM, " + std::to_string(h.slowRamBytes) + " of slow, " +
                         std::to_string(h.fastRamBytes) + " of fast)");
    return h;
}

} // namespace copperline::state_file
