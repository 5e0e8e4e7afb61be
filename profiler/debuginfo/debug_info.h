// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A program's debug information, read once and asked many times: which module, function,
// chain of inlined frames, source file and line an emulated address belongs to, and the
// line table that coverage needs.
//
// It reads an AmigaOS hunk executable (its HUNK_SYMBOL and LINE debug blocks) and, when
// there is one, the ELF it was converted from (DWARF 2 to 5 through elfutils libdw, and the
// ELF symbol table). The ELF's loaded sections are matched to the executable's hunks, so
// every fact is kept as (hunk, offset) and any relocation of the hunks can be asked about.
// docs/debuginfo.md describes the rules; an address the information does not describe is
// reported as unknown, never under a neighbour's name.

#include "emu/media/byte_reader.h"
#include "emu/media/hunk.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace copperline {

// Debug information that cannot be used: a corrupt ELF or DWARF, or an ELF that does not
// belong to the executable. A MediaError, so every loader error is caught the same way.
class DebugInfoError : public MediaError {
public:
    using MediaError::MediaError;
};

// Rewrites the build paths recorded in debug information (--source-map FROM=TO). Rules are
// tried in the order given; the first whose FROM is a whole-component prefix of the path
// wins.
class SourceMap {
public:
    void add(std::string from, std::string to);
    // "FROM=TO"; throws DebugInfoError when there is no '=' or FROM is empty.
    void addSpec(std::string_view spec);
    std::string apply(std::string_view path) const;
    bool empty() const { return rules_.empty(); }

private:
    std::vector<std::pair<std::string, std::string>> rules_;
};

struct DebugInfoOptions {
    // The ELF sibling to read. Empty: when findSibling is set, the first of
    // DebugInfo::siblingCandidates that exists and belongs to the program, otherwise the
    // hunk executable alone.
    std::string elfPath;
    bool findSibling = true;
    SourceMap sourceMap;
};

inline constexpr std::uint32_t kNoFile = 0xFFFFFFFF;

// The name of a program's entry code when no symbol names the first byte of its first hunk,
// where AmigaDOS starts it (vbcc's startup code).
inline constexpr const char* kEntryScope = "[entry]";

// Whether a hunk of `hunkSize` bytes can hold an ELF section of `sectionSize`: the section
// rounded up to a longword, or one longword more (Bartman's elf2hunk makes every hunk
// (size + 4) / 4 longwords, so a section that fills whole longwords gains one). Contents,
// not sizes, decide whether an ELF belongs to an executable.
inline bool hunkSizeFitsSection(std::uint64_t hunkSize, std::uint64_t sectionSize) {
    return hunkSize >= sectionSize && hunkSize <= ((sectionSize + 3) & ~std::uint64_t(3)) + 4;
}

enum class ScopeKind : std::uint8_t {
    Function, // code: a DWARF subprogram or a code symbol
    Object,   // data: a data or BSS symbol
    Inlined,  // a function inlined into its parent scope
};

enum class ScopeSource : std::uint8_t { Dwarf, ElfSymbol, HunkSymbol, Stabs };

// A named piece of the program: a function, a data object or one inlined call.
struct DebugScope {
    std::string name;
    ScopeKind kind = ScopeKind::Function;
    ScopeSource source = ScopeSource::Dwarf;
    bool external = true;         // false for file-static functions and objects
    std::int32_t parent = -1;     // the scope an inlined call sits in; -1 at top level
    std::uint32_t file = kNoFile; // where it is defined (index into files())
    std::uint32_t line = 0;       // 0: unknown
    // Inlined scopes only: the call site, in the parent's source.
    std::uint32_t callFile = kNoFile;
    std::uint32_t callLine = 0;
    std::uint32_t callColumn = 0;
    // The DIE that describes it (its offset in .debug_info), for DWARF scopes; 0 otherwise.
    std::uint64_t die = 0;
    // Where the scope's code is entered (DWARF's entry pc, else its lowest address); set for
    // DWARF functions and inlined calls (hasEntry).
    bool hasEntry = false;
    std::uint32_t entryHunk = 0;
    std::uint32_t entryOffset = 0;
};

// One contiguous run of a top-level scope's bytes, [start, end) within a hunk.
struct ScopeRange {
    std::uint32_t hunk = 0;
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    std::uint32_t scope = 0;
};

// One run of the line table: [start, end) within a hunk holds code of file:line.
struct LineRange {
    std::uint32_t hunk = 0;
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    std::uint32_t file = 0;
    std::uint32_t line = 0;
};

// One row of the line table as a source-level debugger steps by it (docs/debugger.md): the
// row starts at (hunk, offset) and reaches to the next row's address. Line 0 marks code
// without a source line (the end of a sequence). DWARF rows are kept as gdb records them:
// a row that repeats the line before it in the same file is dropped once that line has had
// a nonzero discriminator, so that a loop's pieces step as one line.
struct StepRow {
    std::uint32_t hunk = 0;
    std::uint32_t offset = 0;
    std::uint32_t file = kNoFile;
    std::uint32_t line = 0;
    bool isStmt = true;
};

// The row that describes an address, with the extent a step treats as one line.
struct StepEntry {
    std::uint32_t hunk = 0;
    std::uint32_t start = 0; // the row's address
    std::uint32_t end = 0;   // the next row's
    std::uint32_t file = kNoFile;
    std::uint32_t line = 0;
    bool isStmt = true;
};

// Where a breakpoint on file:line goes: one address per scope (function or inlined copy)
// that holds the line's code, the lowest of each; `line` is the line found there (the next
// line with code when the asked line has none).
struct LineLocation {
    std::uint32_t hunk = 0;
    std::uint32_t offset = 0;
    std::uint32_t file = kNoFile;
    std::uint32_t line = 0;
    std::int32_t scope = -1;
};

struct DebugHunk {
    HunkKind kind = HunkKind::Code;
    std::uint32_t size = 0; // bytes the loader allocates
    std::string section;    // the ELF section it came from, or CODE/DATA/BSS without an ELF
    std::optional<std::uint32_t> linkAddress; // the section's ELF address
};

// The answer for one address. hunk/offset are meaningful when inProgram is set; scope is
// the innermost scope (-1: no function or object claims the address); line indexes
// lineTable() (-1: no line information).
struct AddressInfo {
    bool inProgram = false;
    std::uint32_t hunk = 0;
    std::uint32_t offset = 0;
    std::int32_t scope = -1;
    std::int32_t line = -1;
};

// One frame of a symbolised address, innermost first. Frame 0 is where the address is;
// each later frame is the scope the previous one was inlined into, at the call's line.
struct InlineFrame {
    const DebugScope* scope = nullptr; // nullptr: no function known (line only)
    std::uint32_t file = kNoFile;
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    bool inlined = false; // this frame's function was inlined into the next frame
};

class HunkBases;

class DebugInfo {
public:
    // Reads the hunk executable at programPath and its ELF sibling (see DebugInfoOptions).
    // Throws MediaError for an unreadable executable and DebugInfoError for unusable
    // debug information; a sibling found by itself that is unusable is a warning instead.
    static DebugInfo load(const std::string& programPath, const DebugInfoOptions& options = {});

    // An ELF alone, for code that is no AmigaOS executable (a boot block, a trackmo's part,
    // code a loader places itself): each loaded section (allocated PROGBITS or NOBITS with
    // a size) stands for a hunk, in address order; basesAt() places them. Throws
    // DebugInfoError for an ELF it cannot use.
    static DebugInfo loadElf(const std::string& elfPath, const SourceMap& sourceMap = {});
    static DebugInfo fromElfBytes(std::span<const std::uint8_t> elfBytes, const std::string& elfName,
                                  const SourceMap& sourceMap = {});
    bool elfAlone() const { return elfAlone_; }
    // Where each hunk (section) lies when the lowest linked one is at `base` and the others
    // keep their distances from it, as a loader that copies the whole image places them.
    std::vector<std::uint32_t> basesAt(std::uint32_t base) const;

    // The ELF siblings load() looks for, in order: PROG.elf, then PROG with its extension
    // replaced by .elf (a.mingw.exe -> a.mingw.elf).
    static std::vector<std::string> siblingCandidates(const std::string& programPath);

    // The same from bytes in memory; elfBytes empty means no ELF.
    static DebugInfo fromBytes(std::span<const std::uint8_t> hunkBytes, const std::string& hunkName,
                               std::span<const std::uint8_t> elfBytes, const std::string& elfName,
                               const SourceMap& sourceMap = {});

    const std::string& programPath() const { return programPath_; }
    const std::string& elfPath() const { return elfPath_; } // empty when no ELF was read
    bool hasDwarf() const { return hasDwarf_; }
    // What load() let pass: a PROG.elf beside the program that does not belong to it or
    // cannot be read, read past for the hunk symbols alone.
    const std::vector<std::string>& warnings() const { return warnings_; }

    const std::vector<DebugHunk>& hunks() const { return hunks_; }
    const std::vector<DebugScope>& scopes() const { return scopes_; }
    const std::vector<std::string>& files() const { return files_; }
    const std::string& fileName(std::uint32_t file) const;

    // Every byte a top-level function or object claims, sorted by (hunk, start), no overlaps.
    const std::vector<ScopeRange>& scopeRanges() const { return scopeRanges_; }
    // The line table, sorted by (hunk, start), no overlaps, adjacent runs of one line merged.
    const std::vector<LineRange>& lineTable() const { return lines_; }
    // Every line of a file that has code, ascending.
    std::vector<std::uint32_t> linesWithCode(std::uint32_t file) const;
    // The address ranges that hold code of file:line.
    std::vector<LineRange> rangesOfLine(std::uint32_t file, std::uint32_t line) const;

    // The stepping table, sorted by (hunk, offset); rows at one address keep their order.
    const std::vector<StepRow>& stepRows() const { return stepRows_; }
    // The row describing an address as gdb's find_pc_line chooses it (at one address the
    // last row, unless it is not a statement and an earlier one there is), or nullopt where
    // no source line describes the address.
    std::optional<StepEntry> stepEntry(std::uint32_t hunk, std::uint32_t offset) const;
    // The files whose path ends with `path`, compared component by component ("main.c",
    // "src/main.c" or the whole path; backslashes count as slashes).
    std::vector<std::uint32_t> filesMatching(std::string_view path) const;
    // Where a breakpoint on line `line` of these files goes: the statement rows of exactly
    // that line, else of the first later line that has any; the lowest address of each
    // scope. Empty when the files have no code at or after the line.
    std::vector<LineLocation> lineLocations(const std::vector<std::uint32_t>& files,
                                            std::uint32_t line) const;
    // The top-level functions called `name` (index into scopes()) with code.
    std::vector<std::uint32_t> functionsNamed(std::string_view name) const;
    // Where a function or inlined call is entered (its entry pc, else its lowest address).
    std::optional<std::pair<std::uint32_t, std::uint32_t>> entryOf(std::uint32_t scope) const;
    // Whether execution arriving at hunk:offset enters the scope, as gdb decides it for an
    // inlined call: at its entry, or at the start of one of its ranges when the address
    // before lies outside it (a call split into pieces is entered at each).
    bool entersAt(std::uint32_t scope, std::uint32_t hunk, std::uint32_t offset) const;

    AddressInfo lookup(std::uint32_t hunk, std::uint32_t offset) const;
    AddressInfo lookup(std::uint32_t address, const HunkBases& bases) const;
    // The top-level function or object (the outermost frame), or nullptr.
    const DebugScope* function(const AddressInfo& info) const;
    std::vector<InlineFrame> frames(const AddressInfo& info) const;

    // Where the ELF linked each hunk; hunks without an ELF are packed from 0 in order.
    std::vector<std::uint32_t> linkBases() const;

    // Filled by the loader (debug_info.cpp and its readers).
    struct Builder;

private:
    std::string programPath_;
    std::string elfPath_;
    std::vector<std::string> warnings_;
    bool hasDwarf_ = false;
    bool elfAlone_ = false;
    std::vector<DebugHunk> hunks_;
    std::vector<DebugScope> scopes_;
    std::vector<std::string> files_;
    std::vector<ScopeRange> scopeRanges_;
    std::vector<LineRange> lines_;
    std::vector<StepRow> stepRows_;
    std::vector<std::uint64_t> stepStarts_;
    // The innermost scope of every claimed byte, as 64-bit keys (hunk << 32 | offset).
    struct Segment {
        std::uint64_t start;
        std::uint64_t end;
        std::int32_t scope;
    };
    std::vector<Segment> segments_;
    // The start keys of segments_ and lines_ alone, so a lookup's binary search walks
    // densely packed memory.
    std::vector<std::uint64_t> segmentStarts_;
    std::vector<std::uint64_t> lineStarts_;
};

// Where each hunk of a program landed in the emulated machine: one base per hunk.
class HunkBases {
public:
    // Throws DebugInfoError when the count does not match the program's hunks.
    HunkBases(const DebugInfo& info, std::vector<std::uint32_t> bases);
    // The hunk and offset of an address, or nullopt outside every hunk.
    std::optional<std::pair<std::uint32_t, std::uint32_t>> find(std::uint32_t address) const;
    const std::vector<std::uint32_t>& bases() const { return bases_; }

private:
    struct Span {
        std::uint32_t base;
        std::uint32_t size;
        std::uint32_t hunk;
    };
    std::vector<std::uint32_t> bases_;
    std::vector<Span> byBase_;
};

} // namespace copperline
