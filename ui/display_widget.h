#pragma once

// The emulated display: the composed picture of the last committed frame (the same
// composeDisplay a headless screenshot writes), scaled to the widget with the PAL pixel
// aspect kept.

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

    explicit DisplayWidget(QWidget* parent = nullptr);

    // Shows a picture; the same pointer again costs nothing.
    void setPicture(std::shared_ptr<const Image> picture);
    // The guest's debug overlay, drawn over the picture while it is visible (the View
    // menu's toggle); the same pointer again costs nothing.
    void setOverlay(std::shared_ptr<const OverlayShapes> overlay);
    void setOverlayVisible(bool on);
    bool overlayVisible() const { return overlayVisible_; }
    // What the widget shows, unscaled (for tests and the window's own screenshots).
    const QImage& image() const { return image_; }
    // Where the picture lands inside the widget.
    QRect targetRect() const;

    QSize sizeHint() const override;

    // Input capture: with the keyboard focus (a click gives it), keys go to the guest;
    // after a click the mouse is captured too, its moves and buttons going to the guest,
    // until F12 releases it.
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
    // Rebuilds image_ from the picture, with the overlay drawn on a copy when it shows.
    void rebuild();

    void release();
    std::shared_ptr<const Image> picture_;
    std::shared_ptr<const OverlayShapes> overlay_;
    bool overlayVisible_ = true;
    Image composed_; // the picture with the overlay, while one is drawn
    QImage image_;
    bool captured_ = false;
    QPointF last_;
};

} // namespace copperline
