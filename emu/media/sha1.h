// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// SHA-1 (FIPS 180-4): the fingerprint the AROS ROM images are checked against when they are
// extracted from fs-uae's data file (rom.h). Not for anything that needs collision resistance.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

// The digest as 40 lowercase hex digits, as sha1sum prints it.
std::string sha1Hex(const std::uint8_t* data, std::size_t size);
inline std::string sha1Hex(const std::vector<std::uint8_t>& bytes) {
    return sha1Hex(bytes.data(), bytes.size());
}

} // namespace copperline
