// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/run_report.h"

#include "emu/media/hunk.h"

namespace copperline {

std::uint64_t loadBytes(const HunkFile& hunks) {
    std::uint64_t n = 0;
    for (const auto& h : hunks.sections) n += std::uint64_t(h.allocSize) + 8;
    return n;
}

std::string groupedNumber(std::uint64_t v) {
    const std::string digits = std::to_string(v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

namespace {
std::string freeText(const FreeMemory& free) {
    if (!free) return "exec's free memory unknown";
    return groupedNumber(free->first) + " bytes free (the largest block " + groupedNumber(free->second) + ")";
}
} // namespace

std::string noMemoryToLoad(const std::string& name, const FreeMemory& free, std::uint64_t needed,
                           std::size_t hunks) {
    return "not enough memory to load " + name + ": " + freeText(free) + ", " + groupedNumber(needed) +
           " bytes needed for its " + std::to_string(hunks) + " hunk(s)";
}

std::string noMemoryToRun(const std::string& name, const FreeMemory& free) {
    return "not enough memory to run " + name + ": RunCommand found no free store (IoErr 103) for its " +
           groupedNumber(kRunnerStackBytes) + "-byte stack with " + freeText(free);
}

} // namespace copperline
