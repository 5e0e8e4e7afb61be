// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The compact unwind table the precise CPU sampler walks to give each sample its call stack
// (docs/formats/unwind-table.md): for every two bytes of the program's first code hunk, where
// the caller's frame is (the CFA, from A5 or A7), where A5 was saved and where the return
// address lies. It is built from the ELF sibling's DWARF call-frame information through
// elfutils libdw, and read back from the six-byte rows profile.start receives.

#include "profiler/debuginfo/debug_info.h"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace copperline {

// One location's rule. The caller's stack pointer is the CFA, the register named here plus
// cfaOffset; A5 and the return address were saved at the CFA plus their offsets.
struct UnwindRow {
    static constexpr std::uint8_t kA5 = 13; // DWARF register numbers of the 68000
    static constexpr std::uint8_t kA7 = 15;
    static constexpr std::int32_t kNotSaved = std::numeric_limits<std::int32_t>::min();

    std::uint8_t cfaRegister = kA7;
    std::int32_t cfaOffset = 4;
    std::int32_t a5Offset = kNotSaved;
    std::int32_t returnOffset = -4;

    // What a function's first instruction looks like, and what code without call-frame
    // information is taken to be: JSR has just pushed the return address.
    static constexpr UnwindRow defaultRow() { return {}; }
    // Whether the six-byte encoding can hold it.
    bool encodable() const;
    friend bool operator==(const UnwindRow&, const UnwindRow&) = default;
};

struct UnwindTable {
    static constexpr std::size_t kRowBytes = 6;

    std::uint32_t textSize = 0;
    std::vector<UnwindRow> rows; // rows[i] covers text offset 2*i; ceil(textSize / 2) of them

    // The little-endian six-byte rows, one per two bytes of text. Throws DebugInfoError for a
    // row the encoding cannot hold (only a table assembled by hand has one).
    std::vector<std::uint8_t> bytes() const;
    // The row for an offset into the text, or nullptr past its end.
    const UnwindRow* at(std::uint32_t textOffset) const {
        return textOffset < textSize ? &rows[textOffset >> 1] : nullptr;
    }
};

// What the builder found, for the command line's summary.
struct UnwindStats {
    std::uint32_t describedRows = 0; // rows the call-frame information gave
    std::uint32_t uncoveredRows = 0; // code no FDE covers: the default row
    std::uint32_t unusableRows = 0;  // rules the encoding cannot express: the default row too
};

// Builds the table for hunk 0 of the program from the call-frame information (.debug_frame,
// else .eh_frame) of the ELF sibling the DebugInfo was loaded with. Throws DebugInfoError
// when there is no ELF, it has no call-frame information, or hunk 0 is not code. Locations
// whose rule the table cannot express (a CFA based on another register, an offset out of
// range, a return address not saved on the stack) get the default row; a warning counts them.
UnwindTable buildUnwindTable(const DebugInfo& info, std::vector<std::string>* warnings = nullptr,
                             UnwindStats* stats = nullptr);
// The same from the ELF's bytes, for a DebugInfo made with fromBytes().
UnwindTable buildUnwindTable(const DebugInfo& info, std::span<const std::uint8_t> elfBytes,
                             std::vector<std::string>* warnings = nullptr,
                             UnwindStats* stats = nullptr);

// Reads six-byte rows back. The table may have one row per two bytes of text or, as
// vscode-amiga-debug writes it, one per byte (the second half unused); textSize 0 takes one
// row per two bytes. Throws DebugInfoError for any other size or a CFA register other than
// A5 or A7.
UnwindTable parseUnwindTable(std::span<const std::uint8_t> bytes, std::uint32_t textSize = 0);

} // namespace copperline
