// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Several observers on one CPU: the core has a single observer slot (so an unarmed hook
// costs one branch), and this set sits in it, passing each event to every member that
// armed that hook. The profiler, coverage, breakpoints and `--run` attach through it
// (Machine::attachCpuObserver) without knowing of each other.

#include "emu/cpu/m68k_types.h"

#include <algorithm>
#include <vector>

namespace copperline::m68k {

class ObserverSet final : public Observer {
public:
    // Adds an observer, or changes the hooks of one already in the set.
    void add(Observer* o, unsigned hooks) {
        for (auto& m : members_)
            if (m.observer == o) {
                m.hooks = hooks;
                return;
            }
        members_.push_back({o, hooks});
    }
    void remove(Observer* o) {
        members_.erase(std::remove_if(members_.begin(), members_.end(), [o](const Member& m) { return m.observer == o; }),
                       members_.end());
    }
    // The union of the members' hooks: what the CPU must arm.
    unsigned hooks() const {
        unsigned h = 0;
        for (const auto& m : members_) h |= m.hooks;
        return h;
    }
    bool empty() const { return members_.empty(); }

    void beforeInstruction(const InstructionInfo& i, const Registers& r) override {
        for (const auto& m : members_)
            if (m.hooks & kHookBefore) m.observer->beforeInstruction(i, r);
    }
    void instructionRetired(const RetireInfo& i) override {
        for (const auto& m : members_)
            if (m.hooks & kHookRetire) m.observer->instructionRetired(i);
    }
    void exceptionTaken(const ExceptionInfo& e) override {
        for (const auto& m : members_)
            if (m.hooks & kHookException) m.observer->exceptionTaken(e);
    }

private:
    struct Member {
        Observer* observer;
        unsigned hooks;
    };
    std::vector<Member> members_;
};

} // namespace copperline::m68k
