// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Kickstart ROM images: the AROS replacement from Debian's fs-uae package, or a user's own.

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

// The default ROMs: AROS's free Kickstart replacement, a main ROM and its extension, which
// Debian's fs-uae package carries inside its data file.
inline constexpr const char* kArosRomName = "aros-amiga-m68k-rom.bin";
inline constexpr const char* kArosExtRomName = "aros-amiga-m68k-ext.bin";
inline constexpr const char* kArosRomSha1 = "4623642671375e16f99bd3243c3b2a3c4ba92275";
inline constexpr const char* kArosExtRomSha1 = "1e9473fb978d51196e4fe593932274a3743926c3";

// The places the AROS ROMs are looked for. romSearchFromEnvironment() fills them as
// copperline runs; tests fill their own.
struct RomSearch {
    std::string overrideDir; // COPPERLINE_ROM_DIR: when set, the only folder looked in
    std::string userDir;     // $XDG_DATA_HOME/copperline/roms (default ~/.local/share/...)
    std::string fsUaeData;   // fs-uae's data file: FS_UAE_DAT, else /usr/share/fs-uae/fs-uae.dat
    std::string buildDir;    // the build tree's folder (scripts/setup.sh), for a developer
};
RomSearch romSearchFromEnvironment();

struct RomFolder {
    std::string dir;
    std::string extracted; // when the ROMs were extracted into dir just now: from which file
};

// The folder holding both AROS ROMs, in this order:
//  1. overrideDir, when set (it must hold both images);
//  2. userDir, when both images there have their SHA-1;
//  3. userDir after extracting both images from fsUaeData (SHA-1 checked, each written to a
//     temporary file and renamed into place);
//  4. buildDir, when both images are there (a developer's tree with no fs-uae installed).
// Throws a MediaError saying what was tried and what to do (install fs-uae, set
// COPPERLINE_ROM_DIR, or give --rom) when none of them gives both.
RomFolder findRomDir(const RomSearch& search);

// The folder findRomDir finds with the environment's search (it extracts, the first time).
std::string defaultRomDir();
std::string defaultRomPath();     // .../aros-amiga-m68k-rom.bin
std::string defaultExtRomPath();  // .../aros-amiga-m68k-ext.bin

} // namespace copperline
