// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The custom registers pane: every custom register that has a name, as `custom.dump`
// gives it, with its value (read back where the chips allow it, else the value last
// written), and, while the machine is paused, who wrote it last: the Copper's MOVE or the
// CPU's instruction, with the frame, line and clock (found in the record of the past by
// custom.dump {writers: true}). A click on a row names the value's bits in the detail box.
// Everything comes from the command. The lookup replays the record of the past, so a
// hidden pane asks only once it is shown, and "Last writers" turns it off.

#include "ui/cpu_pane.h"
#include "ui/stop_follower.h"

#include <QWidget>
#include <nlohmann/json.hpp>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTableWidget;

namespace copperline {

class CustomRegsPane : public QWidget {
    Q_OBJECT
public:
    using Send = CpuPane::Send;
    enum Column { OffsetColumn, NameColumn, ValueColumn, WrittenColumn, WriterColumn, ColumnCount };

    explicit CustomRegsPane(Send send, QWidget* parent = nullptr);

    // After a stop (a paused snapshot at a new place): asks again, with the writers.
    void setSnapshot(const Snapshot& snapshot);
    // Asks custom.dump now (with the writers when they are wanted and the machine is
    // paused, as far as the last snapshot told).
    void refresh();
    // Whether the last writers are looked up (a replay of the record: the machine must
    // be paused).
    void setWritersWanted(bool on);
    bool writersWanted() const;
    // Shows only the registers whose name holds `text` (case ignored).
    void setFilter(const QString& text);
    // Shows the register's bits in the detail box, as a click on its row does.
    void selectRegister(const QString& name);

    // What the pane shows, for tests.
    QTableWidget* table() const { return table_; }
    int rowOf(const QString& name) const;
    QString valueText(const QString& name) const;
    QString writerText(const QString& name) const;
    QString detailText() const;
    QString errorText() const;
    const nlohmann::json& reply() const { return reply_; }

signals:
    void updated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showDump(const nlohmann::json& result);
    void showDetail(int row);
    void applyFilter();

    Send send_;
    QCheckBox* writers_ = nullptr;
    QLineEdit* filter_ = nullptr;
    QLabel* error_ = nullptr;
    QTableWidget* table_ = nullptr;
    QPlainTextEdit* detail_ = nullptr;
    nlohmann::json reply_;
    bool running_ = false;
    StopFollower stops_; // which stops this pane has shown
};

} // namespace copperline
