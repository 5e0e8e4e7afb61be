// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Addresses in the capture's JSON files: profile.json writes them as "0x..." strings (some
// older fields as numbers). One reading of them for every reader of a capture.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace copperline {

// The 32-bit value of an unsigned number or of a "0x...", "$..." or decimal string; nullopt
// for anything else.
inline std::optional<std::uint32_t> jsonAddress(const nlohmann::json& v) {
    if (v.is_number_unsigned()) {
        const std::uint64_t n = v.get<std::uint64_t>();
        return n <= 0xFFFFFFFFu ? std::optional<std::uint32_t>(std::uint32_t(n)) : std::nullopt;
    }
    if (!v.is_string()) return std::nullopt;
    std::string s = v.get<std::string>();
    int base = 0;
    if (!s.empty() && s[0] == '$') {
        s.erase(0, 1);
        base = 16;
    }
    try {
        std::size_t used = 0;
        const unsigned long long n = std::stoull(s, &used, base);
        if (used == s.size() && !s.empty() && s[0] != '-' && n <= 0xFFFFFFFFull) return std::uint32_t(n);
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

} // namespace copperline
