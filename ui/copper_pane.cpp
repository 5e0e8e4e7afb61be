// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/copper_pane.h"

#include "ui/pane_text.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
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

constexpr int kInstructionRole = Qt::UserRole + 1; // the row's index in the reply

QString regName(const json& i) {
    if (i.contains("reg_name") && i["reg_name"].is_string())
        return QString::fromStdString(i["reg_name"].get<std::string>());
    return hex(i.value("reg", 0u), 3);
}

// "WAIT $40,$06" with what differs from a plain compare: masks not all ones, BFD clear.
QString compare(const json& i) {
    if (i.value("end", false)) return QStringLiteral("WAIT $FFFF,$FFFE");
    QString text = QStringLiteral("%1 %2,%3")
                       .arg(i.value("op", std::string()) == "skip" ? QStringLiteral("SKIP")
                                                                   : QStringLiteral("WAIT"),
                            hex(i.value("vpos", 0u), 2), hex(i.value("hpos", 0u), 2));
    if (i.value("vmask", 0xFFu) != 0xFF)
        text += QStringLiteral(" vmask %1").arg(hex(i.value("vmask", 0u), 2));
    if (i.value("hmask", 0xFEu) != 0xFE)
        text += QStringLiteral(" hmask %1").arg(hex(i.value("hmask", 0u), 2));
    if (!i.value("bfd", true)) text += QStringLiteral(" +blitter");
    return text;
}

QString stateText(const json& copper) {
    const std::string state = copper.value("state", std::string());
    if (state == "waiting") return QObject::tr("waiting");
    if (state == "fetching") return QObject::tr("fetching");
    if (state == "skipping") return QObject::tr("comparing a SKIP");
    if (state == "waking") return QObject::tr("waking from a WAIT");
    if (state == "jumping") return QObject::tr("jumping");
    if (state == "halted") return QObject::tr("halted (a MOVE to a protected register)");
    if (state == "waiting_for_dma") return QObject::tr("waiting for Copper DMA");
    return QObject::tr("idle");
}

} // namespace

CopperPane::CopperPane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    listBox_ = new QComboBox(this);
    listBox_->setObjectName(QStringLiteral("copperList"));
    listBox_->addItem(tr("Current list"));
    listBox_->addItem(tr("List 1 (COP1LC)"));
    listBox_->addItem(tr("List 2 (COP2LC)"));
    connect(listBox_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    auto* refreshButton = new QPushButton(tr("Refresh"), this);
    connect(refreshButton, &QPushButton::clicked, this, [this] { refresh(); });
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("copperStatus"));
    status_->setWordWrap(true);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("copperError"));
    error_->setStyleSheet(QStringLiteral("color: #c0392b"));
    error_->hide();

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName(QStringLiteral("copperTable"));
    table_->setHorizontalHeaderLabels(
        {QString(), tr("Address"), tr("Words"), tr("Instruction"), tr("Note")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setFont(mono);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { selectRow(row); });

    detail_ = new QPlainTextEdit(this);
    detail_->setObjectName(QStringLiteral("copperDetail"));
    detail_->setReadOnly(true);
    detail_->setFont(mono);
    detail_->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto* top = new QHBoxLayout;
    top->addWidget(listBox_);
    top->addWidget(refreshButton);
    top->addStretch(1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(detail_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(status_);
    layout->addWidget(error_);
    layout->addWidget(split, 1);
}

void CopperPane::setSnapshot(const Snapshot& s) {
    // The Copper moves every colour clock: a running machine's list would be stale before
    // it was drawn. A stop is where it means something.
    if (stops_.newStop(s, true)) refresh();
}

void CopperPane::setList(List list) {
    listBox_->setCurrentIndex(int(list)); // refreshes when it changes
}

CopperPane::List CopperPane::list() const {
    return List(listBox_->currentIndex());
}

void CopperPane::refresh() {
    json params = json::object();
    switch (list()) {
    case List::Current: params["list"] = "current"; break;
    case List::One: params["list"] = 1; break;
    case List::Two: params["list"] = 2; break;
    }
    QPointer<CopperPane> self(this);
    send_("copper.list", params, [self](bool ok, const json& result) {
        if (!self) return;
        if (!ok) {
            self->error_->setText(QString::fromStdString(result.value("message", std::string())));
            self->error_->show();
        } else {
            self->error_->clear();
            self->error_->hide();
            self->showList(result);
        }
        emit self->updated();
    });
}

void CopperPane::showList(const json& result) {
    reply_ = result;
    const json& instructions = result["instructions"];
    const int keep = table_->currentRow();
    table_->setRowCount(int(instructions.size()));
    int copper = -1;
    for (int row = 0; row < int(instructions.size()); ++row) {
        const json& i = instructions[std::size_t(row)];
        const bool here = i.value("current", false), done = i.value("executed", false),
                   skipped = i.value("skipped", false);
        QString mark = here ? QStringLiteral("▶") : done ? QStringLiteral("✓") : QString();
        QString note;
        const std::string op = i.value("op", std::string());
        QString instruction;
        if (op == "move") {
            instruction =
                QStringLiteral("MOVE #%1,%2").arg(hex(i.value("value", 0u), 4), regName(i));
            if (i.value("halts", false))
                note = tr("halts the Copper: a protected register");
            else if (i.contains("jump"))
                note = tr("jumps to list %1 (%2)")
                           .arg(i["jump"].value("list", 0))
                           .arg(hex(i["jump"].value("addr", 0u), 6));
        } else {
            instruction = compare(i);
            if (i.value("end", false)) note = tr("end of the list");
        }
        if (skipped) note = tr("passed over by the SKIP before it");
        const json& w = i["words"];
        const QString words =
            QStringLiteral("%1 %2").arg(hex(w[0].get<unsigned>(), 4), hex(w[1].get<unsigned>(), 4));
        const QString cells[ColumnCount] = {mark, hex(i.value("addr", 0u), 6), words, instruction,
                                            note};
        for (int c = 0; c < ColumnCount; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setData(kInstructionRole, row);
            if (here) {
                item->setBackground(QColor(255, 214, 102));
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            } else if (skipped) {
                item->setForeground(Qt::gray);
                QFont f = item->font();
                f.setItalic(true);
                item->setFont(f);
            } else if (done) {
                item->setForeground(QColor(39, 120, 60));
            }
            table_->setItem(row, c, item);
        }
        if (here) copper = row;
    }
    table_->resizeColumnsToContents();

    const json& c = result["copper"];
    QString status;
    if (c["current"].is_null())
        status = tr("The Copper is %1.").arg(stateText(c));
    else
        status = tr("The Copper is %1 at %2")
                     .arg(stateText(c), hex(c["current"].get<std::uint32_t>(), 6));
    if (!c["current"].is_null() && copper < 0) status += tr(" (not in this list)");
    if (!c["current"].is_null()) status += QLatin1Char('.');
    status += tr(" Frame %1, line %2, clock %3.")
                  .arg(c.value("frame", 0ull))
                  .arg(hex(c.value("vpos", 0u), 3), hex(c.value("hpos", 0u), 2));
    if (!c.value("dma", false)) status += tr(" Copper DMA is off.");
    if (c.value("executed_known", false))
        status += tr(" %n instruction(s) fetched this frame.", nullptr,
                     c.value("executed_this_frame", 0));
    else
        status += tr(" What it ran before the state was loaded is not known until the next frame.");
    const std::string end = result.value("end", std::string());
    const QString list = result["list"].is_null()
                             ? tr("The list at %1").arg(hex(result.value("addr", 0u), 6))
                             : tr("List %1 (%2)")
                                   .arg(result["list"].get<int>())
                                   .arg(hex(result.value("addr", 0u), 6));
    status += QLatin1Char(' ') + list;
    if (end == "wait_ffff")
        status += tr(" ends with WAIT $FFFF,$FFFE.");
    else if (end == "jump")
        status += tr(" ends with a jump.");
    else if (end == "halt")
        status += tr(" ends where the Copper halts.");
    else
        status += tr(" goes on past %n instruction(s).", nullptr, int(instructions.size()));
    status_->setText(status);

    if (keep >= 0 && keep < table_->rowCount())
        selectRow(keep);
    else
        detail_->clear();
}

int CopperPane::copperRow() const {
    for (int row = 0; row < table_->rowCount(); ++row)
        if (table_->item(row, MarkColumn)->text() == QStringLiteral("▶")) return row;
    return -1;
}

void CopperPane::selectRow(int row) {
    if (row < 0 || !reply_.contains("instructions") || row >= int(reply_["instructions"].size())) {
        detail_->clear();
        return;
    }
    if (table_->currentRow() != row) {
        const QSignalBlocker block(table_);
        table_->setCurrentCell(row, AddressColumn);
    }
    detail_->setPlainText(describe(reply_["instructions"][std::size_t(row)]));
}

QString CopperPane::describe(const json& i) const {
    const json& w = i["words"];
    QString text = QStringLiteral("%1 at %2: %3 %4\n")
                       .arg(QString::fromStdString(i.value("op", std::string())).toUpper(),
                            hex(i.value("addr", 0u), 6), hex(w[0].get<unsigned>(), 4),
                            hex(w[1].get<unsigned>(), 4));
    if (i.value("op", std::string()) == "move") {
        text += tr("%1 (%2) <- %3\n")
                    .arg(regName(i), hex(i.value("reg", 0u), 3), hex(i.value("value", 0u), 4));
        if (i.value("halts", false))
            text += tr("The Copper may not write this register (COPCON's danger bit): it halts "
                       "here until the next frame.\n");
        if (i.contains("fields")) text += pane_text::fields(i["fields"]) + QLatin1Char('\n');
    } else {
        if (i.value("end", false))
            text += tr("The end of the list: a position the beam never reaches.\n");
        text += tr("Compares the beam with line %1 and clock %2\n")
                    .arg(hex(i.value("vpos", 0u), 2), hex(i.value("hpos", 0u), 2));
        text += tr("  vertical mask %1 (bit 7 is always compared), horizontal mask %2\n")
                    .arg(hex(i.value("vmask", 0u), 2), hex(i.value("hmask", 0u), 2));
        text += i.value("bfd", true) ? tr("  BFD = 1: the blitter is not waited for\n")
                                     : tr("  BFD = 0: also waits until the blitter has finished\n");
        if (i.value("op", std::string()) == "skip")
            text += tr("Skips the next instruction when the beam has reached the position.\n");
    }
    if (i.value("current", false))
        text += tr("The Copper is here.\n");
    else if (i.value("skipped", false))
        text += tr("Passed over by a SKIP this frame.\n");
    else if (i.value("executed", false))
        text += tr("Run this frame.\n");
    return text;
}

QString CopperPane::statusText() const {
    return status_->text();
}
QString CopperPane::detailText() const {
    return detail_->toPlainText();
}
QString CopperPane::errorText() const {
    return error_->text();
}

} // namespace copperline
