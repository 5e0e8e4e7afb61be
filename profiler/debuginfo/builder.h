// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The loader's scratch space: the readers (ELF and DWARF, hunk symbols and LINE blocks) add
// scopes, address ranges and line rows in any order; finish() resolves overlaps and builds
// the sorted tables DebugInfo answers from. Private to profiler/debuginfo.

#include "profiler/debuginfo/debug_info.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace copperline {

// Addresses inside the program are (hunk, offset) pairs packed into one sortable key.
inline std::uint64_t hunkKey(std::uint32_t hunk, std::uint32_t offset) {
    return std::uint64_t(hunk) << 32 | offset;
}
inline std::uint32_t keyHunk(std::uint64_t key) {
    return std::uint32_t(key >> 32);
}
inline std::uint32_t keyOffset(std::uint64_t key) {
    return std::uint32_t(key);
}

struct DebugInfo::Builder {
    // Where a top-level range came from decides who wins an overlap: DWARF knows exact
    // extents, sized ELF symbols next, and a symbol without a size only reaches as far as
    // the next thing that starts.
    enum Priority : std::uint8_t { FromDwarf = 0, SizedSymbol = 1, UnsizedSymbol = 2 };

    Builder(DebugInfo& info, const SourceMap& map) : out(info), sourceMap(map) {}

    std::uint32_t file(std::string_view rawPath);
    std::int32_t addScope(DebugScope scope);
    // A top-level scope's bytes. For an unsized symbol, end is the most it may claim.
    void addTopLevel(std::uint32_t hunk, std::uint32_t start, std::uint32_t end, std::int32_t scope,
                     Priority priority, std::uint8_t rank = 0);
    void addNested(std::uint32_t hunk, std::uint32_t start, std::uint32_t end, std::int32_t scope,
                   std::uint32_t depth);
    // A line-table row: [start, end) within a hunk is file:line (line 0: no source line).
    void addLine(std::uint32_t hunk, std::uint32_t start, std::uint32_t end, std::uint32_t file,
                 std::uint32_t line);

    // A row of the stepping table (DebugInfo::stepRows), in the reader's order. Readers
    // that add none get one built from the line table.
    void addStepRow(std::uint32_t hunk, std::uint32_t offset, std::uint32_t file,
                    std::uint32_t line, bool isStmt);
    // A scope's entry (DebugScope::entryHunk/entryOffset).
    void setEntry(std::int32_t scope, std::uint32_t hunk, std::uint32_t offset);

    bool hasLines() const { return !rows_.empty(); }
    void setHasDwarf() { out.hasDwarf_ = true; }
    void addHunk(DebugHunk hunk) { out.hunks_.push_back(std::move(hunk)); }
    // What the reader could not be sure of (DebugInfo::warnings()).
    void warn(std::string what) { out.warnings_.push_back(std::move(what)); }
    void setHunkSection(std::uint32_t hunk, std::string name, std::uint32_t address) {
        out.hunks_[hunk].section = std::move(name);
        out.hunks_[hunk].linkAddress = address;
    }

    // Resolves everything into the DebugInfo's tables.
    void finish();

    DebugInfo& out;
    const SourceMap& sourceMap;

private:
    struct Candidate {
        std::uint64_t start, end;
        std::int32_t scope;
        Priority priority;
        std::uint8_t rank; // among equals at one address: lower wins
    };
    struct Nested {
        std::uint64_t start, end;
        std::int32_t scope;
        std::uint32_t depth;
    };
    struct Row {
        std::uint64_t start, end;
        std::uint32_t file, line;
        std::uint32_t order; // rows at one address: the later one describes it
    };

    void resolveTopLevel(std::vector<Candidate>& accepted);
    void buildSegments(const std::vector<Candidate>& accepted);
    void buildLines();
    void buildStepRows();
    void fillScopeLines();

    std::unordered_map<std::string, std::uint32_t> fileIndex_;
    std::vector<Candidate> candidates_;
    std::vector<Nested> nested_;
    std::vector<Row> rows_;
    struct StepRowIn {
        StepRow row;
        std::uint32_t order;
    };
    std::vector<StepRowIn> stepIn_;
};

// The readers. Each throws DebugInfoError (or MediaError) naming what is wrong.
// hunks null: the ELF alone, one "hunk" per loaded section, in address order.
void readElfDebugInfo(DebugInfo::Builder& builder, const HunkFile* hunks,
                      std::span<const std::uint8_t> elfBytes, const std::string& elfName,
                      const std::string& hunkName);
void readHunkSymbols(DebugInfo::Builder& builder, const HunkFile& hunks);
// A hunk symbol named "NAME@SIZE" (Bartman's elf2hunk: SIZE in lowercase hex) as its name
// and size, or nullopt for any other name.
std::optional<std::pair<std::string_view, std::uint32_t>> splitSizedSymbolName(std::string_view name);
void readHunkLineBlocks(DebugInfo::Builder& builder, const HunkFile& hunks);
// bebbo's amiga-gcc stabs in a HUNK_DEBUG after the last hunk: functions with their sizes,
// file-static data, the line table. Returns whether there were any.
bool readHunkStabs(DebugInfo::Builder& builder, const HunkFile& hunks, const std::string& hunkName);

} // namespace copperline
