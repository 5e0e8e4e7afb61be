// SPDX-License-Identifier: GPL-3.0-or-later
// The profile strip's call tree (profiler/strip/call_tree.h) on step traces made by hand:
// calls and returns, recursion, an interrupt under the frame, a routine reached by a jump
// and a loop back to its start, a stretch in STOP, return addresses rewritten and popped,
// the limits, and Total = Self + the children's everywhere.

#include "profiler/strip/call_tree.h"

#include <QtTest>
#include <cmath>
#include <map>

using namespace copperline::strip;
using Kind = TraceStep::Kind;

namespace {

// A user-mode program: main at $1000 calls work at $2000 (which calls leaf at $3000), a
// handler at $4000 that the level 3 vector leads to, and a stack from $8000 down.
const std::map<std::uint32_t, std::string> kNames = {
    {0x1000, "main"}, {0x2000, "work"}, {0x3000, "leaf"}, {0x4000, "vbl"}, {0x5000, "tail"}};

CallTreeBuilder::Namer namer() {
    return [](std::uint32_t a) -> std::optional<std::string> {
        const auto it = kNames.find(a);
        if (it == kNames.end()) return std::nullopt;
        return it->second;
    };
}

class Trace {
public:
    explicit Trace(std::uint32_t sp = 0x8000) : sp_(sp), b_(namer(), "frame", 0x1000, sp, false) {}
    // An instruction at pc that goes on to next.
    Trace& run(std::uint32_t pc, std::uint64_t cck, std::uint32_t next = 0) {
        b_.step({Kind::Instruction, pc, next ? next : pc + 2, cck, false, sp_, 0, 0});
        return *this;
    }
    Trace& call(std::uint32_t pc, std::uint32_t target, std::uint64_t cck) {
        sp_ -= 4;
        b_.step({Kind::Call, pc, target, cck, false, sp_, 0, 0});
        return *this;
    }
    Trace& ret(std::uint32_t pc, std::uint32_t to, std::uint64_t cck) {
        sp_ += 4;
        b_.step({Kind::Return, pc, to, cck, false, sp_, 0, 0});
        return *this;
    }
    // An interrupt taken before the instruction at pc: its frame on the supervisor stack.
    Trace& irq(std::uint32_t pc, std::uint32_t handler, unsigned level, std::uint64_t cck) {
        ssp_ -= 6;
        b_.step({Kind::Exception, pc, handler, cck, true, ssp_ + 2, std::uint8_t(level), std::uint8_t(24 + level)});
        return *this;
    }
    Trace& rte(std::uint32_t pc, std::uint32_t to, std::uint64_t cck) {
        ssp_ += 6;
        b_.step({Kind::Return, pc, to, cck, true, ssp_, 0, 0});
        return *this;
    }
    Trace& stopped(std::uint32_t pc, std::uint64_t cck) {
        b_.step({Kind::Stopped, pc, pc, cck, false, sp_, 0, 0});
        return *this;
    }
    Trace& setSp(std::uint32_t sp) {
        sp_ = sp;
        return *this;
    }
    std::uint32_t sp() const { return sp_; }
    CallTreeBuilder& builder() { return b_; }
    CallNode finish() { return b_.finish(); }

private:
    std::uint32_t sp_, ssp_ = 0x7F000;
    CallTreeBuilder b_;
};

const CallNode* find(const CallNode& n, const std::string& routine) {
    for (const CallNode& c : n.children)
        if (c.routine == routine) return &c;
    return nullptr;
}

// Total = Self + the children's, everywhere; children the longest first.
void checkSums(const CallNode& n) {
    std::uint64_t sum = n.self;
    for (std::size_t i = 0; i < n.children.size(); ++i) {
        checkSums(n.children[i]);
        sum += n.children[i].total;
        if (i) QVERIFY(n.children[i - 1].total >= n.children[i].total);
    }
    QCOMPARE(n.total, sum);
}

} // namespace

class TestCallTree : public QObject {
    Q_OBJECT
private slots:
    void callsReturnsAndSelf() {
        // The frame begins at main (as a pass cut at its entry would): main calls work
        // twice, work calls leaf once each time; main returns, and the frame runs on.
        Trace t;
        t.run(0x1000, 10).call(0x1002, 0x2000, 9);
        t.run(0x2000, 4).call(0x2002, 0x3000, 9).run(0x3000, 20).ret(0x3002, 0x2006, 8).ret(0x2006, 0x1006, 8);
        t.run(0x1006, 3).call(0x1008, 0x2000, 9);
        t.run(0x2000, 4).call(0x2002, 0x3000, 9).run(0x3000, 20).ret(0x3002, 0x2006, 8).ret(0x2006, 0x100C, 8);
        t.ret(0x100C, 0x0900, 8); // main returns to its caller, which is the frame's own
        t.run(0x0900, 50);
        const CallNode root = t.finish();
        checkSums(root);
        QCOMPARE(root.kind, CallNode::Kind::Frame);
        QCOMPARE(root.total, std::uint64_t(10 + 9 + 4 + 9 + 20 + 8 + 8 + 3 + 9 + 4 + 9 + 20 + 8 + 8 + 8 + 50));
        QCOMPARE(root.self, std::uint64_t(50));
        QCOMPARE(root.children.size(), std::size_t(1));
        const CallNode& main = root.children[0];
        QCOMPARE(main.routine, std::string("main"));
        QCOMPARE(main.calls, 1u);
        QCOMPARE(main.self, std::uint64_t(10 + 9 + 3 + 9 + 8));
        const CallNode* work = find(main, "work");
        QVERIFY(work);
        QCOMPARE(work->calls, 2u);
        QCOMPARE(work->self, std::uint64_t(2 * (4 + 9 + 8)));
        const CallNode* leaf = find(*work, "leaf");
        QVERIFY(leaf);
        QCOMPARE(leaf->calls, 2u);
        QCOMPARE(leaf->self, std::uint64_t(2 * (20 + 8)));
        QCOMPARE(leaf->total, leaf->self);
    }

    void recursionNestsAndAnInterruptStandsUnderTheFrame() {
        // work calls itself twice over; an interrupt lands in the innermost call and its
        // handler calls leaf; a STOP stretch in main is main's Self.
        Trace t;
        t.run(0x1000, 2).call(0x1002, 0x2000, 9);
        t.run(0x2000, 5).call(0x2002, 0x2000, 9);
        t.run(0x2000, 5).call(0x2002, 0x2000, 9);
        t.run(0x2000, 5).irq(0x2002, 0x4000, 3, 22);
        t.run(0x4000, 30).call(0x4002, 0x3000, 9).run(0x3000, 11).ret(0x3002, 0x4006, 8).rte(0x4006, 0x2002, 10);
        t.ret(0x2002, 0x2006, 8).ret(0x2006, 0x2006, 8).ret(0x2006, 0x1006, 8);
        t.stopped(0x1006, 400);
        const CallNode root = t.finish();
        checkSums(root);
        const CallNode* main = find(root, "main");
        QVERIFY(main);
        QCOMPARE(main->self, std::uint64_t(2 + 9 + 400));
        // Three nested calls of work, each once.
        const CallNode* w1 = find(*main, "work");
        QVERIFY(w1 && w1->calls == 1);
        const CallNode* w2 = find(*w1, "work");
        QVERIFY(w2 && w2->calls == 1);
        const CallNode* w3 = find(*w2, "work");
        QVERIFY(w3 && w3->calls == 1);
        // The interrupt's acknowledge is the interrupted routine's; its handler stands
        // under the frame, named by the symbol where the vector went, with leaf under it.
        QCOMPARE(w3->self, std::uint64_t(5 + 22 + 8));
        QVERIFY(!find(*w3, "vbl"));
        const CallNode* vbl = find(root, "vbl");
        QVERIFY(vbl);
        QCOMPARE(vbl->kind, CallNode::Kind::Interrupt);
        QCOMPARE(vbl->self, std::uint64_t(30 + 9 + 10));
        QCOMPARE(find(*vbl, "leaf")->self, std::uint64_t(11 + 8));
    }

    void anUnnamedInterruptIsNamedByItsLevel() {
        Trace t;
        t.run(0x1000, 2).irq(0x1002, 0x6000, 4, 20).run(0x6000, 7).rte(0x6002, 0x1002, 10);
        const CallNode root = t.finish();
        const CallNode* irq = find(root, "interrupt L4");
        QVERIFY(irq);
        QVERIFY(!irq->named);
        QCOMPARE(irq->at, 0x6000u);
    }

    void aJumpIntoANamedRoutineIsARoutineOfItsOwn() {
        // work ends by jumping to tail, whose RTS returns for both; work also loops back to
        // its own first instruction, which is no new routine.
        Trace t;
        t.run(0x1000, 2).call(0x1002, 0x2000, 9);
        t.run(0x2000, 4).run(0x2002, 6, 0x2000).run(0x2000, 4); // a loop to its own start
        t.run(0x2002, 10, 0x5000);                                // jmp tail
        t.run(0x5000, 12).ret(0x5002, 0x1006, 8);
        t.run(0x1006, 1);
        const CallNode root = t.finish();
        checkSums(root);
        const CallNode* main = find(root, "main");
        QVERIFY(main);
        QCOMPARE(main->self, std::uint64_t(2 + 9 + 1));
        const CallNode* work = find(*main, "work");
        QVERIFY(work);
        QCOMPARE(work->calls, 1u);
        QCOMPARE(work->self, std::uint64_t(4 + 6 + 4 + 10));
        const CallNode* tail = find(*work, "tail");
        QVERIFY(tail);
        QCOMPARE(tail->kind, CallNode::Kind::Jump);
        QCOMPARE(tail->self, std::uint64_t(12 + 8));
        // A jump from tail back to work's first instruction returns to work.
        Trace u;
        u.run(0x1000, 1).call(0x1002, 0x2000, 9).run(0x2000, 1, 0x5000).run(0x5000, 3, 0x2000).run(0x2000, 5);
        const CallNode r2 = u.finish();
        const CallNode* w = find(*find(r2, "main"), "work");
        QCOMPARE(w->self, std::uint64_t(1 + 5));
        QCOMPARE(find(*w, "tail")->self, std::uint64_t(3));
    }

    void stacksNotKeptTheWayCallsDo() {
        // leaf rewrites its return address and returns past work straight into main: both
        // end. Then work pops its return address and goes on: it stays open until a later
        // call stores its return address where that one lay.
        Trace t;
        t.run(0x1000, 1).call(0x1002, 0x2000, 9).call(0x2000, 0x3000, 9);
        t.setSp(t.sp() + 4).ret(0x3000, 0x1006, 8); // RTS from 8 bytes below where main's call left it
        t.run(0x1006, 2);
        const CallNode r = t.finish();
        checkSums(r);
        const CallNode* main = find(r, "main");
        QCOMPARE(main->self, std::uint64_t(1 + 9 + 2));
        QCOMPARE(find(*find(*main, "work"), "leaf")->self, std::uint64_t(8));

        Trace u;
        u.run(0x1000, 1).call(0x1002, 0x2000, 9);
        u.setSp(u.sp() + 4).run(0x2000, 3).run(0x2002, 4); // move.l (sp)+,a0: open still
        u.call(0x2004, 0x3000, 9);                          // stored where work's lay
        u.run(0x3000, 7);
        const CallNode r2 = u.finish();
        checkSums(r2);
        const CallNode* m2 = find(r2, "main");
        const CallNode* w2 = find(*m2, "work");
        QCOMPARE(w2->self, std::uint64_t(3 + 4 + 9));
        // leaf is main's now, not work's.
        QVERIFY(!find(*w2, "leaf"));
        QCOMPARE(find(*m2, "leaf")->self, std::uint64_t(7));
    }

    void aCallByPeaAndRtsIsARoutineMarkedAsAJump() {
        // main pushes a return address and the handler's, and returns to the handler (as
        // AROS calls its interrupt servers); the handler's RTS comes back to main.
        Trace t;
        t.run(0x1000, 2);
        t.setSp(t.sp() - 8).run(0x1002, 12, 0x1006); // pea (ret,pc); move.l d0,-(sp)
        t.ret(0x1006, 0x5000, 8); // rts to tail, leaving the pushed return address on the stack
        t.run(0x5000, 20).ret(0x5002, 0x1008, 8);
        t.run(0x1008, 3);
        const CallNode r = t.finish();
        checkSums(r);
        const CallNode* main = find(r, "main");
        QCOMPARE(main->self, std::uint64_t(2 + 12 + 8 + 3));
        const CallNode* tail = find(*main, "tail");
        QVERIFY(tail);
        QCOMPARE(tail->kind, CallNode::Kind::Jump);
        QCOMPARE(tail->self, std::uint64_t(20 + 8));
    }

    void aCallByTheLastStepIsNotCounted() {
        // A pass cut at main: the loop's JSR to main is the frame's last step; main, entered
        // by it, runs in the next frame, so this frame reached it once, not twice.
        Trace t;
        t.run(0x1000, 5).ret(0x1002, 0x0900, 8).run(0x0900, 3).call(0x0902, 0x1000, 9);
        const CallNode r = t.finish();
        QCOMPARE(r.children.size(), std::size_t(1));
        QCOMPARE(r.children[0].calls, 1u);
        QCOMPARE(r.self, std::uint64_t(3 + 9));
        QCOMPARE(r.total, std::uint64_t(5 + 8 + 3 + 9));
    }

    void theLimitsCountInTheCaller() {
        // 300 nested calls of work: the first 255 below main are routines (256 open calls
        // with main's), the rest are counted in the innermost.
        Trace t;
        t.run(0x1000, 1);
        for (int i = 0; i < 300; ++i) t.call(0x2000, 0x2000, 1);
        t.run(0x2000, 5);
        CallTreeBuilder& b = t.builder();
        QCOMPARE(b.overflowed(), std::uint64_t(300 - 255));
        const CallNode r = t.finish();
        checkSums(r);
        QCOMPARE(r.total, std::uint64_t(1 + 300 + 5));
        int depth = 0;
        const CallNode* n = &r;
        while (!n->children.empty()) {
            n = &n->children[0];
            ++depth;
        }
        QCOMPARE(depth, 256); // main and 255 works
        QCOMPARE(n->self, std::uint64_t(300 - 255 + 5)); // the calls counted in it, and its own
    }

    void jsonHasTheColumns() {
        Trace t;
        t.run(0x1000, 3546895 / 1000).call(0x1002, 0x6000, 0).run(0x6000, 10);
        const nlohmann::json j = callTreeJson(t.finish(), 3546895.0);
        QCOMPARE(j.value("kind", std::string()), std::string("frame"));
        QCOMPARE(j["children"][0].value("routine", std::string()), std::string("main"));
        QVERIFY(std::abs(j["children"][0].value("self_us", 0.0) - 1000.0) < 0.5);
        const nlohmann::json& anon = j["children"][0]["children"][0];
        QCOMPARE(anon.value("routine", std::string()), std::string("$00006000"));
        QCOMPARE(anon.value("named", true), false);
        QCOMPARE(anon.value("at", 0u), 0x6000u);
        QCOMPARE(anon.value("calls", 0u), 1u);
    }
};

QTEST_GUILESS_MAIN(TestCallTree)
#include "test_call_tree.moc"
