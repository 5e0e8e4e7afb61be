// SPDX-License-Identifier: GPL-3.0-or-later
// The display widget's framing, offscreen. By default it shows the visible area of
// composeDisplay's picture, FS-UAE's 752 x 572 window from colour clock $2E and line $1A
// (PAL; NTSC from line $14): on hw_border_left's red border every edge of it is red, none
// of the horizontal blank's black band is left, and each pixel is the picture's at that
// offset. setWholeRaster(true) shows the whole picture, blanks included; the overlay and
// the mouse follow in both.

#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/overlay.h"
#include "profiler/capture/screenshot.h"
#include "ui/display_widget.h"

#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace copperline;

namespace {

constexpr std::uint32_t kRed = 0xFFFF0000u, kBlack = 0xFF000000u;

// hw_border_left after a few frames: DMA off, COLOR00 red.
Image redBorder(bool ntsc) {
    Machine::Config config;
    config.ntsc = ntsc;
    Machine m(config);
    m.bootBareMetal(readFileBytes(HW_BORDER_LEFT));
    for (int f = 0; f < 3; ++f)
        m.runFrame();
    return composeDisplay(m);
}

// A picture whose every pixel says where it is.
std::shared_ptr<Image> numbered(unsigned width, unsigned height) {
    auto img = std::make_shared<Image>();
    img->width = width;
    img->height = height;
    img->pixels.resize(std::size_t(width) * height);
    for (unsigned y = 0; y < height; ++y)
        for (unsigned x = 0; x < width; ++x)
            img->pixels[std::size_t(y) * width + x] = 0xFF000000u | (x << 10) | y;
    return img;
}

std::uint32_t at(const QImage& img, int x, int y) {
    return reinterpret_cast<const std::uint32_t*>(img.constScanLine(y))[x];
}

// How many pixels of `shown` differ from `picture` seen through `area` (black past the
// picture's right edge).
long differences(const QImage& shown, const Image& picture, QRect area) {
    long differ = 0;
    for (int y = 0; y < shown.height(); ++y)
        for (int x = 0; x < shown.width(); ++x) {
            const int px = area.left() + x, py = area.top() + y;
            const std::uint32_t want = px < int(picture.width) && py < int(picture.height)
                                           ? picture.at(unsigned(px), unsigned(py))
                                           : kBlack;
            differ += at(shown, x, y) != want;
        }
    return differ;
}

} // namespace

class TestDisplayWidget : public QObject {
    Q_OBJECT
private slots:
    void palShowsTheVisibleAreaByDefault() {
        const auto picture = std::make_shared<const Image>(redBorder(false));
        QCOMPARE(picture->width, 908u);
        QCOMPARE(picture->height, 626u);
        DisplayWidget d;
        QVERIFY(!d.wholeRaster());
        d.setPicture(picture);
        const QImage& shown = d.image();
        QCOMPARE(shown.size(), QSize(752, 572));
        QCOMPARE(d.shownArea(), QRect(4 * 0x2E, 2 * 0x1A, 752, 572));
        QCOMPARE(DisplayWidget::visibleArea(908, 626), d.shownArea());
        QCOMPARE(differences(shown, *picture, d.shownArea()), 0L);

        // The whole raster's first columns: CCK $00-$0E border, then the blank's black band.
        QCOMPARE(picture->at(4 * 0x05, 100), kRed);
        for (unsigned x = 4 * 0x0F; x < 4 * 0x2E; ++x)
            QCOMPARE(picture->at(x, 100), kBlack);
        // The visible area's edges are all border: no blank band left or above, no blank
        // line at the bottom.
        for (int y = 0; y < shown.height(); ++y)
            for (int x : {0, 1, 2, 3, 4 * 181 - 1})
                if (at(shown, x, y) != kRed)
                    QFAIL(qPrintable(QStringLiteral("not red at %1,%2").arg(x).arg(y)));
        for (int x = 0; x < 4 * 181; ++x) {
            QCOMPARE(at(shown, x, 0), kRed);
            QCOMPARE(at(shown, x, shown.height() - 1), kRed);
        }
        // Past the line's 227 clocks, black, as in FS-UAE's picture.
        for (int x = 4 * 181; x < shown.width(); ++x)
            QCOMPARE(at(shown, x, 300), kBlack);
        // The line above the area is still in the vertical blank.
        QCOMPARE(picture->at(4 * 0x80, 2 * 0x19), kBlack);
        QCOMPARE(picture->at(4 * 0x80, 2 * 0x1A), kRed);
    }

    void wholeRasterShowsEverything() {
        const auto picture = std::make_shared<const Image>(redBorder(false));
        DisplayWidget d;
        d.resize(900, 700);
        d.setPicture(picture);
        const QSize visibleHint = d.sizeHint();
        d.setWholeRaster(true);
        QVERIFY(d.wholeRaster());
        QCOMPARE(d.image().size(), QSize(908, 626));
        QCOMPARE(d.shownArea(), QRect(0, 0, 908, 626));
        QCOMPARE(differences(d.image(), *picture, d.shownArea()), 0L);
        QCOMPARE(at(d.image(), 4 * 0x20, 100), kBlack); // the blank band
        QCOMPARE(at(d.image(), 4 * 0x80, 0), kBlack);   // the vertical blank
        QVERIFY(d.sizeHint().width() > visibleHint.width());
        const QRect whole = d.targetRect();
        QVERIFY(std::abs(double(whole.width()) / whole.height() -
                         908 * DisplayWidget::kPixelAspect / 626) < 0.01);

        // A new picture keeps the mode; turning it off shows the visible area again.
        const auto next = std::make_shared<const Image>(*picture);
        d.setPicture(next);
        QCOMPARE(d.image().size(), QSize(908, 626));
        d.setWholeRaster(false);
        QCOMPARE(d.image().size(), QSize(752, 572));
        QCOMPARE(differences(d.image(), *next, d.shownArea()), 0L);
        const QRect visible = d.targetRect();
        QVERIFY(std::abs(double(visible.width()) / visible.height() -
                         752 * DisplayWidget::kPixelAspect / 572) < 0.01);
        QVERIFY(visible.contains(d.rect().center()));
    }

    void paintsTheShownArea() {
        // Painted: at a point a tenth of the way in, the whole raster shows the blank
        // band's black, the visible area the red border.
        const auto picture = std::make_shared<const Image>(redBorder(false));
        DisplayWidget d;
        d.resize(800, 600);
        d.setPicture(picture);
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        auto sample = [&] {
            const QImage painted = d.grab().toImage().convertToFormat(QImage::Format_RGB32);
            const QRect t = d.targetRect();
            const double dpr = painted.devicePixelRatio();
            return painted.pixel(int((t.left() + t.width() / 10) * dpr),
                                 int((t.top() + t.height() / 2) * dpr));
        };
        QCOMPARE(sample(), kRed);
        d.setWholeRaster(true);
        QCOMPARE(sample(), kBlack);
    }

    void ntscShowsItsOwnLines() {
        const auto picture = std::make_shared<const Image>(redBorder(true));
        QCOMPARE(picture->width, 912u);
        QCOMPARE(picture->height, 526u);
        DisplayWidget d;
        d.setPicture(picture);
        QCOMPARE(d.shownArea(), QRect(4 * 0x2E, 2 * 0x14, 752, 2 * (0x105 - 0x14 + 1)));
        QCOMPARE(d.image().size(), QSize(752, 484));
        QCOMPARE(differences(d.image(), *picture, d.shownArea()), 0L);
        // Its first line is past the vertical blank, the line before it is not.
        QCOMPARE(at(d.image(), 0, 0), kRed);
        QCOMPARE(at(d.image(), 4 * 0x50, d.image().height() - 1), kRed);
        QCOMPARE(picture->at(4 * 0x80, 2 * 0x13), kBlack);
        d.setWholeRaster(true);
        QCOMPARE(d.image().size(), QSize(912, 526));
    }

    void cropsMadeUpPictures() {
        // Every pixel from its own place: the area starts at (184, 52) and is black past
        // the picture's right edge.
        auto picture = numbered(908, 626);
        DisplayWidget d;
        d.setPicture(picture);
        QCOMPARE(at(d.image(), 0, 0), picture->at(184, 52));
        QCOMPARE(at(d.image(), 723, 571), picture->at(907, 623));
        QCOMPARE(at(d.image(), 724, 10), kBlack);
        QCOMPARE(differences(d.image(), *picture, d.shownArea()), 0L);
        // A picture too small for the area shows whole.
        d.setPicture(numbered(120, 80));
        QCOMPARE(d.shownArea(), QRect(0, 0, 120, 80));
        QCOMPARE(d.image().size(), QSize(120, 80));
        d.setPicture(nullptr);
        QVERIFY(d.image().isNull());
        QVERIFY(d.targetRect().isEmpty());
    }

    void overlayLandsInBothModes() {
        auto picture = std::make_shared<Image>();
        picture->width = 908;
        picture->height = 626;
        picture->pixels.assign(std::size_t(908) * 626, kBlack);
        DisplayWidget d;
        d.setPicture(picture);
        auto shapes = std::make_shared<OverlayShapes>();
        OverlayShape box;
        box.kind = OverlayShape::Kind::FilledRect;
        box.left = 10, box.top = 20, box.right = 12, box.bottom = 22;
        box.color = 0x00FF00;
        shapes->push_back(box);
        d.setOverlay(shapes);
        // In the picture at (x, y); the visible area starts where the overlay does.
        const int x = kOverlayOriginX + 11, y = kOverlayOriginY + 21;
        const QRect area = d.shownArea();
        QCOMPARE(area.topLeft(), QPoint(kOverlayOriginX, kOverlayOriginY));
        QCOMPARE(d.image().pixel(x - area.left(), y - area.top()), 0xFF00FF00u);
        d.setWholeRaster(true);
        QCOMPARE(d.image().pixel(x, y), 0xFF00FF00u);
        QCOMPARE(picture->pixels[std::size_t(y) * 908 + std::size_t(x)], kBlack);
    }

    void mouseMovesTheSameInBothModes() {
        DisplayWidget d;
        d.resize(800, 600);
        d.setPicture(numbered(908, 626));
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QSignalSpy moved(&d, &DisplayWidget::mouseMoved);
        QTest::mouseClick(&d, Qt::LeftButton, {}, QPoint(400, 300)); // captures
        QVERIFY(d.mouseCaptured());
        QTest::mouseMove(&d, QPoint(410, 305));
        d.setWholeRaster(true);
        QTest::mouseMove(&d, QPoint(420, 310));
        QCOMPARE(moved.size(), 2);
        for (const auto& m : moved) {
            QCOMPARE(m.at(0).toInt(), 10);
            QCOMPARE(m.at(1).toInt(), 5);
        }
    }
};

QTEST_MAIN(TestDisplayWidget)
#include "test_display_widget.moc"
