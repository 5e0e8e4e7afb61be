// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/elf2hunk/elf_to_hunk.h"
#include "emu/hex.h"

#include "emu/media/byte_reader.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

namespace copperline {

namespace {

struct ElfFile {
    int fd = -1;
    Elf* elf = nullptr;
    Dwarf* dwarf = nullptr;
    ~ElfFile() {
        if (dwarf) dwarf_end(dwarf);
        if (elf) elf_end(elf);
        if (fd >= 0) close(fd);
    }
};

struct Section {
    std::size_t index = 0;  // ELF section index
    std::string name;
    std::uint32_t addr = 0;
    std::uint32_t size = 0;
    HunkKind kind = HunkKind::Code;
};

class Converter {
public:
    Converter(const std::string& path, const ElfToHunkOptions& options) : path_(path), options_(options) {}

    ElfToHunkResult run() {
        open();
        collectSections();
        ElfToHunkResult out;
        out.hunks.sections.resize(sections_.size());
        for (std::size_t h = 0; h < sections_.size(); ++h) {
            out.sectionNames.push_back(sections_[h].name);
            out.sectionAddresses.push_back(sections_[h].addr);
            loadContents(h, out.hunks.sections[h]);
        }
        applyRelocations(out.hunks);
        collectSymbols(out.hunks);
        if (!options_.bartmanLayout) collectLines(out.hunks); // his elf2hunk writes no LINE blocks
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& message) const { throw MediaError(path_ + ": " + message); }

    void open() {
        if (elf_version(EV_CURRENT) == EV_NONE) fail("libelf is too old");
        f_.fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (f_.fd < 0) fail(std::string("cannot open: ") + std::strerror(errno));
        f_.elf = elf_begin(f_.fd, ELF_C_READ, nullptr);
        if (!f_.elf || elf_kind(f_.elf) != ELF_K_ELF) fail("not an ELF file");
        GElf_Ehdr eh;
        if (!gelf_getehdr(f_.elf, &eh)) fail(std::string("unreadable ELF header: ") + elf_errmsg(-1));
        if (eh.e_ident[EI_CLASS] != ELFCLASS32 || eh.e_ident[EI_DATA] != ELFDATA2MSB || eh.e_machine != EM_68K)
            fail("not a 32-bit big-endian m68k ELF");
        if (eh.e_type != ET_EXEC)
            fail("not a linked executable (ELF type " + std::to_string(eh.e_type) + "); link it first");
        if (elf_getshdrstrndx(f_.elf, &shstrndx_) != 0) fail(std::string("no section names: ") + elf_errmsg(-1));
    }

    std::string sectionName(const GElf_Shdr& sh) const {
        const char* n = elf_strptr(f_.elf, shstrndx_, sh.sh_name);
        return n ? n : "";
    }

    void collectSections() {
        bool anyRela = false;
        for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(f_.elf, scn));) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh)) fail(std::string("unreadable section header: ") + elf_errmsg(-1));
            if (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) anyRela = true;
            if (sh.sh_type == SHT_SYMTAB) symtab_ = elf_ndxscn(scn);
            if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0) continue;
            if (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_NOBITS) continue;
            if (sh.sh_addr + sh.sh_size > 0x100000000ull) fail("section " + sectionName(sh) + " lies beyond 4 GiB");
            Section s;
            s.index = elf_ndxscn(scn);
            s.name = sectionName(sh);
            s.addr = std::uint32_t(sh.sh_addr);
            s.size = std::uint32_t(sh.sh_size);
            s.kind = sh.sh_type == SHT_NOBITS ? HunkKind::Bss
                     : (sh.sh_flags & SHF_EXECINSTR) ? HunkKind::Code
                                                      : HunkKind::Data;
            if (s.size > kMaxHunkBytes) fail("section " + s.name + " is larger than a 68000 can address");
            sections_.push_back(s);
        }
        if (sections_.empty()) fail("no loadable sections");
        if (!anyRela) fail("no relocation sections: link with --emit-relocs (-q) so the hunks can be relocated");
        std::sort(sections_.begin(), sections_.end(), [](const Section& a, const Section& b) { return a.addr < b.addr; });
        for (std::size_t h = 0; h < sections_.size(); ++h) hunkOf_[sections_[h].index] = h;
    }

    void loadContents(std::size_t h, HunkSection& out) {
        const Section& s = sections_[h];
        out.kind = s.kind;
        // Bartman's elf2hunk gives every hunk (size + 4) / 4 longwords: one more than needed
        // when the section fills whole longwords.
        out.allocSize = options_.bartmanLayout ? (s.size + 4) & ~3u : (s.size + 3) & ~3u;
        if (s.kind == HunkKind::Bss) return;
        Elf_Scn* scn = elf_getscn(f_.elf, s.index);
        out.data.reserve(out.allocSize);
        for (Elf_Data* d = nullptr; (d = elf_getdata(scn, d));) {
            if (!d->d_buf && d->d_size) fail("section " + s.name + " has no data");
            const auto* p = static_cast<const std::uint8_t*>(d->d_buf);
            out.data.insert(out.data.end(), p, p + d->d_size);
        }
        if (out.data.size() != s.size) fail("section " + s.name + " is truncated in the file");
        out.data.resize(out.allocSize, 0);
    }

    struct Sym {
        std::string name;
        std::uint32_t value = 0;
        std::size_t shndx = 0;
        bool weak = false;
    };

    Sym symbol(Elf_Data* symData, Elf_Data* shndxData, std::size_t strtab, std::size_t i) {
        GElf_Sym sym;
        Elf32_Word xndx = 0;
        if (!gelf_getsymshndx(symData, shndxData, int(i), &sym, &xndx))
            fail("relocation refers to symbol " + std::to_string(i) + ", which does not exist");
        Sym out;
        const char* n = elf_strptr(f_.elf, strtab, sym.st_name);
        out.name = n ? n : "";
        if (GELF_ST_TYPE(sym.st_info) == STT_SECTION) {
            GElf_Shdr sh;
            Elf_Scn* scn = elf_getscn(f_.elf, sym.st_shndx);
            if (scn && gelf_getshdr(scn, &sh)) out.name = sectionName(sh);
        }
        out.value = std::uint32_t(sym.st_value);
        out.shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
        out.weak = GELF_ST_BIND(sym.st_info) == STB_WEAK;
        return out;
    }

    void applyRelocations(HunkFile& hunks) {
        for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(f_.elf, scn));) {
            GElf_Shdr sh;
            gelf_getshdr(scn, &sh);
            if (sh.sh_type == SHT_REL) fail("REL relocations are not used on m68k; expected RELA");
            if (sh.sh_type != SHT_RELA) continue;
            auto target = hunkOf_.find(sh.sh_info);
            if (target == hunkOf_.end()) continue;  // relocations of debug sections
            const std::size_t h = target->second;
            const Section& from = sections_[h];
            if (from.kind == HunkKind::Bss) fail("relocations inside BSS section " + from.name);

            Elf_Scn* symScn = elf_getscn(f_.elf, sh.sh_link);
            GElf_Shdr symSh;
            if (!symScn || !gelf_getshdr(symScn, &symSh) || symSh.sh_type != SHT_SYMTAB)
                fail("relocation section " + sectionName(sh) + " has no symbol table");
            Elf_Data* symData = elf_getdata(symScn, nullptr);
            Elf_Data* shndxData = nullptr;
            for (Elf_Scn* x = nullptr; (x = elf_nextscn(f_.elf, x));) {
                GElf_Shdr xs;
                if (gelf_getshdr(x, &xs) && xs.sh_type == SHT_SYMTAB_SHNDX && xs.sh_link == sh.sh_link)
                    shndxData = elf_getdata(x, nullptr);
            }
            Elf_Data* relData = elf_getdata(scn, nullptr);
            const std::size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
            for (std::size_t i = 0; i < n; ++i) {
                GElf_Rela rela;
                if (!gelf_getrela(relData, int(i), &rela)) fail("unreadable relocation in " + sectionName(sh));
                const unsigned type = GELF_R_TYPE(rela.r_info);
                if (type == R_68K_NONE) continue;
                const Sym sym = symbol(symData, shndxData, symSh.sh_link, GELF_R_SYM(rela.r_info));
                const std::uint64_t offset = rela.r_offset - from.addr;
                const std::string where = from.name + "+" + hex(offset);
                if (rela.r_offset < from.addr || offset + 1 > from.size)
                    fail("relocation at " + hex(rela.r_offset) + " lies outside " + from.name);
                const bool absolute = sym.shndx == SHN_ABS || (sym.shndx == SHN_UNDEF && sym.weak);
                if (sym.shndx == SHN_UNDEF && !sym.weak) fail("undefined symbol '" + sym.name + "' referenced at " + where);
                auto symHunk = hunkOf_.find(sym.shndx);
                if (!absolute && symHunk == hunkOf_.end())
                    fail("reference at " + where + " to '" + sym.name + "', which is in no loaded section");
                switch (type) {
                case R_68K_32: {
                    if (offset + 4 > from.size) fail("32-bit relocation at " + where + " runs past the section");
                    if (absolute) break;
                    auto& data = hunks.sections[h].data;
                    const std::uint32_t linked = std::uint32_t(data[offset]) << 24 | std::uint32_t(data[offset + 1]) << 16 |
                                                 std::uint32_t(data[offset + 2]) << 8 | data[offset + 3];
                    const std::uint32_t value = sym.value + std::uint32_t(rela.r_addend);
                    if (linked != value)
                        fail("relocation at " + where + " does not match the linked contents (" + hex(linked) +
                             " vs " + hex(value) + "); was the ELF changed after linking?");
                    const std::size_t th = symHunk->second;
                    const std::uint32_t rel = value - sections_[th].addr;
                    data[offset] = std::uint8_t(rel >> 24);
                    data[offset + 1] = std::uint8_t(rel >> 16);
                    data[offset + 2] = std::uint8_t(rel >> 8);
                    data[offset + 3] = std::uint8_t(rel);
                    hunks.sections[h].relocs.push_back({std::uint32_t(offset), std::uint32_t(th)});
                    break;
                }
                case R_68K_16:
                case R_68K_8:
                    if (!absolute)
                        fail("a " + std::string(type == R_68K_16 ? "16" : "8") + "-bit absolute reference at " + where +
                             " to '" + sym.name + "' cannot be relocated in a hunk executable");
                    break;
                case R_68K_PC32:
                case R_68K_PC16:
                case R_68K_PC8:
                    if (absolute || symHunk->second != h)
                        fail("PC-relative reference at " + where + " to '" + sym.name + "' in " +
                             (absolute ? std::string("an absolute symbol") : sections_[symHunk->second].name) +
                             " crosses hunks, which load independently");
                    break;
                default:
                    fail("relocation type " + std::to_string(type) + " at " + where + " is not supported");
                }
            }
        }
        for (auto& s : hunks.sections)
            std::sort(s.relocs.begin(), s.relocs.end(), [](const HunkReloc& a, const HunkReloc& b) {
                return a.target != b.target ? a.target < b.target : a.offset < b.offset;
            });
    }

    void collectSymbols(HunkFile& hunks) {
        if (!symtab_) return;
        Elf_Scn* scn = elf_getscn(f_.elf, symtab_);
        GElf_Shdr sh;
        gelf_getshdr(scn, &sh);
        Elf_Data* data = elf_getdata(scn, nullptr);
        const std::size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (std::size_t i = 1; i < n; ++i) {
            GElf_Sym sym;
            if (!gelf_getsym(data, int(i), &sym)) fail("unreadable symbol " + std::to_string(i));
            const int type = GELF_ST_TYPE(sym.st_info);
            if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) continue;
            auto h = hunkOf_.find(sym.st_shndx);
            if (h == hunkOf_.end()) continue;
            const char* name = elf_strptr(f_.elf, sh.sh_link, sym.st_name);
            if (!name || !*name || std::strncmp(name, ".L", 2) == 0) continue;
            const Section& s = sections_[h->second];
            if (sym.st_value < s.addr || sym.st_value > std::uint64_t(s.addr) + s.size)
                fail("symbol '" + std::string(name) + "' lies outside its section " + s.name);
            std::string hunkName = name;
            if (options_.bartmanLayout) { // "%s@%x": the name and its ELF size
                char size[16];
                std::snprintf(size, sizeof size, "@%x", unsigned(sym.st_size));
                hunkName += size;
            }
            hunks.sections[h->second].symbols.push_back({hunkName, std::uint32_t(sym.st_value - s.addr)});
        }
        for (auto& s : hunks.sections)
            std::stable_sort(s.symbols.begin(), s.symbols.end(), [](const HunkSymbol& a, const HunkSymbol& b) {
                return a.offset != b.offset ? a.offset < b.offset : a.name < b.name;
            });
    }

    std::optional<std::size_t> hunkAt(std::uint64_t addr) const {
        for (std::size_t h = 0; h < sections_.size(); ++h)
            if (addr >= sections_[h].addr && addr < std::uint64_t(sections_[h].addr) + sections_[h].size) return h;
        return std::nullopt;
    }

    void collectLines(HunkFile& hunks) {
        bool haveDebugInfo = false;
        for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(f_.elf, scn));) {
            GElf_Shdr sh;
            if (gelf_getshdr(scn, &sh) && sectionName(sh) == ".debug_line") haveDebugInfo = true;
        }
        if (!haveDebugInfo) return;
        f_.dwarf = dwarf_begin_elf(f_.elf, DWARF_C_READ, nullptr);
        if (!f_.dwarf) fail(std::string("unreadable DWARF: ") + dwarf_errmsg(-1));

        // (hunk, file) -> block index, so each file gets one LINE block per hunk.
        std::map<std::pair<std::size_t, std::string>, std::size_t> blockOf;
        Dwarf_Off off = 0, next = 0;
        std::size_t headerSize = 0;
        for (;;) {
            const int rc = dwarf_next_unit(f_.dwarf, off, &next, &headerSize, nullptr, nullptr, nullptr,
                                           nullptr, nullptr, nullptr);
            if (rc > 0) break;
            if (rc < 0) fail(std::string("corrupt DWARF unit header: ") + dwarf_errmsg(-1));
            Dwarf_Die cu;
            if (!dwarf_offdie(f_.dwarf, off + headerSize, &cu)) fail(std::string("corrupt DWARF unit: ") + dwarf_errmsg(-1));
            off = next;
            Dwarf_Lines* lines = nullptr;
            std::size_t count = 0;
            if (!dwarf_hasattr(&cu, DW_AT_stmt_list)) continue;  // a unit without lines
            if (dwarf_getsrclines(&cu, &lines, &count) != 0)
                fail(std::string("corrupt DWARF line table: ") + dwarf_errmsg(-1));
            for (std::size_t i = 0; i < count; ++i) {
                Dwarf_Line* line = dwarf_onesrcline(lines, i);
                bool endSequence = false;
                Dwarf_Addr addr = 0;
                int lineNo = 0;
                if (!line || dwarf_lineendsequence(line, &endSequence) != 0 || dwarf_lineaddr(line, &addr) != 0 ||
                    dwarf_lineno(line, &lineNo) != 0)
                    fail(std::string("corrupt DWARF line row: ") + dwarf_errmsg(-1));
                if (endSequence) continue;
                const char* file = dwarf_linesrc(line, nullptr, nullptr);
                auto h = hunkAt(addr);
                if (!h) continue;  // code that was not loaded (discarded sections)
                auto key = std::make_pair(*h, std::string(file ? file : "?"));
                auto it = blockOf.find(key);
                auto& blocks = hunks.sections[*h].lineBlocks;
                if (it == blockOf.end()) {
                    it = blockOf.emplace(key, blocks.size()).first;
                    blocks.push_back({key.second, {}});
                }
                auto& rows = blocks[it->second].lines;
                const HunkLine row{std::uint32_t(lineNo), std::uint32_t(addr - sections_[*h].addr)};
                if (rows.empty() || !(rows.back() == row)) rows.push_back(row);
            }
        }
    }

    std::string path_;
    ElfToHunkOptions options_;
    ElfFile f_;
    std::size_t shstrndx_ = 0;
    std::size_t symtab_ = 0;
    std::vector<Section> sections_;
    std::map<std::size_t, std::size_t> hunkOf_;  // ELF section index -> hunk
};

} // namespace

ElfToHunkResult convertElfToHunk(const std::string& elfPath, const ElfToHunkOptions& options) {
    return Converter(elfPath, options).run();
}

} // namespace copperline
