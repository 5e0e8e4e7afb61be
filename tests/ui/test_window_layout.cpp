// SPDX-License-Identifier: GPL-3.0-or-later
// The window's first look on a 1440 x 900 screen, under Xvfb (a real X server, the fonts
// this machine has): as the window opens (factory layout) on an AROS boot, it fits the
// screen, the display shows its whole visible area inside the window, and the Frame
// Analyzer's owner grid shows at least 150 lines of the frame at its default zoom. The
// window's own picture (QWidget::grab) is checked too: the grid is painted on those lines,
// and the picture of the display is there. The picture is kept in the test's temporary
// folder's parent when COPPERLINE_LAYOUT_SHOT names a file.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/rom.h"
#include "ui/display_widget.h"
#include "ui/frame_analyzer.h"
#include "ui/main_window.h"

#include <QAbstractScrollArea>
#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

using namespace copperline;

namespace {

std::unique_ptr<Machine> aros() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    return m;
}

Emulator::Options windowOptions() {
    Emulator::Options o;
    o.pictures = true;
    o.paced = false;
    o.startRunning = false;
    return o;
}

QString rectText(const QRect& r) {
    return QStringLiteral("%1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

} // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        // The test means the screen it is run on: xvfb-run -s "-screen 0 1440x900x24".
        QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
        QCOMPARE(QGuiApplication::primaryScreen()->size(), QSize(1440, 900));
    }

    void theDisplayAndMostOfAFrameShow() {
        Emulator emu(aros(), windowOptions());
        emu.start();
        // The "Waiting for bootable media" screen, with a frame of bitplane DMA to show.
        QVERIFY(emu.call("step_frame", {{"n", 2000}}).ok);
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(500); // the docks settle, the first frame's owners arrive

        const QRect room = w.screen()->availableGeometry();
        QVERIFY2(room.contains(w.frameGeometry()), qPrintable(rectText(w.frameGeometry()) + " on " + rectText(room)));

        // The display: its widget inside the window, the picture inside the widget, and
        // the picture the visible area whole.
        DisplayWidget* display = w.display();
        QVERIFY(display->isVisible());
        const QRect displayInWindow(display->mapTo(&w, QPoint(0, 0)), display->size());
        QVERIFY2(w.rect().contains(displayInWindow), qPrintable(rectText(displayInWindow)));
        QTRY_VERIFY(!display->image().isNull());
        const QRect target = display->targetRect();
        QVERIFY2(display->rect().contains(target), qPrintable(rectText(target) + " in " + rectText(display->rect())));
        const QImage& shown = display->image();
        QCOMPARE(display->shownArea().width(), DisplayWidget::kVisibleWidth);
        QVERIFY2(shown.height() >= 2 * (DisplayWidget::kPalLastLine - DisplayWidget::kPalFirstLine),
                 qPrintable(QString::number(shown.height())));
        // The display gets the room: at least half the picture's own size.
        QVERIFY2(target.width() >= DisplayWidget::kVisibleWidth / 2, qPrintable(rectText(target)));

        // The owner grid: at least 150 lines in view at the default zoom (a line is `zoom`
        // pixels tall), the Frame Analyzer in front.
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("analyzerDock"));
        QVERIFY(dock && dock->isVisible());
        FrameAnalyzer* analyzer = w.analyzer();
        auto* grid = analyzer->findChild<QAbstractScrollArea*>(QStringLiteral("analyzerGrid"));
        QVERIFY(grid);
        const int zoom = analyzer->zoom();
        QCOMPARE(zoom, 2); // the default
        const int lines = grid->viewport()->height() / zoom;
        QVERIFY2(lines >= 150, qPrintable(QStringLiteral("%1 lines of the grid in view").arg(lines)));
        const QRect gridInWindow(grid->viewport()->mapTo(&w, QPoint(0, 0)), grid->viewport()->size());
        QVERIFY2(w.rect().contains(gridInWindow), qPrintable(rectText(gridInWindow)));

        // The window's picture: every one of those 150 lines of the grid is painted (a
        // frame of AROS's display has bitplane DMA on its lines, in the legend's colours,
        // not the window's background), and the display shows more than black.
        const QImage picture = w.grab().toImage().convertToFormat(QImage::Format_RGB32);
        if (const QByteArray keep = qgetenv("COPPERLINE_LAYOUT_SHOT"); !keep.isEmpty()) picture.save(QString::fromLocal8Bit(keep));
        const double ratio = picture.width() / double(w.width());
        const QRgb background = w.palette().color(QPalette::Window).rgb();
        int paintedRows = 0;
        for (int y = 0; y < 150 * zoom; ++y) {
            const int py = int((gridInWindow.top() + y) * ratio);
            bool painted = false;
            for (int x = 0; x < gridInWindow.width() && !painted; ++x) {
                const QRgb c = picture.pixel(int((gridInWindow.left() + x) * ratio), py);
                painted = c != background;
            }
            paintedRows += painted;
        }
        QCOMPARE(paintedRows, 150 * zoom);
        const QRect targetInWindow(display->mapTo(&w, target.topLeft()), target.size());
        int lit = 0;
        for (int y = targetInWindow.top(); y < targetInWindow.bottom(); y += 3)
            for (int x = targetInWindow.left(); x < targetInWindow.right(); x += 3)
                lit += qGray(picture.pixel(int(x * ratio), int(y * ratio))) > 40;
        QVERIFY2(lit > 50, qPrintable(QString::number(lit)));
    }
};

QTEST_MAIN(TestWindowLayout)
#include "test_window_layout.moc"
