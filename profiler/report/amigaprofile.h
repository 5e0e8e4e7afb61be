// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The .amigaprofile JSON that vscode-amiga-debug's frame profiler opens: an array with one
// Chrome-style CPU profile per frame, each carrying the frame's chipset state under "$amiga",
// and the memory and program information under "$base" in the first. It is what the
// extension makes of a binary profile (profiler/report/bartman_profile.h) before showing it;
// docs/formats/amigaprofile.md describes every field and what Copperline fills.

#include "profiler/report/bartman_profile.h"
#include "profiler/report/cpuprofile.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace copperline {

struct AmigaSourceLine {
    std::string func;
    std::string file;
    int line = 0;
    bool operator==(const AmigaSourceLine&) const = default;
};

// A program symbol: it covers base + address up to base + address + size.
struct AmigaSymbol {
    std::string name;
    std::string section;
    std::uint32_t address = 0; // within its section
    std::uint32_t base = 0;    // where the section was loaded
    std::uint32_t size = 0;
    bool operator==(const AmigaSymbol&) const = default;
};

struct AmigaSection {
    std::string name;
    std::uint32_t address = 0;
    std::uint32_t size = 0;
    bool operator==(const AmigaSection&) const = default;
};

// One sample of the CPU: the PC it was at (0xFFFFFFFF when unknown) and how many CPU cycles
// it stayed there.
struct PcTraceEntry {
    std::uint32_t pc = 0;
    std::uint32_t cycles = 0;
    bool operator==(const PcTraceEntry&) const = default;
};

struct AmigaProfileFrame {
    // The call tree, weights in CPU cycles. The viewer takes the frame's length from $base,
    // not from the tree, so an empty tree is fine.
    ProfileTree tree;
    std::uint64_t startTime = 0;

    std::uint32_t chipsetFlags = bartman::chipset_flag::Full;
    std::array<std::uint16_t, 256> customRegs{}; // at the frame's start, by offset / 2
    std::vector<std::uint32_t> agaColors;        // empty or 256
    std::vector<bartman::DmaRec> dma;            // exactly bartman::kDmaCount
    std::vector<bartman::Resource> resources;
    std::uint32_t idleCycles = 0;
    std::vector<PcTraceEntry> pcTrace;
    // Empty, or the registers (D0-D7, A0-A7, SR) for each pcTrace entry.
    std::vector<std::array<std::uint32_t, bartman::kRegisterCount>> registerTrace;
    // Source lines for the .text section: callFrames has one entry per word of .text, an
    // index into uniqueCallFrames (each a stack of lines, outermost first). Both may be empty
    // when no section is called .text.
    std::vector<std::vector<AmigaSourceLine>> uniqueCallFrames;
    std::vector<std::uint32_t> callFrames;
    std::vector<std::uint8_t> screenshot; // an encoded image, or empty
    std::uint32_t screenshotType = 0;     // 0 JPEG, otherwise PNG
};

struct AmigaProfileInput {
    std::vector<AmigaProfileFrame> frames;
    // Memory at the first frame's start; the viewer replays each frame's DMA writes to get
    // the next frame's.
    std::vector<std::uint8_t> chipMem;
    std::vector<std::uint8_t> bogoMem;
    std::string objdump; // disassembly in objdump's format (what the viewer's listing shows)
    std::uint32_t baseClock = bartman::kPalBaseClock;
    std::uint32_t cpuCycleUnit = bartman::kCpuCycleUnit68000;
    std::vector<AmigaSymbol> symbols;
    std::vector<AmigaSection> sections;
    std::uint32_t systemStackLower = 0, systemStackUpper = 0;
    std::uint32_t stackLower = 0, stackUpper = 0;
};

// Throws MediaError when the input cannot be opened by the viewer: no frames, a frame without
// exactly bartman::kDmaCount DMA records, a register trace that does not match the PC trace,
// a .text section without a source line for each of its words.
nlohmann::json amigaProfileJson(const AmigaProfileInput& input);
// Writes the file atomically. An existing file is a MediaError unless `replace`.
void writeAmigaProfile(const AmigaProfileInput& input, const std::string& path,
                       bool replace = false);

// Reads a profile back, checking what the viewer relies on. Throws MediaError naming the frame
// and the field that is missing or wrong.
AmigaProfileInput readAmigaProfile(const nlohmann::json& profile);
AmigaProfileInput readAmigaProfileFile(const std::string& path);

// What the extension makes of a binary profile when it opens one (its savestate view): the
// PC and register traces from each frame's profile array, no call tree, no symbols, no
// disassembly. Throws MediaError for a profile array it cannot decode.
AmigaProfileInput amigaProfileFromBartman(const BartmanProfile& profile);

} // namespace copperline
