// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Amiga Old File System (OFS) on a DD floppy: a writer that builds a bootable disk
// from files, and a reader for checking what it wrote. The block layouts are the AmigaDOS
// manual's ("The AmigaDOS disk format") as the ADF FAQ tabulates them; docs/formats/adf.md
// lists every field we write.
//
//   blocks 0-1   the boot block: "DOS\0", checksum, root block number, boot code
//   block 880    the root block (the middle of the disk, as AmigaDOS formats it)
//   block 881    the bitmap block
//   from 882     directories, file headers, extension blocks and data blocks, in order

#include "emu/media/adf.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace copperline::ofs {

inline constexpr unsigned kBlockBytes = 512;
inline constexpr unsigned kRootBlock = 880;
inline constexpr unsigned kBitmapBlock = 881;
inline constexpr unsigned kDataBytesPerBlock = 488; // OFS data blocks have a 24-byte header
inline constexpr unsigned kHashSize = 72;
inline constexpr unsigned kMaxNameLength = 30;

struct File {
    std::string path; // "S/Startup-Sequence": directories are created as needed
    std::vector<std::uint8_t> data;
};

struct Volume {
    std::string name = "Copperline";
    bool bootable = true; // the standard DOS boot block code (bootCode() below)
    std::vector<File> files;
};

// The standard OFS boot block code: FindResident("dos.library") and return its init
// routine in A0 with D0 = 0, so the boot strap starts AmigaDOS (AmigaDOS manual; the code
// every Kickstart 1.x "install" wrote). 49 bytes, entered at boot block offset 12.
std::span<const std::uint8_t> bootCode();

// A 1,024-byte boot block holding `code` at offset 12, with its checksum. Throws
// MediaError when the code does not fit.
std::vector<std::uint8_t> bootBlock(std::span<const std::uint8_t> code);
// The boot block checksum: the 256 longwords summed with end-around carry, inverted; the
// value at offset 4 makes that sum $FFFFFFFF.
std::uint32_t bootBlockChecksum(std::span<const std::uint8_t> block);
// Writes a boot block into an image (keeping its other blocks).
void installBootBlock(AdfImage& image, std::span<const std::uint8_t> code);

// Builds a formatted OFS disk holding the files. Throws MediaError for a name AmigaDOS
// cannot hold (empty, longer than 30 characters, holding ':' or '/') and for files that
// do not fit.
AdfImage writeVolume(const Volume& volume);

// The AmigaDOS name hash (OFS, no international mode): the hash table slot of a name.
unsigned nameHash(const std::string& name);

// ---- reading back ----------------------------------------------------------------------
// Every block read is checked: its type, its checksum and its pointers. A damaged disk
// is a MediaError naming the block.
std::string volumeName(const AdfImage& image);
std::vector<std::uint8_t> readFile(const AdfImage& image, const std::string& path);
// The names in a directory ("" for the root).
std::vector<std::string> listDirectory(const AdfImage& image, const std::string& path);
// Whether the boot block says DOS and its checksum holds.
bool bootBlockValid(const AdfImage& image);

} // namespace copperline::ofs
