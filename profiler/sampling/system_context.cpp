#include "profiler/sampling/system_context.h"

#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"
#include "emu/cpu/disasm/disasm.h"

#include <algorithm>

namespace copperline {

namespace sf = sampler_format;

namespace {

// Where the function at `entry` ends (exclusive): the first RTS, RTE, RTR, JMP, BRA or
// exception-taking instruction past every forward branch seen so far, within 4 KB; entry +
// 2 when the words there are not backed or not code.
std::uint32_t functionEnd(const MemoryView& memory, std::uint32_t entry) {
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

} // namespace

void InterruptNesting::entered(unsigned level, std::uint32_t ssp) {
    // Nesting deeper than the seven levels means frames were dropped without an RTE (a
    // task switch reset the stack): the oldest are gone.
    if (irqs_.size() >= 64) irqs_.erase(irqs_.begin());
    irqs_.push_back({std::uint8_t(level ? level & 7 : 1), ssp});
}

void InterruptNesting::stepStarts(std::uint16_t sr, std::uint32_t a7) {
    if (irqs_.empty()) return;
    if (!(sr & 0x2000)) {
        irqs_.clear();
        return;
    }
    while (!irqs_.empty() && a7 > irqs_.back().ssp) irqs_.pop_back();
}

std::vector<SystemSampleModule> readSystemModules(const MemoryView& memory, bool atEnd) {
    std::vector<SystemSampleModule> out;
    const AmigaOsSnapshot os = readAmigaOs(memory);
    const auto addLibrary = [&](const AmigaOsLibrary& l, sf::ModuleKind kind) {
        SystemSampleModule m;
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
            m.lvoEnds.push_back(functionEnd(memory, target));
            lo = std::min(lo, target);
            hi = std::max(hi, m.lvoEnds.back());
        }
        if (m.lvos.empty()) return;
        // The hull of the jump table's functions.
        m.start = lo;
        m.end = hi;
        out.push_back(std::move(m));
    };
    for (const AmigaOsLibrary& l : os.libraries) addLibrary(l, sf::ModuleKind::Library);
    for (const AmigaOsLibrary& l : os.devices) addLibrary(l, sf::ModuleKind::Device);
    for (const AmigaOsResident& r : os.residents) {
        if (!r.endSkip || r.endSkip <= r.address) continue;
        SystemSampleModule m;
        m.kind = sf::ModuleKind::Resident;
        m.base = r.address;
        m.name = r.name;
        m.start = r.address;
        m.end = r.endSkip;
        m.atEnd = atEnd;
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace copperline
