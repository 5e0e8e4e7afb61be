// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Time in the machine (DESIGN.md section 2). One 64-bit master clock counts 68000 clock
// cycles, which are half a colour clock; every event, bus access and record is stamped
// with it. The profiler speaks colour clocks (CCK); the CIAs count E-clock cycles, one per
// ten 68000 cycles (HRM appendix F: E = CPU clock / 10).

#include <cstdint>

namespace copperline {

using MasterClock = std::uint64_t;  // 68000 cycles since power-on

inline constexpr unsigned kCyclesPerCck = 2;
inline constexpr unsigned kCyclesPerEClock = 10;

// Crystal-derived rates (HRM appendix F; ocs-timing-facts section 1).
inline constexpr double kPalCpuHz = 7'093'790.0;   // 28.37516 MHz / 4
inline constexpr double kNtscCpuHz = 7'159'090.0;  // 28.63636 MHz / 4
inline constexpr double kPalCckHz = kPalCpuHz / kCyclesPerCck;    // 3.546895 MHz
inline constexpr double kNtscCckHz = kNtscCpuHz / kCyclesPerCck;  // 3.579545 MHz

constexpr MasterClock cckToCycles(std::uint64_t cck) { return cck * kCyclesPerCck; }
constexpr std::uint64_t cyclesToCck(MasterClock c) { return c / kCyclesPerCck; }

} // namespace copperline
