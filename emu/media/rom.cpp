// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/media/rom.h"

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/sha1.h"
#include "emu/media/zip_member.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>

// The build tree's ROM folder (an absolute path, emu/media/CMakeLists.txt), the last place
// looked in; none when it is not compiled in.
#ifndef COPPERLINE_ROM_DIR
#define COPPERLINE_ROM_DIR ""
#endif

namespace copperline {

RomImage romFromBytes(std::vector<std::uint8_t> bytes, const std::string& name) {
    if (bytes.size() >= 11 && std::memcmp(bytes.data(), "AMIROMTYPE1", 11) == 0)
        throw MediaError(name + ": an encrypted Cloanto ROM; decrypt it with its rom.key first");
    if (bytes.size() != 256 * 1024 && bytes.size() != 512 * 1024)
        throw MediaError(name + ": " + std::to_string(bytes.size()) +
                         " bytes is not a Kickstart ROM size (256 or 512 KiB)");
    // A Kickstart starts with $1111 (256K) or $1114 (512K), then JMP abs.l ($4EF9) to
    // its entry point. AROS's 512K main ROM uses $1111 too.
    const unsigned magic = unsigned(bytes[0]) << 8 | bytes[1];
    const unsigned jmp = unsigned(bytes[2]) << 8 | bytes[3];
    if ((magic != 0x1111 && magic != 0x1114) || jmp != 0x4EF9)
        throw MediaError(name + ": does not start like a Kickstart ROM (found $" +
                         [&] { char b[16]; std::snprintf(b, sizeof b, "%04X %04X", magic, jmp); return std::string(b); }() +
                         ", expected $1111 or $1114 then a JMP)");
    RomImage rom;
    rom.path = name;
    rom.originalSize = std::uint32_t(bytes.size());
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
        sum += std::uint32_t(bytes[i]) << 24 | std::uint32_t(bytes[i + 1]) << 16 | std::uint32_t(bytes[i + 2]) << 8 |
               bytes[i + 3];
        if (sum > 0xFFFFFFFFull) sum = (sum & 0xFFFFFFFFull) + 1;
    }
    rom.checksumOk = sum == 0xFFFFFFFFull;
    // A Kickstart ends with its size ($14 bytes before the end, ahead of the autovector
    // bytes $18..$1F) and sums to $FFFFFFFF. An image with neither is cut short, or is half
    // of a larger one: the half of a 512 KiB ROM still starts like a Kickstart.
    const std::size_t sizeAt = bytes.size() - 0x14;
    const std::uint32_t footerSize = std::uint32_t(bytes[sizeAt]) << 24 | std::uint32_t(bytes[sizeAt + 1]) << 16 |
                                     std::uint32_t(bytes[sizeAt + 2]) << 8 | bytes[sizeAt + 3];
    if (!rom.checksumOk && footerSize != bytes.size())
        throw MediaError(name + ": " + std::to_string(bytes.size() / 1024) +
                         " KiB that neither end with the ROM's size nor pass the Kickstart checksum: a "
                         "truncated or damaged image (the first half of a 512 KiB ROM looks like this)");
    // The identification text: the first run of at least four printable characters in
    // the header (AROS: "AROS ROM Operating System and Libraries").
    std::string run;
    for (std::size_t i = 0x10; i < 0x100 && i < bytes.size(); ++i) {
        const char c = char(bytes[i]);
        if (c >= 0x20 && c < 0x7F) {
            run += c;
            continue;
        }
        if (run.size() >= 4) break;
        run.clear();
    }
    if (run.size() >= 4) rom.description = run;
    if (bytes.size() == 256 * 1024) bytes.insert(bytes.end(), bytes.begin(), bytes.end());
    rom.bytes = std::move(bytes);
    return rom;
}

bool needsExtensionRom(const RomImage& rom) { return rom.description.starts_with("AROS ROM"); }

bool isExtensionRom(const RomImage& rom) { return rom.description.starts_with("AROS EXT"); }

RomImage loadRom(const std::string& path) { return romFromBytes(readFileBytes(path, 2u << 20), path); }

namespace {

namespace fs = std::filesystem;

bool holdsBoth(const std::string& dir) {
    std::error_code ec;
    return fs::is_regular_file(fs::path(dir) / kArosRomName, ec) &&
           fs::is_regular_file(fs::path(dir) / kArosExtRomName, ec);
}

bool hasSha1(const std::string& path, const char* sha1) {
    try {
        return sha1Hex(readFileBytes(path, 2u << 20)) == sha1;
    } catch (const MediaError&) {
        return false;
    }
}

// fs-uae's data file (/usr/share/fs-uae/fs-uae.dat in Debian's fs-uae package) is a ZIP
// archive of its share folder, and the AROS ROMs are its members
// share/fs-uae/aros-amiga-m68k-rom.bin and -ext.bin, deflated: the free Kickstart
// replacement fs-uae boots without a user's ROM (scripts/extract-roms.sh reads the same
// members with unzip). Both are checked before either is written.
void extractFromFsUae(const std::string& data, const std::string& dir) {
    const std::pair<const char*, const char*> images[] = {{kArosRomName, kArosRomSha1},
                                                          {kArosExtRomName, kArosExtRomSha1}};
    std::vector<std::vector<std::uint8_t>> bytes;
    for (const auto& [name, sha1] : images) {
        bytes.push_back(readZipMember(data, std::string("share/fs-uae/") + name, 1u << 20));
        const std::string got = sha1Hex(bytes.back());
        if (got != sha1)
            throw MediaError(std::string(name) + " in " + data + " has SHA-1 " + got +
                             ", expected " + sha1 +
                             " (an fs-uae release this Copperline does not know); refusing it");
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw MediaError(dir + ": cannot create: " + ec.message());
    for (std::size_t i = 0; i < bytes.size(); ++i)
        writeFileBytes(dir + "/" + images[i].first, bytes[i]);
}

} // namespace

RomSearch romSearchFromEnvironment() {
    RomSearch s;
    if (const char* env = std::getenv("COPPERLINE_ROM_DIR"); env && *env) s.overrideDir = env;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        s.userDir = (fs::path(x) / "copperline" / "roms").string();
    else if (const char* home = std::getenv("HOME"); home && *home)
        s.userDir = (fs::path(home) / ".local" / "share" / "copperline" / "roms").string();
    const char* data = std::getenv("FS_UAE_DAT");
    s.fsUaeData = data && *data ? data : "/usr/share/fs-uae/fs-uae.dat";
    s.buildDir = COPPERLINE_ROM_DIR;
    return s;
}

RomFolder findRomDir(const RomSearch& s) {
    const std::string pair = std::string(kArosRomName) + " and " + kArosExtRomName;
    if (!s.overrideDir.empty()) {
        if (holdsBoth(s.overrideDir)) return {s.overrideDir, {}};
        throw MediaError(
            "COPPERLINE_ROM_DIR is " + s.overrideDir + ", which does not hold " + pair +
            "; unset it to use the AROS ROM from Debian's fs-uae package, or give --rom FILE");
    }
    std::error_code ec;
    const bool haveData = !s.fsUaeData.empty() && fs::exists(s.fsUaeData, ec);
    std::string why; // what went wrong on the way
    if (s.userDir.empty()) {
        why = "neither XDG_DATA_HOME nor HOME is set, so there is no folder to extract the AROS "
              "ROM into";
    } else {
        if (hasSha1(s.userDir + "/" + kArosRomName, kArosRomSha1) &&
            hasSha1(s.userDir + "/" + kArosExtRomName, kArosExtRomSha1))
            return {s.userDir, {}};
        if (haveData) {
            try {
                extractFromFsUae(s.fsUaeData, s.userDir);
                return {s.userDir, s.fsUaeData};
            } catch (const MediaError& e) {
                why = e.what();
            }
        }
    }
    if (!s.buildDir.empty() && holdsBoth(s.buildDir)) return {s.buildDir, {}};
    const std::string otherwise = "set COPPERLINE_ROM_DIR to a folder holding " + pair +
                                  ", or give --rom FILE (and --ext-rom FILE)";
    if (haveData) throw MediaError(why + "; " + otherwise);
    throw MediaError(
        "no AROS ROM: it comes from Debian's fs-uae package (" +
        (s.fsUaeData.empty() ? std::string("/usr/share/fs-uae/fs-uae.dat") : s.fsUaeData) +
        " is missing): install it (apt install fs-uae)" +
        (s.userDir.empty() ? ""
                           : " and the ROM is extracted into " + s.userDir + " on the next run") +
        ", " + otherwise + (why.empty() ? "" : " (" + why + ")"));
}

std::string defaultRomDir() { return findRomDir(romSearchFromEnvironment()).dir; }
std::string defaultRomPath() { return defaultRomDir() + "/" + kArosRomName; }
std::string defaultExtRomPath() { return defaultRomDir() + "/" + kArosExtRomName; }

} // namespace copperline
