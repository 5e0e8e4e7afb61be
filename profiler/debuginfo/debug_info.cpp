// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/debuginfo/debug_info.h"

#include "emu/media/file_bytes.h"
#include "profiler/debuginfo/builder.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>

namespace copperline {

// ---- SourceMap -------------------------------------------------------------------------

void SourceMap::add(std::string from, std::string to) {
    if (from.empty()) throw DebugInfoError("source map: the FROM part of FROM=TO is empty");
    rules_.emplace_back(std::move(from), std::move(to));
}

void SourceMap::addSpec(std::string_view spec) {
    const auto eq = spec.find('=');
    if (eq == std::string_view::npos)
        throw DebugInfoError("source map '" + std::string(spec) + "' is not of the form FROM=TO");
    add(std::string(spec.substr(0, eq)), std::string(spec.substr(eq + 1)));
}

std::string SourceMap::apply(std::string_view path) const {
    for (const auto& [from, to] : rules_) {
        if (path.substr(0, from.size()) != from) continue;
        // A whole path component only: /build/src must not rewrite /build/srcfoo.
        const bool whole =
            path.size() == from.size() || from.back() == '/' || path[from.size()] == '/';
        if (whole) return to + std::string(path.substr(from.size()));
    }
    return std::string(path);
}

// ---- Builder ---------------------------------------------------------------------------

std::uint32_t DebugInfo::Builder::file(std::string_view rawPath) {
    std::string key(rawPath);
    auto it = fileIndex_.find(key);
    if (it != fileIndex_.end()) return it->second;
    // A Windows build (Bartman's toolchain) records "C:\dir\template" as the unit's
    // directory and joins names to it with '/': one spelling, with '/', for every path.
    std::string path(rawPath);
    if (path.size() >= 3 && std::isalpha(static_cast<unsigned char>(path[0])) && path[1] == ':' &&
        (path[2] == '\\' || path[2] == '/'))
        std::replace(path.begin(), path.end(), '\\', '/');
    // Two raw paths may map onto one; keep one index per mapped path.
    const std::string mapped = sourceMap.apply(path);
    std::uint32_t index = kNoFile;
    for (std::uint32_t i = 0; i < out.files_.size(); ++i)
        if (out.files_[i] == mapped) index = i;
    if (index == kNoFile) {
        index = std::uint32_t(out.files_.size());
        out.files_.push_back(mapped);
    }
    fileIndex_.emplace(std::move(key), index);
    return index;
}

std::int32_t DebugInfo::Builder::addScope(DebugScope scope) {
    out.scopes_.push_back(std::move(scope));
    return std::int32_t(out.scopes_.size() - 1);
}

void DebugInfo::Builder::addTopLevel(std::uint32_t hunk, std::uint32_t start, std::uint32_t end,
                                     std::int32_t scope, Priority priority, std::uint8_t rank) {
    if (start >= end) return;
    candidates_.push_back({hunkKey(hunk, start), hunkKey(hunk, end), scope, priority, rank});
}

void DebugInfo::Builder::addNested(std::uint32_t hunk, std::uint32_t start, std::uint32_t end,
                                   std::int32_t scope, std::uint32_t depth) {
    if (start >= end) return;
    nested_.push_back({hunkKey(hunk, start), hunkKey(hunk, end), scope, depth});
}

void DebugInfo::Builder::addLine(std::uint32_t hunk, std::uint32_t start, std::uint32_t end,
                                 std::uint32_t fileIndex, std::uint32_t line) {
    if (start >= end) return;
    rows_.push_back(
        {hunkKey(hunk, start), hunkKey(hunk, end), fileIndex, line, std::uint32_t(rows_.size())});
}

void DebugInfo::Builder::addStepRow(std::uint32_t hunk, std::uint32_t offset, std::uint32_t file,
                                    std::uint32_t line, bool isStmt) {
    stepIn_.push_back({{hunk, offset, file, line, isStmt}, std::uint32_t(stepIn_.size())});
}

void DebugInfo::Builder::setEntry(std::int32_t scope, std::uint32_t hunk, std::uint32_t offset) {
    if (scope < 0 || std::size_t(scope) >= out.scopes_.size()) return;
    DebugScope& s = out.scopes_[std::size_t(scope)];
    s.hasEntry = true;
    s.entryHunk = hunk;
    s.entryOffset = offset;
}

void DebugInfo::Builder::resolveTopLevel(std::vector<Candidate>& accepted) {
    std::stable_sort(candidates_.begin(), candidates_.end(),
                     [](const Candidate& a, const Candidate& b) {
                         if (a.priority != b.priority) return a.priority < b.priority;
                         if (a.start != b.start) return a.start < b.start;
                         return a.rank < b.rank;
                     });
    // A symbol without a size reaches at most to the next thing that starts after it.
    std::vector<std::uint64_t> starts;
    for (const Candidate& c : candidates_)
        starts.push_back(c.start);
    std::sort(starts.begin(), starts.end());
    for (Candidate& c : candidates_) {
        if (c.priority != UnsizedSymbol) continue;
        auto next = std::upper_bound(starts.begin(), starts.end(), c.start);
        if (next != starts.end()) c.end = std::min(c.end, *next);
    }
    // Accepted ranges never overlap. A candidate whose first byte is already claimed is
    // dropped (it is an alias, or a weaker source for the same function); otherwise it is
    // cut short where the next claimed range begins.
    std::map<std::uint64_t, Candidate> sorted; // accepted, by start
    for (const Candidate& c : candidates_) {
        auto next = sorted.upper_bound(c.start);
        if (next != sorted.begin() && std::prev(next)->second.end > c.start) continue;
        Candidate k = c;
        if (next != sorted.end()) k.end = std::min(k.end, next->second.start);
        if (k.start < k.end) sorted.emplace_hint(next, k.start, k);
    }
    accepted.clear();
    for (const auto& [start, c] : sorted) accepted.push_back(c);
}

void DebugInfo::Builder::buildSegments(const std::vector<Candidate>& accepted) {
    auto rootOf = [&](std::int32_t s) {
        for (int guard = 0; s >= 0 && out.scopes_[s].parent >= 0 && guard < 1024; ++guard)
            s = out.scopes_[s].parent;
        return s;
    };
    struct Item {
        std::uint64_t start, end;
        std::int32_t scope;
        std::uint32_t depth;
    };
    std::vector<Item> items;
    items.reserve(accepted.size() + nested_.size());
    for (const Candidate& c : accepted)
        items.push_back({c.start, c.end, c.scope, 0});
    // An inlined range counts only inside its own function's accepted bytes.
    for (const Nested& n : nested_) {
        auto it =
            std::upper_bound(accepted.begin(), accepted.end(), n.start,
                             [](std::uint64_t key, const Candidate& a) { return key < a.start; });
        if (it == accepted.begin()) continue;
        --it;
        if (it->end <= n.start || it->scope != rootOf(n.scope)) continue;
        items.push_back({n.start, std::min(n.end, it->end), n.scope, n.depth});
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.depth != b.depth) return a.depth < b.depth;
        return a.end > b.end;
    });

    auto& segs = out.segments_;
    auto emit = [&](std::uint64_t a, std::uint64_t b, std::int32_t scope) {
        if (a >= b) return;
        if (!segs.empty() && segs.back().end == a && segs.back().scope == scope)
            segs.back().end = b;
        else
            segs.push_back({a, b, scope});
    };
    // A sweep over the address space with the ranges open at the current position: each
    // piece belongs to the deepest open range (the innermost inlined call).
    std::vector<Item> open;
    std::uint64_t pos = 0;
    auto advanceTo = [&](std::uint64_t limit) {
        while (pos < limit) {
            std::erase_if(open, [&](const Item& i) { return i.end <= pos; });
            if (open.empty()) {
                pos = limit;
                break;
            }
            const Item* top = &open.front();
            for (const Item& i : open)
                if (i.depth >= top->depth) top = &i;
            const std::uint64_t end = std::min(limit, top->end);
            emit(pos, end, top->scope);
            pos = end;
        }
    };
    for (const Item& item : items) {
        advanceTo(item.start);
        open.push_back(item);
    }
    advanceTo(std::numeric_limits<std::uint64_t>::max());

    for (const Candidate& c : accepted)
        out.scopeRanges_.push_back(
            {keyHunk(c.start), keyOffset(c.start), keyOffset(c.end), std::uint32_t(c.scope)});
}

void DebugInfo::Builder::buildLines() {
    std::sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
        return a.start != b.start ? a.start < b.start : a.order < b.order;
    });
    // At one address the last row describes it; a row ends where the next one begins.
    std::vector<Row> rows;
    for (const Row& r : rows_) {
        if (!rows.empty() && rows.back().start == r.start) rows.pop_back();
        if (!rows.empty() && rows.back().end > r.start) rows.back().end = r.start;
        rows.push_back(r);
    }
    for (const Row& r : rows) {
        if (r.line == 0 || r.start >= r.end) continue; // line 0: code with no source line
        auto& lines = out.lines_;
        if (!lines.empty() && hunkKey(lines.back().hunk, lines.back().end) == r.start &&
            lines.back().file == r.file && lines.back().line == r.line) {
            lines.back().end = keyOffset(r.end);
            continue;
        }
        lines.push_back({keyHunk(r.start), keyOffset(r.start), keyOffset(r.end), r.file, r.line});
    }
}

void DebugInfo::Builder::buildStepRows() {
    auto& rows = out.stepRows_;
    if (stepIn_.empty()) {
        // LINE blocks and stabs: each run of the line table is a row, and a gap in it is
        // code without a line.
        const auto& lines = out.lines_;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const LineRange& r = lines[i];
            rows.push_back({r.hunk, r.start, r.file, r.line, true});
            const bool joined =
                i + 1 < lines.size() && lines[i + 1].hunk == r.hunk && lines[i + 1].start == r.end;
            if (!joined) rows.push_back({r.hunk, r.end, kNoFile, 0, true});
        }
    } else {
        std::stable_sort(stepIn_.begin(), stepIn_.end(), [](const StepRowIn& a, const StepRowIn& b) {
            const std::uint64_t ka = hunkKey(a.row.hunk, a.row.offset);
            const std::uint64_t kb = hunkKey(b.row.hunk, b.row.offset);
            if (ka != kb) return ka < kb;
            // An end marker at an address gives way to the rows that start there (gdb sorts
            // them first).
            if ((a.row.line == 0) != (b.row.line == 0)) return a.row.line == 0;
            return a.order < b.order;
        });
        for (const StepRowIn& r : stepIn_) rows.push_back(r.row);
    }
    for (const StepRow& r : rows) out.stepStarts_.push_back(hunkKey(r.hunk, r.offset));
}

void DebugInfo::Builder::fillScopeLines() {
    // A function without a recorded declaration (assembly, symbols) is placed at the line of
    // its first instruction.
    for (const ScopeRange& r : out.scopeRanges_) {
        DebugScope& s = out.scopes_[r.scope];
        if (s.line != 0) continue;
        const AddressInfo info = out.lookup(r.hunk, r.start);
        if (info.line < 0) continue;
        s.file = out.lines_[info.line].file;
        s.line = out.lines_[info.line].line;
    }
}

void DebugInfo::Builder::finish() {
    // AmigaDOS starts a program at the first byte of its first hunk. When nothing names that
    // byte (vbcc's startup code has no symbol there) but something in the hunk is named,
    // the code from it to the next named byte is the program's entry: named so, rather
    // than left to no one. A program with no names at all stays unnamed (its profile says
    // so), and an ELF alone has no such convention.
    const auto inHunk0 = [](const Candidate& c) { return keyHunk(c.start) == 0; };
    if (!out.elfAlone_ && !out.hunks_.empty() && out.hunks_[0].kind == HunkKind::Code && out.hunks_[0].size &&
        std::any_of(candidates_.begin(), candidates_.end(), inHunk0) &&
        std::none_of(candidates_.begin(), candidates_.end(), [](const Candidate& c) { return c.start == 0; })) {
        DebugScope entry;
        entry.name = kEntryScope;
        entry.kind = ScopeKind::Function;
        entry.source = ScopeSource::HunkSymbol;
        addTopLevel(0, 0, out.hunks_[0].size, addScope(std::move(entry)), UnsizedSymbol);
    }
    std::vector<Candidate> accepted;
    resolveTopLevel(accepted);
    buildSegments(accepted);
    buildLines();
    buildStepRows();
    for (const Segment& seg : out.segments_)
        out.segmentStarts_.push_back(seg.start);
    for (const LineRange& r : out.lines_)
        out.lineStarts_.push_back(hunkKey(r.hunk, r.start));
    fillScopeLines();
}

// ---- DebugInfo -------------------------------------------------------------------------

namespace {

// The number of keys <= key in a sorted array (std::upper_bound's index), without branches
// the predictor cannot guess: random addresses make every comparison a coin toss.
std::size_t countAtOrBelow(const std::vector<std::uint64_t>& keys, std::uint64_t key) {
    std::size_t n = keys.size();
    if (n == 0) return 0;
    const std::uint64_t* base = keys.data();
    while (n > 1) {
        const std::size_t half = n / 2;
        base = base[half] <= key ? base + half : base;
        n -= half;
    }
    return std::size_t(base - keys.data()) + (*base <= key);
}

std::string defaultSection(HunkKind kind) {
    switch (kind) {
    case HunkKind::Code: return "CODE";
    case HunkKind::Data: return "DATA";
    case HunkKind::Bss: return "BSS";
    }
    return "?";
}

} // namespace

DebugInfo DebugInfo::fromBytes(std::span<const std::uint8_t> hunkBytes, const std::string& hunkName,
                               std::span<const std::uint8_t> elfBytes, const std::string& elfName,
                               const SourceMap& sourceMap) {
    const HunkFile file = readHunkFile(hunkBytes, hunkName);
    DebugInfo info;
    info.programPath_ = hunkName;
    for (const HunkSection& s : file.sections)
        info.hunks_.push_back({s.kind, s.allocSize, defaultSection(s.kind), std::nullopt});

    Builder builder(info, sourceMap);
    if (!elfBytes.empty()) {
        info.elfPath_ = elfName;
        readElfDebugInfo(builder, &file, elfBytes, elfName, hunkName);
    } else {
        readHunkSymbols(builder, file);
        readHunkStabs(builder, file, hunkName);
    }
    // The executable's own LINE blocks serve when the ELF brought no line table.
    if (!builder.hasLines()) readHunkLineBlocks(builder, file);
    builder.finish();
    return info;
}

DebugInfo DebugInfo::fromElfBytes(std::span<const std::uint8_t> elfBytes, const std::string& elfName,
                                  const SourceMap& sourceMap) {
    DebugInfo info;
    info.programPath_ = elfName;
    info.elfPath_ = elfName;
    info.elfAlone_ = true;
    Builder builder(info, sourceMap);
    readElfDebugInfo(builder, nullptr, elfBytes, elfName, elfName);
    builder.finish();
    return info;
}

DebugInfo DebugInfo::loadElf(const std::string& elfPath, const SourceMap& sourceMap) {
    const auto bytes = readFileBytes(elfPath, std::uint64_t(256) << 20);
    if (bytes.empty()) throw DebugInfoError(elfPath + ": empty file, not an ELF");
    return fromElfBytes(bytes, elfPath, sourceMap);
}

std::vector<std::uint32_t> DebugInfo::basesAt(std::uint32_t base) const {
    std::vector<std::uint32_t> out = linkBases();
    if (out.empty()) return out;
    const std::uint32_t lowest = *std::min_element(out.begin(), out.end());
    for (std::uint32_t& b : out) b = b - lowest + base;
    return out;
}

std::vector<std::string> DebugInfo::siblingCandidates(const std::string& programPath) {
    // PROG.elf (our toolchain's layout), then PROG with its extension replaced (Bartman's
    // template builds a.mingw.exe beside a.mingw.elf).
    std::vector<std::string> out = {programPath + ".elf"};
    const std::filesystem::path p(programPath);
    if (p.has_extension() && p.has_stem() && p.extension() != ".elf")
        out.push_back(std::filesystem::path(p).replace_extension(".elf").string());
    return out;
}

DebugInfo DebugInfo::load(const std::string& programPath, const DebugInfoOptions& options) {
    const auto hunkBytes = readFileBytes(programPath, kMaxHunkBytes * 4ull);
    auto withElf = [&](const std::string& elfPath) {
        std::vector<std::uint8_t> elfBytes;
        if (!elfPath.empty()) {
            elfBytes = readFileBytes(elfPath, std::uint64_t(256) << 20);
            if (elfBytes.empty()) throw DebugInfoError(elfPath + ": empty file, not an ELF");
        }
        return fromBytes(hunkBytes, programPath, elfBytes, elfPath, options.sourceMap);
    };
    if (!options.elfPath.empty() || !options.findSibling) return withElf(options.elfPath);
    // An ELF found beside the program may be stale or not an ELF at all: the user did not
    // name it, so its faults cost them only its DWARF. The next candidate is tried, and the
    // hunk symbols still serve.
    std::vector<std::string> warnings;
    for (const std::string& sibling : siblingCandidates(programPath)) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(sibling, ec)) continue;
        try {
            DebugInfo info = withElf(sibling);
            info.warnings_ = std::move(warnings);
            return info;
        } catch (const DebugInfoError& e) {
            warnings.push_back(std::string(e.what()) + "; passed over");
        }
    }
    DebugInfo info = withElf({});
    if (!warnings.empty()) {
        warnings.back().replace(warnings.back().size() - std::string("passed over").size(),
                                std::string::npos, "using the hunk symbols alone");
        info.warnings_ = std::move(warnings);
    }
    return info;
}

const std::string& DebugInfo::fileName(std::uint32_t file) const {
    static const std::string unknown;
    return file < files_.size() ? files_[file] : unknown;
}

std::vector<std::uint32_t> DebugInfo::linesWithCode(std::uint32_t file) const {
    std::vector<std::uint32_t> out;
    for (const LineRange& r : lines_)
        if (r.file == file) out.push_back(r.line);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<LineRange> DebugInfo::rangesOfLine(std::uint32_t file, std::uint32_t line) const {
    std::vector<LineRange> out;
    for (const LineRange& r : lines_)
        if (r.file == file && r.line == line) out.push_back(r);
    return out;
}

std::optional<StepEntry> DebugInfo::stepEntry(std::uint32_t hunk, std::uint32_t offset) const {
    if (hunk >= hunks_.size() || offset >= hunks_[hunk].size) return std::nullopt;
    const std::uint64_t key = hunkKey(hunk, offset);
    const std::size_t n = countAtOrBelow(stepStarts_, key);
    if (n == 0 || stepRows_[n - 1].hunk != hunk) return std::nullopt;
    // The rows at the address found: the last describes it, unless it is no statement and
    // an earlier one there is.
    std::size_t best = n - 1;
    const std::uint64_t at = stepStarts_[best];
    if (!stepRows_[best].isStmt) {
        for (std::size_t i = best; i > 0 && stepStarts_[i - 1] == at && stepRows_[i - 1].line != 0; --i)
            if (stepRows_[i - 1].isStmt) {
                best = i - 1;
                break;
            }
    }
    const StepRow& row = stepRows_[best];
    if (row.line == 0) return std::nullopt;
    StepEntry e;
    e.hunk = hunk;
    e.start = row.offset;
    e.end = hunks_[hunk].size;
    if (n < stepRows_.size() && stepRows_[n].hunk == hunk) e.end = stepRows_[n].offset;
    e.file = row.file;
    e.line = row.line;
    e.isStmt = row.isStmt;
    return e;
}

namespace {

// A path's components, backslashes taken as slashes and empty or "." components dropped.
std::vector<std::string_view> pathComponents(std::string_view path, std::string& storage) {
    storage.assign(path);
    std::replace(storage.begin(), storage.end(), '\\', '/');
    std::vector<std::string_view> out;
    std::string_view rest = storage;
    while (!rest.empty()) {
        const auto slash = rest.find('/');
        const std::string_view part = rest.substr(0, slash);
        if (!part.empty() && part != ".") out.push_back(part);
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
    }
    return out;
}

} // namespace

std::vector<std::uint32_t> DebugInfo::filesMatching(std::string_view path) const {
    std::string wantStorage;
    const auto want = pathComponents(path, wantStorage);
    std::vector<std::uint32_t> out;
    if (want.empty()) return out;
    for (std::uint32_t f = 0; f < files_.size(); ++f) {
        std::string haveStorage;
        const auto have = pathComponents(files_[f], haveStorage);
        if (have.size() < want.size()) continue;
        if (std::equal(want.rbegin(), want.rend(), have.rbegin())) out.push_back(f);
    }
    return out;
}

std::vector<LineLocation> DebugInfo::lineLocations(const std::vector<std::uint32_t>& files,
                                                   std::uint32_t line) const {
    const auto inFiles = [&](const StepRow& r) {
        return r.line != 0 && std::find(files.begin(), files.end(), r.file) != files.end();
    };
    // A row describes code when the next row starts later: optimised code piles up rows of
    // several lines at one address (location views), and only the last describes it.
    const auto describesCode = [&](std::size_t i) {
        const StepRow& r = stepRows_[i];
        if (r.offset >= hunks_[r.hunk].size) return false;
        return i + 1 == stepRows_.size() || stepRows_[i + 1].hunk != r.hunk || stepRows_[i + 1].offset > r.offset;
    };
    // The line itself; else the first later line with code, as gdb moves a breakpoint.
    std::uint32_t found = 0;
    for (std::size_t i = 0; i < stepRows_.size() && found != line; ++i) {
        const StepRow& r = stepRows_[i];
        if (!inFiles(r) || r.line < line || !describesCode(i)) continue;
        if (found == 0 || r.line < found) found = r.line;
    }
    std::vector<LineLocation> out;
    if (found == 0) return out;
    // One location per scope (function or inlined copy) that runs the line: its first
    // statement row, else its first row (optimised code may mark none a statement).
    struct Candidate {
        LineLocation where;
        bool isStmt;
    };
    std::vector<Candidate> best;
    for (std::size_t i = 0; i < stepRows_.size(); ++i) {
        const StepRow& r = stepRows_[i];
        if (!inFiles(r) || r.line != found || !describesCode(i)) continue;
        const AddressInfo info = lookup(r.hunk, r.offset);
        auto it = std::find_if(best.begin(), best.end(), [&](const Candidate& c) {
            return c.where.scope == info.scope && (info.scope >= 0 || (c.where.hunk == r.hunk && c.where.offset == r.offset));
        });
        if (it == best.end()) {
            best.push_back({{r.hunk, r.offset, r.file, found, info.scope}, r.isStmt});
        } else if (r.isStmt && !it->isStmt) {
            *it = {{r.hunk, r.offset, r.file, found, info.scope}, true};
        }
    }
    for (const Candidate& c : best) out.push_back(c.where);
    std::sort(out.begin(), out.end(), [](const LineLocation& a, const LineLocation& b) {
        return a.hunk != b.hunk ? a.hunk < b.hunk : a.offset < b.offset;
    });
    return out;
}

std::vector<std::uint32_t> DebugInfo::functionsNamed(std::string_view name) const {
    std::vector<std::uint32_t> out;
    for (const ScopeRange& r : scopeRanges_) {
        const DebugScope& s = scopes_[r.scope];
        if (s.kind != ScopeKind::Function || s.name != name) continue;
        if (std::find(out.begin(), out.end(), r.scope) == out.end()) out.push_back(r.scope);
    }
    return out;
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> DebugInfo::entryOf(std::uint32_t scope) const {
    if (scope >= scopes_.size()) return std::nullopt;
    const DebugScope& s = scopes_[scope];
    if (s.hasEntry) return std::make_pair(s.entryHunk, s.entryOffset);
    // A symbol's function: the first of its ranges.
    for (const ScopeRange& r : scopeRanges_)
        if (r.scope == scope) return std::make_pair(r.hunk, r.start);
    return std::nullopt;
}

bool DebugInfo::entersAt(std::uint32_t scope, std::uint32_t hunk, std::uint32_t offset) const {
    const auto entry = entryOf(scope);
    if (entry && entry->first == hunk && entry->second == offset) return true;
    if (scope >= scopes_.size() || scopes_[scope].kind != ScopeKind::Inlined) return false;
    const DebugScope* wanted = &scopes_[scope];
    const auto holds = [&](std::uint32_t at) {
        for (const InlineFrame& f : frames(lookup(hunk, at)))
            if (f.scope == wanted) return true;
        return false;
    };
    return holds(offset) && (offset == 0 || !holds(offset - 1));
}

AddressInfo DebugInfo::lookup(std::uint32_t hunk, std::uint32_t offset) const {
    AddressInfo info;
    if (hunk >= hunks_.size() || offset >= hunks_[hunk].size) return info;
    info.inProgram = true;
    info.hunk = hunk;
    info.offset = offset;
    const std::uint64_t key = hunkKey(hunk, offset);
    const std::size_t seg = countAtOrBelow(segmentStarts_, key);
    if (seg > 0 && key < segments_[seg - 1].end) info.scope = segments_[seg - 1].scope;
    const std::size_t line = countAtOrBelow(lineStarts_, key);
    if (line > 0 && lines_[line - 1].hunk == hunk && offset < lines_[line - 1].end)
        info.line = std::int32_t(line - 1);
    return info;
}

AddressInfo DebugInfo::lookup(std::uint32_t address, const HunkBases& bases) const {
    const auto where = bases.find(address);
    if (!where) return {};
    return lookup(where->first, where->second);
}

const DebugScope* DebugInfo::function(const AddressInfo& info) const {
    std::int32_t s = info.scope;
    if (s < 0) return nullptr;
    for (int guard = 0; scopes_[s].parent >= 0 && guard < 1024; ++guard)
        s = scopes_[s].parent;
    return &scopes_[s];
}

std::vector<InlineFrame> DebugInfo::frames(const AddressInfo& info) const {
    std::vector<InlineFrame> out;
    InlineFrame f;
    if (info.line >= 0) {
        f.file = lines_[info.line].file;
        f.line = lines_[info.line].line;
    }
    if (info.scope < 0) {
        if (info.line >= 0) out.push_back(f);
        return out;
    }
    std::int32_t s = info.scope;
    for (int guard = 0; guard < 1024; ++guard) {
        const DebugScope& scope = scopes_[s];
        f.scope = &scope;
        f.inlined = scope.kind == ScopeKind::Inlined && scope.parent >= 0;
        out.push_back(f);
        if (!f.inlined) break;
        f = InlineFrame{};
        f.file = scope.callFile;
        f.line = scope.callLine;
        f.column = scope.callColumn;
        s = scope.parent;
    }
    return out;
}

std::vector<std::uint32_t> DebugInfo::linkBases() const {
    std::vector<std::uint32_t> out;
    std::uint64_t next = 0;
    for (const DebugHunk& h : hunks_) {
        const std::uint32_t base = h.linkAddress ? *h.linkAddress : std::uint32_t(next);
        out.push_back(base);
        next = std::min<std::uint64_t>((std::uint64_t(base) + h.size + 3) & ~3ull, 0xFFFFFFFCu);
    }
    return out;
}

// ---- HunkBases -------------------------------------------------------------------------

HunkBases::HunkBases(const DebugInfo& info, std::vector<std::uint32_t> bases)
    : bases_(std::move(bases)) {
    if (bases_.size() != info.hunks().size())
        throw DebugInfoError(std::to_string(bases_.size()) +
                             " relocation base(s) given for a program of " +
                             std::to_string(info.hunks().size()) + " hunk(s)");
    for (std::uint32_t h = 0; h < bases_.size(); ++h)
        byBase_.push_back({bases_[h], info.hunks()[h].size, h});
    std::sort(byBase_.begin(), byBase_.end(),
              [](const Span& a, const Span& b) { return a.base < b.base; });
}

std::optional<std::pair<std::uint32_t, std::uint32_t>>
HunkBases::find(std::uint32_t address) const {
    auto it = std::upper_bound(byBase_.begin(), byBase_.end(), address,
                               [](std::uint32_t a, const Span& s) { return a < s.base; });
    // Overlapping bases are a caller's mistake; the nearest base below still answers.
    while (it != byBase_.begin()) {
        --it;
        if (std::uint64_t(address) < std::uint64_t(it->base) + it->size)
            return std::make_pair(it->hunk, address - it->base);
        if (it == byBase_.begin() ||
            std::prev(it)->base + std::uint64_t(std::prev(it)->size) <= address)
            break;
    }
    return std::nullopt;
}

} // namespace copperline
