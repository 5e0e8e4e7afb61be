// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/copper.h"

#include "emu/chipset/custom_regs.h"
#include "emu/state/archive.h"

namespace copperline {

void Copper::reset() { *this = Copper{}; }

void Copper::poke(std::uint16_t r, std::uint16_t v) {
    switch (r) {
    case reg::COP1LCH: cop1lc_ = (cop1lc_ & 0x0000FFFF) | std::uint32_t(v & 0x1F) << 16; break;
    case reg::COP1LCL: cop1lc_ = (cop1lc_ & 0xFFFF0000) | (v & 0xFFFE); break;
    case reg::COP2LCH: cop2lc_ = (cop2lc_ & 0x0000FFFF) | std::uint32_t(v & 0x1F) << 16; break;
    case reg::COP2LCL: cop2lc_ = (cop2lc_ & 0xFFFF0000) | (v & 0xFFFE); break;
    case reg::COPJMP1:
    case reg::COPJMP2:
        jumpTarget_ = r == reg::COPJMP1 ? cop1lc_ : cop2lc_;
        state_ = State::Jump1;
        skipNext_ = false;
        break;
    case reg::COPCON: cdang_ = (v & 2) != 0; break;
    default: break;
    }
}

void Copper::startOfFrame(bool dmaOn) {
    pc_ = cop1lc_;
    state_ = dmaOn ? State::Fetch1 : State::Restart;
    skipNext_ = false;  // a SKIP does not reach into a restarted list
    trace_ = FrameTrace{};
    if (dmaOn) traceRun(pc_);
}

Copper::Step Copper::clock(std::uint16_t vpos, std::uint16_t hpos, bool busFree, bool blitterBusy,
                           const ChipRam& ram) {
    Step s;
    switch (state_) {
    case State::Idle:
    case State::Halted:
        break;
    case State::Jump1:
        state_ = State::Jump2;
        break;
    case State::Jump2:
        pc_ = jumpTarget_;
        state_ = State::Fetch1;
        traceRun(pc_);
        break;
    case State::Restart:
        if (!busFree) break;
        pc_ = cop1lc_;
        state_ = State::Fetch1;
        traceRun(pc_);
        [[fallthrough]];
    case State::Fetch1:
        if (!busFree) break;
        s.usedBus = true;
        s.address = pc_;
        s.data = ir1_ = ram.readWord(pc_);
        pc_ += 2;
        state_ = State::Fetch2;
        break;
    case State::Fetch2:
        if (!busFree) break;
        s.usedBus = true;
        s.address = pc_;
        s.data = ir2_ = ram.readWord(pc_);
        pc_ += 2;
        traceFetched();
        if (!(ir1_ & 1)) {
            // MOVE. A skipped MOVE is fetched but not executed.
            state_ = State::Fetch1;
            if (skipNext_) {
                skipNext_ = false;
                traceSkipped(pc_ - 4);
                break;
            }
            const std::uint16_t target = ir1_ & 0x1FE;
            // An illegal MOVE halts the Copper until the next frame (mayWrite).
            if (!mayWrite(target)) {
                s.illegal = true;
                state_ = State::Halted;
                break;
            }
            s.move = true;
            s.reg = target;
            s.value = ir2_;
        } else {
            skipNext_ = false;
            state_ = (ir2_ & 1) ? State::Skip : State::Wait;
        }
        break;
    case State::Wait:
        // $FFFF,$FFFE never matches: the list has ended.
        if (ir1_ == 0xFFFF && ir2_ == 0xFFFE) break;
        if (beamReached(vpos, hpos, blitterBusy)) state_ = State::Wakeup;
        break;
    case State::Skip:
        skipNext_ = beamReached(vpos, hpos, blitterBusy);
        state_ = State::Wakeup;
        break;
    case State::Wakeup:
        if (!busFree) break;
        s.usedBus = true;  // the wake-up clock holds the bus without moving data
        s.address = pc_;
        state_ = State::Fetch1;
        break;
    }
    return s;
}

void Copper::serialize(Archive& ar) {
    ar(state_, pc_, cop1lc_, cop2lc_, jumpTarget_, ir1_, ir2_, cdang_, skipNext_);
    // What ran before the loaded state in its frame is not in it (FrameTrace).
    if (ar.loading()) {
        trace_ = FrameTrace{};
        trace_.known = false;
    }
}

} // namespace copperline
