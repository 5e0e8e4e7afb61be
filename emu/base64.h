// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Base64 (RFC 4648, standard alphabet, '=' padding): the text form of binary data in JSON
// (control-protocol memory reads, unwind tables, memory in exported profiles).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace copperline {

std::string toBase64(const std::uint8_t* data, std::size_t size);
inline std::string toBase64(const std::vector<std::uint8_t>& bytes) {
    return toBase64(bytes.data(), bytes.size());
}
// nullopt when the text is not base64 (a length that is not a multiple of 4, a character
// outside the alphabet, padding anywhere but at the end).
std::optional<std::vector<std::uint8_t>> fromBase64(std::string_view text);

} // namespace copperline
