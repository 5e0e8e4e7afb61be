// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Numbers in messages: C style for tools ("0x1f") and the Amiga's own style for
// addresses and words in hardware terms ("$0000001F").

#include <cstdint>
#include <cstdio>
#include <string>

namespace copperline {

inline std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

inline std::string amigaHex(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "$%08X", v);
    return buf;
}

} // namespace copperline
