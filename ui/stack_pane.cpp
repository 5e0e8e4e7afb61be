// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/stack_pane.h"

#include "ui/pane_text.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QTableWidget>
#include <QVBoxLayout>

namespace copperline {

namespace {

using nlohmann::json;
using pane_text::hex;

QString str(const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>())
                                                 : QString();
}

} // namespace

StackPane::StackPane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("stackError"));
    error_->setStyleSheet(QStringLiteral("color: #c0392b"));
    // One line, whatever its length: a narrow dock must not grow to hold a message.
    error_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    error_->hide();
    more_ = new QLabel(this);
    more_->setObjectName(QStringLiteral("stackMore"));
    more_->hide();

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName(QStringLiteral("stackTable"));
    table_->setHorizontalHeaderLabels({tr("#"), tr("Function"), tr("Where"), tr("PC"), tr("Note")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setWordWrap(false);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setFont(mono);
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (row >= 0 && row != selected_) selectFrame(row);
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(error_);
    layout->addWidget(table_, 1);
    layout->addWidget(more_);
}

void StackPane::setSnapshot(const Snapshot& s) {
    if (stops_.newStop(s, isVisible())) refresh();
}

void StackPane::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stops_.shown()) refresh();
}

void StackPane::refresh() {
    stops_.asked();
    const std::uint64_t generation = ++generation_;
    QPointer<StackPane> self(this);
    send_("stack.frames", {{"start", 0}, {"count", kFrames}},
          [self, generation](bool ok, const json& result) {
              if (!self || generation != self->generation_) return;
              if (!ok) {
                  self->error_->setText(str(result, "message"));
                  self->error_->setToolTip(str(result, "message"));
                  self->error_->show();
                  self->frames_ = json::array();
                  self->table_->setRowCount(0);
                  self->more_->hide();
              } else {
                  self->error_->hide();
                  self->showFrames(result);
              }
              emit self->updated();
          });
}

void StackPane::showFrames(const json& result) {
    frames_ = result.value("frames", json::array());
    selected_ = 0;
    const QSignalBlocker block(table_);
    table_->setRowCount(int(frames_.size()));
    for (int row = 0; row < int(frames_.size()); ++row) {
        const json& f = frames_[std::size_t(row)];
        const std::string kind = f.value("kind", std::string());
        QString where;
        if (f.contains("file"))
            where = QStringLiteral("%1:%2").arg(QFileInfo(str(f, "file")).fileName()).arg(f.value("line", 0));
        else if (!str(f, "module").isEmpty())
            where = QFileInfo(str(f, "module")).fileName();
        QStringList notes;
        if (f.value("inlined", false)) notes << tr("inlined");
        if (kind == "system") notes << tr("system code");
        if (kind == "unknown") notes << tr("unknown code");
        if (f.value("interrupted", false)) notes << tr("interrupted");
        if (f.value("caller", false)) notes << tr("returns here");
        QString function = str(f, "function");
        if (function.isEmpty()) function = tr("??");
        const QString cells[ColumnCount] = {QString::number(f.value("index", row)), function, where,
                                            hex(f.value("pc", 0u), 6), notes.join(QStringLiteral(", "))};
        for (int c = 0; c < ColumnCount; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (kind != "source") item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
            if (c == FunctionColumn && f.value("inlined", false)) {
                QFont font = item->font();
                font.setItalic(true);
                item->setFont(font);
            }
            if (c == LocationColumn && f.contains("file")) item->setToolTip(str(f, "file"));
            table_->setItem(row, c, item);
        }
    }
    const std::size_t total = result.value("total", frames_.size());
    more_->setVisible(total > frames_.size());
    more_->setText(tr("%1 more frame(s) below").arg(total - frames_.size()));
    table_->resizeColumnsToContents();
    paintSelection();
}

void StackPane::selectFrame(int index) {
    if (index < 0 || index >= int(frames_.size())) return;
    selected_ = index;
    paintSelection();
    const json& f = frames_[std::size_t(index)];
    emit frameSelected(index, str(f, "file"), f.value("line", 0));
}

void StackPane::paintSelection() {
    const QSignalBlocker block(table_);
    if (selected_ < table_->rowCount()) table_->setCurrentCell(selected_, FunctionColumn);
    for (int row = 0; row < table_->rowCount(); ++row)
        for (int c = 0; c < ColumnCount; ++c) {
            QTableWidgetItem* item = table_->item(row, c);
            QFont font = item->font();
            font.setBold(row == selected_);
            item->setFont(font);
        }
}

int StackPane::rowOf(const QString& function) const {
    for (int row = 0; row < int(frames_.size()); ++row)
        if (str(frames_[std::size_t(row)], "function") == function) return row;
    return -1;
}

QString StackPane::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

} // namespace copperline
