// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

// Reads a whole file; a missing or unreadable file, or one larger than maxBytes, is a
// MediaError that names the path and the reason.
std::vector<std::uint8_t> readFileBytes(const std::string& path,
                                        std::uint64_t maxBytes = std::uint64_t(1) << 30);

// Writes a whole file, replacing it atomically (write to a temporary beside it, then
// rename), so a failure never leaves a half-written file. Throws MediaError on failure.
void writeFileBytes(const std::string& path, const std::vector<std::uint8_t>& bytes);

// No tool writes over a file the user did not ask it to replace: when something exists at
// path, throws a MediaError naming it and `force` (the option that allows it, e.g. "--force").
void refuseToReplace(const std::string& path, const std::string& force);

} // namespace copperline
