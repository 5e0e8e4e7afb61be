// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The steps of a replay as the call tree reads them (call_tree.h): a ReplayVisitor that
// looks at the machine at every boundary of a stretch the record replays and tells the
// builder what each step between two boundaries was. It reads the CPU's registers and
// memory without side effects, so the replay is the machine's own.
//
// How a step is told apart, from the boundaries before and after it:
// - an exception entry: the CPU is in supervisor mode after it, the supervisor stack
//   pointer is 6 bytes lower (the 68000's frame) and the PC in that frame is where the CPU
//   stood (an interrupt, taken before the instruction ran; the level is the new SR mask) or
//   past the instruction that raised it (TRAP, TRAPV, CHK, a divide by zero);
// - a call: JSR or BSR, the stack pointer 4 lower and the return address on it;
// - a return: RTS, RTR or RTE; its stack pointer is the one it popped from, after it;
// - a stretch in STOP: the CPU was stopped at the boundary before;
// - anything else is an instruction, the jumps among them.

#include "emu/record/record.h"
#include "profiler/strip/call_tree.h"

namespace copperline::strip {

class TreeReplay : public ReplayVisitor {
public:
    explicit TreeReplay(CallTreeBuilder& builder) : builder_(builder) {}
    void beginStretch() override { have_ = false; }
    bool boundary(Machine& m) override;
    std::uint64_t steps() const { return steps_; }

private:
    struct At {
        std::uint32_t pc = 0, usp = 0, ssp = 0;
        std::uint16_t sr = 0, op = 0;
        std::uint64_t cycle = 0;
        bool stopped = false;
    };
    static At read(const Machine& m);
    TraceStep classify(const At& a, const At& b, const Machine& m) const;

    CallTreeBuilder& builder_;
    At last_;
    bool have_ = false;
    std::uint64_t steps_ = 0;
};

} // namespace copperline::strip
