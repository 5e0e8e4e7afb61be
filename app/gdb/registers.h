// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The 68000's registers as gdb numbers them for m68k (docs/gdb.md): D0-D7 (0-7), A0-A5
// (8-13), A6 as `fp` (14), A7 as `sp` (15), SR as `ps` (16) and PC (17), each 32 bits,
// big-endian in `g`/`G`/`p`/`P` packets; the target description that names them
// (feature org.gnu.gdb.m68k.core, no floating point: the 68000 has none).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace copperline::gdb {

constexpr int kRegisterCount = 18;
constexpr int kSrRegister = 16, kPcRegister = 17;

struct CoreRegisters {
    std::array<std::uint32_t, kRegisterCount> r{}; // in gdb's order
};

// gdb's name of register n ("d0" .. "a5", "fp", "sp", "ps", "pc"); empty past the last.
std::string_view registerName(int n);

// The `g` reply: every register as 8 hex digits.
std::string encodeRegisters(const CoreRegisters& regs);
// A `G` packet's data: nullopt unless it holds exactly 18 registers of hex digits.
std::optional<CoreRegisters> decodeRegisters(std::string_view hex);
// One register's 8 hex digits (`p`), or its value from a `P` packet's data.
std::string encodeRegister(std::uint32_t value);
std::optional<std::uint32_t> decodeRegister(std::string_view hex);

// The target description served as qXfer:features:read:target.xml.
std::string targetDescription();

} // namespace copperline::gdb
