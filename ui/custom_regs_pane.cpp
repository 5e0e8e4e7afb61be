// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/custom_regs_pane.h"

#include "ui/pane_text.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace copperline {

namespace {

using nlohmann::json;
using pane_text::hex;

constexpr int kEntryRole = Qt::UserRole + 1; // the row's index in the reply's list

QString writer(const json& entry) {
    if (!entry.contains("writer_outcome")) return QString();
    if (entry["writer"].is_null()) return QObject::tr("before the record");
    const json& w = entry["writer"];
    const QString where = QObject::tr("frame %1, line %2, clock %3")
                              .arg(w.value("frame", 0ull))
                              .arg(hex(w.value("vpos", 0u), 3), hex(w.value("hpos", 0u), 2));
    if (w.value("by", std::string()) == "copper")
        return QObject::tr("Copper MOVE at %1, %2").arg(hex(w.value("copper_addr", 0u), 6), where);
    return QObject::tr("CPU at %1, %2").arg(hex(w.value("pc", 0u), 6), where);
}

} // namespace

CustomRegsPane::CustomRegsPane(Send send, QWidget* parent)
    : QWidget(parent), send_(std::move(send)) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    writers_ = new QCheckBox(tr("Last writers"), this);
    writers_->setObjectName(QStringLiteral("customWriters"));
    writers_->setToolTip(
        tr("Who wrote each register last, found by replaying the record of the past "
           "(while the machine is paused)"));
    writers_->setChecked(true);
    connect(writers_, &QCheckBox::toggled, this, [this] { refresh(); });
    filter_ = new QLineEdit(this);
    filter_->setObjectName(QStringLiteral("customFilter"));
    filter_->setPlaceholderText(tr("Filter (COLOR, BPL, ...)"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, this, [this] { applyFilter(); });
    auto* refreshButton = new QPushButton(tr("Refresh"), this);
    connect(refreshButton, &QPushButton::clicked, this, [this] { refresh(); });
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("customError"));
    error_->setStyleSheet(QStringLiteral("color: #c0392b"));
    error_->setWordWrap(true);
    error_->hide();

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName(QStringLiteral("customTable"));
    table_->setHorizontalHeaderLabels(
        {tr("Offset"), tr("Register"), tr("Value"), tr("Written"), tr("Last writer")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setFont(mono);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { showDetail(row); });

    detail_ = new QPlainTextEdit(this);
    detail_->setObjectName(QStringLiteral("customDetail"));
    detail_->setReadOnly(true);
    detail_->setFont(mono);
    detail_->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto* top = new QHBoxLayout;
    top->addWidget(filter_, 1);
    top->addWidget(writers_);
    top->addWidget(refreshButton);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(detail_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(error_);
    layout->addWidget(split, 1);
}

void CustomRegsPane::setSnapshot(const Snapshot& s) {
    running_ = s.running;
    // Finding the writers replays the record (a second or more for a long one): a hidden
    // pane waits until it is shown.
    if (stops_.newStop(s, isVisible())) refresh();
}

void CustomRegsPane::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stops_.shown()) refresh();
}

void CustomRegsPane::setWritersWanted(bool on) {
    writers_->setChecked(on); // refreshes when it changes
}
bool CustomRegsPane::writersWanted() const {
    return writers_->isChecked();
}

void CustomRegsPane::setFilter(const QString& text) {
    filter_->setText(text);
}

void CustomRegsPane::refresh() {
    stops_.asked();
    json params = json::object();
    // Looking writers up replays the record, which a running machine does not allow.
    if (writers_->isChecked() && !running_) params["writers"] = true;
    QPointer<CustomRegsPane> self(this);
    send_("custom.dump", params, [self](bool ok, const json& result) {
        if (!self) return;
        if (!ok) {
            self->error_->setText(QString::fromStdString(result.value("message", std::string())));
            self->error_->show();
        } else {
            self->error_->clear();
            self->error_->hide();
            self->showDump(result);
        }
        emit self->updated();
    });
}

void CustomRegsPane::showDump(const json& result) {
    reply_ = result;
    const json& list = result["list"];
    const int keep = table_->currentRow();
    table_->setRowCount(int(list.size()));
    for (int row = 0; row < int(list.size()); ++row) {
        const json& r = list[std::size_t(row)];
        QString value =
            r["value"].is_null() ? QStringLiteral("-") : hex(r["value"].get<unsigned>(), 4);
        if (r.value("readable", false)) value += tr(" (read)");
        const QString written =
            r["written"].is_null() ? QString() : hex(r["written"].get<unsigned>(), 4);
        const QString cells[ColumnCount] = {hex(r.value("offset", 0u), 3),
                                            QString::fromStdString(r.value("name", std::string())),
                                            value, written, writer(r)};
        for (int c = 0; c < ColumnCount; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setData(kEntryRole, row);
            table_->setItem(row, c, item);
        }
    }
    table_->resizeColumnsToContents();
    applyFilter();
    if (keep >= 0 && keep < table_->rowCount()) showDetail(keep);
}

void CustomRegsPane::applyFilter() {
    const QString text = filter_->text().trimmed();
    for (int row = 0; row < table_->rowCount(); ++row)
        table_->setRowHidden(
            row, !text.isEmpty() &&
                     !table_->item(row, NameColumn)->text().contains(text, Qt::CaseInsensitive));
}

void CustomRegsPane::showDetail(int row) {
    if (row < 0 || !reply_.contains("list") || row >= int(reply_["list"].size())) {
        detail_->clear();
        return;
    }
    const json& r = reply_["list"][std::size_t(row)];
    const unsigned offset = r.value("offset", 0u);
    QString text = QStringLiteral("%1 (%2, %3)")
                       .arg(QString::fromStdString(r.value("name", std::string())), hex(offset, 3),
                            hex(0xDFF000 + offset, 6));
    text += r.value("readable", false) ? tr(": read-only\n") : tr(": write-only\n");
    if (r.value("strobe", false)) text += tr("A strobe: writing it acts; the value is not kept.\n");
    if (r["value"].is_null())
        text += tr("Not written since power-on.\n");
    else
        text += tr("Value %1\n").arg(hex(r["value"].get<unsigned>(), 4));
    if (r.contains("fields")) text += pane_text::fields(r["fields"]) + QLatin1Char('\n');
    if (r.contains("writer_outcome"))
        text += r["writer"].is_null()
                    ? tr("Last written before what the record of the past holds.\n")
                    : tr("Last written by the %1\n").arg(writer(r));
    detail_->setPlainText(text);
}

void CustomRegsPane::selectRegister(const QString& name) {
    const int row = rowOf(name);
    if (row < 0) return;
    table_->setCurrentCell(row, NameColumn); // shows it (currentCellChanged)
    showDetail(row);
}

int CustomRegsPane::rowOf(const QString& name) const {
    for (int row = 0; row < table_->rowCount(); ++row)
        if (table_->item(row, NameColumn)->text().compare(name, Qt::CaseInsensitive) == 0)
            return row;
    return -1;
}

QString CustomRegsPane::valueText(const QString& name) const {
    const int row = rowOf(name);
    return row < 0 ? QString() : table_->item(row, ValueColumn)->text();
}

QString CustomRegsPane::writerText(const QString& name) const {
    const int row = rowOf(name);
    return row < 0 ? QString() : table_->item(row, WriterColumn)->text();
}

QString CustomRegsPane::detailText() const {
    return detail_->toPlainText();
}

QString CustomRegsPane::errorText() const {
    return error_->text();
}

} // namespace copperline
