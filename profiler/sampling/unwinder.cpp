// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/sampling/unwinder.h"

#include "emu/hex.h"

#include <utility>

namespace copperline {

Unwinder::Unwinder(UnwindTable table, std::uint32_t textBase, std::vector<CodeRange> codeRanges)
    : table_(std::move(table)), textBase_(textBase), textSize_(table_.textSize),
      codeRanges_(std::move(codeRanges)) {
    const std::uint64_t needed = (std::uint64_t(textSize_) + 1) / 2;
    if (table_.rows.size() != needed)
        throw DebugInfoError("unwind table: " + std::to_string(table_.rows.size()) +
                             " row(s) for " + std::to_string(textSize_) +
                             " bytes of text, which need " + std::to_string(needed));
    if (std::uint64_t(textBase_) + textSize_ > 0x100000000ull)
        throw DebugInfoError("unwind table: text of " + std::to_string(textSize_) + " bytes at " +
                             hex(textBase_) + " runs past the address space");
}

bool Unwinder::inCodeRange(std::uint32_t address) const {
    for (const CodeRange& r : codeRanges_)
        if (address - r.base < r.size) return true;
    return false;
}

void Unwinder::unwind(std::uint32_t pc, std::uint32_t a5, std::uint32_t a7, const LongReader& mem,
                      std::vector<std::uint32_t>& out, std::uint32_t stackLimit) const {
    out.push_back(pc);
    // The frames walked so far (PC and A7), to notice a stack that leads back into itself.
    // Left uninitialised: only the first `depth` entries are ever read.
    std::uint32_t seenPc[kMaxDepth], seenA7[kMaxDepth];
    unsigned depth = 0;
    seenPc[depth] = pc;
    seenA7[depth++] = a7;
    while (depth < kMaxDepth && inText(pc)) {
        const UnwindRow& row = table_.rows[(pc - textBase_) >> 1];
        const std::uint32_t cfa =
            (row.cfaRegister == UnwindRow::kA5 ? a5 : a7) + std::uint32_t(row.cfaOffset);
        if (row.a5Offset != UnwindRow::kNotSaved &&
            !mem.readLong(cfa + std::uint32_t(row.a5Offset), a5))
            return;
        std::uint32_t ra = 0;
        const std::uint32_t raAt = cfa + std::uint32_t(row.returnOffset);
        if (stackLimit && (raAt & kAddressMask) >= (stackLimit & kAddressMask)) return;
        if (!mem.readLong(raAt, ra)) return;
        ra &= kAddressMask;
        if (ra == 0 || (ra & 1)) return;
        a7 = cfa;
        for (unsigned i = 0; i < depth; ++i)
            if (seenPc[i] == ra && seenA7[i] == a7) return;
        if (inText(ra)) {
            out.push_back(ra);
            seenPc[depth] = ra;
            seenA7[depth++] = a7;
            pc = ra;
            continue;
        }
        // A caller in another code hunk is kept; the table cannot follow its frame.
        if (inCodeRange(ra)) out.push_back(ra);
        return;
    }
}

} // namespace copperline
