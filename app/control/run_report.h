// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a user is told when a --run program (or run.program's) cannot be loaded or started:
// the same words headless (app/run_program.cpp) and over the socket (the run_failed stop).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace copperline {

// AmigaDOS's ERROR_NO_FREE_STORE: LoadSeg or RunCommand found no memory.
inline constexpr std::uint32_t kNoFreeStore = 103;
// The stack the loader gives the program (resources/guest/run/runner.c, STACK_BYTES).
inline constexpr std::uint32_t kRunnerStackBytes = 16384;

// exec's AvailMem(MEMF_ANY) and AvailMem(MEMF_LARGEST) as the loader last reported them.
using FreeMemory = std::optional<std::pair<std::uint32_t, std::uint32_t>>;

struct HunkFile;
// What LoadSeg allocates for a program: each hunk's memory and the 8 bytes before it (its
// size and the segment list's link).
std::uint64_t loadBytes(const HunkFile& hunks);

// 1234567 as "1,234,567".
std::string groupedNumber(std::uint64_t v);
// "not enough memory to load NAME: 120,784 bytes free (the largest block 86,624), 206,060
// bytes needed for its 3 hunk(s)".
std::string noMemoryToLoad(const std::string& name, const FreeMemory& free, std::uint64_t needed,
                           std::size_t hunks);
// RunCommand gave -1 with ERROR_NO_FREE_STORE: the program was loaded and not started.
std::string noMemoryToRun(const std::string& name, const FreeMemory& free);
// What to do about it.
inline constexpr const char* kMoreMemoryHint =
    "give the machine more memory: --fast 8M (the --run default), --slow 1.5M";

} // namespace copperline
