// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The static size profile: every byte of a program's hunks attributed to hunk, section and
// function (or data object), as a ProfileTree weighted in bytes. Bytes no function or object
// claims are kept as an explicit "(unattributed)" node, so the total is always the sum of
// the hunk sizes.

#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/cpuprofile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

inline constexpr const char* kUnattributed = "(unattributed)";

struct SizeEntry {
    std::string name; // function or object, or kUnattributed
    std::uint32_t hunk = 0;
    std::string section;
    std::string file; // where it is defined; empty when unknown
    std::uint32_t line = 0;
    std::uint64_t bytes = 0;
};

struct SizeReport {
    ProfileTree tree;
    std::vector<SizeEntry> entries; // largest first; ties by hunk, then name
    std::uint64_t totalBytes = 0;   // the sum of the hunk sizes
    std::uint64_t unattributedBytes = 0;
};

SizeReport buildSizeReport(const DebugInfo& info);

// The node name of a hunk: "hunk 0 CODE".
std::string sizeReportHunkName(std::uint32_t hunk, HunkKind kind);

} // namespace copperline
