// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The envelope of a state file (docs/chipset.md, "Determinism and state"). Since version 6,
// all little-endian:
//
//    0  "CLST"
//    4  u32 version
//    8  u8 NTSC, u32 chip RAM bytes, u32 slow RAM bytes: the configuration
//   17  u64 FNV-1a of the Kickstart ROM, u64 of the extension ROM
//   33  u64 the body's length in bytes
//   41  u32 CRC-32 (zlib's, ISO-HDLC) of every other byte of the file: 0-40, then 45 on
//   45  u32 fast RAM bytes, u8 flags (1: uaelib): the rest of the configuration
//   50  the body: the machine (Machine::serialize), then its last picture
//
// The first 33 bytes sit where every earlier version had them, so a reader of the
// configuration alone (state.info, `copperline-ctl profile`) reads any version. The
// checksum covers the configuration as well as the body: a damaged file is refused as
// damaged rather than as one from another machine, and nothing in it is trusted.

#include "emu/state/archive.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace copperline::state_file {

inline constexpr char kMagic[4] = {'C', 'L', 'S', 'T'};
// 2: the blitter keeps its blit count (the profiler's stable blit ids).
// 3: the game ports' buttons joined the state.
// 4: the body's length and a CRC-32 in the header; the last picture after the machine.
// 5: Zorro II fast RAM (its size, contents and AutoConfig state) after slow RAM in the body.
// 6: the whole configuration in the header (fast RAM and uaelib after the checksum), so
//    that a machine can take on a state's configuration before it reads the body.
// 7: the A501's clock chip (its counters and control registers) at the body's end.
inline constexpr std::uint32_t kVersion = 7;
inline constexpr std::size_t kConfigBytes = 33; // magic to the extension ROM's hash
inline constexpr std::size_t kFastAt = 45;      // u32 fast RAM bytes, then u8 flags
inline constexpr std::uint8_t kFlagUaelib = 1;
inline constexpr std::size_t kHeaderBytes = 50;

struct Header {
    std::uint32_t version = 0;
    bool ntsc = false;
    std::uint32_t chipRamBytes = 0, slowRamBytes = 0, fastRamBytes = 0;
    bool uaelib = false;
    std::uint64_t romHash = 0, extRomHash = 0;
    std::uint64_t bodyBytes = 0;
    std::uint32_t checksum = 0;
};

// Reads the header of `file` and checks the envelope: a state file at all, this version,
// a body as long as the header says, a checksum that matches. Throws StateError saying
// which failed, so that a damaged file is never taken for a good one.
Header read(std::span<const std::uint8_t> file);

// The checksum a file of at least kHeaderBytes should carry: of everything but the
// checksum field itself.
std::uint32_t checksum(std::span<const std::uint8_t> file);

// Fills in the body length and the checksum of a file whose configuration and body are
// written (the Archive that wrote it left room for both).
void seal(std::vector<std::uint8_t>& file);

} // namespace copperline::state_file
