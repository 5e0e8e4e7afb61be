// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/display_widget.h"

#include "profiler/capture/overlay.h"

#include "ui/amiga_keys.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace copperline {

QRect DisplayWidget::visibleArea(int width, int height) {
    const bool pal = height > 2 * 288;
    const int first = pal ? kPalFirstLine : kNtscFirstLine;
    const int last = pal ? kPalLastLine : kNtscLastLine;
    const int top = 2 * first;
    const int rows = std::min(2 * (last - first + 1), height - top);
    if (width <= kVisibleLeft || rows <= 0) return QRect(0, 0, width, height);
    return QRect(kVisibleLeft, top, kVisibleWidth, rows);
}

DisplayWidget::DisplayWidget(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMinimumSize(227, 156);
    setFocusPolicy(Qt::ClickFocus);
}

void DisplayWidget::setPicture(std::shared_ptr<const Image> picture) {
    if (picture == picture_) return;
    picture_ = std::move(picture);
    rebuild();
}

void DisplayWidget::setOverlay(std::shared_ptr<const OverlayShapes> overlay) {
    if (overlay == overlay_) return;
    overlay_ = std::move(overlay);
    if (overlayVisible_) rebuild();
}

void DisplayWidget::setOverlayVisible(bool on) {
    if (on == overlayVisible_) return;
    overlayVisible_ = on;
    rebuild();
}

void DisplayWidget::setWholeRaster(bool on) {
    if (on == wholeRaster_) return;
    wholeRaster_ = on;
    rebuild();
    updateGeometry();
}

void DisplayWidget::rebuild() {
    const Image* shown = picture_.get();
    if (shown && !shown->pixels.empty() && overlayVisible_ && overlay_ && !overlay_->empty()) {
        composed_ = *shown;
        drawOverlay(composed_, *overlay_);
        shown = &composed_;
    } else {
        composed_ = Image{};
    }
    if (!shown || shown->pixels.empty()) {
        image_ = QImage();
        shownArea_ = QRect();
    } else if (wholeRaster_) {
        // The pixels are 0xFFRRGGBB, which is QImage's RGB32; wrapping them costs no copy,
        // and the snapshot (or composed_) keeps them alive and unchanged until the next
        // rebuild replaces image_.
        image_ = QImage(reinterpret_cast<const uchar*>(shown->pixels.data()), int(shown->width),
                        int(shown->height), int(shown->width * 4), QImage::Format_RGB32);
        shownArea_ = QRect(0, 0, int(shown->width), int(shown->height));
    } else {
        // A copy of the visible area, black where it reaches past the line's end.
        const int pw = int(shown->width), ph = int(shown->height);
        shownArea_ = visibleArea(pw, ph);
        // (A wrapped picture's image is read-only: writing to it copies it first.)
        if (image_.size() != shownArea_.size() || image_.format() != QImage::Format_RGB32)
            image_ = QImage(shownArea_.size(), QImage::Format_RGB32);
        const int left = shownArea_.left(), across = std::clamp(pw - left, 0, shownArea_.width());
        for (int y = 0; y < shownArea_.height(); ++y) {
            auto* out = reinterpret_cast<std::uint32_t*>(image_.scanLine(y));
            const std::uint32_t* in = shown->pixels.data() +
                                      std::size_t(shownArea_.top() + y) * shown->width + left;
            std::copy(in, in + across, out);
            std::fill(out + across, out + shownArea_.width(), 0xFF000000u);
        }
    }
    update();
}

QRect DisplayWidget::targetRect() const {
    if (image_.isNull()) return {};
    const double w = image_.width() * kPixelAspect, h = image_.height();
    const double scale = std::min(width() / w, height() / h);
    const int tw = int(w * scale), th = int(h * scale);
    return QRect((width() - tw) / 2, (height() - th) / 2, tw, th);
}

QSize DisplayWidget::sizeHint() const {
    // Three quarters of a PAL picture's size.
    const QSize full = wholeRaster_ ? QSize(908, 626) : visibleArea(908, 626).size();
    return QSize(int(full.width() * kPixelAspect * 0.75), int(full.height() * 0.75));
}

void DisplayWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::black);
    if (image_.isNull()) return;
    // Sharp pixels: a debugger shows what the chips drew, not a filtered guess.
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(targetRect(), image_);
}

// ---- input capture ------------------------------------------------------------------------

void DisplayWidget::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_F12) {
        release();
        return;
    }
    if (e->isAutoRepeat()) return; // the Amiga's keyboard repeats nothing; its OS does
    if (const auto code = amigaRawKey(e->key())) {
        emit keyChanged(*code, true);
        return;
    }
    QWidget::keyPressEvent(e);
}

void DisplayWidget::keyReleaseEvent(QKeyEvent* e) {
    if (e->isAutoRepeat()) return;
    if (const auto code = amigaRawKey(e->key())) {
        emit keyChanged(*code, false);
        return;
    }
    QWidget::keyReleaseEvent(e);
}

namespace {
int buttonIndex(Qt::MouseButton b) {
    return b == Qt::LeftButton ? 0 : b == Qt::RightButton ? 1 : b == Qt::MiddleButton ? 2 : -1;
}
} // namespace

void DisplayWidget::mousePressEvent(QMouseEvent* e) {
    if (!captured_) {
        // The first click only captures.
        captured_ = true;
        last_ = e->position();
        setMouseTracking(true);
        setCursor(Qt::BlankCursor);
        return;
    }
    if (const int b = buttonIndex(e->button()); b >= 0) emit mouseButton(b, true);
}

void DisplayWidget::mouseReleaseEvent(QMouseEvent* e) {
    if (!captured_) return;
    if (const int b = buttonIndex(e->button()); b >= 0) emit mouseButton(b, false);
}

void DisplayWidget::mouseMoveEvent(QMouseEvent* e) {
    if (!captured_) return;
    // One host pixel is one counter step; JOYxDAT's counters take at most 127 per read.
    const QPointF d = e->position() - last_;
    last_ = e->position();
    const int dx = std::clamp(int(d.x()), -127, 127), dy = std::clamp(int(d.y()), -127, 127);
    if (dx || dy) emit mouseMoved(dx, dy);
}

void DisplayWidget::focusOutEvent(QFocusEvent* e) {
    release();
    QWidget::focusOutEvent(e);
}

void DisplayWidget::release() {
    if (!captured_) return;
    captured_ = false;
    setMouseTracking(false);
    unsetCursor();
}

} // namespace copperline
