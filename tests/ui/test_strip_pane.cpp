// SPDX-License-Identifier: GPL-3.0-or-later
// The profile strip's pane offscreen on the bare-metal main loop of known shape
// (tests/guest/strip/strip_loop.s): Start typed and committed, the bars against strip.bars
// (one each, heights in proportion to their lengths, the automatic height and Frames), a
// pressed bar standing the machine on its first instruction, the tree against strip.tree,
// folding kept across frames, Escape and a refused Start, Mode and End following the
// machine, Now, the tree opened when another client stands the machine in a frame, and the
// right button's breakpoint and disassembly.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "ui/strip_pane.h"
#include "tests/app/strip_loop_fixture.h"
#include "tests/ui/pane_bridge.h"

#include <QComboBox>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QSpinBox>
#include <QToolButton>
#include <QTreeWidget>
#include <QWidgetAction>
#include <QtTest>
#include <cmath>
#include <map>

using namespace copperline;
using nlohmann::json;

namespace {

constexpr double kFrameCck = 313.0 * 227.0;

using testing::callJson;
using testing::stripLoop;
using testing::stripLoopSymbols;

QString hex(std::uint32_t a) {
    return QStringLiteral("$%1").arg(a, 0, 16);
}
QString us(double v) {
    return QString::number(v, 'f', 1);
}

using Bridge = copperline::testing::PaneBridge;

int indexOfBar(const StripPane& pane, std::uint64_t bar) {
    for (std::size_t i = 0; i < pane.bars().size(); ++i)
        if (pane.bars()[i].bar == bar) return int(i);
    return -1;
}

// A row of the pane's tree against its node of strip.tree's answer, every row beneath too.
void compareRow(const QTreeWidgetItem* item, const json& node, double rootTotal,
                const QPalette& palette, int& rows) {
    const QString routine = QString::fromStdString(node.value("routine", std::string()));
    const std::string kind = node.value("kind", std::string());
    QCOMPARE(item->text(StripPane::RoutineColumn),
             kind == "jump" ? QStringLiteral("→ ") + routine : routine);
    QCOMPARE(item->text(StripPane::CallsColumn), QString::number(node.value("calls", 0ull)));
    QCOMPARE(item->text(StripPane::TotalColumn), us(node.value("total_us", 0.0)));
    QCOMPARE(item->text(StripPane::SelfColumn), us(node.value("self_us", 0.0)));
    QCOMPARE(item->text(StripPane::PercentColumn),
             QString::number(100.0 * node.value("total_us", 0.0) / rootTotal, 'f', 1));
    const std::uint32_t at = node.value("at", 0u);
    QCOMPARE(item->data(StripPane::RoutineColumn, StripPane::AddressRole).toUInt(), at);
    // At is empty where Routine already is the address.
    if (routine.startsWith('$'))
        QVERIFY(item->text(StripPane::AtColumn).isEmpty());
    else
        QCOMPARE(item->text(StripPane::AtColumn).toUpper(),
                 QStringLiteral("$%1").arg(at, 6, 16, QLatin1Char('0')).toUpper());
    // Unnamed: dim, every figure too.
    const bool dim = !node.value("named", true) && kind != "frame";
    const QColor dimColour = palette.color(QPalette::Disabled, QPalette::Text);
    for (const int c :
         {int(StripPane::RoutineColumn), int(StripPane::TotalColumn), int(StripPane::SelfColumn)}) {
        const QBrush brush = item->foreground(c);
        QCOMPARE(brush.style() != Qt::NoBrush && brush.color() == dimColour, dim);
    }
    const json& children = node["children"];
    QCOMPARE(item->childCount(), int(children.size()));
    ++rows;
    for (int i = 0; i < item->childCount(); ++i) {
        compareRow(item->child(i), children[std::size_t(i)], rootTotal, palette, rows);
        if (QTest::currentTestFailed()) return;
    }
}

QTreeWidgetItem* childAt(QTreeWidgetItem* item, std::uint32_t at) {
    for (int i = 0; i < item->childCount(); ++i)
        if (item->child(i)->data(StripPane::RoutineColumn, StripPane::AddressRole).toUInt() == at)
            return item->child(i);
    return nullptr;
}

std::uint64_t barNumber(const json& b) {
    return b.value("bar", 0ull);
}

} // namespace

class TestStripPane : public QObject {
    Q_OBJECT
private slots:
    void barsClickAndTree() {
        const auto sym = stripLoopSymbols();
        auto emu = stripLoop();
        QVERIFY(callJson(*emu, "step_frame", {{"n", 3}}).contains("frame"));
        Bridge bridge(*emu);
        StripPane pane(bridge.send());
        pane.resize(900, 720);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.refresh();
        QTRY_COMPARE(pane.summaryText(), QStringLiteral("no start: strip.set gives one"));
        QVERIFY(pane.barRects().empty());
        QVERIFY(!pane.endEdit()->isEnabled()); // a pass has no End

        // Start typed as an address and given with Enter.
        const std::uint32_t pass = sym.at("pass");
        pane.startEdit()->setFocus();
        QTest::keyClicks(pane.startEdit(), hex(pass));
        QTest::keyClick(pane.startEdit(), Qt::Key_Return);
        QTRY_COMPARE(callJson(*emu, "strip.get").value("start_address", json()), json(pass));
        const QString shownStart =
            QString::fromStdString(callJson(*emu, "strip.get").value("start", std::string()));
        QTRY_COMPARE(pane.startEdit()->text(), shownStart); // the machine's way of writing it
        QVERIFY(pane.errorText().isEmpty());

        // Run; the bars are strip.bars', one each, as tall as they took.
        QVERIFY(callJson(*emu, "step_frame", {{"n", 30}}).contains("frame"));
        const json b = callJson(*emu, "strip.bars");
        const json& bars = b["bars"];
        QVERIFY2(bars.size() >= 25, b.dump().c_str());
        pane.refresh();
        QTRY_COMPARE(pane.barRects().size(), bars.size());
        QCOMPARE(pane.places(), int(bars.size())); // shared out once among the bars there are
        QCOMPARE(pane.summaryText(), QString::fromStdString(b.value("summary", std::string())));
        // The automatic height: the longest rounded up to a whole frame.
        const double longest = double(b.value("longest_cck", 0ull)) / kFrameCck;
        QVERIFY(longest > 0.99);
        QCOMPARE(pane.framesTall(), longest < 1 ? longest : std::ceil(longest));
        std::vector<QRectF> rects = pane.barRects();
        for (std::size_t i = 0; i < rects.size(); ++i) {
            QCOMPARE(pane.bars()[i].bar, barNumber(bars[i]));
            const double len = double(bars[i].value("length_cck", 0ull));
            QVERIFY(std::abs(rects[i].height() - len / kFrameCck * pane.pixelsPerFrame()) < 1e-6);
            QVERIFY(std::abs(rects[i].height() / rects[0].height() -
                             len / double(bars[0].value("length_cck", 1ull))) < 1e-9);
            QVERIFY(!pane.runsOffTop(int(i)));
            if (i) QVERIFY(rects[i].left() > rects[i - 1].left()); // oldest at the left
            // The label: the frame it began in, its microseconds, the frames it spanned.
            const QString label = pane.barLabel(int(i));
            QVERIFY2(label.contains(QStringLiteral("frame %1").arg(bars[i].value("frame", 0ull))),
                     qPrintable(label));
            QVERIFY2(label.contains(us(bars[i].value("length_us", 0.0)) + QStringLiteral(" µs")),
                     qPrintable(label));
            QVERIFY2(label.contains(QStringLiteral("1 frame spanned")), qPrintable(label));
        }
        const double fullHeight = pane.pixelsPerFrame() * pane.framesTall();

        // More bars: the places double, and every bar stands in a whole place.
        QVERIFY(callJson(*emu, "step_frame", {{"n", 2}}).contains("frame"));
        const std::size_t more = callJson(*emu, "strip.bars")["bars"].size();
        QVERIFY(more > bars.size());
        pane.refresh();
        QTRY_COMPARE(pane.barRects().size(), more);
        QCOMPARE(pane.places(), int(bars.size()) * 2);

        // Press a bar: the machine stands on its first instruction, and its tree opens.
        const std::size_t k = pane.bars().size() - 5;
        const std::uint64_t chosen = pane.bars()[k].bar;
        QSignalSpy treeSpy(&pane, &StripPane::treeUpdated);
        QTest::mouseClick(pane.stripView(), Qt::LeftButton, {},
                          pane.barRects()[k].center().toPoint());
        QTRY_VERIFY(treeSpy.count() >= 1);
        QTRY_COMPARE(pane.treeBar(), std::optional<std::uint64_t>(chosen));
        QCOMPARE(callJson(*emu, "regs.get").value("pc", 0u), pass);
        // (The reply is kept: a loop over a member of the temporary would read freed memory.)
        const json afterClick = callJson(*emu, "strip.bars");
        for (const json& h : afterClick["bars"])
            QCOMPARE(h.value("here", false), barNumber(h) == chosen);
        QTRY_VERIFY(indexOfBar(pane, chosen) >= 0 &&
                    pane.bars()[std::size_t(indexOfBar(pane, chosen))].here);
        QVERIFY(pane.barLabel(indexOfBar(pane, chosen)).contains(QStringLiteral("stands in it")));

        // The tree is strip.tree's for that bar, row by row.
        const json tree = callJson(*emu, "strip.tree", {{"bar", chosen}});
        QVERIFY2(tree.contains("children"), tree.dump().c_str());
        QTreeWidget* t = pane.treeWidget();
        QCOMPARE(t->topLevelItemCount(), 1);
        QCOMPARE(t->columnCount(), int(StripPane::ColumnCount));
        QCOMPARE(t->headerItem()->text(StripPane::TotalColumn), QStringLiteral("Total µs"));
        QCOMPARE(t->headerItem()->text(StripPane::RoutineColumn), QStringLiteral("Routine"));
        int rows = 0;
        compareRow(t->topLevelItem(0), tree, tree.value("total_us", 0.0), t->palette(), rows);
        if (QTest::currentTestFailed()) return;
        QVERIFY(rows >= 6);
        QTreeWidgetItem* root = t->topLevelItem(0);
        QCOMPARE(root->text(StripPane::RoutineColumn),
                 QStringLiteral("profiling frame %1").arg(chosen));
        QTreeWidgetItem* loopCode = childAt(root, pass);
        QVERIFY(loopCode);
        QTreeWidgetItem* thrice = childAt(loopCode, sym.at("thrice"));
        QVERIFY(thrice);
        QCOMPARE(thrice->text(StripPane::CallsColumn), QStringLiteral("3"));
        QTreeWidgetItem* vbl = childAt(root, sym.at("vbl"));
        QVERIFY(vbl); // the interrupt under the frame, as given
        QCOMPARE(vbl->text(StripPane::RoutineColumn), QStringLiteral("interrupt L3"));
        // Everything unfolded at first.
        for (QTreeWidgetItemIterator it(t); *it; ++it)
            if ((*it)->childCount()) QVERIFY((*it)->isExpanded());

        // A fold stays where the same calls reach it in the next frame opened.
        const QString foldedPath = StripPane::pathOf(loopCode);
        t->collapseItem(loopCode);
        QVERIFY(pane.isFolded(foldedPath));
        const std::uint64_t next = pane.bars()[k - 1].bar;
        const int trees = int(treeSpy.count());
        QTest::mouseClick(pane.stripView(), Qt::LeftButton, {},
                          pane.barRects()[k - 1].center().toPoint());
        QTRY_VERIFY(treeSpy.count() > trees);
        QTRY_COMPARE(pane.treeBar(), std::optional<std::uint64_t>(next));
        root = t->topLevelItem(0);
        QCOMPARE(root->text(StripPane::RoutineColumn),
                 QStringLiteral("profiling frame %1").arg(next));
        loopCode = childAt(root, pass);
        QVERIFY(loopCode);
        QCOMPARE(StripPane::pathOf(loopCode), foldedPath);
        QVERIFY(!loopCode->isExpanded());
        QVERIFY(root->isExpanded());
        QVERIFY(childAt(root, sym.at("vbl"))->isExpanded());
        t->expandItem(loopCode);
        QVERIFY(!pane.isFolded(foldedPath));

        // The right button: a breakpoint at a routine's first instruction, and the disassembly.
        QTreeWidgetItem* thriceRow = childAt(loopCode, sym.at("thrice"));
        QVERIFY(thriceRow);
        QMenu* menu = pane.routineMenu(thriceRow);
        QCOMPARE(menu->actions().size(), 2);
        menu->actions()[0]->trigger();
        QTRY_VERIFY(
            callJson(*emu, "break.list").dump().find("\"addr\":" + std::to_string(sym.at("thrice"))) !=
            std::string::npos);
        QSignalSpy shown(&pane, &StripPane::addressActivated);
        menu->actions()[1]->trigger();
        QCOMPARE(shown.count(), 1);
        QCOMPARE(shown.at(0).at(0).toUInt(), sym.at("thrice"));
        delete menu;
        QVERIFY(callJson(*emu, "break.clear").contains("removed"));

        // Frames, behind the three dots, sets the strip's scale.
        auto* formAction =
            qobject_cast<QWidgetAction*>(pane.moreButton()->menu()->actions().value(0));
        QVERIFY(formAction && formAction->defaultWidget()->isAncestorOf(pane.framesBox()));
        QVERIFY(formAction->defaultWidget()->isAncestorOf(pane.linesBox()));
        const double autoTall = pane.framesTall();
        const double h0 = pane.barRects()[0].height();
        pane.framesBox()->setValue(int(autoTall) * 2);
        QCOMPARE(pane.framesTall(), autoTall * 2);
        QVERIFY(std::abs(pane.barRects()[0].height() - h0 / 2) < 1e-6);
        // One frame tall: a pass that took a little over one runs off the top, notched.
        pane.framesBox()->setValue(1);
        rects = pane.barRects();
        int notched = 0;
        for (std::size_t i = 0; i < rects.size(); ++i) {
            const bool over = double(pane.bars()[i].lengthCck) > kFrameCck;
            QCOMPARE(pane.runsOffTop(int(i)), over);
            if (over) {
                QVERIFY(std::abs(rects[i].height() - fullHeight) < 1e-6);
                ++notched;
            }
        }
        qInfo("%d of %zu passes took over a frame", notched, rects.size());
        pane.framesBox()->setValue(0); // automatic again
        QCOMPARE(pane.framesTall(), autoTall);
        // Lines: the tree stands that many lines tall where the pane has room (it gives way
        // on a small screen, down to three lines).
        const int tall = t->maximumHeight();
        pane.linesBox()->setValue(pane.linesBox()->value() + 4);
        QVERIFY(t->maximumHeight() > tall);
        QVERIFY(t->minimumHeight() < t->maximumHeight());

        // Escape returns a field to what the machine holds.
        pane.startEdit()->setFocus();
        pane.startEdit()->selectAll();
        QTest::keyClicks(pane.startEdit(), QStringLiteral("halfway"));
        QCOMPARE(pane.startEdit()->text(), QStringLiteral("halfway"));
        QTest::keyClick(pane.startEdit(), Qt::Key_Escape);
        QCOMPARE(pane.startEdit()->text(), shownStart);
        // A name nothing holds is refused: the message shows and the field comes back.
        pane.startEdit()->selectAll();
        QTest::keyClicks(pane.startEdit(), QStringLiteral("no_such"));
        QTest::keyClick(pane.startEdit(), Qt::Key_Return);
        QTRY_VERIFY2(pane.errorText().contains(QStringLiteral("no_such")),
                     qPrintable(pane.errorText()));
        QTRY_COMPARE(pane.startEdit()->text(), shownStart);
        QCOMPARE(callJson(*emu, "strip.get").value("start_address", json()), json(pass));

        // Now: back to the present, where the machine stands in no bar.
        QTest::mouseClick(pane.nowButton(), Qt::LeftButton);
        QTRY_VERIFY(!callJson(*emu, "timeline.status").value("in_past", true));
        QTRY_VERIFY(std::none_of(pane.bars().begin(), pane.bars().end(),
                                 [](const StripPane::Bar& x) { return x.here; }));
        // Another client stands the machine in a frame: the pane opens its tree.
        const std::uint64_t other = pane.bars()[3].bar;
        QCOMPARE(callJson(*emu, "strip.select", {{"bar", other}}).value("reason", std::string()),
                 std::string("strip"));
        pane.refresh();
        QTRY_COMPARE(pane.treeBar(), std::optional<std::uint64_t>(other));
        QTRY_COMPARE(t->topLevelItem(0)->text(StripPane::RoutineColumn),
                     QStringLiteral("profiling frame %1").arg(other));

        // Run on from there: the bars after it are dropped, and the places stay as they
        // were, the ones at the left empty, the latest bar still at the right.
        const int placesBefore = pane.places();
        QVERIFY(callJson(*emu, "step_frame", {{"n", 2}}).contains("frame"));
        const std::size_t fewer = callJson(*emu, "strip.bars")["bars"].size();
        QVERIFY(fewer < pane.bars().size());
        pane.refresh();
        QTRY_COMPARE(pane.bars().size(), fewer);
        QCOMPARE(pane.places(), placesBefore);
        rects = pane.barRects();
        const double place = rects.back().width() + 1;
        QVERIFY(std::abs(rects.back().right() + 0.5 - (pane.stripView()->width() - 4)) < 1e-6);
        QVERIFY(std::abs(rects.front().left() - 0.5 - (4 + (placesBefore - int(fewer)) * place)) < 1e-6);
        QCOMPARE(pane.barAt(QPointF(5, pane.stripView()->height() - 5)), -1); // an empty place

        // Passes cut at a routine called every third frame span three: the automatic height
        // holds the longest; one frame tall, every one runs off the top with its notch.
        QVERIFY(callJson(*emu, "strip.set",
                     {{"start", "$" + QString::number(sym.at("third"), 16).toStdString()}})
                    .contains("mode"));
        QVERIFY(callJson(*emu, "step_frame", {{"n", 13}}).contains("frame"));
        const json thirds = callJson(*emu, "strip.bars");
        QVERIFY2(thirds["bars"].size() >= 3, thirds.dump().c_str());
        pane.refresh();
        QTRY_COMPARE(pane.bars().size(), thirds["bars"].size());
        QTRY_COMPARE(pane.bars().front().bar, barNumber(thirds["bars"][0]));
        QCOMPARE(pane.places(), int(pane.bars().size()));
        const double longestThird = double(thirds.value("longest_cck", 0ull)) / kFrameCck;
        QVERIFY(longestThird > 2.5);
        QCOMPARE(pane.framesTall(), std::ceil(longestThird));
        QVERIFY(pane.barLabel(0).contains(QStringLiteral("3 frames spanned")));
        const double plotHeight =
            pane.pixelsPerFrame() * pane.framesTall(); // the Lines made it shorter
        pane.framesBox()->setValue(1);
        QCOMPARE(pane.pixelsPerFrame(), plotHeight);
        rects = pane.barRects();
        for (std::size_t i = 0; i < rects.size(); ++i) {
            QVERIFY(pane.runsOffTop(int(i)));
            QVERIFY(std::abs(rects[i].height() - plotHeight) < 1e-6);
        }
        pane.framesBox()->setValue(0);
        QVERIFY(!pane.runsOffTop(0));

        // The fields follow what the machine holds: another client gives an until.
        const std::uint32_t passend = sym.at("passend");
        QVERIFY(callJson(*emu, "strip.set", {{"mode", "until"}, {"end", passend}}).contains("mode"));
        pane.refresh();
        QTRY_COMPARE(pane.modeBox()->currentText(), QStringLiteral("until"));
        QVERIFY(pane.endEdit()->isEnabled());
        QCOMPARE(pane.endEdit()->text(),
                 QString::fromStdString(callJson(*emu, "strip.get").value("end", std::string())));
        QTRY_COMPARE(pane.places(), 0); // given anew: the bars are gone, the places shared again
        // Mode from the pane: a call has no End.
        pane.modeBox()->setFocus();
        QTest::keyClick(pane.modeBox(), Qt::Key_Up);
        QTRY_COMPARE(callJson(*emu, "strip.get").value("mode", std::string()), std::string("call"));
        QVERIFY(callJson(*emu, "strip.get")["end"].is_null());
        QTRY_VERIFY(!pane.endEdit()->isEnabled());
        // An empty Start removes it.
        pane.startEdit()->setFocus();
        pane.startEdit()->selectAll();
        QTest::keyClick(pane.startEdit(), Qt::Key_Backspace);
        QTest::keyClick(pane.startEdit(), Qt::Key_Return);
        QTRY_VERIFY(callJson(*emu, "strip.get")["start"].is_null());
        QTRY_COMPARE(pane.summaryText(), QStringLiteral("no start: strip.set gives one"));
    }

    // docs/images/profile-strip.png: the pane on some 40 passes with a bar pressed, written
    // only with COPPERLINE_WRITE_SCREENSHOTS set (the README shows it).
    void screenshot() {
        if (qEnvironmentVariableIsEmpty("COPPERLINE_WRITE_SCREENSHOTS"))
            QSKIP("COPPERLINE_WRITE_SCREENSHOTS is not set");
        const auto sym = stripLoopSymbols();
        auto emu = stripLoop();
        QVERIFY(callJson(*emu, "step_frame", {{"n", 3}}).contains("frame"));
        QVERIFY(callJson(*emu, "strip.set", {{"start", sym.at("pass")}}).contains("mode"));
        QVERIFY(callJson(*emu, "step_frame", {{"n", 41}}).contains("frame"));
        Bridge bridge(*emu);
        StripPane pane(bridge.send());
        pane.resize(900, 640);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.linesBox()->setValue(13);
        pane.framesBox()->setValue(2); // a rule at the frame the passes keep step with
        QSignalSpy barsSpy(&pane, &StripPane::barsUpdated);
        pane.refresh();
        QTRY_VERIFY(barsSpy.count() >= 1);
        QVERIFY(pane.bars().size() >= 38);
        QSignalSpy treeSpy(&pane, &StripPane::treeUpdated);
        const std::size_t k = pane.bars().size() - 8;
        QTest::mouseClick(pane.stripView(), Qt::LeftButton, {},
                          pane.barRects()[k].center().toPoint());
        QTRY_VERIFY(treeSpy.count() >= 1);
        QTRY_VERIFY(pane.bars()[k].here);
        QTest::qWait(100);
        const QString path = QStringLiteral(COPPERLINE_SOURCE_DIR "/docs/images/profile-strip.png");
        QVERIFY(pane.grab().save(path));
        qInfo("wrote %s", qPrintable(path));
    }
};

QTEST_MAIN(TestStripPane)
#include "test_strip_pane.moc"
