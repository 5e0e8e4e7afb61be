// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// MFM encoding of AmigaDOS tracks, as trackdisk.device writes them and reads them back
// (AmigaDOS manual, "The AmigaDOS disk format"; HRM "Disk Hardware"; the ADF FAQ section
// "How is the MFM data on a track organised").
//
// A track is the stream of bytes that passes the head in one revolution. Each of its 11
// sectors is 1,088 MFM bytes:
//
//   $AAAA $AAAA        two bytes of zero, encoded (the pre-sync gap)
//   $4489 $4489        two sync words: an MFM pattern that breaks the clock rule, so it
//                      can never occur in encoded data
//   info       2 longs $FF, track (cylinder*2+head), sector, sectors until the gap; odd
//                      bits then even bits
//   label      8 longs 16 bytes of zero (the OS recovery info), odd block then even block
//   header sum 2 longs XOR of the 10 encoded longs above, masked with $55555555
//   data sum   2 longs the same over the 256 encoded data longs
//   data     256 longs the 512 bytes: all their odd bits, then all their even bits
//
// In every encoded long the data bits sit in the $55555555 positions and the bits between
// them are MFM clock bits: 1 exactly when both neighbouring data bits are 0. After the 11
// sectors comes the track gap, MFM zeros ($AA) up to the end of the revolution.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace copperline::mfm {

// One revolution at 300 rpm is 0.2 s; at 2 us per MFM bit that is 100,000 bits.
inline constexpr unsigned kTrackBytes = 12'500;
inline constexpr unsigned kSectorBytes = 1'088;
inline constexpr unsigned kSectors = 11;
inline constexpr std::uint16_t kSync = 0x4489;

// The MFM track for `track` (cylinder*2 + head) from its 11 sectors (5,632 bytes).
std::vector<std::uint8_t> encodeTrack(std::span<const std::uint8_t> sectors, unsigned track);

// Decodes the sectors of `track` found in `mfm`, read as a loop (a write may have wrapped
// past the index). Each sector whose header names this track and whose header and data
// checksums hold is copied into `sectors` (5,632 bytes) and marked in the result.
std::array<bool, kSectors> decodeTrack(std::span<const std::uint8_t> mfm, unsigned track,
                                       std::span<std::uint8_t> sectors);

// Adds MFM clock bits to a stream of data bits ($55 positions), in place; `previous` is
// the last bit before the stream.
void addClockBits(std::span<std::uint8_t> bytes, bool previous = false);

} // namespace copperline::mfm
