// SPDX-License-Identifier: GPL-3.0-or-later
// The profile strip's commands through Emulator::call on a bare-metal main loop of known
// shape (tests/guest/strip/strip_loop.s): pass, call and until cuts, strip.select standing
// the machine on a bar's first instruction, the replayed call tree (calls, Self, Total,
// the interrupt under the frame), the machine and the record unchanged by a replay, and
// bad input.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/record/record.h"
#include "profiler/strip/call_tree.h"
#include "profiler/strip/strip_trace.h"
#include "tests/app/strip_loop_fixture.h"
#include "tests/tools/call_tree_json.h"

#include <QTemporaryDir>

#include <QElapsedTimer>
#include <QProcess>
#include <QtTest>
#include <algorithm>
#include <map>

using namespace copperline;
using nlohmann::json;

namespace {

using testing::callJson;
using testing::stripLoop;
using testing::stripLoopSymbols;

const json* child(const json& node, std::uint32_t at) {
    for (const json& c : node["children"])
        if (c.value("at", 0u) == at) return &c;
    return nullptr;
}

void checkSums(const json& n) {
    testing::checkTreeSums(n);
}

} // namespace

class TestStripCommands : public QObject {
    Q_OBJECT
private slots:
    void passBarsLieEndToEndOneFrameEach() {
        const auto sym = stripLoopSymbols();
        auto e = stripLoop();
        QVERIFY(callJson(*e, "step_frame", {{"n", 5}}).contains("frame"));
        const json set = callJson(*e, "strip.set", {{"start", sym.at("pass")}, {"mode", "pass"}});
        QCOMPARE(set.value("mode", std::string()), std::string("pass"));
        QVERIFY(callJson(*e, "step_frame", {{"n", 40}}).contains("frame"));
        const json b = callJson(*e, "strip.bars");
        const json& bars = b["bars"];
        // One pass a frame: about 39 ended, each spanning one vertical blank.
        QVERIFY2(bars.size() >= 38 && bars.size() <= 40, b.dump().c_str());
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < bars.size(); ++i) {
            QCOMPARE(bars[i].value("frames_spanned", 0ull), 1ull);
            sum += bars[i].value("length_cck", 0ull);
            if (i) {
                // End to end: each begins where the one before ended.
                QCOMPARE(bars[i].value("position", 0ull), bars[i - 1].value("end_position", 1ull));
                QCOMPARE(bars[i].value("frame", 0ull), bars[i - 1].value("frame", 0ull) + 1);
            }
        }
        // The lengths add up to the time from the first cut to the last.
        const std::uint64_t first = bars.front().value("cck", 0ull);
        const std::uint64_t lastEnd = bars.back().value("cck", 0ull) + bars.back().value("length_cck", 0ull);
        QCOMPARE(sum, lastEnd - first);
        // A pass keeps step with the frame: 313 lines of 227 colour clocks, give or take
        // where the interrupt lands in an instruction.
        for (const json& bar : bars) QVERIFY(std::llabs(std::int64_t(bar.value("length_cck", 0ull)) - 313 * 227) < 40);
        QVERIFY(!b["open"].is_null());
        QCOMPARE(b.value("frame_cck", 0.0), 313.0 * 227.0);
        // The same spec given again begins anew: a new generation, no bars.
        const std::uint64_t generation = b["spec"].value("generation", 0ull);
        const json again = callJson(*e, "strip.set", {{"start", sym.at("pass")}, {"mode", "pass"}});
        QCOMPARE(again.value("generation", 0ull), generation + 1);
        QVERIFY(callJson(*e, "strip.bars")["bars"].empty());
    }

    void callBarsHaveTheirExactLengthAndRecursionIsInTheOuter() {
        const auto sym = stripLoopSymbols();
        auto e = stripLoop();
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        callJson(*e, "strip.set", {{"start", sym.at("thrice")}, {"mode", "call"}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 10}}).contains("frame"));
        json bars = callJson(*e, "strip.bars")["bars"];
        // Three calls a pass, each the length of its instructions: moveq (2 CCK), 40 taken
        // DBRAs (5 each), the last (7) and RTS (8), and a clock or two more where the CPU's
        // accesses wait to line up with the bus's (the cycle a call starts on varies).
        QVERIFY2(bars.size() >= 27 && bars.size() <= 30, bars.dump().c_str());
        for (const json& bar : bars) {
            const std::uint64_t len = bar.value("length_cck", 0ull);
            QVERIFY2(len >= 2 + 40 * 5 + 7 + 8 && len <= 2 + 40 * 5 + 7 + 8 + 2, qPrintable(QString::number(len)));
        }
        QVERIFY(!bars[0].contains("frames_spanned"));

        // recurse calls itself twice more: one bar a pass, holding all three.
        callJson(*e, "strip.set", {{"start", sym.at("recurse")}, {"mode", "call"}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 10}}).contains("frame"));
        bars = callJson(*e, "strip.bars")["bars"];
        QVERIFY2(bars.size() >= 9 && bars.size() <= 10, bars.dump().c_str());
        const json tree = callJson(*e, "strip.tree", {{"bar", bars[2].value("bar", 0)}});
        checkSums(tree);
        QCOMPARE(tree.value("total_cck", 0ull), bars[2].value("length_cck", 1ull));
        const json* r1 = child(tree, sym.at("recurse"));
        QVERIFY(r1);
        const json* r2 = child(*r1, sym.at("recurse"));
        QVERIFY(r2);
        const json* r3 = child(*r2, sym.at("recurse"));
        QVERIFY(r3);
        QCOMPARE(r3->value("calls", 0u), 1u);
        QVERIFY((*r3)["children"].empty());
        // The call ends with its own RTS: nothing of the caller's is in it.
        QCOMPARE(tree.value("self_cck", 1ull), 0ull);
    }

    void anInterruptLandingInACallIsInIt() {
        // spanning runs longer than a frame: the vertical blank's handler runs inside the
        // call, which is as long as the routine and the interrupt together, the interrupt
        // standing under the frame.
        const auto sym = stripLoopSymbols();
        auto e = stripLoop();
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        QVERIFY(e->call("mem.write", {{"addr", 0x410}, {"data", "01"}, {"encoding", "hex"}}).ok);
        callJson(*e, "strip.set", {{"start", sym.at("spanning")}, {"mode", "call"}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 12}}).contains("frame"));
        const json bars = callJson(*e, "strip.bars")["bars"];
        QVERIFY2(bars.size() >= 4, bars.dump().c_str());
        for (const json& bar : bars) QVERIFY(bar.value("length_cck", 0ull) > 313 * 227);
        const json tree = callJson(*e, "strip.tree", {{"bar", bars[2].value("bar", 0)}});
        checkSums(tree);
        QCOMPARE(tree.value("total_cck", 0ull), bars[2].value("length_cck", 1ull));
        const json* span = child(tree, sym.at("spanning"));
        const json* irq = child(tree, sym.at("vbl"));
        QVERIFY(span && irq);
        QCOMPARE(irq->value("kind", std::string()), std::string("interrupt"));
        QCOMPARE(irq->value("calls", 0u), 1u);
        // Nothing else: the call is the routine and the interrupt that landed in it.
        QCOMPARE(span->value("total_cck", 0ull) + irq->value("total_cck", 0ull), bars[2].value("length_cck", 1ull));
        QVERIFY(!child(*span, sym.at("vbl")));
        // The routine's own time: 16,001 DBRAs and its RTS, and a few clocks a line where its
        // prefetches meet the refresh slots.
        const std::uint64_t self = span->value("self_cck", 0ull);
        QVERIFY2(self >= 2 + 16000 * 5 + 7 + 8 && self <= 2 + 16000 * 5 + 7 + 8 + 4 * 360, qPrintable(QString::number(self)));
    }

    void untilLeavesTheWaitOut() {
        const auto sym = stripLoopSymbols();
        auto e = stripLoop();
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        callJson(*e, "strip.set", {{"start", sym.at("pass")}, {"mode", "until"}, {"end", sym.at("passend")}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 12}}).contains("frame"));
        const json bars = callJson(*e, "strip.bars")["bars"];
        QVERIFY(bars.size() >= 10);
        for (std::size_t i = 1; i < bars.size(); ++i) {
            // The stretch is the work alone, far shorter than the frame, and the wait
            // between one stretch and the next is in none.
            QVERIFY(bars[i].value("length_cck", 0ull) < 313 * 227 / 4);
            QVERIFY(bars[i].value("position", 0ull) > bars[i - 1].value("end_position", 0ull));
        }
        // Without an end an until ends where the next begins, as a pass does.
        callJson(*e, "strip.set", {{"start", sym.at("pass")}, {"mode", "until"}, {"end", nullptr}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 5}}).contains("frame"));
        const json again = callJson(*e, "strip.bars")["bars"];
        QVERIFY(again.size() >= 3);
        QCOMPARE(again[1].value("position", 0ull), again[0].value("end_position", 1ull));
    }

    void selectStandsOnTheBarsFirstInstructionAndTheTreeReplaysIt() {
        const auto sym = stripLoopSymbols();
        auto e = stripLoop();
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        callJson(*e, "strip.set", {{"start", sym.at("pass")}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 30}}).contains("frame"));
        const json bars = callJson(*e, "strip.bars")["bars"];
        QVERIFY(bars.size() > 20);
        const std::string hashBefore = callJson(*e, "state.hash").value("hash", std::string());
        const json statusBefore = callJson(*e, "timeline.status");

        // The tree of a pass: the loop's code at the root, with thrice three times, third
        // once in every three passes, the recursion, jumper with tail under it, and the
        // vertical blank's handler under the frame, not under what it interrupted.
        std::uint32_t thirdCalls = 0;
        for (int k = 0; k < 3; ++k) {
            const json& bar = bars[std::size_t(10 + k)];
            QElapsedTimer took;
            took.start();
            const json tree = callJson(*e, "strip.tree", {{"bar", bar.value("bar", 0)}});
            qInfo("strip.tree of a one-frame pass (%llu steps): %.1f ms", tree.value("steps", 0ull),
                  double(took.nsecsElapsed()) / 1e6);
            QVERIFY2(tree.contains("children"), tree.dump().c_str());
            checkSums(tree);
            QCOMPARE(tree.value("total_cck", 0ull), bar.value("length_cck", 1ull));
            const json* loopCode = child(tree, sym.at("pass"));
            QVERIFY(loopCode);
            QCOMPARE(loopCode->value("named", true), false);
            const json* thrice = child(*loopCode, sym.at("thrice"));
            QVERIFY(thrice);
            QCOMPARE(thrice->value("calls", 0u), 3u);
            // Three calls of the length the call cuts measure (the test before).
            const std::uint64_t self = thrice->value("self_cck", 0ull);
            QVERIFY2(self >= 3 * 217 && self <= 3 * 219, qPrintable(QString::number(self)));
            if (const json* third = child(*loopCode, sym.at("third"))) thirdCalls += third->value("calls", 0u);
            const json* jumper = child(*loopCode, sym.at("jumper"));
            QVERIFY(jumper);
            QCOMPARE(jumper->value("calls", 0u), 1u);
            const json* vbl = child(tree, sym.at("vbl"));
            QVERIFY2(vbl, tree.dump().c_str());
            QCOMPARE(vbl->value("kind", std::string()), std::string("interrupt"));
            QCOMPARE(vbl->value("calls", 0u), 1u);
            QVERIFY(child(*vbl, sym.at("vblwork")));
            QVERIFY(!child(*loopCode, sym.at("vbl")));
            // The wait in STOP is the Self of the loop that stopped.
            QVERIFY(loopCode->value("self_cck", 0ull) > 313 * 227 / 2);
        }
        QCOMPARE(thirdCalls, 1u);
        // Replaying changed nothing: the machine and the record are as they were.
        QCOMPARE(callJson(*e, "state.hash").value("hash", std::string()), hashBefore);
        // (bytes_used counts the working copy a seek decompresses into, as every seek does.)
        json statusAfter = callJson(*e, "timeline.status"), before = statusBefore;
        statusAfter.erase("bytes_used");
        before.erase("bytes_used");
        QVERIFY2(statusAfter == before, (before.dump() + "\n" + statusAfter.dump()).c_str());

        // strip.select stands the machine on the bar's first instruction, quickly.
        std::vector<qint64> times;
        for (std::size_t i = bars.size() - 12; i < bars.size(); ++i) {
            QElapsedTimer t;
            t.start();
            const json at = callJson(*e, "strip.select", {{"bar", bars[i].value("bar", 0)}});
            times.push_back(t.elapsed());
            QCOMPARE(at.value("reason", std::string()), std::string("strip"));
            QCOMPARE(at.value("pc", 0u), sym.at("pass"));
            QCOMPARE(at.value("frame", 0ull), bars[i].value("frame", 1ull));
            QCOMPARE(at.value("cck", 0ull), bars[i].value("cck", 1ull));
            QCOMPARE(at.value("instructions", 0ull), bars[i].value("position", 1ull));
            const json here = callJson(*e, "strip.bars")["bars"];
            for (const json& h : here) QCOMPARE(h.value("here", false), h.value("bar", 0) == bars[i].value("bar", 1));
        }
        std::sort(times.begin(), times.end());
        qInfo("strip.select: median %lld ms, worst %lld ms", times[times.size() / 2], times.back());
        // Running on from a past bar drops the bars after it; they are cut again.
        callJson(*e, "strip.select", {{"bar", bars[5].value("bar", 0)}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 2}}).contains("frame"));
        const json after = callJson(*e, "strip.bars")["bars"];
        QVERIFY2(after.size() >= 6 && after.size() <= 8, after.dump().c_str());
    }

    // strip.select over the latest 10 s of a run; a capture in progress and the record are
    // as they were after a tree is replayed; a bar that left the record is refused.
    void selectAcrossTenSecondsAndWhatATreeLeavesAlone() {
        const auto sym = stripLoopSymbols();
        Emulator::Options o;
        o.recordBudgetBytes = std::size_t(24) << 20;
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(readFileBytes(STRIP_LOOP_BIN));
        auto e = std::make_unique<Emulator>(std::move(m), o);
        e->start();
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        callJson(*e, "strip.set", {{"start", sym.at("pass")}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 520}}).contains("frame"));
        const json bars = callJson(*e, "strip.bars")["bars"];
        QVERIFY2(bars.size() >= 500, qPrintable(QString::number(bars.size())));
        std::vector<qint64> us;
        for (std::size_t k = 0; k < 40; ++k) {
            const json& bar = bars[bars.size() - 1 - k * 12]; // back 480 passes, 9.6 s
            QElapsedTimer t;
            t.start();
            const json at = callJson(*e, "strip.select", {{"bar", bar.value("bar", 0)}});
            us.push_back(t.nsecsElapsed() / 1000);
            QCOMPARE(at.value("cck", 0ull), bar.value("cck", 1ull));
            QCOMPARE(at.value("pc", 0u), sym.at("pass"));
        }
        std::sort(us.begin(), us.end());
        const qint64 p95 = us[us.size() * 95 / 100];
        qInfo("strip.select over the latest 10 s: median %.1f ms, p95 %.1f ms", us[us.size() / 2] / 1000.0, p95 / 1000.0);
        QVERIFY2(p95 < 50000, qPrintable(QString("p95 %1 us").arg(p95)));

        // A capture records on; replaying a tree neither adds to it nor moves it.
        callJson(*e, "strip.select", {{"bar", bars.back().value("bar", 0)}});
        QTemporaryDir dir;
        QVERIFY(callJson(*e, "profile.start", {{"path", dir.filePath("cap").toStdString()}, {"frames", 100}}).contains("path"));
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        const json before = callJson(*e, "profile.status");
        const std::string hash = callJson(*e, "state.hash").value("hash", std::string());
        const json tree = callJson(*e, "strip.tree", {{"bar", bars[bars.size() - 5].value("bar", 0)}});
        QVERIFY(tree.contains("children"));
        QCOMPARE(callJson(*e, "profile.status"), before);
        QCOMPARE(callJson(*e, "state.hash").value("hash", std::string()), hash);
        QVERIFY(callJson(*e, "profile.stop").contains("state"));

        // With a record of 3 MB the first bars leave it: they are refused by name, and so are
        // their trees.
        Emulator::Options small;
        small.recordBudgetBytes = std::size_t(3) << 20;
        auto m2 = std::make_unique<Machine>();
        m2->bootBareMetal(readFileBytes(STRIP_LOOP_BIN));
        auto f = std::make_unique<Emulator>(std::move(m2), small);
        f->start();
        QVERIFY(callJson(*f, "step_frame", {{"n", 3}}).contains("frame"));
        callJson(*f, "strip.set", {{"start", sym.at("pass")}});
        QVERIFY(callJson(*f, "step_frame", {{"n", 400}}).contains("frame"));
        const json oldest = callJson(*f, "timeline.status")["oldest"];
        const json held = callJson(*f, "strip.bars")["bars"];
        QVERIFY2(!held.empty() && held.size() < 395, qPrintable(QString::number(held.size())));
        QVERIFY(held.front().value("cck", 0ull) >= oldest.value("cck", 1ull));
        const int gone = held.front().value("bar", 0) - 1;
        const CommandResult select = f->call("strip.select", {{"bar", gone}});
        QCOMPARE(select.errorCode, -32006);
        QVERIFY2(select.errorMessage.find("has left the record") != std::string::npos, select.errorMessage.c_str());
        QCOMPARE(f->call("strip.tree", {{"bar", gone}}).errorCode, -32006);
    }

    void badInputIsRefused() {
        const auto sym = stripLoopSymbols();
        auto e = stripLoop();
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        const auto code = [&](const std::string& m, const json& p) { return e->call(m, p).errorCode; };
        QCOMPARE(code("strip.set", {{"start", "no_such_routine"}}), -32602);
        QCOMPARE(code("strip.set", {{"start", sym.at("pass") + 1}}), -32602);        // odd
        QCOMPARE(code("strip.set", {{"start", "$00A00000"}}), -32602);              // no memory there
        QCOMPARE(code("strip.set", {{"start", sym.at("pass")}, {"mode", "loop"}}), -32602);
        QCOMPARE(code("strip.set", {{"start", sym.at("pass")}, {"end", sym.at("passend")}}), -32602); // end without until
        QCOMPARE(code("strip.set", {{"strat", sym.at("pass")}}), -32602);            // a misspelling
        QVERIFY(e->call("strip.get").result["start"].is_null());
        // A start never reached, and a call that never returns: no bar, and the summary says so.
        callJson(*e, "strip.set", {{"start", sym.at("_start")}, {"mode", "call"}});
        QVERIFY(callJson(*e, "step_frame", {{"n", 3}}).contains("frame"));
        json b = callJson(*e, "strip.bars");
        QVERIFY(b["bars"].empty());
        QCOMPARE(b.value("summary", std::string()), std::string("no profiling frame has begun yet"));
        QCOMPARE(code("strip.select", {{"bar", 0}}), -32007);
        QCOMPARE(code("strip.tree", json::object()), -32602); // standing in none
        // An empty start removes it.
        callJson(*e, "strip.set", {{"start", ""}});
        QVERIFY(callJson(*e, "strip.get")["start"].is_null());
    }
    // The record replays a stretch of STOP in one step (Machine::stepStopped). The tree of
    // two passes with their waits, replayed so, is the tree built from the same stretch
    // stepped one step at a time, and the replay ends in the very state: the same master
    // clock, colour clock and state hash. An input logged in the middle of a wait is applied
    // where it landed both ways.
    void aWaitInStopReplayedWholeGivesTheTreeOfEveryStep() {
        const auto sym = stripLoopSymbols();
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(readFileBytes(STRIP_LOOP_BIN));
        bool committed = false;
        m->setFrameCallback([&committed](std::uint64_t) { committed = true; });
        Record record(*m);
        const auto step = [&] {
            if (m->now() >= record.nextDue()) record.applyDue();
            m->stepInstruction();
            if (committed) {
                committed = false;
                record.frameStarted();
            }
        };
        const auto toPass = [&] {
            do step();
            while (m->cpu().stopped() || (m->cpu().instructionAddress() & 0xFFFFFF) != sym.at("pass"));
        };
        for (int i = 0; i < 4; ++i) toPass();
        const std::uint64_t begin = m->now();
        // Half way through the next wait in STOP, a byte nothing reads is written.
        toPass();
        while (!m->cpu().stopped()) step();
        for (int i = 0; i < 20000; ++i) step();
        QVERIFY(m->cpu().stopped());
        record.input(MachineInput::memory(0x500, {0x5A}));
        toPass();
        const std::uint64_t end = m->now();
        for (int i = 0; i < 3; ++i) toPass();
        const std::uint64_t present = m->now();

        const auto names = [&sym](std::uint32_t a) -> std::optional<std::string> {
            for (const auto& [name, at] : sym)
                if (at == a) return name;
            return std::nullopt;
        };
        struct Replayed {
            json tree;
            std::uint64_t steps = 0, now = 0, cck = 0, hash = 0;
            std::uint8_t written = 0;
        };
        const auto replay = [&](bool whole) {
            Replayed out;
            if (!record.seek(Record::Key::Cycle, begin) || m->now() != begin) return out;
            const m68k::Registers r = m->cpu().registers();
            strip::CallTreeBuilder builder(names, "two passes", sym.at("pass"), r.a[7], r.sr & 0x2000);
            strip::TreeReplay visitor(builder);
            if (whole) {
                record.replayTo(Record::Key::Cycle, end, visitor);
            } else {
                // The record's replay as it was: a step at a time, the inputs applied as due.
                const bool muted = m->observersMuted();
                m->setObserversMuted(true);
                visitor.beginStretch();
                for (;;) {
                    visitor.boundary(*m);
                    if (m->now() >= end) break;
                    m->stepInstruction();
                    if (m->now() >= record.nextDue()) record.applyDue();
                }
                m->setObserversMuted(muted);
            }
            out.tree = strip::callTreeJson(builder.finish(), 3546895.0);
            out.steps = visitor.steps();
            out.now = m->now();
            out.cck = m->agnus().cck();
            out.hash = m->stateHash();
            out.written = std::uint8_t(m->spyWord(0x500) >> 8);
            return out;
        };
        const Replayed stepped = replay(false), whole = replay(true);
        QCOMPARE(stepped.now, end);
        QCOMPARE(whole.now, end);
        QCOMPARE(whole.cck, stepped.cck);
        QCOMPARE(whole.hash, stepped.hash);
        QCOMPARE(stepped.written, std::uint8_t(0x5A));
        QCOMPARE(whole.written, std::uint8_t(0x5A));
        QVERIFY2(whole.tree == stepped.tree, (stepped.tree.dump() + "\n" + whole.tree.dump()).c_str());
        // Two passes, most of them waiting: every colour clock of the stretch is in the tree,
        // and the waits took a few hundred steps instead of one a colour clock.
        QCOMPARE(whole.tree.value("total_cck", 0ull), end / 2 - begin / 2);
        QVERIFY2(stepped.tree.value("total_cck", 0ull) > 2 * 313 * 227 - 100, stepped.tree.dump().c_str());
        QVERIFY2(whole.steps * 10 < stepped.steps, qPrintable(QString("%1 steps whole, %2 one by one")
                                                                   .arg(whole.steps)
                                                                   .arg(stepped.steps)));
        // And back to the present, as it was.
        QVERIFY(record.seek(Record::Key::Cycle, present));
        QCOMPARE(m->now(), present);
    }
};

QTEST_GUILESS_MAIN(TestStripCommands)
#include "test_strip_commands.moc"
