// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Source pane: the source file the machine stopped in, read from disk, one row per
// line, with the stop's line marked (▶) and scrolled to; a frame chosen in the call stack
// shows its file and line instead (▷). The margin shows the line breakpoints `break.list`
// gives, each at the line it went to (a line without code moves on to the next that has
// some: `actual_line`); a click there adds one (break.add {kind: "line"}) or removes the
// one it shows (break.remove). The lines with code (`source.lines`) are numbered in black,
// the others in grey. While a coverage capture counts, `coverage.lines` gives each line's
// count, shown beside its number. The chooser lists the files of every program with debug
// information (`source.files`). Everything comes from the commands; the pane decides
// nothing about where code or breakpoints are.

#include "ui/cpu_pane.h"
#include "ui/stop_follower.h"

#include <QMap>
#include <QSet>
#include <QWidget>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace copperline {

class SourcePane : public QWidget {
    Q_OBJECT
public:
    using Send = CpuPane::Send;
    enum Column { MarkColumn, BreakColumn, LineColumn, CountColumn, TextColumn, ColumnCount };

    explicit SourcePane(Send send, QWidget* parent = nullptr);

    // After a stop (a paused snapshot at a new place): stopped(), or once shown when hidden.
    void setSnapshot(const Snapshot& snapshot);
    // Asks where the machine stopped (the innermost frame), the files, the breakpoints and
    // the counts, and shows the stop's line.
    void stopped();
    // A frame chosen in the call stack: its file, with its line marked (▶ for the
    // innermost frame, ▷ for a caller's).
    void showFrame(int index, const QString& file, int line);
    // Shows a file (its debug information's name) without marking a line in it, as the
    // chooser does.
    void showFile(const QString& file);
    // A click in the margin: removes the breakpoint shown at `line`, or adds one there.
    void toggleBreakpoint(int line);
    // Adds a line breakpoint at `line` with a condition (a C expression) or a log message
    // (a log point), either may be empty; the margin's right-button menu asks for them.
    void addBreakpoint(int line, const QString& condition, const QString& log);
    // How the menu asks for a condition or a message: a dialog by default; a test replaces
    // it. nullopt when the user cancelled.
    using Ask = std::function<std::optional<QString>(const QString& title, const QString& label)>;
    void setAsk(Ask ask) { ask_ = std::move(ask); }
    void askBreakpoint(int line, bool logPoint);
    // A log point's message (event.log), added to the log under the source.
    void appendLog(const QString& text);
    QString logText() const;

    // What the pane shows, for tests.
    QTableWidget* table() const { return table_; }
    QString file() const { return file_; }
    // The marked line (0: none) and the frame it belongs to.
    int currentLine() const { return file_ == markFile_ ? markedLine_ : 0; }
    int frameIndex() const { return frame_; }
    // The lines that show a breakpoint, and the breakpoint's id at one (0: none).
    QList<int> breakpointLines() const;
    int breakpointId(int line) const { return breakpoints_.value(line, 0); }
    // The count a coverage capture gives the line (-1: none shown).
    qint64 lineCount(int line) const { return counts_.value(line, -1); }
    bool hasCode(int line) const { return codeLines_.contains(line); }
    // The files the chooser offers (debug information's names).
    QStringList files() const;
    QString statusText() const;
    QString errorText() const;

signals:
    // A stop, a file or a breakpoint change has been shown (its last reply arrived).
    void updated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    // Loads `file` into the table (when it is not the one shown) and marks `line`.
    void place(const QString& file, int line, int frame);
    void loadText(const QString& file);
    // Asks for the shown file's lines with code, breakpoints and counts.
    void reloadMarks();
    void reloadBreakpoints(std::function<void()> then = {});
    void loadFiles();
    void paintMarks();
    void setError(const QString& text);

    Send send_;
    QComboBox* chooser_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* error_ = nullptr;
    QTableWidget* table_ = nullptr;
    QPlainTextEdit* log_ = nullptr;
    Ask ask_;
    QString file_;         // the debug information's name of the file shown
    QString markFile_;     // the file the marked line is in
    int markedLine_ = 0;   // the line marked, in markFile_
    int frame_ = 0;        // the frame whose line is marked
    QMap<int, int> breakpoints_;       // line shown -> breakpoint id
    QMap<int, qint64> counts_;         // line -> coverage count
    QSet<int> codeLines_;
    StopFollower stops_; // which stops this pane has shown
    std::uint64_t generation_ = 0; // increases with every stop, to drop late replies
};

} // namespace copperline
