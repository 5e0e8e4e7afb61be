// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/vars_pane.h"

#include "ui/pane_text.h"

#include <QAction>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace copperline {

namespace {

using nlohmann::json;
using pane_text::hex;

constexpr int kRefRole = Qt::UserRole + 1;       // what the item opens (0: nothing)
constexpr int kParentRefRole = Qt::UserRole + 2; // the reference it was listed under
constexpr int kPathRole = Qt::UserRole + 3;      // "Locals/it/*it/x", "watch:ticks"
constexpr int kStateRole = Qt::UserRole + 4;     // 0 not asked, 1 asked, 2 shown
constexpr int kChangedRole = Qt::UserRole + 5;
constexpr int kWatchRole = Qt::UserRole + 6; // a watch's expression
constexpr int kPlaceholderRole = Qt::UserRole + 7;

const QColor kChangedColour(192, 57, 43);
const QString kWatchPrefix = QStringLiteral("watch:");

QString str(const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>())
                                                 : QString();
}

// Children of an item not opened yet: one empty row, so that the tree draws the opener.
void addPlaceholder(QTreeWidgetItem* item) {
    auto* child = new QTreeWidgetItem(item);
    child->setData(0, kPlaceholderRole, true);
    child->setFlags(Qt::ItemIsEnabled);
}

struct Filling {
    explicit Filling(bool& flag) : flag_(flag), was_(flag) { flag_ = true; }
    ~Filling() { flag_ = was_; }
    bool& flag_;
    bool was_;
};

QTreeWidget* makeTree(QWidget* parent, const QString& name, const QString& first) {
    auto* tree = new QTreeWidget(parent);
    tree->setObjectName(name);
    tree->setColumnCount(VarsPane::ColumnCount);
    tree->setHeaderLabels({first, QObject::tr("Value"), QObject::tr("Type")});
    tree->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    tree->setUniformRowHeights(true);
    tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    tree->header()->setStretchLastSection(true);
    tree->setColumnWidth(VarsPane::NameColumn, 170);
    tree->setColumnWidth(VarsPane::ValueColumn, 190);
    // Short enough that the dock under the display asks no more height than the registers.
    tree->setMinimumHeight(tree->fontMetrics().height() * 4);
    return tree;
}

} // namespace

VarsPane::VarsPane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    open_ = {QStringLiteral("Locals"), QStringLiteral("Parameters")};
    frameLabel_ = new QLabel(this);
    frameLabel_->setObjectName(QStringLiteral("varsFrame"));
    frameLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("varsError"));
    error_->setStyleSheet(QStringLiteral("color: #c0392b"));
    // One line, whatever its length: a narrow dock must not grow to hold a message.
    error_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    error_->hide();

    variables_ = makeTree(this, QStringLiteral("varsTree"), tr("Variable"));
    watches_ = makeTree(this, QStringLiteral("watchTree"), tr("Watch"));
    for (QTreeWidget* tree : {variables_, watches_}) {
        connect(tree, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* i) { expanded(i); });
        connect(tree, &QTreeWidget::itemCollapsed, this, [this](QTreeWidgetItem* i) { collapsed(i); });
        connect(tree, &QTreeWidget::itemChanged, this,
                [this](QTreeWidgetItem* i, int column) { edited(i, column); });
    }

    watchEntry_ = new QLineEdit(this);
    watchEntry_->setObjectName(QStringLiteral("watchEntry"));
    watchEntry_->setPlaceholderText(tr("Add a watch: a C expression, then Enter"));
    connect(watchEntry_, &QLineEdit::returnPressed, this, [this] {
        addWatch(watchEntry_->text());
        watchEntry_->clear();
    });
    auto* remove = new QPushButton(tr("Remove"), this);
    remove->setObjectName(QStringLiteral("removeWatch"));
    const auto removeSelected = [this] {
        QTreeWidgetItem* item = watches_->currentItem();
        while (item && item->parent())
            item = item->parent();
        if (item) removeWatch(item->data(NameColumn, kWatchRole).toString());
    };
    connect(remove, &QPushButton::clicked, this, removeSelected);
    auto* del = new QAction(this);
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetShortcut);
    connect(del, &QAction::triggered, this, removeSelected);
    watches_->addAction(del);

    auto* watchBox = new QWidget(this);
    auto* watchLayout = new QVBoxLayout(watchBox);
    watchLayout->setContentsMargins(0, 0, 0, 0);
    auto* entry = new QHBoxLayout;
    entry->addWidget(watchEntry_, 1);
    entry->addWidget(remove);
    watchLayout->addWidget(watches_, 1);
    watchLayout->addLayout(entry);

    // Side by side: the dock sits under the display, where width is cheap and height dear.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(variables_);
    split->addWidget(watchBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(frameLabel_);
    layout->addWidget(error_);
    layout->addWidget(split, 1);
}

void VarsPane::setSnapshot(const Snapshot& s) {
    // A stop while hidden shows nothing: the values shown before stay the ones to compare
    // with, and the pane asks once it is shown.
    if (stops_.newStop(s, isVisible())) stopped();
}

void VarsPane::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stops_.shown()) stopped();
}

void VarsPane::stopped() {
    stops_.asked();
    // What was shown at the stop before is what the values are compared with; what was not
    // shown at it (another frame's variables) has nothing to be compared with.
    if (!current_.isEmpty()) previous_ = current_;
    current_.clear();
    frame_ = 0;
    refresh();
}

void VarsPane::setFrame(int index) {
    frame_ = std::max(0, index);
    refresh();
}

void VarsPane::refresh() {
    const std::uint64_t generation = ++generation_;
    pending_ = 0;
    setError({});
    {
        Filling f(filling_);
        variables_->clear();
    }
    QPointer<VarsPane> self(this);
    pending_ += 2;
    send_("stack.frames", {{"start", frame_}, {"count", 1}}, [self, generation](bool ok, const json& r) {
        if (!self || generation != self->generation_) return;
        --self->pending_;
        const json frames = ok ? r.value("frames", json::array()) : json::array();
        if (frames.empty()) {
            self->function_.clear();
            self->frameLabel_->setText(tr("Frame %1").arg(self->frame_));
        } else {
            const json& f = frames.front();
            self->function_ = str(f, "function");
            QString where = tr("Frame %1: %2").arg(self->frame_).arg(
                self->function_.isEmpty() ? tr("??") : self->function_);
            if (f.contains("file"))
                where += QStringLiteral(" (%1:%2)").arg(QFileInfo(str(f, "file")).fileName()).arg(f.value("line", 0));
            if (f.value("inlined", false)) where += tr(", inlined");
            self->frameLabel_->setText(where);
        }
        self->done();
    });
    send_("vars.scopes", {{"frame", frame_}}, [self, generation](bool ok, const json& r) {
        if (!self || generation != self->generation_) return;
        --self->pending_;
        if (!ok) {
            self->setError(str(r, "message"));
        } else {
            if (r.contains("no_variables"))
                self->setError(tr("No variables: %1").arg(str(r, "no_variables")));
            for (const json& s : r.value("scopes", json::array())) {
                QTreeWidgetItem* item;
                {
                    Filling f(self->filling_);
                    item = new QTreeWidgetItem(self->variables_);
                    const QString name = str(s, "name");
                    item->setText(NameColumn, name);
                    item->setData(NameColumn, kPathRole, name);
                    item->setData(NameColumn, kRefRole, s.value("ref", 0));
                    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
                    QFont font = item->font(NameColumn);
                    font.setBold(true);
                    item->setFont(NameColumn, font);
                    if (s.value("ref", 0) == 0 || s.value("empty", false)) {
                        item->setText(ValueColumn, tr("(none here)"));
                        item->setForeground(ValueColumn,
                                            self->palette().color(QPalette::Disabled, QPalette::Text));
                        continue;
                    }
                    addPlaceholder(item);
                }
                if (self->open_.contains(item->data(NameColumn, kPathRole).toString())) {
                    self->fetch(item);
                    item->setExpanded(true);
                }
            }
        }
        self->done();
    });
    for (int i = 0; i < watches_->topLevelItemCount(); ++i)
        evaluate(watches_->topLevelItem(i));
}

void VarsPane::fetch(QTreeWidgetItem* item) {
    const int ref = item->data(NameColumn, kRefRole).toInt();
    if (ref == 0 || item->data(NameColumn, kStateRole).toInt() != 0) return;
    item->setData(NameColumn, kStateRole, 1);
    ++pending_;
    const std::uint64_t generation = generation_;
    QPointer<VarsPane> self(this);
    send_("vars.get", {{"ref", ref}}, [self, generation, item, ref](bool ok, const json& r) {
        // A new generation has cleared (or re-evaluated) the items: this one may be gone.
        if (!self || generation != self->generation_) return;
        --self->pending_;
        const QString path = item->data(NameColumn, kPathRole).toString();
        QList<QTreeWidgetItem*> open;
        {
            Filling f(self->filling_);
            qDeleteAll(item->takeChildren());
            item->setData(NameColumn, kStateRole, 2);
            if (!ok) {
                auto* child = new QTreeWidgetItem(item);
                child->setText(NameColumn, tr("(cannot read)"));
                child->setText(ValueColumn, str(r, "message"));
                child->setFlags(Qt::ItemIsEnabled);
            } else {
                for (const json& v : r.value("variables", json::array())) {
                    auto* child = new QTreeWidgetItem(item);
                    const QString name = str(v, "name");
                    const QString childPath = path + QLatin1Char('/') + name;
                    child->setText(NameColumn, name);
                    child->setData(NameColumn, kPathRole, childPath);
                    child->setData(NameColumn, kParentRefRole, ref);
                    self->showValue(child, v, self->keyOf(child));
                    if (v.value("ref", 0) != 0 && self->open_.contains(childPath)) open << child;
                }
            }
        }
        for (QTreeWidgetItem* child : open) {
            self->fetch(child);
            child->setExpanded(true);
        }
        self->done();
    });
}

void VarsPane::evaluate(QTreeWidgetItem* watch) {
    const QString expression = watch->data(NameColumn, kWatchRole).toString();
    ++pending_;
    const std::uint64_t generation = generation_;
    QPointer<VarsPane> self(this);
    send_("eval", {{"frame", frame_}, {"expr", expression.toStdString()}},
          [self, generation, watch, expression](bool ok, const json& r) {
              if (!self || generation != self->generation_) return;
              --self->pending_;
              {
                  Filling f(self->filling_);
                  watch->setData(NameColumn, kStateRole, 0);
                  if (ok) {
                      self->showValue(watch, r, self->keyOf(watch));
                  } else {
                      qDeleteAll(watch->takeChildren());
                      watch->setData(NameColumn, kRefRole, 0);
                      watch->setData(NameColumn, kChangedRole, false);
                      watch->setText(ValueColumn, str(r, "message"));
                      watch->setText(TypeColumn, QString());
                      watch->setForeground(ValueColumn,
                                           self->palette().color(QPalette::Disabled, QPalette::Text));
                      QFont font = watch->font(ValueColumn);
                      font.setBold(false);
                      font.setItalic(true);
                      watch->setFont(ValueColumn, font);
                  }
              }
              if (ok && watch->data(NameColumn, kRefRole).toInt() != 0 &&
                  self->open_.contains(watch->data(NameColumn, kPathRole).toString())) {
                  self->fetch(watch);
                  watch->setExpanded(true);
              }
              self->done();
          });
}

void VarsPane::showValue(QTreeWidgetItem* item, const json& v, const QString& key) {
    const bool optimizedOut = v.value("optimized_out", false);
    QString value = str(v, "value");
    if (optimizedOut) value = tr("<optimized out>");
    else if (v.contains("unavailable")) value = tr("<unavailable: %1>").arg(str(v, "unavailable"));
    item->setText(ValueColumn, value);
    item->setText(TypeColumn, str(v, "type"));
    QString where;
    if (v.contains("address")) where = tr("at %1").arg(hex(v.value("address", 0u), 6));
    if (v.contains("register")) where = tr("in %1").arg(str(v, "register"));
    item->setToolTip(NameColumn, where);
    item->setToolTip(ValueColumn, where);
    const int ref = v.value("ref", 0);
    item->setData(NameColumn, kRefRole, ref);
    item->setData(NameColumn, kStateRole, 0);
    qDeleteAll(item->takeChildren());
    if (ref != 0) addPlaceholder(item);

    const bool changed = !optimizedOut && previous_.contains(key) && previous_.value(key) != value;
    current_[key] = value;
    item->setData(NameColumn, kChangedRole, changed);
    for (int c : {NameColumn, ValueColumn}) {
        QFont font = item->font(c);
        font.setBold(changed);
        font.setItalic(false);
        item->setFont(c, font);
    }
    item->setForeground(ValueColumn, changed        ? QBrush(kChangedColour)
                                     : optimizedOut ? palette().brush(QPalette::Disabled, QPalette::Text)
                                                    : QBrush());
    // Editable where vars.set can name it: a member or element under a reference, or a watch.
    const bool settable = !optimizedOut && (item->data(NameColumn, kParentRefRole).toInt() != 0 ||
                                            !item->data(NameColumn, kWatchRole).toString().isEmpty());
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | (settable ? Qt::ItemIsEditable : Qt::NoItemFlags));
}

QString VarsPane::keyOf(const QTreeWidgetItem* item) const {
    const QString path = item->data(NameColumn, kPathRole).toString();
    if (path.startsWith(kWatchPrefix)) return QStringLiteral("watch|") + path.mid(kWatchPrefix.size());
    return function_ + QLatin1Char('|') + path;
}

void VarsPane::expanded(QTreeWidgetItem* item) {
    open_.insert(item->data(NameColumn, kPathRole).toString());
    if (item->data(NameColumn, kStateRole).toInt() == 0) fetch(item);
}

void VarsPane::collapsed(QTreeWidgetItem* item) {
    open_.remove(item->data(NameColumn, kPathRole).toString());
}

void VarsPane::edited(QTreeWidgetItem* item, int column) {
    if (filling_ || column != ValueColumn) return;
    setValue(item, item->text(ValueColumn));
}

void VarsPane::setValue(QTreeWidgetItem* item, const QString& value) {
    json params = {{"value", value.toStdString()}};
    const QString expression = item->data(NameColumn, kWatchRole).toString();
    if (!expression.isEmpty()) {
        params["frame"] = frame_;
        params["expr"] = expression.toStdString();
    } else {
        const int ref = item->data(NameColumn, kParentRefRole).toInt();
        if (ref == 0) return;
        params["ref"] = ref;
        params["name"] = item->text(NameColumn).toStdString();
    }
    const QString name = item->text(NameColumn);
    QPointer<VarsPane> self(this);
    send_("vars.set", params, [self, name](bool ok, const json& r) {
        if (!self) return;
        // Shown afresh either way: the value written, or the one that stayed.
        self->refresh();
        if (!ok) self->setError(tr("Cannot set %1: %2").arg(name, str(r, "message")));
    });
}

void VarsPane::addWatch(const QString& expression) {
    const QString e = expression.trimmed();
    if (e.isEmpty() || watchExpressions().contains(e)) return;
    QTreeWidgetItem* item;
    {
        Filling f(filling_);
        item = new QTreeWidgetItem(watches_);
        item->setText(NameColumn, e);
        item->setData(NameColumn, kWatchRole, e);
        item->setData(NameColumn, kPathRole, kWatchPrefix + e);
    }
    evaluate(item);
}

void VarsPane::removeWatch(const QString& expression) {
    for (int i = 0; i < watches_->topLevelItemCount(); ++i)
        if (watches_->topLevelItem(i)->data(NameColumn, kWatchRole).toString() == expression) {
            // Replies on their way may name it: a new generation drops them.
            ++generation_;
            pending_ = 0;
            delete watches_->takeTopLevelItem(i);
            current_.remove(QStringLiteral("watch|") + expression);
            refresh();
            return;
        }
}

void VarsPane::done() {
    if (pending_ == 0) emit updated();
}

QTreeWidgetItem* VarsPane::variable(const QString& path) const {
    const QStringList names = path.split(QLatin1Char('/'));
    QTreeWidgetItem* at = nullptr;
    for (const QString& name : names) {
        QTreeWidgetItem* next = nullptr;
        const int n = at ? at->childCount() : variables_->topLevelItemCount();
        for (int i = 0; i < n && !next; ++i) {
            QTreeWidgetItem* c = at ? at->child(i) : variables_->topLevelItem(i);
            if (c->text(NameColumn) == name && !c->data(0, kPlaceholderRole).toBool()) next = c;
        }
        if (!next) return nullptr;
        at = next;
    }
    return at;
}

QString VarsPane::valueOf(const QString& path) const {
    const QTreeWidgetItem* item = variable(path);
    return item ? item->text(ValueColumn) : QString();
}

QStringList VarsPane::changedPaths() const {
    QStringList out;
    std::function<void(const QTreeWidgetItem*)> walk = [&](const QTreeWidgetItem* item) {
        if (isChanged(item)) out << item->data(NameColumn, kPathRole).toString();
        for (int i = 0; i < item->childCount(); ++i)
            walk(item->child(i));
    };
    for (int i = 0; i < variables_->topLevelItemCount(); ++i)
        walk(variables_->topLevelItem(i));
    return out;
}

QStringList VarsPane::watchExpressions() const {
    QStringList out;
    for (int i = 0; i < watches_->topLevelItemCount(); ++i)
        out << watches_->topLevelItem(i)->data(NameColumn, kWatchRole).toString();
    return out;
}

QString VarsPane::watchValue(const QString& expression) const {
    for (int i = 0; i < watches_->topLevelItemCount(); ++i)
        if (watches_->topLevelItem(i)->data(NameColumn, kWatchRole).toString() == expression)
            return watches_->topLevelItem(i)->text(ValueColumn);
    return QString();
}

bool VarsPane::watchChanged(const QString& expression) const {
    for (int i = 0; i < watches_->topLevelItemCount(); ++i)
        if (watches_->topLevelItem(i)->data(NameColumn, kWatchRole).toString() == expression)
            return isChanged(watches_->topLevelItem(i));
    return false;
}

bool VarsPane::isChanged(const QTreeWidgetItem* item) {
    return item && item->data(VarsPane::NameColumn, kChangedRole).toBool();
}

QString VarsPane::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void VarsPane::setError(const QString& text) {
    error_->setText(text);
    error_->setToolTip(text);
    error_->setVisible(!text.isEmpty());
}

} // namespace copperline
