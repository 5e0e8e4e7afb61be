// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/blit_trace.h"

namespace copperline {

void BlitTrace::setEnabled(bool on) {
    if (on == enabled_) return;
    enabled_ = on;
    if (!on) clear();
}

void BlitTrace::begin(const BlitRecord& blit) {
    current_ = nullptr;
    if (!enabled_) return;
    BlitWords& b = blits_.emplace_back();
    b.blit = blit;
    b.lastFrame = blit.startFrame;
    current_ = &b;
}

void BlitTrace::frameCommitted(std::uint64_t frame) {
    // The deque keeps element addresses stable when elements leave its front, so the blit
    // in flight (the newest) stays where current_ points.
    while (!blits_.empty() && &blits_.front() != current_ &&
           blits_.front().lastFrame + kFramesKept <= frame) {
        for (const auto& w : blits_.front().words)
            total_ -= w.size();
        blits_.pop_front();
    }
}

void BlitTrace::clear() {
    blits_.clear();
    current_ = nullptr;
    total_ = 0;
}

const BlitWords* BlitTrace::find(std::uint32_t id) const {
    for (const BlitWords& b : blits_)
        if (b.blit.id == id) return &b;
    return nullptr;
}

} // namespace copperline
