// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Copper pane: a Copper list as the `copper.list` command decodes it (list 1, list 2
// or the one the Copper runs now), one row per instruction, with the Copper's place in it
// this frame: the instruction it carries out or fetches next (marked ▶), the ones it has
// already run (✓) and the MOVEs a SKIP passed over. A click on a row shows the instruction
// in the detail box: a MOVE's register with its bits named (BPLCON0's HIRES, BPU, ...), a
// WAIT's or SKIP's compare and masks. Everything comes from the command; the pane decides
// nothing about the Copper itself.

#include "ui/cpu_pane.h"
#include "ui/stop_follower.h"

#include <QWidget>
#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace copperline {

class CopperPane : public QWidget {
    Q_OBJECT
public:
    using Send = CpuPane::Send;
    enum class List { Current, One, Two };
    enum Column {
        MarkColumn,
        AddressColumn,
        WordsColumn,
        InstructionColumn,
        NoteColumn,
        ColumnCount
    };

    explicit CopperPane(Send send, QWidget* parent = nullptr);

    // After a stop (a paused snapshot at a new place): asks for the list again.
    void setSnapshot(const Snapshot& snapshot);
    // Asks copper.list for the chosen list now.
    void refresh();
    void setList(List list);
    List list() const;
    // Shows row `row`'s instruction in the detail box, as a click does.
    void selectRow(int row);

    // What the pane shows, for tests.
    QTableWidget* table() const { return table_; }
    // The row of the instruction the Copper is at (-1 when it is not in the list shown).
    int copperRow() const;
    QString statusText() const;
    QString detailText() const;
    QString errorText() const;
    const nlohmann::json& reply() const { return reply_; }

signals:
    // copper.list answered (or failed).
    void updated();

private:
    void showList(const nlohmann::json& result);
    QString describe(const nlohmann::json& instruction) const;

    Send send_;
    QComboBox* listBox_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* error_ = nullptr;
    QTableWidget* table_ = nullptr;
    QPlainTextEdit* detail_ = nullptr;
    nlohmann::json reply_;
    StopFollower stops_; // which stops this pane has shown
};

} // namespace copperline
