// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Guest code coverage as numbers (source document 000, "Collecting"): the hit counts of
// every instruction word inside the counted code ranges, the sparse map that serves when
// there are no ranges, and the instructions retired anywhere else. coverage.bin holds
// exactly this (docs/formats/coverage-bin.md); the counter (coverage_counter.h) fills it
// live, the lcov converter (profiler/report/lcov.h) reads it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace copperline {

namespace coverage_format {
inline constexpr char kMagic[4] = {'C', 'L', 'C', 'V'};
inline constexpr std::uint32_t kVersion = 1;
// A counter stops here instead of wrapping to zero.
inline constexpr std::uint32_t kSaturated = 0xFFFFFFFF;
// Distinct addresses the sparse map holds at most (the document's "1M").
inline constexpr std::uint32_t kDefaultSparseLimit = 1u << 20;
} // namespace coverage_format

// The instruction words `size` bytes hold: one counter each (an odd last byte gets one).
constexpr std::uint32_t coverageWords(std::uint32_t size) {
    return size / 2 + (size & 1);
}

struct CoverageData {
    struct Range {
        std::uint32_t base = 0, size = 0;    // bytes [base, base + size)
        std::vector<std::uint32_t> counters; // coverageWords(size): the word at base + 2i
    };
    std::vector<Range> ranges;
    // (address, count), ascending by address; only when there were no ranges.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> sparse;
    std::uint64_t outside = 0; // instructions retired outside the ranges (and past the sparse map)
    std::uint64_t total = 0;   // every instruction counted
    // Not in the file:
    std::uint64_t overflow = 0; // of `outside`, those the full sparse map turned away
    std::vector<std::uint32_t> relocationBases; // where each hunk of the program was loaded

    // How many counters (range or sparse) stopped at kSaturated.
    std::uint64_t saturatedCounters() const;
    // Instructions the counters hold: those in the ranges, and those in the sparse map.
    std::uint64_t instructionsInRanges() const;
    std::uint64_t instructionsInSparse() const;
};

// coverage.bin's bytes: "CLCV", u32 version 1, u32 range count, per range base, byte size,
// word count and the counters, u32 sparse-entry count and (address, count) pairs, u64
// outside and u64 total; all little-endian.
std::vector<std::uint8_t> coverageBinBytes(const CoverageData& data);

// Reads coverage.bin's bytes back. Throws MediaError naming `name`, the offset and what is
// wrong: the magic, the version, a truncated field, a range whose word count disagrees with
// its size or that leaves the 24-bit address space or overlaps another, a sparse entry out
// of order, at an odd address or inside a range, bytes after the totals, or counts that
// cannot add up to the total (more than it, or less without a saturated counter).
CoverageData parseCoverageBin(std::span<const std::uint8_t> bytes,
                              const std::string& name = "coverage.bin");
CoverageData readCoverageBin(const std::string& path);
// Writes atomically (a temporary beside it, then a rename). Unless `replace`, a file that
// exists at path is refused with a MediaError.
void writeCoverageBin(const std::string& path, const CoverageData& data, bool replace = false);

// profile.json's "coverage" object: the ranges, the instructions in them, the sparse
// entries and their instructions, outside, total, overflow, saturated counters and the
// relocation bases (hex strings, as "sampling" writes them).
nlohmann::json coverageSummaryJson(const CoverageData& data,
                                   const std::string& file = "coverage.bin");

} // namespace copperline
