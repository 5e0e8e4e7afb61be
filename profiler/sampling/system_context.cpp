// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/sampling/system_context.h"

namespace copperline {

void InterruptNesting::entered(unsigned level, std::uint32_t ssp) {
    // Nesting deeper than the seven levels means frames were dropped without an RTE (a
    // task switch reset the stack): the oldest are gone.
    if (irqs_.size() >= 64) irqs_.erase(irqs_.begin());
    irqs_.push_back({std::uint8_t(level ? level & 7 : 1), ssp});
}

void InterruptNesting::stepStarts(std::uint16_t sr, std::uint32_t a7) {
    if (irqs_.empty()) return;
    if (!(sr & 0x2000)) {
        irqs_.clear();
        return;
    }
    while (!irqs_.empty() && a7 > irqs_.back().ssp) irqs_.pop_back();
}

} // namespace copperline
