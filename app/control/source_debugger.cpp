// SPDX-License-Identifier: GPL-3.0-or-later
// The source-level debugger's engine: programs, frames, references (docs/debugger.md).

#include "app/control/source_debugger.h"

#include "app/control/command_bus.h"
#include "emu/hex.h"
#include "emu/machine.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/code_namer.h"
#include "profiler/amigaos/memory_view.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace copperline {

namespace {

using nlohmann::json;

constexpr std::uint32_t kScanBytes = 4096;        // how far up the stack a return address is looked for
constexpr std::uint32_t kFramePointerReach = 8192; // and a frame pointer's link
constexpr std::size_t kMaxPhysicalFrames = 128;

std::uint32_t spyLong(const Machine& m, std::uint32_t a) {
    return std::uint32_t(m.spyWord(a & 0xFFFFFF)) << 16 | m.spyWord((a + 2) & 0xFFFFFF);
}

// The machine's memory for the debugger: reads of backed memory without side effects,
// writes of RAM through the record.
class MachineTarget final : public TargetMemory {
public:
    explicit MachineTarget(SourceDebugger::Host& host) : host_(host) {}
    bool read(std::uint32_t address, std::span<std::uint8_t> out) const override {
        const MachineMemoryView view(host_.machine());
        if (!view.backed(address, std::uint32_t(out.size()))) return false;
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = host_.machine().spyByte(address + std::uint32_t(i));
        return true;
    }
    bool write(std::uint32_t address, std::span<const std::uint8_t> bytes) override {
        return host_.writeMemory(address, bytes);
    }

private:
    SourceDebugger::Host& host_;
};

} // namespace

StepContext stepContext(const Machine& m) {
    StepContext c;
    c.supervisor = m.cpu().registers().sr & 0x2000;
    // In user mode each task has a stack of its own: which task runs tells them apart.
    if (!c.supervisor) {
        const std::uint32_t exec = spyLong(m, 4);
        if (!(exec & 1) && exec >= 0x400 && exec < 0x1000000) c.task = spyLong(m, exec + 0x114);
    }
    return c;
}

bool isCallInstruction(const Machine& m, std::uint32_t pc, std::uint32_t* length) {
    const std::uint16_t op = m.spyWord(pc & 0xFFFFFF);
    std::uint32_t len = 0;
    if ((op & 0xFF00) == 0x6100) { // BSR
        const std::uint8_t d = op & 0xFF;
        len = d == 0 ? 4 : d == 0xFF ? 6 : 2;
    } else if ((op & 0xFFC0) == 0x4E80) { // JSR <ea>
        const unsigned mode = (op >> 3) & 7, reg = op & 7;
        if (mode == 2) len = 2;
        else if (mode == 5 || mode == 6) len = 4;
        else if (mode == 7 && (reg == 0 || reg == 2 || reg == 3)) len = 4;
        else if (mode == 7 && reg == 1) len = 6;
        else return false;
    } else if ((op & 0xFFF0) == 0x4E40 || (op & 0xF000) == 0xA000 || (op & 0xF000) == 0xF000) {
        len = 2; // TRAP #n and the line A and F words: their handlers return past them
    } else {
        return false;
    }
    if (length) *length = len;
    return true;
}

bool isReturnInstruction(std::uint16_t op) {
    return op == 0x4E75 || op == 0x4E77 || op == 0x4E73; // RTS, RTR, RTE
}

SourceDebugger::SourceDebugger(Host& host) : host_(host), memory_(std::make_unique<MachineTarget>(host)) {}

void SourceDebugger::invalidate() {
    programs_.reset();
    frames_.reset();
    refs_.clear();
}

const std::vector<SourceProgram>& SourceDebugger::programs() {
    if (programs_) return *programs_;
    std::vector<SourceProgram> list = host_.programs();
    for (SourceProgram& p : list) {
        const DebugInfo* key = p.info.get();
        auto it = dwarfCache_.find(key);
        if (it != dwarfCache_.end() && it->second.first.lock() != p.info) {
            dwarfCache_.erase(it);
            dwarfErrors_.erase(key);
            it = dwarfCache_.end();
        }
        if (it == dwarfCache_.end() && !dwarfErrors_.count(key)) {
            std::shared_ptr<DwarfFile> file;
            try {
                if (p.info->hasDwarf()) file = DwarfFile::open(*p.info);
                else dwarfErrors_[key] = p.info->elfPath().empty() ? "no ELF with DWARF: lines and functions only"
                                                                   : "the ELF has no DWARF";
            } catch (const std::exception& e) {
                dwarfErrors_[key] = e.what();
            }
            if (file) it = dwarfCache_.emplace(key, std::make_pair(std::weak_ptr<const DebugInfo>(p.info), file)).first;
        }
        if (it != dwarfCache_.end()) {
            p.dwarf = it->second.second;
            p.values = std::make_shared<SourceValues>(p.dwarf);
        } else {
            p.dwarfError = dwarfErrors_[key];
        }
    }
    programs_ = std::move(list);
    return *programs_;
}

std::optional<SourcePlace> SourceDebugger::place(std::uint32_t address) {
    address &= 0xFFFFFF;
    const auto& list = programs();
    for (std::size_t p = 0; p < list.size(); ++p) {
        const auto& hunks = list[p].info->hunks();
        for (std::uint32_t h = 0; h < hunks.size() && h < list[p].bases.size(); ++h)
            if (address >= list[p].bases[h] && address - list[p].bases[h] < hunks[h].size)
                return SourcePlace{p, h, address - list[p].bases[h]};
    }
    return std::nullopt;
}

std::uint32_t SourceDebugger::address(const SourcePlace& p) {
    return (programs()[p.program].bases[p.hunk] + p.offset) & 0xFFFFFF;
}

std::vector<std::int32_t> SourceDebugger::scopeChain(const SourcePlace& at) {
    std::vector<std::int32_t> out;
    const DebugInfo& info = *programs()[at.program].info;
    for (const InlineFrame& f : info.frames(info.lookup(at.hunk, at.offset)))
        if (f.scope) out.push_back(std::int32_t(f.scope - info.scopes().data()));
    return out;
}

unsigned SourceDebugger::defaultHiddenInline() {
    const auto at = place(host_.machine().cpu().instructionAddress());
    if (!at) return 0;
    const DebugInfo& info = *programs()[at->program].info;
    unsigned n = 0;
    for (const std::int32_t s : scopeChain(*at)) {
        if (info.scopes()[std::size_t(s)].kind != ScopeKind::Inlined) break;
        if (!info.entersAt(std::uint32_t(s), at->hunk, at->offset)) break;
        ++n;
    }
    return n;
}

std::optional<unsigned> SourceDebugger::inlineDepthOf(std::uint32_t pc, std::int32_t scope) {
    const auto at = place(pc);
    if (!at) return std::nullopt;
    const auto chain = scopeChain(*at);
    const auto it = std::find(chain.begin(), chain.end(), scope);
    if (it == chain.end()) return std::nullopt;
    return unsigned(it - chain.begin());
}

// ---- frames -------------------------------------------------------------------------------

const std::vector<StackFrame>& SourceDebugger::frames(std::size_t max) {
    if (!frames_ || framesMax_ < max) buildFrames(max);
    return *frames_;
}

void SourceDebugger::buildFrames(std::size_t max) {
    Machine& m = host_.machine();
    const auto r = m.cpu().registers();
    FrameRegisters regs;
    for (int i = 0; i < 8; ++i) {
        regs.set(i, r.d[std::size_t(i)], FrameRegisters::Home::Cpu);
        regs.set(8 + i, r.a[std::size_t(i)], FrameRegisters::Home::Cpu);
    }
    regs.set(FrameRegisters::kPc, m.cpu().instructionAddress(), FrameRegisters::Home::Cpu);
    regs.set(FrameRegisters::kSr, r.sr, FrameRegisters::Home::Cpu);

    std::vector<StackFrame> out;
    bool outer = false, interrupted = false;
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    const auto& list = programs();
    for (std::size_t phys = 0; phys < kMaxPhysicalFrames && out.size() < max; ++phys) {
        const std::uint32_t pc = regs[FrameRegisters::kPc] & 0xFFFFFF;
        const std::uint32_t sp = regs.known(15) ? regs[15] : 0;
        if (!seen.emplace(pc, sp).second) break; // a loop in a corrupt stack
        StackFrame base;
        base.pc = pc;
        base.outer = outer;
        base.regs = regs;
        base.interrupted = interrupted;
        const auto pl = place(pc);
        bool caller = false;
        bool nextInterrupted = false;
        if (pl) {
            const SourceProgram& prog = list[pl->program];
            // A caller's line is the call's: the byte before its return address.
            const std::uint32_t at = outer && !interrupted && pl->offset > 0 ? pl->offset - 1 : pl->offset;
            const AddressInfo info = prog.info->lookup(pl->hunk, at);
            const auto chain = prog.info->frames(info);
            base.kind = StackFrame::Kind::Source;
            base.place = pl;
            if (prog.dwarf) base.cfa = prog.dwarf->cfa(pl->hunk, at, regs);
            const std::size_t hide = phys == 0 ? std::min<std::size_t>(hiddenInline_, chain.size() ? chain.size() - 1 : 0) : 0;
            for (std::size_t k = hide; k < chain.size() && out.size() < max; ++k) {
                StackFrame f = base;
                f.scope = chain[k].scope ? std::int32_t(chain[k].scope - prog.info->scopes().data()) : -1;
                f.function = chain[k].scope ? chain[k].scope->name : std::string();
                f.file = chain[k].file;
                f.line = chain[k].line;
                f.column = chain[k].column;
                if (k == 0) {
                    // The innermost scope's line is the one a line step stops at, as gdb's
                    // frame shows it: the line table's statement at the address.
                    if (const auto entry = prog.info->stepEntry(pl->hunk, at)) {
                        f.file = entry->file;
                        f.line = entry->line;
                    }
                }
                f.inlined = chain[k].inlined;
                out.push_back(std::move(f));
            }
            if (chain.empty()) {
                base.function = "[" + prog.name + " hunk " + std::to_string(pl->hunk) + "]";
                out.push_back(base);
            }
            // As gdb does, the stack ends at main: what called it is the startup code's.
            if (!chain.empty() && chain.back().scope && chain.back().scope->name == "main") break;
            if (prog.dwarf) {
                auto u = prog.dwarf->unwind(pl->hunk, at, regs, *memory_);
                if (!u) {
                    // A frame pointer the code below this frame changed (a library call
                    // through a stub loads A6 with the library base): recovered from the
                    // frame's link, the saved frame pointer just below a return address.
                    for (const int fp : {14, 13}) {
                        if (regs.known(fp) || !regs.known(15)) continue;
                        FrameRegisters tryRegs = regs;
                        for (std::uint32_t f = regs[15]; f < regs[15] + kFramePointerReach; f += 2) {
                            const std::uint32_t saved = spyLong(m, f), ret = spyLong(m, f + 4);
                            if ((saved != 0 && (saved <= f || saved - f > 0x10000)) || ret & 1 || ret == 0) continue;
                            if (!isCallInstruction(m, ret - 2) && !isCallInstruction(m, ret - 4) && !isCallInstruction(m, ret - 6))
                                continue;
                            tryRegs.set(fp, f, FrameRegisters::Home::Value);
                            u = prog.dwarf->unwind(pl->hunk, at, tryRegs, *memory_);
                            break;
                        }
                        if (u) break;
                    }
                }
                if (u) {
                    regs = u->caller;
                    if (!out.empty() && !out.back().cfa) out.back().cfa = u->cfa;
                    caller = true;
                }
            }
        } else {
            const CodeName n = host_.systemNamer()->name(pc);
            base.kind = n.known() ? StackFrame::Kind::System : StackFrame::Kind::Unknown;
            base.function = n.known() ? n.label() : "[" + hex(pc) + "]";
            out.push_back(base);
        }
        if (!caller && !unwindHeuristic(out.back(), regs, nextInterrupted)) break;
        if (!regs.known(FrameRegisters::kPc) || regs[FrameRegisters::kPc] == 0) break;
        outer = true;
        interrupted = nextInterrupted;
    }
    frames_ = std::move(out);
    framesMax_ = max;
}

// The caller of a frame whose code has no call-frame information: the first return address
// up the stack (a longword just after a call instruction, in code), or, at the top of the
// supervisor stack, the exception frame of the interrupt or exception that entered it.
bool SourceDebugger::unwindHeuristic(StackFrame& frame, FrameRegisters& regs, bool& interruptedNext) {
    Machine& m = host_.machine();
    if (!regs.known(15)) return false;
    const std::uint32_t sp = regs[15];
    const bool supervisor = regs.known(FrameRegisters::kSr) && (regs[FrameRegisters::kSr] & 0x2000);
    std::uint32_t exceptionFrame = 0;
    if (supervisor) {
        const AmigaOsSnapshot os = readExecAndThisTask(MachineMemoryView(m));
        if (os.exec && os.exec->sysStkUpper > sp && os.exec->sysStkLower <= sp) exceptionFrame = os.exec->sysStkUpper - 6;
    }
    const MachineMemoryView view(m);
    const auto inCode = [&](std::uint32_t a) {
        if (a & 1 || a == 0 || a >= 0x1000000) return false;
        if (place(a)) return true;
        if (view.inRom(a)) return true;
        return host_.systemNamer()->name(a).known();
    };
    const auto returnAddress = [&](std::uint32_t a) {
        if (!inCode(a)) return false;
        // In a program, the call lies in the same code hunk as the address after it (a
        // pointer to a data hunk or to a hunk's first byte is no return address).
        const auto at = place(a);
        if (at && programs()[at->program].info->hunks()[at->hunk].kind != HunkKind::Code) return false;
        for (const std::uint32_t len : {2u, 4u, 6u}) {
            std::uint32_t l = 0;
            if (at && at->offset < len) break;
            if (a >= len && isCallInstruction(m, a - len, &l) && l == len) return true;
        }
        return false;
    };
    for (std::uint32_t slot = sp; slot < sp + kScanBytes; slot += 2) {
        if (!view.backed(slot, 4)) return false;
        if (exceptionFrame && slot == exceptionFrame) {
            const std::uint16_t sr = m.spyWord(slot);
            const std::uint32_t pc = spyLong(m, slot + 2);
            FrameRegisters next;
            next.set(FrameRegisters::kPc, pc, FrameRegisters::Home::Memory, slot + 2);
            next.set(FrameRegisters::kSr, sr, FrameRegisters::Home::Memory, slot);
            const auto r = m.cpu().registers();
            next.set(15, sr & 0x2000 ? slot + 6 : ((r.sr & 0x2000) ? r.usp : r.a[7]), FrameRegisters::Home::Value);
            regs = next;
            interruptedNext = true;
            return true;
        }
        const std::uint32_t v = spyLong(m, slot);
        if (!returnAddress(v)) continue;
        FrameRegisters next;
        next.set(FrameRegisters::kPc, v, FrameRegisters::Home::Memory, slot);
        next.set(15, slot + 4, FrameRegisters::Home::Value);
        if (regs.known(FrameRegisters::kSr)) next.set(FrameRegisters::kSr, regs[FrameRegisters::kSr], FrameRegisters::Home::Value);
        // What a routine without call-frame information keeps of its caller's registers is
        // not known, except that AmigaOS's calling convention has D2-D7 and A2-A6 kept: a
        // register the routine has not changed yet still holds the caller's value, but
        // which those are cannot be told from here.
        regs = next;
        (void)frame;
        return true;
    }
    return false;
}

SourceFrame SourceDebugger::sourceFrame(std::size_t n) {
    const auto& fs = frames(n + 1);
    if (n >= fs.size())
        throw CommandError(errc::InvalidParams, "frame: " + std::to_string(n) + " is past the stack, which has " +
                                                   std::to_string(fs.size()) + " frame(s)");
    const StackFrame& f = fs[n];
    SourceFrame sf;
    sf.regs = f.regs;
    sf.cfa = f.cfa;
    sf.outer = f.outer && !f.interrupted;
    if (f.place) {
        const SourceProgram& prog = programs()[f.place->program];
        sf.file = prog.dwarf.get();
        sf.info = prog.info.get();
        sf.bases = prog.bases;
        sf.hunk = f.place->hunk;
        sf.offset = f.place->offset;
        if (f.scope >= 0) sf.scopeDie = prog.info->scopes()[std::size_t(f.scope)].die;
    } else if (!programs().empty()) {
        // System code: globals of the first program can still be named.
        sf.bases = programs().front().bases;
    }
    return sf;
}

const SourceValues* SourceDebugger::values(std::size_t n) {
    const auto& fs = frames(n + 1);
    if (n < fs.size() && fs[n].place) return programs()[fs[n].place->program].values.get();
    // Outside every program the first program's globals can still be named.
    for (const auto& p : programs())
        if (p.values) return p.values.get();
    return nullptr;
}

// ---- files, lines, functions ---------------------------------------------------------------

std::vector<SourceDebugger::FileMatch> SourceDebugger::findFile(const std::string& path) {
    std::vector<FileMatch> out;
    const auto& list = programs();
    for (std::size_t p = 0; p < list.size(); ++p) {
        auto files = list[p].info->filesMatching(path);
        if (!files.empty()) out.push_back({p, std::move(files)});
    }
    return out;
}

std::uint32_t SourceDebugger::afterPrologue(const SourcePlace& entry) {
    // gdb's m68k rule: past LINK An (and the register saves after it) when the function
    // sets up a frame pointer; then, if that lands inside a line, on to the next line's
    // start while still in the function.
    Machine& m = host_.machine();
    const SourceProgram& prog = programs()[entry.program];
    const std::uint32_t start = address(entry);
    std::uint32_t pc = start;
    const std::uint16_t op = m.spyWord(pc);
    bool linked = false;
    if ((op & 0xFFF8) == 0x4E50) pc += 4, linked = true;      // LINK.W An,#d
    else if ((op & 0xFFF8) == 0x4808) pc += 6, linked = true; // LINK.L An,#d
    if (!linked) return start;
    for (int i = 0; i < 16; ++i) {
        const std::uint16_t w = m.spyWord(pc);
        if ((w & 0xFFF0) == 0x2F00) pc += 2;                      // MOVE.L Dn/An,-(SP)
        else if (w == 0x48E7) pc += 4;                            // MOVEM.L regs,-(SP)
        else if ((w & 0xFFFF) == 0x4FEF) pc += 4;                 // LEA d(SP),SP
        else break;
    }
    const auto after = place(pc);
    if (!after || after->program != entry.program || after->hunk != entry.hunk) return start;
    const auto e = prog.info->stepEntry(after->hunk, after->offset);
    const AddressInfo fn = prog.info->lookup(entry.hunk, entry.offset);
    if (e && e->start != after->offset) {
        const AddressInfo next = prog.info->lookup(after->hunk, e->end);
        if (next.scope >= 0 && prog.info->function(next) == prog.info->function(fn))
            return prog.bases[after->hunk] + e->end;
    }
    return pc;
}

std::vector<SourceDebugger::Location> SourceDebugger::lineLocations(const std::string& file, std::uint32_t line,
                                                                    std::string& why) {
    std::vector<Location> out;
    const auto matches = findFile(file);
    if (matches.empty()) {
        why = "no program loaded has a source file \"" + file + "\"";
        return out;
    }
    for (const FileMatch& fm : matches) {
        const SourceProgram& prog = programs()[fm.program];
        for (const LineLocation& l : prog.info->lineLocations(fm.files, line)) {
            SourcePlace pl{fm.program, l.hunk, l.offset};
            // A location at a function's first instruction (its opening line) goes past the
            // prologue, as gdb places it.
            const AddressInfo info = prog.info->lookup(l.hunk, l.offset);
            std::uint32_t addr = address(pl);
            if (const DebugScope* fn = prog.info->function(info)) {
                const auto entry = prog.info->entryOf(std::uint32_t(fn - prog.info->scopes().data()));
                if (entry && entry->first == l.hunk && entry->second == l.offset) addr = afterPrologue(pl);
            }
            Location loc;
            loc.address = addr;
            loc.program = fm.program;
            // Past a prologue the line is the one the code there has.
            const auto at = addr != address(pl) ? place(addr) : std::nullopt;
            const auto e = at ? prog.info->stepEntry(at->hunk, at->offset) : std::nullopt;
            loc.file = prog.info->fileName(e ? e->file : l.file);
            loc.line = e ? e->line : l.line;
            loc.scope = l.scope;
            if (l.scope >= 0) loc.function = prog.info->scopes()[std::size_t(l.scope)].name;
            if (std::none_of(out.begin(), out.end(), [&](const Location& o) { return o.address == loc.address; }))
                out.push_back(std::move(loc));
        }
    }
    if (out.empty()) why = "no code at or after line " + std::to_string(line) + " of \"" + file + "\"";
    return out;
}

std::vector<SourceDebugger::Location> SourceDebugger::functionLocations(const std::string& name, std::string& why) {
    std::vector<Location> out;
    const auto& list = programs();
    for (std::size_t p = 0; p < list.size(); ++p) {
        const DebugInfo& info = *list[p].info;
        for (const std::uint32_t scope : info.functionsNamed(name)) {
            const auto entry = info.entryOf(scope);
            if (!entry) continue;
            const SourcePlace pl{p, entry->first, entry->second};
            Location loc;
            loc.address = afterPrologue(pl);
            loc.program = p;
            loc.function = name;
            loc.scope = std::int32_t(scope);
            if (const auto at = place(loc.address))
                if (const auto e = info.stepEntry(at->hunk, at->offset)) {
                    loc.file = info.fileName(e->file);
                    loc.line = e->line;
                }
            out.push_back(std::move(loc));
        }
        // Every inlined copy too, at its entry (it has no prologue), as gdb sets them.
        for (std::uint32_t scope = 0; scope < info.scopes().size(); ++scope) {
            const DebugScope& s = info.scopes()[scope];
            if (s.kind != ScopeKind::Inlined || s.name != name) continue;
            const auto entry = info.entryOf(scope);
            if (!entry) continue;
            Location loc;
            loc.address = address(SourcePlace{p, entry->first, entry->second});
            if (std::any_of(out.begin(), out.end(), [&](const Location& l) { return l.address == loc.address; }))
                continue;
            loc.program = p;
            loc.function = name;
            loc.scope = std::int32_t(scope);
            if (const auto e = info.stepEntry(entry->first, entry->second)) {
                loc.file = info.fileName(e->file);
                loc.line = e->line;
            }
            out.push_back(std::move(loc));
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Location& a, const Location& b) { return a.address < b.address; });
    // Amiga compilers without DWARF (vbcc, SAS/C, older gccs) name C's functions with a
    // leading underscore in the hunks' symbols: `main` is `_main` there.
    if (out.empty() && !name.empty() && name[0] != '_') {
        std::string unused;
        out = functionLocations("_" + name, unused);
        for (Location& l : out) l.function = name;
    }
    if (out.empty()) why = "no function \"" + name + "\" in any program loaded";
    return out;
}

json SourceDebugger::describe(std::uint32_t address, bool returnAddress) {
    json out = {{"addr", address}};
    const auto pl = place(address);
    if (!pl) {
        const CodeName n = host_.systemNamer()->name(address);
        if (n.known()) out["function"] = n.label();
        return out;
    }
    const SourceProgram& prog = programs()[pl->program];
    out["module"] = prog.name;
    const std::uint32_t at = returnAddress && pl->offset > 0 ? pl->offset - 1 : pl->offset;
    const AddressInfo info = prog.info->lookup(pl->hunk, at);
    const auto chain = prog.info->frames(info);
    if (!chain.empty()) {
        if (chain.front().scope) out["function"] = chain.front().scope->name;
        if (chain.front().file != kNoFile) {
            out["file"] = prog.info->fileName(chain.front().file);
            out["line"] = chain.front().line;
        }
    }
    return out;
}

// ---- expressions and references -------------------------------------------------------------

SourceValue SourceDebugger::evaluate(const std::string& expr, std::size_t frame) {
    const CExpression e(expr);
    const SourceFrame sf = sourceFrame(frame);
    return e.evaluate(values(frame), sf, *memory_);
}

std::string SourceDebugger::format(const SourceValue& v, std::size_t frame) {
    const SourceValues* vals = values(frame);
    const SourceFrame sf = sourceFrame(frame);
    if (vals) return vals->format(v, sf, *memory_);
    if (v.where == SourceValue::Where::Bytes) return std::to_string(bigEndianInteger(v.bytes, v.type && v.type->resolved().isSigned));
    if (v.where == SourceValue::Where::Register && sf.regs.known(v.reg)) return std::to_string(sf.regs[v.reg]);
    return "?";
}

int SourceDebugger::makeRef(Ref r) {
    refs_.push_back(std::move(r));
    return int(refs_.size());
}

const SourceDebugger::Ref* SourceDebugger::ref(int id) const {
    if (id <= 0 || std::size_t(id) > refs_.size()) return nullptr;
    return &refs_[std::size_t(id) - 1];
}

json SourceDebugger::variableJson(const SourceVariable& v, std::size_t frame) {
    const SourceValues* vals = values(frame);
    const SourceFrame sf = sourceFrame(frame);
    json out = {{"name", v.name}, {"type", v.value.type ? v.value.type->name : std::string("?")}};
    out["value"] = vals ? vals->format(v.value, sf, *memory_) : format(v.value, frame);
    int children = 0;
    if (vals && v.value.readable() && v.value.type && v.value.type->expandable()) {
        children = makeRef({Ref::Kind::Value, frame, v});
        out["children"] = vals->childCount(v.value);
        if (v.value.type->resolved().kind == SourceType::Kind::Array) out["indexed"] = vals->childCount(v.value);
    }
    out["ref"] = children;
    switch (v.value.where) {
    case SourceValue::Where::Memory:
        out["address"] = v.value.address;
        if (v.value.bitSize) out["bits"] = {{"offset", v.value.bitOffset}, {"size", v.value.bitSize}};
        break;
    case SourceValue::Where::Register: out["register"] = FrameRegisters::name(v.value.reg); break;
    case SourceValue::Where::OptimizedOut: out["optimized_out"] = true; break;
    case SourceValue::Where::Unavailable: out["unavailable"] = v.value.why; break;
    case SourceValue::Where::Bytes: break;
    }
    if (v.parameter) out["parameter"] = true;
    return out;
}

} // namespace copperline
