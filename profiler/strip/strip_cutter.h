// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The profile strip's cuts (source document 002, "Where a profiling frame begins" and
// "How a profiling frame ends"; docs/profile-strip.md): profiling frames that begin each
// time the instruction at `start` is about to run and end by `mode`:
//
// - pass: where the next begins, so that the frames lie end to end;
// - call: when the call it began with returns: the stack pointer (of the mode the start
//   ran in) stands above where it stood as the start was about to run, by at most
//   kCallReach bytes. A start reached again before that is inside the open call;
// - until: when the instruction at `end` is about to run, or at the next start; without
//   an end, where the next begins, as a pass.
//
// A start reached while the CPU is stopped (STOP) begins nothing. A spec given anew drops
// every frame cut by the old one. Cuts are made only while the machine runs forward (the
// emulator's run loop tells the cutter of boundaries; the record's replays do not), and a
// run from an earlier moment drops what was cut after it. The latest kMaxCuts cuts are
// kept: a pass takes one, a call or a stretch two.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace copperline::strip {

struct StripPoint {
    std::uint64_t cycle = 0;        // the master clock of the boundary (68000 cycles)
    std::uint64_t instructions = 0; // retired instructions: the record's position
    std::uint64_t cck = 0;
    std::uint64_t frame = 0;        // the machine's frame count at the boundary
};

struct StripFrame {
    std::uint64_t serial = 0; // its number since the spec was given: strip.bars' "bar"
    StripPoint begin, end;
    // call: the stack pointer as the start was about to run, and which one it was.
    std::uint32_t sp = 0;
    bool supervisor = false;
    std::uint64_t lengthCck() const { return end.cck - begin.cck; }
    // The vertical blanks that fell inside it.
    std::uint64_t framesSpanned() const { return end.frame - begin.frame; }
};

class StripCutter {
public:
    enum class Mode : std::uint8_t { Pass, Call, Until };
    struct Spec {
        std::optional<std::uint32_t> start;
        Mode mode = Mode::Pass;
        std::optional<std::uint32_t> end; // until only
    };
    static constexpr std::size_t kMaxCuts = 4096;
    // How far above the start's stack pointer a return may leave it: RTS pops 4 bytes and
    // RTR and RTE (the 68000's short frame) 6, and a routine may pop a few bytes of
    // arguments too (RTD's job, which the 68000 lacks); a routine that moves the stack
    // pointer further has borrowed it and not returned. 32 bytes: eight longwords.
    static constexpr std::uint32_t kCallReach = 32;

    // One instruction boundary as the run loop sees it: where the CPU is, its stacks.
    struct Boundary {
        std::uint32_t pc = 0;
        bool stopped = false;
        bool supervisor = false;
        std::uint32_t usp = 0, ssp = 0;
        // An interrupt will be taken before the instruction at pc runs: a call that has
        // just returned is not over until it has been served.
        bool interruptPending = false;
        StripPoint at;
    };

    // Begins anew: the frames of the old spec are dropped.
    void set(const Spec& spec);
    const Spec& spec() const { return spec_; }
    // Raised by every set(), the same spec given again included: the panes share their
    // places out anew.
    std::uint64_t generation() const { return generation_; }
    bool armed() const { return spec_.start.has_value(); }

    // Whether the run loop must describe the boundary at `pc`: the start, the end, or any
    // boundary while a call is open. One comparison or two when armed.
    bool wants(std::uint32_t pc) const {
        return armed() && (pc == *spec_.start || (spec_.end && pc == *spec_.end) || callOpen());
    }
    void boundary(const Boundary& b);

    // The machine runs on from `cycle` (after standing in the past): the cuts after it
    // belong to a timeline that will not come again. A frame it stands inside is open again.
    void runFrom(std::uint64_t cycle);

    // The frames that have ended, oldest first; and the one still open.
    const std::deque<StripFrame>& frames() const { return frames_; }
    const std::optional<StripFrame>& open() const { return open_; }
    // Frames dropped at the left for the cut limit since the spec was given.
    std::uint64_t evicted() const { return evicted_; }

private:
    bool callOpen() const { return spec_.mode == Mode::Call && open_.has_value(); }
    std::size_t cutsPerFrame() const { return spec_.mode == Mode::Pass ? 1 : 2; }
    void close(const StripPoint& at);
    void begin(const Boundary& b);

    Spec spec_;
    std::deque<StripFrame> frames_;
    std::optional<StripFrame> open_;
    std::uint64_t lastSeen_ = 0;
    bool seen_ = false;
    std::uint64_t nextSerial_ = 0;
    std::uint64_t generation_ = 0;
    std::uint64_t evicted_ = 0;
};

const char* modeName(StripCutter::Mode mode);
std::optional<StripCutter::Mode> modeFromName(const std::string& name);

} // namespace copperline::strip
