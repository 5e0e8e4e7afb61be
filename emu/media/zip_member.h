// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One member of a ZIP archive, read without unpacking the rest: how the AROS ROM images come
// out of fs-uae's data file (rom.h). Stored and deflated members; no ZIP64, no encryption.

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

// The member `name` (its full path inside the archive) of the ZIP file at zipPath, inflated
// and checked against its CRC-32. Throws MediaError naming the archive and the member when
// the archive is missing or damaged, does not hold the member, or the member is larger than
// maxBytes or packed in a way this reader does not know.
std::vector<std::uint8_t> readZipMember(const std::string& zipPath, const std::string& name,
                                        std::uint64_t maxBytes);

} // namespace copperline
