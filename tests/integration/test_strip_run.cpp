// SPDX-License-Identifier: GPL-3.0-or-later
// The profile strip on AROS with names (tests/guest/strip/strip_aros.c): a --run program
// debugged over the socket, its routines named from its debug information. A pass cut at
// step(), calls of thrice(), a recursive recurse(), jumper() leaving by a JMP into tail(),
// and a vertical blank server that stands under an interrupt, not under what it interrupted.

#include "tests/integration/served.h"
#include "tests/tools/call_tree_json.h"

#include <QElapsedTimer>
#include <algorithm>
#include <functional>

using copperline::testing::Served;
using nlohmann::json;

namespace {

const json* child(const json& node, const std::string& routine) {
    for (const json& c : node["children"])
        if (c.value("routine", std::string()) == routine) return &c;
    return nullptr;
}

// The first node named `routine` anywhere under `node`, and the path of kinds to it.
const json* findDeep(const json& node, const std::string& routine, std::vector<std::string>* kinds = nullptr) {
    for (const json& c : node["children"]) {
        if (kinds) kinds->push_back(c.value("kind", std::string()));
        if (c.value("routine", std::string()) == routine) return &c;
        if (const json* d = findDeep(c, routine, kinds)) return d;
        if (kinds) kinds->pop_back();
    }
    return nullptr;
}

void checkSums(const json& n) {
    copperline::testing::checkTreeSums(n);
}

} // namespace

class TestStripRun : public QObject {
    Q_OBJECT
private slots:
    void namedRoutinesOnAros() {
        Served s("strip", {"--run", GUEST_STRIP_AROS, "--run-args", "400"});
        QVERIFY(s.started());
        const json stop = s.json("continue");
        QCOMPARE(stop.value("reason", std::string()), std::string("loadseg"));
        // Names: the program's functions are known; one that is not is refused.
        QVERIFY(s.call("strip.set", {{"start", "no_such_routine"}}).status != 0);
        const json set = s.json("strip.set", {{"start", "step"}, {"mode", "pass"}});
        QCOMPARE(set.value("start", std::string()), std::string("step"));
        const std::uint32_t stepAt = set.value("start_address", 0u);
        QVERIFY(stepAt != 0);
        QVERIFY(s.json("step_frame", {{"n", 60}}).contains("frame"));

        // One pass a frame, end to end, each spanning one vertical blank.
        const json bars = s.json("strip.bars")["bars"];
        QVERIFY2(bars.size() >= 50, bars.dump().c_str());
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < bars.size(); ++i) {
            sum += bars[i].value("length_cck", 0ull);
            QCOMPARE(bars[i].value("frames_spanned", 0ull), 1ull);
            if (i) QCOMPARE(bars[i].value("position", 0ull), bars[i - 1].value("end_position", 1ull));
        }
        QCOMPARE(sum, bars.back().value("cck", 0ull) + bars.back().value("length_cck", 0ull) - bars.front().value("cck", 0ull));

        // The tree of a pass: step, named, with thrice three times, recurse three deep,
        // jumper with tail under it as a jump, and third in one pass of three.
        unsigned thirdCalls = 0;
        for (int k = 0; k < 3; ++k) {
            const json tree = s.json("strip.tree", {{"bar", bars[bars.size() - 3 + std::size_t(k)].value("bar", 0)}});
            QVERIFY2(tree.contains("children"), tree.dump().c_str());
            checkSums(tree);
            const json* step = child(tree, "step");
            QVERIFY2(step, tree.dump(1).c_str());
            QCOMPARE(step->value("named", false), true);
            QCOMPARE(step->value("calls", 0u), 1u);
            const json* thrice = child(*step, "thrice");
            QVERIFY(thrice);
            QCOMPARE(thrice->value("calls", 0u), 3u);
            if (const json* third = child(*step, "third")) thirdCalls += third->value("calls", 0u);
            const json* r1 = child(*step, "recurse");
            QVERIFY(r1);
            const json* r3 = child(*child(*r1, "recurse"), "recurse");
            QVERIFY(r3);
            QVERIFY(!child(*r3, "recurse"));
            const json* jumper = child(*step, "jumper");
            QVERIFY(jumper);
            const json* tail = child(*jumper, "tail");
            QVERIFY2(tail, jumper->dump().c_str());
            QCOMPARE(tail->value("kind", std::string()), std::string("jump"));
            QCOMPARE(tail->value("calls", 0u), 1u);
            // The server runs under an interrupt at the frame's level, never under step.
            std::vector<std::string> kinds;
            const json* server = findDeep(tree, "vblserver", &kinds);
            QVERIFY2(server, tree.dump(1).c_str());
            QCOMPARE(kinds.front(), std::string("interrupt"));
            QVERIFY(!findDeep(*step, "vblserver"));
            QVERIFY(child(*server, "vblwork"));
        }
        QCOMPARE(thirdCalls, 1u);

        // Calls of thrice: three a pass, each of one length, thrice's Self alone. An
        // interrupt may land inside a call (whether one does depends on where AROS placed
        // the program): such a call is longer by the interrupt, which stands under the
        // call's frame beside thrice.
        s.json("strip.set", {{"start", "thrice"}, {"mode", "call"}});
        QVERIFY(s.json("step_frame", {{"n", 10}}).contains("frame"));
        const json calls = s.json("strip.bars")["bars"];
        QVERIFY2(calls.size() >= 27 && calls.size() <= 30, calls.dump().c_str());
        std::uint64_t len = ~0ull;
        for (const json& c : calls) len = std::min<std::uint64_t>(len, c.value("length_cck", 0ull));
        QVERIFY(len > 0);
        std::size_t plain = calls.size(), interrupted = 0;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            const std::uint64_t cck = calls[i].value("length_cck", 0ull);
            if (cck == len) {
                if (plain == calls.size()) plain = i;
                continue;
            }
            ++interrupted;
            const json tree = s.json("strip.tree", {{"bar", calls[i].value("bar", 0)}});
            checkSums(tree);
            QCOMPARE(tree.value("total_cck", 0ull), cck);
            // The interrupt's exception begins in thrice: its first clocks, up to the
            // acknowledge where the interrupt's node begins, and any bus wait in them
            // (the push of the PC's low word) are thrice's Self.
            const std::uint64_t self = child(tree, "thrice")->value("self_cck", 0ull);
            QVERIFY2(self >= len && self <= len + 40, tree.dump(1).c_str());
            std::uint64_t underInterrupts = 0;
            for (const json& c : tree["children"])
                if (c.value("kind", std::string()) == "interrupt") underInterrupts += c.value("total_cck", 0ull);
            QVERIFY2(underInterrupts > 0, tree.dump(1).c_str());
            QCOMPARE(tree.value("self_cck", 0ull) + child(tree, "thrice")->value("total_cck", 0ull) + underInterrupts, cck);
        }
        qInfo("%zu of %zu calls of thrice had an interrupt inside", interrupted, calls.size());
        QVERIFY2(interrupted <= 3, calls.dump().c_str());
        QVERIFY(plain + 1 < calls.size());
        const json one = s.json("strip.tree", {{"bar", calls[plain].value("bar", 0)}});
        QCOMPARE(one.value("total_cck", 0ull), len);
        QCOMPARE(child(one, "thrice")->value("self_cck", 0ull), len);

        // strip.select stands on the call's first instruction; the tree left the machine.
        QElapsedTimer t;
        t.start();
        const json& selected = calls[calls.size() / 2];
        const json at = s.json("strip.select", {{"bar", selected.value("bar", 0)}});
        qInfo("strip.select over the socket: %lld ms (copperline-ctl's start included)", t.elapsed());
        QCOMPARE(at.value("reason", std::string()), std::string("strip"));
        QCOMPARE(at.value("cck", 0ull), selected.value("cck", 1ull));
        QCOMPARE(s.json("symbols.resolve", {{"addr", at.value("pc", 0u)}}).value("function", std::string()),
                 std::string("thrice"));
        s.call("quit");
        QVERIFY(s.process().waitForFinished(30000));
    }
};

QTEST_GUILESS_MAIN(TestStripRun)
#include "test_strip_run.moc"
