// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reads an lcov .info file back (the one profile-report --format lcov and --run --coverage
// write, or any lcov tool's): per source file the line counts (DA), the functions with
// their first lines (FN) and counts (FNDA), and Copperline's '#' accounting lines when the
// file has them. The coverage pane and the tests read coverage through it.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace copperline {

struct LcovFunction {
    std::string name;
    std::uint32_t line = 0;
    std::uint64_t count = 0;
};

struct LcovFile {
    std::string path;                          // SF
    std::map<std::uint32_t, std::uint64_t> lines; // DA: line -> count, every line with code
    std::vector<LcovFunction> functions;       // FN order, FNDA counts
    std::uint64_t linesHit() const;
    std::uint64_t functionsHit() const;
};

struct LcovData {
    std::string testName;                 // TN of the first record
    std::vector<std::string> header;      // the '#' lines, without "# "
    std::vector<LcovFile> files;          // in file order
    const LcovFile* file(std::string_view path) const;
};

// Throws MediaError naming the line for a record that does not parse (a DA without a
// count, an FNDA for a function no FN named, a record without end_of_record, ...).
LcovData parseLcov(std::string_view text, const std::string& name = "lcov");
LcovData readLcovFile(const std::string& path);

} // namespace copperline
