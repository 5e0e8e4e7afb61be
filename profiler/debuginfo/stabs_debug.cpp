// SPDX-License-Identifier: GPL-3.0-or-later
// What bebbo's amiga-gcc writes for -g: stabs in a HUNK_DEBUG after the last hunk
// (docs/debuginfo.md, "bebbo's amiga-gcc"). The block is an a.out symbol table: ZMAGIC
// ($10B), the size of the nlist entries, the size of the strings, the 12-byte entries
// (n_strx, n_type, n_other, n_desc, n_value, big-endian) and the strings, with no length
// word in front of them. Values are offsets in the hunk their kind belongs to: text stabs
// in the code hunk, N_STSYM in the data hunk, N_LCSYM in the BSS hunk; N_SLINE values are
// offsets in the code hunk too, not relative to their function.

#include "profiler/debuginfo/builder.h"
#include "emu/hex.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace copperline {

namespace {

// Stab types (a.out's stab.def).
constexpr std::uint8_t kFun = 0x24, kStSym = 0x26, kLcSym = 0x28, kSline = 0x44, kSo = 0x64, kSol = 0x84;
constexpr std::uint32_t kZmagic = 0x10B;
constexpr std::size_t kEntryBytes = 12;

std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) {
    return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 | std::uint32_t(b[at + 2]) << 8 |
           std::uint32_t(b[at + 3]);
}

std::optional<std::uint32_t> firstHunkOf(const HunkFile& hunks, HunkKind kind) {
    for (std::uint32_t h = 0; h < hunks.sections.size(); ++h)
        if (hunks.sections[h].kind == kind) return h;
    return std::nullopt;
}

bool absolutePath(std::string_view p) {
    // Unix paths, and AmigaDOS ones with a volume ("Work:src/main.c").
    return (!p.empty() && p[0] == '/') || p.find(':') != std::string_view::npos;
}

class StabsReader {
public:
    StabsReader(DebugInfo::Builder& b, const HunkFile& hunks, std::span<const std::uint8_t> block,
                const std::string& where)
        : b_(b), hunks_(hunks), block_(block), where_(where) {}

    void run() {
        if (block_.size() < 12) fail("the block is shorter than its header");
        const std::uint32_t symBytes = be32(block_, 4), strBytes = be32(block_, 8);
        if (symBytes % kEntryBytes)
            fail("its symbol table of " + std::to_string(symBytes) + " bytes is not a whole number of entries");
        if (12ull + symBytes + strBytes > block_.size())
            fail("its symbol table (" + std::to_string(symBytes) + " bytes) and strings (" +
                 std::to_string(strBytes) + " bytes) run past the block's " + std::to_string(block_.size()) +
                 " bytes");
        strings_ = block_.subspan(12 + symBytes, strBytes);
        code_ = firstHunkOf(hunks_, HunkKind::Code);
        data_ = firstHunkOf(hunks_, HunkKind::Data);
        bss_ = firstHunkOf(hunks_, HunkKind::Bss);
        // bebbo's linker writes one .text, .data and .bss; its stabs' values are offsets in
        // them. With more hunks of a kind (chip data, a second code section) the values are
        // taken for the first's, which the reader cannot check.
        for (const HunkKind kind : {HunkKind::Code, HunkKind::Data, HunkKind::Bss}) {
            const auto n = std::count_if(hunks_.sections.begin(), hunks_.sections.end(),
                                         [kind](const HunkSection& h) { return h.kind == kind; });
            if (n > 1)
                b_.warn(where_ + ": " + std::to_string(n) + " " + hunkKindName(kind) +
                        " hunks: the stabs are read as offsets in the first of them");
        }
        for (std::size_t at = 12; at < 12 + symBytes; at += kEntryBytes) entry(at);
        finish();
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw DebugInfoError(where_ + ": corrupt stabs (bebbo's amiga-gcc -g): " + what);
    }

    std::string_view string(std::uint32_t strx, std::size_t entryAt) const {
        if (strx == 0) return {};
        if (strx >= strings_.size())
            fail("the entry at offset " + std::to_string(entryAt) + " names string " + std::to_string(strx) +
                 " of a table of " + std::to_string(strings_.size()) + " bytes");
        const auto* begin = reinterpret_cast<const char*>(strings_.data()) + strx;
        const auto* end = reinterpret_cast<const char*>(strings_.data()) + strings_.size();
        const auto* nul = std::find(begin, end, '\0');
        if (nul == end) fail("string " + std::to_string(strx) + " has no NUL before the table ends");
        return {begin, std::size_t(nul - begin)};
    }

    std::string path(std::string_view name) const {
        if (absolutePath(name) || directory_.empty()) return std::string(name);
        std::string out = directory_;
        if (out.back() != '/' && out.back() != ':') out += '/';
        return out + std::string(name);
    }

    // Whether a code offset lies in the code hunk.
    bool inCode(std::uint32_t offset) const { return code_ && offset < hunks_.sections[*code_].allocSize; }

    void entry(std::size_t at) {
        const std::uint32_t strx = be32(block_, at);
        const std::uint8_t type = block_[at + 4];
        const std::uint16_t desc = std::uint16_t(block_[at + 6] << 8 | block_[at + 7]);
        const std::uint32_t value = be32(block_, at + 8);
        const std::string_view name = string(strx, at);
        switch (type) {
        case kSo:
            if (name.empty()) { // the end of a unit
                directory_.clear();
                file_ = kNoFile;
            } else if (name.back() == '/') {
                directory_ = std::string(name);
            } else {
                file_ = b_.file(path(name));
            }
            return;
        case kSol:
            if (!name.empty()) file_ = b_.file(path(name));
            return;
        case kSline:
            if (inCode(value) && file_ != kNoFile) rows_.push_back({value, file_, desc, std::uint32_t(rows_.size())});
            return;
        case kFun: {
            if (name.empty()) { // the function's size, after its body
                if (open_ && *open_ < functions_.size()) {
                    Function& f = functions_[*open_];
                    f.end = std::uint32_t(std::min<std::uint64_t>(std::uint64_t(f.start) + value,
                                                                  hunks_.sections[*code_].allocSize));
                }
                open_.reset();
                return;
            }
            const auto colon = name.find(':');
            if (colon == 0 || !inCode(value)) {
                open_.reset(); // its size entry must not size another
                return;
            }
            Function f;
            f.name = std::string(name.substr(0, colon));
            // "name:F" is a global function, "name:f" a file-static one.
            f.external = !(colon != std::string_view::npos && colon + 1 < name.size() && name[colon + 1] == 'f');
            f.start = value;
            f.file = file_;
            f.line = desc;
            open_ = functions_.size();
            functions_.push_back(std::move(f));
            return;
        }
        case kStSym:
        case kLcSym: {
            const auto hunk = type == kStSym ? data_ : bss_;
            const auto colon = name.find(':');
            if (!hunk || colon == 0 || colon == std::string_view::npos) return;
            if (value >= hunks_.sections[*hunk].allocSize) return;
            DebugScope scope;
            scope.name = std::string(name.substr(0, colon));
            scope.kind = ScopeKind::Object;
            scope.source = ScopeSource::Stabs;
            scope.external = false;
            scope.file = file_;
            scope.line = desc;
            b_.addTopLevel(*hunk, value, hunks_.sections[*hunk].allocSize, b_.addScope(std::move(scope)),
                           DebugInfo::Builder::UnsizedSymbol);
            return;
        }
        default: return;
        }
    }

    void finish() {
        if (!code_) return;
        const std::uint32_t codeSize = hunks_.sections[*code_].allocSize;
        std::vector<std::uint32_t> starts;
        for (const Function& f : functions_) {
            DebugScope scope;
            scope.name = f.name;
            scope.kind = ScopeKind::Function;
            scope.source = ScopeSource::Stabs;
            scope.external = f.external;
            scope.file = f.file;
            scope.line = f.line;
            const std::int32_t id = b_.addScope(std::move(scope));
            if (f.end > f.start)
                b_.addTopLevel(*code_, f.start, f.end, id, DebugInfo::Builder::FromDwarf);
            else // no size entry: up to the next thing that starts
                b_.addTopLevel(*code_, f.start, codeSize, id, DebugInfo::Builder::UnsizedSymbol);
        }
        // A line row runs to the next row, and no further than the end of its function.
        std::vector<const Function*> byStart;
        for (const Function& f : functions_)
            if (f.end > f.start) byStart.push_back(&f);
        std::sort(byStart.begin(), byStart.end(), [](const Function* a, const Function* c) { return a->start < c->start; });
        std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& c) { return a.offset < c.offset; });
        // Each row's end: the next row at a higher offset (one pass from the end).
        std::vector<std::uint32_t> nextOffset(rows_.size(), codeSize);
        for (std::size_t i = rows_.size(); i-- > 0;) {
            if (i + 1 < rows_.size())
                nextOffset[i] = rows_[i + 1].offset > rows_[i].offset ? rows_[i + 1].offset : nextOffset[i + 1];
        }
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            const Row& r = rows_[i];
            std::uint32_t end = nextOffset[i];
            auto f = std::upper_bound(byStart.begin(), byStart.end(), r.offset,
                                      [](std::uint32_t o, const Function* fn) { return o < fn->start; });
            if (f != byStart.begin() && r.offset < (*std::prev(f))->end) end = std::min(end, (*std::prev(f))->end);
            b_.addLine(*code_, r.offset, end, r.file, r.line);
        }
    }

    struct Function {
        std::string name;
        bool external = true;
        std::uint32_t start = 0, end = 0;
        std::uint32_t file = kNoFile, line = 0;
    };
    struct Row {
        std::uint32_t offset, file, line, order;
    };

    DebugInfo::Builder& b_;
    const HunkFile& hunks_;
    std::span<const std::uint8_t> block_, strings_;
    std::string where_;
    std::optional<std::uint32_t> code_, data_, bss_;
    std::string directory_;
    std::uint32_t file_ = kNoFile;
    std::vector<Function> functions_;
    std::optional<std::size_t> open_;
    std::vector<Row> rows_;
};

} // namespace

bool readHunkStabs(DebugInfo::Builder& builder, const HunkFile& hunks, const std::string& hunkName) {
    bool any = false;
    for (const auto& block : hunks.trailingDebug) {
        if (block.size() < 4 || be32(block, 0) != kZmagic) continue;
        StabsReader(builder, hunks, block, hunkName).run();
        any = true;
    }
    return any;
}

} // namespace copperline
