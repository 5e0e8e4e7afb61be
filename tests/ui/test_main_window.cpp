// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop window, offscreen, on an AROS boot. The display shows exactly the picture a
// headless screenshot of the same frame holds (composeDisplay on a machine run alone);
// the Frame Analyzer shows that frame's bus owners and reads its records; a toolbar
// action and the same command over the control socket leave the machine in the same
// state.

#include "app/control/control_server.h"
#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/adf.h"
#include "profiler/capture/overlay.h"
#include "profiler/capture/png.h"
#include "profiler/capture/screenshot.h"
#include "ui/cpu_pane.h"
#include "ui/display_widget.h"
#include "ui/frame_analyzer.h"
#include "ui/main_window.h"
#include "ui/strip_pane.h"
#include "ui/timeline_strip.h"

#include <QCheckBox>
#include <QDateTimeEdit>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QPushButton>
#include <QFile>
#include <QLineEdit>
#include <QLocalSocket>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest>
#include <optional>
#include <cstring>
#include <mutex>
#include <set>

using namespace copperline;
using nlohmann::json;

namespace {

constexpr std::uint64_t kFrames = 600; // AROS shows its pointer on the grey screen by then

std::unique_ptr<Machine> aros() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    return m;
}

Emulator::Options windowOptions() {
    Emulator::Options o;
    o.pictures = true; // as the window runs it
    o.paced = false;   // but as fast as the host goes, for the test's sake
    o.startRunning = false;
    return o;
}

// One JSON-RPC call over the socket, served by this thread's own event loop.
json socketCall(QLocalSocket& s, int id, const std::string& method, const json& params) {
    const std::string line =
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump() + "\n";
    s.write(line.data(), qint64(line.size()));
    s.flush();
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 60000) {
        if (s.canReadLine()) {
            const json reply = json::parse(s.readLine().constData(), nullptr, false);
            if (reply.is_object() && reply.value("id", -1) == id) return reply;
            continue;
        }
        QTest::qWait(5);
    }
    return json();
}

// Whether the window has had its reply to `method`: 0 not yet, 1 a result, -1 an error.
int answered(const QSignalSpy& replies, const char* method) {
    for (const auto& r : replies)
        if (r.at(0).toString() == QLatin1String(method)) return r.at(1).toBool() ? 1 : -1;
    return 0;
}

// Sends mouse events straight to a widget, at fractional positions: the offscreen platform
// has no real pointer, and a grid cell may be less than two pixels tall.
void mouse(QWidget* w, QEvent::Type type, QPointF at) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    const Qt::MouseButtons held = type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton;
    QMouseEvent e(type, at, w->mapToGlobal(at), button, held, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void opensWithMenusToolbarAndDocks() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.windowTitle(), QStringLiteral("Copperline"));
        QStringList menus;
        for (QAction* a : w.menuBar()->actions())
            menus << a->text();
        QVERIFY(menus.contains("&File"));
        QVERIFY(menus.contains("&Machine"));
        QVERIFY(menus.contains("&Help"));
        for (const char* name : {"run", "pause", "step", "step_over", "step_out", "frame", "reset"})
            QVERIFY(w.action(name));
        QCOMPARE(w.action("step_over")->shortcut(), QKeySequence(Qt::Key_F10));
        QCOMPARE(w.action("step_out")->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F11));
        auto* bar = w.findChild<QToolBar*>("runToolBar");
        QVERIFY(bar->actions().contains(w.action("step_over")));
        QVERIFY(bar->actions().contains(w.action("step_out")));
        for (const char* name : {"openProgramAction", "debugProgramAction", "insertDisk0",
                                 "ejectDisk3", "writebackAction", "saveStateAction",
                                 "loadStateAction", "loadUssAction", "screenshotAction", "warpAction"})
            QVERIFY2(w.action(name), name);
        QVERIFY(w.action("warpAction")->isCheckable());
        QVERIFY(w.findChild<QToolBar*>("runToolBar"));
        QVERIFY(w.analyzer()->isVisible());
        QVERIFY(w.cpuPane()->isVisible());
    }

    // The profile strip's dock sits beside the Frame Analyzer, in the View menu, and follows
    // the machine's one start while it shows (its own test: test_strip_pane).
    void theProfileStripDockFollowsTheMachine() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* dock = w.findChild<QDockWidget*>("stripDock");
        QVERIFY(dock);
        QVERIFY(w.tabifiedDockWidgets(w.findChild<QDockWidget*>("analyzerDock")).contains(dock));
        bool inView = false;
        for (QAction* a : w.findChild<QMenu*>("viewMenu")->actions()) inView = inView || a == dock->toggleViewAction();
        QVERIFY(inView);
        dock->raise();
        QTRY_VERIFY_WITH_TIMEOUT(w.stripPane()->isVisible(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(w.stripPane()->summaryText(), QStringLiteral("no start: strip.set gives one"), 5000);
        // Another client gives a start: the pane's field follows.
        QVERIFY(emu.call("strip.set", {{"start", 0xF80100}}).ok);
        QTRY_COMPARE_WITH_TIMEOUT(w.stripPane()->startEdit()->text(), QStringLiteral("$F80100"), 5000);
    }

    void debugOverlayIsDrawnOverTheDisplayWhenShown() {
        // The widget draws the guest's overlay over a copy of the picture, never into it.
        DisplayWidget d;
        auto picture = std::make_shared<Image>();
        picture->width = 908;
        picture->height = 626;
        picture->pixels.assign(std::size_t(908) * 626, 0xFF000000u);
        d.setWholeRaster(true); // the overlay's origin in the whole picture
        d.setPicture(picture);
        auto shapes = std::make_shared<OverlayShapes>();
        OverlayShape box;
        box.kind = OverlayShape::Kind::FilledRect;
        box.left = 10, box.top = 20, box.right = 12, box.bottom = 22;
        box.color = 0x00FF00;
        shapes->push_back(box);
        d.setOverlay(shapes);
        const int x = kOverlayOriginX + 11, y = kOverlayOriginY + 21;
        QCOMPARE(d.image().pixel(x, y), 0xFF00FF00u);
        QCOMPARE(picture->pixels[std::size_t(y) * 908 + x], 0xFF000000u);
        d.setOverlayVisible(false);
        QCOMPARE(d.image().pixel(x, y), 0xFF000000u);

        // The window's View menu toggles it.
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        auto* toggle = w.findChild<QAction*>("debugOverlayAction");
        QVERIFY(toggle && toggle->isCheckable() && toggle->isChecked());
        auto* display = w.findChild<DisplayWidget*>();
        QVERIFY(display && display->overlayVisible());
        toggle->trigger();
        QVERIFY(!display->overlayVisible());
    }

    void restoresLayoutUnlessFactory() {
        QStandardPaths::setTestModeEnabled(true); // settings go to a test location, not the user's
        QSettings().clear();
        Emulator emu(aros(), windowOptions());
        emu.start();
        QSize mine;
        {
            MainWindow w(emu, false);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.findChild<QDockWidget*>("analyzerDock")->hide();
            // A size of the user's own, smaller than the one the window opens at (the
            // least it takes, as its fonts make it, and a little more).
            mine = w.minimumSizeHint().expandedTo(w.minimumSize()) + QSize(8, 8);
            QVERIFY2(mine.width() < w.width() || mine.height() < w.height(), "no smaller size to choose");
            w.resize(mine);
            w.close(); // saves the layout
        }
        {
            MainWindow w(emu, false);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(!w.findChild<QDockWidget*>("analyzerDock")->isVisible());
            QCOMPARE(w.size(), mine);
        }
        {
            MainWindow w(emu, true);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.findChild<QDockWidget*>("analyzerDock")->isVisible());
            QVERIFY(w.size() != mine);
        }
        QSettings().clear();
    }

    // The window fits the screen it opens on (the test runs on a 1024 x 768 one): the
    // display, the Frame Analyzer, the registers and the status bar are all on it. A saved
    // size that does not fit this screen is not restored.
    void fitsTheScreen() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QCOMPARE(MainWindow::fittedSize(QSize(2560, 1440)), QSize(1440, 900));
        QCOMPARE(MainWindow::fittedSize(QSize(1024, 768)), QSize(1008, 720));
        Emulator emu(aros(), windowOptions());
        emu.start();
        const auto onScreen = [](MainWindow& w) {
            const QRect room = w.screen()->availableGeometry();
            QVERIFY2(room.contains(w.frameGeometry()),
                     qPrintable(QStringLiteral("%1,%2 %3x%4 on %5x%6")
                                    .arg(w.frameGeometry().x())
                                    .arg(w.frameGeometry().y())
                                    .arg(w.frameGeometry().width())
                                    .arg(w.frameGeometry().height())
                                    .arg(room.width())
                                    .arg(room.height())));
            for (QWidget* part :
                 {static_cast<QWidget*>(w.display()), static_cast<QWidget*>(w.analyzer()),
                  static_cast<QWidget*>(w.cpuPane()), static_cast<QWidget*>(w.statusBar())}) {
                QVERIFY(part->isVisible());
                const QRect global(part->mapToGlobal(QPoint(0, 0)), part->size());
                QVERIFY2(room.contains(global), part->metaObject()->className());
            }
        };
        QCOMPARE(QGuiApplication::primaryScreen()->size(), QSize(1024, 768));
        {
            MainWindow w(emu, true);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            onScreen(w);
            // As large as fits, not a small window in a corner.
            QVERIFY(w.width() >= 900 && w.height() >= 650);
            // The Frame Analyzer's dock takes its share, not the whole width.
            QVERIFY(w.analyzer()->width() < w.width() / 2);
            QVERIFY(w.display()->width() > 300);
            w.resize(1300, 860); // as a larger screen would have had it
            w.close();
        }
        {
            MainWindow w(emu, false);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            onScreen(w);
            QCOMPARE(w.size(), MainWindow::fittedSize(w.screen()->availableGeometry().size()));
        }
        QSettings().clear();
    }

    void showsTheFramesPictureAndOwners() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const CommandResult r = emu.call("step_frame", {{"n", kFrames}});
        QVERIFY(r.ok);
        QCOMPARE(r.result.value("frame", 0ull), kFrames);
        w.refresh();

        // The same frame, headless: a machine of its own, run frame by frame.
        auto ref = aros();
        for (std::uint64_t f = 0; f < kFrames; ++f)
            ref->runFrame();
        const Image shot = composeDisplay(*ref);

        // By default the visible area: that part of the picture (black past its right edge).
        {
            const QImage& visible = w.display()->image();
            const QRect area = w.display()->shownArea();
            QCOMPARE(visible.size(), area.size());
            QVERIFY(area.width() < int(shot.width));
            long differ = 0;
            for (int y = 0; y < area.height(); ++y)
                for (int x = 0; x < area.width(); ++x) {
                    const unsigned sx = unsigned(area.left() + x), sy = unsigned(area.top() + y);
                    const std::uint32_t want = sx < shot.width ? shot.at(sx, sy) : 0xFF000000u;
                    differ += (visible.pixel(x, y) & 0xFFFFFF) != (want & 0xFFFFFF);
                }
            QCOMPARE(differ, 0L);
        }
        // The whole raster (View > Whole raster) is the headless screenshot's picture.
        w.action("wholeRasterAction")->trigger();
        const QImage& shown = w.display()->image();
        QCOMPARE(unsigned(shown.width()), shot.width);
        QCOMPARE(unsigned(shown.height()), shot.height);
        long differ = 0;
        for (unsigned y = 0; y < shot.height; ++y) {
            const auto* row = reinterpret_cast<const QRgb*>(shown.constScanLine(int(y)));
            for (unsigned x = 0; x < shot.width; ++x)
                differ += (row[x] & 0xFFFFFF) != (shot.at(x, y) & 0xFFFFFF);
        }
        QCOMPARE(differ, 0L);
        // Not a blank picture: AROS's grey screen, the black border and the red pointer.
        std::set<std::uint32_t> colours(shot.pixels.begin(), shot.pixels.end());
        QVERIFY(colours.size() >= 3);

        // And the widget paints it: sampled points of the widget match the picture.
        const QImage painted = w.display()->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const QRect target = w.display()->targetRect();
        QVERIFY(target.width() > 100 && target.height() > 100);
        const double aspect = double(target.width()) / target.height();
        QVERIFY(std::abs(aspect - shot.width * DisplayWidget::kPixelAspect / shot.height) < 0.02);
        const double dpr = painted.devicePixelRatio();
        int matched = 0, sampled = 0;
        for (int i = 1; i < 20; ++i)
            for (int j = 1; j < 20; ++j) {
                const int wx = target.left() + target.width() * i / 20,
                          wy = target.top() + target.height() * j / 20;
                const unsigned sx =
                    unsigned((wx - target.left() + 0.5) * shot.width / target.width());
                const unsigned sy =
                    unsigned((wy - target.top() + 0.5) * shot.height / target.height());
                const QRgb got = painted.pixel(int(wx * dpr), int(wy * dpr)) & 0xFFFFFF;
                bool near = false;
                for (int dy = -1; dy <= 1 && !near; ++dy)
                    for (int dx = -1; dx <= 1 && !near; ++dx) {
                        const int nx = int(sx) + dx, ny = int(sy) + dy;
                        if (nx >= 0 && ny >= 0 && nx < int(shot.width) && ny < int(shot.height))
                            near = (shot.at(unsigned(nx), unsigned(ny)) & 0xFFFFFF) == got;
                    }
                matched += near;
                ++sampled;
            }
        QCOMPARE(matched, sampled);

        // The Frame Analyzer shows the same frame's owners, colour by colour.
        const OwnerGrid* grid = w.analyzer()->grid();
        QVERIFY(grid);
        QCOMPARE(grid->frame, kFrames - 1);
        QCOMPARE(grid->lines, ref->agnus().committedLines());
        const auto& owners = ref->agnus().committedOwners();
        const QImage& cells = w.analyzer()->image();
        QCOMPARE(cells.width(), 227);
        QCOMPARE(cells.height(), int(grid->lines));
        for (unsigned v = 0; v < grid->lines; ++v)
            for (unsigned h = 0; h < 227; ++h) {
                const auto o = BusOwner(owners[std::size_t(v) * Agnus::kMaxLineCck + h]);
                if (grid->owner(v, h) != o ||
                    cells.pixel(int(h), int(v)) != FrameAnalyzer::ownerColour(o))
                    QFAIL(qPrintable(QString("owner differs at line %1 clock %2").arg(v).arg(h)));
            }
        const auto& counts = ref->agnus().committedOwnerCounts();
        for (unsigned o = 0; o < kBusOwnerCount; ++o)
            QCOMPARE(grid->counts[o], counts[o]);
        QVERIFY(!grid->records.empty()); // the pane armed full records before the run

        // Hover reads a slot; a click keeps one.
        QWidget* view = w.analyzer()->gridView();
        mouse(view, QEvent::MouseMove, w.analyzer()->cellCentre(100, 1));
        QTRY_VERIFY2(
            w.analyzer()->readout().contains("line 100 ($064)  clock 1 ($01)  owner refresh"),
            qPrintable(w.analyzer()->readout()));
        QVERIFY(w.analyzer()->readout().contains("address $"));
        mouse(view, QEvent::MouseButtonPress, w.analyzer()->cellCentre(50, 3));
        mouse(view, QEvent::MouseButtonRelease, w.analyzer()->cellCentre(50, 3));
        QVERIFY(w.analyzer()->readout().contains("line 50 ($032)  clock 3 ($03)"));

        // The status bar and the registers pane follow the snapshot.
        QVERIFY(w.statusText().contains(QStringLiteral("frame %1").arg(kFrames)));
        QVERIFY(w.cpuPane()->registersText().contains("PC "));
        // The listing from the pc, marked, its addresses in hex.
        QTRY_VERIFY(w.cpuPane()->disassemblyText().contains(
            QStringLiteral("> %1").arg(emu.snapshot()->regs.pc, 6, 16, QLatin1Char('0'))));
        QVERIFY(w.statusText().contains(
            QStringLiteral("pc $") +
            QStringLiteral("%1").arg(emu.snapshot()->regs.pc, 8, 16, QLatin1Char('0')).toUpper()));
        QVERIFY(w.statusText().contains(QStringLiteral("beam $")));
    }

    void toolbarAndSocketAgree() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ControlServer server(emu);
        std::string error;
        QVERIFY2(
            server.listen("test-ui-" + std::to_string(QCoreApplication::applicationPid()), &error),
            error.c_str());
        QLocalSocket socket;
        socket.connectToServer(QString::fromStdString(server.socketPath()));
        QVERIFY(socket.waitForConnected(5000));

        QVERIFY(emu.call("step_frame", {{"n", 50}}).ok);
        QTemporaryDir dir;
        const std::string state = dir.filePath("s.clstate").toStdString();
        QVERIFY(emu.call("state.save", {{"path", state}}).ok);

        struct Case {
            const char* action;
            const char* method;
            json params;
        };
        const Case cases[] = {{"step", "step", {{"n", 1}}},
                              {"step_over", "step_over", json::object()},
                              {"step_out", "step_out", json::object()},
                              {"frame", "step_frame", {{"n", 1}}},
                              {"reset", "machine.reset", {{"kind", "cold"}}}};
        int id = 1;
        for (const auto& c : cases) {
            QVERIFY(emu.call("state.load", {{"path", state}}).ok);
            QSignalSpy replies(&w, &MainWindow::replied);
            w.action(c.action)->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(answered(replies, c.method) != 0, 60000); // slow under a sanitizer
            QCOMPARE(answered(replies, c.method), 1);
            const json regsByToolbar = emu.call("regs.get").result;
            const json hashByToolbar = emu.call("state.hash").result;

            QVERIFY(emu.call("state.load", {{"path", state}}).ok);
            const json reply = socketCall(socket, id++, c.method, c.params);
            QVERIFY2(reply.contains("result"), reply.dump().c_str());
            QCOMPARE(emu.call("regs.get").result, regsByToolbar);
            QCOMPARE(emu.call("state.hash").result, hashByToolbar);
        }

        // Run and pause from the toolbar: the machine runs, then stops where it is.
        w.action("run")->trigger();
        QTRY_VERIFY(emu.snapshot()->running);
        const std::uint64_t frame = emu.snapshot()->frame;
        QTRY_VERIFY(emu.snapshot()->frame > frame + 2);
        QSignalSpy replies(&w, &MainWindow::replied);
        w.action("pause")->trigger();
        QTRY_VERIFY(answered(replies, "pause") != 0);
        QVERIFY(!emu.snapshot()->running);
        const json status = socketCall(socket, id++, "status", json::object());
        QCOMPARE(status["result"].value("state", ""), std::string("paused"));
    }

    // The disassembly pane shows disasm's names: a label where a routine starts (and the
    // routine the listing starts in), the name of a call's target beside it.
    void disassemblyShowsSymbols() {
        json asked;
        CpuPane pane([&](const std::string& method, const json& params,
                         std::function<void(bool, const json&)> reply) {
            QCOMPARE(method, std::string("disasm"));
            asked = params;
            reply(true, json::parse(R"({"instructions": [
                {"addr": 3052704, "bytes": "4a80", "length": 2, "text": "tst.l %d0", "valid": true,
                 "symbol": "_start", "symbol_offset": 40},
                {"addr": 3052706, "bytes": "4eb9002e94cc", "length": 6, "text": "jsr (0x2e94cc).l",
                 "valid": true, "symbol": "_start", "symbol_offset": 42, "target": 3052748,
                 "target_symbol": "main"},
                {"addr": 3052748, "bytes": "4e75", "length": 2, "text": "rts", "valid": true,
                 "symbol": "main", "symbol_offset": 0}]})"));
        });
        pane.showAddress(0x2E94A0);
        QCOMPARE(asked.value("addr", 0u), 0x2E94A0u);
        const QStringList lines = pane.disassemblyText().split('\n');
        QCOMPARE(lines.value(0), QStringLiteral("_start+0x28:"));
        QVERIFY2(lines.value(2).contains("2e94a2") &&
                     lines.value(2).endsWith("jsr (0x2e94cc).l  ; main"),
                 qPrintable(lines.value(2)));
        QCOMPARE(lines.value(3), QStringLiteral("main:"));
        QVERIFY(lines.value(4).contains("2e94cc") && lines.value(4).endsWith("rts"));
    }

    void viewMenuShowsTheWholeRaster() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        QVERIFY(emu.call("step_frame", {{"n", 60}}).ok);
        w.refresh();
        auto* raster = w.action("wholeRasterAction");
        QVERIFY(raster && raster->isCheckable() && !raster->isChecked());
        QVERIFY(!w.display()->wholeRaster());
        const int visible = w.display()->image().width();
        raster->trigger();
        QVERIFY(w.display()->wholeRaster());
        QCOMPARE(w.display()->image().width(), 908); // the blanks too
        QVERIFY(visible < 908);
        raster->trigger();
        QVERIFY(!w.display()->wholeRaster());
    }

    // File > Load symbols: an ELF for code that is no executable and where it lies
    // (symbols.load); a cancelled question loads nothing.
    void fileMenuLoadsSymbols() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        QVERIFY(w.action("loadSymbolsAction"));
        const QString elf = COPPERLINE_SOURCE_DIR "/tests/data/bartman-template/a.mingw.elf";
        std::optional<QString> base;
        auto& dialogs = w.fileDialogs();
        dialogs.openPath = [&](const QString&, const QString&) { return elf; };
        dialogs.askText = [&](const QString&, const QString&) { return base; };
        QSignalSpy replies(&w, &MainWindow::replied);
        w.action("loadSymbolsAction")->trigger(); // cancelled at the address
        QTest::qWait(300);
        QCOMPARE(answered(replies, "symbols.load"), 0);
        base = QStringLiteral("$40000");
        w.action("loadSymbolsAction")->trigger();
        QTRY_VERIFY(answered(replies, "symbols.load") != 0);
        QCOMPARE(answered(replies, "symbols.load"), 1);
        const auto list = emu.call("symbols.list");
        QVERIFY(list.ok);
        QCOMPARE(list.result["symbols"].size(), std::size_t(1));
        QCOMPARE(list.result["symbols"][0]["sections"][0]["base"], "0x40000");
        QCOMPARE(list.result["symbols"][0]["sections"][0]["name"], ".text");
        // Named where it lies now.
        const auto at = emu.call("symbols.resolve", {{"addr", 0x40000 + 0x74}});
        QCOMPARE(at.result.value("function", std::string()), std::string("main"));
    }

    // File > Screenshot and Save/Load state through the (replaced) file dialogs: a file
    // that exists is written over only when the user says so.
    void fileMenuSavesStatesAndScreenshots() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        QTemporaryDir dir;
        QStringList toOpen, toSave, asked;
        bool allow = false;
        auto& dialogs = w.fileDialogs();
        dialogs.openPath = [&](const QString&, const QString&) {
            return toOpen.isEmpty() ? QString() : toOpen.takeFirst();
        };
        dialogs.savePath = [&](const QString&, const QString&) {
            return toSave.isEmpty() ? QString() : toSave.takeFirst();
        };
        dialogs.confirmOverwrite = [&](const QString& path) {
            asked << path;
            return allow;
        };
        QVERIFY(emu.call("step_frame", {{"n", 60}}).ok);
        QSignalSpy replies(&w, &MainWindow::replied);

        const QString shot = dir.filePath("shot.png");
        toSave << shot;
        w.action("screenshotAction")->trigger();
        QTRY_VERIFY(answered(replies, "capture.screenshot") != 0);
        QCOMPARE(answered(replies, "capture.screenshot"), 1);
        QCOMPARE(readPng(shot.toStdString()).width, 908u);
        QVERIFY(asked.isEmpty());

        // Over the user's own file: asked first, and left alone on a no.
        const QString mine = dir.filePath("mine.png");
        {
            QFile f(mine);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("a user's file");
        }
        replies.clear();
        toSave << mine;
        w.action("screenshotAction")->trigger();
        QCOMPARE(asked, QStringList{mine});
        QTest::qWait(300);
        QCOMPARE(answered(replies, "capture.screenshot"), 0);
        {
            QFile f(mine);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(f.readAll(), QByteArray("a user's file"));
        }
        allow = true;
        toSave << mine;
        w.action("screenshotAction")->trigger();
        QTRY_VERIFY(answered(replies, "capture.screenshot") != 0);
        QCOMPARE(answered(replies, "capture.screenshot"), 1);
        QCOMPARE(readPng(mine.toStdString()).width, 908u);
        // A cancelled dialog does nothing: none of the three actions' commands goes out (the
        // window's own refreshes may answer meanwhile, sooner or later on a loaded machine).
        replies.clear();
        w.action("screenshotAction")->trigger();
        w.action("saveStateAction")->trigger();
        w.action("loadStateAction")->trigger();
        QTest::qWait(300);
        for (const char* method : {"capture.screenshot", "state.save", "pause", "state.load"})
            QVERIFY2(answered(replies, method) == 0, method);

        // A state saved, the machine run on, and the state loaded while it runs (the
        // window pauses it first): the machine is the saved one again.
        const QString state = dir.filePath("s.clstate");
        toSave << state;
        w.action("saveStateAction")->trigger();
        QTRY_VERIFY(answered(replies, "state.save") != 0);
        QCOMPARE(answered(replies, "state.save"), 1);
        const json hash = emu.call("state.hash").result["hash"];
        QVERIFY(emu.call("state.info", {{"path", state.toStdString()}})
                    .result.value("compatible", false));
        QVERIFY(emu.call("continue", {{"wait", false}}).ok);
        QTRY_VERIFY(emu.snapshot()->frame > 64);
        toOpen << state;
        w.action("loadStateAction")->trigger();
        QTRY_VERIFY(answered(replies, "state.load") != 0);
        QCOMPARE(answered(replies, "state.load"), 1);
        QVERIFY(!emu.snapshot()->running);
        QCOMPARE(emu.call("state.hash").result["hash"], hash);

        // File > Load WinUAE state: FS-UAE's state of our boot block program (tests/data/uss).
        toOpen << QStringLiteral(SCENE_USS);
        w.action("loadUssAction")->trigger();
        QTRY_VERIFY(answered(replies, "state.load_uss") != 0);
        QCOMPARE(answered(replies, "state.load_uss"), 1);
        QVERIFY(!emu.snapshot()->running);
        QVERIFY(emu.call("state.hash").result["hash"] != hash);
        // A file of another kind is refused, and changes nothing.
        const json loaded = emu.call("state.hash").result["hash"];
        const auto refused = emu.call("state.load_uss", {{"path", state.toStdString()}});
        QVERIFY(!refused.ok);
        QCOMPARE(emu.call("state.hash").result["hash"], loaded);
    }

    // File > Disk drives: a disk in each drive from the dialog, ejected again.
    void fileMenuInsertsAndEjectsDisks() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        QTemporaryDir dir;
        const QString adf = dir.filePath("blank.adf");
        {
            QFile f(adf);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(901120, '\0'));
        }
        QStringList toOpen;
        w.fileDialogs().openPath = [&](const QString&, const QString&) {
            return toOpen.isEmpty() ? QString() : toOpen.takeFirst();
        };
        QSignalSpy replies(&w, &MainWindow::replied);
        w.action("writebackAction")->setChecked(true);
        toOpen << adf;
        w.action("insertDisk1")->trigger();
        QTRY_VERIFY(answered(replies, "media.floppy.insert") != 0);
        QCOMPARE(answered(replies, "media.floppy.insert"), 1);
        const json drives = emu.call("media.floppy.query").result["drives"];
        QCOMPARE(drives[1]["path"], adf.toStdString());
        QCOMPARE(drives[1]["writeback"], true);
        QVERIFY(drives[0]["path"].is_null());

        // As the menu opens it asks which drives hold a disk.
        auto* menu = w.findChild<QMenu*>("drivesMenu");
        QVERIFY(menu);
        emit menu->aboutToShow();
        QTRY_VERIFY(answered(replies, "media.floppy.query") != 0);
        QVERIFY(w.action("ejectDisk1")->isEnabled());
        QVERIFY(w.action("ejectDisk1")->text().contains("blank.adf"));
        QVERIFY(!w.action("ejectDisk0")->isEnabled());
        QVERIFY(!w.action("ejectDisk2")->isEnabled());
        w.action("ejectDisk1")->trigger();
        QTRY_VERIFY(answered(replies, "media.floppy.eject") != 0);
        QCOMPARE(answered(replies, "media.floppy.eject"), 1);
        QVERIFY(emu.call("media.floppy.query").result["drives"][1]["path"].is_null());
    }

    // File > Warp follows warp.get and sets it; File > Open program runs one as --run does
    // (the run disk is built for the chosen program, the machine warps while it boots).
    void warpAndOpenProgram() {
        Emulator::Options o = windowOptions();
        o.paced = true; // a window's session, which warp unpaces
        std::mutex mutex;
        std::vector<std::string> programs;
        o.buildRunDisk = [&](const Emulator::Options::RunDisk& r) {
            std::lock_guard lock(mutex);
            programs.push_back(r.program);
            return adfFromBytes(std::vector<std::uint8_t>(adf::kImageBytes, 0), "a run disk");
        };
        Emulator emu(aros(), o);
        emu.start();
        MainWindow w(emu, true);
        auto* warp = w.action("warpAction");
        QCOMPARE(emu.call("warp.get").result.value("on", true), false);
        QVERIFY(!warp->isChecked());
        QSignalSpy replies(&w, &MainWindow::replied);
        warp->trigger();
        QTRY_VERIFY(answered(replies, "warp.set") != 0);
        QCOMPARE(answered(replies, "warp.set"), 1);
        QCOMPARE(emu.call("warp.get").result.value("on", false), true);
        QCOMPARE(emu.call("warp.get").result.value("source", ""), std::string("manual"));
        QVERIFY(warp->isChecked());
        replies.clear();
        warp->trigger();
        QTRY_VERIFY(answered(replies, "warp.set") != 0);
        QCOMPARE(emu.call("warp.get").result.value("on", true), false);
        QVERIFY(!warp->isChecked());
        // Set by another client while the machine runs: the action follows.
        QVERIFY(emu.call("continue", {{"wait", false}}).ok);
        QVERIFY(emu.call("warp.set", {{"on", true}}).ok);
        QTRY_VERIFY(warp->isChecked());
        QVERIFY(emu.call("warp.set", {{"on", false}}).ok);
        QTRY_VERIFY(!warp->isChecked());
        QVERIFY(emu.call("pause").ok);

        QTemporaryDir dir;
        const QString program = dir.filePath("prog");
        QStringList toOpen{program};
        w.fileDialogs().openPath = [&](const QString&, const QString&) {
            return toOpen.isEmpty() ? QString() : toOpen.takeFirst();
        };
        replies.clear();
        w.action("openProgramAction")->trigger();
        QTRY_VERIFY(answered(replies, "run.program") != 0);
        QCOMPARE(answered(replies, "run.program"), 1);
        {
            std::lock_guard lock(mutex);
            QCOMPARE(programs, std::vector<std::string>{program.toStdString()});
        }
        // It runs, warping until the program loads (which a blank disk never does).
        QTRY_VERIFY(answered(replies, "continue") != 0);
        QTRY_VERIFY(emu.snapshot()->running);
        const json launch = emu.call("warp.get").result;
        QCOMPARE(launch.value("source", ""), std::string("launch"));
        QVERIFY(launch.value("on", false));
        QTRY_VERIFY(warp->isChecked());
        QVERIFY(emu.call("pause").ok);

        // To run it, or to debug it: the machine stops at its first instruction then.
        QSignalSpy sent(&w, &MainWindow::sent);
        const auto runProgramSent = [&]() {
            for (const auto& s : sent)
                if (s.at(0).toString() == QLatin1String("run.program"))
                    return json::parse(s.at(1).toString().toStdString());
            return json();
        };
        for (const char* name : {"openProgramAction", "debugProgramAction"}) {
            sent.clear();
            toOpen << program;
            w.action(name)->trigger();
            const json params = runProgramSent();
            QCOMPARE(params.value("path", ""), program.toStdString());
            QCOMPARE(params.value("stop", true), std::string(name) == "debugProgramAction");
        }
        QTRY_VERIFY(emu.snapshot()->running);
        QVERIFY(emu.call("pause").ok);
    }

    void theClockFromTheWindow() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        QCOMPARE(emu.call("rtc.get").result.value("time", ""), std::string("2000-01-01T00:00:00"));
        w.action("clockAction")->trigger();
        QDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = w.findChild<QDialog*>("clockDialog")) && dialog->isVisible());
        auto* time = dialog->findChild<QDateTimeEdit*>("clockTime");
        QCOMPARE(time->dateTime().toString(Qt::ISODate).left(19), QStringLiteral("2000-01-01T00:00:00"));
        time->setDateTime(QDateTime(QDate(2026, 12, 7), QTime(10, 30, 15), Qt::UTC));
        dialog->findChild<QCheckBox*>("clockFrozen")->setChecked(true);
        QSignalSpy replies(&w, &MainWindow::replied);
        dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
        QTRY_VERIFY(answered(replies, "rtc.set") != 0);
        QCOMPARE(answered(replies, "rtc.set"), 1);
        const json clock = emu.call("rtc.get").result;
        QCOMPARE(clock.value("time", ""), std::string("2026-12-07T10:30:15"));
        QCOMPARE(clock.value("frozen", false), true);
        QCOMPARE(clock.value("weekday", -1), 1);
        // Frozen: an emulated second later it shows the same.
        QVERIFY(emu.call("step_frame", {{"n", 60}}).ok);
        QCOMPARE(emu.call("rtc.get").result.value("time", ""), std::string("2026-12-07T10:30:15"));
        QVERIFY(!dialog->isVisible());
        // A machine without slow RAM has no clock: the window says so instead.
        QVERIFY(emu.call("machine.memory", {{"slow", 0}}).ok);
        QCOMPARE(emu.call("rtc.get").result.value("present", true), false);
        QVERIFY(!emu.call("rtc.set", {{"time", "now"}}).ok);
        replies.clear();
        w.action("clockAction")->trigger();
        QTRY_VERIFY(answered(replies, "rtc.get") != 0);
        QTRY_VERIFY(w.statusBar()->currentMessage().contains("no clock"));
        QVERIFY(!dialog->isVisible());
    }

    void theRecordFromTheWindow() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (const char* name : {"back_step", "back_frame", "back_run", "now"})
            QVERIFY(w.action(name));
        QVERIFY(emu.call("step_frame", {{"n", 100}}).ok);
        const auto newest = emu.call("timeline.status").result["newest"];

        // < Frame: a frame back; the strip's marker and the status bar follow.
        QSignalSpy replies(&w, &MainWindow::replied);
        w.action("back_frame")->trigger();
        QTRY_VERIFY(answered(replies, "reverse_frame") != 0);
        QCOMPARE(answered(replies, "reverse_frame"), 1);
        QCOMPARE(emu.snapshot()->frame, 99ull);
        // The strip and the status bar poll; on a loaded machine that takes more than 5 s.
        QTRY_VERIFY_WITH_TIMEOUT(w.timeline()->here() < w.timeline()->newest(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains(QStringLiteral("s back")), 30000);
        // < Step from there.
        const auto before = emu.snapshot()->instructions;
        w.action("back_step")->trigger();
        QTRY_VERIFY(answered(replies, "reverse_step") != 0);
        QVERIFY(emu.snapshot()->instructions < before);

        // Pressing the strip near its start stands the machine near the record's start.
        auto* strip = w.timeline();
        QTRY_VERIFY(strip->newest() >= newest.value("cck", 0ull));
        mouse(strip, QEvent::MouseButtonPress,
              QPointF(strip->width() * 0.25, strip->height() / 2.0));
        QTRY_VERIFY(answered(replies, "timeline.seek") != 0);
        QCOMPARE(answered(replies, "timeline.seek"), 1);
        QVERIFY(emu.snapshot()->frame < 40);

        // Now: back to the newest point.
        w.action("now")->trigger();
        QTRY_COMPARE(emu.snapshot()->frame, 100ull);
        QTRY_COMPARE(emu.call("timeline.status").result.value("in_past", true), false);

        // A key on the display reaches the guest through input.key, logged in the record.
        w.display()->setFocus();
        QTest::keyPress(w.display(), Qt::Key_A);
        QTest::keyRelease(w.display(), Qt::Key_A);
        QTRY_COMPARE(emu.call("timeline.status").result.value("inputs", 0), 2);
    }
};

// The tests run on a 1024 x 768 screen, the smallest the window is made for: an offscreen
// platform (ctest's) is given one through its configuration file.
int main(int argc, char** argv) {
    QTemporaryDir config;
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen" && config.isValid()) {
        QFile f(config.filePath("screens.json"));
        if (f.open(QIODevice::WriteOnly)) {
            f.write(R"({"synchronousWindowSystemEvents": false, "windowFrameMargins": true,
                        "screens": [{"name": "Small", "x": 0, "y": 0, "width": 1024,
                                     "height": 768, "logicalDpi": 96, "logicalBaseDpi": 96,
                                     "dpr": 1}]})");
            f.close();
            qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + f.fileName().toLocal8Bit());
        }
    }
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestMainWindow tests;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tests, argc, argv);
}
#include "test_main_window.moc"
