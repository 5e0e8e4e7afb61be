// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/coverage_pane.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

namespace copperline {

namespace {
constexpr int kRefreshMs = 1000; // the document's "refreshed every second while the machine runs"
}

CoveragePane::CoveragePane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    program_ = new QLineEdit(this);
    program_->setObjectName(QStringLiteral("coverageProgram"));
    program_->setPlaceholderText(tr("the program counted (its hunk file; PROG.elf beside it is read too)"));
    auto* chooseProgram = new QPushButton(tr("Program..."), this);
    connect(chooseProgram, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("The program counted"));
        if (!p.isEmpty()) open(p);
    });
    auto* openFile = new QPushButton(tr("Open coverage..."), this);
    openFile->setToolTip(tr("A finished coverage.bin or .info file"));
    connect(openFile, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Coverage"), {}, tr("Coverage (coverage.bin *.info)"));
        if (!f.isEmpty() && !program_->text().isEmpty()) open(program_->text(), f);
    });
    auto* top = new QHBoxLayout;
    top->addWidget(program_, 1);
    top->addWidget(chooseProgram);
    top->addWidget(openFile);

    header_ = new QLabel(this);
    header_->setObjectName(QStringLiteral("coverageHeader"));
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setWordWrap(true);
    fileBox_ = new QComboBox(this);
    fileBox_->setObjectName(QStringLiteral("coverageFiles"));
    connect(fileBox_, &QComboBox::activated, this, [this](int i) { showFile(fileBox_->itemData(i).toString()); });

    source_ = new QPlainTextEdit(this);
    source_->setObjectName(QStringLiteral("coverageSource"));
    source_->setReadOnly(true);
    source_->setLineWrapMode(QPlainTextEdit::NoWrap);
    source_->setFont(QFont(QStringLiteral("monospace")));
    connect(source_, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        activateLine(std::uint32_t(source_->textCursor().blockNumber() + 1));
    });
    functions_ = new QTableWidget(0, 3, this);
    functions_->setObjectName(QStringLiteral("coverageFunctions"));
    functions_->setHorizontalHeaderLabels({tr("Function"), tr("Line"), tr("Count")});
    functions_->horizontalHeader()->setStretchLastSection(true);
    functions_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(functions_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (auto* item = functions_->item(row, 1)) activateLine(item->text().toUInt());
    });
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(source_);
    split->addWidget(functions_);
    split->setStretchFactor(0, 3);

    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("coverageError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #d04040"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(header_);
    layout->addWidget(fileBox_);
    layout->addWidget(split, 1);
    layout->addWidget(error_);

    timer_ = new QTimer(this);
    connect(timer_, &QTimer::timeout, this, [this] {
        if (isVisible() && live_) refresh();
    });
    timer_->start(kRefreshMs);
}

void CoveragePane::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refresh();
}

void CoveragePane::open(const QString& program, const QString& file) {
    program_->setText(program);
    nlohmann::json p = {{"program", program.toStdString()}};
    if (!file.isEmpty()) p["path"] = file.toStdString();
    send_("coverage.open", p, [this](bool ok, const nlohmann::json& r) {
        if (!ok) {
            error_->setText(QString::fromStdString(r.value("message", std::string("coverage.open failed"))));
            return;
        }
        error_->clear();
        showStatus(r);
    });
}

void CoveragePane::refresh() {
    if (busy_) return;
    busy_ = true;
    send_("coverage.status", nlohmann::json::object(), [this](bool ok, const nlohmann::json& r) {
        busy_ = false;
        if (ok) showStatus(r);
    });
}

void CoveragePane::showStatus(const nlohmann::json& s) {
    live_ = s.value("source", std::string()) == "capture";
    QStringList header;
    for (const auto& h : s.value("header", nlohmann::json::array())) header << QString::fromStdString(h.get<std::string>());
    header_->setText(header.join('\n'));
    const QString shown = file_;
    fileBox_->clear();
    for (const auto& f : s.value("files", nlohmann::json::array())) {
        const QString path = QString::fromStdString(f["file"].get<std::string>());
        fileBox_->addItem(QStringLiteral("%1  (lines %2/%3, functions %4/%5)")
                              .arg(path.section('/', -1))
                              .arg(f.value("lines_hit", 0))
                              .arg(f.value("lines", 0))
                              .arg(f.value("functions_hit", 0))
                              .arg(f.value("functions", 0)),
                          path);
    }
    int index = fileBox_->findData(shown);
    if (index < 0 && fileBox_->count()) index = 0;
    if (index >= 0) {
        fileBox_->setCurrentIndex(index);
        showFile(fileBox_->itemData(index).toString());
    } else {
        emit updated();
    }
}

void CoveragePane::showFile(const QString& path) {
    send_("coverage.lines", {{"file", path.toStdString()}}, [this, path](bool ok, const nlohmann::json& r) {
        if (!ok) {
            error_->setText(QString::fromStdString(r.value("message", std::string())));
            return;
        }
        const bool changed = path != file_;
        file_ = path;
        showLines(r);
        if (changed) source_->moveCursor(QTextCursor::Start);
    });
}

void CoveragePane::showLines(const nlohmann::json& r) {
    counts_.clear();
    for (const auto& l : r.value("lines", nlohmann::json::array()))
        counts_[l["line"].get<std::uint32_t>()] = l["count"].get<std::uint64_t>();
    functions_->setRowCount(0);
    for (const auto& f : r.value("functions", nlohmann::json::array())) {
        const int row = functions_->rowCount();
        functions_->insertRow(row);
        functions_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(f["name"].get<std::string>())));
        functions_->setItem(row, 1, new QTableWidgetItem(QString::number(f["line"].get<std::uint32_t>())));
        functions_->setItem(row, 2, new QTableWidgetItem(QString::number(f["count"].get<std::uint64_t>())));
    }
    render();
    emit updated();
}

void CoveragePane::render() {
    // The source as the gutter annotates it: the count, or nothing for lines without code,
    // and "#####" (gcov's mark) for lines with code never executed.
    QStringList source;
    QFile f(file_);
    if (f.open(QIODevice::ReadOnly)) source = QString::fromUtf8(f.readAll()).split('\n');
    const std::uint32_t last = counts_.empty() ? 0 : counts_.rbegin()->first;
    while (std::uint32_t(source.size()) < last) source << (f.isOpen() ? QString() : tr("(source not found)"));
    QStringList lines;
    for (int i = 0; i < source.size(); ++i) {
        const auto it = counts_.find(std::uint32_t(i + 1));
        const QString gutter = it == counts_.end() ? QString() : it->second ? QString::number(it->second) : QStringLiteral("#####");
        lines << QStringLiteral("%1 %2 | %3").arg(gutter, 9).arg(i + 1, 5).arg(source[i]);
    }
    const QSignalBlocker block(source_);
    source_->setPlainText(lines.join('\n'));
    QList<QTextEdit::ExtraSelection> marks;
    for (const auto& [line, count] : counts_) {
        QTextEdit::ExtraSelection sel;
        sel.cursor = QTextCursor(source_->document()->findBlockByNumber(int(line) - 1));
        sel.format.setBackground(count ? QColor(0xd8, 0xf5, 0xd8) : QColor(0xf8, 0xd0, 0xd0));
        sel.format.setProperty(QTextFormat::FullWidthSelection, true);
        marks << sel;
    }
    source_->setExtraSelections(marks);
}

void CoveragePane::activateLine(std::uint32_t line) {
    if (file_.isEmpty() || !counts_.count(line)) return;
    send_("coverage.addresses", {{"file", file_.toStdString()}, {"line", line}}, [this](bool ok, const nlohmann::json& r) {
        if (!ok || r["ranges"].empty()) return;
        emit addressActivated(r["ranges"][0]["start"].get<std::uint32_t>());
    });
}

QString CoveragePane::headerText() const { return header_->text(); }
QStringList CoveragePane::files() const {
    QStringList out;
    for (int i = 0; i < fileBox_->count(); ++i) out << fileBox_->itemData(i).toString();
    return out;
}
QString CoveragePane::currentFile() const { return file_; }
std::int64_t CoveragePane::lineCount(std::uint32_t line) const {
    const auto it = counts_.find(line);
    return it == counts_.end() ? -1 : std::int64_t(it->second);
}
QString CoveragePane::sourceText() const { return source_->toPlainText(); }
QString CoveragePane::errorText() const { return error_->text(); }

} // namespace copperline
