// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// ADF disk images: the sector contents of a standard Amiga double-density floppy, in
// track order (cylinder 0 head 0, cylinder 0 head 1, cylinder 1 head 0, ...), no headers.
// A DD disk has 80 cylinders, 2 heads, 11 sectors of 512 bytes per track: 901,120 bytes
// (AmigaDOS manual, "The AmigaDOS disk format"; the ADF FAQ). docs/floppy.md says how the
// drives use it and where writes go.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace copperline {

namespace adf {
inline constexpr unsigned kCylinders = 80;
inline constexpr unsigned kHeads = 2;
inline constexpr unsigned kSectorsPerTrack = 11;
inline constexpr unsigned kSectorBytes = 512;
inline constexpr unsigned kTracks = kCylinders * kHeads;                 // 160
inline constexpr unsigned kTrackBytes = kSectorsPerTrack * kSectorBytes; // 5,632
inline constexpr unsigned kBlocks = kTracks * kSectorsPerTrack;          // 1,760
inline constexpr std::uint32_t kImageBytes = kTracks * kTrackBytes;      // 901,120
// A high-density image (22 sectors per track): recognised only to say it is unsupported.
inline constexpr std::uint32_t kHdImageBytes = 2 * kImageBytes;
} // namespace adf

struct AdfImage {
    std::string name;                // where it came from (a path, or a description)
    std::vector<std::uint8_t> bytes; // exactly adf::kImageBytes
    bool writeProtected = false;

    std::span<std::uint8_t> track(unsigned track) {
        return {bytes.data() + std::size_t(track) * adf::kTrackBytes, adf::kTrackBytes};
    }
    std::span<const std::uint8_t> track(unsigned track) const {
        return {bytes.data() + std::size_t(track) * adf::kTrackBytes, adf::kTrackBytes};
    }
};

// Checks the bytes of an image. Throws MediaError (emu/media/byte_reader.h) naming `name`
// and what is wrong: any size but 901,120 bytes (with a word for truncated and HD images).
AdfImage adfFromBytes(std::vector<std::uint8_t> bytes, const std::string& name);

// Reads an image file; a missing or unreadable file is a MediaError too.
AdfImage loadAdf(const std::string& path);

// Writes an image file, atomically (emu/media/file_bytes.h).
void saveAdf(const std::string& path, const AdfImage& image);

} // namespace copperline
