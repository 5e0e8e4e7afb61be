// SPDX-License-Identifier: GPL-3.0-or-later
// profile-diff's comparison (profiler/report/profile_diff.h) on profiles built by hand: the
// --fail-if grammar, good expressions and bad ones (each named, with what is wrong), the
// thresholds' arithmetic, functions aggregated and matched by name, the frame statistics,
// and which frame records a capture's side keeps. The whole command on real captures is
// tests/integration/test_profile_diff_run.cpp.

#include "profiler/report/profile_diff.h"

#include <QtTest>

#include <cmath>

using namespace copperline;
using nlohmann::json;

namespace {

std::string parseError(const std::string& text) {
    try {
        parseThreshold(text);
    } catch (const ProfileDiffError& e) {
        return e.what();
    }
    return "(parsed)";
}

FunctionWeight fn(const std::string& name, std::uint64_t self, std::uint64_t total, const std::string& file = "main.c") {
    return {name, file, self, total};
}

ProfileSide capture(std::vector<FunctionWeight> functions, std::vector<double> frames, double blitter) {
    ProfileSide s;
    s.kind = "capture";
    s.hasFrames = true;
    s.functions = std::move(functions);
    for (const FunctionWeight& f : s.functions) s.whole += f.self;
    for (const double f : frames) {
        FrameTime t;
        t.cck = f;
        t.length = 71051;
        t.source = "uaelib";
        t.owners = {{"cpu", f}, {"blitter", blitter}, {"idle", 71051 - f - blitter}};
        s.frames.push_back(t);
    }
    return s;
}

json record(std::uint64_t frame, double busy, double idle, const char* source) {
    return {{"frame", frame}, {"seq", frame}, {"length_cck", 71051}, {"busy_cck", busy}, {"idle_cck", idle},
            {"idle_source", source}, {"cpu", {{"stopped_cck", 100}}}, {"owner_cck", {{"cpu", 1000}, {"idle", 70051}}}};
}

} // namespace

class TestProfileDiff : public QObject {
    Q_OBJECT

private slots:
    void goodExpressions() {
        Threshold t = parseThreshold("p95_frame_cck>+2%");
        QCOMPARE(t.metric, std::string("p95_frame_cck"));
        QCOMPARE(t.op, '>');
        QCOMPARE(t.limit, 2.0);
        QVERIFY(t.percent);
        t = parseThreshold("max_frame_cck>+500");
        QCOMPARE(t.metric, std::string("max_frame_cck"));
        QCOMPARE(t.limit, 500.0);
        QVERIFY(!t.percent);
        t = parseThreshold("function:main self>+5%");
        QCOMPARE(t.metric, std::string("function"));
        QCOMPARE(t.name, std::string("main"));
        QCOMPARE(t.part, std::string("self"));
        // A name may hold < and > (and spaces): the operator is the last of them.
        t = parseThreshold("function:Sprites<Hw> draw total>+5%");
        QCOMPARE(t.name, std::string("Sprites<Hw> draw"));
        QCOMPARE(t.part, std::string("total"));
        t = parseThreshold("function:[Kick]graphics/LoadView self>+1%");
        QCOMPARE(t.name, std::string("[Kick]graphics/LoadView"));
        t = parseThreshold("owner:blitter>+3%");
        QCOMPARE(t.metric, std::string("owner"));
        QCOMPARE(t.name, std::string("blitter"));
        t = parseThreshold("owner:bitplanes<-10%");
        QCOMPARE(t.name, std::string("bitplane"));
        QCOMPARE(t.op, '<');
        QCOMPARE(t.limit, -10.0);
        t = parseThreshold(" total_cck > 1.5 % ");
        QCOMPARE(t.metric, std::string("total_cck"));
        QCOMPARE(t.limit, 1.5);
        QVERIFY(t.percent);
        t = parseThreshold("median_frame_cck>0");
        QCOMPARE(t.limit, 0.0);
        for (const char* m : {"total_frame_cck", "mean_frame_cck", "frames_over_budget"})
            QCOMPARE(parseThreshold(std::string(m) + ">+1").metric, std::string(m));
    }

    void badExpressionsSayWhatIsWrong() {
        const std::vector<std::pair<std::string, std::string>> bad = {
            {"", "no comparison"},
            {"p95_frame_cck", "no comparison"},
            {"p95_frame_cck>", "no limit"},
            {">+2%", "no metric"},
            {"p95_frame_cck>+2x", "the limit '+2x' is not a number"},
            {"p95_frame_cck>+%", "the limit '+%' is not a number"},
            {"p95_frame_cck>+2.5.1%", "is not a number"},
            {"p95_frame_cck>=2%", "'>=' is not an operator"},
            {"p95_frame_cck>>2%", "'>>' is not an operator"},
            {"p95_frame_cck<>2%", "'<>' is not an operator"},
            {"function:main>+5%", "ends in ' self' or ' total'"},
            {"function:main cycles>+5%", "ends in ' self' or ' total'"},
            {"function: self>+5%", "ends in ' self' or ' total'"},
            {"function:  total>+5%", "ends in ' self' or ' total'"},
            {"owner:>+3%", "no owner after 'owner:'"},
            {"p96_frame_cck>+2%", "unknown metric 'p96_frame_cck'"},
            {"frame_cck>+2%", "unknown metric 'frame_cck'"},
        };
        for (const auto& [text, why] : bad) {
            const std::string e = parseError(text);
            // The expression itself, quoted, then what is wrong.
            QVERIFY2(e.find("--fail-if \"" + text + "\": ") == 0, e.c_str());
            QVERIFY2(e.find(why) != std::string::npos, (text + " -> " + e).c_str());
        }
    }

    void thresholdsTrip() {
        const ProfileSide a = capture({fn("main", 1000, 5000), fn("draw", 4000, 4000)}, {30000, 31000, 32000}, 500);
        const ProfileSide b = capture({fn("main", 1040, 5400), fn("draw", 4360, 4360), fn("fresh", 10, 10)},
                                      {30000, 33000, 33500}, 520);
        const ProfileDiff d = diffProfiles(a, b, 32500);
        const auto trips = [&](const std::string& e) { return evaluateThreshold(d, parseThreshold(e)).tripped; };
        // main's self +4 %, total +8 %.
        QVERIFY(!trips("function:main self>+5%"));
        QVERIFY(trips("function:main self>+3.9%"));
        QVERIFY(trips("function:main total>+5%"));
        QVERIFY(!trips("function:main total>+8%")); // above, not equal
        QVERIFY(trips("function:main self>+39"));
        QVERIFY(!trips("function:main self>+40"));
        // Falling below a limit.
        QVERIFY(!trips("function:draw self<-1%"));
        QVERIFY(trips("function:draw self<+10%"));
        // A function only B has rose from nothing: any rise trips.
        QVERIFY(trips("function:fresh self>+1000%"));
        QVERIFY(!trips("function:fresh self<+0"));
        // Frames: median 31000 -> 33000, max 32000 -> 33500.
        ThresholdResult r = evaluateThreshold(d, parseThreshold("median_frame_cck>+2000"));
        QCOMPARE(r.value.a, 31000.0);
        QCOMPARE(r.value.b, 33000.0);
        QVERIFY(!r.tripped);
        QVERIFY(trips("median_frame_cck>+1999"));
        QVERIFY(trips("max_frame_cck>+4%"));
        QVERIFY(!trips("max_frame_cck>+5%"));
        QVERIFY(trips("frames_over_budget>0")); // 0 frames over 32500 -> 2
        QVERIFY(trips("owner:blitter>+3%"));     // +4 %
        QVERIFY(!trips("owner:blitter>+5%"));
        QVERIFY(trips("total_cck>+8%")); // 5000 -> 5410: +8.2 %
        QVERIFY(!trips("total_cck>+9%"));
        r = evaluateThreshold(d, parseThreshold("total_frame_cck>+0"));
        QCOMPARE(r.value.delta(), 3500.0);
        // What a tripped threshold says.
        const std::string said = describeThreshold(evaluateThreshold(d, parseThreshold("function:main total>+5%")));
        QVERIFY2(said.find("function:main total +400 (5000 -> 5400, +8.00%) > +5%") == 0, said.c_str());
    }

    void thresholdsRefuseWhatTheProfilesLack() {
        const ProfileSide a = capture({fn("main", 1000, 1000)}, {30000}, 0);
        const ProfileSide b = capture({fn("main", 1000, 1000)}, {30000}, 0);
        const auto error = [](const ProfileDiff& d, const std::string& e) -> std::string {
            try {
                evaluateThreshold(d, parseThreshold(e));
            } catch (const ProfileDiffError& x) {
                return x.what();
            }
            return "(evaluated)";
        };
        const ProfileDiff d = diffProfiles(a, b, std::nullopt);
        QVERIFY(error(d, "function:mian self>+5%").find("no function 'mian' in either profile") != std::string::npos);
        QVERIFY(error(d, "owner:copper>+5%").find("no bus owner 'copper' in the captures (cpu, blitter, idle)") !=
                std::string::npos);
        QVERIFY(error(d, "frames_over_budget>0").find("needs --budget") != std::string::npos);
        ProfileSide pa = a, pb = b;
        pa.kind = pb.kind = "cpuprofile";
        pa.hasFrames = pb.hasFrames = false;
        pa.frames.clear();
        pb.frames.clear();
        const ProfileDiff p = diffProfiles(pa, pb, std::nullopt);
        QVERIFY(!p.haveFrames);
        QVERIFY(error(p, "p95_frame_cck>+2%").find("frame records") != std::string::npos);
        QVERIFY(error(p, "owner:cpu>+2%").find("frame records") != std::string::npos);
        QVERIFY(!evaluateThreshold(p, parseThreshold("total_cck>+1%")).tripped);
    }

    void functionsByName() {
        // main > f > f (recursion) > [Kick]exec/AllocMem, and main > g > [Kick]exec/AllocMem: the
        // ROM function's url is its caller's place, and it is one function still.
        ProfileTree t;
        const auto main = t.child(ProfileTree::kRoot, {"main", "main.c", 10, -1});
        const auto f = t.child(main, {"f", "main.c", 20, -1});
        const auto f2 = t.child(f, {"f", "main.c", 20, -1});
        const auto alloc1 = t.child(f2, {"[Kick]exec/AllocMem", "main.c", 22, -1});
        const auto g = t.child(main, {"g", "other.c", 5, -1});
        const auto alloc2 = t.child(g, {"[Kick]exec/AllocMem", "other.c", 7, -1});
        const auto wait = t.child(g, {"[Bus wait]", "", -1, -1});
        t.addSelf(main, 5);
        t.addSelf(f, 10);
        t.addSelf(f2, 20);
        t.addSelf(alloc1, 7);
        t.addSelf(g, 3);
        t.addSelf(alloc2, 11);
        t.addSelf(wait, 2);
        std::map<std::string, FunctionWeight> by;
        for (const FunctionWeight& w : functionWeights(t)) by[w.name] = w;
        QCOMPARE(by.size(), 5u);
        QCOMPARE(by["f"].self, 30u);
        QCOMPARE(by["f"].total, 37u); // the recursive call is inside the outer one
        QCOMPARE(by["main"].total, 58u);
        QCOMPARE(by["[Kick]exec/AllocMem"].self, 18u);
        QCOMPARE(by["[Kick]exec/AllocMem"].file, std::string());
        QCOMPARE(by["g"].file, std::string("other.c"));
        QCOMPARE(by["g"].total, 16u);

        // Two builds: a function in another file matches by name when the name is unique,
        // one side's own function is added or removed, and the largest self change is first.
        ProfileSide a, b;
        a.whole = b.whole = 100;
        a.functions = {fn("main", 10, 100), fn("moved", 20, 20, "old.c"), fn("gone", 5, 5), fn("static_fn", 1, 1, "a.c"),
                       fn("static_fn", 2, 2, "b.c")};
        b.functions = {fn("main", 12, 100), fn("moved", 50, 50, "new.c"), fn("new", 3, 3), fn("static_fn", 1, 1, "a.c"),
                       fn("static_fn", 2, 2, "b.c")};
        const ProfileDiff d = diffProfiles(a, b, std::nullopt);
        QCOMPARE(d.functions.size(), 6u);
        QCOMPARE(d.functions[0].name, std::string("moved"));
        QCOMPARE(d.functions[0].status, std::string("changed"));
        QCOMPARE(d.functions[0].self.delta(), 30.0);
        QCOMPARE(d.functions[1].name, std::string("gone"));
        QCOMPARE(d.functions[1].status, std::string("removed"));
        QCOMPARE(d.functions[2].name, std::string("new"));
        QCOMPARE(d.functions[2].status, std::string("added"));
        QVERIFY(!d.functions[2].self.percent());
        QCOMPARE(d.functions[3].name, std::string("main"));
        QCOMPARE(*d.functions[3].self.percent(), 20.0);
        QCOMPARE(d.functions[3].selfShare.b, 0.12);
        QCOMPARE(d.functions[4].status, std::string("same"));
        QCOMPARE(d.functions[5].status, std::string("same"));
    }

    void frameStatistics() {
        std::vector<double> v;
        for (int i = 1; i <= 20; ++i) v.push_back(21 - i); // unsorted
        FrameTimeStats s = frameStats(v, 15);
        QCOMPARE(s.count, 20u);
        QCOMPARE(s.median, 10.5);
        QCOMPARE(s.p95, 19.0); // nearest rank: the 19th of 20
        QCOMPARE(s.max, 20.0);
        QCOMPARE(s.mean, 10.5);
        QCOMPARE(s.overBudget, 5u);
        s = frameStats({7, 3, 5}, std::nullopt);
        QCOMPARE(s.median, 5.0);
        QCOMPARE(s.p95, 7.0);
        QCOMPARE(s.overBudget, 0u);
        QVERIFY_THROWS_EXCEPTION(ProfileDiffError, frameStats({}, std::nullopt));
    }

    void frameTimeOfARecord() {
        FrameTime f = frameTimeOf(record(5, 35000, 36051, "uaelib"));
        QCOMPARE(f.cck, 35000.0);
        QCOMPARE(f.source, std::string("uaelib"));
        QCOMPARE(f.owners.at("cpu"), 1000.0);
        // Without idle markers: the frame minus the CPU's time in STOP.
        f = frameTimeOf(record(5, 71051, 0, "none"));
        QCOMPARE(f.cck, 70951.0);
        QCOMPARE(f.source, std::string("cpu"));
        json broken = record(5, 1, 1, "uaelib");
        broken.erase("busy_cck");
        try {
            frameTimeOf(broken);
            QFAIL("a record without busy_cck was read");
        } catch (const ProfileDiffError& e) {
            QVERIFY2(std::string(e.what()).find("frame record 5: no busy_cck") != std::string::npos, e.what());
        }
    }

    void aCaptureKeepsItsLoopsFrames() {
        CaptureFiles c;
        c.dir = "cap";
        json first = record(1, 71051, 0, "none");
        first["samples_from_cck"] = 12345; // the capture started inside it
        c.frames = {first,
                    record(2, 71051, 0, "none"),          // start-up: no marker yet
                    record(3, 20000, 51051, "uaelib"),    // the loop's first frame
                    record(4, 35000, 36051, "uaelib"),
                    record(5, 71051, 0, "uaelib"),        // an overrun inside the loop stays
                    record(6, 35000, 36051, "uaelib"),
                    record(7, 71051, 0, "uaelib"),        // after the program returned
                    record(8, 71051, 0, "uaelib")};
        SampleReport report;
        report.cck = 42;
        const ProfileSide s = sideFromCapture(c, report, "prog");
        QCOMPARE(s.partialFrames, 1u);
        QCOMPARE(s.outsideFrames, 3u);
        QCOMPARE(s.frames.size(), 4u);
        QCOMPARE(s.frames.front().frame, 3u);
        QCOMPARE(s.frames.back().frame, 6u);
        QCOMPARE(s.frames[2].cck, 71051.0);
        QCOMPARE(s.whole, 42u);
        // Without markers every whole frame counts.
        c.frames = {record(1, 71051, 0, "none"), record(2, 71051, 0, "none")};
        QCOMPARE(sideFromCapture(c, report, "prog").frames.size(), 2u);
    }

    void reportsHoldTheTables() {
        const ProfileSide a = capture({fn("main", 1000, 5000), fn("a|b`c", 4000, 4000)}, {30000, 31000}, 500);
        const ProfileSide b = capture({fn("main", 1100, 5400), fn("a|b`c", 4000, 4000)}, {30000, 33000}, 520);
        const ProfileDiff d = diffProfiles(a, b, std::nullopt);
        const std::vector<ThresholdResult> results = {evaluateThreshold(d, parseThreshold("function:main self>+5%"))};
        const std::string md = diffMarkdown(d, results, 0);
        QVERIFY2(md.find("| `main` (main.c) | 1000 | 1100 | +100 | +10.00% |") != std::string::npos, md.c_str());
        QVERIFY2(md.find("| `a\\|b'c` (main.c) |") != std::string::npos, md.c_str()); // escaped
        QVERIFY(md.find("### Thresholds: 1 tripped") != std::string::npos);
        QVERIFY(md.find("| blitter | 500 | 520 | +20 | +4.00% |") != std::string::npos);
        const std::string text = diffText(d, results, 1);
        QVERIFY2(text.find("1 of 2, --top 0 for all") != std::string::npos, text.c_str());
        QVERIFY(text.find("FAIL function:main self>+5%") != std::string::npos);
        const json j = diffJson(d, results);
        QCOMPARE(j["version"].get<int>(), 1);
        QCOMPARE(j["functions"].size(), 2u);
        QCOMPARE(j["functions"][0]["self"]["change_pct"].get<double>(), 10.0);
        QCOMPARE(j["frame_time"]["median"]["change"].get<double>(), 1000.0);
        QVERIFY(j["frame_time"]["a"]["over_budget"].is_null());
        QCOMPARE(j["tripped"].get<bool>(), true);
    }
};

QTEST_GUILESS_MAIN(TestProfileDiff)
#include "test_profile_diff.moc"
