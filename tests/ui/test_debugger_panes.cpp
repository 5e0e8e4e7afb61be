// SPDX-License-Identifier: GPL-3.0-or-later
// The source debugger's panes (Source, Call stack, Variables and Watch) offscreen against
// the commands they show, on the debugger's C program (tests/guest/debugger/dbg.c) run
// under AROS as --run runs it under --control: its run disk in DF0, a stop at its first
// instruction (reason loadseg). A click in the Source margin adds a line breakpoint that
// break.list holds and the machine stops at; the call stack lists area, walk and main, and
// a click on walk shows its line and its variables; a value changed by a line step and a
// watch changed by the program are marked; an inlined call is marked as one at -O2; and
// the window has the docks and its line-step actions move the Source pane's line.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/ofs.h"
#include "ui/copper_pane.h"
#include "ui/custom_regs_pane.h"
#include "ui/main_window.h"
#include "ui/memory_pane.h"
#include "ui/source_pane.h"
#include "ui/stack_pane.h"
#include "ui/vars_pane.h"
#include "tests/ui/pane_bridge.h"

#include <QDockWidget>
#include <QFile>
#include <QHBoxLayout>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeWidget>
#include <QtTest>
#include <filesystem>

using namespace copperline;
using nlohmann::json;

namespace {

json call(Emulator& e, const std::string& method, const json& params = json::object()) {
    const CommandResult r = e.call(method, params);
    if (!r.ok) qWarning("%s: %s", method.c_str(), r.errorMessage.c_str());
    return r.ok ? r.result : json{{"error", r.errorCode}, {"message", r.errorMessage}};
}

// The line of dbg.c that carries the marker comment "@name".
int markerLine(const char* name) {
    QFile f(QStringLiteral(DEBUGGER_SOURCE));
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return -1;
    const QString marker = QStringLiteral("/* @%1 */").arg(QLatin1String(name));
    int line = 0;
    while (!f.atEnd()) {
        ++line;
        if (QString::fromUtf8(f.readLine()).contains(marker)) return line;
    }
    return -1;
}

// The disk --run builds (app/run_program.cpp): the program, the loader and a
// Startup-Sequence that runs it.
AdfImage runDisk(const std::string& program) {
    ofs::Volume volume;
    volume.name = "CopperlineRun";
    const std::string name = std::filesystem::path(program).filename().string();
    volume.files.push_back({name, readFileBytes(program, adf::kImageBytes)});
    volume.files.push_back({"CopperlineRun", readFileBytes(RUNNER_HUNK, adf::kImageBytes)});
    const std::string script = ":CopperlineRun \":" + name + "\" \n";
    volume.files.push_back({"S/Startup-Sequence", {script.begin(), script.end()}});
    return ofs::writeVolume(volume);
}

// The machine --run gives a program (1.5 MB slow RAM, 8 MB fast), booting AROS with the
// program's run disk, stopped at the program's first instruction.
std::unique_ptr<Emulator> debugging(const char* program, bool pictures = false) {
    Machine::Config config;
    config.slowRamBytes = 1536u << 10;
    config.fastRamBytes = 8u << 20;
    auto m = std::make_unique<Machine>(config);
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    m->connectDrive(0, true);
    m->insertDisk(0, runDisk(program));
    Emulator::Options o;
    o.pictures = pictures;
    o.paced = false;
    o.startRunning = false;
    o.runProgram = program;
    auto e = std::make_unique<Emulator>(std::move(m), o);
    e->start();
    const json stop = call(*e, "continue");
    if (stop.value("reason", std::string()) != "loadseg") qWarning("no loadseg stop: %s", stop.dump().c_str());
    return e;
}

using Bridge = copperline::testing::PaneBridge;

// A click at the middle of a table cell, scrolled into view first.
void clickCell(QTableWidget* t, int row, int column) {
    t->scrollToItem(t->item(row, column));
    const QRect r = t->visualItemRect(t->item(row, column));
    QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, r.center());
}

QString dbgFile(const SourcePane& pane) {
    for (const QString& f : pane.files())
        if (f.endsWith(QStringLiteral("/dbg.c"))) return f;
    return QString();
}

// The Source, Call stack and Variables panes wired as the window wires them.
struct Panes {
    explicit Panes(Bridge& bridge)
        : source(bridge.send(), &box), stack(bridge.send(), &box), vars(bridge.send(), &box) {
        auto* layout = new QHBoxLayout(&box);
        layout->addWidget(&source);
        layout->addWidget(&stack);
        layout->addWidget(&vars);
        QObject::connect(&stack, &StackPane::frameSelected, &box,
                         [this](int index, const QString& file, int line) {
                             source.showFrame(index, file, line);
                             vars.setFrame(index);
                         });
        box.resize(1600, 700);
        box.show();
    }
    void stopped(const Emulator& e) {
        const auto s = e.snapshot();
        source.setSnapshot(*s);
        stack.setSnapshot(*s);
        vars.setSnapshot(*s);
    }
    QWidget box;
    SourcePane source;
    StackPane stack;
    VarsPane vars;
};

} // namespace

class TestDebuggerPanes : public QObject {
    Q_OBJECT
private slots:
    void marginClickAddsALineBreakpoint() {
        auto e = debugging(GUEST_DEBUGGER_O0);
        Bridge bridge(*e);
        SourcePane pane(bridge.send());
        pane.resize(900, 700);
        pane.show();
        // At the program's first instruction: the startup code's line.
        const json here = call(*e, "stack.frames", {{"start", 0}, {"count", 1}})["frames"][0];
        pane.setSnapshot(*e->snapshot());
        QTRY_COMPARE(pane.currentLine(), here.value("line", -1));
        QCOMPARE(pane.file().toStdString(), here.value("file", std::string()));
        QCOMPARE(pane.table()->item(pane.currentLine() - 1, SourcePane::MarkColumn)->text(),
                 QStringLiteral("▶"));
        QVERIFY2(pane.statusText().contains(QStringLiteral("_start")), qPrintable(pane.statusText()));

        // dbg.c from the chooser, its lines with code from source.lines.
        const QString file = dbgFile(pane);
        QVERIFY2(!file.isEmpty(), qPrintable(pane.files().join(' ')));
        QSignalSpy updated(&pane, &SourcePane::updated);
        pane.showFile(file);
        QTRY_VERIFY(updated.count() >= 1);
        QCOMPARE(pane.file(), file);
        QCOMPARE(pane.currentLine(), 0); // the stop is in another file
        const int fillLine = markerLine("main_fill");
        QVERIFY(fillLine > 0);
        QTRY_VERIFY(pane.hasCode(fillLine)); // source.lines answers after the file shows
        QVERIFY(pane.table()->rowCount() >= fillLine);
        QVERIFY(pane.table()->item(fillLine - 1, SourcePane::TextColumn)->text().contains("fill();"));
        // No coverage capture: no counts.
        QCOMPARE(pane.lineCount(fillLine), qint64(-1));
        QVERIFY(pane.table()->isColumnHidden(SourcePane::CountColumn));

        // A click in the margin: a line breakpoint there, as break.list says.
        updated.clear();
        clickCell(pane.table(), fillLine - 1, SourcePane::BreakColumn);
        QTRY_VERIFY(pane.breakpointLines().contains(fillLine));
        QVERIFY2(pane.errorText().isEmpty(), qPrintable(pane.errorText()));
        const json list = call(*e, "break.list")["breakpoints"];
        QCOMPARE(list.size(), std::size_t(1));
        QCOMPARE(list[0].value("kind", std::string()), std::string("line"));
        QCOMPARE(list[0].value("actual_line", 0), fillLine);
        QCOMPARE(list[0].value("id", 0), pane.breakpointId(fillLine));
        QCOMPARE(pane.table()->item(fillLine - 1, SourcePane::BreakColumn)->text(), QStringLiteral("●"));

        // The machine stops there, and the pane marks the line.
        const json stop = call(*e, "continue");
        QCOMPARE(stop.value("reason", std::string()), std::string("breakpoint"));
        QCOMPARE(stop["source"].value("line", 0), fillLine);
        pane.setSnapshot(*e->snapshot());
        QTRY_COMPARE(pane.currentLine(), fillLine);
        QCOMPARE(pane.file(), file);
        QCOMPARE(pane.frameIndex(), 0);
        QCOMPARE(pane.table()->item(fillLine - 1, SourcePane::MarkColumn)->text(), QStringLiteral("▶"));
        QVERIFY2(pane.statusText().contains(QStringLiteral("main")), qPrintable(pane.statusText()));

        // A click on a line without code: the breakpoint goes to the next line that has code,
        // and shows there.
        const int blank = markerLine("area_ret") + 2; // the empty line after area
        QVERIFY(!pane.hasCode(blank));
        const int before = int(call(*e, "break.list")["breakpoints"].size());
        clickCell(pane.table(), blank - 1, SourcePane::LineColumn);
        QTRY_COMPARE(int(call(*e, "break.list")["breakpoints"].size()), before + 1);
        const json added = call(*e, "break.list")["breakpoints"].back();
        QTRY_VERIFY(pane.breakpointLines().contains(added.value("actual_line", 0)));
        QVERIFY(!pane.breakpointLines().contains(blank));

        // A click on the mark removes the breakpoint.
        clickCell(pane.table(), fillLine - 1, SourcePane::BreakColumn);
        QTRY_VERIFY(!pane.breakpointLines().contains(fillLine));
        QCOMPARE(call(*e, "break.list")["breakpoints"].size(), std::size_t(before));

        // A function's breakpoint set elsewhere shows at the line it stops at.
        const json fn = call(*e, "break.add", {{"kind", "function"}, {"name", "fill"}});
        QCOMPARE(fn.value("actual_line", 0), markerLine("fill_for"));
        updated.clear();
        pane.showFile(file);
        pane.stopped();
        QTRY_VERIFY(pane.breakpointLines().contains(markerLine("fill_for")));
        QCOMPARE(pane.breakpointId(markerLine("fill_for")), fn.value("id", -1));
    }

    void callStackChoosesTheFrameOfSourceAndVariables() {
        auto e = debugging(GUEST_DEBUGGER_O0);
        Bridge bridge(*e);
        const int areaW = markerLine("area_w"), walkAdd = markerLine("walk_add");
        QVERIFY(call(*e, "break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", areaW}}).contains("id"));
        QCOMPARE(call(*e, "continue")["source"].value("line", 0), areaW);

        Panes p(bridge);
        p.vars.addWatch(QStringLiteral("ticks"));
        QSignalSpy varsUpdated(&p.vars, &VarsPane::updated);
        p.stopped(*e);
        QTRY_VERIFY(p.stack.table()->rowCount() >= 3);
        QVERIFY2(p.stack.errorText().isEmpty(), qPrintable(p.stack.errorText()));
        QTableWidget* t = p.stack.table();
        QCOMPARE(t->item(0, StackPane::FunctionColumn)->text(), QStringLiteral("area"));
        QCOMPARE(t->item(1, StackPane::FunctionColumn)->text(), QStringLiteral("walk"));
        QCOMPARE(t->item(2, StackPane::FunctionColumn)->text(), QStringLiteral("main"));
        QCOMPARE(t->item(0, StackPane::LocationColumn)->text(), QStringLiteral("dbg.c:%1").arg(areaW));
        QCOMPARE(t->item(1, StackPane::LocationColumn)->text(), QStringLiteral("dbg.c:%1").arg(walkAdd));
        QCOMPARE(t->item(1, StackPane::NoteColumn)->text(), QStringLiteral("returns here"));
        QCOMPARE(p.stack.selectedFrame(), 0);
        QTRY_COMPARE(p.source.currentLine(), areaW);

        // The innermost frame's variables: area's parameter `it` and its locals.
        QTRY_VERIFY(varsUpdated.count() >= 1 && p.vars.variable(QStringLiteral("Parameters/it")));
        QCOMPARE(p.vars.function(), QStringLiteral("area"));
        QVERIFY(p.vars.variable(QStringLiteral("Locals/w")));
        QCOMPARE(p.vars.variable(QStringLiteral("Parameters/it"))->text(VarsPane::TypeColumn),
                 QStringLiteral("const Item *"));
        QVERIFY(p.vars.changedPaths().isEmpty()); // the first stop has nothing to compare with
        QCOMPARE(p.vars.watchValue(QStringLiteral("ticks")), QStringLiteral("0"));
        QVERIFY(!p.vars.watchChanged(QStringLiteral("ticks")));
        // Opening `it` asks for what it points at.
        p.vars.variable(QStringLiteral("Parameters/it"))->setExpanded(true);
        QTRY_VERIFY(p.vars.variable(QStringLiteral("Parameters/it"))->childCount() > 0 &&
                    !p.vars.variable(QStringLiteral("Parameters/it"))->child(0)->text(0).isEmpty());

        // A click on walk's row: Source shows walk's line, Variables walk's locals.
        varsUpdated.clear();
        clickCell(t, 1, StackPane::FunctionColumn);
        QCOMPARE(p.stack.selectedFrame(), 1);
        QTRY_COMPARE(p.source.currentLine(), walkAdd);
        QCOMPARE(p.source.frameIndex(), 1);
        QCOMPARE(p.source.table()->item(walkAdd - 1, SourcePane::MarkColumn)->text(), QStringLiteral("▷"));
        QTRY_VERIFY(varsUpdated.count() >= 1 && p.vars.variable(QStringLiteral("Locals/total")));
        QCOMPARE(p.vars.frame(), 1);
        QCOMPARE(p.vars.function(), QStringLiteral("walk"));
        QCOMPARE(p.vars.valueOf(QStringLiteral("Locals/total")), QStringLiteral("0"));
        QVERIFY(!p.vars.variable(QStringLiteral("Parameters/it")));

        // A line step: area's next line, w now set, and marked as changed; `it` is not.
        QCOMPARE(call(*e, "next_line")["source"].value("line", 0), markerLine("area_h"));
        varsUpdated.clear();
        p.stopped(*e);
        QTRY_COMPARE(p.source.currentLine(), markerLine("area_h"));
        QTRY_VERIFY(varsUpdated.count() >= 1 && p.vars.frame() == 0 &&
                    p.vars.valueOf(QStringLiteral("Locals/w")) == QStringLiteral("2"));
        QCOMPARE(p.stack.selectedFrame(), 0);
        const QStringList changed = p.vars.changedPaths();
        QVERIFY2(changed.contains(QStringLiteral("Locals/w")), qPrintable(changed.join(' ')));
        QVERIFY2(!changed.contains(QStringLiteral("Parameters/it")), qPrintable(changed.join(' ')));
        QVERIFY(VarsPane::isChanged(p.vars.variable(QStringLiteral("Locals/w"))));
        QVERIFY(p.vars.variable(QStringLiteral("Locals/w"))->font(VarsPane::ValueColumn).bold());
        // `it` stays open from stop to stop.
        QTRY_VERIFY(p.vars.variable(QStringLiteral("Parameters/it"))->isExpanded());
        QVERIFY(!p.vars.watchChanged(QStringLiteral("ticks")));

        // The next call of area: walk has counted a tick, and the watch says so.
        QCOMPARE(call(*e, "continue")["source"].value("line", 0), areaW);
        varsUpdated.clear();
        p.stopped(*e);
        QTRY_VERIFY(varsUpdated.count() >= 1 && p.vars.watchValue(QStringLiteral("ticks")) == QStringLiteral("1"));
        QVERIFY(p.vars.watchChanged(QStringLiteral("ticks")));

        // A watch that cannot be evaluated says why; removed, it is gone.
        p.vars.addWatch(QStringLiteral("no_such_name"));
        QTRY_VERIFY(!p.vars.watchValue(QStringLiteral("no_such_name")).isEmpty());
        p.vars.removeWatch(QStringLiteral("no_such_name"));
        QCOMPARE(p.vars.watchExpressions(), QStringList{QStringLiteral("ticks")});

        // A value written through the pane goes to vars.set: the machine holds 7, and the
        // watch shows it.
        varsUpdated.clear();
        p.vars.setValue(p.vars.watches()->topLevelItem(0), QStringLiteral("7"));
        QTRY_VERIFY(varsUpdated.count() >= 1);
        QCOMPARE(call(*e, "eval", {{"expr", "ticks"}}).value("value", std::string()), std::string("7"));
        QTRY_COMPARE(p.vars.watchValue(QStringLiteral("ticks")), QStringLiteral("7"));
        QVERIFY(p.vars.watchChanged(QStringLiteral("ticks")));
    }

    void anInlinedCallIsMarked() {
        auto e = debugging(GUEST_DEBUGGER_O2);
        Bridge bridge(*e);
        const int body = markerLine("scale_body");
        QVERIFY(call(*e, "break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", body}}).contains("id"));
        const json stop = call(*e, "continue");
        QCOMPARE(stop["source"].value("line", 0), body);
        Panes p(bridge);
        p.stopped(*e);
        QTRY_VERIFY(p.stack.table()->rowCount() >= 2);
        const json frames = call(*e, "stack.frames", {{"start", 0}, {"count", 64}})["frames"];
        QCOMPARE(p.stack.table()->rowCount(), int(frames.size()));
        QCOMPARE(p.stack.table()->item(0, StackPane::FunctionColumn)->text(), QStringLiteral("scale"));
        QVERIFY(frames[0].value("inlined", false));
        QVERIFY(p.stack.table()->item(0, StackPane::NoteColumn)->text().contains(QStringLiteral("inlined")));
        QVERIFY(p.stack.table()->item(0, StackPane::FunctionColumn)->font().italic());
        const QString caller = QString::fromStdString(frames[1].value("function", std::string()));
        QCOMPARE(p.stack.table()->item(1, StackPane::FunctionColumn)->text(), caller);
        QTRY_COMPARE(p.source.currentLine(), body);
        // The caller's frame: its line, where the inlined call is.
        clickCell(p.stack.table(), 1, StackPane::FunctionColumn);
        QTRY_COMPARE(p.source.currentLine(), frames[1].value("line", 0));
        QTRY_VERIFY(p.vars.frame() == 1 && p.vars.function() == caller);
    }

    // A pane hidden at a stop asks nothing then, and asks once it is shown.
    void hiddenPanesAskWhenShown() {
        auto e = debugging(GUEST_DEBUGGER_O0);
        Bridge bridge(*e);
        QVERIFY(call(*e, "break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", markerLine("area_a")}}).contains("id"));
        QCOMPARE(call(*e, "continue")["source"].value("line", 0), markerLine("area_a"));
        VarsPane vars(bridge.send());
        StackPane stack(bridge.send());
        QSignalSpy varsUpdated(&vars, &VarsPane::updated);
        vars.setSnapshot(*e->snapshot());
        stack.setSnapshot(*e->snapshot());
        QTest::qWait(300);
        QCOMPARE(varsUpdated.count(), 0);
        QCOMPARE(stack.table()->rowCount(), 0);
        vars.show();
        stack.show();
        QTRY_VERIFY(vars.variable(QStringLiteral("Locals/w")));
        QTRY_COMPARE(stack.table()->rowCount(), 3);
        // The same stop again asks nothing more.
        const int before = int(varsUpdated.count());
        vars.setSnapshot(*e->snapshot());
        QTest::qWait(200);
        QCOMPARE(int(varsUpdated.count()), before);
    }

    // With a capture counting coverage, Source shows each line's count beside it.
    void sourceShowsCoverageCounts() {
        auto e = debugging(GUEST_DEBUGGER_O0);
        Bridge bridge(*e);
        QTemporaryDir dir;
        const json started = call(*e, "profile.start", {{"path", dir.filePath("cov").toStdString()}, {"frames", 50},
                                                        {"coverage", true}});
        QVERIFY2(started.value("active", false), started.dump().c_str());
        QVERIFY(call(*e, "break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", markerLine("main_alloc")}}).contains("id"));
        QCOMPARE(call(*e, "continue")["source"].value("line", 0), markerLine("main_alloc"));
        SourcePane pane(bridge.send());
        pane.resize(900, 700);
        pane.show();
        QSignalSpy updated(&pane, &SourcePane::updated);
        pane.setSnapshot(*e->snapshot());
        QTRY_COMPARE(pane.currentLine(), markerLine("main_alloc"));
        QTRY_VERIFY(!pane.table()->isColumnHidden(SourcePane::CountColumn));
        // scale's body ran four times (three areas and main's own call), area's three, the
        // call of fill() once, and main's allocation not yet.
        QCOMPARE(pane.lineCount(markerLine("scale_body")), qint64(4));
        QCOMPARE(pane.lineCount(markerLine("area_w")), qint64(3));
        QCOMPARE(pane.lineCount(markerLine("main_fill")), qint64(1));
        QCOMPARE(pane.lineCount(markerLine("main_alloc")), qint64(0));
        QCOMPARE(pane.lineCount(markerLine("main_word") - 1), qint64(-1)); // no code
        QCOMPARE(pane.table()->item(markerLine("area_w") - 1, SourcePane::CountColumn)->text(), QStringLiteral("3"));
        call(*e, "profile.stop");
    }

    // The Memory pane goes to what a name or an expression gives: a pointer's target, a
    // variable's or a function's address.
    void memoryGoesToNamesAndExpressions() {
        auto e = debugging(GUEST_DEBUGGER_O0);
        Bridge bridge(*e);
        QVERIFY(call(*e, "break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", markerLine("area_a")}}).contains("id"));
        QCOMPARE(call(*e, "continue")["source"].value("line", 0), markerLine("area_a"));
        MemoryPane pane(bridge.send());
        pane.resize(900, 600);
        pane.show();
        const auto number = [](const std::string& text) { return std::uint32_t(std::stoul(text, nullptr, 0)); };
        const std::uint32_t target = number(call(*e, "eval", {{"expr", "it"}}).value("value", std::string()));
        const std::uint32_t items = call(*e, "eval", {{"expr", "items"}}).value("address", 0u);
        const std::uint32_t walk = call(*e, "eval", {{"expr", "walk"}}).value("address", 0u);
        QCOMPARE(target, items); // the first call's item
        QVERIFY(pane.goTo(QStringLiteral("it")));
        QTRY_COMPARE(pane.address(), target);
        QVERIFY(pane.goTo(QStringLiteral("0x400")));
        QTRY_COMPARE(pane.address(), 0x400u);
        QVERIFY(pane.goTo(QStringLiteral("&items[2]")));
        QTRY_COMPARE(pane.address(), items + 2 * 18);
        QVERIFY(pane.goTo(QStringLiteral("walk")));
        QTRY_COMPARE(pane.address(), walk);
        // `a` is area's local (at its address), `DFF0A0` an address no name has.
        const std::uint32_t local = number(call(*e, "eval", {{"expr", "&a"}}).value("value", std::string("0")));
        QVERIFY(local != 0);
        QVERIFY(pane.goTo(QStringLiteral("a")));
        QTRY_COMPARE(pane.address(), local);
        QVERIFY(pane.goTo(QStringLiteral("DFF0A0")));
        QTRY_COMPARE(pane.address(), 0xDFF0A0u);
        QVERIFY(pane.goTo(QStringLiteral("walk")));
        QTRY_COMPARE(pane.address(), walk);
        QVERIFY(walk != 0 && walk != items);
        QVERIFY(pane.goTo(QStringLiteral("it->nosuch")));
        QTRY_VERIFY(pane.errorText().contains(QStringLiteral("nosuch")));
        QCOMPARE(pane.address(), walk);
    }

    void theWindowHasTheDocksAndTheLineSteps() {
        auto e = debugging(GUEST_DEBUGGER_O0, true);
        MainWindow w(*e, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* view = w.menuBar()->findChild<QMenu*>(QStringLiteral("viewMenu"));
        for (const char* name :
             {"sourceDock", "stackDock", "varsDock", "copperDock", "customDock", "memoryDock"}) {
            auto* dock = w.findChild<QDockWidget*>(QLatin1String(name));
            QVERIFY2(dock, name);
            QVERIFY2(view->actions().contains(dock->toggleViewAction()), name);
        }
        QVERIFY(w.sourcePane() && w.stackPane() && w.varsPane());
        QVERIFY(w.copperPane() && w.customRegsPane() && w.memoryPane());
        // The call stack in front, the variables a tab beside it, under the display.
        auto* stackDock = w.findChild<QDockWidget*>(QStringLiteral("stackDock"));
        auto* varsDock = w.findChild<QDockWidget*>(QStringLiteral("varsDock"));
        QVERIFY(stackDock->isVisible());
        QVERIFY(w.tabifiedDockWidgets(stackDock).contains(varsDock));
        QCOMPARE(w.dockWidgetArea(stackDock), Qt::BottomDockWidgetArea);
        auto* bar = w.findChild<QToolBar*>(QStringLiteral("sourceToolBar"));
        QVERIFY(bar);
        for (const char* name : {"step_line", "next_line", "step_out", "reverse_step_line", "reverse_next_line"}) {
            QVERIFY2(w.action(name), name);
            QVERIFY2(bar->actions().contains(w.action(name)), name);
            QVERIFY2(!w.action(name)->toolTip().isEmpty(), name);
        }

        const int walkAdd = markerLine("walk_add"), walkTick = markerLine("walk_tick");
        QVERIFY(call(*e, "break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", walkAdd}}).contains("id"));
        QCOMPARE(call(*e, "continue")["source"].value("line", 0), walkAdd);
        QTRY_VERIFY(w.stackPane()->table()->rowCount() >= 2);
        QCOMPARE(w.stackPane()->table()->item(0, StackPane::FunctionColumn)->text(), QStringLiteral("walk"));

        // A line step shows the Source dock, at the line reached.
        QSignalSpy replies(&w, &MainWindow::replied);
        w.action("next_line")->trigger();
        QTRY_VERIFY(w.findChild<QDockWidget*>(QStringLiteral("sourceDock"))->isVisible());
        QTRY_COMPARE(w.sourcePane()->currentLine(), walkTick);
        varsDock->raise(); // (a pane in a hidden tab reads its variables when it shows)
        QTRY_VERIFY(w.varsPane()->variable(QStringLiteral("Locals/total")));
        stackDock->raise();
        // Back one line of this routine: Source's line goes back.
        w.action("reverse_next_line")->trigger();
        QTRY_COMPARE(w.sourcePane()->currentLine(), walkAdd);
        QCOMPARE(call(*e, "stack.frames", {{"start", 0}, {"count", 1}})["frames"][0].value("line", 0), walkAdd);
        // Into area, and back out of it to the call.
        w.action("step_line")->trigger();
        QTRY_COMPARE(w.sourcePane()->currentLine(), markerLine("area_w"));
        QTRY_VERIFY(w.stackPane()->table()->rowCount() >= 3 &&
                    w.stackPane()->table()->item(0, StackPane::FunctionColumn)->text() == QStringLiteral("area"));
        w.action("reverse_step_line")->trigger();
        QTRY_COMPARE(w.sourcePane()->currentLine(), walkAdd);

        // From the margin's menu: a log point (the window asks for its message) and a
        // breakpoint with a condition; the log's messages show under the source.
        QStringList answers{QStringLiteral("total={total} x={p->x}"), QStringLiteral("it->x == 4")};
        w.fileDialogs().askText = [&answers](const QString&, const QString&) -> std::optional<QString> {
            return answers.isEmpty() ? std::nullopt : std::optional<QString>(answers.takeFirst());
        };
        call(*e, "break.remove", {{"id", 1}});
        w.sourcePane()->askBreakpoint(walkTick, true);
        w.sourcePane()->askBreakpoint(markerLine("area_a"), false);
        QTRY_COMPARE(call(*e, "break.list")["breakpoints"].size(), std::size_t(2));
        const json list = call(*e, "break.list")["breakpoints"];
        QCOMPARE(list[0].value("log", std::string()), std::string("total={total} x={p->x}"));
        QCOMPARE(list[1].value("cond", std::string()), std::string("it->x == 4"));
        QTRY_VERIFY(w.sourcePane()->breakpointLines().contains(walkTick));
        w.action("run")->trigger();
        QTRY_COMPARE(w.sourcePane()->currentLine(), markerLine("area_a"));
        QCOMPARE(call(*e, "eval", {{"expr", "it->x"}}).value("value", std::string()), std::string("4"));
        // Two passes of walk's loop before the third area() (this one's first ran before
        // the log point was set, back and forth).
        QTRY_VERIFY2(w.sourcePane()->logText().contains(QStringLiteral("x=3")), qPrintable(w.sourcePane()->logText()));
        QVERIFY2(w.sourcePane()->logText().contains(QStringLiteral("] total=162 x=3")), qPrintable(w.sourcePane()->logText()));

        // The Copper dock, shown, asks for the list.
        auto* copperDock = w.findChild<QDockWidget*>(QStringLiteral("copperDock"));
        QSignalSpy copper(w.copperPane(), &CopperPane::updated);
        copperDock->show();
        QTRY_VERIFY(copper.count() >= 1);
    }
};

QTEST_MAIN(TestDebuggerPanes)
#include "test_debugger_panes.moc"
