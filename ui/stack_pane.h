// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The call stack pane: the frames `stack.frames` gives at a stop, innermost first, one row
// each: the function, its file and line, the pc (a caller's is the return address) and
// what kind of frame it is (an inlined call, system code without line information). A
// click on a row selects the frame: frameSelected tells the Source and Variables panes.
// A new stop selects the innermost frame again (without the signal: those panes follow the
// stop themselves).

#include "ui/cpu_pane.h"
#include "ui/stop_follower.h"

#include <QWidget>
#include <nlohmann/json.hpp>

class QLabel;
class QTableWidget;

namespace copperline {

class StackPane : public QWidget {
    Q_OBJECT
public:
    using Send = CpuPane::Send;
    enum Column { IndexColumn, FunctionColumn, LocationColumn, PcColumn, NoteColumn, ColumnCount };
    // How many frames a stop asks for.
    static constexpr int kFrames = 64;

    explicit StackPane(Send send, QWidget* parent = nullptr);

    // After a stop (a paused snapshot at a new place): refresh(), or once shown when hidden.
    void setSnapshot(const Snapshot& snapshot);
    void refresh();
    // Selects frame `index` as a click on its row does (and says so with frameSelected).
    void selectFrame(int index);

    // What the pane shows, for tests.
    QTableWidget* table() const { return table_; }
    int selectedFrame() const { return selected_; }
    const nlohmann::json& frames() const { return frames_; }
    // The row of the first frame whose function is `function` (-1: none).
    int rowOf(const QString& function) const;
    QString errorText() const;

signals:
    // The person chose a frame: its index, file (the debug information's name; empty when
    // it has no line) and line.
    void frameSelected(int index, const QString& file, int line);
    // stack.frames answered (or failed).
    void updated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showFrames(const nlohmann::json& result);
    void paintSelection();

    Send send_;
    QLabel* error_ = nullptr;
    QLabel* more_ = nullptr;
    QTableWidget* table_ = nullptr;
    nlohmann::json frames_ = nlohmann::json::array();
    int selected_ = 0;
    StopFollower stops_; // which stops this pane has shown
    std::uint64_t generation_ = 0;
};

} // namespace copperline
