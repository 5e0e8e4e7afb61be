#pragma once
// PLACEHOLDER until the unwind-table branch lands.
#include "profiler/debuginfo/debug_info.h"
#include <cstdint>
#include <span>
#include <vector>
namespace copperline {
struct UnwindRow {
    std::uint8_t cfaRegister = 15;
    std::int32_t cfaOffset = 4;
    std::int32_t a5Offset = -1;
    std::int32_t returnOffset = -4;
};
struct UnwindTable {
    std::uint32_t textSize = 0;
    std::vector<UnwindRow> rows;
};
inline UnwindTable parseUnwindTable(std::span<const std::uint8_t> bytes, std::uint32_t textSize) {
    if (bytes.size() % 6) throw DebugInfoError("unwind table: not a multiple of 6 bytes");
    UnwindTable t;
    t.rows.resize(bytes.size() / 6);
    t.textSize = textSize ? textSize : std::uint32_t(t.rows.size() * 2);
    return t;
}
} // namespace copperline
namespace copperline {
inline UnwindTable buildUnwindTable(const DebugInfo&, std::vector<std::string>* = nullptr) {
    throw DebugInfoError("PLACEHOLDER: unwind tables are not built yet");
}
} // namespace copperline
