// SPDX-License-Identifier: GPL-3.0-or-later
// What a hunk executable alone tells: HUNK_SYMBOL names (without sizes) and LINE blocks.

#include "profiler/debuginfo/builder.h"

#include <algorithm>
#include <optional>

namespace copperline {

std::optional<std::pair<std::string_view, std::uint32_t>> splitSizedSymbolName(std::string_view name) {
    // Bartman's elf2hunk writes "%.96s@%x": the (demangled) name, '@', the ELF size in
    // lowercase hex.
    const auto at = name.rfind('@');
    if (at == std::string_view::npos || at == 0 || at + 1 >= name.size() || name.size() - at - 1 > 8)
        return std::nullopt;
    std::uint32_t size = 0;
    for (const char c : name.substr(at + 1)) {
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return std::nullopt;
        size = size << 4 | std::uint32_t(digit);
    }
    return std::pair{name.substr(0, at), size};
}

void readHunkSymbols(DebugInfo::Builder& builder, const HunkFile& hunks) {
    for (std::uint32_t h = 0; h < hunks.sections.size(); ++h) {
        const HunkSection& section = hunks.sections[h];
        for (const HunkSymbol& sym : section.symbols) {
            // A value past the hunk's end (vbcc's _LinkerDB) names no byte of the program.
            if (sym.offset >= section.allocSize) continue;
            DebugScope scope;
            scope.name = sym.name;
            scope.kind = section.kind == HunkKind::Code ? ScopeKind::Function : ScopeKind::Object;
            scope.source = ScopeSource::HunkSymbol;
            std::uint32_t size = 0;
            if (const auto sized = splitSizedSymbolName(sym.name)) {
                scope.name = std::string(sized->first);
                size = sized->second;
            }
            const std::int32_t id = builder.addScope(std::move(scope));
            if (size > 0)
                builder.addTopLevel(h, sym.offset,
                                    std::uint32_t(std::min<std::uint64_t>(std::uint64_t(sym.offset) + size,
                                                                          section.allocSize)),
                                    id, DebugInfo::Builder::SizedSymbol);
            else // without a size it reaches to the next symbol or the hunk's end
                builder.addTopLevel(h, sym.offset, section.allocSize, id, DebugInfo::Builder::UnsizedSymbol);
        }
    }
}

void readHunkLineBlocks(DebugInfo::Builder& builder, const HunkFile& hunks) {
    // Each row runs to the next row of the hunk, whichever file that row is in; the builder
    // cuts them there. The last row of a hunk runs to its end.
    for (std::uint32_t h = 0; h < hunks.sections.size(); ++h) {
        const HunkSection& section = hunks.sections[h];
        for (const HunkLineBlock& block : section.lineBlocks) {
            const std::uint32_t file = builder.file(block.file);
            for (const HunkLine& row : block.lines)
                builder.addLine(h, row.offset, section.allocSize, file, row.line);
        }
    }
}

} // namespace copperline
