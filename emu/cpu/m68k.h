// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "emu/cpu/m68k_types.h"

#include <array>
#include <bit>
#include <cstdint>
#include <memory>

// The MC68000 core.
//
// Each instruction runs to completion inside one call, but every bus cycle is issued to
// the bus at the exact clock at which the real chip starts it (BusCycle::cycle), and the
// bus may stretch it with wait states. A machine that lets its other chips catch up to
// BusCycle::cycle before answering therefore sees the CPU's accesses in true time order.
//
// Bus-cycle order and internal-cycle placement follow the microcode order documented in
// "Yacht" (Yet Another Cycle Hunting Table, 68000 cycle-by-cycle bus usage) and as the
// SingleStepTests m68000 vectors record it; DIVU/DIVS timing follows Jorge Cwik's analysis
// of the divide microcode ("68000 DIVU/DIVS timing", 2008). See docs/cpu.md.
namespace copperline::m68k {

template <class B>
requires Bus<B>
class Cpu {
public:
    explicit Cpu(B& bus) : bus_(bus), table_(dispatchTable()) {}

    // ---- state --------------------------------------------------------------------
    Registers registers() const {
        Registers r;
        for (int i = 0; i < 8; ++i) {
            r.d[i] = reg_[i];
            r.a[i] = reg_[8 + i];
        }
        r.usp = s_ ? otherSp_ : reg_[15];
        r.ssp = s_ ? reg_[15] : otherSp_;
        r.pc = pc_;
        r.sr = sr();
        r.ird = ird_;
        r.irc = irc_;
        return r;
    }

    // Loads a complete state at an instruction boundary; clears STOP, halt and pending
    // trace/interrupt state.
    void setRegisters(const Registers& r) {
        for (int i = 0; i < 8; ++i) {
            reg_[i] = r.d[i];
            reg_[8 + i] = r.a[i];
        }
        setSrBits(r.sr);
        otherSp_ = s_ ? r.usp : r.ssp;
        reg_[15] = r.a[7];
        pc_ = r.pc;
        ird_ = r.ird;
        irc_ = r.irc;
        stopped_ = false;
        halted_ = false;
        tracePending_ = false;
        interruptPending_ = false;
    }

    unsigned interruptMask() const { return intMask_; } // SR I2-I0
    std::uint16_t sr() const {
        return std::uint16_t((t_ ? 0x8000 : 0) | (s_ ? 0x2000 : 0) | (intMask_ << 8) | ccr());
    }
    std::uint32_t pc() const { return pc_; }
    // One register without assembling them all (a hook that runs every instruction reads
    // only what it needs): a(7) is the active stack pointer; ird() the opcode about to run.
    std::uint32_t a(unsigned n) const { return reg_[8 + (n & 7)]; }
    std::uint16_t ird() const { return ird_; }
    // Address of the opcode that runs next (the queue was filled from pc - 4 and pc - 2).
    std::uint32_t instructionAddress() const { return stopped_ ? pc_ : pc_ - 4; }
    // Address of the instruction executing now (or, between instructions and during
    // interrupt entry, of the last one that started): what a bus wait is charged to.
    std::uint32_t executingAddress() const { return instrPc_; }

    std::uint64_t cycles() const { return cycles_; }
    void setCycles(std::uint64_t c) { cycles_ = c; }

    bool stopped() const { return stopped_; }
    // Whether the next step() is interrupt entry rather than an instruction (or STOP).
    bool interruptNext() const { return !halted_ && !tracePending_ && interruptPending_; }
    // Whether the next step takes an exception (trace, interrupt) before any instruction.
    bool exceptionPending() const { return tracePending_ || interruptPending_; }
    // The level and vector number of the last interrupt taken (for the profiler's [IRQ]
    // samples; not part of the state).
    unsigned lastInterruptLevel() const { return lastIrqLevel_; }
    unsigned lastInterruptVector() const { return lastIrqVector_; }
    bool halted() const { return halted_; }
    // Stopped, and nothing can wake it until its interrupt lines change: runUntil then
    // only moves the clock on.
    bool asleep() const { return stopped_ && !halted_ && !wakeable(); }
    std::uint64_t resetInstructions() const { return resetCount_; }
    std::uint64_t instructions() const { return instructions_; }

    // Save, load and hash at an instruction boundary (emu/state/archive.h): everything
    // that decides what the core does next, including the interrupt lines' history.
    template <class A>
    void serialize(A& ar) {
        ar(reg_, otherSp_, pc_, ird_, irc_, x_, n_, z_, v_, c_, t_, s_, intMask_);
        ar(cycles_, waits_, lastBusCycle_, instrPc_, op_);
        ar(iplNow_, iplBefore_, iplSampled_, iplChangedAt_, nmiEdgeAt_, nmiEdge_, nmiPending_);
        ar(interruptPending_, tracePending_, stopped_, halted_, resetCount_, instructions_, noTrace_);
    }

    // ---- interrupts ---------------------------------------------------------------
    // Sets the level on IPL2-IPL0 (0 = none), effective from clock `atCycle`. The level
    // is sampled during the last bus cycle of each instruction (MC68000 User's Manual,
    // 6.3.2): a change that lands after that sample is seen one instruction later.
    void setIpl(unsigned level, std::uint64_t atCycle) {
        level &= 7;
        if (level == iplNow_) return;
        iplBefore_ = levelAt(atCycle);
        iplNow_ = level;
        iplChangedAt_ = atCycle;
        if (level == 7 && iplBefore_ < 7) nmiEdgeAt_ = atCycle, nmiEdge_ = true;
    }
    void setIpl(unsigned level) { setIpl(level, cycles_); }
    unsigned ipl() const { return iplNow_; }

    // ---- observers ----------------------------------------------------------------
    void setObserver(Observer* o, unsigned hookMask) {
        observer_ = o;
        hooks_ = o ? hookMask : 0;
    }

    // ---- running ------------------------------------------------------------------
    // Hardware reset (RESET and HALT asserted by the machine): S=1, T=0, mask 7, then the
    // SSP and PC are read from vectors 0 and 1 and the queue is filled.
    void reset() {
        stopped_ = halted_ = tracePending_ = interruptPending_ = nmiEdge_ = false;
        t_ = false;
        setSupervisor(true);
        intMask_ = 7;
        idle(kResetIdleCycles);
        try {
            std::uint32_t ssp = readWordRaw(0, FunctionCode::SupervisorProgram) << 16;
            ssp |= readWordRaw(2, FunctionCode::SupervisorProgram);
            std::uint32_t pc = readWordRaw(4, FunctionCode::SupervisorProgram) << 16;
            pc |= readWordRaw(6, FunctionCode::SupervisorProgram);
            reg_[15] = ssp;
            pc_ = pc;
            fillQueue(false);
        } catch (const AddressFault&) {
            halted_ = true;
        }
    }

    // Executes one instruction, or one exception (trace, interrupt) that is pending at
    // this boundary, or two clocks of STOP/halt. Returns the clocks it took.
    std::uint32_t step() { return hooks_ ? stepImpl<true>() : stepImpl<false>(); }

    // Runs until the clock reaches `until` (it may pass it by part of an instruction).
    void runUntil(std::uint64_t until) {
        if (hooks_) {
            while (cycles_ < until) {
                if ((stopped_ || halted_) && !wakeable()) {
                    cycles_ = until;
                    break;
                }
                stepImpl<true>();
            }
        } else {
            while (cycles_ < until) {
                if ((stopped_ || halted_) && !wakeable()) {
                    cycles_ = until;
                    break;
                }
                stepImpl<false>();
            }
        }
    }

    // Clocks the RESET instruction holds the RESET line (MC68000 User's Manual, RESET).
    static constexpr unsigned kResetLineCycles = 124;

private:
    using Handler = void (*)(Cpu&);
    struct AddressFault {};

    static constexpr unsigned kResetIdleCycles = 0;

    // ---- flags & SR ---------------------------------------------------------------
    std::uint16_t ccr() const {
        return std::uint16_t((x_ ? 0x10 : 0) | (n_ ? 8 : 0) | (z_ ? 4 : 0) | (v_ ? 2 : 0) |
                             (c_ ? 1 : 0));
    }
    void setCcr(unsigned v) {
        x_ = v & 0x10;
        n_ = v & 8;
        z_ = v & 4;
        v_ = v & 2;
        c_ = v & 1;
    }
    void setSupervisor(bool s) {
        if (s != s_) {
            std::uint32_t t = reg_[15];
            reg_[15] = otherSp_;
            otherSp_ = t;
            s_ = s;
        }
    }
    void setSrBits(unsigned v) {
        t_ = v & 0x8000;
        s_ = v & 0x2000;
        intMask_ = (v >> 8) & 7;
        setCcr(v);
    }
    void setSr(unsigned v) {
        setSupervisor(v & 0x2000);
        t_ = v & 0x8000;
        intMask_ = (v >> 8) & 7;
        setCcr(v);
    }
    FunctionCode fcData() const {
        return s_ ? FunctionCode::SupervisorData : FunctionCode::UserData;
    }
    FunctionCode fcProgram() const {
        return s_ ? FunctionCode::SupervisorProgram : FunctionCode::UserProgram;
    }

    // ---- time ---------------------------------------------------------------------
    void idle(unsigned n) { cycles_ += n; }

    unsigned levelAt(std::uint64_t cycle) const {
        return cycle >= iplChangedAt_ ? iplNow_ : iplBefore_;
    }

    // ---- bus ----------------------------------------------------------------------
    std::uint16_t busRead(std::uint32_t addr, FunctionCode fc, bool upper, bool lower) {
        BusCycle c;
        c.cycle = cycles_;
        c.address = addr & 0xFFFFFF;
        c.fc = fc;
        c.op = BusOp::Read;
        c.upper = upper;
        c.lower = lower;
        unsigned w = bus_.access(c);
        lastBusCycle_ = cycles_;
        cycles_ += 4 + w;
        waits_ += w;
        return c.data;
    }
    void busWrite(std::uint32_t addr, std::uint16_t data, FunctionCode fc, bool upper, bool lower) {
        BusCycle c;
        c.cycle = cycles_;
        c.address = addr & 0xFFFFFF;
        c.data = data;
        c.fc = fc;
        c.op = BusOp::Write;
        c.upper = upper;
        c.lower = lower;
        unsigned w = bus_.access(c);
        lastBusCycle_ = cycles_;
        cycles_ += 4 + w;
        waits_ += w;
    }

    // A word or long access to an odd address: the 68000 starts the cycle but never
    // asserts AS, spends its four clocks, and takes an address error (group 0).
    [[noreturn]] void fault(std::uint32_t addr, bool write, FunctionCode fc) {
        faultAddress_ = addr;
        faultPc_ = pc_ + aeOff_;
        faultWrite_ = write;
        faultFc_ = fc;
        if constexpr (requires(B & b, const BusCycle& c) { b.addressErrorCycle(c); }) {
            BusCycle c;
            c.cycle = cycles_;
            c.address = addr & 0xFFFFFE;
            c.fc = fc;
            c.op = write ? BusOp::Write : BusOp::Read;
            bus_.addressErrorCycle(c);
        }
        cycles_ += 4;
        throw AddressFault{};
    }

    std::uint16_t readWordRaw(std::uint32_t addr, FunctionCode fc) {
        if (addr & 1) fault(addr, false, fc);
        return busRead(addr, fc, true, true);
    }

    template <int S>
    std::uint32_t read(std::uint32_t addr, FunctionCode fc) {
        if constexpr (S == 1) {
            std::uint16_t w = busRead(addr, fc, !(addr & 1), addr & 1);
            return (addr & 1) ? (w & 0xFF) : (w >> 8);
        } else if constexpr (S == 2) {
            return readWordRaw(addr, fc);
        } else {
            std::uint32_t hi = readWordRaw(addr, fc);
            return (hi << 16) | busRead(addr + 2, fc, true, true);
        }
    }
    template <int S>
    std::uint32_t read(std::uint32_t addr) {
        return read<S>(addr, fcData());
    }

    template <int S>
    void write(std::uint32_t addr, std::uint32_t v) {
        FunctionCode fc = fcData();
        if constexpr (S == 1) {
            std::uint16_t b = v & 0xFF;
            busWrite(addr, std::uint16_t(b | (b << 8)), fc, !(addr & 1), addr & 1);
        } else if constexpr (S == 2) {
            if (addr & 1) fault(addr, true, fc);
            busWrite(addr, std::uint16_t(v), fc, true, true);
        } else {
            if (addr & 1) fault(addr, true, fc);
            busWrite(addr, std::uint16_t(v >> 16), fc, true, true);
            busWrite(addr + 2, std::uint16_t(v), fc, true, true);
        }
    }
    // Long write, low word (addr + 2) first: predecrement destinations and the
    // read-modify-write instructions store this way.
    template <int S>
    void writeLowFirst(std::uint32_t addr, std::uint32_t v) {
        if constexpr (S != 4) {
            write<S>(addr, v);
        } else {
            FunctionCode fc = fcData();
            if (addr & 1) fault(addr + 2, true, fc);
            busWrite(addr + 2, std::uint16_t(v), fc, true, true);
            busWrite(addr, std::uint16_t(v >> 16), fc, true, true);
        }
    }

    std::uint16_t fetchWord() {
        FunctionCode fc = fcProgram();
        if (pc_ & 1) fault(pc_, false, fc);
        std::uint16_t w = busRead(pc_, fc, true, true);
        pc_ += 2;
        return w;
    }
    // Consumes the extension word in IRC and refills IRC ("np").
    std::uint16_t ext() {
        std::uint16_t v = irc_;
        irc_ = fetchWord();
        return v;
    }
    // Final prefetch of an instruction ("np"): IRC moves to IRD, IRC refills.
    void prefetch() {
        ird_ = irc_;
        irc_ = fetchWord();
    }
    // Fills both queue words from pc_ ("np np", or "np n np" after an exception).
    void fillQueue(bool gap) {
        irc_ = fetchWord();
        if (gap) idle(2);
        ird_ = irc_;
        irc_ = fetchWord();
    }

    // ---- register helpers ---------------------------------------------------------
    template <int S>
    static constexpr std::uint32_t mask() {
        return S == 1 ? 0xFFu : S == 2 ? 0xFFFFu : 0xFFFFFFFFu;
    }
    template <int S>
    static constexpr std::uint32_t msb() {
        return S == 1 ? 0x80u : S == 2 ? 0x8000u : 0x80000000u;
    }
    template <int S>
    static constexpr std::uint32_t sext(std::uint32_t v) {
        if constexpr (S == 1)
            return std::uint32_t(std::int32_t(std::int8_t(v)));
        else if constexpr (S == 2)
            return std::uint32_t(std::int32_t(std::int16_t(v)));
        else
            return v;
    }
    template <int S>
    void setD(unsigned r, std::uint32_t v) {
        reg_[r] = (reg_[r] & ~mask<S>()) | (v & mask<S>());
    }
    template <int S>
    void setNZ(std::uint32_t v) {
        n_ = v & msb<S>();
        z_ = !(v & mask<S>());
    }
    template <int S>
    void setLogic(std::uint32_t v) {
        setNZ<S>(v);
        v_ = c_ = false;
    }

    // ---- ALU ----------------------------------------------------------------------
    // Z for a result: the X-extended forms (ADDX, SUBX, NEGX) only ever clear it, so a
    // multi-precision chain reports zero only when every part was zero.
    void setZ(std::uint32_t r, bool extended) {
        if (!extended) z_ = !r;
        else if (r) z_ = false;
    }
    template <int S>
    std::uint32_t add(std::uint32_t d, std::uint32_t s, bool withX = false) {
        std::uint64_t r64 = std::uint64_t(d & mask<S>()) + (s & mask<S>()) + (withX && x_);
        std::uint32_t r = std::uint32_t(r64) & mask<S>();
        c_ = x_ = (r64 >> (S * 8)) & 1;
        v_ = ((s ^ r) & (d ^ r)) & msb<S>();
        n_ = r & msb<S>();
        setZ(r, withX);
        return r;
    }
    template <int S>
    std::uint32_t sub(std::uint32_t d, std::uint32_t s, bool withX = false, bool setX = true) {
        std::uint64_t r64 =
            std::uint64_t(d & mask<S>()) - (s & mask<S>()) - ((withX && x_) ? 1 : 0);
        std::uint32_t r = std::uint32_t(r64) & mask<S>();
        c_ = (r64 >> (S * 8)) & 1;
        if (setX) x_ = c_;
        v_ = ((s ^ d) & (r ^ d)) & msb<S>();
        n_ = r & msb<S>();
        setZ(r, withX);
        return r;
    }

    // ---- effective addresses ------------------------------------------------------
    template <int S>
    static constexpr std::uint32_t step_(unsigned reg) {
        return (S == 1 && reg == 7) ? 2 : S;
    }
    std::uint32_t indexed(std::uint32_t base) {
        std::uint16_t e = ext();
        std::uint32_t x = reg_[e >> 12];
        if (!(e & 0x800)) x = std::uint32_t(std::int32_t(std::int16_t(x)));
        return base + x + std::uint32_t(std::int32_t(std::int8_t(e)));
    }
    // Effective address of a memory mode, with the extension fetches and internal
    // clocks the 68000 spends computing it. (An)+ and -(An) update An here.
    template <int S>
    std::uint32_t eaAddr(unsigned mode, unsigned r) {
        switch (mode) {
        case 2: return reg_[8 + r];
        case 3: {
            std::uint32_t a = reg_[8 + r];
            reg_[8 + r] += step_<S>(r);
            return a;
        }
        case 4:
            idle(2);
            reg_[8 + r] -= step_<S>(r);
            return reg_[8 + r];
        case 5: {
            std::uint32_t base = reg_[8 + r];
            return base + std::uint32_t(std::int32_t(std::int16_t(ext())));
        }
        case 6: idle(2); return indexed(reg_[8 + r]);
        default:
            switch (r) {
            case 0: return std::uint32_t(std::int32_t(std::int16_t(ext())));
            case 1: {
                std::uint32_t hi = ext();
                return (hi << 16) | ext();
            }
            case 2: {
                std::uint32_t base = pc_ - 2;
                return base + std::uint32_t(std::int32_t(std::int16_t(ext())));
            }
            default: {
                idle(2);
                return indexed(pc_ - 2);
            }
            }
        }
    }
    static constexpr bool isPcRelative(unsigned mode, unsigned r) {
        return mode == 7 && (r == 2 || r == 3);
    }
    // Reads a source operand of any mode.
    template <int S>
    std::uint32_t readEa(unsigned mode, unsigned r) {
        if (mode == 0) return reg_[r] & mask<S>();
        if (mode == 1) return reg_[8 + r] & mask<S>();
        if (mode == 7 && r == 4) {
            if constexpr (S == 4) {
                std::uint32_t hi = ext();
                return (hi << 16) | ext();
            } else {
                return ext() & mask<S>();
            }
        }
        std::uint32_t a = eaAddr<S>(mode, r);
        return read<S>(a, isPcRelative(mode, r) ? fcProgram() : fcData());
    }

    // ---- exceptions ---------------------------------------------------------------
    // Group 1/2 exception: stacks PC and SR (PC low, SR, PC high, as the bus shows it),
    // reads the vector and refills the queue ("ns nS ns nV nv np n np").
    void exception(unsigned vector, std::uint32_t pushPc, unsigned idleBefore) {
        exceptionFrom(sr(), vector, pushPc, idleBefore);
    }
    void exceptionFrom(std::uint16_t oldSr, unsigned vector, std::uint32_t pushPc,
                       unsigned idleBefore) {
        std::uint64_t start = cycles_;
        idle(idleBefore);
        setSupervisor(true);
        t_ = false;
        stopped_ = false;
        std::uint32_t sp = reg_[15];
        write<2>(sp - 2, pushPc & 0xFFFF);
        write<2>(sp - 6, oldSr);
        write<2>(sp - 4, pushPc >> 16);
        reg_[15] = sp - 6;
        enterHandler(vector, pushPc, oldSr, start);
    }
    void enterHandler(unsigned vector, std::uint32_t pushPc, std::uint16_t oldSr,
                      std::uint64_t start) {
        std::uint32_t target = read<4>(vector * 4u, FunctionCode::SupervisorData);
        pc_ = target;
        if (hooks_ & kHookException) {
            ExceptionInfo e;
            e.vector = std::uint8_t(vector);
            e.cycle = start;
            e.frameAddress = reg_[15];
            e.pushedPc = pushPc;
            e.pushedSr = oldSr;
            e.handler = target;
            e.cycles = std::uint32_t(cycles_ - start);
            observer_->exceptionTaken(e);
        }
        fillQueue(true);
    }

    // Address error processing (group 0): 8 internal clocks after the aborted cycle,
    // then the 7-word frame (PC low, SR, PC high, IR, address low, status, address high).
    void addressError() {
        std::uint64_t start = cycles_ - 4;
        idle(8);
        std::uint16_t oldSr = sr();
        std::uint16_t ir = aeUseOp_ ? op_ : ird_;
        aeUseOp_ = false;
        std::uint16_t status =
            std::uint16_t((ir & 0xFFE0) | (faultWrite_ ? 0 : 0x10) | unsigned(faultFc_));
        std::uint32_t pushPc = faultPc_;
        setSupervisor(true);
        t_ = false;
        std::uint32_t sp = reg_[15];
        write<2>(sp - 2, pushPc & 0xFFFF);
        write<2>(sp - 6, oldSr);
        write<2>(sp - 4, pushPc >> 16);
        write<2>(sp - 8, ir);
        write<2>(sp - 10, faultAddress_ & 0xFFFF);
        write<2>(sp - 14, status);
        write<2>(sp - 12, faultAddress_ >> 16);
        reg_[15] = sp - 14;
        enterHandler(kVectorAddressError, pushPc, oldSr, start);
    }

    // ---- step ---------------------------------------------------------------------
    bool interruptWanted() const {
        unsigned lvl = iplSampled_;
        return lvl > intMask_ || nmiPending_;
    }
    bool wakeable() const {
        if (halted_) return false;
        return tracePending_ || iplNow_ > intMask_ || nmiEdge_;
    }

    // Samples IPL as the last bus cycle of an instruction saw it.
    void sampleIpl() {
        std::uint64_t at = lastBusCycle_ + 2;
        iplSampled_ = levelAt(at);
        if (nmiEdge_ && nmiEdgeAt_ <= at) {
            nmiPending_ = true;
            nmiEdge_ = false;
        }
        interruptPending_ = interruptWanted();
    }

    template <bool Hooks>
    std::uint32_t stepImpl() {
        std::uint64_t start = cycles_;
        if (halted_) {
            cycles_ += 2;
            return 2;
        }
        waits_ = 0;
        try {
            if (tracePending_) {
                tracePending_ = false;
                std::uint32_t next = instructionAddress();
                stopped_ = false;
                exception(kVectorTrace, next, 4);
                sampleIpl();
                return std::uint32_t(cycles_ - start);
            }
            if (stopped_) {
                // STOP: the CPU waits for an interrupt, checking IPL every clock pair.
                lastBusCycle_ = cycles_;
                sampleIpl();
                if (!interruptPending_) {
                    cycles_ += 2;
                    return 2;
                }
            }
            if (interruptPending_) {
                interrupt();
                sampleIpl();
                return std::uint32_t(cycles_ - start);
            }
            std::uint32_t pc = pc_ - 4;
            std::uint16_t op = ird_;
            if constexpr (Hooks) {
                if (hooks_ & kHookBefore) {
                    InstructionInfo info{pc, op, start};
                    observer_->beforeInstruction(info, registers());
                }
            }
            bool trace = t_;
            instrPc_ = pc;
            op_ = op;
            noTrace_ = false;
            table_[op](*this);
            // Illegal, line A/F and privilege exceptions are not traced (MC68000 User's
            // Manual 6.3.8); TRAP, TRAPV, CHK and divide by zero are, after their frame.
            if (trace && !noTrace_) tracePending_ = true;
            ++instructions_;
            sampleIpl();
            if constexpr (Hooks) {
                if (hooks_ & kHookRetire) {
                    RetireInfo info{pc, op, start, std::uint32_t(cycles_ - start),
                                    std::uint32_t(waits_)};
                    observer_->instructionRetired(info);
                }
            }
        } catch (const AddressFault&) {
            handleFault();
            sampleIpl();
        }
        return std::uint32_t(cycles_ - start);
    }

    void handleFault() {
        try {
            addressError();
        } catch (const AddressFault&) {
            // An address error while stacking a group 0 frame: double bus fault. The
            // 68000 stops and asserts HALT until it is reset.
            halted_ = true;
            stopped_ = false;
        }
    }

    // Interrupt acknowledge sequence (44 clocks without waits): "n nn ns ni n- n nS ns nV
    // nv np n np" in Yacht's notation, the IACK cycle in the middle.
    void interrupt() {
        std::uint64_t start = cycles_;
        unsigned level = nmiPending_ ? 7u : iplSampled_;
        nmiPending_ = false;
        interruptPending_ = false;
        std::uint32_t pushPc = instructionAddress();
        stopped_ = false;
        std::uint16_t oldSr = sr();
        setSupervisor(true);
        t_ = false;
        intMask_ = level;
        idle(6);
        std::uint32_t sp = reg_[15];
        write<2>(sp - 2, pushPc & 0xFFFF);
        BusCycle c;
        c.cycle = cycles_;
        c.address = 0xFFFFF0u | (level << 1);
        c.fc = FunctionCode::InterruptAcknowledge;
        c.op = BusOp::InterruptAcknowledge;
        c.lower = true;
        c.upper = false;
        unsigned w = bus_.access(c);
        cycles_ += 4 + w;
        waits_ += w;
        unsigned vector;
        if (c.data == kAutovector)
            vector = kVectorAutovector1 - 1 + level;
        else if (c.data == kSpurious)
            vector = kVectorSpurious;
        else
            vector = c.data & 0xFF;
        lastIrqLevel_ = std::uint8_t(level);
        lastIrqVector_ = std::uint8_t(vector);
        idle(4);
        write<2>(sp - 6, oldSr);
        write<2>(sp - 4, pushPc >> 16);
        reg_[15] = sp - 6;
        enterHandler(vector, pushPc, oldSr, start);
    }

    // ---- instruction helpers ------------------------------------------------------
    unsigned opReg9() const { return (op_ >> 9) & 7; }
    unsigned opMode() const { return (op_ >> 3) & 7; }
    unsigned opReg() const { return op_ & 7; }

    void privilegeViolation() {
        noTrace_ = true;
        exception(kVectorPrivilege, instrPc_, 4);
    }

    bool cond(unsigned cc) const {
        switch (cc & 15) {
        case 0: return true;
        case 1: return false;
        case 2: return !c_ && !z_;
        case 3: return c_ || z_;
        case 4: return !c_;
        case 5: return c_;
        case 6: return !z_;
        case 7: return z_;
        case 8: return !v_;
        case 9: return v_;
        case 10: return !n_;
        case 11: return n_;
        case 12: return n_ == v_;
        case 13: return n_ != v_;
        case 14: return !z_ && n_ == v_;
        default: return z_ || n_ != v_;
        }
    }

#include "emu/cpu/m68k_ops.inc"

    // ---- dispatch -----------------------------------------------------------------
    template <void (Cpu::*M)()>
    static void thunk(Cpu& c) {
        (c.*M)();
    }
    static const Handler* dispatchTable() {
        static const std::unique_ptr<Handler[]> table = buildTable();
        return table.get();
    }
#include "emu/cpu/m68k_decode.inc"

    // ---- members ------------------------------------------------------------------
    B& bus_;
    const Handler* table_;
    std::uint32_t reg_[16]{}; // D0-D7, A0-A7 (A7 is the active stack pointer)
    std::uint32_t otherSp_ = 0;
    std::uint32_t pc_ = 0;
    std::uint16_t ird_ = 0;
    std::uint16_t irc_ = 0;
    bool x_ = false, n_ = false, z_ = false, v_ = false, c_ = false;
    bool t_ = false, s_ = true;
    unsigned intMask_ = 7;

    std::uint64_t cycles_ = 0;
    std::uint64_t waits_ = 0;
    std::uint64_t lastBusCycle_ = 0;
    std::uint32_t instrPc_ = 0;
    std::uint16_t op_ = 0; // opcode of the instruction running (IRD moves on at its prefetch)

    // address error bookkeeping
    std::uint32_t faultAddress_ = 0;
    std::uint32_t faultPc_ = 0;
    FunctionCode faultFc_ = FunctionCode::SupervisorData;
    bool faultWrite_ = false;
    bool aeUseOp_ = false; // the frame's IR is the running opcode, not IRD

    // interrupt lines
    unsigned iplNow_ = 0, iplBefore_ = 0, iplSampled_ = 0;
    std::uint64_t iplChangedAt_ = 0;
    std::uint64_t nmiEdgeAt_ = 0;
    bool nmiEdge_ = false, nmiPending_ = false;
    bool interruptPending_ = false;
    bool tracePending_ = false;
    bool stopped_ = false;
    std::uint8_t lastIrqLevel_ = 0, lastIrqVector_ = 0;
    bool halted_ = false;
    std::uint64_t resetCount_ = 0;
    std::uint64_t instructions_ = 0;
    bool noTrace_ = false;

    Observer* observer_ = nullptr;
    unsigned hooks_ = 0;
};

} // namespace copperline::m68k
