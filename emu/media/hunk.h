// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// AmigaOS hunk executables ("load files"): the reader the emulator's loader, the debug-info
// reader and the tools share, and the writer elf2hunk uses.
//
// A load file is a sequence of big-endian longwords: HUNK_HEADER with the size of every
// hunk, then each hunk's blocks (HUNK_CODE/DATA/BSS, then HUNK_RELOC32, HUNK_SYMBOL,
// HUNK_DEBUG, ...) closed by HUNK_END. docs/formats/hunk.md describes what we read and write.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace copperline {

namespace hunk_id {
inline constexpr std::uint32_t Unit = 0x3E7;
inline constexpr std::uint32_t Name = 0x3E8;
inline constexpr std::uint32_t Code = 0x3E9;
inline constexpr std::uint32_t Data = 0x3EA;
inline constexpr std::uint32_t Bss = 0x3EB;
inline constexpr std::uint32_t Reloc32 = 0x3EC;
inline constexpr std::uint32_t Reloc16 = 0x3ED;
inline constexpr std::uint32_t Reloc8 = 0x3EE;
inline constexpr std::uint32_t Ext = 0x3EF;
inline constexpr std::uint32_t Symbol = 0x3F0;
inline constexpr std::uint32_t Debug = 0x3F1;
inline constexpr std::uint32_t End = 0x3F2;
inline constexpr std::uint32_t Header = 0x3F3;
inline constexpr std::uint32_t Overlay = 0x3F5;
inline constexpr std::uint32_t Break = 0x3F6;
inline constexpr std::uint32_t Drel32 = 0x3F7;
inline constexpr std::uint32_t Reloc32Short = 0x3FC;
inline constexpr std::uint32_t RelReloc32 = 0x3FD;
inline constexpr std::uint32_t AbsReloc16 = 0x3FE;
// The "LINE" tag that opens a line-number debug block (vasm and the SAS/C convention).
inline constexpr std::uint32_t LineTag = 0x4C494E45;
} // namespace hunk_id

enum class HunkKind : std::uint8_t { Code, Data, Bss };

// Where AllocMem must place the hunk: the top two bits of its size in the header.
enum class HunkMemory : std::uint8_t { Any, Chip, Fast };

// A 32-bit absolute reference at `offset` in this hunk to `target` hunk: the loader adds
// the target's load address to the longword stored there.
struct HunkReloc {
    std::uint32_t offset = 0;
    std::uint32_t target = 0;
    bool operator==(const HunkReloc&) const = default;
    auto operator<=>(const HunkReloc&) const = default;
};

struct HunkSymbol {
    std::string name;
    std::uint32_t offset = 0;
    bool operator==(const HunkSymbol&) const = default;
};

struct HunkLine {
    std::uint32_t line = 0;
    std::uint32_t offset = 0;  // within the hunk (the block's base offset already added)
    bool operator==(const HunkLine&) const = default;
};

// One LINE debug block: the line table of one source file within one hunk.
struct HunkLineBlock {
    std::string file;
    std::vector<HunkLine> lines;
    bool operator==(const HunkLineBlock&) const = default;
};

struct HunkSection {
    HunkKind kind = HunkKind::Code;
    HunkMemory memory = HunkMemory::Any;
    std::uint32_t allocSize = 0;     // bytes the loader allocates (from the header)
    std::vector<std::uint8_t> data;  // initialised bytes (empty for BSS); may be < allocSize
    std::vector<HunkReloc> relocs;   // sorted by target, then offset
    std::vector<HunkSymbol> symbols;
    std::vector<HunkLineBlock> lineBlocks;
    std::vector<std::vector<std::uint8_t>> otherDebug;  // debug blocks we do not interpret
    bool operator==(const HunkSection&) const = default;
};

struct HunkFile {
    std::vector<HunkSection> sections;
    // HUNK_DEBUG blocks after the last hunk (bebbo's amiga-gcc puts its stabs there), raw.
    std::vector<std::vector<std::uint8_t>> trailingDebug;
    bool operator==(const HunkFile&) const = default;
};

// Limits that keep a hostile file from making us allocate absurdly: a 68000 addresses
// 16 MiB, so no loadable hunk, nor all of them together, can be larger.
inline constexpr std::uint32_t kMaxHunkBytes = 16u << 20;
inline constexpr std::uint32_t kMaxHunks = 4096;

// Parses a load file, accepting what AmigaDOS's LoadSeg accepts. Throws MediaError
// (emu/media/byte_reader.h) naming what is wrong and the file offset: truncation, bad
// magic, a relocation outside its hunk, absurd sizes, hunk counts that do not match the
// header, unsupported blocks (overlays). What LoadSeg lets pass but a person may want to
// know goes to warnings when given: a symbol whose value lies past its hunk's end (vbcc's
// _LinkerDB), bytes after the last hunk (a cruncher's payload), which are ignored.
HunkFile readHunkFile(std::span<const std::uint8_t> bytes, const std::string& name = "hunk file",
                      std::vector<std::string>* warnings = nullptr);

// Reads a file from disk and parses it; a missing or unreadable file is a MediaError too.
HunkFile loadHunkFile(const std::string& path, std::vector<std::string>* warnings = nullptr);

// Writes a load file. Relocations are grouped by target hunk in HUNK_RELOC32 blocks.
std::vector<std::uint8_t> writeHunkFile(const HunkFile& file);

const char* hunkKindName(HunkKind kind);

} // namespace copperline
