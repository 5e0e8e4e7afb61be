// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The names of library functions by LVO offset, for naming ROM code and jump table
// entries: exec, dos, graphics and intuition in full, and the standard vectors every
// library (Open, Close, Expunge, Reserved) and device (BeginIO, AbortIO) has.

#include <optional>
#include <string>
#include <string_view>

namespace copperline {

// The function at `lvo` (-6, -12, ...) of the library or device named `library`
// ("exec.library", "timer.device"), when the table knows it.
std::optional<std::string_view> knownLvoName(std::string_view library, int lvo);

// knownLvoName, or "LVO-552" for an offset the table does not know.
std::string lvoName(std::string_view library, int lvo);

// The name reports use for a library: "exec" for "exec.library"; other names unchanged.
std::string_view shortLibraryName(std::string_view library);

} // namespace copperline
