// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The live unwinder of precise CPU sampling: from a retired instruction's PC, A5 and A7, the
// chain of return addresses the unwind table leads to (docs/formats/unwind-table.md). It runs
// for every retired instruction while sampling, so it allocates nothing and reads only the
// longwords the table points at.

#include "profiler/debuginfo/unwind_table.h"

#include <cstdint>
#include <vector>

namespace copperline {

// The emulated machine's memory as the unwinder sees it: one big-endian 68000 longword, or
// false when the address cannot be read (unmapped, or a read that would have side effects).
class LongReader {
public:
    virtual ~LongReader() = default;
    virtual bool readLong(std::uint32_t address, std::uint32_t& value) const = 0;
};

// A loaded code hunk outside the table's text: a return address there is kept as the last
// frame, since the table cannot say how that code's frame continues.
struct CodeRange {
    std::uint32_t base = 0, size = 0;
};

class Unwinder {
public:
    static constexpr unsigned kMaxDepth = 64;               // PCs one unwind() appends at most
    static constexpr std::uint32_t kAddressMask = 0xFFFFFF; // the 68000's 24 address lines

    // No table: every stack is the PC alone.
    Unwinder() = default;
    // The table for the text loaded at textBase. Throws DebugInfoError when the table's rows
    // do not cover its text or the text would run past the end of the address space.
    Unwinder(UnwindTable table, std::uint32_t textBase, std::vector<CodeRange> codeRanges = {});

    // Appends the stack leaf to root, absolute PCs, to out: pc, then each return address
    // while the frame it returns to lies in the text. A return address in a code range ends
    // the stack after it is appended; one anywhere else, an unreadable longword, an odd or
    // zero return address, a frame seen before (same PC and A7) or kMaxDepth PCs end it
    // before. A nonzero stackLimit (A7 after an interrupt's exception frame) ends it at a
    // return address read at or above it: that is the interrupted code, not a caller.
    void unwind(std::uint32_t pc, std::uint32_t a5, std::uint32_t a7, const LongReader& mem,
                std::vector<std::uint32_t>& out, std::uint32_t stackLimit = 0) const;

    bool hasTable() const { return textSize_ != 0; }
    bool inText(std::uint32_t address) const { return address - textBase_ < textSize_; }
    bool inCodeRange(std::uint32_t address) const;
    std::uint32_t textBase() const { return textBase_; }
    std::uint32_t textSize() const { return textSize_; }
    const UnwindTable& table() const { return table_; }
    const std::vector<CodeRange>& codeRanges() const { return codeRanges_; }

private:
    UnwindTable table_;
    std::uint32_t textBase_ = 0;
    std::uint32_t textSize_ = 0;
    std::vector<CodeRange> codeRanges_;
};

} // namespace copperline
