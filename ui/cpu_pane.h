#pragma once

// The registers and disassembly dock: the 68000's registers from the latest snapshot, and
// the instructions from the pc on, asked of the emulator with the `disasm` command.

#include "app/control/snapshot.h"

#include <QWidget>
#include <functional>
#include <nlohmann/json.hpp>

class QPlainTextEdit;

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
    QString registersText() const;
    QString disassemblyText() const;

private:
    void requestDisassembly(std::uint32_t pc);

    Send send_;
    QPlainTextEdit* regs_ = nullptr;
    QPlainTextEdit* disasm_ = nullptr;
    std::uint32_t shownPc_ = 0xFFFFFFFF;
    bool waiting_ = false;
    std::int64_t lastAsk_ = 0;
};

} // namespace copperline
