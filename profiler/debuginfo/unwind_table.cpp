// SPDX-License-Identifier: GPL-3.0-or-later
// The unwind table from DWARF call-frame information (libdw's CFI interface), and its
// six-byte rows read back. docs/formats/unwind-table.md describes the format.

#include "profiler/debuginfo/unwind_table.h"

#include "emu/hex.h"
#include "emu/media/file_bytes.h"

#include <algorithm>
#include <cstdlib>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <memory>
#include <utility>

namespace copperline {

namespace {

constexpr std::int32_t kMaxCfaOffset = 4095; // twelve bits beside the register number

bool fitsInt16(std::int64_t v) {
    return v >= std::numeric_limits<std::int16_t>::min() &&
           v <= std::numeric_limits<std::int16_t>::max();
}

void putWord(std::vector<std::uint8_t>& out, std::uint16_t w) {
    out.push_back(std::uint8_t(w));
    out.push_back(std::uint8_t(w >> 8));
}

std::uint16_t word(std::span<const std::uint8_t> bytes, std::size_t at) {
    return std::uint16_t(bytes[at] | bytes[at + 1] << 8);
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// ---- Reading the call-frame information -------------------------------------------------

struct CfiHandles {
    Elf* elf = nullptr;
    Dwarf* dwarf = nullptr;
    Dwarf_CFI* ehCfi = nullptr; // from dwarf_getcfi_elf: ours to end; .debug_frame's is not
    ~CfiHandles() {
        if (ehCfi) dwarf_cfi_end(ehCfi);
        if (dwarf) dwarf_end(dwarf);
        if (elf) elf_end(elf);
    }
};

struct FrameDeleter {
    void operator()(Dwarf_Frame* f) const { std::free(f); }
};

// Where a register's caller value is, in the terms the table can hold.
struct SavedAt {
    enum Kind { Unchanged, Offset, Elsewhere } kind = Elsewhere;
    std::int64_t offset = 0; // from the CFA, for Offset
};

SavedAt savedAt(Dwarf_Frame* frame, int regno) {
    Dwarf_Op mem[3];
    Dwarf_Op* ops = nullptr;
    std::size_t n = 0;
    if (dwarf_frame_register(frame, regno, mem, &ops, &n) != 0) return {};
    // No operations: same value (ops null) or undefined; either way this frame did not save
    // it anywhere the caller's value could be read from.
    if (n == 0) return {SavedAt::Unchanged, 0};
    // libdw spells "saved at CFA+N" as DW_OP_call_frame_cfa, DW_OP_plus_uconst N (N two's
    // complement); a value rule would end in DW_OP_stack_value and is not a save slot.
    if (ops[0].atom != DW_OP_call_frame_cfa) return {};
    if (n == 1) return {SavedAt::Offset, 0};
    if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
        return {SavedAt::Offset, std::int64_t(ops[1].number)};
    return {};
}

// The row for one frame state, or why the table cannot express it.
bool translate(Dwarf_Frame* frame, int raRegister, UnwindRow& row, std::string& why) {
    Dwarf_Op* ops = nullptr;
    std::size_t n = 0;
    if (dwarf_frame_cfa(frame, &ops, &n) != 0) {
        why = std::string("its CFA rule is unreadable: ") + dwarf_errmsg(-1);
        return false;
    }
    std::int64_t reg = -1, offset = 0;
    if (n == 1 && ops[0].atom == DW_OP_bregx) {
        reg = std::int64_t(ops[0].number);
        offset = std::int64_t(ops[0].number2);
    } else if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
        reg = ops[0].atom - DW_OP_breg0;
        offset = std::int64_t(ops[0].number);
    } else {
        why = n == 0 ? "its CFA is undefined" : "its CFA is a DWARF expression";
        return false;
    }
    if (reg != UnwindRow::kA5 && reg != UnwindRow::kA7) {
        why = "its CFA is based on DWARF register " + std::to_string(reg) +
              ", neither A5 (13) nor A7 (15)";
        return false;
    }
    if (offset < 0 || offset > kMaxCfaOffset) {
        why = "its CFA offset " + std::to_string(offset) + " is outside 0.." +
              std::to_string(kMaxCfaOffset);
        return false;
    }
    row.cfaRegister = std::uint8_t(reg);
    row.cfaOffset = std::int32_t(offset);

    const SavedAt a5 = savedAt(frame, UnwindRow::kA5);
    if (a5.kind == SavedAt::Elsewhere) {
        why = "A5 is kept somewhere other than the stack";
        return false;
    }
    if (a5.kind == SavedAt::Offset && (!fitsInt16(a5.offset) || a5.offset == -1)) {
        why = "A5 is saved at CFA" + std::to_string(a5.offset) + ", beyond a 16-bit offset";
        return false;
    }
    row.a5Offset = a5.kind == SavedAt::Offset ? std::int32_t(a5.offset) : UnwindRow::kNotSaved;

    const SavedAt ra = raRegister < 0 ? SavedAt{} : savedAt(frame, raRegister);
    if (ra.kind != SavedAt::Offset) {
        why = "its return address is not saved at an offset from the CFA";
        return false;
    }
    if (!fitsInt16(ra.offset)) {
        why =
            "its return address is at CFA" + std::to_string(ra.offset) + ", beyond a 16-bit offset";
        return false;
    }
    row.returnOffset = std::int32_t(ra.offset);
    return true;
}

class Builder {
public:
    Builder(const DebugInfo& info, std::span<const std::uint8_t> elfBytes, std::string elfName)
        : info_(info), bytes_(elfBytes.begin(), elfBytes.end()), name_(std::move(elfName)) {}

    UnwindTable run(std::vector<std::string>* warnings, UnwindStats* statsOut) {
        const DebugHunk& text = info_.hunks()[0];
        open(text);
        UnwindTable table;
        table.textSize = text.size;
        table.rows.assign((std::uint64_t(text.size) + 1) / 2, UnwindRow::defaultRow());
        fill(table, *text.linkAddress);
        if (warnings) {
            if (stats_.describedRows == 0)
                warnings->push_back(name_ + ": no call-frame information covers " + text.section +
                                    "; every row is the default");
            if (stats_.unusableRows > 0)
                warnings->push_back(
                    name_ + ": " + plural(stats_.unusableRows, "location has", "locations have") +
                    " call-frame rules the unwind table cannot express and got the default "
                    "row (the first, " +
                    firstUnusable_ + ")");
        }
        if (statsOut) *statsOut = stats_;
        return table;
    }

private:
    [[noreturn]] void fail(const std::string& message) const {
        throw DebugInfoError(name_ + ": " + message);
    }

    void open(const DebugHunk& text) {
        if (elf_version(EV_CURRENT) == EV_NONE) fail("libelf is too old");
        f_.elf = elf_memory(bytes_.data(), bytes_.size());
        if (!f_.elf || elf_kind(f_.elf) != ELF_K_ELF) fail("not an ELF file");
        GElf_Ehdr eh;
        if (!gelf_getehdr(f_.elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS32 ||
            eh.e_ident[EI_DATA] != ELFDATA2MSB || eh.e_machine != EM_68K)
            fail("not a 32-bit big-endian m68k ELF");
        checkText(text);
        // .debug_frame, which gcc writes with -g, else the exception-handling .eh_frame.
        // dwarf_begin_elf fails for an ELF without any DWARF section; .eh_frame may remain.
        f_.dwarf = dwarf_begin_elf(f_.elf, DWARF_C_READ, nullptr);
        cfi_ = f_.dwarf ? dwarf_getcfi(f_.dwarf) : nullptr;
        if (!cfi_) cfi_ = f_.ehCfi = dwarf_getcfi_elf(f_.elf);
        if (!cfi_)
            fail("no call-frame information (.debug_frame or .eh_frame) to build an unwind "
                 "table from; compile with -g");
    }

    // The file is read again, so make sure it is still the one DebugInfo matched to hunk 0.
    void checkText(const DebugHunk& text) {
        std::size_t shstrndx = 0;
        if (elf_getshdrstrndx(f_.elf, &shstrndx) != 0) fail("no section names");
        for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(f_.elf, scn));) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh)) fail("unreadable section header");
            if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_addr != *text.linkAddress || sh.sh_size == 0)
                continue;
            if ((sh.sh_flags & SHF_EXECINSTR) && hunkSizeFitsSection(text.size, sh.sh_size)) return;
        }
        fail("has no code section of " + std::to_string(text.size) + " bytes at " +
             hex(*text.linkAddress) + " (hunk 0 of " + info_.programPath() +
             "); has it been rebuilt since?");
    }

    void fill(UnwindTable& table, std::uint32_t link) {
        // The error code libdw gives an address no FDE covers, told apart from a broken FDE.
        int noMatch = -1;
        Dwarf_Frame* probe = nullptr;
        if (dwarf_cfi_addrframe(cfi_, Dwarf_Addr(1) << 40, &probe) == 0)
            std::free(probe);
        else
            noMatch = dwarf_errno();

        const std::uint32_t size = table.textSize;
        std::uint32_t off = 0;
        while (off < size) {
            const Dwarf_Addr pc = Dwarf_Addr(link) + off;
            Dwarf_Frame* raw = nullptr;
            if (dwarf_cfi_addrframe(cfi_, pc, &raw) != 0) {
                const int err = dwarf_errno();
                if (err == noMatch) {
                    ++stats_.uncoveredRows;
                } else {
                    ++stats_.unusableRows;
                    noteUnusable(pc, off,
                                 std::string("its FDE is unreadable: ") + dwarf_errmsg(err));
                }
                off += 2;
                continue;
            }
            std::unique_ptr<Dwarf_Frame, FrameDeleter> frame(raw);
            Dwarf_Addr start = 0, end = 0;
            bool signal = false;
            const int raRegister = dwarf_frame_info(frame.get(), &start, &end, &signal);
            // The state holds until `end`; a range that does not move forward covers this
            // location alone.
            std::uint64_t stop = end > pc ? std::min<std::uint64_t>(end - link, size) : off + 2;
            stop = std::max<std::uint64_t>(stop, off + 2);
            UnwindRow row;
            std::string why;
            const bool ok = translate(frame.get(), raRegister, row, why);
            if (!ok) noteUnusable(pc, off, why);
            for (std::uint64_t o = off; o < stop && o < size; o += 2) {
                table.rows[o >> 1] = ok ? row : UnwindRow::defaultRow();
                ++(ok ? stats_.describedRows : stats_.unusableRows);
            }
            off = std::uint32_t(std::min<std::uint64_t>((stop + 1) & ~1ull, size));
        }
    }

    void noteUnusable(Dwarf_Addr pc, std::uint32_t off, const std::string& why) {
        if (firstUnusable_.empty())
            firstUnusable_ = hex(std::uint32_t(pc)) + " (" + info_.hunks()[0].section + "+" +
                             hex(off) + "): " + why;
    }

    const DebugInfo& info_;
    std::vector<char> bytes_; // libelf reads from this copy
    std::string name_;
    CfiHandles f_;
    Dwarf_CFI* cfi_ = nullptr;
    UnwindStats stats_;
    std::string firstUnusable_;
};

void checkProgram(const DebugInfo& info) {
    if (info.hunks().empty())
        throw DebugInfoError(info.programPath() + ": the program has no hunks");
    if (info.hunks()[0].kind != HunkKind::Code)
        throw DebugInfoError(info.programPath() +
                             ": hunk 0 is not code, and the unwind table describes hunk 0");
    if (info.elfPath().empty() || !info.hunks()[0].linkAddress)
        throw DebugInfoError(info.programPath() +
                             ": no ELF debug sibling was read; the unwind table is built from "
                             "its DWARF call-frame information (give --elf FILE or put PROG.elf "
                             "beside the program)");
}

} // namespace

// ---- Rows --------------------------------------------------------------------------------

bool UnwindRow::encodable() const {
    return (cfaRegister == kA5 || cfaRegister == kA7) && cfaOffset >= 0 &&
           cfaOffset <= kMaxCfaOffset &&
           (a5Offset == kNotSaved || (fitsInt16(a5Offset) && a5Offset != -1)) &&
           fitsInt16(returnOffset);
}

std::vector<std::uint8_t> UnwindTable::bytes() const {
    const std::uint64_t expected = (std::uint64_t(textSize) + 1) / 2;
    if (rows.size() != expected)
        throw DebugInfoError("unwind table: " + plural(rows.size(), "row", "rows") + " for " +
                             std::to_string(textSize) + " bytes of text, which need " +
                             std::to_string(expected));
    std::vector<std::uint8_t> out;
    out.reserve(rows.size() * kRowBytes);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const UnwindRow& r = rows[i];
        if (!r.encodable())
            throw DebugInfoError("unwind table: the row for text offset " +
                                 hex(std::uint32_t(2 * i)) + " cannot be written in six bytes");
        putWord(out, std::uint16_t(r.cfaRegister << 12 | r.cfaOffset));
        putWord(out, std::uint16_t(r.a5Offset == UnwindRow::kNotSaved ? -1 : r.a5Offset));
        putWord(out, std::uint16_t(r.returnOffset));
    }
    return out;
}

UnwindTable parseUnwindTable(std::span<const std::uint8_t> bytes, std::uint32_t textSize) {
    constexpr std::size_t kRow = UnwindTable::kRowBytes;
    std::uint64_t rows = bytes.size() / kRow;
    if (textSize == 0) {
        if (bytes.empty() || bytes.size() % kRow != 0)
            throw DebugInfoError("unwind table: " + std::to_string(bytes.size()) +
                                 " bytes is not a whole, non-zero number of six-byte rows");
        if (rows * 2 > 0xFFFFFFFFull)
            throw DebugInfoError("unwind table: " + std::to_string(rows) +
                                 " rows describe more text than a 68000 addresses");
        textSize = std::uint32_t(rows * 2);
    }
    const std::uint64_t half = (std::uint64_t(textSize) + 1) / 2;
    if (bytes.size() != half * kRow && bytes.size() != std::uint64_t(textSize) * kRow)
        throw DebugInfoError("unwind table: " + std::to_string(bytes.size()) +
                             " bytes do not fit " + std::to_string(textSize) +
                             " bytes of text, which take " + std::to_string(half * kRow) +
                             " bytes (a row per two bytes) or " +
                             std::to_string(std::uint64_t(textSize) * kRow) + " (a row per byte)");
    UnwindTable table;
    table.textSize = textSize;
    table.rows.reserve(half);
    for (std::uint64_t i = 0; i < rows; ++i) {
        const std::size_t at = std::size_t(i * kRow);
        const std::uint16_t cfa = word(bytes, at);
        UnwindRow r;
        r.cfaRegister = std::uint8_t(cfa >> 12);
        r.cfaOffset = cfa & 0xFFF;
        const auto a5 = std::int16_t(word(bytes, at + 2));
        r.a5Offset = a5 == -1 ? UnwindRow::kNotSaved : a5;
        r.returnOffset = std::int16_t(word(bytes, at + 4));
        // Every row is checked, the unused half of a row-per-byte table too: a register
        // that is neither A5 nor A7 means this is not an unwind table.
        if (r.cfaRegister != UnwindRow::kA5 && r.cfaRegister != UnwindRow::kA7)
            throw DebugInfoError("unwind table: row " + std::to_string(i) + " (text offset " +
                                 hex(std::uint32_t(2 * i)) + ") has CFA register " +
                                 std::to_string(r.cfaRegister) + ", neither A5 (13) nor A7 (15)");
        if (i < half) table.rows.push_back(r);
    }
    return table;
}

// ---- Building ------------------------------------------------------------------------------

UnwindTable buildUnwindTable(const DebugInfo& info, std::span<const std::uint8_t> elfBytes,
                             std::vector<std::string>* warnings, UnwindStats* stats) {
    checkProgram(info);
    if (elfBytes.empty()) throw DebugInfoError(info.elfPath() + ": empty file, not an ELF");
    return Builder(info, elfBytes, info.elfPath()).run(warnings, stats);
}

UnwindTable buildUnwindTable(const DebugInfo& info, std::vector<std::string>* warnings,
                             UnwindStats* stats) {
    checkProgram(info);
    const auto bytes = readFileBytes(info.elfPath(), std::uint64_t(256) << 20);
    return buildUnwindTable(info, bytes, warnings, stats);
}

} // namespace copperline
