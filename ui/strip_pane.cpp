// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/strip_pane.h"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSpinBox>
#include <QToolButton>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QWidgetAction>
#include <algorithm>
#include <cmath>

namespace copperline {

namespace {

using json = nlohmann::json;

// A PAL frame is 313 lines of 227 colour clocks, until strip.bars says (frame_cck).
constexpr double kPalFrameCck = 313.0 * 227.0;
constexpr int kDefaultLines = 16; // the document's default: the column headings among them
const char* const kModes[] = {"pass", "call", "until"};

// The strip's margins: room at the top for a notch, and a floor beneath.
constexpr double kLeft = 4, kRight = 4, kTop = 6, kBottom = 3;

QString hexAddress(std::uint32_t a) {
    return QStringLiteral("$%1").arg(a, 6, 16, QLatin1Char('0')).toUpper();
}

QString text(const json& v) {
    return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
}

QString us(double v) {
    return QString::number(v, 'f', 1);
}

} // namespace

// The bars themselves, painted; the pane keeps what they show and where each stands.
class StripView : public QWidget {
public:
    explicit StripView(StripPane* pane) : QWidget(pane), pane_(pane) {
        setObjectName(QStringLiteral("stripBars"));
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
        setMinimumHeight(80);
        setCursor(Qt::PointingHandCursor);
        setMouseTracking(true);
    }
    QSize sizeHint() const override { return {640, 160}; }

    QRectF plot() const { return QRectF(rect()).adjusted(kLeft, kTop, -kRight, -kBottom); }

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override {
        if (e->button() != Qt::LeftButton) return;
        const int i = pane_->barAt(e->position());
        if (i >= 0) pane_->selectBar(pane_->bars()[std::size_t(i)].bar);
    }
    bool event(QEvent* e) override {
        if (e->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(e);
            const int i = pane_->barAt(help->pos());
            if (i >= 0)
                QToolTip::showText(help->globalPos(), pane_->barLabel(i), this);
            else
                QToolTip::hideText();
            return true;
        }
        return QWidget::event(e);
    }

private:
    StripPane* pane_;
};

void StripView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(0x1c, 0x1e, 0x22));
    const QRectF area = plot();
    p.setPen(QColor(0x50, 0x56, 0x60));
    p.drawLine(QPointF(area.left(), area.bottom() + 0.5),
               QPointF(area.right(), area.bottom() + 0.5));

    const std::vector<QRectF> rects = pane_->barRects();
    const QFontMetrics fm(font());
    p.setRenderHint(QPainter::Antialiasing, false);
    for (std::size_t i = 0; i < rects.size(); ++i) {
        const StripPane::Bar& bar = pane_->bars()[i];
        QRectF r = rects[i];
        if (r.height() < 1) r.setTop(r.bottom() - 1); // the shortest still stands off the floor
        const QColor fill = bar.here ? QColor(Qt::white) : QColor(0x68, 0x74, 0x80);
        if (pane_->runsOffTop(int(i))) {
            // A notch cut into the top: it took longer than the strip stands tall.
            const double w = std::min(r.width(), 10.0), mid = r.center().x();
            QPainterPath path;
            path.moveTo(r.bottomLeft());
            path.lineTo(r.topLeft());
            path.lineTo(mid - w / 2, r.top());
            path.lineTo(mid, r.top() + std::min(5.0, r.height() / 2));
            path.lineTo(mid + w / 2, r.top());
            path.lineTo(r.topRight());
            path.lineTo(r.bottomRight());
            path.closeSubpath();
            p.setRenderHint(QPainter::Antialiasing, true);
            p.fillPath(path, fill);
            p.setRenderHint(QPainter::Antialiasing, false);
        } else {
            p.fillRect(r, fill);
        }
        // The label, written up the bar where it fits.
        const QString label = QStringLiteral("%1  %2 µs").arg(bar.frame).arg(us(bar.lengthUs));
        if (r.width() >= fm.height() + 2 && r.height() >= fm.horizontalAdvance(label) + 8) {
            p.save();
            p.translate(r.center().x() + fm.ascent() / 2.0 - 1, r.bottom() - 4);
            p.rotate(-90);
            p.setPen(bar.here ? QColor(0x20, 0x20, 0x20) : QColor(0xe8, 0xec, 0xf0));
            p.drawText(QPointF(0, 0), label);
            p.restore();
        }
    }
    // A rule at each whole frame, across the bars, where the rules stand far enough apart to read.
    const double perFrame = pane_->pixelsPerFrame();
    if (perFrame >= 4) {
        p.setPen(QPen(QColor(0xe0, 0x90, 0x40, 0xc0), 1, Qt::DashLine));
        for (int k = 1; area.bottom() - k * perFrame >= area.top() - 0.5; ++k) {
            const double y = std::round(area.bottom() - k * perFrame) - 0.5;
            p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        }
    }
}

StripPane::StripPane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    start_ = new QLineEdit(this);
    start_->setObjectName(QStringLiteral("stripStart"));
    start_->setPlaceholderText(tr("a name or an address"));
    start_->setToolTip(
        tr("Where profiling frames begin: a routine's name or an address ($C01234). "
           "Enter gives it, Escape returns to what the machine holds, empty removes it"));
    mode_ = new QComboBox(this);
    mode_->setObjectName(QStringLiteral("stripMode"));
    for (const char* m : kModes)
        mode_->addItem(QString::fromLatin1(m));
    mode_->setToolTip(
        tr("pass: each ends where the next begins; call: when the call it began with returns; "
           "until: at End, or at the next start"));
    end_ = new QLineEdit(this);
    end_->setObjectName(QStringLiteral("stripEnd"));
    end_->setPlaceholderText(tr("until: a name or an address"));
    end_->setEnabled(false);
    start_->installEventFilter(this);
    end_->installEventFilter(this);
    connect(start_, &QLineEdit::returnPressed, this, &StripPane::commitStart);
    connect(end_, &QLineEdit::returnPressed, this, &StripPane::commitEnd);
    connect(mode_, &QComboBox::activated, this, &StripPane::commitMode);

    now_ = new QToolButton(this);
    now_->setObjectName(QStringLiteral("stripNow"));
    now_->setText(tr("Now"));
    now_->setToolTip(tr("Return to the present: the newest moment the record holds"));
    connect(now_, &QToolButton::clicked, this, &StripPane::goToNow);

    // Frames and Lines, behind the three dots.
    frames_ = new QSpinBox(this);
    frames_->setObjectName(QStringLiteral("stripFrames"));
    frames_->setRange(0, 256);
    frames_->setSpecialValueText(tr("automatic"));
    frames_->setSuffix(tr(" frames"));
    frames_->setToolTip(
        tr("How many frames tall the strip stands; automatic: the longest bar, rounded up "
           "to a whole frame (or exactly the longest, under one frame)"));
    lines_ = new QSpinBox(this);
    lines_->setObjectName(QStringLiteral("stripLines"));
    lines_->setRange(2, 500);
    lines_->setValue(kDefaultLines);
    lines_->setSuffix(tr(" lines"));
    lines_->setToolTip(tr("How many lines the tree stands, its column headings among them"));
    auto* menuForm = new QWidget(this);
    auto* formLayout = new QFormLayout(menuForm);
    formLayout->setContentsMargins(8, 6, 8, 6);
    formLayout->addRow(tr("Frames"), frames_);
    formLayout->addRow(tr("Lines"), lines_);
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("stripMenu"));
    auto* formAction = new QWidgetAction(menu);
    formAction->setDefaultWidget(menuForm);
    menu->addAction(formAction);
    more_ = new QToolButton(this);
    more_->setObjectName(QStringLiteral("stripMore"));
    more_->setText(QStringLiteral("…"));
    more_->setToolTip(tr("Frames and Lines"));
    more_->setPopupMode(QToolButton::InstantPopup);
    more_->setStyleSheet(QStringLiteral("QToolButton::menu-indicator { image: none; }"));
    more_->setMenu(menu);
    connect(frames_, &QSpinBox::valueChanged, this, [this] { view_->update(); });
    connect(lines_, &QSpinBox::valueChanged, this, &StripPane::applyLines);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Start"), this));
    top->addWidget(start_, 2);
    top->addWidget(new QLabel(tr("Mode"), this));
    top->addWidget(mode_);
    top->addWidget(new QLabel(tr("End"), this));
    top->addWidget(end_, 2);
    top->addWidget(now_);
    top->addWidget(more_);

    view_ = new StripView(this);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("stripSummary"));
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    tree_ = new QTreeWidget(this);
    tree_->setObjectName(QStringLiteral("stripTree"));
    tree_->setColumnCount(ColumnCount);
    tree_->setHeaderLabels(
        {tr("Total µs"), tr("%"), tr("Self µs"), tr("Calls"), tr("Routine"), tr("At")});
    tree_->setTreePosition(RoutineColumn); // the triangle stands before the routine's name
    tree_->setUniformRowHeights(true);
    tree_->setRootIsDecorated(true);
    tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(RoutineColumn, QHeaderView::Stretch);
    for (int c : {TotalColumn, PercentColumn, SelfColumn, CallsColumn, AtColumn})
        tree_->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    connect(tree_, &QTreeWidget::itemCollapsed, this, [this](QTreeWidgetItem* item) {
        if (!filling_) folded_.insert(pathOf(item));
    });
    connect(tree_, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) {
        if (!filling_) folded_.erase(pathOf(item));
    });
    connect(tree_, &QTreeWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QTreeWidgetItem* item = tree_->itemAt(pos);
        if (!item) return;
        QMenu* actions = routineMenu(item);
        actions->exec(tree_->viewport()->mapToGlobal(pos));
        actions->deleteLater();
    });

    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("stripError"));
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet(QStringLiteral("color: #d04040"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(view_, 1);
    layout->addWidget(summary_);
    layout->addWidget(tree_);
    layout->addWidget(error_);
    applyLines();
}

bool StripPane::eventFilter(QObject* watched, QEvent* event) {
    if ((watched == start_ || watched == end_) && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
        restoreFields();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

QWidget* StripPane::stripView() const {
    return view_;
}

void StripPane::refresh() {
    if (busy_) {
        again_ = true;
        return;
    }
    busy_ = true;
    send_("strip.get", json::object(), [this](bool gotSpec, const json& spec) {
        if (gotSpec) showSpec(spec);
        send_("strip.bars", json::object(), [this](bool gotBars, const json& reply) {
            if (!gotBars) {
                roundDone();
                return;
            }
            showBars(reply);
            // The machine has come to stand in another profiling frame: its tree.
            const auto here =
                std::find_if(bars_.begin(), bars_.end(), [](const Bar& b) { return b.here; });
            if (here == bars_.end() ||
                (treeBar_ && *treeBar_ == here->bar && treeCck_ == here->cck)) {
                roundDone();
                return;
            }
            treeBar_ = here->bar;
            treeCck_ = here->cck;
            send_("strip.tree", json::object(), [this](bool gotTree, const json& tree) {
                if (gotTree) fillTree(tree);
                roundDone();
            });
        });
    });
}

void StripPane::roundDone() {
    busy_ = false;
    if (again_) {
        again_ = false;
        refresh();
    }
}

void StripPane::showSpec(const json& spec) {
    spec_ = spec;
    // Every strip.set raises the generation, the same spec given again included.
    const std::string key = spec.value("generation", json()).dump() + "/" +
                            spec.value("start_address", json()).dump() + "/" +
                            spec.value("mode", std::string()) + "/" +
                            spec.value("end_address", json()).dump();
    if (key != shownSpec_) {
        // Given anew: the places are shared out again, and the old tree's frame is gone.
        shownSpec_ = key;
        places_ = 0;
        bars_.clear();
        treeBar_.reset();
        tree_->clear();
        view_->update();
    }
    // A field being typed in keeps what is typed; the rest follow the machine.
    if (!(start_->isModified() && start_->hasFocus())) {
        start_->setText(text(spec.value("start", json())));
        start_->setModified(false);
    }
    if (!(end_->isModified() && end_->hasFocus())) {
        end_->setText(text(spec.value("end", json())));
        end_->setModified(false);
    }
    const int index =
        mode_->findText(QString::fromStdString(spec.value("mode", std::string("pass"))));
    if (index >= 0) {
        const QSignalBlocker block(mode_);
        mode_->setCurrentIndex(index);
    }
    end_->setEnabled(mode_->currentIndex() == 2);
}

void StripPane::restoreFields() {
    start_->setModified(false);
    end_->setModified(false);
    if (spec_.is_object()) showSpec(spec_);
    refresh(); // and what the machine holds now
}

void StripPane::showBars(const json& reply) {
    if (reply.contains("spec")) showSpec(reply["spec"]);
    bars_.clear();
    for (const json& b : reply.value("bars", json::array())) {
        Bar bar;
        bar.bar = b.value("bar", 0ull);
        bar.frame = b.value("frame", 0ull);
        bar.cck = b.value("cck", 0ull);
        bar.lengthCck = b.value("length_cck", 0ull);
        bar.lengthUs = b.value("length_us", 0.0);
        if (b.contains("frames_spanned")) bar.framesSpanned = b.value("frames_spanned", 0ull);
        bar.here = b.value("here", false);
        bars_.push_back(bar);
    }
    // A frame of the machine's own beam, PAL's or NTSC's.
    frameCck_ = reply.value("frame_cck", kPalFrameCck);
    longestCck_ = reply.value("longest_cck", 0ull);
    // The places are shared out once, then only ever multiplied, so bars move by whole places.
    const int n = int(bars_.size());
    if (n > 0 && places_ == 0) places_ = n;
    while (places_ < n)
        places_ *= 2;
    summary_->setText(text(reply.value("summary", json())));
    view_->update();
    emit barsUpdated();
}

double StripPane::framesTall() const {
    if (frames_->value() > 0) return frames_->value();
    const double longest = double(longestCck_) / frameCck_;
    if (longest <= 0) return 1;
    return longest < 1 ? longest : std::ceil(longest);
}

double StripPane::pixelsPerFrame() const {
    return view_->plot().height() / framesTall();
}

std::vector<QRectF> StripPane::barRects() const {
    std::vector<QRectF> out;
    if (places_ <= 0) return out;
    const QRectF area = view_->plot();
    const double place = area.width() / places_;
    const double gap = place >= 4 ? 1 : 0;
    const double perFrame = pixelsPerFrame();
    const int first =
        places_ - int(bars_.size()); // the latest at the right; empty places at the left
    for (std::size_t i = 0; i < bars_.size(); ++i) {
        const double h = std::min(area.height(), double(bars_[i].lengthCck) / frameCck_ * perFrame);
        const double x = area.left() + (first + int(i)) * place;
        out.emplace_back(x + gap / 2, area.bottom() - h, place - gap, h);
    }
    return out;
}

bool StripPane::runsOffTop(int index) const {
    return index >= 0 && std::size_t(index) < bars_.size() &&
           double(bars_[std::size_t(index)].lengthCck) / frameCck_ > framesTall() * (1 + 1e-9);
}

int StripPane::barAt(QPointF point) const {
    if (places_ <= 0 || bars_.empty()) return -1;
    const QRectF area = view_->plot();
    if (point.y() < 0 || point.y() > view_->height()) return -1;
    // The whole column of its place, so a short bar is as easy to press as a tall one.
    const int place = int(std::floor((point.x() - area.left()) / (area.width() / places_)));
    const int i = place - (places_ - int(bars_.size()));
    return i >= 0 && i < int(bars_.size()) ? i : -1;
}

QString StripPane::barLabel(int index) const {
    if (index < 0 || std::size_t(index) >= bars_.size()) return {};
    const Bar& b = bars_[std::size_t(index)];
    QString s = tr("bar %1: frame %2, %3 µs").arg(b.bar).arg(b.frame).arg(us(b.lengthUs));
    if (b.framesSpanned)
        s += *b.framesSpanned == 1 ? tr(", 1 frame spanned")
                                   : tr(", %1 frames spanned").arg(*b.framesSpanned);
    if (b.here) s += tr(" (the machine stands in it)");
    return s;
}

QString StripPane::summaryText() const {
    return summary_->text();
}
QString StripPane::errorText() const {
    return error_->text();
}

void StripPane::showError(const json& e) {
    error_->setText(QString::fromStdString(e.value("message", std::string("refused"))));
}

void StripPane::commit(const json& params) {
    send_("strip.set", params, [this](bool ok, const json& r) {
        if (!ok) {
            showError(r);
            restoreFields();
            return;
        }
        error_->clear();
        start_->setModified(false);
        end_->setModified(false);
        shownSpec_.clear(); // given anew, even where the same: the cuts begin from now
        showSpec(r);
        refresh();
    });
}

void StripPane::commitStart() {
    commit({{"start", start_->text().trimmed().toStdString()}});
}

void StripPane::commitEnd() {
    commit({{"end", end_->text().trimmed().toStdString()}});
}

void StripPane::commitMode(int index) {
    if (index < 0 || index > 2) return;
    json params = {{"mode", kModes[index]}};
    const QString end = end_->text().trimmed();
    if (index == 2 && !end.isEmpty())
        params["end"] = end.toStdString(); // the End the field still holds comes back with until
    else if (index != 2 && spec_.is_object() && !spec_.value("end", json()).is_null())
        params["end"] = nullptr; // only an until ends at an instruction
    end_->setEnabled(index == 2);
    commit(params);
}

void StripPane::selectBar(std::uint64_t bar) {
    // strip.select wants a paused machine, as every reverse verb does: a pause first.
    send_("pause", json::object(), nullptr);
    send_("strip.select", {{"bar", bar}}, [this, bar](bool ok, const json& r) {
        if (!ok) {
            showError(r);
            refresh();
            return;
        }
        error_->clear();
        showTree(bar);
        refresh();
    });
}

void StripPane::showTree(std::optional<std::uint64_t> bar) {
    json params = json::object();
    if (bar) {
        params["bar"] = *bar;
        treeBar_ = *bar;
        const auto it =
            std::find_if(bars_.begin(), bars_.end(), [&](const Bar& b) { return b.bar == *bar; });
        treeCck_ = it != bars_.end() ? it->cck : 0;
    }
    send_("strip.tree", params, [this](bool ok, const json& r) {
        if (!ok) {
            showError(r);
            return;
        }
        fillTree(r);
    });
}

void StripPane::goToNow() {
    send_("pause", json::object(), nullptr);
    send_("timeline.status", json::object(), [this](bool ok, const json& s) {
        if (!ok) {
            showError(s);
            return;
        }
        send_("timeline.seek", {{"cck", s["newest"].value("cck", 0ull)}},
              [this](bool sought, const json& r) {
                  if (!sought) showError(r);
                  refresh();
              });
    });
}

void StripPane::setBreakpoint(std::uint32_t address) {
    send_("break.add", {{"kind", "pc"}, {"addr", address}}, [this](bool ok, const json& r) {
        if (!ok)
            showError(r);
        else
            error_->clear();
    });
}

QMenu* StripPane::routineMenu(QTreeWidgetItem* item) {
    auto* menu = new QMenu(this);
    const std::uint32_t at = item ? item->data(RoutineColumn, AddressRole).toUInt() : 0;
    QAction* breakAt = menu->addAction(tr("Set a breakpoint at its first instruction"));
    breakAt->setObjectName(QStringLiteral("stripBreakpoint"));
    connect(breakAt, &QAction::triggered, this, [this, at] { setBreakpoint(at); });
    QAction* show = menu->addAction(tr("Show in the disassembly"));
    show->setObjectName(QStringLiteral("stripShow"));
    connect(show, &QAction::triggered, this, [this, at] { emit addressActivated(at); });
    return menu;
}

QString StripPane::pathOf(const QTreeWidgetItem* item) {
    QStringList path;
    for (; item; item = item->parent())
        path.prepend(QString::number(item->data(RoutineColumn, AddressRole).toUInt(), 16));
    return path.join('/');
}

void StripPane::fillTree(const json& tree) {
    filling_ = true;
    tree_->clear();
    if (tree.contains("bar")) treeBar_ = tree.value("bar", 0ull);
    const double total = tree.value("total_us", 0.0);
    addNode(nullptr, tree, total, QString());
    filling_ = false;
    applyLines();
    emit treeUpdated();
}

void StripPane::addNode(QTreeWidgetItem* parent, const json& node, double rootTotal,
                        const QString& parentPath) {
    auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(tree_);
    const std::uint32_t at = node.value("at", 0u);
    const QString routine = text(node.value("routine", json()));
    const std::string kind = node.value("kind", std::string());
    const double total = node.value("total_us", 0.0);
    item->setText(TotalColumn, us(total));
    item->setText(PercentColumn,
                  rootTotal > 0 ? QString::number(100.0 * total / rootTotal, 'f', 1) : QString());
    item->setText(SelfColumn, us(node.value("self_us", 0.0)));
    item->setText(CallsColumn, QString::number(node.value("calls", 0ull)));
    item->setText(RoutineColumn, kind == "jump" ? QStringLiteral("→ ") + routine : routine);
    item->setText(AtColumn, routine.startsWith('$') ? QString() : hexAddress(at));
    item->setData(RoutineColumn, AddressRole, at);
    item->setToolTip(RoutineColumn, kind == "interrupt" ? tr("an interrupt, taken during the frame")
                                    : kind == "jump"
                                        ? tr("reached by a jump, or by running on into it")
                                        : QString());
    for (int c : {TotalColumn, PercentColumn, SelfColumn, CallsColumn})
        item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    // No name of the program's stands at it: the routine and every figure are dim.
    if (!node.value("named", true) && kind != "frame") {
        const QBrush dim = palette().brush(QPalette::Disabled, QPalette::Text);
        for (int c = 0; c < ColumnCount; ++c)
            item->setForeground(c, dim);
    }
    const QString path =
        (parentPath.isEmpty() ? QString() : parentPath + '/') + QString::number(at, 16);
    for (const json& c : node.value("children", json::array()))
        addNode(item, c, rootTotal, path);
    // Everything unfolded at first; what was folded stays folded where the same calls reach it.
    item->setExpanded(!folded_.count(path));
}

void StripPane::applyLines() {
    const int row = tree_->topLevelItemCount() > 0 && tree_->sizeHintForRow(0) > 0
                        ? tree_->sizeHintForRow(0)
                        : fontMetrics().height() + 4;
    const int header = tree_->header()->sizeHint().height();
    // As tall as Lines asks where the pane has the room; on a small screen it gives way, down
    // to its headings and three lines, so that the window still fits.
    const int frame = 2 * tree_->frameWidth();
    tree_->setMaximumHeight(header + (lines_->value() - 1) * row + frame);
    tree_->setMinimumHeight(std::min(tree_->maximumHeight(), header + 3 * row + frame));
}

} // namespace copperline
