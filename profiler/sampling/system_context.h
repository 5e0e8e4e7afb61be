// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What both samplers measure of the system around a CPU step, so that the system sampler's
// statistical samples and the precise sampler's exact ones are attributed by one set of
// rules (docs/profiling.md, "Attribution"):
// - the interrupt level being served: each interrupt entry is kept with the supervisor
//   stack pointer after its frame; its level is served until a step starts with the stack
//   pointer above that frame (RTE, or a stack reset by a task switch) or in user mode;
// - the system's modules: read by the one naming of code outside the program
//   (profiler/amigaos/code_namer.h, readCodeModules).

#include "profiler/sampling/system_samples.h"

#include <cstdint>
#include <vector>

namespace copperline {

class InterruptNesting {
public:
    // An interrupt of `level` (0 is taken as 1) was entered; `ssp` is A7 after its frame.
    void entered(unsigned level, std::uint32_t ssp);
    // A step starts with this SR and A7: the interrupts whose frames were popped end.
    void stepStarts(std::uint16_t sr, std::uint32_t a7);
    // The level being served (1-7), 0 for none.
    unsigned served() const { return irqs_.empty() ? 0 : irqs_.back().level; }
    // A7 right after the frame of the interrupt being served (its SR word), 0 for none: the
    // frames above it are the interrupted code's, not callers of the handler.
    std::uint32_t servedFrame() const { return irqs_.empty() ? 0 : irqs_.back().ssp; }
    void clear() { irqs_.clear(); }

private:
    struct Irq {
        std::uint8_t level;
        std::uint32_t ssp;
    };
    std::vector<Irq> irqs_;
};

} // namespace copperline
