// SPDX-License-Identifier: GPL-3.0-or-later
// What an ELF sibling tells: its loaded sections matched to the executable's hunks, its
// symbol table (with sizes) and its DWARF (functions, inlined calls, the line table), read
// through elfutils libelf and libdw.

#include "profiler/debuginfo/builder.h"
#include "emu/hex.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <optional>

namespace copperline {

namespace {

std::string ordinal(std::size_t n) {
    const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                         : n % 10 == 1                    ? "st"
                         : n % 10 == 2                    ? "nd"
                         : n % 10 == 3                    ? "rd"
                                                          : "th";
    return std::to_string(n) + suffix;
}

// Nesting and size limits that keep a hostile file from recursing or looping without end.
constexpr int kMaxDieDepth = 128;
constexpr std::size_t kMaxDies = 20'000'000;
constexpr std::size_t kMaxRangesPerDie = 1'000'000;

struct ElfHandles {
    Elf* elf = nullptr;
    Dwarf* dwarf = nullptr;
    ~ElfHandles() {
        if (dwarf) dwarf_end(dwarf);
        if (elf) elf_end(elf);
    }
};

struct LoadedSection {
    std::size_t index = 0;
    std::string name;
    std::uint32_t addr = 0;
    std::uint32_t size = 0;
    HunkKind kind = HunkKind::Code;
    std::uint32_t hunk = 0; // the hunk it was matched to
};

class ElfReader {
public:
    // hunks null: the ELF alone, its loaded sections standing for the hunks.
    ElfReader(DebugInfo::Builder& builder, const HunkFile* hunks,
              std::span<const std::uint8_t> bytes, const std::string& elfName,
              const std::string& hunkName)
        : b_(builder), hunks_(hunks), bytes_(bytes.begin(), bytes.end()), name_(elfName),
          hunkName_(hunkName) {}

    void run() {
        open();
        collectSections();
        if (hunks_) {
            matchHunks();
        } else {
            if (sections_.empty()) fail("no loaded sections: nothing of it is in memory");
            for (std::uint32_t i = 0; i < sections_.size(); ++i) {
                sectionOfHunk_.push_back(i);
                sections_[i].hunk = i;
                b_.addHunk({sections_[i].kind, sections_[i].size, sections_[i].name, std::nullopt});
            }
        }
        for (std::uint32_t h = 0; h < sectionOfHunk_.size(); ++h)
            b_.setHunkSection(h, section(h).name, section(h).addr);
        readSymbols();
        readDwarf();
    }

private:
    [[noreturn]] void fail(const std::string& message) const {
        throw DebugInfoError(name_ + ": " + message);
    }
    [[noreturn]] void failDwarf(const std::string& what) const {
        fail("corrupt DWARF: " + what + ": " + dwarf_errmsg(-1));
    }

    void open() {
        if (elf_version(EV_CURRENT) == EV_NONE) fail("libelf is too old");
        f_.elf = elf_memory(bytes_.data(), bytes_.size());
        if (!f_.elf || elf_kind(f_.elf) != ELF_K_ELF) fail("not an ELF file");
        GElf_Ehdr eh;
        if (!gelf_getehdr(f_.elf, &eh))
            fail(std::string("unreadable ELF header: ") + elf_errmsg(-1));
        if (eh.e_ident[EI_CLASS] != ELFCLASS32 || eh.e_ident[EI_DATA] != ELFDATA2MSB ||
            eh.e_machine != EM_68K)
            fail("not a 32-bit big-endian m68k ELF");
        if (eh.e_type != ET_EXEC)
            fail("not a linked executable (ELF type " + std::to_string(eh.e_type) +
                 "): an object file has no addresses to match the hunks");
        if (elf_getshdrstrndx(f_.elf, &shstrndx_) != 0)
            fail(std::string("no section names: ") + elf_errmsg(-1));
    }

    std::string sectionName(const GElf_Shdr& sh) const {
        const char* n = elf_strptr(f_.elf, shstrndx_, sh.sh_name);
        return n ? n : "";
    }

    // The same rule elf2hunk follows: every allocated section with contents or BSS, in
    // address order, is one hunk.
    void collectSections() {
        std::size_t count = 0;
        for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(f_.elf, scn));) {
            if (++count > 65536) fail("more than 65536 sections");
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh))
                fail(std::string("unreadable section header: ") + elf_errmsg(-1));
            const std::string name = sectionName(sh);
            if (name == ".debug_info" || name == ".debug_line") hasDwarfSections_ = true;
            if (sh.sh_type == SHT_SYMTAB) symtab_ = elf_ndxscn(scn);
            if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0) continue;
            if (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_NOBITS) continue;
            if (sh.sh_addr + sh.sh_size > 0x100000000ull || sh.sh_size > kMaxHunkBytes)
                fail("section " + name + " (" + hex(sh.sh_addr) + ", " +
                     std::to_string(sh.sh_size) + " bytes) lies beyond what a 68000 addresses");
            LoadedSection s;
            s.index = elf_ndxscn(scn);
            s.name = name;
            s.addr = std::uint32_t(sh.sh_addr);
            s.size = std::uint32_t(sh.sh_size);
            s.kind = sh.sh_type == SHT_NOBITS        ? HunkKind::Bss
                     : (sh.sh_flags & SHF_EXECINSTR) ? HunkKind::Code
                                                     : HunkKind::Data;
            sections_.push_back(s);
        }
        std::stable_sort(
            sections_.begin(), sections_.end(),
            [](const LoadedSection& a, const LoadedSection& b) { return a.addr < b.addr; });
        for (std::size_t i = 1; i < sections_.size(); ++i)
            if (std::uint64_t(sections_[i - 1].addr) + sections_[i - 1].size > sections_[i].addr)
                fail("loaded sections " + sections_[i - 1].name + " and " + sections_[i].name +
                     " overlap");
    }

    [[noreturn]] void mismatch(const std::string& what) const {
        throw DebugInfoError(name_ + " does not belong to " + hunkName_ + ": " + what);
    }

    const LoadedSection& section(std::uint32_t hunk) const {
        return sections_[sectionOfHunk_[hunk]];
    }

    // Why the hunks cannot be the sections in this order (sections_ indices, one per hunk), or
    // an empty string when every kind and size fits.
    std::string orderMismatch(const std::vector<std::uint32_t>& order) const {
        for (std::size_t h = 0; h < order.size(); ++h) {
            const LoadedSection& s = sections_[order[h]];
            const HunkSection& hunk = hunks_->sections[h];
            const bool sizeFits = hunkSizeFitsSection(hunk.allocSize, s.size);
            if (s.kind != hunk.kind || !sizeFits)
                return "hunk " + std::to_string(h) + " is " + hunkKindName(hunk.kind) + " of " +
                       std::to_string(hunk.allocSize) + " bytes, but the ELF's " + ordinal(h + 1) +
                       " loaded section " + s.name + " is " + hunkKindName(s.kind) + " of " +
                       std::to_string(s.size) + " bytes";
        }
        return {};
    }

    // Our elf2hunk and the Amiga cross toolchains make one hunk per loaded section, in address
    // order; some converters keep the section headers' order instead. The first order in
    // which every hunk's kind and size fits its section is taken, and then the contents must
    // agree too.
    void matchHunks() {
        const auto& hs = hunks_->sections;
        if (sections_.size() != hs.size())
            mismatch("the ELF has " + std::to_string(sections_.size()) +
                     " loaded section(s), the executable " + std::to_string(hs.size()) +
                     " hunk(s)");
        std::vector<std::uint32_t> byAddress(sections_.size()), byHeader(sections_.size());
        for (std::uint32_t i = 0; i < sections_.size(); ++i)
            byAddress[i] = byHeader[i] = i;
        std::stable_sort(byHeader.begin(), byHeader.end(), [&](std::uint32_t a, std::uint32_t b) {
            return sections_[a].index < sections_[b].index;
        });
        const std::string why = orderMismatch(byAddress);
        if (why.empty())
            sectionOfHunk_ = byAddress;
        else if (orderMismatch(byHeader).empty())
            sectionOfHunk_ = byHeader;
        else
            mismatch(why);
        for (std::uint32_t h = 0; h < hs.size(); ++h) {
            sections_[sectionOfHunk_[h]].hunk = h;
            if (hs[h].kind != HunkKind::Bss) compareContents(h, section(h), hs[h]);
        }
    }

    // The bytes must agree wherever the loader does not patch them: an ELF from another
    // build of the program would give wrong answers everywhere.
    void compareContents(std::size_t h, const LoadedSection& s, const HunkSection& hunk) {
        std::vector<std::uint8_t> elfData;
        Elf_Scn* scn = elf_getscn(f_.elf, s.index);
        for (Elf_Data* d = nullptr; scn && (d = elf_getdata(scn, d));) {
            if (!d->d_buf && d->d_size) fail("section " + s.name + " has no data");
            if (elfData.size() + d->d_size > s.size)
                fail("section " + s.name + " holds more data than its size");
            const auto* p = static_cast<const std::uint8_t*>(d->d_buf);
            elfData.insert(elfData.end(), p, p + d->d_size);
        }
        if (elfData.size() != s.size) fail("section " + s.name + " is truncated in the file");
        std::vector<bool> patched(s.size, false);
        for (const HunkReloc& r : hunk.relocs)
            for (std::uint32_t i = r.offset; i < r.offset + 4 && i < s.size; ++i)
                patched[i] = true;
        // And wherever the ELF relocates: a converter writes what it makes of a relocation
        // there (Bartman's elf2hunk writes $FFFFFFFF for a symbol in no hunk, such as
        // __preinit_array_end of an empty .init_array), not the linked bytes.
        markElfRelocations(s, patched);
        const std::size_t n = std::min<std::size_t>(s.size, hunk.data.size());
        for (std::size_t i = 0; i < n; ++i)
            if (!patched[i] && elfData[i] != hunk.data[i])
                mismatch("hunk " + std::to_string(h) + " differs from ELF section " + s.name +
                         " at offset " + hex(i) + "; the ELF was built from other sources");
    }

    // The bytes of section s that its relocation sections (REL or RELA whose sh_info is s)
    // patch. In a linked executable r_offset is an address.
    void markElfRelocations(const LoadedSection& s, std::vector<bool>& patched) const {
        for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(f_.elf, scn));) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
                sh.sh_info != s.index || !sh.sh_entsize)
                continue;
            Elf_Data* data = elf_getdata(scn, nullptr);
            if (!data) fail("unreadable relocations of " + s.name);
            const std::size_t n = sh.sh_size / sh.sh_entsize;
            for (std::size_t i = 0; i < n; ++i) {
                std::uint64_t offset = 0, type = 0;
                if (sh.sh_type == SHT_RELA) {
                    GElf_Rela r;
                    if (!gelf_getrela(data, int(i), &r)) fail("unreadable relocation of " + s.name);
                    offset = r.r_offset;
                    type = GELF_R_TYPE(r.r_info);
                } else {
                    GElf_Rel r;
                    if (!gelf_getrel(data, int(i), &r)) fail("unreadable relocation of " + s.name);
                    offset = r.r_offset;
                    type = GELF_R_TYPE(r.r_info);
                }
                // R_68K_16 and _PC16 patch a word, R_68K_8 and _PC8 a byte, the rest a longword.
                const std::uint64_t bytes = type == 2 || type == 5 ? 2 : type == 3 || type == 6 ? 1 : 4;
                if (offset < s.addr) continue;
                for (std::uint64_t b = offset - s.addr; b < offset - s.addr + bytes && b < s.size; ++b)
                    patched[std::size_t(b)] = true;
            }
        }
    }

    // The loaded section (index into sections_) holding an ELF address, if any.
    std::optional<std::uint32_t> sectionAt(std::uint64_t addr) const {
        auto it =
            std::upper_bound(sections_.begin(), sections_.end(), addr,
                             [](std::uint64_t a, const LoadedSection& s) { return a < s.addr; });
        if (it == sections_.begin()) return std::nullopt;
        --it;
        if (addr >= std::uint64_t(it->addr) + it->size) return std::nullopt;
        return std::uint32_t(it - sections_.begin());
    }

    // The hunk and offset of an ELF address, or nullopt when no loaded section holds it.
    std::optional<std::pair<std::uint32_t, std::uint32_t>> hunkOf(std::uint64_t addr) const {
        const auto i = sectionAt(addr);
        if (!i) return std::nullopt;
        return std::make_pair(sections_[*i].hunk, std::uint32_t(addr - sections_[*i].addr));
    }

    // [lo, hi) as a hunk range, cut at the end of the section lo lies in.
    std::optional<std::array<std::uint32_t, 3>> hunkRange(std::uint64_t lo,
                                                          std::uint64_t hi) const {
        if (hi <= lo) return std::nullopt;
        const auto i = sectionAt(lo);
        if (!i) return std::nullopt;
        const LoadedSection& s = sections_[*i];
        const std::uint64_t end = std::min<std::uint64_t>(hi - s.addr, s.size);
        return std::array<std::uint32_t, 3>{s.hunk, std::uint32_t(lo - s.addr), std::uint32_t(end)};
    }

    void readSymbols() {
        if (!symtab_) return;
        Elf_Scn* scn = elf_getscn(f_.elf, symtab_);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh)) fail("unreadable symbol table");
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data) fail(std::string("unreadable symbol table: ") + elf_errmsg(-1));
        const std::size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (std::size_t i = 1; i < n; ++i) {
            GElf_Sym sym;
            if (!gelf_getsym(data, int(i), &sym)) fail("unreadable symbol " + std::to_string(i));
            const int type = GELF_ST_TYPE(sym.st_info);
            if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) continue;
            if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE) continue;
            const char* name = elf_strptr(f_.elf, sh.sh_link, sym.st_name);
            if (!name || !*name || std::strncmp(name, ".L", 2) == 0) continue;
            const auto where = hunkOf(sym.st_value);
            if (!where) continue;
            const LoadedSection& s = section(where->first);
            if (s.index != sym.st_shndx) continue; // a symbol that claims another section
            DebugScope scope;
            scope.name = name;
            scope.kind = s.kind == HunkKind::Code && type != STT_OBJECT ? ScopeKind::Function
                                                                        : ScopeKind::Object;
            scope.source = ScopeSource::ElfSymbol;
            scope.external = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
            // Functions before objects before plain labels, global before local.
            const std::uint8_t rank = std::uint8_t((type == STT_FUNC     ? 0
                                                    : type == STT_OBJECT ? 2
                                                                         : 4) +
                                                   (scope.external ? 0 : 1));
            const std::int32_t id = b_.addScope(std::move(scope));
            if (sym.st_size > 0) {
                const auto r = hunkRange(sym.st_value, std::uint64_t(sym.st_value) + sym.st_size);
                if (r)
                    b_.addTopLevel((*r)[0], (*r)[1], (*r)[2], id, DebugInfo::Builder::SizedSymbol,
                                   rank);
            } else {
                b_.addTopLevel(where->first, where->second, s.size, id,
                               DebugInfo::Builder::UnsizedSymbol, rank);
            }
        }
    }

    // ---- DWARF ----

    void readDwarf() {
        if (!hasDwarfSections_) return;
        f_.dwarf = dwarf_begin_elf(f_.elf, DWARF_C_READ, nullptr);
        if (!f_.dwarf) failDwarf("cannot open it");
        b_.setHasDwarf();
        Dwarf_CU* cu = nullptr;
        std::size_t units = 0;
        for (;;) {
            Dwarf_CU* next = nullptr;
            Dwarf_Half version = 0;
            std::uint8_t unitType = 0;
            Dwarf_Die cudie, subdie;
            const int rc =
                dwarf_get_units(f_.dwarf, cu, &next, &version, &unitType, &cudie, &subdie);
            if (rc > 0) break;
            if (rc < 0) failDwarf("unit header");
            if (++units > 1'000'000) fail("corrupt DWARF: too many units");
            cu = next;
            if (version < 2 || version > 5)
                fail("DWARF version " + std::to_string(version) + " is not supported");
            if (unitType != DW_UT_compile && unitType != DW_UT_partial) continue;
            readUnitLines(cudie);
            cuFiles_ = nullptr;
            cuFileCount_ = 0;
            if (dwarf_hasattr(&cudie, DW_AT_stmt_list) &&
                dwarf_getsrcfiles(&cudie, &cuFiles_, &cuFileCount_) != 0)
                failDwarf("file table");
            walk(&cudie, -1, -1, 0);
        }
    }

    void readUnitLines(Dwarf_Die& cudie) {
        if (!dwarf_hasattr(&cudie, DW_AT_stmt_list)) return;
        Dwarf_Lines* lines = nullptr;
        std::size_t count = 0;
        if (dwarf_getsrclines(&cudie, &lines, &count) != 0) failDwarf("line table");
        // Each row describes the addresses up to the next row of its sequence.
        bool open = false;
        Dwarf_Addr prevAddr = 0;
        std::uint32_t prevFile = 0;
        int prevLine = 0;
        const char* prevPath = nullptr;
        // The stepping table, recorded as gdb records it: within a sequence, a row that
        // repeats the line of the row recorded before it in the same file is dropped once
        // that line has had a nonzero discriminator (a loop's condition and increment then
        // step as one line with its body's start); a row switching file at the same address
        // that is no statement is dropped; line 0 ends the row before it.
        std::uint32_t stepFile = kNoFile;
        int stepLine = 0, lastRowLine = 0;
        bool hadDiscriminator = false;
        Dwarf_Addr stepAddr = 0;
        for (std::size_t i = 0; i < count; ++i) {
            Dwarf_Line* line = dwarf_onesrcline(lines, i);
            bool endSequence = false;
            Dwarf_Addr addr = 0;
            int lineNo = 0;
            if (!line || dwarf_lineendsequence(line, &endSequence) != 0 ||
                dwarf_lineaddr(line, &addr) != 0 || dwarf_lineno(line, &lineNo) != 0)
                failDwarf("line table row");
            if (open && addr > prevAddr) {
                const auto r = hunkRange(prevAddr, addr);
                if (r)
                    b_.addLine((*r)[0], (*r)[1], (*r)[2], prevFile,
                               std::uint32_t(std::max(prevLine, 0)));
            }
            if (endSequence) {
                // The end lies one past the sequence's last byte: in its hunk, perhaps at its end.
                if (addr > 0)
                    if (const auto at = hunkOf(addr - 1))
                        b_.addStepRow(at->first, at->second + 1, kNoFile, 0, true);
                open = false;
                stepFile = kNoFile;
                stepLine = lastRowLine = 0;
                hadDiscriminator = false;
                continue;
            }
            const char* path = dwarf_linesrc(line, nullptr, nullptr);
            if (path != prevPath || !open) prevFile = b_.file(path ? path : "");
            prevPath = path;
            open = true;
            prevAddr = addr;
            prevLine = lineNo;

            bool isStmt = true;
            unsigned int discriminator = 0;
            dwarf_linebeginstatement(line, &isStmt);
            dwarf_linediscriminator(line, &discriminator);
            if (lineNo != lastRowLine)
                hadDiscriminator = discriminator != 0;
            else
                hadDiscriminator = hadDiscriminator || discriminator != 0;
            lastRowLine = lineNo;
            const auto at = hunkOf(addr);
            if (lineNo <= 0) {
                if (at) b_.addStepRow(at->first, at->second, kNoFile, 0, true);
                stepFile = kNoFile;
                stepLine = 0;
                continue;
            }
            const bool fileChanged = stepFile != prevFile;
            if (fileChanged && stepFile != kNoFile && addr == stepAddr && !isStmt) continue;
            if (!fileChanged && lineNo == stepLine && hadDiscriminator) continue;
            if (at) b_.addStepRow(at->first, at->second, prevFile, std::uint32_t(lineNo), isStmt);
            stepFile = prevFile;
            stepLine = lineNo;
            stepAddr = addr;
        }
    }

    const char* dieName(Dwarf_Die* die) {
        Dwarf_Attribute attr;
        for (int at : {DW_AT_name, DW_AT_linkage_name, DW_AT_MIPS_linkage_name})
            if (dwarf_attr_integrate(die, at, &attr))
                if (const char* s = dwarf_formstring(&attr)) return s;
        return nullptr;
    }

    std::uint32_t declFile(Dwarf_Die* die) {
        const char* f = dwarf_decl_file(die);
        return f ? b_.file(f) : kNoFile;
    }

    // The die's address ranges as hunk ranges.
    std::vector<std::array<std::uint32_t, 3>> ranges(Dwarf_Die* die) {
        std::vector<std::array<std::uint32_t, 3>> out;
        Dwarf_Addr base = 0, start = 0, end = 0;
        ptrdiff_t off = 0;
        std::size_t n = 0;
        while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
            if (++n > kMaxRangesPerDie) fail("corrupt DWARF: a scope with too many address ranges");
            if (const auto r = hunkRange(start, end)) out.push_back(*r);
        }
        if (off < 0) failDwarf("address ranges of DIE " + hex(dwarf_dieoffset(die)));
        return out;
    }

    // Where a function or an inlined call is entered: DW_AT_entry_pc (or the low pc) when it
    // lies in one of its ranges (gcc may name an address before the call's first
    // instruction, which gdb ignores), else the lowest of its ranges.
    void setEntry(Dwarf_Die* die, std::int32_t id,
                  const std::vector<std::array<std::uint32_t, 3>>& rs) {
        Dwarf_Addr entry = 0;
        if (dwarf_entrypc(die, &entry) == 0)
            if (const auto at = hunkOf(entry)) {
                const bool inside = std::any_of(rs.begin(), rs.end(), [&](const auto& r) {
                    return r[0] == at->first && r[1] <= at->second && at->second < r[2];
                });
                if (inside || rs.empty()) {
                    b_.setEntry(id, at->first, at->second);
                    return;
                }
            }
        if (rs.empty()) return;
        const auto lowest = *std::min_element(rs.begin(), rs.end());
        b_.setEntry(id, lowest[0], lowest[1]);
    }

    // Visits a DIE's children: subprograms become top-level scopes, inlined subroutines
    // nested scopes of the scope they sit in; blocks pass their parent through.
    void walk(Dwarf_Die* die, std::int32_t parent, std::int32_t root, int depth) {
        if (depth > kMaxDieDepth)
            fail("corrupt DWARF: DIEs nested more than " + std::to_string(kMaxDieDepth) + " deep");
        Dwarf_Die child;
        int rc = dwarf_child(die, &child);
        if (rc < 0) failDwarf("children of DIE " + hex(dwarf_dieoffset(die)));
        Dwarf_Off previous = 0;
        while (rc == 0) {
            if (++dies_ > kMaxDies)
                fail("corrupt DWARF: more than " + std::to_string(kMaxDies) + " DIEs");
            // Siblings only move forward; a sibling link that points back would loop.
            const Dwarf_Off offset = dwarf_dieoffset(&child);
            if (offset <= previous)
                fail("corrupt DWARF: a sibling link at " + hex(offset) + " points backwards");
            previous = offset;
            visit(&child, parent, root, depth);
            rc = dwarf_siblingof(&child, &child);
            if (rc < 0) failDwarf("sibling of DIE " + hex(offset));
        }
    }

    void visit(Dwarf_Die* die, std::int32_t parent, std::int32_t root, int depth) {
        switch (dwarf_tag(die)) {
        case DW_TAG_subprogram: {
            const auto rs = ranges(die);
            if (rs.empty()) return; // a declaration or an abstract instance: no code here
            DebugScope scope;
            const char* name = dieName(die);
            scope.name = name ? name : "";
            scope.kind = ScopeKind::Function;
            scope.source = ScopeSource::Dwarf;
            scope.die = dwarf_dieoffset(die);
            bool external = false;
            Dwarf_Attribute ext;
            scope.external = dwarf_attr_integrate(die, DW_AT_external, &ext) &&
                             dwarf_formflag(&ext, &external) == 0 && external;
            scope.file = declFile(die);
            int line = 0;
            if (scope.file != kNoFile && dwarf_decl_line(die, &line) == 0 && line > 0)
                scope.line = std::uint32_t(line);
            if (scope.name.empty())
                scope.name = "<function at " + section(rs[0][0]).name + "+" + hex(rs[0][1]) + ">";
            const std::int32_t id = b_.addScope(std::move(scope));
            for (const auto& r : rs)
                b_.addTopLevel(r[0], r[1], r[2], id, DebugInfo::Builder::FromDwarf);
            setEntry(die, id, rs);
            walk(die, id, id, depth + 1);
            return;
        }
        case DW_TAG_inlined_subroutine: {
            if (parent < 0) return; // an inlined call outside any function has nowhere to go
            const auto rs = ranges(die);
            DebugScope scope;
            const char* name = dieName(die);
            scope.name = name ? name : "<inlined function>";
            scope.kind = ScopeKind::Inlined;
            scope.source = ScopeSource::Dwarf;
            scope.die = dwarf_dieoffset(die);
            scope.parent = parent;
            scope.file = declFile(die);
            int line = 0;
            if (scope.file != kNoFile && dwarf_decl_line(die, &line) == 0 && line > 0)
                scope.line = std::uint32_t(line);
            Dwarf_Attribute attr;
            Dwarf_Word value = 0;
            if (dwarf_attr(die, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &value) == 0 &&
                cuFiles_) {
                if (const char* f = dwarf_filesrc(cuFiles_, value, nullptr, nullptr))
                    scope.callFile = b_.file(f);
            }
            if (dwarf_attr(die, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &value) == 0)
                scope.callLine = std::uint32_t(std::min<Dwarf_Word>(value, 0xFFFFFFFFu));
            if (dwarf_attr(die, DW_AT_call_column, &attr) && dwarf_formudata(&attr, &value) == 0)
                scope.callColumn = std::uint32_t(std::min<Dwarf_Word>(value, 0xFFFFFFFFu));
            const std::int32_t id = b_.addScope(std::move(scope));
            for (const auto& r : rs)
                b_.addNested(r[0], r[1], r[2], id, std::uint32_t(depth));
            setEntry(die, id, rs);
            walk(die, id, root, depth + 1);
            return;
        }
        case DW_TAG_lexical_block:
        case DW_TAG_namespace:
        case DW_TAG_module:
        case DW_TAG_structure_type:
        case DW_TAG_class_type: walk(die, parent, root, depth + 1); return;
        default: return;
        }
    }

    DebugInfo::Builder& b_;
    const HunkFile* hunks_;
    std::vector<char> bytes_; // libelf reads from this copy
    std::string name_;
    std::string hunkName_;
    ElfHandles f_;
    std::size_t shstrndx_ = 0;
    std::size_t symtab_ = 0;
    bool hasDwarfSections_ = false;
    std::vector<LoadedSection> sections_;      // by address
    std::vector<std::uint32_t> sectionOfHunk_; // hunk -> index into sections_
    Dwarf_Files* cuFiles_ = nullptr;
    std::size_t cuFileCount_ = 0;
    std::size_t dies_ = 0;
};

} // namespace

void readElfDebugInfo(DebugInfo::Builder& builder, const HunkFile* hunks,
                      std::span<const std::uint8_t> elfBytes, const std::string& elfName,
                      const std::string& hunkName) {
    ElfReader(builder, hunks, elfBytes, elfName, hunkName).run();
}

} // namespace copperline
