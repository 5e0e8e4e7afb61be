// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/strip/strip_trace.h"

#include "emu/machine.h"

namespace copperline::strip {

namespace {

constexpr std::uint16_t kSupervisor = 0x2000;

std::uint32_t spyLong(const Machine& m, std::uint32_t a) {
    return std::uint32_t(m.spyWord(a & 0xFFFFFE)) << 16 | m.spyWord((a + 2) & 0xFFFFFE);
}

bool isCall(std::uint16_t op) {
    return (op & 0xFFC0) == 0x4E80 /* JSR */ || (op & 0xFF00) == 0x6100 /* BSR */;
}

} // namespace

TreeReplay::At TreeReplay::read(const Machine& m) {
    const m68k::Registers r = m.cpu().registers();
    At a;
    a.pc = m.cpu().instructionAddress() & 0xFFFFFF;
    a.sr = r.sr;
    a.op = r.ird;
    a.usp = (r.sr & kSupervisor) ? r.usp : r.a[7];
    a.ssp = (r.sr & kSupervisor) ? r.a[7] : r.ssp;
    a.cycle = m.now();
    a.stopped = m.cpu().stopped();
    return a;
}

TraceStep TreeReplay::classify(const At& a, const At& b, const Machine& m) const {
    TraceStep s;
    s.pc = a.pc;
    s.next = b.pc;
    // Colour clocks by the even cycle below each boundary, so that the steps add up to the
    // stretch exactly.
    s.cck = b.cycle / 2 - a.cycle / 2;
    const bool wasSupervisor = a.sr & kSupervisor;
    s.supervisor = wasSupervisor;
    s.sp = wasSupervisor ? a.ssp : a.usp;
    if ((b.sr & kSupervisor) && b.ssp == a.ssp - 6 && !(a.stopped && b.stopped)) {
        // An exception entry: the PC in its frame says whether the instruction ran.
        const std::uint32_t stacked = spyLong(m, b.ssp + 2) & 0xFFFFFF;
        const unsigned maskBefore = (a.sr >> 8) & 7, maskAfter = (b.sr >> 8) & 7;
        const bool interrupt = stacked == a.pc && maskAfter > maskBefore;
        // Raised by the instruction (TRAP, CHK, TRAPV, a divide by zero, an illegal or
        // privileged one): the CPU went where one of the vectors leads (the 68000's table
        // at 0), which tells it from an instruction that happens to push 6 bytes.
        unsigned vector = 0;
        if (!interrupt && stacked != a.pc) {
            const unsigned trap = (a.op & 0xFFF0) == 0x4E40 ? 32 + (a.op & 15) : 0;
            if (trap && (spyLong(m, trap * 4) & 0xFFFFFF) == b.pc) vector = trap;
            for (unsigned v = 2; v < 48 && !vector; ++v)
                if ((spyLong(m, v * 4) & 0xFFFFFF) == b.pc) vector = v;
        }
        if (interrupt || vector) {
            s.kind = TraceStep::Kind::Exception;
            s.supervisor = true;
            s.sp = b.ssp + 2;
            s.level = interrupt ? std::uint8_t(maskAfter) : 0;
            s.vector = std::uint8_t(interrupt ? 24 + maskAfter : vector);
            return s;
        }
    }
    if (a.stopped) {
        s.kind = TraceStep::Kind::Stopped;
        return s;
    }
    const std::uint32_t spAfter = wasSupervisor ? b.ssp : b.usp;
    if (isCall(a.op) && spAfter == s.sp - 4) {
        s.kind = TraceStep::Kind::Call;
        s.sp = spAfter;
        return s;
    }
    if (a.op == 0x4E75 /* RTS */ || a.op == 0x4E77 /* RTR */) {
        s.kind = TraceStep::Kind::Return;
        s.sp = spAfter;
        return s;
    }
    if (a.op == 0x4E73 /* RTE */ && wasSupervisor) {
        s.kind = TraceStep::Kind::Return;
        s.supervisor = true;
        s.sp = b.ssp;
        return s;
    }
    s.kind = TraceStep::Kind::Instruction;
    return s;
}

bool TreeReplay::boundary(Machine& m) {
    const At here = read(m);
    if (have_) {
        builder_.step(classify(last_, here, m));
        ++steps_;
    }
    last_ = here;
    have_ = true;
    return false;
}

} // namespace copperline::strip
