// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/strip/strip_cutter.h"

namespace copperline::strip {

const char* modeName(StripCutter::Mode mode) {
    switch (mode) {
    case StripCutter::Mode::Pass: return "pass";
    case StripCutter::Mode::Call: return "call";
    case StripCutter::Mode::Until: return "until";
    }
    return "pass";
}

std::optional<StripCutter::Mode> modeFromName(const std::string& name) {
    if (name == "pass") return StripCutter::Mode::Pass;
    if (name == "call") return StripCutter::Mode::Call;
    if (name == "until") return StripCutter::Mode::Until;
    return std::nullopt;
}

void StripCutter::set(const Spec& spec) {
    spec_ = spec;
    if (spec_.mode != Mode::Until) spec_.end.reset();
    frames_.clear();
    open_.reset();
    evicted_ = 0;
    nextSerial_ = 0;
    ++generation_;
}

void StripCutter::close(const StripPoint& at) {
    StripFrame f = *open_;
    open_.reset();
    f.end = at;
    frames_.push_back(f);
    while (frames_.size() * cutsPerFrame() > kMaxCuts) {
        frames_.pop_front();
        ++evicted_;
    }
}

void StripCutter::begin(const Boundary& b) {
    StripFrame f;
    f.serial = nextSerial_++;
    f.begin = b.at;
    f.supervisor = b.supervisor;
    f.sp = b.supervisor ? b.ssp : b.usp;
    open_ = f;
}

void StripCutter::boundary(const Boundary& b) {
    // The same boundary told again (a run resumed where a breakpoint stopped it) cuts once.
    if (seen_ && b.at.cycle == lastSeen_) return;
    seen_ = true;
    lastSeen_ = b.at.cycle;
    if (!armed()) return;
    // A call ends first: a start right after a return begins the next one.
    if (callOpen()) {
        const std::uint32_t sp = open_->supervisor ? b.ssp : b.usp;
        if (sp > open_->sp && sp - open_->sp <= kCallReach && !b.interruptPending) close(b.at);
    }
    if (spec_.end && b.pc == *spec_.end && open_ && !b.stopped && spec_.mode == Mode::Until) close(b.at);
    if (b.pc != *spec_.start || b.stopped) return;
    switch (spec_.mode) {
    case Mode::Pass:
    case Mode::Until:
        if (open_) close(b.at);
        begin(b);
        break;
    case Mode::Call:
        // A start reached inside an open call (recursion, an interrupt landing in it) is
        // counted in the outer one.
        if (!open_) begin(b);
        break;
    }
}

void StripCutter::runFrom(std::uint64_t cycle) {
    if (cycle >= lastSeen_) return;
    lastSeen_ = cycle;
    seen_ = false;
    if (open_ && open_->begin.cycle >= cycle) open_.reset();
    while (!frames_.empty() && frames_.back().end.cycle > cycle) {
        const StripFrame f = frames_.back();
        frames_.pop_back();
        // The machine stands inside it: it is open again, to end as it will.
        if (f.begin.cycle < cycle) open_ = f;
    }
}

} // namespace copperline::strip
