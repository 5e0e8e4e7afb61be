// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/frame_analyzer.h"

#include "emu/chipset/custom_regs.h"

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace copperline {

namespace {

constexpr int kStripWidth = 48; // the per-line share strip, in pixels
constexpr int kStripGap = 6;
constexpr int kCellW = 2, kCellH = 1; // a colour clock's cell at zoom 1, in pixels
constexpr int kPreviewHeight = 72;    // a channel preview's height in the blit page
constexpr int kStallPcsShown = 32;    // the most stalled instructions listed
const char* const kStreams[5] = {"A", "B", "C", "D", "result"};
constexpr QRgb kWaitShare = qRgb(0xFF, 0x60, 0x30); // the gutter's bar in CPU-waits mode
constexpr QRgb kNotYet = qRgb(0x00, 0x00, 0x00);    // clocks of the frame in progress not run yet
constexpr QRgb kNoClock = qRgb(0x30, 0x30, 0x30);   // an NTSC short line's 228th column: no clock

QString hex(std::uint64_t v, int digits) {
    return QStringLiteral("$%1").arg(v, digits, 16, QLatin1Char('0')).toUpper();
}

// An axis label: a line or a clock in hex, at least two digits ($2C, $138).
QString axisHex(unsigned v) {
    return hex(v, 2);
}

// A field the commands give as a "0x..." string (profile.jsonl's convention), as a number.
std::uint32_t hexField(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return 0;
    return std::uint32_t(std::strtoul(it->get<std::string>().c_str(), nullptr, 16));
}

QString text(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

QString flagNames(std::uint16_t flags) {
    QStringList out;
    if (flags & slot_flag::Write)
        out << "write";
    else
        out << "read";
    if (flags & slot_flag::CpuWaited) out << "cpu-waited";
    return out.join('|');
}

QString eventNames(std::uint32_t events) {
    static const char* names[] = {"VB",  "VS",  "VDIW",  "LOF",   "LOL",  "HBS", "HBE",
                                  "HSS", "HSE", "HDIWS", "HDIWE", "DDFS", "DDFE"};
    QStringList out;
    for (unsigned b = 0; b < std::size(names); ++b)
        if (events & (1u << b)) out << names[b];
    return out.isEmpty() ? QStringLiteral("-") : out.join('|');
}

} // namespace

// A margin beside the grid: the line axis to its left, the clock axis above it, or the
// lines' share strip to its right. Each paints what the grid's scroll position shows.
class GridMargin : public QWidget {
public:
    enum class Kind { Lines, Clocks, Share };
    GridMargin(Kind kind, OwnerGridView& view, QWidget* parent)
        : QWidget(parent), kind_(kind), view_(view) {}

protected:
    void paintEvent(QPaintEvent*) override;

private:
    Kind kind_;
    OwnerGridView& view_;
};

// The grid itself, in cells of a whole number of pixels (the zoom), scrolled in its
// viewport, with the axes and the share strip in its margins.
class OwnerGridView : public QAbstractScrollArea {
public:
    explicit OwnerGridView(FrameAnalyzer& owner) : QAbstractScrollArea(&owner), a_(owner) {
        setObjectName(QStringLiteral("analyzerGrid"));
        setFrameShape(QFrame::NoFrame);
        setFocusPolicy(Qt::WheelFocus);
        viewport()->setMouseTracking(true);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
        // The axes in a fixed font a little smaller than the pane's.
        const QFont small = QFontDatabase::systemFont(QFontDatabase::SmallestReadableFont);
        QFont axisFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        if (font().pointSizeF() > 0)
            axisFont.setPointSizeF(std::max(small.pointSizeF(), font().pointSizeF() * 0.85));
        lines_ = new GridMargin(GridMargin::Kind::Lines, *this, this);
        clocks_ = new GridMargin(GridMargin::Kind::Clocks, *this, this);
        share_ = new GridMargin(GridMargin::Kind::Share, *this, this);
        lines_->setObjectName(QStringLiteral("lineAxis"));
        clocks_->setObjectName(QStringLiteral("clockAxis"));
        for (QWidget* m : {static_cast<QWidget*>(lines_), static_cast<QWidget*>(clocks_)})
            m->setFont(axisFont);
        const QFontMetrics fm(axisFont);
        lineAxisWidth_ = fm.horizontalAdvance(QStringLiteral("$138")) + kTick + 6;
        clockAxisHeight_ = fm.height() + kTick + 3;
        setViewportMargins(lineAxisWidth_, clockAxisHeight_, kStripGap + kStripWidth, 0);
        setMinimumSize(lineAxisWidth_ + 227 + kStripGap + kStripWidth, 120);
    }

    QSize sizeHint() const override {
        // The grid at one pixel per line; the zoom scrolls within it.
        return QSize(lineAxisWidth_ + 227 * kCellW + kStripGap + kStripWidth +
                         verticalScrollBar()->sizeHint().width(),
                     clockAxisHeight_ + 313 * kCellH);
    }

    int zoom() const { return zoom_; }
    QSize cell() const { return QSize(kCellW * zoom_, kCellH * zoom_); }
    int columns() const { return a_.band_.isNull() ? 0 : a_.band_.width(); }
    int rows() const { return a_.band_.isNull() ? 0 : a_.band_.height(); }
    QWidget* lineAxis() const { return lines_; }
    QWidget* clockAxis() const { return clocks_; }

    // Zooms, keeping the grid point under `anchor` (viewport pixels) where it is.
    void setZoom(int zoom, QPointF anchor) {
        zoom = std::clamp(zoom, FrameAnalyzer::kMinZoom, FrameAnalyzer::kMaxZoom);
        if (zoom == zoom_) return;
        const double gx = (anchor.x() + horizontalScrollBar()->value()) / cell().width(),
                     gy = (anchor.y() + verticalScrollBar()->value()) / cell().height();
        zoom_ = zoom;
        layoutGrid();
        horizontalScrollBar()->setValue(int(std::lround(gx * cell().width() - anchor.x())));
        verticalScrollBar()->setValue(int(std::lround(gy * cell().height() - anchor.y())));
        rehover();
        updateAll();
        a_.zoomChanged();
    }

    // Moves the view by whole rows (the strip grew or shrank above what it shows).
    void scrollBy(int rows) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() + rows * cell().height());
    }

    // Puts a cell at the viewport's top left (as near as the scroll range allows).
    void scrollToCell(unsigned v, unsigned h) {
        horizontalScrollBar()->setValue(int(h) * cell().width());
        verticalScrollBar()->setValue(int(v) * cell().height());
    }

    bool cellAt(QPointF p, int& v, int& h) const {
        if (a_.band_.isNull() || p.x() < 0 || p.y() < 0) return false;
        h = int((p.x() + horizontalScrollBar()->value()) / cell().width());
        v = int((p.y() + verticalScrollBar()->value()) / cell().height());
        return h < columns() && v < rows();
    }

    QPointF centre(unsigned v, unsigned h) const {
        return QPointF((h + 0.5) * cell().width() - horizontalScrollBar()->value(),
                       (v + 0.5) * cell().height() - verticalScrollBar()->value());
    }

    // Labels every few lines or clocks, as far apart as a label needs.
    int labelStep(Qt::Orientation o) const {
        const bool across = o == Qt::Horizontal;
        const QFontMetrics fm = (across ? clocks_ : lines_)->fontMetrics();
        const int need = across ? fm.horizontalAdvance(QStringLiteral("$E0")) + 8 : fm.height() + 2;
        const int size = across ? cell().width() : cell().height();
        int step = 1;
        while (step * size < need && step < 256)
            step *= 2;
        return step;
    }

    std::vector<FrameAnalyzer::AxisLabel> labels(Qt::Orientation o) const {
        std::vector<FrameAnalyzer::AxisLabel> out;
        const bool across = o == Qt::Horizontal;
        const int n = across ? columns() : rows();
        if (n == 0) return out;
        const int size = across ? cell().width() : cell().height();
        const int scroll = across ? horizontalScrollBar()->value() : verticalScrollBar()->value();
        const int extent = across ? viewport()->width() : viewport()->height();
        const int step = labelStep(o);
        const int first = scroll / size, last = std::min(n - 1, (scroll + extent - 1) / size);
        for (int i = first; i <= last; ++i) {
            // Across: the clock; down: the line within its frame (each frame from $00).
            const unsigned value = across ? unsigned(i) : lineOf(i);
            if (value % unsigned(step) == 0)
                out.push_back({i * size + size / 2 - scroll, value, axisHex(value)});
        }
        return out;
    }

    // The line within its frame that a strip row shows.
    unsigned lineOf(int row) const {
        const FrameAnalyzer::Part* part = a_.partAt(row);
        return part ? unsigned(row - part->firstRow) : unsigned(row);
    }

    // After a new picture: the scroll range, the height, the axes and the hovered cell.
    void gridChanged() {
        layoutGrid();
        rehover();
        updateAll();
    }

    void paintMargin(GridMargin::Kind kind, QWidget& w) {
        QPainter p(&w);
        const QPalette& pal = w.palette();
        p.fillRect(w.rect(), pal.window());
        if (a_.band_.isNull()) return;
        const int sx = horizontalScrollBar()->value(), sy = verticalScrollBar()->value();
        const int cw = cell().width(), ch = cell().height();
        const QColor mark = pal.color(QPalette::Highlight);
        if (kind == GridMargin::Kind::Share) {
            const int r0 = sy / ch, r1 = std::min(rows(), (sy + w.height()) / ch + 1);
            if (r1 > r0)
                p.drawImage(QRectF(0, r0 * ch - sy, kStripWidth, (r1 - r0) * ch), a_.strip_,
                            QRectF(0, r0, kStripWidth, r1 - r0));
            if (a_.hoverV_ >= 0) {
                p.setPen(QPen(QColor(255, 255, 255, 120), 0));
                p.drawRect(QRectF(0, a_.hoverV_ * ch - sy, kStripWidth - 1, ch));
            }
            return;
        }
        const bool across = kind == GridMargin::Kind::Clocks;
        const Qt::Orientation o = across ? Qt::Horizontal : Qt::Vertical;
        const int size = across ? cw : ch;
        const int scroll = across ? sx : sy;
        const int extent = across ? w.width() : w.height();
        // The hovered line or clock, marked on its axis.
        const int hovered = across ? a_.hoverH_ : a_.hoverV_;
        if (hovered >= 0) {
            const int at = hovered * size - scroll;
            p.fillRect(across ? QRect(at, 0, std::max(1, size), w.height())
                              : QRect(0, at, w.width(), std::max(1, size)),
                       mark);
        }
        p.setPen(pal.color(QPalette::WindowText));
        // Short ticks at every second label step's half, long ones at the labels.
        const int step = labelStep(o);
        const int minor = std::max(1, step / 2);
        const int n = across ? columns() : rows();
        const int first = scroll / size, last = std::min(n - 1, (scroll + extent) / size);
        for (int i = first; i <= last; ++i) {
            const unsigned value = across ? unsigned(i) : lineOf(i);
            if (value % unsigned(minor) != 0) continue;
            const int at = i * size + size / 2 - scroll;
            const int len = value % unsigned(step) == 0 ? kTick : kTick / 2;
            if (across)
                p.drawLine(at, w.height() - len, at, w.height() - 1);
            else
                p.drawLine(w.width() - len, at, w.width() - 1, at);
        }
        // Each label centred on its tick, but kept whole at the axis's ends.
        const QFontMetrics fm = w.fontMetrics();
        for (const FrameAnalyzer::AxisLabel& l : labels(o)) {
            if (across) {
                const int tw = fm.horizontalAdvance(l.text) + 2;
                const int x = std::clamp(l.at - tw / 2, 0, std::max(0, w.width() - tw));
                p.drawText(QRect(x, 0, tw, w.height() - kTick), Qt::AlignCenter, l.text);
            } else {
                const int th = fm.height();
                const int y = std::clamp(l.at - th / 2, 0, std::max(0, w.height() - th));
                p.drawText(QRect(0, y, w.width() - kTick - 2, th),
                           Qt::AlignRight | Qt::AlignVCenter, l.text);
            }
        }
        p.setPen(pal.color(QPalette::Mid));
        if (across)
            p.drawLine(0, w.height() - 1, w.width(), w.height() - 1);
        else
            p.drawLine(w.width() - 1, 0, w.width() - 1, w.height());
        // Where each frame begins, on the line axis as across the grid.
        if (!across) {
            p.setPen(QPen(mark, 2));
            for (const FrameAnalyzer::Part& part : a_.parts_)
                if (part.firstRow > 0) p.drawLine(0, part.firstRow * ch - sy, w.width(), part.firstRow * ch - sy);
        }
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(viewport());
        p.fillRect(viewport()->rect(), palette().window());
        if (a_.band_.isNull()) {
            p.drawText(viewport()->rect(), Qt::AlignCenter, FrameAnalyzer::tr("No frame yet"));
            return;
        }
        const int sx = horizontalScrollBar()->value(), sy = verticalScrollBar()->value();
        const int cw = cell().width(), ch = cell().height();
        // Only the cells in view, each a block of whole pixels.
        const int c0 = sx / cw, r0 = sy / ch;
        const int c1 = std::min(columns(), (sx + viewport()->width()) / cw + 1),
                  r1 = std::min(rows(), (sy + viewport()->height()) / ch + 1);
        p.setRenderHint(QPainter::SmoothPixmapTransform, false);
        if (c1 > c0 && r1 > r0)
            p.drawImage(QRect(c0 * cw - sx, r0 * ch - sy, (c1 - c0) * cw, (r1 - r0) * ch),
                        a_.band_, QRect(c0, r0, c1 - c0, r1 - r0));
        // The selected blit, whole: every blitter clock from its start to its end, across
        // a frame boundary when it spans one, with its first and last clocks framed.
        if (a_.spanShown_) {
            const FrameAnalyzer::Span& sp = a_.span_;
            const QColor lit(255, 255, 255, 140);
            for (int r = std::max(r0, sp.row0); r < r1 && r <= sp.row1; ++r) {
                const int h0 = r == sp.row0 ? sp.h0 : 0;
                const int h1 = r == sp.row1 ? sp.h1 : columns() - 1;
                const std::uint8_t* row = a_.bandOwners_.data() + std::size_t(r) * OwnerGrid::kStride;
                for (int h = std::max(h0, c0); h <= h1 && h < c1; ++h)
                    if (BusOwner(row[h]) == BusOwner::Blitter)
                        p.fillRect(QRect(h * cw - sx, r * ch - sy, cw, ch), lit);
            }
            p.setPen(QPen(Qt::white, 1.5));
            p.drawRect(QRectF(sp.h0 * cw - sx - 1, sp.row0 * ch - sy - 1, cw + 2, ch + 2));
            p.drawRect(QRectF(sp.h1 * cw - sx - 1, sp.row1 * ch - sy - 1, cw + 2, ch + 2));
        }
        // Frame boundaries, and the beam in the frame in progress.
        p.setPen(QPen(palette().color(QPalette::Highlight), 2));
        for (const FrameAnalyzer::Part& part : a_.parts_)
            if (part.firstRow > 0)
                p.drawLine(-sx, part.firstRow * ch - sy, columns() * cw - sx, part.firstRow * ch - sy);
        if (const OwnerGrid* g = a_.progress_.get(); g && !a_.parts_.empty()) {
            const int r = a_.parts_.back().firstRow + int(g->beamVpos);
            p.setPen(QPen(Qt::white, 1));
            p.drawRect(QRectF(int(g->beamHpos) * cw - sx, r * ch - sy, cw, ch));
        }
        if (a_.hoverV_ >= 0) {
            p.setPen(QPen(QColor(255, 255, 255, 120), 0));
            p.drawRect(QRectF(-sx, a_.hoverV_ * ch - sy, columns() * cw, ch));
        }
        if (a_.selectedV_ >= 0) {
            p.setPen(QPen(Qt::white, 1.5));
            p.drawRect(QRectF(a_.selectedH_ * cw - sx - 1, a_.selectedV_ * ch - sy - 1, cw + 2,
                              ch + 2));
        }
    }
    void resizeEvent(QResizeEvent*) override { layoutGrid(); }
    void scrollContentsBy(int, int) override {
        rehover();
        updateAll();
    }
    bool viewportEvent(QEvent* e) override {
        if (e->type() == QEvent::Leave) {
            inside_ = false;
            a_.hover(-1, -1);
        }
        return QAbstractScrollArea::viewportEvent(e);
    }
    void mouseMoveEvent(QMouseEvent* e) override {
        inside_ = true;
        mouse_ = e->position();
        rehover();
    }
    void mousePressEvent(QMouseEvent* e) override {
        int v = -1, h = -1;
        if (e->button() == Qt::LeftButton && cellAt(e->position(), v, h))
            a_.selectRow(v, unsigned(h));
    }
    void wheelEvent(QWheelEvent* e) override {
        if (!(e->modifiers() & Qt::ControlModifier)) {
            QAbstractScrollArea::wheelEvent(e);
            return;
        }
        // Ctrl+wheel zooms about the pointer, a step a notch.
        wheel_ += e->angleDelta().y();
        int zoom = zoom_;
        for (; wheel_ >= 120; wheel_ -= 120)
            ++zoom;
        for (; wheel_ <= -120; wheel_ += 120)
            --zoom;
        setZoom(zoom, e->position());
        e->accept();
    }
    void keyPressEvent(QKeyEvent* e) override {
        const QPointF middle(viewport()->width() / 2.0, viewport()->height() / 2.0);
        if (e->key() == Qt::Key_Plus || e->key() == Qt::Key_Equal)
            setZoom(zoom_ + 1, middle);
        else if (e->key() == Qt::Key_Minus)
            setZoom(zoom_ - 1, middle);
        else
            QAbstractScrollArea::keyPressEvent(e);
    }

private:
    static constexpr int kTick = 5;

    // The scroll ranges, the margins' places, and a height no taller than the grid, so
    // that the legend sits right under it.
    void layoutGrid() {
        const int gw = columns() * cell().width(), gh = rows() * cell().height();
        const QSize vp = viewport()->size();
        horizontalScrollBar()->setRange(0, std::max(0, gw - vp.width()));
        horizontalScrollBar()->setPageStep(std::max(1, vp.width()));
        horizontalScrollBar()->setSingleStep(cell().width() * 4);
        verticalScrollBar()->setRange(0, std::max(0, gh - vp.height()));
        verticalScrollBar()->setPageStep(std::max(1, vp.height()));
        verticalScrollBar()->setSingleStep(cell().height() * 4);
        const QRect g = viewport()->geometry();
        lines_->setGeometry(g.left() - lineAxisWidth_, g.top(), lineAxisWidth_, g.height());
        clocks_->setGeometry(g.left(), g.top() - clockAxisHeight_, g.width(), clockAxisHeight_);
        share_->setGeometry(g.right() + 1 + kStripGap, g.top(), kStripWidth, g.height());
        int most = QWIDGETSIZE_MAX;
        if (gh > 0) {
            const int across = width() - lineAxisWidth_ - kStripGap - kStripWidth;
            most = clockAxisHeight_ + gh +
                   (gw > across ? horizontalScrollBar()->sizeHint().height() : 0);
            most = std::max(most, minimumHeight());
        }
        if (maximumHeight() != most) setMaximumHeight(most);
    }

    // What is under the pointer after the grid moved beneath it.
    void rehover() {
        int v = -1, h = -1;
        if (!inside_ || !cellAt(mouse_, v, h)) v = h = -1;
        a_.hover(v, h);
    }

    void updateAll() {
        viewport()->update();
        lines_->update();
        clocks_->update();
        share_->update();
    }

    FrameAnalyzer& a_;
    GridMargin* lines_ = nullptr;
    GridMargin* clocks_ = nullptr;
    GridMargin* share_ = nullptr;
    int lineAxisWidth_ = 0, clockAxisHeight_ = 0;
    int zoom_ = FrameAnalyzer::kDefaultZoom;
    int wheel_ = 0;
    bool inside_ = false;
    QPointF mouse_;
};

void GridMargin::paintEvent(QPaintEvent*) {
    view_.paintMargin(kind_, *this);
}

// The owners' colours, names and clock counts for the frame.
class OwnerLegend : public QWidget {
public:
    explicit OwnerLegend(FrameAnalyzer& owner) : QWidget(&owner), a_(owner) {
        QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        policy.setHeightForWidth(true);
        setSizePolicy(policy);
    }
    QSize sizeHint() const override {
        return QSize(5 * kItemWidth, heightForWidth(5 * kItemWidth));
    }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int w) const override {
        const int perRow = std::max(1, w / kItemWidth);
        return int((kBusOwnerCount + unsigned(perRow) - 1) / unsigned(perRow)) * rowHeight() + 4;
    }

protected:
    // Rows follow the width: a narrow dock wraps the legend instead of cutting it off.
    void resizeEvent(QResizeEvent*) override {
        const int h = heightForWidth(width());
        if (h != height()) setFixedHeight(h);
    }
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const int perRow = std::max(1, width() / kItemWidth);
        const int rh = rowHeight();
        for (unsigned o = 0; o < kBusOwnerCount; ++o) {
            const int x = int(o % unsigned(perRow)) * kItemWidth,
                      y = int(o / unsigned(perRow)) * rh + 2;
            p.fillRect(QRect(x + 2, y + 2, rh - 4, rh - 4),
                       QColor(FrameAnalyzer::ownerColour(BusOwner(o))));
            p.setPen(palette().color(QPalette::WindowText));
            p.drawRect(QRect(x + 2, y + 2, rh - 4, rh - 4));
            QString text = QString::fromLatin1(busOwnerName(BusOwner(o)));
            if (const OwnerGrid* g = a_.grid()) text += QStringLiteral(" %1").arg(g->counts[o]);
            p.drawText(QRect(x + rh + 2, y, kItemWidth - rh - 4, rh),
                       Qt::AlignVCenter | Qt::AlignLeft, text);
        }
    }

private:
    static constexpr int kItemWidth = 120;
    int rowHeight() const { return fontMetrics().height() + 4; }
    FrameAnalyzer& a_;
};

FrameAnalyzer::FrameAnalyzer(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    modeBox_ = new QComboBox(this);
    modeBox_->setObjectName(QStringLiteral("analyzerMode"));
    modeBox_->addItem(tr("Bus owners"));
    modeBox_->addItem(tr("CPU waits"));
    connect(modeBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setMode(i == 1 ? Mode::CpuWaits : Mode::Owners); });
    view_ = new OwnerGridView(*this);
    legend_ = new OwnerLegend(*this);
    legend_->setObjectName(QStringLiteral("analyzerLegend"));
    readout_ = new QLabel(this);
    readout_->setObjectName(QStringLiteral("analyzerReadout"));
    readout_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readout_->setWordWrap(true);
    readout_->setMinimumHeight(3 * readout_->fontMetrics().height());
    readout_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    readout_->setText(hint());

    // The zoom: out, the factor, in (Ctrl+wheel and + and - over the grid do the same).
    zoomOut_ = new QToolButton(this);
    zoomOut_->setObjectName(QStringLiteral("analyzerZoomOut"));
    zoomOut_->setText(QStringLiteral("\u2212"));
    zoomOut_->setToolTip(tr("Zoom out (-, Ctrl+wheel)"));
    zoomOut_->setAutoRaise(true);
    zoomIn_ = new QToolButton(this);
    zoomIn_->setObjectName(QStringLiteral("analyzerZoomIn"));
    zoomIn_->setText(QStringLiteral("+"));
    zoomIn_->setToolTip(tr("Zoom in (+, Ctrl+wheel)"));
    zoomIn_->setAutoRaise(true);
    zoomBox_ = new QComboBox(this);
    zoomBox_->setObjectName(QStringLiteral("analyzerZoom"));
    zoomBox_->setToolTip(tr("A colour clock's cell: 2 x 1 pixels times this"));
    for (int z = kMinZoom; z <= kMaxZoom; ++z)
        zoomBox_->addItem(QStringLiteral("%1x").arg(z), z);
    connect(zoomBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setZoom(zoomBox_->itemData(i).toInt()); });
    connect(zoomOut_, &QToolButton::clicked, this, [this] { setZoom(zoom() - 1); });
    connect(zoomIn_, &QToolButton::clicked, this, [this] { setZoom(zoom() + 1); });
    zoomChanged();

    // The blits page: the list, what the selected one is, and its channels' previews.
    auto* blitPage = new QWidget(this);
    blits_ = new QTreeWidget(blitPage);
    blits_->setObjectName(QStringLiteral("blitList"));
    blits_->setRootIsDecorated(false);
    blits_->setUniformRowHeights(true);
    blits_->setHeaderLabels({tr("ID"), tr("Size"), tr("Channels"), tr("Minterm"), tr("Formula"),
                             tr("Used"), tr("Stalled"), tr("Start"), tr("Started by")});
    blits_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(blits_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item) requestPreviews(item->data(0, Qt::UserRole).toUInt());
    });
    blitInfo_ = new QLabel(blitPage);
    blitInfo_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    blitInfo_->setWordWrap(true);
    blitInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* previewRow = new QHBoxLayout;
    for (unsigned s = 0; s < 5; ++s) {
        auto* column = new QVBoxLayout;
        auto* caption = new QLabel(QString::fromLatin1(kStreams[s]), blitPage);
        caption->setAlignment(Qt::AlignCenter);
        previewLabels_[s] = new QLabel(blitPage);
        previewLabels_[s]->setObjectName(
            QStringLiteral("preview_%1").arg(QLatin1String(kStreams[s])));
        previewLabels_[s]->setMinimumSize(48, kPreviewHeight);
        previewLabels_[s]->setAlignment(Qt::AlignCenter);
        previewLabels_[s]->setFrameShape(QFrame::StyledPanel);
        column->addWidget(caption);
        column->addWidget(previewLabels_[s], 1);
        previewRow->addLayout(column);
    }
    auto* blitLayout = new QVBoxLayout(blitPage);
    blitLayout->setContentsMargins(0, 0, 0, 0);
    // A few rows of the list, and the rest for the selected blit and its pictures.
    blits_->setMaximumHeight(5 * blits_->fontMetrics().height() + 8);
    blitLayout->addWidget(blits_);
    blitLayout->addLayout(previewRow, 1);
    blitLayout->addWidget(blitInfo_);

    // The waits page: the counters and the most stalled instructions.
    auto* waitPage = new QWidget(this);
    counters_ = new QLabel(waitPage);
    counters_->setObjectName(QStringLiteral("waitCounters"));
    counters_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    counters_->setWordWrap(true);
    counters_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stalls_ = new QTreeWidget(waitPage);
    stalls_->setObjectName(QStringLiteral("stallList"));
    stalls_->setRootIsDecorated(false);
    stalls_->setUniformRowHeights(true);
    stalls_->setHeaderLabels({tr("Most stalled PCs"), tr("Wait CCK"), tr("Waits"), tr("Share")});
    stalls_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    stalls_->setToolTip(tr("Click an instruction to show it in the disassembly"));
    connect(stalls_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        emit pcActivated(item->data(0, Qt::UserRole).toUInt());
    });
    connect(stalls_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        emit pcActivated(item->data(0, Qt::UserRole).toUInt());
    });
    auto* waitLayout = new QVBoxLayout(waitPage);
    waitLayout->setContentsMargins(0, 0, 0, 0);
    waitLayout->addWidget(counters_);
    waitLayout->addWidget(stalls_, 1);

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("analyzerTabs"));
    // In scroll areas, so that the pages never make the dock (and the window) taller.
    for (auto [page, title] : {std::pair{blitPage, tr("Blits")}, std::pair{waitPage, tr("CPU waits")}}) {
        auto* scroll = new QScrollArea(tabs_);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(page);
        tabs_->addTab(scroll, title);
    }
    // What the grid paints, beside the pages' tabs.
    modeBox_->setToolTip(tr("What the grid shows: each clock's bus owner, or each clock the CPU was denied"));
    tabs_->setCornerWidget(modeBox_, Qt::TopRightCorner);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto* zoomRow = new QHBoxLayout;
    zoomRow->setContentsMargins(0, 0, 0, 0);
    zoomRow->setSpacing(2);
    zoomRow->addWidget(new QLabel(tr("Zoom"), top));
    zoomRow->addWidget(zoomOut_);
    zoomRow->addWidget(zoomBox_);
    zoomRow->addWidget(zoomIn_);
    zoomRow->addStretch(1);
    topLayout->addLayout(zoomRow);
    // The grid is never taller than its cells, so the legend follows it without a gap;
    // what room is left goes below the readout.
    topLayout->addWidget(view_, 1);
    topLayout->addWidget(legend_);
    topLayout->addWidget(readout_);
    topLayout->addStretch(0);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(tabs_);
    // The grid first: the pages below are a drag of the splitter (or the tabs) away.
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({600, 200});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
    if (!send_) tabs_->setEnabled(false);
}

FrameAnalyzer::~FrameAnalyzer() = default;

QRgb FrameAnalyzer::ownerColour(BusOwner owner) {
    switch (owner) {
    case BusOwner::Idle: return qRgb(0x20, 0x20, 0x24);
    case BusOwner::Refresh: return qRgb(0x80, 0x80, 0x80);
    case BusOwner::Disk: return qRgb(0xA0, 0x52, 0x2D);
    case BusOwner::Audio: return qRgb(0x2E, 0xA0, 0x57);
    case BusOwner::Sprite: return qRgb(0xFF, 0x69, 0xB4);
    case BusOwner::Bitplane: return qRgb(0x1E, 0x78, 0xFF);
    case BusOwner::Copper: return qRgb(0xFF, 0xD7, 0x00);
    case BusOwner::Blitter: return qRgb(0xFF, 0x45, 0x00);
    case BusOwner::Cpu: return qRgb(0x9A, 0xF0, 0x40);
    }
    return qRgb(0xFF, 0x00, 0xFF);
}

QRgb FrameAnalyzer::notDeniedColour() {
    return qRgb(0x14, 0x14, 0x18);
}

void FrameAnalyzer::setGrid(std::shared_ptr<const OwnerGrid> grid) {
    setFrames(nullptr, std::move(grid), nullptr);
}

void FrameAnalyzer::setFrames(std::shared_ptr<const OwnerGrid> previous,
                              std::shared_ptr<const OwnerGrid> grid,
                              std::shared_ptr<const OwnerGrid> progress) {
    // Neighbours only beside a committed frame, and only the ones next to it.
    // (Of the same line length: the strip is one image.)
    if (!grid || (previous && (previous->frame + 1 != grid->frame || previous->lineCck != grid->lineCck)))
        previous = nullptr;
    if (!grid || (progress && (progress->frame != grid->frame + 1 || progress->lineCck != grid->lineCck)))
        progress = nullptr;
    if (grid == grid_ && previous == previous_ && progress == progress_) return;
    const bool newFrame = grid != grid_;
    const int oldCommittedRow = committedRow_;
    grid_ = std::move(grid);
    previous_ = std::move(previous);
    progress_ = std::move(progress);
    if (!progress_) progressBlits_ = nlohmann::json::array();
    parts_.clear();
    int row = 0;
    for (const OwnerGrid* g : {previous_.get(), grid_.get(), progress_.get()}) {
        if (!g || g->lines == 0) continue;
        if (g == grid_.get()) committedRow_ = row;
        parts_.push_back({g, row});
        row += int(g->lines);
    }
    if (!grid_ || grid_->lines == 0) committedRow_ = 0;
    // The rows that were shown stay where they were when the frame before appears or goes.
    const int moved = committedRow_ - oldCommittedRow;
    // The hovered and selected clocks keep their frame's place (a new frame: its own).
    if (newFrame) {
        if (selectedV_ >= 0) selectedV_ = std::max(0, selectedV_ + moved);
    } else if (selectedV_ >= 0) {
        selectedV_ += moved;
    }
    rebuildImage();
    if (moved) view_->scrollBy(moved);
    if (newFrame) requestDetails();
    requestNeighbours();
    updateSpan();
}

const FrameAnalyzer::Part* FrameAnalyzer::partAt(int row) const {
    for (auto it = parts_.rbegin(); it != parts_.rend(); ++it)
        if (row >= it->firstRow) return row < it->firstRow + int(it->grid->lines) ? &*it : nullptr;
    return nullptr;
}

int FrameAnalyzer::rowOf(std::uint64_t frame, unsigned vpos, bool& found) const {
    found = false;
    for (const Part& part : parts_)
        if (part.grid->frame == frame) {
            found = true;
            return part.firstRow + int(std::min(vpos, part.grid->lines - 1));
        }
    return 0;
}

bool FrameAnalyzer::frameLineAt(int row, std::uint64_t& frame, unsigned& vpos) const {
    const Part* part = partAt(row);
    if (!part) return false;
    frame = part->grid->frame;
    vpos = unsigned(row - part->firstRow);
    return true;
}

bool FrameAnalyzer::blitSpan(Span& span) const {
    if (!spanShown_) return false;
    span = span_;
    return true;
}

void FrameAnalyzer::setMode(Mode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    modeBox_->setCurrentIndex(mode == Mode::CpuWaits ? 1 : 0);
    if (mode == Mode::CpuWaits) tabs_->setCurrentIndex(1);
    rebuildImage();
    requestNeighbours();
}

namespace {

// frame.waits's reply as the strip paints it.
void readWaits(const nlohmann::json& r, std::vector<std::uint8_t>& deniers, std::vector<unsigned>& lines,
               unsigned& lineCck) {
    lineCck = r.value("line_cck", 0u);
    const QByteArray raw =
        QByteArray::fromBase64(QByteArray::fromStdString(r.value("grid", std::string())));
    deniers.assign(raw.begin(), raw.end());
    lines.clear();
    for (const auto& n : r.value("line_wait_cck", nlohmann::json::array()))
        lines.push_back(n.get<unsigned>());
}

} // namespace

void FrameAnalyzer::requestNeighbours() {
    if (!send_) return;
    // The neighbours' waits are painted in the waits mode only; the blits of the frame in
    // progress say where a blit that runs across the boundary ends.
    // One neighbour's waits: asked for once per grid, kept while that grid is shown.
    const auto askWaits = [this](const std::shared_ptr<const OwnerGrid>& keep,
                                 std::shared_ptr<const OwnerGrid> FrameAnalyzer::*shown, Waits FrameAnalyzer::*waits,
                                 std::shared_ptr<const OwnerGrid> FrameAnalyzer::*held) {
        if (mode_ != Mode::CpuWaits || !keep || this->*held == keep) return;
        send_("frame.waits", {{"top", 0}, {"grid", true}, {"frame", keep->frame}},
              [this, keep, shown, waits, held](bool ok, const nlohmann::json& r) {
                  if (!ok || this->*shown != keep || r.value("frame", ~0ull) != keep->frame) return;
                  Waits& w = this->*waits;
                  readWaits(r, w.deniers, w.lines, w.lineCck);
                  this->*held = keep;
                  rebuildImage();
                  emit detailsChanged();
              });
    };
    askWaits(previous_, &FrameAnalyzer::previous_, &FrameAnalyzer::previousWaits_, &FrameAnalyzer::previousWaitsFor_);
    askWaits(progress_, &FrameAnalyzer::progress_, &FrameAnalyzer::progressWaits_, &FrameAnalyzer::progressWaitsFor_);
    if (!progress_) return;
    const auto keep = progress_;
    send_("frame.blits", {{"frame", keep->frame}}, [this, keep](bool ok, const nlohmann::json& r) {
        if (!ok || progress_ != keep) return;
        progressBlits_ = r.value("blits", nlohmann::json::array());
        updateSpan();
        emit detailsChanged();
    });
}

void FrameAnalyzer::updateSpan() {
    const bool was = spanShown_;
    spanShown_ = false;
    nlohmann::json blit;
    if (blitChosen_)
        for (const auto& b : blitList_)
            if (b.value("id", ~0u) == previewId_) blit = b;
    if (!blit.is_null() && !parts_.empty()) {
        // Its start as listed; its end as listed, or as the frame in progress has it.
        const nlohmann::json start = blit.value("start", nlohmann::json::object());
        nlohmann::json end = blit.value("end", nlohmann::json());
        if (!end.is_object())
            for (const auto& b : progressBlits_)
                if (b.value("id", ~0u) == previewId_ && b.value("end", nlohmann::json()).is_object())
                    end = b["end"];
        const Part& first = parts_.front();
        const Part& last = parts_.back();
        const int lastRow = last.firstRow + int(last.grid->lines) - 1;
        const int lastClock = int(last.grid->lineCck) - 1;
        Span sp;
        bool found = false;
        sp.row0 = rowOf(start.value("frame", 0ull), start.value("vpos", 0u), found);
        sp.h0 = start.value("hpos", 0);
        bool drawn = found;
        if (!found && start.value("frame", 0ull) < first.grid->frame) {
            sp.row0 = first.firstRow; // it began before the strip
            sp.h0 = 0;
            drawn = true;
        }
        if (end.is_object()) {
            sp.row1 = rowOf(end.value("frame", 0ull), end.value("vpos", 0u), found);
            sp.h1 = end.value("hpos", 0);
            if (!found) {
                sp.row1 = lastRow; // it ends after the strip
                sp.h1 = lastClock;
            }
        } else if (progress_) {
            sp.row1 = last.firstRow + int(progress_->beamVpos); // still running: to the beam
            sp.h1 = int(progress_->beamHpos);
            sp.toBeam = true;
        } else {
            sp.row1 = lastRow;
            sp.h1 = lastClock;
        }
        if (drawn && (sp.row1 > sp.row0 || (sp.row1 == sp.row0 && sp.h1 >= sp.h0))) {
            span_ = sp;
            spanShown_ = true;
        }
    }
    if (was || spanShown_) view_->viewport()->update();
}

void FrameAnalyzer::paintFrame(const OwnerGrid& g, const Waits* waits, QImage& img, QImage& strip,
                               int firstRow) const {
    const int w = int(g.lineCck), h = int(g.lines);
    QRgb colours[kBusOwnerCount];
    for (unsigned o = 0; o < kBusOwnerCount; ++o)
        colours[o] = ownerColour(BusOwner(o));
    // Waits paint only over the frame they belong to.
    if (waits && (waits->lineCck != g.lineCck || waits->deniers.size() < std::size_t(h) * unsigned(w)))
        waits = nullptr;
    // Until a frame's waits arrive, its owners.
    const bool waitsMode = mode_ == Mode::CpuWaits && waits;
    for (int y = 0; y < h; ++y) {
        auto* row = reinterpret_cast<QRgb*>(img.scanLine(firstRow + y));
        auto* s = reinterpret_cast<QRgb*>(strip.scanLine(firstRow + y));
        // The line's own clocks (an NTSC short line has one fewer than the grid is wide).
        const int rw = int(g.rowCck(unsigned(y)));
        for (int x = rw; x < w; ++x)
            row[x] = kNoClock;
        // In the frame in progress, the clocks from the beam on have not run.
        const int ran = !g.inProgress || unsigned(y) < g.beamVpos ? rw
                        : unsigned(y) == g.beamVpos                 ? int(g.beamHpos)
                                                                    : 0;
        if (waitsMode) {
            // Each denied clock in its denier's colour; the gutter is the line's share.
            const std::uint8_t* d = waits ? waits->deniers.data() + std::size_t(y) * unsigned(w) : nullptr;
            for (int x = 0; x < rw; ++x)
                row[x] = x >= ran ? kNotYet
                         : d && d[x] ? colours[std::min<unsigned>(d[x] - 1u, kBusOwnerCount - 1)]
                                     : notDeniedColour();
            const unsigned denied =
                waits && std::size_t(y) < waits->lines.size() ? waits->lines[std::size_t(y)] : 0;
            const int n = int((denied * unsigned(kStripWidth) + unsigned(rw) - 1) / unsigned(rw));
            for (int x = 0; x < kStripWidth; ++x)
                s[x] = x < n ? kWaitShare : notDeniedColour();
            continue;
        }
        unsigned counts[kBusOwnerCount] = {};
        for (int x = 0; x < rw; ++x) {
            if (x >= ran) {
                row[x] = kNotYet;
                continue;
            }
            const unsigned o = std::min<unsigned>(
                g.owners[std::size_t(y) * OwnerGrid::kStride + unsigned(x)], kBusOwnerCount - 1);
            row[x] = colours[o];
            ++counts[o];
        }
        // The line's share per owner, busiest first from the left, idle last.
        int x = 0;
        for (unsigned o = kBusOwnerCount; o-- > 0 && x < kStripWidth;) {
            const int n = int((counts[o] * unsigned(kStripWidth) + unsigned(rw) / 2) / unsigned(rw));
            for (int k = 0; k < n && x < kStripWidth; ++k)
                s[x++] = colours[o];
        }
        while (x < kStripWidth)
            s[x++] = ran < rw ? kNotYet : colours[0];
    }
}

void FrameAnalyzer::rebuildImage() {
    Waits committed;
    const bool haveWaits = grid_ && std::int64_t(grid_->frame) == detailFrame_;
    if (haveWaits) {
        committed.deniers = deniers_;
        committed.lines = lineWaits_;
        committed.lineCck = waitLineCck_;
    }
    if (!grid_ || grid_->lines == 0) {
        image_ = band_ = strip_ = QImage();
        bandOwners_.clear();
    } else {
        const int w = int(grid_->lineCck);
        // The committed frame alone (image()), and the strip of frames the view shows.
        image_ = QImage(w, int(grid_->lines), QImage::Format_RGB32);
        QImage scratch(kStripWidth, int(grid_->lines), QImage::Format_RGB32);
        paintFrame(*grid_, haveWaits ? &committed : nullptr, image_, scratch, 0);
        int rows = 0;
        for (const Part& part : parts_)
            rows = std::max(rows, part.firstRow + int(part.grid->lines));
        band_ = QImage(w, rows, QImage::Format_RGB32);
        band_.fill(kNotYet);
        strip_ = QImage(kStripWidth, rows, QImage::Format_RGB32);
        strip_.fill(kNotYet);
        bandOwners_.assign(std::size_t(rows) * OwnerGrid::kStride, 0);
        for (const Part& part : parts_) {
            const Waits* waits = part.grid == grid_.get()    ? (haveWaits ? &committed : nullptr)
                                 : part.grid == previous_.get() ? (previousWaitsFor_.get() == part.grid ? &previousWaits_ : nullptr)
                                 : progressWaitsFor_.get() == part.grid ? &progressWaits_
                                                                  : nullptr;
            paintFrame(*part.grid, waits, band_, strip_, part.firstRow);
            const std::size_t n = std::min(part.grid->owners.size(),
                                           std::size_t(part.grid->lines) * OwnerGrid::kStride);
            std::copy_n(part.grid->owners.begin(), n,
                        bandOwners_.begin() + std::ptrdiff_t(part.firstRow) * OwnerGrid::kStride);
        }
    }
    view_->gridChanged();
    refreshReadout();
    legend_->update();
}

// ---- the waits and the blits -------------------------------------------------------------

void FrameAnalyzer::reload() {
    requestedFor_ = ~0ull;
    requestDetails();
}

void FrameAnalyzer::requestDetails() {
    // One request at a time; a frame that commits meanwhile is asked for when it arrives.
    if (!send_ || !grid_ || waitingDetails_ || requestedFor_ == grid_->frame) return;
    waitingDetails_ = true;
    requestedFor_ = grid_->frame;
    send_("frame.waits", {{"top", kStallPcsShown}, {"grid", true}},
          [this](bool ok, const nlohmann::json& r) {
              if (ok) showWaits(r);
              send_("frame.blits", nlohmann::json::object(),
                    [this](bool ok2, const nlohmann::json& b) {
                        waitingDetails_ = false;
                        if (ok2) showBlits(b);
                        emit detailsChanged();
                        if (grid_ && grid_->frame != requestedFor_) requestDetails();
                    });
          });
}

void FrameAnalyzer::showWaits(const nlohmann::json& r) {
    detailFrame_ = r.value("frame", std::int64_t(-1));
    readWaits(r, deniers_, lineWaits_, waitLineCck_);

    const std::uint64_t denied = r.value("wait_cck", std::uint64_t(0));
    const std::uint64_t length =
        std::max<std::uint64_t>(1, r.value("length_cck", std::uint64_t(1)));
    QString text = tr("frame %1: the CPU was denied %2 colour clocks (%3% of the frame)")
                       .arg(detailFrame_)
                       .arg(denied)
                       .arg(100.0 * double(denied) / double(length), 0, 'f', 1);
    QStringList owners, kinds;
    // Named, not temporaries: items() keeps a reference to the object it walks.
    const nlohmann::json classes = r.value("cpu_wait_classes", nlohmann::json::object());
    const nlohmann::json byOwner = classes.value("by_owner", nlohmann::json::object());
    const nlohmann::json byKind = classes.value("by_kind", nlohmann::json::object());
    for (const auto& [name, n] : byOwner.items())
        if (n.get<std::uint64_t>())
            owners << QStringLiteral("%1 %2")
                          .arg(QString::fromStdString(name))
                          .arg(n.get<std::uint64_t>());
    for (const auto& [name, n] : byKind.items())
        kinds << QStringLiteral("%1 %2")
                     .arg(QString::fromStdString(name))
                     .arg(n.get<std::uint64_t>());
    text += tr("\nby denier: %1")
                .arg(owners.isEmpty() ? tr("none") : owners.join(QStringLiteral(", ")));
    text += tr("\nby access: %1").arg(kinds.join(QStringLiteral(", ")));
    const auto cpu = r.value("cpu", nlohmann::json::object()).value("cycles", nlohmann::json::object());
    text += tr("\nCPU cycles: instructions %1, waits %2, interrupt entry %3, stopped %4")
                .arg(cpu.value("instruction", std::uint64_t(0)))
                .arg(cpu.value("wait", std::uint64_t(0)))
                .arg(cpu.value("irq", std::uint64_t(0)))
                .arg(cpu.value("stopped", std::uint64_t(0)));
    counters_->setText(text);

    stalls_->clear();
    for (const auto& s : r.value("stall_pcs", nlohmann::json::array())) {
        const std::uint32_t pc = hexField(s, "pc");
        const std::uint64_t cck = s.value("wait_cck", std::uint64_t(0));
        auto* item = new QTreeWidgetItem(stalls_);
        item->setText(0, hex(pc, 6));
        item->setText(1, QString::number(cck));
        item->setText(2, QString::number(s.value("waits", 0u)));
        item->setText(3, QStringLiteral("%1%").arg(100.0 * double(cck) /
                                                       double(std::max<std::uint64_t>(1, denied)),
                                                   0, 'f', 1));
        item->setData(0, Qt::UserRole, pc);
        for (int c = 1; c < 4; ++c)
            item->setTextAlignment(c, Qt::AlignRight);
    }
    const auto rest = r.value("stall_pcs_rest", nlohmann::json::object());
    if (rest.value("pcs", 0u)) {
        auto* item = new QTreeWidgetItem(stalls_);
        item->setText(0, tr("%1 more").arg(rest.value("pcs", 0u)));
        item->setText(1, QString::number(rest.value("wait_cck", std::uint64_t(0))));
        item->setFlags(Qt::ItemIsEnabled);
        item->setData(0, Qt::UserRole, QVariant());
    }
    rebuildImage();
}

void FrameAnalyzer::showBlits(const nlohmann::json& r) {
    blitList_ = r.value("blits", nlohmann::json::array());
    const std::uint32_t keep = previewId_;
    QSignalBlocker block(blits_);
    blits_->clear();
    QTreeWidgetItem* selected = nullptr;
    for (const auto& b : blitList_) {
        const std::uint32_t id = b.value("id", 0u);
        auto* item = new QTreeWidgetItem(blits_);
        item->setData(0, Qt::UserRole, id);
        item->setText(0, QString::number(id));
        item->setText(1, text(b, "size") + (text(b, "mode") == QLatin1String("line") ? tr(" line") : QString()));
        item->setText(2, QString::fromStdString(b.value("channels", std::string())));
        item->setText(3, hex(hexField(b, "minterm"), 2));
        item->setText(4, QString::fromStdString(b.value("formula", std::string())));
        item->setText(5, QString::number(b.value("clocks_used", 0u)));
        item->setText(6, QString::number(b.value("clocks_stalled", 0u)));
        const auto start = b.value("start", nlohmann::json::object());
        item->setText(7, tr("%1 %2,%3")
                                 .arg(start.value("frame", std::uint64_t(0)))
                                 .arg(start.value("vpos", 0u))
                                 .arg(start.value("hpos", 0u)) +
                             (b.value("finished", false) ? QString() : tr(" (running)")));
        item->setText(8,
                      b.value("by_copper", false) ? tr("Copper") : hex(hexField(b, "start_pc"), 6));
        if (id == keep) selected = item;
    }
    if (selected) {
        blits_->setCurrentItem(selected);
        requestPreviews(keep);
    } else {
        updateSpan();
    }
}

bool FrameAnalyzer::selectBlit(std::uint32_t id) {
    for (int i = 0; i < blits_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = blits_->topLevelItem(i);
        if (item->data(0, Qt::UserRole).toUInt() != id) continue;
        blits_->setCurrentItem(item); // asks for the previews
        return true;
    }
    return false;
}

void FrameAnalyzer::requestPreviews(std::uint32_t id) {
    if (!send_) return;
    previewId_ = id;
    blitChosen_ = true;
    updateSpan();
    const int serial = ++previewSerial_;
    previews_ = {};
    for (QLabel* l : previewLabels_)
        l->clear();
    nlohmann::json blit;
    for (const auto& b : blitList_)
        if (b.value("id", 0u) == id) blit = b;
    if (blit.is_null()) return;
    const nlohmann::json pointers = blit.value("pointers", nlohmann::json::object());
    const nlohmann::json modulos = blit.value("modulos", nlohmann::json::object());
    const nlohmann::json words = blit.value("words", nlohmann::json::object());
    QString info = tr("blit %1: %2 %3 %4, channels %5, minterm %6 = %7\n")
                       .arg(id)
                       .arg(text(blit, "mode"), text(blit, "direction"), text(blit, "size"), text(blit, "channels"),
                            hex(hexField(blit, "minterm"), 2), text(blit, "formula"));
    for (const char* c : {"a", "b", "c", "d"})
        info += tr("%1 %2 mod %3  ")
                    .arg(QString::fromLatin1(c).toUpper())
                    .arg(hex(hexField(pointers, c), 6))
                    .arg(modulos.value(c, 0));
    info += tr("\nwords A %1 B %2 C %3 D %4; clocks used %5, stalled %6")
                .arg(words.value("a", 0u))
                .arg(words.value("b", 0u))
                .arg(words.value("c", 0u))
                .arg(words.value("d", 0u))
                .arg(blit.value("clocks_used", 0u))
                .arg(blit.value("clocks_stalled", 0u));
    blitInfo_->setText(info);
    if (!blit.value("traced", false)) {
        previewLabels_[4]->setText(tr("not traced"));
        return;
    }
    if (!scratch_) scratch_ = std::make_unique<QTemporaryDir>();
    const std::string channels = blit.value("channels", std::string());
    for (unsigned s = 0; s < 5; ++s) {
        if (s < 4 && channels.find(kStreams[s]) == std::string::npos) {
            previewLabels_[s]->setText(tr("off"));
            continue;
        }
        const QString path =
            scratch_->filePath(QStringLiteral("blit-%1.png").arg(QLatin1String(kStreams[s])));
        send_("blit.render",
              {{"id", id},
               {"channel", kStreams[s]},
               {"path", path.toStdString()},
               {"overwrite", true}},
              [this, s, serial, path](bool ok, const nlohmann::json&) {
                  if (serial != previewSerial_) return; // another blit was selected meanwhile
                  if (!ok) {
                      previewLabels_[s]->setText(tr("gone"));
                      return;
                  }
                  previews_[s] = QImage(path);
                  const QImage scaled =
                      previews_[s].scaled(previewLabels_[s]->width(), kPreviewHeight,
                                          Qt::KeepAspectRatio, Qt::FastTransformation);
                  previewLabels_[s]->setPixmap(QPixmap::fromImage(scaled));
                  emit detailsChanged();
              });
    }
}

QImage FrameAnalyzer::preview(const QString& channel) const {
    for (unsigned s = 0; s < 5; ++s)
        if (channel == QLatin1String(kStreams[s])) return previews_[s];
    return {};
}

QString FrameAnalyzer::waitCounters() const {
    return counters_->text();
}

QString FrameAnalyzer::describe(unsigned vpos, unsigned hpos) const {
    if (!grid_ || vpos >= grid_->lines || hpos >= grid_->rowCck(vpos)) return {};
    return describeRow(committedRow_ + int(vpos), hpos);
}

QString FrameAnalyzer::describeRow(int row, unsigned hpos) const {
    const Part* part = partAt(row);
    if (!part || hpos >= part->grid->lineCck) return {};
    const OwnerGrid& g = *part->grid;
    const unsigned vpos = unsigned(row - part->firstRow);
    if (hpos >= g.rowCck(vpos)) return {}; // an NTSC short line's 228th column
    const QString which = &g == previous_.get()   ? tr(" (the frame before)")
                          : &g == progress_.get() ? tr(" (in progress)")
                                                  : QString();
    if (g.inProgress && (vpos > g.beamVpos || (vpos == g.beamVpos && hpos >= g.beamHpos)))
        return tr("frame %1%2  line %3 (%4)  clock %5 (%6)  not run yet: the beam is at line %7, clock %8")
            .arg(g.frame)
            .arg(which)
            .arg(vpos)
            .arg(hex(vpos, 3))
            .arg(hpos)
            .arg(hex(hpos, 2))
            .arg(hex(g.beamVpos, 3))
            .arg(hex(g.beamHpos, 2));
    const BusOwner owner = g.owner(vpos, hpos);
    QString text = tr("frame %1%2  line %3 (%4)  clock %5 (%6)  owner %7")
                       .arg(g.frame)
                       .arg(which)
                       .arg(vpos)
                       .arg(hex(vpos, 3))
                       .arg(hpos)
                       .arg(hex(hpos, 2))
                       .arg(QString::fromLatin1(busOwnerName(owner)));
    if (g.records.empty()) {
        text +=
            tr("\n(no full record: recording arms with this pane and covers the next whole frame)");
        return text;
    }
    const SlotRecord& r = g.records[std::size_t(vpos) * OwnerGrid::kStride + hpos];
    text += tr("\nsubtype %1  size %2  ipl %3  %4")
                .arg(r.subtype)
                .arg(r.size)
                .arg(r.ipl)
                .arg(flagNames(r.flags));
    if (r.flags & slot_flag::Register) {
        const char* n = reg::name(r.reg);
        text += tr("  reg %1 (%2)")
                    .arg(n ? QString::fromLatin1(n) : QStringLiteral("?"))
                    .arg(hex(r.reg, 3));
    }
    text += tr("\naddress %1  data %2  events %3")
                .arg(hex(r.address, 6))
                .arg(hex(r.data, 4))
                .arg(eventNames(r.events));
    return text;
}

QString FrameAnalyzer::readout() const {
    return readout_->text();
}

void FrameAnalyzer::select(unsigned vpos, unsigned hpos) {
    selectRow(committedRow_ + int(vpos), hpos);
}

void FrameAnalyzer::selectRow(int row, unsigned hpos) {
    selectedV_ = row;
    selectedH_ = int(hpos);
    readout_->setText(describeRow(row, hpos));
    view_->viewport()->update();
    std::uint64_t frame = 0;
    unsigned vpos = 0;
    if (frameLineAt(row, frame, vpos)) emit slotSelected(vpos, hpos);
}

void FrameAnalyzer::hover(int vpos, int hpos) {
    if (vpos == hoverV_ && hpos == hoverH_) return;
    hoverV_ = vpos;
    hoverH_ = hpos;
    refreshReadout();
    view_->viewport()->update();
    view_->lineAxis()->update();
    view_->clockAxis()->update();
}

QString FrameAnalyzer::hint() const {
    return tr("Hover over a colour clock to read its slot; click to keep it.");
}

void FrameAnalyzer::refreshReadout() {
    QString text;
    if (hoverV_ >= 0) text = describeRow(hoverV_, unsigned(hoverH_));
    if (text.isEmpty() && selectedV_ >= 0) text = describeRow(selectedV_, unsigned(selectedH_));
    if (text.isEmpty()) text = hint();
    if (text != readout_->text()) readout_->setText(text);
}

void FrameAnalyzer::setZoom(int zoom) {
    const QWidget* vp = view_->viewport();
    view_->setZoom(zoom, QPointF(vp->width() / 2.0, vp->height() / 2.0));
}

int FrameAnalyzer::zoom() const {
    return view_->zoom();
}

QSize FrameAnalyzer::cellSize() const {
    return view_->cell();
}

void FrameAnalyzer::zoomChanged() {
    const int z = zoom();
    const QSignalBlocker block(zoomBox_);
    zoomBox_->setCurrentIndex(zoomBox_->findData(z));
    zoomOut_->setEnabled(z > kMinZoom);
    zoomIn_->setEnabled(z < kMaxZoom);
}

void FrameAnalyzer::scrollTo(unsigned vpos, unsigned hpos) {
    view_->scrollToCell(unsigned(committedRow_) + vpos, hpos);
}

QWidget* FrameAnalyzer::lineAxis() const {
    return view_->lineAxis();
}

QWidget* FrameAnalyzer::clockAxis() const {
    return view_->clockAxis();
}

std::vector<FrameAnalyzer::AxisLabel> FrameAnalyzer::axisLabels(Qt::Orientation orientation) const {
    return view_->labels(orientation);
}

QWidget* FrameAnalyzer::gridView() const {
    return view_->viewport();
}

QPointF FrameAnalyzer::cellCentre(unsigned vpos, unsigned hpos) const {
    return view_->centre(unsigned(committedRow_) + vpos, hpos);
}

} // namespace copperline
