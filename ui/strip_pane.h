// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The profile strip's pane (docs/profile-strip.md): the Start, Mode and End fields that
// give the machine its one start and way of ending, the strip of bars (one per profiling
// frame the record holds, oldest at the left, as tall as it took, the one the machine
// stands in bright), the summary beneath, and the replayed call tree of the frame the
// machine stands in. Pressing a bar stands the machine on its first instruction; Now
// returns to the present. Frames (the strip's height in frames; automatic when 0) and
// Lines (the tree's height in lines) are behind the "…" button. Everything comes through
// the strip family of commands (strip.set, strip.get, strip.bars, strip.select,
// strip.tree), as for any client.

#include <QRectF>
#include <QWidget>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSpinBox;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace copperline {

class StripView;

class StripPane : public QWidget {
    Q_OBJECT
public:
    using Send =
        std::function<void(const std::string& method, const nlohmann::json& params,
                           std::function<void(bool ok, const nlohmann::json& result)> reply)>;

    // One bar as strip.bars gives it.
    struct Bar {
        std::uint64_t bar = 0;
        std::uint64_t frame = 0;
        std::uint64_t cck = 0;
        std::uint64_t lengthCck = 0;
        double lengthUs = 0;
        std::optional<std::uint64_t> framesSpanned; // passes only
        bool here = false;
    };

    explicit StripPane(Send send, QWidget* parent = nullptr);

    // Asks strip.get and strip.bars (and the tree, when the machine has come to stand in
    // another profiling frame); one round at a time. The window calls it from a timer
    // while the pane is shown.
    void refresh();
    // What pressing bar N does: pause, strip.select, then its tree.
    void selectBar(std::uint64_t bar);
    // The tree of profiling frame N (strip.tree), shown beneath the strip.
    void showTree(std::optional<std::uint64_t> bar);
    // What Now does: pause, timeline.status, timeline.seek to the newest moment.
    void goToNow();
    // The right button's actions on a routine.
    void setBreakpoint(std::uint32_t address);
    // The right button's menu for a row of the tree (the caller shows or triggers it).
    QMenu* routineMenu(QTreeWidgetItem* item);

    // What the pane shows, for tests.
    const std::vector<Bar>& bars() const { return bars_; }
    // Each bar's rectangle in stripView()'s coordinates, as drawn (clipped at the top).
    std::vector<QRectF> barRects() const;
    // The index into bars() of the bar at a point of stripView(), or -1.
    int barAt(QPointF point) const;
    // What a bar says of itself (its tooltip, and its label where there is room): the
    // frame it began in, its length in microseconds, and for a pass the frames it spanned.
    QString barLabel(int index) const;
    // Whether bar `index` runs off the top (the notch).
    bool runsOffTop(int index) const;
    // How many frames tall the strip stands, and the height in pixels of one frame.
    double framesTall() const;
    double pixelsPerFrame() const;
    // The places the strip's width is shared into (0 before any bar).
    int places() const { return places_; }
    QString summaryText() const;
    QString errorText() const;
    // The bar whose tree is shown, if any.
    std::optional<std::uint64_t> treeBar() const { return treeBar_; }
    // The call path of a row (the "at" addresses from the root), the key folding is kept by.
    static QString pathOf(const QTreeWidgetItem* item);
    bool isFolded(const QString& path) const { return folded_.count(path) > 0; }

    QWidget* stripView() const;
    QTreeWidget* treeWidget() const { return tree_; }
    QLineEdit* startEdit() const { return start_; }
    QComboBox* modeBox() const { return mode_; }
    QLineEdit* endEdit() const { return end_; }
    QToolButton* moreButton() const { return more_; }
    QToolButton* nowButton() const { return now_; }
    QSpinBox* framesBox() const { return frames_; }
    QSpinBox* linesBox() const { return lines_; }

    // The tree's columns.
    enum Column {
        TotalColumn,
        PercentColumn,
        SelfColumn,
        CallsColumn,
        RoutineColumn,
        AtColumn,
        ColumnCount
    };
    // The role of the Routine column that holds a row's first instruction.
    static constexpr int AddressRole = Qt::UserRole + 1;

signals:
    void addressActivated(std::uint32_t address);
    // strip.bars answered.
    void barsUpdated();
    // A tree was shown.
    void treeUpdated();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    friend class StripView;

    void showSpec(const nlohmann::json& spec);
    void showBars(const nlohmann::json& reply);
    void fillTree(const nlohmann::json& tree);
    void addNode(QTreeWidgetItem* parent, const nlohmann::json& node, double rootTotal,
                 const QString& path);
    void commitStart();
    void commitEnd();
    void commitMode(int index);
    void commit(const nlohmann::json& params);
    void restoreFields();
    void showError(const nlohmann::json& error);
    void applyLines();
    void roundDone();

    Send send_;
    QLineEdit* start_ = nullptr;
    QComboBox* mode_ = nullptr;
    QLineEdit* end_ = nullptr;
    QToolButton* now_ = nullptr;
    QToolButton* more_ = nullptr;
    QSpinBox* frames_ = nullptr;
    QSpinBox* lines_ = nullptr;
    StripView* view_ = nullptr;
    QLabel* summary_ = nullptr;
    QTreeWidget* tree_ = nullptr;
    QLabel* error_ = nullptr;

    nlohmann::json spec_;   // strip.get's last answer
    std::string shownSpec_; // start, mode and end as last seen: a change shares the places anew
    std::vector<Bar> bars_;
    std::uint64_t longestCck_ = 0;
    double frameCck_ = 313.0 * 227.0; // PAL; NTSC when the bars' microseconds say so
    int places_ = 0;
    std::optional<std::uint64_t> treeBar_;
    std::uint64_t treeCck_ =
        0; // where the tree's frame began: a bar number cut again is another frame
    std::set<QString> folded_;
    bool filling_ = false;
    bool busy_ = false;
    bool again_ = false;
};

} // namespace copperline
