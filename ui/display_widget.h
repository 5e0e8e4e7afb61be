// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The emulated display: the composed picture of the last committed frame (the same
// composeDisplay a headless screenshot writes), scaled to the widget with the PAL pixel
// aspect kept. By default it shows the part of the raster a monitor shows, framed as
// FS-UAE's full 752 x 572 view (docs/display.md); the View menu can show the whole raster,
// horizontal and vertical blanks included.

#include "emu/debug_overlay.h"
#include "profiler/capture/png.h"

#include <QImage>
#include <QWidget>
#include <memory>

namespace copperline {

class DisplayWidget : public QWidget {
    Q_OBJECT
public:
    // The picture has four pixels per colour clock (hires, 14.19 MHz) and two rows per
    // line (interlace). A PAL picture is square at 14.75 MHz (576 lines on a 4:3
    // screen), so each of our pixels is 14.75 / 14.1875 times as wide as it is tall.
    static constexpr double kPixelAspect = 14.75 / 14.1875;

    // The visible area, in composeDisplay's pixels: from colour clock $2E, where the
    // horizontal blank ends, 188 clocks across (past a 227-clock line's end the picture
    // is black, as FS-UAE's is); down from the first line past the vertical blank ($1A
    // PAL, $14 NTSC) to the last line of a short frame ($137 PAL, $105 NTSC).
    static constexpr int kVisibleLeft = 4 * 0x2E, kVisibleWidth = 4 * 188;
    static constexpr int kPalFirstLine = 0x1A, kPalLastLine = 0x137;
    static constexpr int kNtscFirstLine = 0x14, kNtscLastLine = 0x105;
    // The visible area of a picture this size (a PAL picture has more than 576 rows);
    // the whole picture when it is too small to hold one.
    static QRect visibleArea(int width, int height);

    explicit DisplayWidget(QWidget* parent = nullptr);

    // Shows a picture; the same pointer again costs nothing.
    void setPicture(std::shared_ptr<const Image> picture);
    // The guest's debug overlay, drawn over the picture while it is visible (the View
    // menu's toggle); the same pointer again costs nothing.
    void setOverlay(std::shared_ptr<const OverlayShapes> overlay);
    void setOverlayVisible(bool on);
    bool overlayVisible() const { return overlayVisible_; }
    // Off (the default): the visible area; on: the whole raster as composeDisplay drew
    // it, the blanks included.
    void setWholeRaster(bool on);
    bool wholeRaster() const { return wholeRaster_; }
    // What the widget shows, unscaled (for tests and the window's own screenshots).
    const QImage& image() const { return image_; }
    // Where image() lies in the picture, in composeDisplay's pixels (it may reach past the
    // picture's right edge, where it is black); empty without a picture.
    QRect shownArea() const { return shownArea_; }
    // Where the picture lands inside the widget.
    QRect targetRect() const;

    QSize sizeHint() const override;

    // Input capture: with the keyboard focus (a click gives it), keys go to the guest;
    // after a click the mouse is captured too, its moves and buttons going to the guest,
    // until F12 releases it. Moves go as host-pixel steps, whatever area shows.
    bool mouseCaptured() const { return captured_; }

signals:
    void keyChanged(int rawkey, bool down);
    void mouseMoved(int dx, int dy);
    // 0 left, 1 right, 2 middle.
    void mouseButton(int button, bool down);

protected:
    void paintEvent(QPaintEvent* event) override;
    void keyPressEvent(QKeyEvent* e) override;
    void keyReleaseEvent(QKeyEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void focusOutEvent(QFocusEvent* e) override;

private:
    // Rebuilds image_ from the picture, with the overlay drawn on a copy when it shows,
    // cut to the visible area unless the whole raster shows.
    void rebuild();

    void release();
    std::shared_ptr<const Image> picture_;
    std::shared_ptr<const OverlayShapes> overlay_;
    bool overlayVisible_ = true;
    bool wholeRaster_ = false;
    QRect shownArea_;
    Image composed_; // the picture with the overlay, while one is drawn
    QImage image_;
    bool captured_ = false;
    QPointF last_;
};

} // namespace copperline
