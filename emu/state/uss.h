// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// WinUAE's saved states (.uss), as WinUAE and FS-UAE write them (docs/formats/uss.md):
// the reader of the file and the builder of a machine from it.
//
// A file is a run of chunks, all big-endian:
//
//    0  4 ASCII characters, the chunk's name ("CPU ", "CRAM", ...)
//    4  u32 the chunk's size: these 12 header bytes, a compressed chunk's u32 of
//       uncompressed length, and the payload (not the padding)
//    8  u32 flags: bit 0, the payload is a zlib stream
//   12  (compressed) u32 the uncompressed length, then the stream; else the payload
//       then 1 to 4 zero bytes (always at least one: WinUAE pads 4 - (length & 3))
//
// "ASF " comes first; "END " (size 8, no flags) ends the machine. What follows END
// (FS-UAE's configuration) is not part of it and is not read.
//
// readUss checks the whole file and every chunk it needs before a machine is touched, and
// refuses by name what Copperline's A500 cannot stand for exactly; loadUss builds the
// machine. Both throw UssError, whose message says what and why.

#include "emu/chipset/cia.h"
#include "emu/state/archive.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace copperline {

class Machine;

class UssError : public StateError {
public:
    using StateError::StateError;
};

namespace uss {

// Parse limits (docs/formats/uss.md, "Limits").
inline constexpr std::uint64_t kMaxTotalBytes = 256ull << 20;  // the file, and all payloads unpacked
inline constexpr std::uint64_t kMaxChunkBytes = 128ull << 20;  // one chunk, packed or unpacked
inline constexpr std::size_t kMaxChunks = 4096;

// One of the chips' registers as the state holds it: the value and whether the state
// holds it at all (an offset the CHIP chunk leaves out is not written).
struct CustomRegisters {
    std::array<std::uint16_t, 256> value{}; // by register offset / 2 ($DFF000 + 2 * i)
    std::array<bool, 256> present{};
};

struct Sprite {
    std::uint32_t pointer = 0;
    std::uint16_t pos = 0, ctl = 0, data = 0, datb = 0;
    bool armed = false;
};

struct AudioChannel {
    std::uint8_t volume = 0;
    std::uint16_t length = 0, period = 0;
    std::uint32_t location = 0;
};

// A CIA as the state holds it: its registers, counters and TOD, as Cia::setRegisters takes them.
using CiaState = Cia::Registers;

struct Rom {
    std::uint32_t address = 0, size = 0, type = 0, crc = 0;
    std::uint16_t version = 0, revision = 0;
    std::string name, path;
};

// Everything the reader took from a file, in the state's own terms.
struct State {
    std::string emulator, emulatorVersion, description;
    // CPU (68000 only)
    std::array<std::uint32_t, 8> d{}, a{};  // a[7]: the active stack pointer
    std::uint32_t usp = 0, ssp = 0, pc = 0; // pc: the instruction in ir
    std::uint16_t sr = 0, ir = 0, irc = 0;
    bool stopped = false;
    bool midInstruction = false; // a CPUT chunk: saved inside the instruction at pc
    // The chipset
    std::uint32_t chipsetMask = 0; // CHIP's: 0 OCS, 1 ECS Agnus, 2 ECS Denise, 4 AGA
    bool ntsc = false;
    CustomRegisters custom;
    std::array<Sprite, 8> sprites{};
    std::array<AudioChannel, 4> audio{};
    std::array<bool, 4> audioPresent{};
    std::array<CiaState, 2> cia{};
    // Memory
    std::vector<std::uint8_t> chipRam, slowRam;
    std::vector<Rom> roms;
    // Chunks read only for their checks, and chunks not known to this reader (ignored).
    std::vector<std::string> ignoredChunks;
};

// The chunks of a file as they lie in it, unpacked: for the reader and for tests.
struct Chunk {
    std::string name;
    std::vector<std::uint8_t> payload;
};
std::vector<Chunk> readChunks(std::span<const std::uint8_t> file);

// Reads and checks a whole file (UssError naming what is refused and why).
State readUss(std::span<const std::uint8_t> file);

// The CRC-32 (zlib's) a ROM chunk records for the Kickstart: of the image's first `size`
// bytes, as WinUAE computes it.
std::uint32_t romCrc(std::span<const std::uint8_t> rom, std::uint32_t size);

// What a load did: the state's machine, and what it did not restore.
struct LoadResult {
    std::string emulator;           // "UAE 3.3.0"
    std::uint32_t pc = 0;
    std::uint64_t frame = 0;        // the machine's frame counter after the load
    std::vector<std::string> notRestored;
    std::vector<std::string> ignoredChunks;
};

// Builds `machine` from a state (readUss, then this). The machine's ROMs must be the ones
// the state names (by CRC-32; the refusal names the ROM it wants). The machine is powered
// on, takes on the state's memory sizes and video standard, and then stands where the
// state was saved, with its last picture forgotten: the first frame it completes is a
// reconstruction (the Copper and the display start from the registers, not from where
// they were) and is the one to discard. On a refusal the machine is as it was.
LoadResult loadUss(Machine& machine, const State& state);
// Both steps.
LoadResult loadUss(Machine& machine, std::span<const std::uint8_t> file);

} // namespace uss
} // namespace copperline
