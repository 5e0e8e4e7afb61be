// What a hunk executable alone tells: HUNK_SYMBOL names (without sizes) and LINE blocks.

#include "profiler/debuginfo/builder.h"

namespace copperline {

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
            // A hunk symbol has no size: it reaches to the next symbol or the hunk's end.
            builder.addTopLevel(h, sym.offset, section.allocSize,
                                builder.addScope(std::move(scope)),
                                DebugInfo::Builder::UnsizedSymbol);
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
