#include "ui/display_widget.h"

#include "profiler/capture/overlay.h"

#include <QPainter>

namespace copperline {

DisplayWidget::DisplayWidget(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMinimumSize(227, 156);
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
    } else {
        // The pixels are 0xFFRRGGBB, which is QImage's RGB32; wrapping them costs no copy,
        // and the snapshot (or composed_) keeps them alive and unchanged until the next
        // rebuild replaces image_.
        image_ = QImage(reinterpret_cast<const uchar*>(shown->pixels.data()), int(shown->width),
                        int(shown->height), int(shown->width * 4), QImage::Format_RGB32);
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
    return QSize(int(908 * kPixelAspect * 0.75), int(626 * 0.75));
}

void DisplayWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::black);
    if (image_.isNull()) return;
    // Sharp pixels: a debugger shows what the chips drew, not a filtered guess.
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(targetRect(), image_);
}

} // namespace copperline
