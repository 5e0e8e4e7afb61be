// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Variables and Watch pane. Variables: the scopes of the selected frame as `vars.scopes`
// gives them (Locals, Parameters, Globals, Registers), each opened with `vars.get` on its
// reference, and a struct's members, an array's elements or a pointer's target opened the
// same way, only when the person opens them (Locals and Parameters start open; what the
// person opened stays open from stop to stop). Watch: C expressions the person enters,
// each evaluated with `eval` in the selected frame at every stop. A value that differs
// from what the same variable (the same function, scope and path) or watch showed at the
// stop before is drawn bold and red. A value can be edited in place (double-click): it
// goes to `vars.set`, as a C expression. References last until the machine moves, so
// every stop asks afresh.

#include "ui/cpu_pane.h"
#include "ui/stop_follower.h"

#include <QHash>
#include <QSet>
#include <QWidget>
#include <nlohmann/json.hpp>

class QLabel;
class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace copperline {

class VarsPane : public QWidget {
    Q_OBJECT
public:
    using Send = CpuPane::Send;
    enum Column { NameColumn, ValueColumn, TypeColumn, ColumnCount };

    explicit VarsPane(Send send, QWidget* parent = nullptr);

    // After a stop (a paused snapshot at a new place): stopped(), or once shown when hidden.
    void setSnapshot(const Snapshot& snapshot);
    // A new stop: what is shown now becomes what the next values are compared with, and
    // the innermost frame's variables and the watches are asked for.
    void stopped();
    // A frame chosen in the call stack, at the same stop: its scopes, and the watches
    // evaluated in it.
    void setFrame(int index);
    void addWatch(const QString& expression);
    void removeWatch(const QString& expression);
    // Writes `value` (a C expression) to the variable or watch of `item`, as editing its
    // value does.
    void setValue(QTreeWidgetItem* item, const QString& value);

    // What the pane shows, for tests.
    QTreeWidget* variables() const { return variables_; }
    QTreeWidget* watches() const { return watches_; }
    int frame() const { return frame_; }
    QString function() const { return function_; }
    // The item at `path`, names joined by '/' from a scope: "Locals/total",
    // "Parameters/it/*it/x" (nullptr when it is not shown).
    QTreeWidgetItem* variable(const QString& path) const;
    QString valueOf(const QString& path) const;
    // The paths of the variables drawn as changed.
    QStringList changedPaths() const;
    QStringList watchExpressions() const;
    QString watchValue(const QString& expression) const;
    bool watchChanged(const QString& expression) const;
    static bool isChanged(const QTreeWidgetItem* item);
    QString errorText() const;

signals:
    // Every reply of a stop's or a frame's questions has arrived.
    void updated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    // Asks vars.get for what `item` opens and shows it under it.
    void fetch(QTreeWidgetItem* item);
    void evaluate(QTreeWidgetItem* watch);
    // One value's columns, its change mark and its children's placeholder.
    void showValue(QTreeWidgetItem* item, const nlohmann::json& v, const QString& key);
    QString keyOf(const QTreeWidgetItem* item) const;
    void expanded(QTreeWidgetItem* item);
    void collapsed(QTreeWidgetItem* item);
    void edited(QTreeWidgetItem* item, int column);
    void done();
    void setError(const QString& text);

    Send send_;
    QLabel* frameLabel_ = nullptr;
    QLabel* error_ = nullptr;
    QTreeWidget* variables_ = nullptr;
    QTreeWidget* watches_ = nullptr;
    QLineEdit* watchEntry_ = nullptr;
    int frame_ = 0;
    QString function_; // the selected frame's function, part of every variable's key
    // Values by key (function, scope and path; "watch" and the expression): those shown at
    // this stop, and at the stop before.
    QHash<QString, QString> current_, previous_;
    // The paths the person opened (Locals and Parameters from the start); a watch's path
    // starts with "watch:".
    QSet<QString> open_;
    bool filling_ = false; // items are being written, not edited
    int pending_ = 0; // replies still to come for this generation
    std::uint64_t generation_ = 0;
    StopFollower stops_; // which stops this pane has shown
};

} // namespace copperline
