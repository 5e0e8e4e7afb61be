// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gdb/registers.h"

#include "app/gdb/rsp_packet.h"

namespace copperline::gdb {

namespace {

constexpr std::array<std::string_view, kRegisterCount> kNames = {
    "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "a0", "a1", "a2", "a3", "a4", "a5", "fp", "sp", "ps", "pc"};

} // namespace

std::string_view registerName(int n) {
    return n >= 0 && n < kRegisterCount ? kNames[std::size_t(n)] : std::string_view();
}

std::string encodeRegister(std::uint32_t value) {
    return toHex({std::uint8_t(value >> 24), std::uint8_t(value >> 16), std::uint8_t(value >> 8), std::uint8_t(value)});
}

std::optional<std::uint32_t> decodeRegister(std::string_view hex) {
    if (hex.size() != 8) return std::nullopt;
    const auto bytes = fromHex(hex);
    if (!bytes) return std::nullopt;
    return std::uint32_t((*bytes)[0]) << 24 | std::uint32_t((*bytes)[1]) << 16 | std::uint32_t((*bytes)[2]) << 8 |
           (*bytes)[3];
}

std::string encodeRegisters(const CoreRegisters& regs) {
    std::string out;
    out.reserve(kRegisterCount * 8);
    for (const std::uint32_t v : regs.r) out += encodeRegister(v);
    return out;
}

std::optional<CoreRegisters> decodeRegisters(std::string_view hex) {
    if (hex.size() != kRegisterCount * 8) return std::nullopt;
    CoreRegisters regs;
    for (int i = 0; i < kRegisterCount; ++i) {
        const auto v = decodeRegister(hex.substr(std::size_t(i) * 8, 8));
        if (!v) return std::nullopt;
        regs.r[std::size_t(i)] = *v;
    }
    return regs;
}

std::string targetDescription() {
    std::string xml =
        "<?xml version=\"1.0\"?>\n"
        "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
        "<target version=\"1.0\">\n"
        "  <architecture>m68k</architecture>\n"
        "  <feature name=\"org.gnu.gdb.m68k.core\">\n";
    for (int i = 0; i < kRegisterCount; ++i) {
        xml += "    <reg name=\"";
        xml += kNames[std::size_t(i)];
        xml += "\" bitsize=\"32\" regnum=\"" + std::to_string(i) + "\"";
        // Address registers hold addresses; the PC code addresses.
        if (i >= 8 && i <= 15) xml += " type=\"data_ptr\"";
        if (i == kPcRegister) xml += " type=\"code_ptr\"";
        xml += "/>\n";
    }
    xml += "  </feature>\n</target>\n";
    return xml;
}

} // namespace copperline::gdb
