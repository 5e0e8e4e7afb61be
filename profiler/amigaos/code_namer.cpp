// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/amigaos/code_namer.h"

#include "emu/cpu/disasm/disasm.h"
#include "profiler/amigaos/lvo_names.h"
#include "emu/uaelib.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace copperline {

namespace {

// exec/execbase.h: struct IntVector IntVects[16] at offset 84, 12 bytes each (iv_Data,
// iv_Code, iv_Node); exec/interrupts.h: struct Interrupt is a Node (ln_Succ 0, ln_Name 10)
// with is_Data at 14 and is_Code at 18.
constexpr std::uint32_t kIntVects = 84, kIntVectorBytes = 12;
constexpr std::uint32_t kIsCode = 18;
constexpr unsigned kMaxServers = 64;
// The interrupt bits exec serves with a chain of servers (iv_Data is their List); the
// others have one handler (iv_Node its Interrupt).
constexpr bool serverChain(unsigned bit) { return bit == 3 || bit == 4 || bit == 5 || bit == 13 || bit == 15; }
constexpr const char* kIntBitNames[16] = {"TBE",  "DSKBLK", "SOFTINT", "PORTS", "COPER", "VERTB", "BLIT",  "AUD0",
                                          "AUD1", "AUD2",   "AUD3",    "RBF",   "DSKSYNC", "EXTER", "INTEN", "NMI"};

void readInterrupts(const MemoryView& memory, std::uint32_t exec, bool atEnd, std::vector<CodeModule>& out) {
    struct User {
        std::uint32_t node, code;
        unsigned bit;
        std::string name;
    };
    std::vector<User> users;
    const auto add = [&](std::uint32_t node, std::uint32_t code, unsigned bit) {
        code &= 0xFFFFFF;
        if (!code || (code & 1) || !memory.backed(code, 2)) return;
        users.push_back({node, code, bit, node ? readTaskName(memory, node) : std::string()}); // any Node's ln_Name
    };
    for (unsigned bit = 0; bit < 16; ++bit) {
        const std::uint32_t v = exec + kIntVects + bit * kIntVectorBytes;
        const auto data = memory.longword(v), code = memory.longword(v + 4), node = memory.longword(v + 8);
        if (!data || !code || !node) return;
        if (!serverChain(bit)) {
            if (*node && memory.inRam(*node & 0xFFFFFF, kIsCode + 4)) add(*node & 0xFFFFFF, *code, bit);
            continue;
        }
        // The chain: a List whose nodes are Interrupts, each with its server's code.
        const std::uint32_t list = *data & 0xFFFFFF;
        if (!list || !memory.inRam(list, 12)) continue;
        std::uint32_t n = memory.longword(list).value_or(0) & 0xFFFFFF;
        std::set<std::uint32_t> visited;
        for (unsigned i = 0; i < kMaxServers && n && !(n & 1) && memory.inRam(n, kIsCode + 4); ++i) {
            const std::uint32_t next = memory.longword(n).value_or(0) & 0xFFFFFF;
            if (!next) break; // the list's tail node
            if (!visited.insert(n).second) break;
            add(n, memory.longword(n + kIsCode).value_or(0), bit);
            n = next;
        }
    }
    // Code that several vectors or servers share (AROS points most unused vectors at one
    // dispatcher in exec) is named only when they all give it one name; otherwise it is left
    // to its module.
    std::set<std::uint32_t> done;
    for (const User& u : users) {
        if (!done.insert(u.code).second) continue;
        std::string name = u.name.empty() ? std::string(kIntBitNames[u.bit]) + " interrupt" : u.name;
        bool shared = false;
        for (const User& other : users)
            if (other.code == u.code && &other != &u &&
                (other.name.empty() ? std::string(kIntBitNames[other.bit]) + " interrupt" : other.name) != name)
                shared = true;
        if (shared) continue;
        CodeModule m;
        m.kind = CodeModuleKind::Interrupt;
        m.base = u.node;
        m.name = std::move(name);
        m.start = u.code;
        m.end = measureFunctionEnd(memory, u.code);
        m.atEnd = atEnd;
        out.push_back(std::move(m));
    }
}

} // namespace

bool inRomSpace(std::uint32_t a) {
    return (a >= 0xF80000 && a <= 0xFFFFFF) || (a >= 0xE00000 && a < 0xE80000);
}

std::uint32_t measureFunctionEnd(const MemoryView& memory, std::uint32_t entry) {
    const auto read = [&](std::uint32_t a) -> std::uint16_t { return memory.word(a).value_or(0x4AFC); };
    std::uint32_t pc = entry, reach = entry;
    while (pc - entry < 4096 && memory.backed(pc, 2)) {
        const DisasmResult d = disassemble(pc, read);
        if (!d.valid) break;
        const std::uint32_t next = pc + std::max<std::uint32_t>(d.length, 2);
        if ((d.flow == Flow::Branch || d.flow == Flow::Jump) && d.hasTarget && d.target > pc &&
            d.target - entry < 4096)
            reach = std::max(reach, d.target);
        pc = next;
        if ((d.flow == Flow::Return || d.flow == Flow::Jump || d.flow == Flow::Trap || d.flow == Flow::Stop) &&
            pc > reach)
            return pc;
    }
    return pc > entry ? pc : entry + 2;
}

namespace {

// The libraries, devices and resident modules of a snapshot. With `memory`, each function's
// end is measured; without, only its first instruction is known.
void snapshotModules(const AmigaOsSnapshot& os, const MemoryView* memory, bool atEnd, std::vector<CodeModule>& out) {
    for (const auto& [list, kind] : {std::pair{&os.libraries, CodeModuleKind::Library},
                                     std::pair{&os.devices, CodeModuleKind::Device}})
        for (const AmigaOsLibrary& l : *list)
            if (CodeModule m = libraryModule(l, kind, memory, atEnd); !m.lvos.empty()) out.push_back(std::move(m));
    for (const AmigaOsResident& r : os.residents) {
        if (!r.endSkip || r.endSkip <= r.address) continue;
        CodeModule m;
        m.kind = CodeModuleKind::Resident;
        m.base = r.address;
        m.name = r.name;
        m.start = r.address;
        m.end = r.endSkip;
        m.atEnd = atEnd;
        out.push_back(std::move(m));
    }
}

} // namespace

CodeModule libraryModule(const AmigaOsLibrary& l, CodeModuleKind kind, const MemoryView* memory, bool atEnd) {
    CodeModule m;
    m.kind = kind;
    m.base = l.base;
    m.name = l.name;
    m.atEnd = atEnd;
    std::uint32_t lo = 0xFFFFFFFF, hi = 0;
    for (const AmigaOsLvo& v : l.lvos) {
        // A target at an odd address is no code (the 68000 would take an address error).
        if (!v.target || (*v.target & 1)) continue;
        const std::uint32_t target = *v.target & 0xFFFFFF;
        m.lvos.emplace_back(v.lvo, target);
        m.lvoEnds.push_back(memory ? measureFunctionEnd(*memory, target) : target + 2);
        lo = std::min(lo, target);
        hi = std::max(hi, m.lvoEnds.back());
    }
    // The hull of the jump table's functions.
    if (!m.lvos.empty()) {
        m.start = lo;
        m.end = hi;
    }
    return m;
}

std::vector<CodeModule> readCodeModules(const MemoryView& memory, bool atEnd) {
    std::vector<CodeModule> out;
    const AmigaOsSnapshot os = readAmigaOs(memory);
    snapshotModules(os, &memory, atEnd, out);
    // A resource with a library's header may have a jump table too (AROS's kernel.resource).
    // A resource need not be a library at all (its negative size may be anything), so only
    // an unbroken run of JMP abs.l slots in RAM from -6 down, each to an even address, is
    // taken for one.
    for (AmigaOsLibrary l : os.resources) {
        for (std::uint32_t off = 6; off <= l.negSize && off <= 6u * 1024 && off <= l.base; off += 6) {
            if (!memory.inRam(l.base - off, 6)) break;
            const auto opcode = memory.word(l.base - off);
            const auto target = memory.longword(l.base - off + 2);
            if (!opcode || !target || *opcode != 0x4EF9 || (*target & 1) || !memory.backed(*target & 0xFFFFFF, 2))
                break;
            AmigaOsLvo v;
            v.lvo = -int(off);
            v.opcode = *opcode;
            v.target = *target & 0xFFFFFF;
            l.lvos.push_back(v);
        }
        if (CodeModule m = libraryModule(l, CodeModuleKind::Resource, &memory, atEnd); !m.lvos.empty())
            out.push_back(std::move(m));
    }
    if (os.exec) readInterrupts(memory, os.exec->base, atEnd, out);
    // The programs CLI processes have loaded, a module per hunk, named by the command.
    for (const AmigaOsProgram& p : readCliPrograms(memory, os)) {
        std::string name = p.command.empty() ? p.taskName : p.command;
        if (const auto cut = name.find_last_of(":/"); cut != std::string::npos && cut + 1 < name.size())
            name = name.substr(cut + 1);
        for (const AmigaOsSegment& seg : p.segments) {
            if (!seg.size) continue;
            CodeModule m;
            m.kind = CodeModuleKind::Program;
            m.base = p.segList;
            m.name = name;
            m.start = seg.base;
            m.end = seg.base + seg.size;
            m.atEnd = atEnd;
            out.push_back(std::move(m));
        }
    }
    return out;
}

std::vector<CodeModule> codeModulesFromSnapshot(const AmigaOsSnapshot& os) {
    std::vector<CodeModule> out;
    snapshotModules(os, nullptr, false, out);
    return out;
}

std::string CodeName::label() const {
    if (where == Where::Unknown) return "[External]";
    if (where == Where::Host) return module;
    const std::string prefix = where == Where::Rom ? "[Kick]" : "[Lib]";
    if (!library.empty() && lvo)
        return prefix + std::string(shortLibraryName(library)) + "/" + std::string(lvoName(library, lvo));
    if (interrupt) return prefix + function;
    if (program) return "[Prog]" + module;
    if (module == "[Kickstart]") return module;
    return prefix + module;
}

CodeNamer::CodeNamer(std::vector<CodeModule> modules) : modules_(std::move(modules)) {
    std::set<std::tuple<std::string, std::uint32_t, std::uint32_t>> seen;
    for (int pass = 0; pass < 2; ++pass)
        for (const CodeModule& m : modules_) {
            if (m.atEnd != (pass == 0)) continue;
            // A program's hunks share its name and seglist: its start tells them apart.
            if (!seen.insert({m.name, m.base, m.kind == CodeModuleKind::Program ? m.start : 0}).second) continue;
            if (m.kind == CodeModuleKind::Interrupt) {
                if (inRomSpace(m.start)) romFunctions_.push_back({m.start, m.end, 0, &m});
                else ram_.push_back(&m);
                continue;
            }
            if (m.kind == CodeModuleKind::Program) {
                if (!inRomSpace(m.start)) ram_.push_back(&m);
                continue;
            }
            if (m.kind == CodeModuleKind::Resident) {
                if (inRomSpace(m.start)) romResidents_.push_back(&m);
                else ram_.push_back(&m);
                continue;
            }
            if (!inRomSpace(m.start)) ram_.push_back(&m);
            // The jump table: from the lowest LVO it lists up to the base.
            std::int64_t lowest = 0;
            for (const auto& [lvo, target] : m.lvos)
                if (lvo < 0 && lvo >= -0xFFFF) lowest = std::min<std::int64_t>(lowest, lvo);
            if (lowest < 0 && m.base >= std::uint32_t(-lowest))
                jumpTables_.push_back({m.base - std::uint32_t(-lowest), m.base, &m});
            for (std::size_t i = 0; i < m.lvos.size(); ++i)
                if (inRomSpace(m.lvos[i].second))
                    romFunctions_.push_back({m.lvos[i].second,
                                             i < m.lvoEnds.size() ? m.lvoEnds[i] : m.lvos[i].second + 2,
                                             m.lvos[i].first, &m});
        }
    std::sort(jumpTables_.begin(), jumpTables_.end(), [](const JumpTable& a, const JumpTable& b) { return a.low < b.low; });
    // A resident module's range is its RomTag..rt_EndSkip. AROS ends rt_EndSkip just past the
    // RomTag itself (32 bytes on) for most of its modules, whose code follows the tag; the
    // ROM holds one module after another, so such a module reaches to the next RomTag of its
    // ROM (or the ROM's end).
    std::sort(romResidents_.begin(), romResidents_.end(),
              [](const CodeModule* a, const CodeModule* b) { return a->start < b->start; });
    for (std::size_t i = 0; i < romResidents_.size(); ++i) {
        const CodeModule* r = romResidents_[i];
        const std::uint32_t romEnd = r->start >= 0xF80000 ? 0x1000000 : 0xE80000;
        std::uint32_t end = r->end;
        if (end - r->start <= kShortEndSkip) {
            end = romEnd;
            for (std::size_t j = i + 1; j < romResidents_.size(); ++j)
                if (romResidents_[j]->start > r->start) {
                    end = std::min(romEnd, romResidents_[j]->start);
                    break;
                }
        }
        residentEnds_.push_back(end);
    }
    // By start; at one start, a jump-table function before interrupt code, then the first
    // read (several vectors may share one target: AROS points unused ones at a common stub).
    std::stable_sort(romFunctions_.begin(), romFunctions_.end(), [](const RomFunction& a, const RomFunction& b) {
        if (a.start != b.start) return a.start < b.start;
        const bool ai = a.module->kind == CodeModuleKind::Interrupt, bi = b.module->kind == CodeModuleKind::Interrupt;
        if (ai != bi) return bi;
        const bool an = knownLvoName(a.module->name, a.lvo).has_value();
        const bool bn = knownLvoName(b.module->name, b.lvo).has_value();
        return an && !bn;
    });
}

const CodeNamer::RomFunction* CodeNamer::romFunction(std::uint32_t a) const {
    auto it = std::upper_bound(romFunctions_.begin(), romFunctions_.end(), a,
                               [](std::uint32_t v, const RomFunction& fn) { return v < fn.start; });
    // The nearest start at or below the address whose code holds it (one function's measured
    // code may run past another's entry); at one start, the first in the order above.
    const RomFunction* best = nullptr;
    for (int n = 0; it != romFunctions_.begin() && n < 256; ++n) {
        --it;
        if (best && it->start != best->start) break;
        if (a < it->end) best = &*it;
    }
    return best;
}

CodeName CodeNamer::name(std::uint32_t a) const {
    a &= 0xFFFFFF;
    CodeName out;
    // The host's call (emu/uaelib.h): the guest runs its RTS there.
    if (uaelib::decodes(a)) {
        out.where = CodeName::Where::Host;
        out.module = "[uaelib]";
        return out;
    }
    // A jump table's slot (the JMP abs.l at base - 6n a caller runs first) is the function
    // it leads to.
    auto table = std::upper_bound(jumpTables_.begin(), jumpTables_.end(), a,
                                  [](std::uint32_t v, const JumpTable& t) { return v < t.low; });
    if (table != jumpTables_.begin() && a < std::prev(table)->base) {
        const CodeModule& m = *std::prev(table)->module;
        const int lvo = -6 * int((m.base - a + 5) / 6);
        out.library = m.name;
        out.lvo = lvo;
        out.function = std::string(lvoName(m.name, lvo));
        out.module = m.name;
        out.functionStart = m.base + std::uint32_t(lvo);
        out.jumpTable = true;
        out.where = CodeName::Where::Ram;
        for (const auto& [l, target] : m.lvos)
            if (l == lvo && inRomSpace(target)) out.where = CodeName::Where::Rom;
        return out;
    }
    const auto fromFunction = [&](const RomFunction& fn) {
        if (fn.module->kind == CodeModuleKind::Interrupt) {
            out.interrupt = true;
            out.function = fn.module->name;
        } else {
            out.library = fn.module->name;
            out.lvo = fn.lvo;
            out.function = std::string(lvoName(fn.module->name, fn.lvo));
        }
        out.functionStart = fn.start;
    };
    for (const CodeModule* m : ram_) {
        if (a < m->start || a >= m->end) continue;
        if (m->kind == CodeModuleKind::Interrupt) {
            out.where = CodeName::Where::Ram;
            out.module = m->name;
            out.function = m->name;
            out.interrupt = true;
            out.functionStart = m->start;
            return out;
        }
        if (m->kind == CodeModuleKind::Program) {
            out.where = CodeName::Where::Ram;
            out.module = m->name;
            out.program = true;
            return out;
        }
        // The LVO whose function holds it: the nearest target at or below, within its end.
        int best = 0;
        std::uint32_t at = 0;
        for (std::size_t i = 0; i < m->lvos.size(); ++i) {
            const std::uint32_t t = m->lvos[i].second;
            const std::uint32_t end = i < m->lvoEnds.size() ? m->lvoEnds[i] : t + 2;
            if (t <= a && a < end && (t > at || !best)) {
                at = t;
                best = m->lvos[i].first;
            }
        }
        if (m->kind == CodeModuleKind::Resident || m->end - m->start <= 0x40000 || best) {
            // A library in RAM may keep functions in ROM (and the other way round): the
            // address says which.
            out.where = inRomSpace(a) ? CodeName::Where::Rom : CodeName::Where::Ram;
            out.module = m->name;
            if (best) {
                out.library = m->name;
                out.lvo = best;
                out.function = std::string(lvoName(m->name, best));
                out.functionStart = at;
            }
            return out;
        }
    }
    const RomFunction* fn = romFunction(a);
    for (std::size_t i = 0; i < romResidents_.size(); ++i)
        if (const CodeModule* r = romResidents_[i]; a >= r->start && a < residentEnds_[i]) {
            out.where = CodeName::Where::Rom;
            out.module = r->name;
            if (fn) {
                fromFunction(*fn);
                // A function of another library this module holds says whose it is.
                if (!out.interrupt && fn->module->name != r->name)
                    out.function = std::string(shortLibraryName(fn->module->name)) + "/" + out.function;
            }
            return out;
        }
    if (fn) {
        out.where = CodeName::Where::Rom;
        out.module = fn->module->kind == CodeModuleKind::Interrupt ? std::string("[Kickstart]") : fn->module->name;
        fromFunction(*fn);
        return out;
    }
    if (inRomSpace(a)) {
        out.where = CodeName::Where::Rom;
        out.module = "[Kickstart]";
    }
    return out;
}

} // namespace copperline
