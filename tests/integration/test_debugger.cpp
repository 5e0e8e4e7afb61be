// SPDX-License-Identifier: GPL-3.0-or-later
// The source-level debugger over the control socket (docs/debugger.md), on the C program
// tests/guest/debugger/dbg.c built at -O0 and -O2 and run under AROS, and on an assembly
// program with LINE blocks (vasm's gencop from vscode-amiga-assembly). Every expected line
// is the one gdb reports for the same step on the same code; every expected value is what
// the program computes (dbg.c's header says what that is).

#include "tests/integration/test_control_fixture.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>
#include <map>
#include <memory>

using copperline::testing::ControlEmulator;
using copperline::testing::errorCode;
using copperline::testing::Raw;
using copperline::testing::uniqueName;
using nlohmann::json;

namespace {

// The lines of a source file named by their "@name" markers.
std::map<std::string, int> readMarkers(const char* path) {
    std::map<std::string, int> out;
    QFile f(QString::fromUtf8(path));
    if (!f.open(QIODevice::ReadOnly)) return out;
    const QRegularExpression marker(QStringLiteral("@(\\w+)"));
    int line = 0;
    while (!f.atEnd()) {
        ++line;
        const QString text = QString::fromLatin1(f.readLine());
        for (auto it = marker.globalMatch(text); it.hasNext();) out[it.next().captured(1).toStdString()] = line;
    }
    return out;
}

// One emulator with the program loaded by --run, and one connection to it that keeps the
// notifications (event.log) it receives between replies.
class Debuggee {
public:
    bool start(const char* tag, const char* program) {
        if (!emu_.start(uniqueName(tag), {"--run", QString::fromUtf8(program)})) return false;
        raw_ = std::make_unique<Raw>(emu_.socketPath());
        return raw_->connected();
    }
    // The whole reply: {result} or {error}.
    json call(const std::string& method, const json& params = nullptr) {
        json request{{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}};
        if (!params.is_null()) request["params"] = params;
        raw_->send(QByteArray::fromStdString(request.dump() + "\n"));
        for (;;) {
            json line = raw_->next(300000);
            if (line.is_discarded()) return json{{"error", {{"code", 0}, {"message", "no reply to " + method}}}};
            if (line.contains("method") && !line.contains("id")) {
                notes_.push_back(std::move(line));
                continue;
            }
            if (line.value("id", json()) == json(id_)) return line;
        }
    }
    // The result of a call that must succeed (null, with a warning, when it fails).
    json ok(const std::string& method, const json& params = nullptr) {
        const json reply = call(method, params);
        if (!reply.contains("result")) {
            qWarning("%s %s failed: %s", method.c_str(), params.dump().c_str(), reply.dump().c_str());
            return json();
        }
        return reply["result"];
    }
    // The error message of a call that must fail with `code`.
    std::string refused(const std::string& method, const json& params, int code) {
        const json reply = call(method, params);
        if (errorCode(reply) != code) {
            qWarning("%s %s: expected error %d, got %s", method.c_str(), params.dump().c_str(), code,
                     reply.dump().c_str());
            return {};
        }
        return reply["error"].value("message", std::string());
    }
    // The notifications received so far with this method.
    std::vector<json> notes(const std::string& method) const {
        std::vector<json> out;
        for (const json& n : notes_)
            if (n.value("method", std::string()) == method) out.push_back(n["params"]);
        return out;
    }
    bool quit() { return emu_.quit(); }

private:
    ControlEmulator emu_;
    std::unique_ptr<Raw> raw_;
    int id_ = 0;
    std::vector<json> notes_;
};

// "function:line" of a stop event's source, or of a frame.
QString where(const json& place) {
    const json& s = place.contains("source") ? place["source"] : place;
    if (!s.is_object()) return QStringLiteral("<no source in %1>").arg(QString::fromStdString(place.dump()));
    return QStringLiteral("%1:%2").arg(QString::fromStdString(s.value("function", std::string("?"))))
        .arg(s.value("line", 0));
}
QString where(const char* function, int line) { return QStringLiteral("%1:%2").arg(function).arg(line); }

std::string fileOf(const json& place) {
    const json& s = place.contains("source") ? place["source"] : place;
    return s.is_object() ? s.value("file", std::string()) : std::string();
}
bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A variable by name in a vars.get reply.
json variable(const json& reply, const std::string& name) {
    if (reply.is_object())
        for (const json& v : reply.value("variables", json::array()))
            if (v.value("name", std::string()) == name) return v;
    return json();
}

std::string value(const json& v) { return v.is_object() ? v.value("value", std::string("<none>")) : "<missing>"; }

} // namespace

class TestDebugger : public QObject {
    Q_OBJECT

    std::map<std::string, int> m_;
    int line(const char* marker) {
        const auto it = m_.find(marker);
        return it == m_.end() ? -1 : it->second;
    }

    // Starts a program and runs it to its first instruction (the loadseg stop).
    bool boot(Debuggee& d, const char* tag, const char* program) {
        if (!d.start(tag, program)) return false;
        const json stop = d.ok("continue");
        if (stop.value("reason", std::string()) != "loadseg") {
            qWarning("first stop: %s", stop.dump().c_str());
            return false;
        }
        return true;
    }
    // A line breakpoint at a marker; returns its reply.
    json breakAt(Debuggee& d, const char* marker, json extra = json::object()) {
        extra["kind"] = "line";
        extra["file"] = "dbg.c";
        extra["line"] = line(marker);
        return d.ok("break.add", extra);
    }
    // The scope named `name` of frame `frame` read with vars.get.
    json scope(Debuggee& d, int frame, const std::string& name) {
        const json scopes = d.ok("vars.scopes", {{"frame", frame}});
        for (const json& s : scopes.value("scopes", json::array()))
            if (s.value("name", std::string()) == name) return d.ok("vars.get", {{"ref", s["ref"]}});
        return json();
    }

private slots:
    void initTestCase() {
        m_ = readMarkers(DEBUGGER_SOURCE);
        QVERIFY2(m_.size() > 20, DEBUGGER_SOURCE);
    }

    // A line breakpoint where a line has no code moves to the next line that has, as gdb
    // moves it; refused breakpoints and expressions leave the machine and the list as they
    // were, with messages that say what is wrong.
    void lineBreakpointsAndRefusals() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-lines", GUEST_DEBUGGER_O0));
        const json bp = d.ok("break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", line("main_word") - 1}});
        QCOMPARE(bp.value("actual_line", 0), line("main_word"));
        QVERIFY(bp.value("verified", false));
        QVERIFY(endsWith(bp.value("actual_file", std::string()), "tests/guest/debugger/dbg.c"));
        QCOMPARE(bp["locations"].size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(bp["locations"][0].value("function", std::string())), QStringLiteral("main"));

        const json stop = d.ok("continue");
        QCOMPARE(QString::fromStdString(stop.value("reason", std::string())), QStringLiteral("breakpoint"));
        QCOMPARE(where(stop), where("main", line("main_word")));
        QCOMPARE(stop["source"]["pc"], bp["locations"][0]["addr"]);

        const json before = d.ok("status");
        const json listBefore = d.ok("break.list");
        constexpr int kNotFound = -32007, kInvalid = -32602;
        QVERIFY(d.refused("break.add", {{"kind", "line"}, {"file", "nosuch.c"}, {"line", 3}}, kNotFound)
                    .find("nosuch.c") != std::string::npos);
        QVERIFY(d.refused("break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", 9999}}, kNotFound)
                    .find("no code at or after line 9999") != std::string::npos);
        QVERIFY(d.refused("break.add", {{"kind", "function"}, {"name", "nosuchfn"}}, kNotFound)
                    .find("nosuchfn") != std::string::npos);
        QVERIFY(d.refused("break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", line("area_a")}, {"cond", "it->"}},
                          kInvalid)
                    .find("cannot parse") != std::string::npos);
        QVERIFY(d.refused("break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", 0}}, kInvalid).size() > 0);
        QVERIFY(d.refused("eval", {{"frame", 0}, {"expr", "1 +"}}, kInvalid).find("an operand expected at column 4") !=
                std::string::npos);
        QVERIFY(d.refused("eval", {{"frame", 0}, {"expr", "nosuchname"}}, kInvalid).find("no symbol \"nosuchname\"") !=
                std::string::npos);
        QVERIFY(d.refused("eval", {{"frame", 0}, {"expr", "word.nosuch"}}, kInvalid)
                    .find("no member named \"nosuch\"") != std::string::npos);
        QVERIFY(d.refused("vars.scopes", {{"frame", 9}}, kInvalid).find("past the stack") != std::string::npos);
        QVERIFY(d.refused("eval", {{"frame", 9}, {"expr", "word"}}, kInvalid).find("past the stack") != std::string::npos);
        QVERIFY(d.refused("vars.get", {{"ref", 12345}}, kNotFound).find("12345 names nothing") != std::string::npos);
        QVERIFY(d.refused("vars.set", {{"frame", 0}, {"expr", "word.l"}, {"value", "1 +"}}, kInvalid).size() > 0);

        const json after = d.ok("status");
        QCOMPARE(after["instructions"], before["instructions"]);
        QCOMPARE(after["pc"], before["pc"]);
        QCOMPARE(after["cck"], before["cck"]);
        QCOMPARE(d.ok("break.list"), listBefore);
        QVERIFY(d.quit());
    }

    // A breakpoint set before the program has loaded waits for it (pending: true), then
    // stops; without `pending` the same request is refused.
    void pendingBreakpointsWaitForTheProgram() {
        Debuggee d;
        QVERIFY(d.start("dbg-pending", GUEST_DEBUGGER_O0));
        QVERIFY(d.refused("break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", line("walk_add")}}, -32007)
                    .find("dbg.c") != std::string::npos);
        const json bp = d.ok("break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", line("walk_add")}, {"pending", true}});
        QVERIFY(!bp.value("verified", true));
        QVERIFY(bp.contains("pending"));
        const json fn = d.ok("break.add", {{"kind", "function"}, {"name", "area"}, {"pending", true}, {"cond", "it->x == 3"}});
        QVERIFY(!fn.value("verified", true));
        QVERIFY(d.refused("break.add", {{"kind", "pc"}, {"addr", 0x1000}, {"pending", true}}, -32602).size() > 0);
        QCOMPARE(QString::fromStdString(d.ok("continue").value("reason", std::string())), QStringLiteral("loadseg"));
        const json list = d.ok("break.list");
        for (const json& b : list["breakpoints"]) {
            QVERIFY2(b.value("verified", false), b.dump().c_str());
            QVERIFY(!b.contains("pending"));
        }
        QCOMPARE(where(d.ok("continue")), where("walk", line("walk_add")));
        const json stop = d.ok("continue");
        QCOMPARE(where(stop), where("walk", line("walk_add")));
        QCOMPARE(where(d.ok("continue")), where("area", line("area_w")));
        QCOMPARE(QString::fromStdString(d.ok("eval", {{"expr", "it->x"}}).value("value", std::string())), QStringLiteral("3"));
        QVERIFY(d.quit());
    }

    // A condition stops only where it holds, `ignore` passes over hits, and a log point
    // prints its expressions (event.log) without stopping.
    void conditionsHitCountsAndLogPoints() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-cond", GUEST_DEBUGGER_O0));
        d.ok("events.subscribe", {{"events", {"event.log"}}});
        const json log = breakAt(d, "walk_tick", {{"log", "total={total} ticks={ticks} x={p->x}"}});
        QVERIFY(log.contains("id"));
        // area() is called with y = 10, 20 and 30: the first does not meet the condition,
        // the second does and is passed over, the third stops.
        const json counted =
            d.ok("break.add", {{"kind", "function"}, {"name", "area"}, {"ignore", 1}, {"cond", "it->y >= 20"}});
        QCOMPARE(counted.value("actual_line", 0), line("area_w"));
        json stop = d.ok("continue");
        QCOMPARE(where(stop), where("area", line("area_w")));
        QCOMPARE(stop["detail"]["id"], counted["id"]);
        QCOMPARE(QString::fromStdString(d.ok("eval", {{"expr", "it->y"}}).value("value", std::string())),
                 QStringLiteral("30"));
        auto logs = d.notes("event.log");
        QCOMPARE(logs.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(logs[0].value("text", std::string())), QStringLiteral("total=41 ticks=0 x=2"));
        QCOMPARE(QString::fromStdString(logs[1].value("text", std::string())), QStringLiteral("total=162 ticks=1 x=3"));
        QCOMPARE(logs[0]["id"], log["id"]);
        const json list = d.ok("break.list");
        for (const json& b : list["breakpoints"]) {
            if (b["id"] == log["id"]) QCOMPARE(b.value("hits", 0), 2);
            if (b["id"] == counted["id"]) QCOMPARE(b.value("hits", 0), 2);
        }
        d.ok("break.remove", {{"id", counted["id"]}});
        breakAt(d, "main_results");
        stop = d.ok("continue");
        QCOMPARE(where(stop), where("main", line("main_results")));
        logs = d.notes("event.log");
        QCOMPARE(logs.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(logs[2].value("text", std::string())), QStringLiteral("total=403 ticks=2 x=4"));
        QVERIFY(d.quit());
    }

    // Line steps at -O0, forward and back, land where gdb lands.
    void lineStepsAtO0() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-steps0", GUEST_DEBUGGER_O0));
        breakAt(d, "main_word");
        QCOMPARE(where(d.ok("continue")), where("main", line("main_word")));
        const std::vector<std::pair<const char*, const char*>> forward = {
            {"next_line", "main:main_fill"},  {"next_line", "main:main_walk"}, {"step_line", "walk:walk_total"},
            {"step_line", "walk:walk_for"},   {"step_line", "walk:walk_add"},  {"step_line", "area:area_w"},
            {"next_line", "area:area_h"},     {"next_line", "area:area_a"},    {"next_line", "area:area_ret"},
            {"step_line", "scale:scale_body"},
        };
        const auto expected = [&](const char* spec) {
            const QString s = QString::fromUtf8(spec);
            const QString fn = s.section(':', 0, 0), mark = s.section(':', 1, 1);
            return where(fn.toUtf8().constData(), line(mark.toUtf8().constData()));
        };
        for (const auto& [method, spec] : forward) {
            const json stop = d.ok(method);
            QCOMPARE(where(stop), expected(spec));
            QCOMPARE(QString::fromStdString(stop.value("reason", std::string())), QStringLiteral("step"));
        }
        // Back: out of scale to the call's line, and into __mulsi3 (area_a's multiply; it
        // has lines) at the last line it executed.
        QCOMPARE(where(d.ok("reverse_step_line")), where("area", line("area_ret")));
        const json mul = d.ok("reverse_step_line");
        QCOMPARE(QString::fromStdString(mul["source"].value("function", std::string())), QStringLiteral("__mulsi3"));
        QVERIFY2(endsWith(fileOf(mul), "muldiv.S"), fileOf(mul).c_str());
        const int mulLine = mul["source"].value("line", 0);
        const json mulBack = d.ok("reverse_next_line");
        QCOMPARE(where(mulBack), where("__mulsi3", mulLine - 1));
        // Out of __mulsi3: the return address is in the middle of area's line.
        QCOMPARE(where(d.ok("step_out")), where("area", line("area_a")));
        // Back from the middle of a line: first to its start, then to the line before.
        QCOMPARE(where(d.ok("reverse_next_line")), where("area", line("area_a")));
        QCOMPARE(where(d.ok("reverse_next_line")), where("area", line("area_h")));
        QCOMPARE(where(d.ok("reverse_next_line")), where("area", line("area_w")));
        // Back out of area to its call in walk, then forward again by line.
        QCOMPARE(where(d.ok("reverse_step_line")), where("walk", line("walk_add")));
        QCOMPARE(where(d.ok("next_line")), where("walk", line("walk_tick")));
        QCOMPARE(where(d.ok("step_out")), where("main", line("main_walk")));
        QCOMPARE(where(d.ok("next_line")), where("main", line("main_scale")));
        QCOMPARE(QString::fromStdString(d.ok("eval", {{"expr", "total"}}).value("value", std::string())),
                 QStringLiteral("403"));
        QVERIFY(d.quit());
    }

    // Line steps at -O2, where lines are interleaved and scale() is inlined twice: the
    // stops gdb makes, forward and back.
    void lineStepsAtO2() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-steps2", GUEST_DEBUGGER_O2));
        const json bp = breakAt(d, "walk_total");
        QCOMPARE(bp.value("actual_line", 0), line("walk_total"));
        // Line 54's code shares its address with line 55's first instruction: the stop,
        // like gdb's, shows the later line.
        QCOMPARE(where(d.ok("continue")), where("walk", line("walk_for")));
        d.ok("break.remove", {{"id", bp["id"]}});
        const std::vector<std::pair<const char*, const char*>> forward = {
            // area's first instruction belongs to scale's return line in the line table.
            {"step_line", "walk:walk_add"},    {"step_line", "area:scale_ret"}, {"step_line", "area:area_ret"},
            // At the inlined call's site a step goes into it without running.
            {"step_line", "scale:scale_body"}, {"step_line", "walk:walk_tick"}, {"step_line", "walk:walk_for"},
            {"step_line", "walk:walk_add"},    {"next_line", "walk:walk_tick"}, {"next_line", "walk:walk_for"},
            {"next_line", "walk:walk_add"},
        };
        for (const auto& [method, spec] : forward) {
            const QString s = QString::fromUtf8(spec);
            const json stop = d.ok(method);
            QCOMPARE(where(stop), where(s.section(':', 0, 0).toUtf8().constData(),
                                        line(s.section(':', 1, 1).toUtf8().constData())));
        }
        QVERIFY(d.quit());

        // In main: over walk(); line 81 comes twice, before and at the inlined scale() call.
        Debuggee m;
        QVERIFY(boot(m, "dbg-steps2m", GUEST_DEBUGGER_O2));
        breakAt(m, "main_walk");
        QCOMPARE(where(m.ok("continue")), where("main", line("main_walk")));
        const int scaleLine = line("main_scale"), results = line("main_results"), alloc = line("main_alloc");
        QCOMPARE(where(m.ok("next_line")), where("main", scaleLine));
        QCOMPARE(where(m.ok("step_line")), where("main", results));
        QCOMPARE(where(m.ok("step_line")), where("main", results + 1));
        QCOMPARE(where(m.ok("next_line")), where("main", scaleLine));
        QCOMPARE(where(m.ok("next_line")), where("main", alloc));
        // Back by line over the same code.
        for (const int l : {scaleLine, results + 1, results, scaleLine, line("main_walk")})
            QCOMPARE(where(m.ok("reverse_next_line")), where("main", l));
        for (const int l : {scaleLine, results, results + 1, scaleLine, alloc})
            QCOMPARE(where(m.ok("next_line")), where("main", l));
        // Back by line into what was called: the inlined scale, then walk at its end.
        const std::vector<QString> backInto = {where("scale", line("scale_ret")), where("scale", line("scale_ret")),
                                               where("main", results + 1), where("main", results),
                                               where("main", scaleLine), where("walk", line("walk_ret") + 1)};
        for (const QString& w : backInto) QCOMPARE(where(m.ok("reverse_step_line")), w);
        QVERIFY(m.quit());
    }

    // The call stack from the call-frame information, innermost first, and its pages.
    void stackFrames() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-stack", GUEST_DEBUGGER_O0));
        breakAt(d, "scale_body");
        QCOMPARE(where(d.ok("continue")), where("scale", line("scale_body")));
        const json all = d.ok("stack.frames");
        QCOMPARE(all.value("total", 0), 4);
        const std::vector<QString> chain = {where("scale", line("scale_body")), where("area", line("area_ret")),
                                            where("walk", line("walk_add")), where("main", line("main_walk"))};
        QCOMPARE(all["frames"].size(), chain.size());
        std::uint32_t lastCfa = 0;
        for (std::size_t i = 0; i < chain.size(); ++i) {
            const json& f = all["frames"][i];
            QCOMPARE(where(f), chain[i]);
            QCOMPARE(f.value("index", -1), int(i));
            QCOMPARE(QString::fromStdString(f.value("kind", std::string())), QStringLiteral("source"));
            QCOMPARE(f.value("caller", false), i > 0);
            QVERIFY(!f.value("inlined", false));
            const std::uint32_t cfa = f.value("cfa", 0u);
            QVERIFY2(cfa > lastCfa, f.dump().c_str());
            lastCfa = cfa;
        }
        const json page = d.ok("stack.frames", {{"start", 1}, {"count", 2}});
        QCOMPARE(page.value("total", 0), 4);
        QCOMPARE(page["frames"].size(), std::size_t(2));
        QCOMPARE(page["frames"][0], all["frames"][1]);
        QCOMPARE(page["frames"][1], all["frames"][2]);
        QCOMPARE(d.ok("stack.frames", {{"start", 7}})["frames"].size(), std::size_t(0));
        // Each frame's variables are its own: `it` in area, `p` in walk, `word` in main.
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 0, "Parameters"), "v"))), QStringLiteral("20"));
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 0, "Parameters"), "f"))), QStringLiteral("2"));
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 1, "Locals"), "a"))), QStringLiteral("20"));
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 2, "Locals"), "total"))), QStringLiteral("0"));
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 3, "Locals"), "word"))),
                 QStringLiteral("{l = 287454020, w = {4386, 13124}, b = \"\\021\\\"3D\"}"));
        QVERIFY(d.quit());
    }

    // Variables of every kind read back what the program computed; a pointer is followed,
    // and a variable written with vars.set changes what the program computes next.
    void variablesAtO0() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-vars", GUEST_DEBUGGER_O0));
        breakAt(d, "area_a", {{"cond", "it->x == 3"}});
        QCOMPARE(where(d.ok("continue")), where("area", line("area_a")));
        const json scopes = d.ok("vars.scopes", {{"frame", 0}});
        std::vector<std::string> names;
        for (const json& s : scopes["scopes"]) names.push_back(s.value("name", std::string()));
        QCOMPARE(names, (std::vector<std::string>{"Locals", "Parameters", "Globals", "Registers"}));

        const json locals = scope(d, 0, "Locals");
        QCOMPARE(QString::fromStdString(value(variable(locals, "w"))), QStringLiteral("3"));
        QCOMPARE(QString::fromStdString(value(variable(locals, "h"))), QStringLiteral("20"));
        QCOMPARE(QString::fromStdString(variable(locals, "w").value("type", std::string())), QStringLiteral("int"));

        // The pointer parameter, followed to the struct and its members.
        const json it = variable(scope(d, 0, "Parameters"), "it");
        QCOMPARE(QString::fromStdString(it.value("type", std::string())), QStringLiteral("const Item *"));
        QVERIFY(it.value("parameter", false));
        const json target = d.ok("vars.get", {{"ref", it["ref"]}})["variables"][0];
        QCOMPARE(QString::fromStdString(target.value("name", std::string())), QStringLiteral("*it"));
        const json members = d.ok("vars.get", {{"ref", target["ref"]}});
        QCOMPARE(QString::fromStdString(value(variable(members, "x"))), QStringLiteral("3"));
        QCOMPARE(QString::fromStdString(value(variable(members, "y"))), QStringLiteral("20"));
        QCOMPARE(QString::fromStdString(value(variable(members, "shape"))), QStringLiteral("SHAPE_ROUND"));
        QVERIFY(QString::fromStdString(value(variable(members, "name"))).endsWith(QStringLiteral(" \"beta\"")));
        const json flags = d.ok("vars.get", {{"ref", variable(members, "flags")["ref"]}});
        QCOMPARE(QString::fromStdString(value(variable(flags, "visible"))), QStringLiteral("1"));
        QCOMPARE(QString::fromStdString(value(variable(flags, "layer"))), QStringLiteral("2"));
        QCOMPARE(QString::fromStdString(value(variable(flags, "delta"))), QStringLiteral("-2"));
        QCOMPARE(variable(flags, "delta")["bits"].value("size", 0), 4);

        // Globals: the array, its elements a page at a time, the strings, the volatile.
        const json globals = scope(d, 0, "Globals");
        QCOMPARE(QString::fromStdString(value(variable(globals, "ticks"))), QStringLiteral("1"));
        QCOMPARE(QString::fromStdString(variable(globals, "ticks").value("type", std::string())),
                 QStringLiteral("volatile long int"));
        const json items = variable(globals, "items");
        QCOMPARE(QString::fromStdString(items.value("type", std::string())), QStringLiteral("Item [3]"));
        QCOMPARE(items.value("indexed", 0), 3);
        const json third = d.ok("vars.get", {{"ref", items["ref"]}, {"start", 2}, {"count", 1}})["variables"];
        QCOMPARE(third.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(third[0].value("name", std::string())), QStringLiteral("[2]"));
        QVERIFY2(value(third[0]).starts_with("{x = 4, y = 30, shape = SHAPE_ROUND, flags = {visible = 0, layer = 3, "
                                             "delta = -3}, name = 0x"),
                 value(third[0]).c_str());
        QVERIFY(value(third[0]).ends_with(" \"gamma\", next = 0x0}"));
        const std::string nameList = value(variable(globals, "names"));
        QVERIFY2(nameList.starts_with("{0x") && nameList.find(" \"alpha\", 0x") != std::string::npos &&
                     nameList.find(" \"beta\", 0x") != std::string::npos && nameList.ends_with(" \"gamma\"}"),
                 nameList.c_str());
        QCOMPARE(QString::fromStdString(value(variable(globals, "results"))), QStringLiteral("{0, 0}"));

        // eval's C subset.
        const auto eval = [&](const char* expr, int frame = 0) {
            return QString::fromStdString(d.ok("eval", {{"frame", frame}, {"expr", expr}}).value("value", std::string()));
        };
        QCOMPARE(eval("it->next->x"), QStringLiteral("4"));
        QCOMPARE(eval("items[2].flags"), QStringLiteral("{visible = 0, layer = 3, delta = -3}"));
        QCOMPARE(eval("(*it).y * 2 + w"), QStringLiteral("43"));
        QCOMPARE(eval("&items[1] == it"), QStringLiteral("1"));
        QCOMPARE(eval("(char)it->x + 1000"), QStringLiteral("1003"));
        QCOMPARE(eval("word.b[1]", 2), QStringLiteral("34 '\"'"));
        QCOMPARE(eval("word.w[1]", 2), QStringLiteral("13124"));
        QVERIFY(eval("names[1]").endsWith(QStringLiteral(" \"beta\"")));
        // A function's name is its code, as gdb reads it.
        QVERIFY2(eval("area").startsWith(QStringLiteral("{int (const Item *)} 0x")), qPrintable(eval("area")));
        const std::uint32_t areaAt = d.ok("eval", {{"expr", "area"}}).value("address", 0u);
        const json areaBp = d.ok("break.add", {{"kind", "function"}, {"name", "area"}});
        QCOMPARE(areaBp["locations"][0].value("addr", 0u), areaAt + 4); // after its LINK A6,#-12
        d.ok("break.remove", {{"id", areaBp["id"]}});

        // Registers of the innermost frame are the CPU's; scratch registers of an outer
        // frame are not known.
        const json regs = scope(d, 0, "Registers");
        QCOMPARE(regs["variables"].size(), std::size_t(18));
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 1, "Registers"), "d0"))), QStringLiteral("<not saved>"));

        // vars.set: w = 5, and the next line computes a = 5 * 20.
        const json set = d.ok("vars.set", {{"ref", d.ok("vars.scopes", {{"frame", 0}})["scopes"][0]["ref"]},
                                           {"name", "w"}, {"value", "5"}});
        QCOMPARE(QString::fromStdString(set.value("value", std::string())), QStringLiteral("5"));
        QCOMPARE(where(d.ok("next_line")), where("area", line("area_ret")));
        QCOMPARE(eval("a"), QStringLiteral("100"));
        d.ok("vars.set", {{"frame", 0}, {"expr", "it->y"}, {"value", "it->y + 1"}});
        QCOMPARE(eval("items[1].y"), QStringLiteral("21"));
        QVERIFY(d.quit());
    }

    // At -O2: a line breakpoint in scale() is set in both inlined copies; the inlined
    // call is a frame of its own; the register-allocated `a` and `total` read back, and
    // what the compiler left nothing of says so.
    void inlinedAndRegistersAtO2() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-inline", GUEST_DEBUGGER_O2));
        const json bp = breakAt(d, "scale_body");
        QCOMPARE(bp["locations"].size(), std::size_t(2));
        QCOMPARE(bp.value("actual_line", 0), line("scale_body"));
        const std::vector<int> areas = {20, 60, 120};
        for (const int a : areas) {
            const json stop = d.ok("continue");
            QCOMPARE(where(stop), where("scale", line("scale_body")));
            QCOMPARE(stop["pc"], bp["locations"][0]["addr"]);
            const json frames = d.ok("stack.frames")["frames"];
            QCOMPARE(frames.size(), std::size_t(4));
            QVERIFY(frames[0].value("inlined", false));
            QCOMPARE(where(frames[1]), where("area", line("area_ret")));
            QCOMPARE(frames[1]["pc"], frames[0]["pc"]);
            QVERIFY(!frames[1].value("caller", false));
            QCOMPARE(where(frames[2]), where("walk", line("walk_add")));
            QCOMPARE(where(frames[3]), where("main", line("main_walk")));
            const json areaA = variable(scope(d, 1, "Locals"), "a");
            QCOMPARE(QString::fromStdString(value(areaA)), QString::number(a));
            QVERIFY(areaA.contains("register"));
            const json r = variable(scope(d, 0, "Locals"), "r");
            QVERIFY(r.value("optimized_out", false));
            QCOMPARE(QString::fromStdString(value(r)), QStringLiteral("<optimized out>"));
        }
        json stop = d.ok("continue");
        QCOMPARE(stop["pc"], bp["locations"][1]["addr"]);
        const json frames = d.ok("stack.frames")["frames"];
        QCOMPARE(frames.size(), std::size_t(2));
        QVERIFY(frames[0].value("inlined", false));
        QCOMPARE(where(frames[1]), where("main", line("main_scale")));
        const json total = variable(scope(d, 1, "Locals"), "total");
        QCOMPARE(QString::fromStdString(value(total)), QStringLiteral("403"));
        QVERIFY(total.contains("register"));
        QVERIFY(variable(scope(d, 1, "Locals"), "mem").value("optimized_out", false));
        // A function's breakpoint by name is set in every inlined copy of it, and the
        // copy's parameters are listed in the declaration's order.
        d.ok("break.remove", {{"id", bp["id"]}});
        const json byName = d.ok("break.add", {{"kind", "function"}, {"name", "scale"}});
        QCOMPARE(byName["locations"].size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) QCOMPARE(byName["locations"][i]["addr"], bp["locations"][i]["addr"]);
        std::vector<std::string> params;
        const json parameters = scope(d, 0, "Parameters");
        for (const json& v : parameters["variables"]) params.push_back(v.value("name", std::string()));
        QCOMPARE(params, (std::vector<std::string>{"v", "f"}));
        // A register cannot be watched: refused with the reason.
        QVERIFY(d.refused("break.add", {{"kind", "watch"}, {"expr", "total"}, {"frame", 1}}, -32602)
                    .find("register") != std::string::npos);
        QVERIFY(d.quit());
    }

    // A watch on a variable stops after the instruction that wrote it and names the writer.
    void watchNamesTheWriter() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-watch", GUEST_DEBUGGER_O0));
        breakAt(d, "walk_total");
        QCOMPARE(where(d.ok("continue")), where("walk", line("walk_total")));
        const json w = d.ok("break.add", {{"kind", "watch"}, {"expr", "total"}});
        QCOMPARE(w.value("len", 0), 4);
        // The first write is `total = 0` over what the stack slot held before.
        json stop = d.ok("continue");
        QCOMPARE(QString::fromStdString(stop.value("reason", std::string())), QStringLiteral("watchpoint"));
        json detail = stop["detail"];
        QCOMPARE(detail["id"], w["id"]);
        QCOMPARE(QString::fromStdString(detail.value("expr", std::string())), QStringLiteral("total"));
        QCOMPARE(QString::fromStdString(detail.value("new", std::string())), QStringLiteral("0"));
        QCOMPARE(where(detail["writer"]), where("walk", line("walk_total")));
        stop = d.ok("continue");
        detail = stop["detail"];
        QCOMPARE(QString::fromStdString(detail.value("old", std::string())), QStringLiteral("0"));
        QCOMPARE(QString::fromStdString(detail.value("new", std::string())), QStringLiteral("41"));
        QCOMPARE(where(detail["writer"]), where("walk", line("walk_add")));
        // A second watch, passing over its first hit: total's next change comes first.
        const json g = d.ok("break.add", {{"kind", "watch"}, {"expr", "ticks"}, {"ignore", 1}});
        stop = d.ok("continue");
        QCOMPARE(stop["detail"]["id"], w["id"]);
        QCOMPARE(QString::fromStdString(stop["detail"].value("new", std::string())), QStringLiteral("162"));
        stop = d.ok("continue");
        detail = stop["detail"];
        QCOMPARE(detail["id"], g["id"]);
        QCOMPARE(QString::fromStdString(detail.value("old", std::string())), QStringLiteral("1"));
        QCOMPARE(QString::fromStdString(detail.value("new", std::string())), QStringLiteral("2"));
        QCOMPARE(where(detail["writer"]), where("walk", line("walk_tick")));
        QVERIFY(endsWith(fileOf(detail["writer"]), "dbg.c"));
        const json list = d.ok("break.list");
        for (const json& b : list["breakpoints"])
            if (b["id"] == g["id"]) QCOMPARE(b.value("hits", 0), 2);
        d.ok("break.remove", {{"id", g["id"]}});
        QCOMPARE(QString::fromStdString(d.ok("continue")["detail"].value("new", std::string())), QStringLiteral("403"));
        // walk returns: the watch on its local goes with the frame, and the run stops where
        // main resumes, as gdb stops when the program leaves the block.
        const json left = d.ok("continue");
        QCOMPARE(QString::fromStdString(left.value("reason", std::string())), QStringLiteral("watchpoint_scope"));
        QCOMPARE(left["detail"]["id"], w["id"]);
        QVERIFY2(left["detail"].value("message", std::string()).find("deleted") != std::string::npos, left.dump().c_str());
        QCOMPARE(where(left), where("main", line("main_walk")));
        const json after = d.ok("break.list");
        for (const json& b : after["breakpoints"]) QVERIFY(b["id"] != w["id"]);
        // Two watches on one variable: the first passes the write over (its condition), the
        // second stops at it.
        const json never = d.ok("break.add", {{"kind", "watch"}, {"expr", "results[0]"}, {"cond", "results[0] == 1"}});
        const json each = d.ok("break.add", {{"kind", "watch"}, {"expr", "results[0]"}});
        const json both = d.ok("continue");
        QCOMPARE(both["detail"]["id"], each["id"]);
        QCOMPARE(QString::fromStdString(both["detail"].value("new", std::string())), QStringLiteral("403"));
        const json counts = d.ok("break.list");
        for (const json& b : counts["breakpoints"]) {
            if (b["id"] == never["id"]) QCOMPARE(b.value("hits", -1), 0);
            if (b["id"] == each["id"]) QCOMPARE(b.value("hits", -1), 1);
        }
        QVERIFY(d.quit());
    }

    // Stopped in the ROM's AllocMem called from main: the stack goes through the ROM and
    // the library stub to main's line.
    void stackThroughRom() {
        Debuggee d;
        QVERIFY(boot(d, "dbg-rom", GUEST_DEBUGGER_O2));
        breakAt(d, "main_alloc");
        QCOMPARE(where(d.ok("continue")), where("main", line("main_alloc")));
        const auto readLong = [&](std::uint32_t addr) {
            const std::string hex = d.ok("mem.read", {{"addr", addr}, {"len", 4}}).value("data", std::string());
            return std::uint32_t(std::stoul(hex, nullptr, 16));
        };
        const std::uint32_t sysBase = readLong(4);
        // exec's AllocMem vector: a JMP at -198 whose target follows the opcode.
        const std::uint32_t allocMem = readLong(sysBase - 196);
        QVERIFY(allocMem >= 0xF80000);
        d.ok("break.add", {{"kind", "pc"}, {"addr", allocMem}});
        const json stop = d.ok("continue");
        QCOMPARE(stop.value("pc", 0u), allocMem);
        const json frames = d.ok("stack.frames")["frames"];
        QVERIFY2(frames.size() >= 3, frames.dump().c_str());
        QCOMPARE(QString::fromStdString(frames[0].value("kind", std::string())), QStringLiteral("system"));
        QVERIFY2(frames[0].value("function", std::string()).find("AllocMem") != std::string::npos, frames[0].dump().c_str());
        QCOMPARE(QString::fromStdString(frames[1].value("function", std::string())), QStringLiteral("AllocMem"));
        QVERIFY(endsWith(fileOf(frames[1]), "amiga.S"));
        QCOMPARE(where(frames[2]), where("main", line("main_alloc")));
        QCOMPARE(frames.size(), std::size_t(3)); // the stack ends at main, as gdb's does
        // Out of the ROM into the stub, and out of the stub to main past the call.
        QCOMPARE(QString::fromStdString(d.ok("step_out")["source"].value("function", std::string())),
                 QStringLiteral("AllocMem"));
        QCOMPARE(where(d.ok("step_out")), where("main", line("main_free")));
        QVERIFY(d.quit());
    }

    // A long long gcc keeps in two registers at -O2: its DWARF location is in pieces, read
    // back whole, in the callee and in its caller.
    void registerPairsInPieces() {
        const auto marks = readMarkers(PIECES_SOURCE);
        Debuggee d;
        QVERIFY(boot(d, "dbg-pieces", GUEST_DEBUGGER_PIECES));
        d.ok("break.add", {{"kind", "line"}, {"file", "pieces.c"}, {"line", marks.at("widen_sink")}});
        QCOMPARE(d.ok("continue")["source"].value("line", 0), marks.at("widen_sink"));
        const json x = variable(scope(d, 0, "Locals"), "x");
        QCOMPARE(QString::fromStdString(value(x)), QStringLiteral("14660155042"));
        QCOMPARE(QString::fromStdString(x.value("type", std::string())), QStringLiteral("long long int"));
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 0, "Parameters"), "a"))), QStringLiteral("4886718345"));
        QCOMPARE(QString::fromStdString(d.ok("eval", {{"expr", "x - a * 3"}}).value("value", std::string())),
                 QStringLiteral("7"));
        d.ok("break.add", {{"kind", "line"}, {"file", "pieces.c"}, {"line", marks.at("main_sink")}});
        QCOMPARE(d.ok("continue")["source"].value("line", 0), marks.at("main_sink"));
        QCOMPARE(QString::fromStdString(value(variable(scope(d, 0, "Locals"), "v"))), QStringLiteral("9841234219"));
        QVERIFY(d.quit());
    }

    // Values of every shape read as gdb prints them: gdb-multiarch prints each expression
    // from the ELF's initialized data, eval prints it in the running program at main, and
    // the texts agree but for addresses (and for gdb's `(type *)` before a pointer at the
    // top, which a variable's value leaves out, as gdb/MI's does).
    void valuesAsGdbPrintsThem() {
        const QStringList exprs = {
            "o", "many[1]", "unknown", "both", "matrix", "matrix[1]", "buf", "bytes", "strs", "*op", "op", "vp",
            "z", "full", "mixed", "arr", "zeros", "mostly", "huge", "mid", "*mid", "&arr[4]", "&o.in[1]",
            "big", "ubig", "neg", "wide", "mix", "o.in", "o.f", "o.d", "o.name", "o.in[1].s8", "o.bits",
            "o.ub", "o.ok", "o.label", "(char)65", "sizeof(o)", "buf[3]", "-neg * 3", "ubig + 1", "big - 1",
            "10 / 3", "-7 % 3", "1 << 31", "o.c == BLUE", "&matrix[1][2] - &matrix[0][0]", "main"};
        QStringList args{"-batch", "-nx"};
        for (const QString& e : exprs) args << "-ex" << "print " + e;
        args << QStringLiteral(GUEST_DEBUGGER_VALUES_ELF);
        QProcess gdb;
        gdb.start(QStringLiteral(GDB_MULTIARCH), args);
        QVERIFY(gdb.waitForFinished(60000));
        const QStringList printed = QString::fromUtf8(gdb.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(printed.size(), exprs.size());
        const QRegularExpression history(QStringLiteral("^\\$\\d+ = ")), pointerType(QStringLiteral("^\\([^()]*(\\(\\*\\)\\([^()]*\\))?[^()]*\\) (?=0x)")),
            address(QStringLiteral("0x[0-9a-f]+"));
        const auto normal = [&](QString text) {
            text.remove(history);
            text.remove(pointerType);
            return text.replace(address, QStringLiteral("0xADDR"));
        };

        Debuggee d;
        QVERIFY(boot(d, "dbg-values", GUEST_DEBUGGER_VALUES));
        d.ok("break.add", {{"kind", "function"}, {"name", "main"}});
        QCOMPARE(QString::fromStdString(d.ok("continue").value("reason", std::string())), QStringLiteral("breakpoint"));
        for (qsizetype i = 0; i < exprs.size(); ++i) {
            const json r = d.call("eval", {{"expr", exprs[i].toStdString()}});
            const QString ours = QString::fromStdString(r.contains("result") ? r["result"].value("value", std::string())
                                                                              : r.dump());
            QCOMPARE(normal(ours) + "  [" + exprs[i] + "]", normal(printed[i]) + "  [" + exprs[i] + "]");
        }
        QVERIFY(d.quit());
    }

    // The programs users build: Bartman's gcc template (DWARF), stepped by line both ways
    // over a library call into the ROM (OpenLibrary: the system switches tasks and returns
    // through pushed addresses inside it), and vbcc's (LINE blocks, `_main` in the symbols).
    void programsOfTheirToolchains() {
        {
            Debuggee d;
            QVERIFY(boot(d, "dbg-bartman", BARTMAN_TEMPLATE));
            const json bp = d.ok("break.add", {{"kind", "function"}, {"name", "main"}});
            QCOMPARE(bp.value("actual_line", 0), 153);
            QCOMPARE(where(d.ok("continue")), where("main", 153));
            QCOMPARE(where(d.ok("next_line")), where("main", 154));
            QCOMPARE(where(d.ok("next_line")), where("main", 155));
            QCOMPARE(where(d.ok("next_line")), where("main", 158)); // GfxBase = OpenLibrary(...)
            QCOMPARE(where(d.ok("step_line")), where("main", 159)); // OpenLibrary has no lines
            QCOMPARE(where(d.ok("reverse_step_line")), where("main", 158));
            QCOMPARE(where(d.ok("reverse_next_line")), where("main", 155));
            QCOMPARE(where(d.ok("next_line")), where("main", 158));
            QCOMPARE(where(d.ok("next_line")), where("main", 159));
            const json gfx = d.ok("eval", {{"expr", "GfxBase"}});
            QVERIFY2(gfx.value("value", std::string()).starts_with("0x"), gfx.dump().c_str());
            QVERIFY(gfx.value("value", std::string()) != "0x0");
            QVERIFY(d.quit());
        }
        {
            Debuggee d;
            QVERIFY(boot(d, "dbg-vbcc", HELLO_VBCC));
            const json bp = d.ok("break.add", {{"kind", "function"}, {"name", "main"}});
            QCOMPARE(bp["locations"].size(), std::size_t(1));
            const json stop = d.ok("continue");
            QCOMPARE(stop.value("pc", 0u), bp["locations"][0].value("addr", 1u));
            QVERIFY(endsWith(fileOf(stop), "hello.c"));
            const json second = d.ok("next_line");
            const json third = d.ok("next_line");
            QVERIFY2(third.contains("source") && second.contains("source"), third.dump().c_str());
            QVERIFY2(third["source"].value("line", 0) > second["source"].value("line", 0), third.dump().c_str());
            QCOMPARE(where(d.ok("reverse_next_line")), where(second));
            QVERIFY(d.quit());
        }
    }

    // An assembly program with LINE blocks: a breakpoint at a line of gencop.s, a line
    // step, and the Copper list it built, decoded.
    void copperListOfAnAssemblyProgram() {
        QFile source(QStringLiteral(GENCOP_SOURCE));
        QVERIFY(source.open(QIODevice::ReadOnly));
        int setLine = 0, n = 0;
        while (!source.atEnd()) {
            ++n;
            if (source.readLine().contains("move.l     copper_list,$dff080")) setLine = n;
        }
        QVERIFY(setLine > 0);
        Debuggee d;
        QVERIFY(boot(d, "dbg-gencop", GENCOP));
        const json bp = d.ok("break.add", {{"kind", "line"}, {"file", "gencop.s"}, {"line", setLine}});
        QCOMPARE(bp.value("actual_line", 0), setLine);
        json stop = d.ok("continue");
        QCOMPARE(stop["source"].value("line", 0), setLine);
        QVERIFY(endsWith(fileOf(stop), "gencop.s"));
        stop = d.ok("step_line");
        QCOMPARE(stop["source"].value("line", 0), setLine + 1);

        // The list gencop.s writes: a prologue, twenty bars of colour and an epilogue.
        std::vector<std::pair<unsigned, unsigned>> want = {{0x1fc, 0},      {0x100, 0x200},  {0x180, 0x349},
                                                           {0x2b07, 0xfffe}, {0x180, 0x56c}, {0x2c07, 0xfffe},
                                                           {0x180, 0x113}};
        unsigned d3 = 0x8007, d1 = 0x050;
        for (int i = 0; i < 10; ++i, d3 += 0x100, d1 += 0x10) {
            want.push_back({d3, 0xfffe});
            want.push_back({0x180, d1});
        }
        for (int i = 0; i < 10; ++i, d3 += 0x100, d1 -= 0x10) {
            want.push_back({d3, 0xfffe});
            want.push_back({0x180, d1});
        }
        for (const auto& w : std::vector<std::pair<unsigned, unsigned>>{
                 {d3, 0xfffe}, {0x180, 0x113}, {0xffdf, 0xfffe}, {0x2c07, 0xfffe}, {0x180, 0x56c},
                 {0x2d07, 0xfffe}, {0x180, 0x349}, {0xffdf, 0xfffe}, {0xffff, 0xfffe}})
            want.push_back(w);

        const json list = d.ok("copper.list", {{"list", 1}});
        QCOMPARE(list["addr"], list["cop1lc"]);
        std::vector<std::pair<unsigned, unsigned>> got;
        for (const json& i : list["instructions"]) got.push_back({i["words"][0].get<unsigned>(), i["words"][1].get<unsigned>()});
        QCOMPARE(got, want);
        QCOMPARE(QString::fromStdString(list.value("end", std::string())), QStringLiteral("wait_ffff"));
        // Decoded: a MOVE names its register, a WAIT its beam position.
        QCOMPARE(QString::fromStdString(list["instructions"][2].value("reg_name", std::string())), QStringLiteral("COLOR00"));
        QCOMPARE(list["instructions"][2].value("value", 0), 0x349);
        QCOMPARE(QString::fromStdString(list["instructions"][3].value("op", std::string())), QStringLiteral("wait"));
        QCOMPARE(list["instructions"][3].value("vpos", 0), 0x2b);
        QCOMPARE(list["instructions"][3].value("hpos", 0), 0x06);
        QVERIFY(d.quit());
    }
};

QTEST_GUILESS_MAIN(TestDebugger)
#include "test_debugger.moc"
