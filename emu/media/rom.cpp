#include "emu/media/rom.h"

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <cstdlib>
#include <cstring>

#ifndef COPPERLINE_ROM_DIR
#define COPPERLINE_ROM_DIR "build/roms"
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

std::string defaultRomDir() {
    if (const char* env = std::getenv("COPPERLINE_ROM_DIR"); env && *env) return env;
    return COPPERLINE_ROM_DIR;
}
std::string defaultRomPath() { return defaultRomDir() + "/aros-amiga-m68k-rom.bin"; }
std::string defaultExtRomPath() { return defaultRomDir() + "/aros-amiga-m68k-ext.bin"; }

} // namespace copperline
