// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The timeline strip under the display: the span the record of the past holds (oldest to
// newest, in emulated seconds) with a marker where the machine stands. Pressing or
// dragging on it asks to stand the machine there (the window sends timeline.seek).

#include <QWidget>
#include <cstdint>

namespace copperline {

class TimelineStrip : public QWidget {
    Q_OBJECT
public:
    explicit TimelineStrip(QWidget* parent = nullptr);

    // The span held and where the machine stands, in colour clocks.
    void setSpan(std::uint64_t oldestCck, std::uint64_t newestCck, std::uint64_t hereCck);
    std::uint64_t oldest() const { return oldest_; }
    std::uint64_t newest() const { return newest_; }
    std::uint64_t here() const { return here_; }
    // The colour clock under x (widget coordinates), clamped to the span.
    std::uint64_t cckAt(int x) const;
    // Where the marker for a colour clock lies.
    int xOf(std::uint64_t cck) const;

    QSize sizeHint() const override { return {400, 22}; }
    QSize minimumSizeHint() const override { return {100, 22}; }

signals:
    void scrubbed(std::uint64_t cck);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    std::uint64_t oldest_ = 0, newest_ = 0, here_ = 0;
};

} // namespace copperline
