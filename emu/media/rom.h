#pragma once

// Kickstart ROM images: the AROS replacement that set-up extracts, or a user's own.

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

struct RomImage {
    std::string path;
    std::vector<std::uint8_t> bytes;  // 512 KiB; a 256 KiB image is mirrored to fill it
    std::uint32_t originalSize = 0;
    bool checksumOk = false;          // the Kickstart checksum (end-around-carry sum) is $FFFFFFFF
    std::string description;          // the identification string near the start, if any
};

// Loads and checks a ROM image. Refuses, with a MediaError saying why, a missing file, a
// size other than 256 or 512 KiB, an encrypted Cloanto image (which needs its rom.key),
// data that does not start like a Kickstart ($1111 or $1114 followed by a JMP), and an
// image cut short (neither its size at the end nor a good checksum).
RomImage loadRom(const std::string& path);
RomImage romFromBytes(std::vector<std::uint8_t> bytes, const std::string& name);

// A Kickstart replacement that does not boot without its extension ROM at $E00000: AROS's
// main ROM ("AROS ROM ...") keeps part of its system in "AROS EXT ...".
bool needsExtensionRom(const RomImage& rom);
bool isExtensionRom(const RomImage& rom);

// The folder set-up extracted the AROS ROMs into (COPPERLINE_ROM_DIR in the environment
// wins over the folder compiled in).
std::string defaultRomDir();
std::string defaultRomPath();     // .../aros-amiga-m68k-rom.bin
std::string defaultExtRomPath();  // .../aros-amiga-m68k-ext.bin

} // namespace copperline
