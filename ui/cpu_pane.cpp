// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/cpu_pane.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace copperline {

namespace {

// While the machine runs the pc changes every instruction: ask for a listing a few times
// a second at most, so the pane shows roughly where the CPU is without loading the queue.
constexpr std::int64_t kRunningRefreshMs = 250;

QString hex(std::uint32_t v, int digits) {
    return QStringLiteral("%1").arg(v, digits, 16, QLatin1Char('0')).toUpper();
}
QString hex8(std::uint32_t v) {
    return hex(v, 8);
}

QString srFlags(std::uint16_t sr) {
    QString s;
    s += (sr & 0x8000) ? 'T' : '-';
    s += (sr & 0x2000) ? 'S' : '-';
    s += QStringLiteral(" I%1 ").arg((sr >> 8) & 7);
    s += (sr & 0x10) ? 'X' : '-';
    s += (sr & 0x08) ? 'N' : '-';
    s += (sr & 0x04) ? 'Z' : '-';
    s += (sr & 0x02) ? 'V' : '-';
    s += (sr & 0x01) ? 'C' : '-';
    return s;
}

} // namespace

CpuPane::CpuPane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    regs_ = new QPlainTextEdit(this);
    regs_->setReadOnly(true);
    regs_->setFont(mono);
    regs_->setLineWrapMode(QPlainTextEdit::NoWrap);
    disasm_ = new QPlainTextEdit(this);
    disasm_->setReadOnly(true);
    disasm_->setFont(mono);
    disasm_->setLineWrapMode(QPlainTextEdit::NoWrap);
    regs_->setFixedWidth(regs_->fontMetrics().horizontalAdvance(
                             QStringLiteral("PC 00000000   SR 0000  TS I7 XNZVC")) +
                         32);
    regs_->setMinimumHeight(regs_->fontMetrics().height() * 12);
    // Side by side: the dock sits under the display, where width is cheap and height dear.
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* left = new QVBoxLayout;
    left->addWidget(new QLabel(tr("Registers"), this));
    left->addWidget(regs_, 1);
    auto* right = new QVBoxLayout;
    auto* heading = new QHBoxLayout;
    heading->addWidget(new QLabel(tr("Disassembly"), this), 1);
    follow_ = new QPushButton(tr("Follow pc"), this);
    follow_->setObjectName(QStringLiteral("followPc"));
    follow_->setEnabled(false);
    connect(follow_, &QPushButton::clicked, this, [this] { follow(); });
    heading->addWidget(follow_);
    right->addLayout(heading);
    right->addWidget(disasm_, 1);
    layout->addLayout(left);
    layout->addLayout(right, 1);
}

void CpuPane::setSnapshot(const Snapshot& s) {
    const CpuRegisters& r = s.regs;
    QString text;
    for (int i = 0; i < 8; ++i)
        text += QStringLiteral("D%1 %2   A%1 %3\n")
                    .arg(i)
                    .arg(hex8(r.d[std::size_t(i)]), hex8(r.a[std::size_t(i)]));
    text += QStringLiteral("PC %1   SR %2  %3\n").arg(hex8(r.pc), hex(r.sr, 4), srFlags(r.sr));
    text += QStringLiteral("USP %1  SSP %2\n").arg(hex8(r.usp), hex8(r.ssp));
    text += s.running ? tr("running") : s.halted ? tr("halted (double bus fault)") : tr("paused");
    if (text != regs_->toPlainText()) regs_->setPlainText(text);
    pc_ = r.pc;

    if (pinned_) {
        if (s.running || r.pc == pinnedAtPc_) return;
        pinned_ = false; // the user stepped: the pc is what matters again
        follow_->setEnabled(false);
    }
    if (r.pc == shownPc_ || waiting_) return;
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    if (s.running && now - lastAsk_ < kRunningRefreshMs) return;
    requestDisassembly(r.pc);
}

void CpuPane::showAddress(std::uint32_t address) {
    pinned_ = true;
    pinnedAddress_ = address & 0xFFFFFE;
    pinnedAtPc_ = pc_;
    follow_->setEnabled(true);
    requestDisassembly(pinnedAddress_);
}

void CpuPane::follow() {
    pinned_ = false;
    follow_->setEnabled(false);
    requestDisassembly(pc_);
}

void CpuPane::requestDisassembly(std::uint32_t from) {
    waiting_ = true;
    lastAsk_ = QDateTime::currentMSecsSinceEpoch();
    const std::uint32_t pc = pc_;
    const bool pinned = pinned_;
    send_("disasm", {{"addr", from}, {"count", 24}},
          [this, pc, from, pinned](bool ok, const nlohmann::json& result) {
              waiting_ = false;
              if (!ok) {
                  disasm_->setPlainText(tr("(no disassembly)"));
                  return;
              }
              QString text;
              bool first = true;
              for (const auto& line : result.value("instructions", nlohmann::json::array())) {
                  const std::uint32_t a = line.value("addr", 0u);
                  // A label where a routine starts (and the routine the listing starts in).
                  if (line.contains("symbol")) {
                      const QString name =
                          QString::fromStdString(line.value("symbol", std::string()));
                      const std::uint32_t offset = line.value("symbol_offset", 0u);
                      if (offset == 0)
                          text += name + QStringLiteral(":\n");
                      else if (first)
                          text += QStringLiteral("%1+0x%2:\n").arg(name).arg(offset, 0, 16);
                  }
                  first = false;
                  const QString mark = pinned && a == from ? QStringLiteral("* ")
                                       : a == pc           ? QStringLiteral("> ")
                                                           : QStringLiteral("  ");
                  QString row =
                      QStringLiteral("%1%2  %3  %4")
                          .arg(mark)
                          .arg(a, 6, 16, QLatin1Char('0'))
                          .arg(QString::fromStdString(line.value("bytes", std::string())), -20)
                          .arg(QString::fromStdString(line.value("text", std::string())));
                  // Where a call or branch goes, by name.
                  if (line.contains("target_symbol"))
                      row += QStringLiteral("  ; ") +
                             QString::fromStdString(line.value("target_symbol", std::string()));
                  text += row + QLatin1Char('\n');
              }
              disasm_->setPlainText(text);
              // A pinned listing is not the pc's: the next snapshot may ask again.
              shownPc_ = pinned ? 0xFFFFFFFF : pc;
          });
}

QString CpuPane::registersText() const {
    return regs_->toPlainText();
}
QString CpuPane::disassemblyText() const {
    return disasm_->toPlainText();
}

} // namespace copperline
