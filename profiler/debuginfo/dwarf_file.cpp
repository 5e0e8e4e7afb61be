// SPDX-License-Identifier: GPL-3.0-or-later
// The ELF held open for the debugger: handles, the hunk mapping, the units' address ranges
// and unwinding by call-frame information (libdw's CFI interface).

#include "profiler/debuginfo/dwarf_file.h"

#include "emu/hex.h"
#include "emu/media/file_bytes.h"

#include <algorithm>
#include <cstdlib>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

namespace copperline {

namespace {

struct FrameDeleter {
    void operator()(Dwarf_Frame* f) const { std::free(f); }
};

constexpr int kRegisters = 16; // D0-D7, A0-A7

// A CFA or register rule's base register and offset (DW_OP_bregN or DW_OP_bregx).
bool bregOf(const Dwarf_Op* ops, std::size_t n, int& reg, std::int64_t& offset) {
    if (n != 1) return false;
    if (ops[0].atom == DW_OP_bregx) {
        reg = int(ops[0].number);
        offset = std::int64_t(ops[0].number2);
        return true;
    }
    if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
        reg = ops[0].atom - DW_OP_breg0;
        offset = std::int64_t(ops[0].number);
        return true;
    }
    return false;
}

bool readLong(const TargetMemory& memory, std::uint32_t address, std::uint32_t& value) {
    std::uint8_t b[4];
    if (!memory.read(address, b)) return false;
    value = std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 | std::uint32_t(b[2]) << 8 | b[3];
    return true;
}

} // namespace

const char* FrameRegisters::name(int r) {
    static const char* const names[kCount] = {"d0", "d1", "d2", "d3", "d4", "d5", "d6",
                                              "d7", "a0", "a1", "a2", "a3", "a4", "a5",
                                              "a6", "a7", "pc", "sr"};
    return r >= 0 && r < kCount ? names[r] : "?";
}

DwarfFile::DwarfFile(const DebugInfo& info, std::vector<std::uint8_t> bytes, std::string name)
    : bytes_(std::move(bytes)), name_(std::move(name)) {
    for (const DebugHunk& h : info.hunks()) {
        if (!h.linkAddress)
            throw DebugInfoError(name_ + ": the program's debug information was not read from it");
        hunks_.push_back({*h.linkAddress, h.size});
    }
}

DwarfFile::~DwarfFile() {
    if (ehCfi_) dwarf_cfi_end(ehCfi_);
    if (dwarf_) dwarf_end(dwarf_);
    if (elf_) elf_end(elf_);
}

std::shared_ptr<DwarfFile> DwarfFile::open(const DebugInfo& info) {
    if (info.elfPath().empty())
        throw DebugInfoError(info.programPath() +
                             ": no ELF with DWARF beside it; variables and frames need one");
    auto bytes = readFileBytes(info.elfPath(), std::uint64_t(256) << 20);
    return fromBytes(info, std::move(bytes), info.elfPath());
}

std::shared_ptr<DwarfFile> DwarfFile::fromBytes(const DebugInfo& info, std::vector<std::uint8_t> bytes,
                                                const std::string& name) {
    std::shared_ptr<DwarfFile> file(new DwarfFile(info, std::move(bytes), name));
    file->openHandles();
    file->checkSections();
    file->indexUnits();
    return file;
}

void DwarfFile::openHandles() {
    if (elf_version(EV_CURRENT) == EV_NONE) throw DebugInfoError(name_ + ": libelf is too old");
    elf_ = elf_memory(reinterpret_cast<char*>(bytes_.data()), bytes_.size());
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) throw DebugInfoError(name_ + ": not an ELF file");
    GElf_Ehdr eh;
    if (!gelf_getehdr(elf_, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS32 ||
        eh.e_ident[EI_DATA] != ELFDATA2MSB || eh.e_machine != EM_68K)
        throw DebugInfoError(name_ + ": not a 32-bit big-endian m68k ELF");
    // An ELF without DWARF sections has no Dwarf handle; its .eh_frame may still unwind.
    dwarf_ = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
    cfi_ = dwarf_ ? dwarf_getcfi(dwarf_) : nullptr;
    if (!cfi_) cfi_ = ehCfi_ = dwarf_getcfi_elf(elf_);
}

// The file is read again: it must still be the one DebugInfo matched to the hunks.
void DwarfFile::checkSections() {
    std::size_t shstrndx = 0;
    if (elf_getshdrstrndx(elf_, &shstrndx) != 0) throw DebugInfoError(name_ + ": no section names");
    std::vector<bool> found(hunks_.size(), false);
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf_, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) throw DebugInfoError(name_ + ": unreadable section header");
        if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0) continue;
        for (std::size_t h = 0; h < hunks_.size(); ++h)
            if (sh.sh_addr == hunks_[h].link && hunkSizeFitsSection(hunks_[h].size, sh.sh_size))
                found[h] = true;
    }
    for (std::size_t h = 0; h < hunks_.size(); ++h)
        if (!found[h])
            throw DebugInfoError(name_ + ": no section at " + hex(hunks_[h].link) + " for hunk " +
                                 std::to_string(h) + " any more; the ELF was rebuilt since");
}

void DwarfFile::indexUnits() {
    if (!dwarf_) return;
    Dwarf_CU* cu = nullptr;
    for (std::size_t n = 0; n < 1'000'000; ++n) {
        Dwarf_CU* next = nullptr;
        Dwarf_Half version = 0;
        std::uint8_t unitType = 0;
        Dwarf_Die cudie, subdie;
        const int rc = dwarf_get_units(dwarf_, cu, &next, &version, &unitType, &cudie, &subdie);
        if (rc != 0) break;
        cu = next;
        if (unitType != DW_UT_compile && unitType != DW_UT_partial) continue;
        const std::uint64_t offset = dwarf_dieoffset(&cudie);
        unitOffsets_.push_back(offset);
        Dwarf_Addr base = 0, start = 0, end = 0;
        ptrdiff_t off = 0;
        std::size_t ranges = 0;
        while ((off = dwarf_ranges(&cudie, off, &base, &start, &end)) > 0 && ++ranges < 1'000'000)
            if (end > start) unitRanges_.push_back({start, end, offset});
    }
    std::sort(unitRanges_.begin(), unitRanges_.end(),
              [](const UnitRange& a, const UnitRange& b) { return a.lo < b.lo; });
}

std::optional<std::uint32_t> DwarfFile::linkAddress(std::uint32_t hunk, std::uint32_t offset) const {
    if (hunk >= hunks_.size() || offset > hunks_[hunk].size) return std::nullopt;
    return hunks_[hunk].link + offset;
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> DwarfFile::hunkOf(std::uint64_t link) const {
    for (std::uint32_t h = 0; h < hunks_.size(); ++h)
        if (link >= hunks_[h].link && link - hunks_[h].link < hunks_[h].size)
            return std::make_pair(h, std::uint32_t(link - hunks_[h].link));
    return std::nullopt;
}

std::optional<std::uint64_t> DwarfFile::unitAt(std::uint64_t link) const {
    auto it = std::upper_bound(unitRanges_.begin(), unitRanges_.end(), link,
                               [](std::uint64_t a, const UnitRange& r) { return a < r.lo; });
    // Ranges of different units do not overlap in a linked program; look back a little in
    // case one unit's range sits inside another's.
    for (int i = 0; it != unitRanges_.begin() && i < 64; ++i) {
        --it;
        if (link < it->hi) return it->unit;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> DwarfFile::cfa(std::uint32_t hunk, std::uint32_t offset,
                                            const FrameRegisters& regs) const {
    const auto link = linkAddress(hunk, offset);
    if (!link || !cfi_) return std::nullopt;
    Dwarf_Frame* raw = nullptr;
    if (dwarf_cfi_addrframe(cfi_, *link, &raw) != 0) return std::nullopt;
    std::unique_ptr<Dwarf_Frame, FrameDeleter> frame(raw);
    Dwarf_Op* ops = nullptr;
    std::size_t n = 0;
    int reg = 0;
    std::int64_t off = 0;
    if (dwarf_frame_cfa(frame.get(), &ops, &n) != 0 || !bregOf(ops, n, reg, off)) return std::nullopt;
    if (reg < 0 || reg >= kRegisters || !regs.known(reg)) return std::nullopt;
    return std::uint32_t(regs[reg] + std::uint32_t(off));
}

std::optional<DwarfFile::Unwound> DwarfFile::unwind(std::uint32_t hunk, std::uint32_t offset,
                                                    const FrameRegisters& regs,
                                                    const TargetMemory& memory) const {
    const auto link = linkAddress(hunk, offset);
    if (!link || !cfi_) return std::nullopt;
    Dwarf_Frame* raw = nullptr;
    if (dwarf_cfi_addrframe(cfi_, *link, &raw) != 0) return std::nullopt;
    std::unique_ptr<Dwarf_Frame, FrameDeleter> frame(raw);
    Dwarf_Op* ops = nullptr;
    std::size_t n = 0;
    int reg = 0;
    std::int64_t off = 0;
    if (dwarf_frame_cfa(frame.get(), &ops, &n) != 0 || !bregOf(ops, n, reg, off)) return std::nullopt;
    if (reg < 0 || reg >= kRegisters || !regs.known(reg)) return std::nullopt;
    Unwound u;
    u.cfa = std::uint32_t(regs[reg] + std::uint32_t(off));
    const int ra = dwarf_frame_info(frame.get(), nullptr, nullptr, nullptr);

    // Where the caller's value of one register is.
    const auto recover = [&](int r, int target) {
        Dwarf_Op mem[3];
        Dwarf_Op* rops = nullptr;
        std::size_t rn = 0;
        if (dwarf_frame_register(frame.get(), r, mem, &rops, &rn) != 0) return;
        if (rn == 0) {
            // Same value: this frame did not change it. Undefined: not recoverable.
            if (rops == nullptr && r < kRegisters && regs.known(r))
                u.caller.set(target, regs[r], regs.home[std::size_t(r)], regs.slot[std::size_t(r)]);
            return;
        }
        const bool value = rops[rn - 1].atom == DW_OP_stack_value;
        const std::size_t body = value ? rn - 1 : rn;
        std::int64_t at = 0;
        if (body >= 1 && rops[0].atom == DW_OP_call_frame_cfa &&
            (body == 1 || (body == 2 && rops[1].atom == DW_OP_plus_uconst))) {
            at = body == 2 ? std::int64_t(std::int32_t(std::uint32_t(rops[1].number))) : 0;
        } else {
            return; // an expression this unwinder does not evaluate
        }
        const std::uint32_t address = u.cfa + std::uint32_t(at);
        if (value) {
            u.caller.set(target, address, FrameRegisters::Home::Value);
            return;
        }
        std::uint32_t v = 0;
        if (readLong(memory, address, v)) u.caller.set(target, v, FrameRegisters::Home::Memory, address);
    };
    for (int r = 0; r < kRegisters; ++r) recover(r, r);
    // The caller's stack pointer is the CFA, unless a rule says otherwise.
    if (!u.caller.known(15) || u.caller.home[15] == FrameRegisters::Home::Cpu)
        u.caller.set(15, u.cfa, FrameRegisters::Home::Value);
    if (ra >= 0) recover(ra, FrameRegisters::kPc);
    if (!u.caller.known(FrameRegisters::kPc)) return std::nullopt;
    return u;
}

} // namespace copperline
