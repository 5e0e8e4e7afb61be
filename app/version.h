#pragma once

namespace copperline {
inline constexpr const char* kVersion = "0.1.0";
} // namespace copperline
