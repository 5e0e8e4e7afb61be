// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The memory pane: 256 bytes at a time in hex and as text (ISO 8859-1, the Amiga's
// character set), read with `mem.read` (a debugger's read: no side effects), the region
// they lie in named from `mem.regions` (chip, slow, fast, custom, ROM, ...), and the bytes
// that changed since the machine last stopped marked. The go-to box takes an address in
// hex ($C00000, 0xC00000 or C00000), or a name or C expression the debugger's `eval`
// reads (where a pointer points, where a variable or function is, or a number). The find
// box looks for a text with `mem.find`, from the byte after the shown address on.

#include "ui/cpu_pane.h"
#include "ui/stop_follower.h"

#include <QList>
#include <QWidget>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

class QLabel;
class QLineEdit;
class QTableWidget;

namespace copperline {

class MemoryPane : public QWidget {
    Q_OBJECT
public:
    using Send = CpuPane::Send;
    static constexpr int kBytesPerRow = 16;
    static constexpr int kRows = 16;
    // Columns: the address, a byte each, the text.
    static constexpr int kTextColumn = kBytesPerRow + 1;

    explicit MemoryPane(Send send, QWidget* parent = nullptr);

    // After a stop (a paused snapshot at a new place): stopped().
    void setSnapshot(const Snapshot& snapshot);
    // The machine stopped: reads the shown bytes again and marks those that differ from
    // what they were at the stop before.
    void stopped();
    // Reads the shown bytes again (the marks stay as they were).
    void refresh();
    // The go-to box: an address in hex, gone to now; anything else is asked of `eval` and
    // gone to when it answers (a message when it names no address). False for nothing.
    bool goTo(const QString& text);
    void goToAddress(std::uint32_t address);
    // The find box: the next place the text lies after the shown address (from the start
    // of memory when there is none after it).
    void find(const QString& text);

    // What the pane shows, for tests.
    std::uint32_t address() const { return address_; }
    QTableWidget* table() const { return table_; }
    QString regionText() const;
    QString errorText() const;
    // The byte at `address` as shown ("" when it is not shown).
    QString byteText(std::uint32_t address) const;
    QString rowText(int row) const;
    // The shown bytes marked as changed since the stop before.
    QList<std::uint32_t> changedAddresses() const;

signals:
    // mem.read answered (or failed).
    void updated();
    // mem.find answered.
    void found(bool any);

private:
    void read(bool stop);
    void render();
    void showRegion();
    void loadRegions();
    void setError(const QString& text);

    Send send_;
    QLineEdit* goTo_ = nullptr;
    QLineEdit* find_ = nullptr;
    QLabel* region_ = nullptr;
    QLabel* error_ = nullptr;
    QTableWidget* table_ = nullptr;
    std::uint32_t address_ = 0;
    std::vector<std::uint8_t> bytes_;
    // What each shown byte held when the machine stopped last (the baseline of the marks),
    // and the addresses marked.
    std::map<std::uint32_t, std::uint8_t> atStop_;
    std::vector<std::uint32_t> changed_;
    nlohmann::json regions_ = nlohmann::json::array();
    StopFollower stops_; // which stops this pane has shown
};

} // namespace copperline
