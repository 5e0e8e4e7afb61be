// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The call tree of one profiling frame (the profile strip, source document 002, "Inside a
// profiling frame"): every colour clock of the frame set against the routine running, one
// routine inside another, built from the CPU's steps as a replay of the frame sees them.
//
// The builder knows nothing of the machine: a step says what kind it was (an ordinary
// instruction, a call that stored a return address, an exception entry, a return that took
// its target from the stack, a stretch stopped in STOP), where it went and where the stack
// stood after it. strip_trace.h makes such steps from a replay of the machine.
//
// The rules, adapted to the 68000:
// - A call (JSR, BSR, an exception entry) pushes a routine: the address the CPU went to.
//   A return (RTS, RTR, RTE) ends every open call whose return address lay below the stack
//   pointer it leaves (on the same stack): the call whose return address that was, and
//   every call made after it. A routine that rewrote its return address and returned
//   elsewhere ends so too; one that popped its return address and went on without
//   returning stays open until its caller returns, or until another call stores its return
//   address where that one lay.
// - An interrupt stands under the profiling frame, not under the routine it interrupted;
//   it is named by the symbol where its vector went, else "interrupt L<level>". A trap or
//   another exception an instruction raises is a call of the routine running.
// - Arriving at a name by a jump or by running on into it makes a routine of its own under
//   the one left, marked as a jump; it shares that routine's return. A jump back to the
//   first instruction of a routine on that chain returns to it (a loop to its own start).
//   A return that ends no call (an RTS to an address pushed for it: PEA, then RTS) arriving
//   at a name is such a routine too, ended by the return that pops the address then on the
//   stack.
// - A step's colour clocks are the Self of the routine running as it starts (a call's JSR
//   is its caller's, an interrupt's acknowledge the interrupted routine's), and a stretch
//   in STOP is the Self of the routine that stopped.
// - What runs after the routine the frame began in has returned is the frame's own Self.
// - At most kMaxRoutines routines and kMaxDepth calls deep; past either, a call is counted
//   in its caller.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace copperline::strip {

struct TraceStep {
    enum class Kind : std::uint8_t { Instruction, Call, Exception, Return, Stopped };
    Kind kind = Kind::Instruction;
    std::uint32_t pc = 0;   // where the step started (an exception entry: the PC it interrupted)
    std::uint32_t next = 0; // where the CPU stands after it
    std::uint64_t cck = 0;  // the colour clocks it took
    bool supervisor = false; // the stack it used: SSP (true) or USP
    // The stack pointer after the step. Call and Exception: where the return address now
    // lies (an exception's PC, 2 bytes into its frame); Return: above the popped frame.
    std::uint32_t sp = 0;
    std::uint8_t level = 0;  // Exception: the interrupt level (0: raised by an instruction)
    std::uint8_t vector = 0; // Exception: the vector taken
};

struct CallNode {
    enum class Kind : std::uint8_t { Frame, Routine, Jump, Interrupt };
    Kind kind = Kind::Routine;
    std::string routine;     // the symbol at its first instruction, or its address ("$00C01234")
    std::uint32_t at = 0;    // its first instruction
    bool named = false;      // a symbol stands at `at`
    std::uint64_t total = 0, self = 0; // colour clocks
    std::uint32_t calls = 0;
    std::vector<CallNode> children; // the longest first
};

class CallTreeBuilder {
public:
    static constexpr std::size_t kMaxRoutines = 4096;
    static constexpr std::size_t kMaxDepth = 256;
    // The name that stands at exactly `address` (nullopt: none).
    using Namer = std::function<std::optional<std::string>(std::uint32_t address)>;

    // `start` is the frame's first instruction, `sp` and `supervisor` the stack as it was
    // about to run: the routine the frame began in returns when a return leaves the stack
    // above `sp`.
    CallTreeBuilder(Namer namer, std::string frameName, std::uint32_t start, std::uint32_t sp, bool supervisor);

    void step(const TraceStep& s);
    // The tree: the frame's node with Total = Self + the children's everywhere, children
    // the longest first. The builder is spent.
    CallNode finish();
    // Routines that were counted in their callers for the limits.
    std::uint64_t overflowed() const { return overflowed_; }

private:
    struct Node {
        CallNode::Kind kind;
        std::uint32_t at = 0;
        std::size_t parent = 0;
        std::uint64_t self = 0;
        std::uint32_t calls = 0;
        std::vector<std::size_t> children;
        std::uint8_t level = 0, vector = 0; // an exception's, for its name
    };
    struct Open {
        std::size_t node = 0;
        std::uint32_t slot = 0;     // where its return address lies
        bool supervisor = false;
        bool jump = false;          // reached by a jump: shares the return of the one below
        std::uint32_t entry = 0;    // its first instruction
    };
    std::size_t child(std::size_t parent, CallNode::Kind kind, std::uint32_t at);
    void push(CallNode::Kind kind, std::uint32_t at, std::uint32_t slot, bool supervisor, bool jump,
              std::uint8_t level = 0, std::uint8_t vector = 0);
    void endBelow(std::uint32_t sp, bool supervisor, bool inclusive);
    CallNode build(std::size_t index) const;
    std::size_t top() const { return open_.empty() ? 0 : open_.back().node; }

    Namer namer_;
    std::string frameName_;
    // The node the latest step entered (a call, an exception, a jump), if it did: a frame
    // whose last step enters a routine (the next frame's start, say) ran none of it.
    std::optional<std::size_t> enteredLast_;
    std::vector<Node> nodes_;
    std::vector<Open> open_;
    std::uint64_t overflowed_ = 0;
};

// The tree as strip.tree gives it: {routine, at, named, kind, total, self, calls, children},
// colour clocks and microseconds at `cckPerSecond`.
nlohmann::json callTreeJson(const CallNode& node, double cckPerSecond);

} // namespace copperline::strip
