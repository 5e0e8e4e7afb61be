// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// When a pane asks its commands again: at each stop, a paused snapshot at a new place (its
// instruction count or its clock moved), and, for a pane that was hidden at a stop, once it
// is shown (a hidden pane asks nothing: some answers replay the record).

#include "app/control/snapshot.h"

#include <cstdint>

namespace copperline {

class StopFollower {
public:
    // Whether the pane should ask now: a stop it has not seen, while it shows. A stop seen
    // while hidden is remembered for shown().
    bool newStop(const Snapshot& s, bool visible) {
        if (s.running || (s.instructions == instructions_ && s.cck == cck_)) return false;
        instructions_ = s.instructions;
        cck_ = s.cck;
        if (!visible) {
            missed_ = true;
            return false;
        }
        return true;
    }
    // On being shown: whether a stop came while the pane was hidden.
    bool shown() const { return missed_; }
    // The pane asked its commands: nothing is missed any more.
    void asked() { missed_ = false; }

private:
    std::uint64_t instructions_ = ~std::uint64_t(0), cck_ = ~std::uint64_t(0);
    bool missed_ = false;
};

} // namespace copperline
