// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline_strip.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace copperline {

namespace {
constexpr int kMargin = 4;
}

TimelineStrip::TimelineStrip(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timelineStrip"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("The record of the past: press or drag to stand the machine there"));
}

void TimelineStrip::setSpan(std::uint64_t oldestCck, std::uint64_t newestCck,
                            std::uint64_t hereCck) {
    if (oldestCck == oldest_ && newestCck == newest_ && hereCck == here_) return;
    oldest_ = oldestCck;
    newest_ = std::max(newestCck, oldestCck);
    here_ = std::clamp(hereCck, oldest_, newest_);
    update();
}

std::uint64_t TimelineStrip::cckAt(int x) const {
    const int w = std::max(1, width() - 2 * kMargin);
    const double f = std::clamp(double(x - kMargin) / w, 0.0, 1.0);
    return oldest_ + std::uint64_t(f * double(newest_ - oldest_) + 0.5);
}

int TimelineStrip::xOf(std::uint64_t cck) const {
    const int w = std::max(1, width() - 2 * kMargin);
    const double span = double(newest_ - oldest_);
    const double f = span > 0 ? double(std::clamp(cck, oldest_, newest_) - oldest_) / span : 1.0;
    return kMargin + int(f * w + 0.5);
}

void TimelineStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QRect bar(kMargin, 5, width() - 2 * kMargin, height() - 10);
    p.fillRect(bar, QColor(0x50, 0x70, 0x90));
    // The stretch between here and the newest point: the future the record still holds.
    const int x = xOf(here_);
    p.fillRect(QRect(QPoint(x, bar.top()), bar.bottomRight()), QColor(0x90, 0xA8, 0xC0));
    p.setPen(QPen(QColor(0xE0, 0x40, 0x30), 3));
    p.drawLine(x, 1, x, height() - 2);
}

void TimelineStrip::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) emit scrubbed(cckAt(int(e->position().x())));
}

void TimelineStrip::mouseMoveEvent(QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) emit scrubbed(cckAt(int(e->position().x())));
}

} // namespace copperline
