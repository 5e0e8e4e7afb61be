// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The registers and disassembly dock: the 68000's registers from the latest snapshot, and
// the instructions from the pc on, asked of the emulator with the `disasm` command, in hex,
// with a label line where a routine starts and the name of a call's or branch's target
// (the --run program's debug information, the ROM's jump tables).

#include "app/control/snapshot.h"

#include <QWidget>
#include <functional>
#include <nlohmann/json.hpp>

class QPlainTextEdit;
class QPushButton;

namespace copperline {

class CpuPane : public QWidget {
    Q_OBJECT
public:
    // How the pane sends a command; the reply comes back on the UI thread.
    using Send =
        std::function<void(const std::string& method, const nlohmann::json& params,
                           std::function<void(bool ok, const nlohmann::json& result)> reply)>;

    explicit CpuPane(Send send, QWidget* parent = nullptr);

    void setSnapshot(const Snapshot& snapshot);
    // Shows the disassembly from `address` (a stalled instruction, say), marked "*", and
    // keeps it while the machine runs, until the pc moves in a paused machine or
    // "Follow pc" is pressed.
    void showAddress(std::uint32_t address);
    bool following() const { return !pinned_; }
    QString registersText() const;
    QString disassemblyText() const;

private:
    void requestDisassembly(std::uint32_t from);
    void follow();

    Send send_;
    QPlainTextEdit* regs_ = nullptr;
    QPlainTextEdit* disasm_ = nullptr;
    QPushButton* follow_ = nullptr;
    std::uint32_t shownPc_ = 0xFFFFFFFF;
    std::uint32_t pc_ = 0; // the pc of the last snapshot
    bool pinned_ = false;  // showing pinnedAddress_ rather than the pc
    std::uint32_t pinnedAddress_ = 0;
    std::uint32_t pinnedAtPc_ = 0; // the pc when it was pinned
    bool waiting_ = false;
    std::int64_t lastAsk_ = 0;
};

} // namespace copperline
