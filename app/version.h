// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// COPPERLINE_VERSION is project()'s VERSION in CMakeLists.txt, defined for the programs by
// app/control/CMakeLists.txt and app/elf2hunk/CMakeLists.txt.
#ifndef COPPERLINE_VERSION
#error "COPPERLINE_VERSION is not defined: build through CMake"
#endif

namespace copperline {
inline constexpr const char* kVersion = COPPERLINE_VERSION;
} // namespace copperline
