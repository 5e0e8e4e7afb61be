#include "ui/frame_analyzer.h"

#include "emu/chipset/custom_regs.h"

#include <QFontDatabase>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QVBoxLayout>

namespace copperline {

namespace {

constexpr int kStripWidth = 48; // the per-line share strip, in pixels
constexpr int kStripGap = 6;
constexpr int kCellW = 2, kCellH = 1; // a colour clock at the grid's natural size

QString hex(std::uint64_t v, int digits) {
    return QStringLiteral("$%1").arg(v, digits, 16, QLatin1Char('0')).toUpper();
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

// The grid itself, with the line strip to its right.
class OwnerGridView : public QWidget {
public:
    explicit OwnerGridView(FrameAnalyzer& owner) : QWidget(&owner), a_(owner) {
        setMouseTracking(true);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
        setMinimumSize(227 + kStripGap + kStripWidth, 313);
    }

    QSize sizeHint() const override {
        return QSize(227 * kCellW + kStripGap + kStripWidth, 313 * kCellH);
    }

    // The rectangle the grid's cells fill: whole pixels per cell when there is room.
    QRectF gridRect() const {
        if (a_.image_.isNull()) return {};
        const double w = std::max(1, width() - kStripGap - kStripWidth), h = height();
        const double cols = a_.image_.width(), rows = a_.image_.height();
        const double scale = std::min(w / (cols * kCellW), h / (rows * kCellH));
        return QRectF(0, 0, cols * kCellW * scale, rows * kCellH * scale);
    }

    bool cellAt(QPointF p, int& v, int& h) const {
        const QRectF r = gridRect();
        if (r.isEmpty() || !r.contains(p)) return false;
        h = int((p.x() - r.left()) / r.width() * a_.image_.width());
        v = int((p.y() - r.top()) / r.height() * a_.image_.height());
        return h >= 0 && v >= 0 && h < a_.image_.width() && v < a_.image_.height();
    }

    QPointF centre(unsigned v, unsigned h) const {
        const QRectF r = gridRect();
        return QPointF(r.left() + (h + 0.5) * r.width() / a_.image_.width(),
                       r.top() + (v + 0.5) * r.height() / a_.image_.height());
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.fillRect(rect(), palette().window());
        if (a_.image_.isNull()) {
            p.drawText(rect(), Qt::AlignCenter, tr("No frame yet"));
            return;
        }
        const QRectF r = gridRect();
        p.setRenderHint(QPainter::SmoothPixmapTransform, false);
        p.drawImage(r, a_.image_);
        const QRectF strip(r.right() + kStripGap, r.top(), kStripWidth, r.height());
        p.drawImage(strip, a_.strip_);
        const double cw = r.width() / a_.image_.width(), ch = r.height() / a_.image_.height();
        if (a_.hoverV_ >= 0) {
            p.setPen(QPen(QColor(255, 255, 255, 120), 0));
            p.drawRect(QRectF(r.left(), r.top() + a_.hoverV_ * ch,
                              r.width() + kStripGap + kStripWidth, ch));
        }
        if (a_.selectedV_ >= 0) {
            p.setPen(QPen(Qt::white, 1.5));
            p.drawRect(QRectF(r.left() + a_.selectedH_ * cw - 1, r.top() + a_.selectedV_ * ch - 1,
                              cw + 2, ch + 2));
        }
    }
    void mouseMoveEvent(QMouseEvent* e) override {
        int v = -1, h = -1;
        if (!cellAt(e->position(), v, h)) v = h = -1;
        a_.hover(v, h);
    }
    void leaveEvent(QEvent*) override { a_.hover(-1, -1); }
    void mousePressEvent(QMouseEvent* e) override {
        int v = -1, h = -1;
        if (e->button() == Qt::LeftButton && cellAt(e->position(), v, h))
            a_.select(unsigned(v), unsigned(h));
    }

private:
    FrameAnalyzer& a_;
};

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

FrameAnalyzer::FrameAnalyzer(QWidget* parent) : QWidget(parent) {
    view_ = new OwnerGridView(*this);
    legend_ = new OwnerLegend(*this);
    readout_ = new QLabel(this);
    readout_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readout_->setWordWrap(true);
    readout_->setMinimumHeight(3 * readout_->fontMetrics().height());
    readout_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    readout_->setText(tr("Hover over a colour clock to read its slot; click to keep it."));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(view_, 1);
    layout->addWidget(legend_);
    layout->addWidget(readout_);
}

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

void FrameAnalyzer::setGrid(std::shared_ptr<const OwnerGrid> grid) {
    if (grid == grid_) return;
    grid_ = std::move(grid);
    if (!grid_ || grid_->lines == 0) {
        image_ = strip_ = QImage();
    } else {
        const int w = int(grid_->lineCck), h = int(grid_->lines);
        image_ = QImage(w, h, QImage::Format_RGB32);
        strip_ = QImage(kStripWidth, h, QImage::Format_RGB32);
        QRgb colours[kBusOwnerCount];
        for (unsigned o = 0; o < kBusOwnerCount; ++o)
            colours[o] = ownerColour(BusOwner(o));
        for (int y = 0; y < h; ++y) {
            auto* row = reinterpret_cast<QRgb*>(image_.scanLine(y));
            unsigned counts[kBusOwnerCount] = {};
            for (int x = 0; x < w; ++x) {
                const unsigned o = std::min<unsigned>(
                    grid_->owners[std::size_t(y) * OwnerGrid::kStride + unsigned(x)],
                    kBusOwnerCount - 1);
                row[x] = colours[o];
                ++counts[o];
            }
            // The line's share per owner, busiest first from the left, idle last.
            auto* s = reinterpret_cast<QRgb*>(strip_.scanLine(y));
            int x = 0;
            for (unsigned o = kBusOwnerCount; o-- > 0 && x < kStripWidth;) {
                const int n =
                    int((counts[o] * unsigned(kStripWidth) + unsigned(w) / 2) / unsigned(w));
                for (int k = 0; k < n && x < kStripWidth; ++k)
                    s[x++] = colours[o];
            }
            while (x < kStripWidth)
                s[x++] = colours[0];
        }
    }
    if (selectedV_ >= 0) readout_->setText(describe(unsigned(selectedV_), unsigned(selectedH_)));
    view_->update();
    legend_->update();
}

QString FrameAnalyzer::describe(unsigned vpos, unsigned hpos) const {
    if (!grid_ || vpos >= grid_->lines || hpos >= grid_->lineCck) return {};
    const BusOwner owner = grid_->owner(vpos, hpos);
    QString text = tr("frame %1  line %2 (%3)  clock %4 (%5)  owner %6")
                       .arg(grid_->frame)
                       .arg(vpos)
                       .arg(hex(vpos, 3))
                       .arg(hpos)
                       .arg(hex(hpos, 2))
                       .arg(QString::fromLatin1(busOwnerName(owner)));
    if (grid_->records.empty()) {
        text +=
            tr("\n(no full record: recording arms with this pane and covers the next whole frame)");
        return text;
    }
    const SlotRecord& r = grid_->records[std::size_t(vpos) * OwnerGrid::kStride + hpos];
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
    selectedV_ = int(vpos);
    selectedH_ = int(hpos);
    readout_->setText(describe(vpos, hpos));
    view_->update();
    emit slotSelected(vpos, hpos);
}

void FrameAnalyzer::hover(int vpos, int hpos) {
    if (vpos == hoverV_ && hpos == hoverH_) return;
    hoverV_ = vpos;
    hoverH_ = hpos;
    if (vpos >= 0)
        readout_->setText(describe(unsigned(vpos), unsigned(hpos)));
    else if (selectedV_ >= 0)
        readout_->setText(describe(unsigned(selectedV_), unsigned(selectedH_)));
    view_->update();
}

QWidget* FrameAnalyzer::gridView() const {
    return view_;
}

QPointF FrameAnalyzer::cellCentre(unsigned vpos, unsigned hpos) const {
    return view_->centre(vpos, hpos);
}

} // namespace copperline
