// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Guest code coverage in lcov's .info format (source document 000, "Converting"), which
// genhtml, editors' coverage extensions and CI coverage services read. Executed addresses
// map through the program's own debug information to one record block per source file:
// TN (the program), SF, FN/FNDA for its functions (DWARF subprograms, or the code hunks'
// symbols without DWARF), FNF/FNH, DA for every line that has code (executed or not) and
// LF/LH. docs/profiling.md ("Guest code coverage") gives the conventions:
//
// - A line's count is gcov-like: over each contiguous run of line-table rows for the line,
//   the highest count of any instruction word in the run, summed across the runs.
// - A function's count is its entry instruction's, or its most executed instruction's when
//   control only entered it mid-body.
// - The file begins with '#' lines that account for every instruction counted: on source
//   lines, at program addresses without line information, and outside the program.

#include "profiler/capture/capture_reader.h"
#include "profiler/coverage/coverage_file.h"
#include "profiler/debuginfo/debug_info.h"

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

struct LcovSummary {
    std::string program;           // the header's name for it
    std::uint64_t total = 0;       // instructions counted
    std::uint64_t onLines = 0;     // at addresses with line information
    std::uint64_t withoutLine = 0; // at program addresses without line information
    std::uint64_t withoutLineAddresses = 0;
    std::uint64_t outside = 0;   // outside the program (Kickstart, libraries, other tasks)
    std::uint64_t overflow = 0;  // of `outside`, turned away by the full sparse map
    std::uint64_t saturated = 0; // counters stopped at 2^32 - 1 (then the parts fall short)
    std::uint64_t files = 0, lines = 0, linesHit = 0, functions = 0, functionsHit = 0;
};

// The '#' lines that begin the file, each ending in a newline:
//   # Copperline guest coverage: PROGRAM
//   # T instruction(s) retired: L on N source line(s) in F file(s)
//   # W instruction(s) at A program address(es) without line information
//   # O instruction(s) outside the program (Kickstart, libraries, other tasks)
//   # lines H/N hit, functions h/n hit
// and, only when they happened, one line each for sparse-map overflow and saturation.
std::string lcovHeader(const LcovSummary& summary);

struct LcovReport {
    std::string text; // the whole .info file, header first
    LcovSummary summary;
};

// Builds the .info text. The data's relocation bases place the program's hunks (without
// any, the debug information's link addresses are taken). `program` names it in the
// header and, reduced to letters, digits and '_', in TN. Throws MediaError (DebugInfoError)
// when the bases do not fit the program's hunks or a counted code range at a hunk's base
// is not that hunk's size: the program is not the one that was counted.
LcovReport buildLcov(const CoverageData& data, const DebugInfo& info, const std::string& program);

// A capture made with precise samples but no coverage: each instruction sample's leaf PC
// counted once (the part of an instruction a frame boundary split off into the next frame
// is not counted again), [IRQ] and stopped samples not at all. The ranges are the
// capture's code_ranges, the relocation bases its relocation_bases. Throws MediaError when
// the capture has no samples or they cannot be read; `warnings` gets what makes the counts
// incomplete (dropped samples).
CoverageData coverageFromSamples(const CaptureFiles& capture,
                                 std::vector<std::string>* warnings = nullptr);

// What --format lcov reads: DIR/coverage.bin with the relocation bases of profile.json's
// "coverage" object (or its "sampling" object's), else coverageFromSamples. Throws
// MediaError when the capture has neither.
CoverageData coverageFromCapture(const CaptureFiles& capture,
                                 std::vector<std::string>* warnings = nullptr);

} // namespace copperline
