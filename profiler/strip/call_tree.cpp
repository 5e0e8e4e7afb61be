// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/strip/call_tree.h"

#include <algorithm>
#include "emu/hex.h"

namespace copperline::strip {

CallTreeBuilder::CallTreeBuilder(Namer namer, std::string frameName, std::uint32_t start, std::uint32_t sp,
                                 bool supervisor)
    : namer_(std::move(namer)), frameName_(std::move(frameName)) {
    nodes_.push_back({CallNode::Kind::Frame, start, 0, 0, 1, {}, 0, 0});
    // The routine the frame began in: its return address, if a call brought it here, lies
    // at the stack pointer as its first instruction was about to run.
    push(CallNode::Kind::Routine, start, sp, supervisor, false);
}

std::size_t CallTreeBuilder::child(std::size_t parent, CallNode::Kind kind, std::uint32_t at) {
    for (const std::size_t c : nodes_[parent].children)
        if (nodes_[c].kind == kind && nodes_[c].at == at) return c;
    if (nodes_.size() >= kMaxRoutines) return SIZE_MAX;
    nodes_.push_back({kind, at, parent, 0, 0, {}, 0, 0});
    nodes_[parent].children.push_back(nodes_.size() - 1);
    return nodes_.size() - 1;
}

void CallTreeBuilder::push(CallNode::Kind kind, std::uint32_t at, std::uint32_t slot, bool supervisor, bool jump,
                           std::uint8_t level, std::uint8_t vector) {
    // An interrupt stands under the frame, everything else under the routine running.
    const std::size_t parent = kind == CallNode::Kind::Interrupt ? 0 : top();
    std::size_t node = open_.size() < kMaxDepth ? child(parent, kind, at) : SIZE_MAX;
    if (node == SIZE_MAX) {
        // Past the limits: counted in its caller, its return still paired with its call.
        ++overflowed_;
        node = top();
    } else {
        ++nodes_[node].calls;
        nodes_[node].level = level;
        nodes_[node].vector = vector;
        enteredLast_ = node;
    }
    open_.push_back({node, slot, supervisor, jump, at});
}

void CallTreeBuilder::endBelow(std::uint32_t sp, bool supervisor, bool inclusive) {
    // The earliest open call on this stack whose return address lies below `sp` (or at it):
    // it ends, and every call made after it.
    for (std::size_t i = 0; i < open_.size(); ++i) {
        const Open& o = open_[i];
        if (o.supervisor == supervisor && (inclusive ? o.slot <= sp : o.slot < sp)) {
            open_.resize(i);
            return;
        }
    }
}

void CallTreeBuilder::step(const TraceStep& s) {
    enteredLast_.reset();
    nodes_[top()].self += s.cck;
    switch (s.kind) {
    case TraceStep::Kind::Call:
        // A return address stored where an open call's lay: that call was abandoned.
        endBelow(s.sp, s.supervisor, true);
        push(CallNode::Kind::Routine, s.next, s.sp, s.supervisor, false);
        return;
    case TraceStep::Kind::Exception:
        endBelow(s.sp, s.supervisor, true);
        push(s.level > 0 ? CallNode::Kind::Interrupt : CallNode::Kind::Routine, s.next, s.sp, s.supervisor, false,
             s.level, s.vector);
        return;
    case TraceStep::Kind::Return: {
        const std::size_t open = open_.size();
        endBelow(s.sp, s.supervisor, false);
        // A return that ends no call went where an address pushed for it said: a call by
        // PEA and RTS (AROS calls its interrupt servers so). Arriving at a name that way
        // makes a routine of its own, marked as a jump, ended by the return that pops the
        // address now on the stack.
        if (open_.size() == open && !open_.empty() && namer_ && namer_(s.next))
            push(CallNode::Kind::Jump, s.next, s.sp, s.supervisor, true);
        return;
    }
    case TraceStep::Kind::Stopped: return;
    case TraceStep::Kind::Instruction: break;
    }
    // A jump or a fall-through. Back to the first instruction of a routine on the chain of
    // jumps the routine running was reached by: a return to it.
    for (std::size_t i = open_.size(); i-- > 0;) {
        if (open_[i].entry == s.next) {
            open_.resize(i + 1);
            return;
        }
        if (!open_[i].jump) break;
    }
    if (open_.empty()) return; // the frame's own code: no routine to leave
    if (!namer_ || !namer_(s.next)) return;
    const Open left = open_.back();
    push(CallNode::Kind::Jump, s.next, left.slot, left.supervisor, true);
}

CallNode CallTreeBuilder::build(std::size_t index) const {
    const Node& n = nodes_[index];
    CallNode out;
    out.kind = n.kind;
    out.at = n.at;
    out.self = n.self;
    out.calls = n.calls;
    if (n.kind == CallNode::Kind::Frame) {
        out.routine = frameName_;
        out.named = true;
    } else if (auto name = namer_ ? namer_(n.at) : std::nullopt) {
        out.routine = *name;
        out.named = true;
    } else if (n.kind == CallNode::Kind::Interrupt) {
        out.routine = "interrupt L" + std::to_string(n.level);
    } else if (n.vector >= 32 && n.vector < 48) {
        out.routine = "trap #" + std::to_string(n.vector - 32);
    } else if (n.vector) {
        out.routine = "exception " + std::to_string(n.vector);
    } else {
        out.routine = amigaHex(n.at);
    }
    out.total = n.self;
    for (const std::size_t c : n.children) {
        out.children.push_back(build(c));
        out.total += out.children.back().total;
    }
    std::stable_sort(out.children.begin(), out.children.end(), [](const CallNode& a, const CallNode& b) {
        return a.total != b.total ? a.total > b.total : a.at < b.at;
    });
    return out;
}

CallNode CallTreeBuilder::finish() {
    // Entered by the frame's last step, a routine ran nothing inside the frame: it was not
    // reached in it (a pass's loop calling the routine the next pass begins at).
    if (enteredLast_ && *enteredLast_ != 0) {
        Node& n = nodes_[*enteredLast_];
        if (--n.calls == 0 && n.self == 0 && n.children.empty()) {
            auto& siblings = nodes_[n.parent].children;
            siblings.erase(std::remove(siblings.begin(), siblings.end(), *enteredLast_), siblings.end());
        }
    }
    return build(0);
}

nlohmann::json callTreeJson(const CallNode& node, double cckPerSecond) {
    static constexpr const char* kinds[] = {"frame", "routine", "jump", "interrupt"};
    const double us = 1e6 / cckPerSecond;
    nlohmann::json j = {{"routine", node.routine},
                        {"at", node.at},
                        {"named", node.named},
                        {"kind", kinds[unsigned(node.kind)]},
                        {"total_cck", node.total},
                        {"self_cck", node.self},
                        {"total_us", double(node.total) * us},
                        {"self_us", double(node.self) * us},
                        {"calls", node.calls}};
    nlohmann::json children = nlohmann::json::array();
    for (const CallNode& c : node.children) children.push_back(callTreeJson(c, cckPerSecond));
    j["children"] = std::move(children);
    return j;
}

} // namespace copperline::strip
