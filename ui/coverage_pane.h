// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The coverage pane (View > Coverage): the program's source files with each line's hit
// count in a gutter and the lines never executed marked, the functions with their counts,
// and the accounting header that says where every counted instruction went. It follows a
// capture that counts ("coverage": true) live, refreshing every second while it is shown,
// or shows a finished coverage.bin or .info file. A click on a line asks where its code is
// and shows that address in the disassembly (addressActivated). Everything comes through
// the coverage family of commands (coverage.open, coverage.status, coverage.lines,
// coverage.addresses), as for any client.

#include <QWidget>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTableWidget;
class QTimer;

namespace copperline {

class CoveragePane : public QWidget {
    Q_OBJECT
public:
    using Send =
        std::function<void(const std::string& method, const nlohmann::json& params,
                           std::function<void(bool ok, const nlohmann::json& result)> reply)>;

    explicit CoveragePane(Send send, QWidget* parent = nullptr);

    // coverage.open with the program (and a file, or none for the live capture).
    void open(const QString& program, const QString& file = {});
    // Asks coverage.status and the shown file's lines again.
    void refresh();
    // Shows one source file (its path as coverage.status lists it).
    void showFile(const QString& path);
    // What a click on a source line does: coverage.addresses, then addressActivated.
    void activateLine(std::uint32_t line);

    // What the pane shows, for tests.
    QString headerText() const;
    QStringList files() const;
    QString currentFile() const;
    // The count the gutter shows for a line; -1 when the line has no code.
    std::int64_t lineCount(std::uint32_t line) const;
    QString sourceText() const;
    QTableWidget* functionTable() const { return functions_; }
    QString errorText() const;

signals:
    void addressActivated(std::uint32_t address);
    // coverage.status or coverage.lines answered.
    void updated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showStatus(const nlohmann::json& status);
    void showLines(const nlohmann::json& lines);
    void render();

    Send send_;
    QLineEdit* program_ = nullptr;
    QLabel* header_ = nullptr;
    QComboBox* fileBox_ = nullptr;
    QPlainTextEdit* source_ = nullptr;
    QTableWidget* functions_ = nullptr;
    QLabel* error_ = nullptr;
    QTimer* timer_ = nullptr;
    QString file_;
    std::map<std::uint32_t, std::uint64_t> counts_; // line -> count, lines with code
    bool live_ = false;
    bool busy_ = false;
};

} // namespace copperline
