// SPDX-License-Identifier: GPL-3.0-or-later
// The Frame Analyzer's blits and CPU waits, and the capture dock, in the window, offscreen,
// on the known load of tests/guest/hw/frame_load.S: the blit list shows the program's
// cookie-cut blit and previews its channels from the DMA words it moved; the CPU-waits
// mode paints every denied clock in its denier's colour and lists the polling instruction
// first, which a click shows in the disassembly; the capture dock starts and stops a
// capture through profile.start, profile.status and profile.stop. On made-up grids: the
// line and clock axes number what is in view in hex, the zoom sets the cells' size, the
// legend follows the grid without a gap, and the readout follows the frame shown.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/png.h"
#include "ui/capture_dock.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/report/cpuprofile.h"
#include "profiler/sampling/system_samples.h"
#include "ui/cpu_pane.h"
#include "ui/frame_analyzer.h"
#include "ui/main_window.h"
#include "tests/ui/frame_load_fixture.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QAbstractScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace copperline;
using nlohmann::json;

namespace {

using copperline::testing::frameLoad;
using copperline::testing::windowOptions;

std::uint32_t readLong(Emulator& e, std::uint32_t addr) {
    const auto r = e.call("mem.read", {{"addr", addr}, {"len", 4}});
    return std::uint32_t(std::stoul(r.result.value("data", std::string("0")), nullptr, 16));
}

QString hex6(std::uint32_t v) {
    return QStringLiteral("$%1").arg(v, 6, 16, QLatin1Char('0')).toUpper();
}

QString hex2(unsigned v) {
    return QStringLiteral("$%1").arg(v, 2, 16, QLatin1Char('0')).toUpper();
}

// A PAL frame's grid, every clock `fill` but one.
std::shared_ptr<OwnerGrid> madeUpGrid(std::uint64_t frame, BusOwner fill, unsigned v,
                                      unsigned h, BusOwner there) {
    auto g = std::make_shared<OwnerGrid>();
    g->frame = frame;
    g->lines = 313;
    g->lineCck = 227;
    g->owners.assign(std::size_t(OwnerGrid::kStride) * g->lines, std::uint8_t(fill));
    g->owners[std::size_t(v) * OwnerGrid::kStride + h] = std::uint8_t(there);
    g->counts[unsigned(fill)] = 313 * 227 - 1;
    g->counts[unsigned(there)] = 1;
    return g;
}

void mouseTo(QWidget* w, QPointF at) {
    QMouseEvent e(QEvent::MouseMove, at, w->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                  Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

} // namespace

class TestFrameAnalyzer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void blitListAndPreviews() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        FrameAnalyzer* a = w.analyzer();
        // The blit trace is armed (the shown pane and frame.blits arm it); then the program runs.
        QTRY_VERIFY(emu.call("frame.blits").ok);
        QVERIFY(emu.call("step_frame", {{"n", 6}}).ok);
        w.refresh();
        QTRY_COMPARE(a->detailFrame(), std::int64_t(5));
        QTRY_COMPARE(a->blitList()->topLevelItemCount(), 3);

        // The cookie cut, as the program started it.
        QTreeWidgetItem* cookie = a->blitList()->topLevelItem(1);
        QCOMPARE(cookie->text(1), QStringLiteral("20x64"));
        QCOMPARE(cookie->text(2), QStringLiteral("ABCD"));
        QCOMPARE(cookie->text(3), QStringLiteral("$CA"));
        QCOMPARE(cookie->text(4), QStringLiteral("AB+!AC"));
        QCOMPARE(cookie->text(5), QStringLiteral("5120"));
        QCOMPARE(cookie->text(8), hex6(readLong(emu, 0x1004)));
        QCOMPARE(a->blitList()->topLevelItem(2)->text(2), QStringLiteral("D"));

        // Selecting it previews each channel and the result, the pictures blit.render draws.
        const std::uint32_t id = cookie->data(0, Qt::UserRole).toUInt();
        QVERIFY(a->selectBlit(id));
        QTRY_VERIFY(!a->preview("result").isNull());
        QTRY_VERIFY(!a->preview("A").isNull() && !a->preview("B").isNull() &&
                    !a->preview("C").isNull() && !a->preview("D").isNull());
        QTemporaryDir dir;
        const std::string path = dir.filePath("result.png").toStdString();
        QVERIFY(emu.call("blit.render", {{"id", id}, {"channel", "result"}, {"path", path}}).ok);
        const Image want = readPng(path);
        const QImage got = a->preview("result");
        QCOMPARE(got.width(), int(want.width));
        QCOMPARE(got.height(), int(want.height));
        for (unsigned y = 0; y < want.height; y += 7)
            for (unsigned x = 0; x < want.width; x += 13)
                QCOMPARE(std::uint32_t(got.pixel(int(x), int(y))), want.at(x, y));
        // The clear has no A: its A preview stays empty.
        QVERIFY(a->selectBlit(a->blitList()->topLevelItem(2)->data(0, Qt::UserRole).toUInt()));
        QTRY_VERIFY(!a->preview("D").isNull());
        QVERIFY(a->preview("A").isNull());
    }

    void waitsModePaintsDeniedClocks() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        FrameAnalyzer* a = w.analyzer();
        QVERIFY(emu.call("step_frame", {{"n", 6}}).ok);
        w.refresh();
        QTRY_COMPARE(a->detailFrame(), std::int64_t(5));
        a->setMode(FrameAnalyzer::Mode::CpuWaits);

        // Every denied clock in its denier's colour, every other one dark.
        const json waits = emu.call("frame.waits", {{"grid", true}}).result;
        const QByteArray grid =
            QByteArray::fromBase64(QByteArray::fromStdString(waits.value("grid", std::string())));
        const int cols = waits.value("line_cck", 0), rows = waits.value("lines", 0);
        const QImage& img = a->image();
        QCOMPARE(img.width(), cols);
        QCOMPARE(img.height(), rows);
        std::uint64_t blitterCells = 0;
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                const auto d = std::uint8_t(grid[y * cols + x]);
                const QRgb want = d ? FrameAnalyzer::ownerColour(BusOwner(d - 1))
                                    : FrameAnalyzer::notDeniedColour();
                if (img.pixel(x, y) != want)
                    QFAIL(qPrintable(QStringLiteral("clock %1,%2").arg(y).arg(x)));
                if (d == 1 + unsigned(BusOwner::Blitter)) ++blitterCells;
            }
        QCOMPARE(blitterCells, waits["cpu_wait_classes"]["by_owner"].value("blitter", std::uint64_t(0)));
        QVERIFY(blitterCells > 1000);
        QVERIFY(a->waitCounters().contains("blitter"));
        QVERIFY(a->waitCounters().contains("read"));

        // The polling MOVEM.L heads the list; a click shows it in the disassembly.
        const std::uint32_t pollPc = readLong(emu, 0x1008);
        QTreeWidgetItem* top = a->stallList()->topLevelItem(0);
        QVERIFY(top);
        QCOMPARE(top->text(0), hex6(pollPc));
        emit a->stallList()->itemClicked(top, 0);
        const QString mark = QStringLiteral("* %1").arg(pollPc, 6, 16, QLatin1Char('0'));
        QTRY_VERIFY2(w.cpuPane()->disassemblyText().contains(mark), qPrintable(w.cpuPane()->disassemblyText()));
        QVERIFY(w.cpuPane()->disassemblyText().contains("movem"));
        QVERIFY(!w.cpuPane()->following());

        // Back to owners: the picture is the owner grid again.
        a->setMode(FrameAnalyzer::Mode::Owners);
        QCOMPARE(a->image().pixel(1, 100), FrameAnalyzer::ownerColour(BusOwner::Refresh));
    }

    // The frame before, the committed frame and the frame in progress on one strip: the grid
    // scrolls across the boundaries, each frame's lines numbered from $00, clocks past the
    // beam black; a blit that runs across the vertical blank is drawn whole, its halves
    // joined by id; the waits mode paints the neighbours' denied clocks.
    void framesAroundTheFrame() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        FrameAnalyzer* a = w.analyzer();
        QTRY_VERIFY(emu.call("frame.blits").ok);
        QVERIFY(emu.call("step_frame", {{"n", 6}}).ok);
        QVERIFY(emu.call("run_until", {{"vpos", 200}, {"hpos", 0}}).ok);
        w.refresh();
        QTRY_COMPARE(a->detailFrame(), std::int64_t(5));
        QTRY_COMPARE(a->blitList()->topLevelItemCount(), 3);
        QVERIFY(a->previousGrid() && a->progressGrid());
        QCOMPARE(a->previousGrid()->frame, 4ull);
        QCOMPARE(a->grid()->frame, 5ull);
        QCOMPARE(a->progressGrid()->frame, 6ull);
        const int prevLines = int(a->previousGrid()->lines), lines = int(a->grid()->lines);
        const int progressRow = prevLines + lines;
        QCOMPARE(a->committedRow(), prevLines);
        const QImage& strip = a->stripImage();
        QCOMPARE(strip.height(), progressRow + int(a->progressGrid()->lines));
        // The committed frame's rows are the committed frame's picture.
        for (int y = 0; y < lines; y += 17)
            for (int x = 0; x < strip.width(); x += 5)
                QCOMPARE(strip.pixel(x, prevLines + y), a->image().pixel(x, y));
        // The frames around it show their own owners; past the beam nothing has run.
        const auto ownerAt = [](const OwnerGrid& g, int v, int h) { return FrameAnalyzer::ownerColour(g.owner(unsigned(v), unsigned(h))); };
        for (int y = 0; y < prevLines; y += 13)
            for (int x = 0; x < strip.width(); x += 7)
                QCOMPARE(strip.pixel(x, y), ownerAt(*a->previousGrid(), y, x));
        QCOMPARE(strip.pixel(1, progressRow + 100), FrameAnalyzer::ownerColour(BusOwner::Refresh));
        QCOMPARE(strip.pixel(1, progressRow + 250), qRgb(0, 0, 0));
        QVERIFY(a->describeRow(progressRow + 250, 1).contains("not run yet"));
        QVERIFY2(a->describeRow(prevLines - 1, 1).contains(
                     QStringLiteral("frame 4 (the frame before)  line %1").arg(prevLines - 1)),
                 qPrintable(a->describeRow(prevLines - 1, 1)));
        std::uint64_t frame = 0;
        unsigned vpos = 0;
        QVERIFY(a->frameLineAt(progressRow + 3, frame, vpos));
        QCOMPARE(frame, 6ull);
        QCOMPARE(vpos, 3u);

        // Scrolled across the boundary, the line axis counts to the frame's end, then from $00.
        a->scrollTo(0, 0);
        auto* bar = static_cast<QAbstractScrollArea*>(a->gridView()->parentWidget())->verticalScrollBar();
        bar->setValue(bar->value() - 20 * a->cellSize().height());
        QTRY_VERIFY(!a->axisLabels(Qt::Vertical).empty());
        bool before = false, after = false;
        for (const auto& l : a->axisLabels(Qt::Vertical)) {
            before |= int(l.value) > prevLines - 21 && int(l.value) < prevLines;
            after |= l.value == 0 && l.text == QStringLiteral("$00");
        }
        QVERIFY(before && after);

        // The clear frame 4 started at line 280 ends early in frame 5: selected, it is drawn
        // from its start in frame 4 to its end in frame 5.
        const QTreeWidgetItem* clear = a->blitList()->topLevelItem(0);
        QCOMPARE(clear->text(2), QStringLiteral("D"));
        QVERIFY(a->selectBlit(clear->data(0, Qt::UserRole).toUInt()));
        FrameAnalyzer::Span span;
        QTRY_VERIFY(a->blitSpan(span));
        QCOMPARE(span.row0, 280);
        QVERIFY(span.row1 >= prevLines && span.row1 < prevLines + 60);
        QVERIFY(!span.toBeam);
        // Drawn lit on both sides of the boundary: the last line of frame 4 and the first of 5.
        int h4 = -1, h5 = -1;
        for (int h = 0; h < 227; ++h) {
            if (h4 < 0 && a->previousGrid()->owner(unsigned(prevLines - 1), unsigned(h)) == BusOwner::Blitter) h4 = h;
            if (h5 < 0 && a->grid()->owner(0, unsigned(h)) == BusOwner::Blitter) h5 = h;
        }
        QVERIFY(h4 >= 0 && h5 >= 0);
        // A cell's colour as the view paints it, at 8x with the boundary in view (its mark
        // covers a pixel each side of it, the cell's centre lies four away).
        a->setZoom(8);
        const auto shown = [&](int row, int h) {
            a->scrollTo(0, unsigned(std::max(0, h - 4)));
            bar->setValue(bar->value() - 10 * a->cellSize().height());
            const QPointF c = a->cellCentre(0, unsigned(h)) + QPointF(0, (row - prevLines) * a->cellSize().height());
            return a->gridView()->grab().toImage().pixel(c.toPoint());
        };
        const auto brightness = [](QRgb c) { return qRed(c) + qGreen(c) + qBlue(c); };
        const int blitter = brightness(FrameAnalyzer::ownerColour(BusOwner::Blitter));
        QVERIFY(brightness(shown(prevLines - 1, h4)) > blitter + 60);
        QVERIFY(brightness(shown(prevLines, h5)) > blitter + 60);
        // The cookie cut lies inside frame 5: frame 4's blitter clocks are not its own.
        QVERIFY(a->selectBlit(a->blitList()->topLevelItem(1)->data(0, Qt::UserRole).toUInt()));
        QTRY_VERIFY(a->blitSpan(span) && span.row0 > prevLines);
        QCOMPARE(shown(prevLines - 1, h4), FrameAnalyzer::ownerColour(BusOwner::Blitter));
        // The clear frame 5 left running: its end is where frame 6 (in progress) says.
        QVERIFY(a->selectBlit(a->blitList()->topLevelItem(2)->data(0, Qt::UserRole).toUInt()));
        QTRY_VERIFY(a->blitSpan(span) && span.row1 >= progressRow);
        QCOMPARE(span.row0, prevLines + 280);
        QVERIFY(span.row1 < progressRow + 60);
        QVERIFY(!span.toBeam);

        // The waits mode: frame 4's and frame 6's denied clocks too, as frame.waits gives them.
        a->setMode(FrameAnalyzer::Mode::CpuWaits);
        for (const std::uint64_t f : {4ull, 6ull}) {
            const json waits = emu.call("frame.waits", {{"grid", true}, {"frame", f}}).result;
            const QByteArray grid =
                QByteArray::fromBase64(QByteArray::fromStdString(waits.value("grid", std::string())));
            const int cols = waits.value("line_cck", 0), rows = waits.value("lines", 0);
            const int first = f == 4 ? 0 : progressRow;
            const auto painted = [&] {
                for (int y = 0; y < rows; ++y)
                    for (int x = 0; x < cols; ++x) {
                        const auto d = std::uint8_t(grid[y * cols + x]);
                        const OwnerGrid& g = *a->progressGrid();
                        const bool ran = f == 4 || unsigned(y) < g.beamVpos ||
                                         (unsigned(y) == g.beamVpos && unsigned(x) < g.beamHpos);
                        const QRgb want = !ran ? qRgb(0, 0, 0)
                                          : d ? FrameAnalyzer::ownerColour(BusOwner(d - 1))
                                              : FrameAnalyzer::notDeniedColour();
                        if (a->stripImage().pixel(x, first + y) != want) return false;
                    }
                return true;
            };
            QTRY_VERIFY2(painted(), qPrintable(QStringLiteral("frame %1").arg(f)));
            QVERIFY(waits.value("wait_cck", 0ull) > 1000);
        }
    }

    void axesNumberTheLinesAndClocksInView() {
        FrameAnalyzer a;
        a.resize(700, 900);
        a.show();
        QVERIFY(QTest::qWaitForWindowExposed(&a));
        a.setGrid(madeUpGrid(1, BusOwner::Idle, 0, 0, BusOwner::Idle));
        QCOMPARE(a.zoom(), FrameAnalyzer::kDefaultZoom);
        QVERIFY(a.cellSize().width() >= 4 && a.cellSize().height() >= 2);

        // At 8x, scrolled to line $2C and clock $38, the axes start there.
        a.setZoom(8);
        QCOMPARE(a.cellSize(), QSize(16, 8));
        a.scrollTo(0x2C, 0x38);
        QTRY_VERIFY(!a.axisLabels(Qt::Horizontal).empty());
        const auto clocks = a.axisLabels(Qt::Horizontal);
        const auto lines = a.axisLabels(Qt::Vertical);
        QVERIFY(!lines.empty());
        QCOMPARE(clocks.front().text, QStringLiteral("$38"));
        QCOMPARE(clocks.front().at, 8);
        QCOMPARE(lines.front().text, QStringLiteral("$2C"));
        QCOMPARE(lines.front().at, 4);
        // Every label names the cell under it, in order, within the axis.
        for (const auto* list : {&clocks, &lines}) {
            const bool across = list == &clocks;
            const QWidget* axis = across ? a.clockAxis() : a.lineAxis();
            const int size = across ? a.cellSize().width() : a.cellSize().height();
            const unsigned origin = across ? 0x38 : 0x2C;
            unsigned last = 0;
            for (const auto& l : *list) {
                QCOMPARE(l.text, hex2(l.value));
                QCOMPARE(unsigned(l.at / size) + origin, l.value);
                QVERIFY(l.at >= 0 && l.at < (across ? axis->width() : axis->height()));
                QVERIFY(&l == &list->front() || l.value > last);
                last = l.value;
            }
        }
        // The axes sit against the grid: the clock axis above it, the line axis to its left.
        QWidget* view = a.gridView();
        QCOMPARE(a.clockAxis()->mapTo(&a, QPoint(0, a.clockAxis()->height())),
                 view->mapTo(&a, QPoint(0, 0)));
        QCOMPARE(a.lineAxis()->mapTo(&a, QPoint(a.lineAxis()->width(), 0)),
                 view->mapTo(&a, QPoint(0, 0)));

        // Zoomed out, the labels thin out, evenly, and still name their cells; past $FF
        // a line takes three digits.
        a.setZoom(1);
        a.scrollTo(0x130, 0);
        const double scrolled = 0.5 * a.cellSize().height() - a.cellCentre(0, 0).y();
        const auto far = a.axisLabels(Qt::Vertical);
        QVERIFY(far.size() >= 3);
        const unsigned step = far[1].value - far[0].value;
        QVERIFY(step > 1);
        for (std::size_t i = 0; i < far.size(); ++i) {
            QCOMPARE(far[i].value, far[0].value + unsigned(i) * step);
            QCOMPARE(far[i].value % step, 0u);
            QCOMPARE(far[i].text, hex2(far[i].value));
            QCOMPARE(unsigned((far[i].at + scrolled) / a.cellSize().height()), far[i].value);
        }
        QVERIFY(far.back().value >= 0x100);
        QCOMPARE(far.back().text.size(), 4); // "$1x0"
    }

    void zoomSetsTheCellSize() {
        FrameAnalyzer a;
        a.resize(700, 900);
        a.show();
        QVERIFY(QTest::qWaitForWindowExposed(&a));
        a.setGrid(madeUpGrid(1, BusOwner::Idle, 0, 0, BusOwner::Idle));
        auto* box = a.findChild<QComboBox*>("analyzerZoom");
        auto* in = a.findChild<QToolButton*>("analyzerZoomIn");
        auto* out = a.findChild<QToolButton*>("analyzerZoomOut");
        QVERIFY(box && in && out);
        a.setZoom(3);
        QCOMPARE(a.cellSize(), QSize(6, 3));
        QCOMPARE(box->currentText(), QStringLiteral("3x"));
        in->click();
        QCOMPARE(a.zoom(), 4);
        QCOMPARE(a.cellSize(), QSize(8, 4));
        out->click();
        out->click();
        QCOMPARE(a.cellSize(), QSize(4, 2));
        box->setCurrentIndex(box->findText("6x"));
        QCOMPARE(a.cellSize(), QSize(12, 6));
        // Ctrl+wheel zooms about the pointer: the cell under it stays under it.
        QWidget* view = a.gridView();
        a.scrollTo(0, 0);
        const QPointF p = a.cellCentre(40, 30);
        QWheelEvent wheel(p, view->mapToGlobal(p), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view, &wheel);
        QCOMPARE(a.zoom(), 7);
        QCOMPARE(a.cellSize(), QSize(14, 7));
        const QPointF q = a.cellCentre(40, 30);
        QVERIFY(std::abs(q.x() - p.x()) <= a.cellSize().width());
        QVERIFY(std::abs(q.y() - p.y()) <= a.cellSize().height());
        // A plain wheel scrolls instead.
        QWheelEvent plain(p, view->mapToGlobal(p), QPoint(), QPoint(0, -120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view, &plain);
        QCOMPARE(a.zoom(), 7);
        // The keys, and the limits.
        QTest::keyClick(view->parentWidget(), Qt::Key_Plus);
        QCOMPARE(a.zoom(), 8);
        QTest::keyClick(view->parentWidget(), Qt::Key_Plus);
        QCOMPARE(a.zoom(), FrameAnalyzer::kMaxZoom);
        QVERIFY(!in->isEnabled());
        QTest::keyClick(view->parentWidget(), Qt::Key_Minus);
        QCOMPARE(a.zoom(), 7);
        a.setZoom(0);
        QCOMPARE(a.zoom(), FrameAnalyzer::kMinZoom);
        QCOMPARE(a.cellSize(), QSize(2, 1));
        QVERIFY(!out->isEnabled());
    }

    void legendFollowsTheGrid() {
        // Much taller than the grid at 1x: the legend still sits right under the cells.
        FrameAnalyzer a;
        a.resize(900, 1600);
        a.show();
        QVERIFY(QTest::qWaitForWindowExposed(&a));
        a.setGrid(madeUpGrid(1, BusOwner::Idle, 0, 0, BusOwner::Idle));
        a.setZoom(1);
        QWidget* legend = a.findChild<QWidget*>("analyzerLegend");
        QVERIFY(legend);
        QWidget* view = a.gridView();
        QVERIFY(view->height() >= 313);
        const int gridBottom = view->mapTo(&a, QPoint(0, 313)).y();
        auto legendTop = [&] { return legend->mapTo(&a, QPoint(0, 0)).y(); };
        QTRY_VERIFY(legendTop() >= gridBottom && legendTop() - gridBottom <= 24);
        QVERIFY2(legendTop() >= gridBottom && legendTop() - gridBottom <= 24,
                 qPrintable(QStringLiteral("grid ends at %1, legend starts at %2")
                                .arg(gridBottom)
                                .arg(legendTop())));
    }

    void ntscShortLinesHaveNoLastClock() {
        // An NTSC frame (263 lines in rows of 228, the first line long): every clock the
        // CPU's, so a short line's 228th column, which is no clock, stands out.
        FrameAnalyzer a;
        a.resize(700, 900);
        a.show();
        QVERIFY(QTest::qWaitForWindowExposed(&a));
        auto g = std::make_shared<OwnerGrid>();
        g->frame = 3;
        g->lines = 263;
        g->lineCck = 228;
        g->firstLineLong = true;
        g->owners.assign(std::size_t(OwnerGrid::kStride) * g->lines, std::uint8_t(BusOwner::Cpu));
        g->counts[unsigned(BusOwner::Cpu)] = 263 * 227 + 132;
        a.setGrid(g);
        const QImage& img = a.image();
        QCOMPARE(img.width(), 228);
        const QRgb cpu = FrameAnalyzer::ownerColour(BusOwner::Cpu);
        for (const int y : {0, 2, 262}) QCOMPARE(img.pixel(227, y), cpu); // long lines
        for (const int y : {1, 3, 261}) {
            QCOMPARE(img.pixel(226, y), cpu);
            QVERIFY(img.pixel(227, y) != cpu && img.pixel(227, y) != FrameAnalyzer::ownerColour(BusOwner::Idle));
        }
        // The readout has nothing to say of a column a short line does not have.
        QVERIFY(a.describe(1, 227).isEmpty());
        QVERIFY(a.describe(2, 227).contains("owner cpu"));
    }

    void readoutFollowsTheFrameShown() {
        FrameAnalyzer a;
        a.resize(700, 900);
        a.show();
        QVERIFY(QTest::qWaitForWindowExposed(&a));
        a.setGrid(madeUpGrid(7, BusOwner::Idle, 0x40, 0x20, BusOwner::Copper));
        mouseTo(a.gridView(), a.cellCentre(0x40, 0x20));
        QVERIFY2(a.readout().contains("frame 7  line 64 ($040)  clock 32 ($20)  owner copper"),
                 qPrintable(a.readout()));
        // A new frame under the same pointer: the readout describes it, not the old one.
        a.setGrid(madeUpGrid(8, BusOwner::Idle, 0x40, 0x20, BusOwner::Blitter));
        QVERIFY2(a.readout().contains("frame 8  line 64 ($040)  clock 32 ($20)  owner blitter"),
                 qPrintable(a.readout()));
        QVERIFY(!a.readout().contains("copper"));
        // Scrolling moves another cell under the pointer; the readout says which.
        a.scrollTo(1, 0);
        QVERIFY2(a.readout().contains("line 65 ($041)  clock 32 ($20)  owner idle"),
                 qPrintable(a.readout()));
        // A selected cell, once the pointer leaves, is redescribed with each frame too.
        a.select(0x40, 0x20);
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(a.gridView(), &leave);
        QVERIFY(a.readout().contains("frame 8  line 64 ($040)"));
        a.setGrid(madeUpGrid(9, BusOwner::Idle, 0x40, 0x20, BusOwner::Sprite));
        QVERIFY2(a.readout().contains("frame 9  line 64 ($040)  clock 32 ($20)  owner sprite"),
                 qPrintable(a.readout()));
    }

    void captureDockStartsAndStops() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CaptureDock* dock = w.captureDock();
        QTemporaryDir dir;
        const QString path = dir.filePath("capture");

        // A refused combination: the error the bus returns shows, nothing starts.
        dock->pathEdit()->setText(path);
        dock->memoryBox()->setChecked(true);
        dock->triggerBox()->setCurrentIndex(1);
        dock->triggerValue()->setText("10");
        dock->start();
        QTRY_VERIFY(!dock->errorText().isEmpty());
        QVERIFY2(dock->errorText().contains("memory"), qPrintable(dock->errorText()));
        QVERIFY(!dock->active());
        QVERIFY(!std::filesystem::exists(path.toStdString()));

        // Ten frames with slots: start, run two, watch the progress, stop.
        dock->memoryBox()->setChecked(false);
        dock->triggerBox()->setCurrentIndex(0);
        dock->framesBox()->setValue(10);
        dock->slotsBox()->setChecked(true);
        dock->start();
        QTRY_VERIFY(dock->active());
        QCOMPARE(dock->folder(), path);
        QVERIFY(!dock->startButton()->isEnabled());
        QVERIFY(dock->stopButton()->isEnabled());
        QVERIFY(emu.call("step_frame", {{"n", 3}}).ok);
        dock->poll();
        QTRY_VERIFY2(dock->progressText().startsWith("2 of 10 frames") ||
                         dock->progressText().startsWith("3 of 10 frames"),
                     qPrintable(dock->progressText()));
        QVERIFY(dock->stateText().startsWith("recording"));
        dock->stop();
        QTRY_VERIFY(!dock->active());
        QVERIFY(dock->startButton()->isEnabled());
        QVERIFY(dock->openButton()->isEnabled());
        QVERIFY(std::filesystem::exists((path + "/profile.json").toStdString()));
        QVERIFY(std::filesystem::exists((path + "/profile.jsonl").toStdString()));
        const json status = emu.call("profile.status").result;
        QVERIFY(!status.value("active", true));
        QVERIFY(!dock->cpuProfileButton()->isEnabled()); // no samples in that one
    }

    // The flight recorder from the Capture pane: keep the last 3 frames, stop when a frame's
    // time (less the CPU's STOP) exceeds a limit the frame load's blits pass at once.
    void captureDockFlightRecorder() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CaptureDock* dock = w.captureDock();
        QTemporaryDir dir;
        const QString path = dir.filePath("ring");
        dock->pathEdit()->setText(path);
        QVERIFY(!dock->ringFramesBox()->isEnabled());
        dock->ringBox()->setChecked(true);
        QVERIFY(dock->ringFramesBox()->isEnabled() && dock->stopOnValue()->isEnabled());
        dock->ringFramesBox()->setValue(3);
        dock->stopOnBox()->setCurrentIndex(0);
        dock->stopOnValue()->setText("1000000");
        const json p = dock->startParams();
        QCOMPARE(p.value("ring", 0), 3);
        QCOMPARE(p["stop_on"].value("frame_cck_over", 0ull), 1000000ull);
        // Nothing trips it: it holds the last three frames and writes nothing.
        dock->start();
        QTRY_VERIFY(dock->active());
        QVERIFY(emu.call("step_frame", {{"n", 6}}).ok);
        dock->poll();
        QTRY_VERIFY2(dock->stateText().contains("holds 3 of 3 frames"), qPrintable(dock->stateText()));
        // Nothing in the folder but the summary and an empty profile.jsonl.
        for (const auto& e : std::filesystem::directory_iterator(path.toStdString())) {
            const std::string name = e.path().filename().string();
            QVERIFY2(name == "profile.json" || (name == "profile.jsonl" && std::filesystem::file_size(e.path()) == 0),
                     name.c_str());
        }
        // Stop writes what it holds.
        dock->stop();
        QTRY_VERIFY(!dock->active());
        QVERIFY2(dock->stateText().contains("the flight recorder stopped: profile.stop"),
                 qPrintable(dock->stateText()));
        const json status = emu.call("profile.status").result;
        QCOMPARE(status.value("frames_written", 0), 3);
        // A breakpoint as the condition: the value box has nothing to say.
        dock->stopOnBox()->setCurrentIndex(2);
        QVERIFY(!dock->stopOnValue()->isEnabled());
        QCOMPARE(dock->startParams()["stop_on"].value("break", false), true);
    }

    void captureDockSamplesAndWritesACpuProfile() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CaptureDock* dock = w.captureDock();
        QTemporaryDir dir;
        const QString path = dir.filePath("sampled");
        dock->pathEdit()->setText(path);
        QVERIFY(!dock->registersBox()->isEnabled());
        dock->samplesBox()->setChecked(true);
        QVERIFY(dock->registersBox()->isEnabled());
        dock->registersBox()->setChecked(true);
        dock->framesBox()->setValue(3);
        QCOMPARE(dock->startParams().value("samples", false), true);
        QCOMPARE(dock->startParams().value("registers", false), true);
        dock->start();
        QTRY_VERIFY(dock->active());
        QVERIFY(emu.call("step_frame", {{"n", 4}}).ok);
        dock->poll();
        QTRY_VERIFY(!dock->active());
        QVERIFY2(dock->progressText().contains("samples"), qPrintable(dock->progressText()));
        QTRY_VERIFY(dock->cpuProfileButton()->isEnabled());
        bool ok = false;
        const QString profile = dock->writeCpuProfileFor(HW_FRAME_LOAD_HUNK, &ok);
        QVERIFY2(ok, qPrintable(profile));
        QVERIFY(profile.endsWith(".cpuprofile"));
        // Every colour clock the capture sampled is in the profile.
        std::uint64_t sampled = 0;
        for (const json& r : readCapture(path.toStdString()).frames) sampled += r["samples_cck"].get<std::uint64_t>();
        QCOMPARE(readCpuProfileFile(profile.toStdString()).total(ProfileTree::kRoot), sampled);
        // A second one does not replace the first.
        const QString again = dock->writeCpuProfileFor(HW_FRAME_LOAD_HUNK, &ok);
        QVERIFY(ok && again != profile);
        // Not a program: the error says so, nothing is written.
        const QString bad = dock->writeCpuProfileFor(path + "/profile.json", &ok);
        QVERIFY(!ok);
        QVERIFY(!bad.isEmpty());
    }

    void captureDockRunsTheSystemSamplerAndWritesItsReport() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CaptureDock* dock = w.captureDock();
        QTemporaryDir dir;
        const QString path = dir.filePath("system");
        dock->pathEdit()->setText(path);
        QVERIFY(!dock->samplerHzBox()->isEnabled());
        dock->samplerBox()->setChecked(true);
        QVERIFY(dock->samplerHzBox()->isEnabled());
        dock->samplerHzBox()->setValue(2500);
        dock->pcSamplesBox()->setChecked(true);
        dock->framesBox()->setValue(3);
        QCOMPARE(dock->startParams()["sampler"]["hz"].get<int>(), 2500);
        QCOMPARE(dock->startParams().value("pc_samples", false), true);
        QVERIFY(!dock->startParams().contains("samples"));
        QVERIFY(!dock->systemReportButton()->isEnabled());
        dock->start();
        QTRY_VERIFY(dock->active());
        QVERIFY(emu.call("step_frame", {{"n", 4}}).ok);
        dock->poll();
        QTRY_VERIFY(!dock->active());
        QTRY_VERIFY2(dock->progressText().contains("system samples at 2500 Hz"), qPrintable(dock->progressText()));
        QTRY_VERIFY(dock->systemReportButton()->isEnabled());
        QVERIFY(!dock->cpuProfileButton()->isEnabled()); // no precise samples
        // Each frame record has its frame-boundary PC.
        for (const json& r : readCapture(path.toStdString()).frames) QVERIFY(r.contains("pc_sample"));
        bool ok = false;
        const QString text = dock->writeSystemReport(&ok);
        QVERIFY2(ok, qPrintable(text));
        QVERIFY2(text.contains("samples at 2500 Hz"), qPrintable(text));
        // The folded stacks count every sample the capture wrote.
        const SystemSampleFile file = readSystemSamples((path + "/sampler.bin").toStdString());
        QVERIFY(file.samples.size() > 100); // three frames at 2,500 Hz: 150
        std::ifstream folded((path + "/sampler.folded").toStdString());
        std::uint64_t counted = 0;
        for (std::string line; std::getline(folded, line);) counted += std::stoull(line.substr(line.rfind(' ') + 1));
        QCOMPARE(counted, std::uint64_t(file.samples.size()));
        QVERIFY(std::filesystem::exists((path + "/sampler.trace.json").toStdString()));
        // A second report does not replace the first.
        const QString again = dock->writeSystemReport(&ok);
        QVERIFY(ok && again.contains("sampler-2.folded"));
    }
};

QTEST_MAIN(TestFrameAnalyzer)
#include "test_frame_analyzer.moc"
