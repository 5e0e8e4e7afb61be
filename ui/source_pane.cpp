// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/source_pane.h"

#include "ui/pane_text.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPointer>
#include <QTableWidget>
#include <QVBoxLayout>

namespace copperline {

namespace {

using nlohmann::json;
using pane_text::hex;

const QColor kStopColour(255, 214, 102);  // the innermost frame's line, as the Copper pane marks
const QColor kFrameColour(198, 232, 198); // a caller's line
const QColor kBreakColour(192, 57, 43);

QString str(const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>())
                                                 : QString();
}

// Whether two names are the same file: equal, or one is a trailing part of the other's
// path (the debug information may name a file relative to its compilation directory).
bool sameFile(const QString& a, const QString& b) {
    if (a.isEmpty() || b.isEmpty()) return false;
    return a == b || a.endsWith(QLatin1Char('/') + b) || b.endsWith(QLatin1Char('/') + a);
}

// Tabs to spaces at C's eight-column stops, so that a table cell lines the code up.
QString expandTabs(const QString& line) {
    if (!line.contains(QLatin1Char('\t'))) return line;
    QString out;
    for (QChar c : line) {
        if (c == QLatin1Char('\t'))
            out += QString(8 - out.size() % 8, QLatin1Char(' '));
        else
            out += c;
    }
    return out;
}

} // namespace

SourcePane::SourcePane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    chooser_ = new QComboBox(this);
    chooser_->setObjectName(QStringLiteral("sourceFiles"));
    chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    chooser_->setPlaceholderText(tr("No program with line information"));
    connect(chooser_, &QComboBox::activated, this, [this](int index) {
        showFile(chooser_->itemData(index).toString());
    });
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("sourceStatus"));
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("sourceError"));
    error_->setStyleSheet(QStringLiteral("color: #c0392b"));
    // One line, whatever its length: a narrow dock must not grow to hold a message.
    error_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    error_->hide();

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName(QStringLiteral("sourceTable"));
    table_->setHorizontalHeaderLabels({QString(), QString(), tr("Line"), tr("Count"), tr("Source")});
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(QFontMetrics(mono).height() + 2);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setShowGrid(false);
    table_->setWordWrap(false);
    table_->setFont(mono);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setColumnHidden(CountColumn, true);
    const int glyph = QFontMetrics(mono).horizontalAdvance(QStringLiteral("▶")) + 10;
    table_->setColumnWidth(MarkColumn, glyph);
    table_->setColumnWidth(BreakColumn, glyph);
    table_->setColumnWidth(LineColumn, QFontMetrics(mono).horizontalAdvance(QStringLiteral("00000")) + 10);
    table_->setColumnWidth(CountColumn, QFontMetrics(mono).horizontalAdvance(QStringLiteral("0000000")) + 10);
    table_->setToolTip(tr("Click a line's margin to add or remove a breakpoint"));
    // The margin: the marks, the breakpoint and the line number.
    connect(table_, &QTableWidget::cellClicked, this, [this](int row, int column) {
        if (column == MarkColumn || column == BreakColumn || column == LineColumn)
            toggleBreakpoint(row + 1);
    });
    // The right button: a breakpoint with a condition, or a log point, as VS Code offers.
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table_, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const int row = table_->rowAt(at.y());
        if (row < 0) return;
        QMenu menu(this);
        menu.addAction(tr("Breakpoint with a condition..."), this, [this, row] { askBreakpoint(row + 1, false); });
        menu.addAction(tr("Log point..."), this, [this, row] { askBreakpoint(row + 1, true); });
        if (breakpoints_.contains(row + 1))
            menu.addAction(tr("Remove the breakpoint"), this, [this, row] { toggleBreakpoint(row + 1); });
        menu.exec(table_->viewport()->mapToGlobal(at));
    });
    ask_ = [this](const QString& title, const QString& label) -> std::optional<QString> {
        bool ok = false;
        const QString text = QInputDialog::getText(this, title, label, QLineEdit::Normal, QString(), &ok);
        if (!ok) return std::nullopt;
        return text;
    };
    log_ = new QPlainTextEdit(this);
    log_->setObjectName(QStringLiteral("sourceLog"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(500);
    log_->setMaximumHeight(QFontMetrics(mono).height() * 5);
    log_->setFont(mono);
    log_->hide();

    auto* top = new QHBoxLayout;
    top->addWidget(chooser_);
    top->addWidget(status_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(error_);
    layout->addWidget(table_, 1);
    layout->addWidget(log_);
}

void SourcePane::askBreakpoint(int line, bool logPoint) {
    const auto text = logPoint ? ask_(tr("Log point at line %1").arg(line),
                                      tr("Message ({expressions} are replaced by their values):"))
                               : ask_(tr("Breakpoint at line %1").arg(line),
                                      tr("Stop when this C expression is nonzero:"));
    if (!text || text->trimmed().isEmpty()) return;
    if (logPoint) addBreakpoint(line, {}, *text);
    else addBreakpoint(line, *text, {});
}

void SourcePane::appendLog(const QString& text) {
    log_->show();
    log_->appendPlainText(text);
}

QString SourcePane::logText() const {
    return log_->toPlainText();
}

void SourcePane::setSnapshot(const Snapshot& s) {
    if (stops_.newStop(s, isVisible())) stopped();
}

void SourcePane::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stops_.shown()) stopped();
}

void SourcePane::stopped() {
    stops_.asked();
    const std::uint64_t generation = ++generation_;
    loadFiles();
    QPointer<SourcePane> self(this);
    send_("stack.frames", {{"start", 0}, {"count", 1}},
          [self, generation](bool ok, const json& result) {
              if (!self || generation != self->generation_) return;
              if (!ok) {
                  self->setError(str(result, "message"));
                  emit self->updated();
                  return;
              }
              const json frames = result.value("frames", json::array());
              const json frame = frames.empty() ? json::object() : frames.front();
              const QString file = str(frame, "file");
              const QString function = str(frame, "function");
              if (!file.isEmpty() && frame.value("line", 0) > 0) {
                  self->place(file, frame.value("line", 0), 0);
                  self->status_->setText(
                      tr("Stopped in %1 at %2:%3")
                          .arg(function.isEmpty() ? tr("?") : function, QFileInfo(file).fileName())
                          .arg(frame.value("line", 0)));
              } else {
                  // No line here (system code, a program without debug information): the
                  // file shown stays, without a mark.
                  self->markedLine_ = 0;
                  self->frame_ = 0;
                  self->status_->setText(
                      tr("Stopped at %1%2 (no source line)")
                          .arg(hex(frame.value("pc", 0u), 6),
                               function.isEmpty() ? QString() : tr(" in %1").arg(function)));
                  self->paintMarks();
                  self->reloadMarks();
              }
          });
}

void SourcePane::showFrame(int index, const QString& file, int line) {
    if (file.isEmpty() || line <= 0) {
        markedLine_ = 0;
        frame_ = index;
        status_->setText(tr("Frame %1 has no source line").arg(index));
        paintMarks();
        return;
    }
    place(file, line, index);
    status_->setText(tr("Frame %1 at %2:%3").arg(index).arg(QFileInfo(file).fileName()).arg(line));
}

void SourcePane::showFile(const QString& file) {
    if (file.isEmpty()) return;
    if (file != file_) {
        loadText(file);
        reloadMarks();
    }
}

void SourcePane::place(const QString& file, int line, int frame) {
    markFile_ = file;
    markedLine_ = line;
    frame_ = frame;
    if (file != file_) loadText(file);
    paintMarks();
    // A stop brings new breakpoint hits and counts; a frame chosen at the same stop does not.
    if (frame == 0 || codeLines_.isEmpty()) reloadMarks();
    if (line >= 1 && line <= table_->rowCount())
        table_->scrollToItem(table_->item(line - 1, TextColumn), QAbstractItemView::PositionAtCenter);
}

void SourcePane::loadText(const QString& file) {
    file_ = file;
    breakpoints_.clear();
    counts_.clear();
    codeLines_.clear();
    QStringList lines;
    QFile f(file);
    if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
        if (!lines.isEmpty() && lines.back().isEmpty()) lines.pop_back();
        error_->hide();
    } else {
        setError(tr("Cannot read %1 (%2): the lines with code are shown without their text")
                     .arg(file, f.errorString()));
    }
    table_->clearContents();
    table_->setRowCount(int(lines.size()));
    for (int row = 0; row < int(lines.size()); ++row) {
        for (int c = 0; c < ColumnCount; ++c) {
            auto* item = new QTableWidgetItem(c == TextColumn ? expandTabs(lines[row])
                                              : c == LineColumn ? QString::number(row + 1)
                                                                : QString());
            if (c == LineColumn || c == CountColumn)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == MarkColumn || c == BreakColumn) item->setTextAlignment(Qt::AlignCenter);
            table_->setItem(row, c, item);
        }
    }
    const int at = chooser_->findData(file);
    if (at >= 0) {
        const QSignalBlocker block(chooser_);
        chooser_->setCurrentIndex(at);
    }
}

void SourcePane::reloadMarks() {
    if (file_.isEmpty()) {
        emit updated();
        return;
    }
    QPointer<SourcePane> self(this);
    const QString file = file_;
    send_("source.lines", {{"file", file.toStdString()}}, [self, file](bool ok, const json& result) {
        if (!self || file != self->file_) return;
        self->codeLines_.clear();
        if (!ok) return;
        int last = 0;
        for (const json& l : result.value("lines", json::array())) {
            self->codeLines_.insert(l.value("line", 0));
            last = std::max(last, l.value("line", 0));
        }
        // A file that could not be read still shows the rows its code is on.
        for (int row = self->table_->rowCount(); row < last; ++row) {
            self->table_->insertRow(row);
            for (int c = 0; c < ColumnCount; ++c) {
                auto* item = new QTableWidgetItem(c == LineColumn ? QString::number(row + 1) : QString());
                if (c == LineColumn) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                self->table_->setItem(row, c, item);
            }
        }
    });
    // Counts only while a coverage capture (or an opened coverage file) has them; an error
    // means none.
    send_("coverage.lines", {{"file", file.toStdString()}}, [self, file](bool ok, const json& result) {
        if (!self || file != self->file_) return;
        self->counts_.clear();
        if (ok)
            for (const json& l : result.value("lines", json::array()))
                self->counts_[l.value("line", 0)] = l.value("count", qint64(0));
    });
    reloadBreakpoints();
}

void SourcePane::reloadBreakpoints(std::function<void()> then) {
    QPointer<SourcePane> self(this);
    const QString file = file_;
    send_("break.list", json::object(), [self, file, then](bool ok, const json& result) {
        if (!self) return;
        if (ok && file == self->file_) {
            self->breakpoints_.clear();
            for (const json& b : result.value("breakpoints", json::array())) {
                const std::string kind = b.value("kind", std::string());
                if (kind != "line" && kind != "function") continue;
                // Each place it stops at in this file: a line's (in every inlined copy) or a
                // function's, after its prologue.
                for (const json& l : b.value("locations", json::array())) {
                    const int line = l.value("line", 0);
                    if (line > 0 && sameFile(str(l, "file"), file)) self->breakpoints_[line] = b.value("id", 0);
                }
                if (kind != "line") continue;
                const QString where = b.contains("actual_file") ? str(b, "actual_file") : str(b, "file");
                if (!sameFile(where, file) && !sameFile(str(b, "file"), file)) continue;
                const int line = b.value("actual_line", b.value("line", 0));
                if (line > 0) self->breakpoints_[line] = b.value("id", 0);
            }
        }
        self->paintMarks();
        if (then) then();
        emit self->updated();
    });
}

void SourcePane::toggleBreakpoint(int line) {
    if (file_.isEmpty() || line <= 0) return;
    QPointer<SourcePane> self(this);
    if (const int id = breakpoints_.value(line, 0)) {
        send_("break.remove", {{"id", id}}, [self](bool ok, const json& result) {
            if (!self) return;
            if (!ok) self->setError(str(result, "message"));
            self->reloadBreakpoints();
        });
        return;
    }
    addBreakpoint(line, {}, {});
}

void SourcePane::addBreakpoint(int line, const QString& condition, const QString& log) {
    if (file_.isEmpty() || line <= 0) return;
    QPointer<SourcePane> self(this);
    json params = {{"kind", "line"}, {"file", file_.toStdString()}, {"line", line}};
    if (!condition.trimmed().isEmpty()) params["cond"] = condition.trimmed().toStdString();
    if (!log.isEmpty()) params["log"] = log.toStdString();
    send_("break.add", params,
          [self, line](bool ok, const json& result) {
              if (!self) return;
              if (!ok) {
                  self->setError(tr("No breakpoint at line %1: %2").arg(line).arg(str(result, "message")));
                  emit self->updated();
                  return;
              }
              self->error_->hide();
              const int actual = result.value("actual_line", line);
              self->status_->setText(
                  actual == line ? tr("Breakpoint %1 at line %2").arg(result.value("id", 0)).arg(line)
                                 : tr("Breakpoint %1 at line %2 (line %3 has no code)")
                                       .arg(result.value("id", 0))
                                       .arg(actual)
                                       .arg(line));
              self->reloadBreakpoints();
          });
}

void SourcePane::loadFiles() {
    QPointer<SourcePane> self(this);
    send_("source.files", json::object(), [self](bool ok, const json& result) {
        if (!self || !ok) return;
        const QSignalBlocker block(self->chooser_);
        self->chooser_->clear();
        const json programs = result.value("programs", json::array());
        for (const json& p : programs) {
            const QString program = QFileInfo(str(p, "name")).fileName();
            for (const json& f : p.value("files", json::array())) {
                const QString name = QString::fromStdString(f.get<std::string>());
                QString text = QFileInfo(name).fileName();
                if (programs.size() > 1) text += QStringLiteral(" (%1)").arg(program);
                self->chooser_->addItem(text, name);
                self->chooser_->setItemData(self->chooser_->count() - 1, name, Qt::ToolTipRole);
            }
        }
        self->chooser_->setCurrentIndex(self->chooser_->findData(self->file_));
    });
}

void SourcePane::paintMarks() {
    const bool marking = file_ == markFile_ && markedLine_ > 0;
    const QColor dim = palette().color(QPalette::Disabled, QPalette::Text);
    const QColor text = palette().color(QPalette::Text);
    for (int row = 0; row < table_->rowCount(); ++row) {
        const int line = row + 1;
        const bool here = marking && line == markedLine_;
        const QBrush background = here ? QBrush(frame_ == 0 ? kStopColour : kFrameColour) : QBrush();
        for (int c = 0; c < ColumnCount; ++c)
            if (auto* item = table_->item(row, c)) item->setBackground(background);
        table_->item(row, MarkColumn)->setText(here ? (frame_ == 0 ? QStringLiteral("▶") : QStringLiteral("▷"))
                                                    : QString());
        auto* mark = table_->item(row, BreakColumn);
        mark->setText(breakpoints_.contains(line) ? QStringLiteral("●") : QString());
        mark->setForeground(kBreakColour);
        mark->setToolTip(breakpoints_.contains(line)
                             ? tr("Breakpoint %1: click to remove it").arg(breakpoints_.value(line))
                             : QString());
        table_->item(row, LineColumn)->setForeground(codeLines_.contains(line) ? text : dim);
        auto* count = table_->item(row, CountColumn);
        const qint64 n = counts_.value(line, -1);
        count->setText(n >= 0 ? QString::number(n) : QString());
        count->setForeground(n == 0 ? kBreakColour : text);
    }
    table_->setColumnHidden(CountColumn, counts_.isEmpty());
}

QList<int> SourcePane::breakpointLines() const {
    return breakpoints_.keys();
}

QStringList SourcePane::files() const {
    QStringList out;
    for (int i = 0; i < chooser_->count(); ++i)
        out << chooser_->itemData(i).toString();
    return out;
}

QString SourcePane::statusText() const {
    return status_->text();
}

QString SourcePane::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void SourcePane::setError(const QString& text) {
    error_->setText(text);
    error_->setToolTip(text);
    error_->setVisible(!text.isEmpty());
}

} // namespace copperline
