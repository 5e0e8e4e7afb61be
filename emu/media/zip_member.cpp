// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/media/zip_member.h"

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <cstring>
#include <zlib.h>

namespace copperline {

namespace {

// ZIP's numbers are little-endian (APPNOTE.TXT, 4.4).
struct Le {
    const std::vector<std::uint8_t>& bytes;
    const std::string& what;

    void need(std::uint64_t at, std::uint64_t n) const {
        if (at > bytes.size() || n > bytes.size() - at)
            throw MediaError(what + ": truncated ZIP archive (a record at offset " +
                             std::to_string(at) + " runs past its end)");
    }
    std::uint32_t u16(std::uint64_t at) const {
        need(at, 2);
        return std::uint32_t(bytes[at]) | std::uint32_t(bytes[at + 1]) << 8;
    }
    std::uint32_t u32(std::uint64_t at) const {
        need(at, 4);
        return u16(at) | u16(at + 2) << 16;
    }
};

constexpr std::uint32_t kEndOfDirectory = 0x06054B50;
constexpr std::uint32_t kDirectoryEntry = 0x02014B50;
constexpr std::uint32_t kLocalHeader = 0x04034B50;

} // namespace

std::vector<std::uint8_t> readZipMember(const std::string& zipPath, const std::string& name,
                                        std::uint64_t maxBytes) {
    const std::vector<std::uint8_t> zip = readFileBytes(zipPath, 256u << 20);
    const Le le{zip, zipPath};
    // The end-of-central-directory record: 22 bytes and a comment of up to 65535, at the end.
    if (zip.size() < 22) throw MediaError(zipPath + ": not a ZIP archive (too short)");
    std::uint64_t end = zip.size() - 22;
    const std::uint64_t lowest = zip.size() > 22 + 65535 ? zip.size() - 22 - 65535 : 0;
    while (le.u32(end) != kEndOfDirectory) {
        if (end == lowest) throw MediaError(zipPath + ": not a ZIP archive (no central directory)");
        --end;
    }
    const std::uint32_t count = le.u16(end + 10);
    std::uint64_t at = le.u32(end + 16);
    for (std::uint32_t i = 0; i < count; ++i) {
        if (le.u32(at) != kDirectoryEntry)
            throw MediaError(zipPath + ": damaged ZIP directory (entry " + std::to_string(i) + ")");
        const std::uint32_t flags = le.u16(at + 8), method = le.u16(at + 10), crc = le.u32(at + 16);
        const std::uint64_t packed = le.u32(at + 20), size = le.u32(at + 24);
        const std::uint32_t nameLength = le.u16(at + 28);
        const std::uint64_t next = at + 46 + nameLength + le.u16(at + 30) + le.u16(at + 32);
        le.need(at + 46, nameLength);
        if (nameLength != name.size() ||
            std::memcmp(zip.data() + at + 46, name.data(), nameLength)) {
            at = next;
            continue;
        }
        const std::string what = zipPath + ": " + name;
        if (flags & 1) throw MediaError(what + ": encrypted");
        if (packed == 0xFFFFFFFF || size == 0xFFFFFFFF) throw MediaError(what + ": a ZIP64 member");
        if (size > maxBytes)
            throw MediaError(what + ": " + std::to_string(size) + " bytes, at most " +
                             std::to_string(maxBytes) + " expected");
        const std::uint64_t local = le.u32(at + 42);
        if (le.u32(local) != kLocalHeader) throw MediaError(what + ": damaged ZIP local header");
        const std::uint64_t data = local + 30 + le.u16(local + 26) + le.u16(local + 28);
        le.need(data, packed);
        std::vector<std::uint8_t> out(size);
        if (method == 0) {
            if (packed != size) throw MediaError(what + ": stored member's sizes disagree");
            if (size) std::memcpy(out.data(), zip.data() + data, size);
        } else if (method == 8) {
            // Raw deflate (no zlib header): negative window bits.
            z_stream z{};
            if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
                throw MediaError(what + ": zlib would not initialise");
            z.next_in = const_cast<Bytef*>(zip.data() + data);
            z.avail_in = uInt(packed);
            z.next_out = out.data();
            z.avail_out = uInt(size);
            const int rc = inflate(&z, Z_FINISH);
            const bool whole = rc == Z_STREAM_END && z.avail_out == 0;
            inflateEnd(&z);
            if (!whole)
                throw MediaError(what + ": does not inflate to its " + std::to_string(size) +
                                 " bytes");
        } else {
            throw MediaError(what + ": packed with ZIP method " + std::to_string(method) +
                             " (only stored and deflated members are read)");
        }
        if (crc32(0, out.data(), uInt(out.size())) != crc)
            throw MediaError(what + ": CRC-32 mismatch");
        return out;
    }
    throw MediaError(zipPath + " holds no " + name);
}

} // namespace copperline
