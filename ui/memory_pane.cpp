// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/memory_pane.h"

#include "ui/pane_text.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QTableWidget>
#include <QVBoxLayout>
#include <optional>

namespace copperline {

namespace {

using nlohmann::json;
using pane_text::hex;

constexpr std::uint32_t kAddressMask = 0xFFFFFF;
constexpr int kShown = MemoryPane::kBytesPerRow * MemoryPane::kRows;
const QColor kChanged(255, 170, 90);

// The text column: printable ISO 8859-1, a dot for the rest.
QChar shown(std::uint8_t b) {
    return (b >= 0x20 && b < 0x7F) || b >= 0xA0 ? QChar(char16_t(b)) : QLatin1Char('.');
}

std::vector<std::uint8_t> fromHex(const std::string& text) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < text.size(); i += 2)
        out.push_back(std::uint8_t(std::stoul(text.substr(i, 2), nullptr, 16)));
    return out;
}

} // namespace

MemoryPane::MemoryPane(Send send, QWidget* parent) : QWidget(parent), send_(std::move(send)) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    goTo_ = new QLineEdit(this);
    goTo_->setObjectName(QStringLiteral("memoryGoTo"));
    goTo_->setPlaceholderText(tr("Go to address ($C00000)"));
    connect(goTo_, &QLineEdit::returnPressed, this, [this] { goTo(goTo_->text()); });
    find_ = new QLineEdit(this);
    find_->setObjectName(QStringLiteral("memoryFind"));
    find_->setPlaceholderText(tr("Find text"));
    connect(find_, &QLineEdit::returnPressed, this, [this] { find(find_->text()); });
    region_ = new QLabel(this);
    region_->setObjectName(QStringLiteral("memoryRegion"));
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("memoryError"));
    error_->setStyleSheet(QStringLiteral("color: #c0392b"));
    error_->setWordWrap(true);
    error_->hide();

    table_ = new QTableWidget(kRows, kTextColumn + 1, this);
    table_->setObjectName(QStringLiteral("memoryTable"));
    QStringList headers{tr("Address")};
    for (int i = 0; i < kBytesPerRow; ++i)
        headers << QStringLiteral("%1").arg(i, 2, 16, QLatin1Char('0')).toUpper();
    headers << tr("Text");
    table_->setHorizontalHeaderLabels(headers);
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setFont(mono);
    table_->horizontalHeader()->setStretchLastSection(true);
    for (int row = 0; row < kRows; ++row)
        for (int c = 0; c <= kTextColumn; ++c)
            table_->setItem(row, c, new QTableWidgetItem);

    auto* top = new QHBoxLayout;
    top->addWidget(goTo_, 1);
    top->addWidget(find_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(region_);
    layout->addWidget(error_);
    layout->addWidget(table_, 1);
    render();
}

void MemoryPane::setSnapshot(const Snapshot& s) {
    if (stops_.newStop(s, true)) stopped();
}

void MemoryPane::stopped() {
    // The map changes with the machine's configuration (a loaded state) and as the ROM
    // configures the expansion board: asked again at each stop.
    loadRegions();
    read(true);
}

void MemoryPane::refresh() {
    if (regions_.empty()) loadRegions();
    read(false);
}

bool MemoryPane::goTo(const QString& text) {
    const QString wanted = text.trimmed();
    if (wanted.isEmpty()) return false;
    QString digits = wanted;
    if (digits.startsWith(QLatin1Char('$')))
        digits.remove(0, 1);
    else if (digits.startsWith(QStringLiteral("0x"), Qt::CaseInsensitive))
        digits.remove(0, 2);
    bool ok = false;
    const std::uint32_t a = digits.toUInt(&ok, 16);
    const bool address = ok && !digits.isEmpty() && a <= kAddressMask;
    // Bare hex that could be a name (`add`, `c`): the program's name first, as the
    // expression would read it; the address when nothing has that name.
    const bool couldBeName = address && digits == wanted && wanted.front().isLetter();
    if (address && !couldBeName) {
        setError({});
        goToAddress(a);
        return true;
    }
    // A name or a C expression, as gdb's `x` takes one: where a pointer points, where an
    // object or a function is, or the number an expression computes.
    QPointer<MemoryPane> self(this);
    send_("eval", {{"expr", wanted.toStdString()}}, [self, wanted, couldBeName, a](bool good, const json& r) {
        if (!self) return;
        if (!good && couldBeName) {
            self->setError({});
            self->goToAddress(a);
            return;
        }
        if (!good) {
            self->setError(tr("Cannot go to \"%1\": %2").arg(wanted, QString::fromStdString(r.value("message", std::string()))));
            return;
        }
        const std::string type = r.value("type", std::string());
        const std::string value = r.value("value", std::string());
        std::optional<std::uint32_t> to;
        const auto number = [](const std::string& t) -> std::optional<std::uint32_t> {
            bool okNumber = false;
            const QString q = QString::fromStdString(t).section(QLatin1Char(' '), 0, 0);
            const qlonglong n = q.startsWith(QStringLiteral("0x")) ? q.mid(2).toLongLong(&okNumber, 16) : q.toLongLong(&okNumber, 10);
            if (!okNumber) return std::nullopt;
            return std::uint32_t(n);
        };
        if (!type.empty() && type.back() == '*') to = number(value);
        else if (r.contains("address")) to = r["address"].get<std::uint32_t>();
        else to = number(value);
        if (!to) {
            self->setError(tr("\"%1\" is %2, not an address").arg(wanted, QString::fromStdString(value)));
            return;
        }
        self->setError({});
        self->goToAddress(*to);
    });
    return true;
}

void MemoryPane::goToAddress(std::uint32_t address) {
    address_ = address & kAddressMask;
    bytes_.clear();
    changed_.clear();
    if (regions_.empty()) loadRegions();
    showRegion();
    read(false);
}

void MemoryPane::find(const QString& text) {
    if (text.isEmpty()) return;
    const std::string needle = text.toLatin1().toStdString();
    if (QString::fromLatin1(needle.data(), qsizetype(needle.size())) != text) {
        setError(tr("The text holds characters outside ISO 8859-1, the Amiga's character set."));
        return;
    }
    QPointer<MemoryPane> self(this);
    const auto answer = [self](bool ok, const json& result, bool again, const std::string& sought) {
        if (!self) return;
        if (!ok) {
            self->setError(QString::fromStdString(result.value("message", std::string())));
            emit self->found(false);
            return;
        }
        const json& matches = result["matches"];
        if (!matches.empty()) {
            self->setError({});
            self->goToAddress(matches[0].get<std::uint32_t>());
            emit self->found(true);
            return;
        }
        if (!again) {
            self->setError(tr("\"%1\" is not in memory.")
                               .arg(QString::fromLatin1(sought.data(), qsizetype(sought.size()))));
            emit self->found(false);
            return;
        }
        // Nothing after the shown address: from the start of memory.
        self->send_(
            "mem.find",
            {{"text", QString::fromLatin1(sought.data(), qsizetype(sought.size())).toStdString()},
             {"max", 1}},
            [self, sought](bool ok2, const json& r2) {
                if (!self) return;
                if (ok2 && !r2["matches"].empty()) {
                    self->setError({});
                    self->goToAddress(r2["matches"][0].get<std::uint32_t>());
                    emit self->found(true);
                    return;
                }
                self->setError(
                    ok2 ? tr("\"%1\" is not in memory.")
                              .arg(QString::fromLatin1(sought.data(), qsizetype(sought.size())))
                        : QString::fromStdString(r2.value("message", std::string())));
                emit self->found(false);
            });
    };
    const std::uint32_t from = (address_ + 1) & kAddressMask;
    send_("mem.find", {{"text", text.toStdString()}, {"start", from}, {"max", 1}},
          [answer, needle](bool ok, const json& result) { answer(ok, result, true, needle); });
}

void MemoryPane::loadRegions() {
    QPointer<MemoryPane> self(this);
    send_("mem.regions", json::object(), [self](bool ok, const json& result) {
        if (!self || !ok) return;
        self->regions_ = result["regions"];
        self->showRegion();
    });
}

void MemoryPane::read(bool stop) {
    QPointer<MemoryPane> self(this);
    const std::uint32_t at = address_;
    send_("mem.read", {{"addr", at}, {"len", kShown}},
          [self, at, stop](bool ok, const json& result) {
              if (!self || at != self->address_) return; // the pane has moved on since
              if (!ok) {
                  self->setError(QString::fromStdString(result.value("message", std::string())));
                  emit self->updated();
                  return;
              }
              self->bytes_ = fromHex(result.value("data", std::string()));
              if (stop) {
                  // The marks: what differs from the last stop's bytes at the same addresses.
                  self->changed_.clear();
                  for (std::size_t i = 0; i < self->bytes_.size(); ++i) {
                      const std::uint32_t a = (at + std::uint32_t(i)) & kAddressMask;
                      const auto before = self->atStop_.find(a);
                      if (before != self->atStop_.end() && before->second != self->bytes_[i])
                          self->changed_.push_back(a);
                  }
                  self->atStop_.clear();
                  for (std::size_t i = 0; i < self->bytes_.size(); ++i)
                      self->atStop_[(at + std::uint32_t(i)) & kAddressMask] = self->bytes_[i];
              } else {
                  // Bytes first seen now are the baseline for the next stop's marks.
                  for (std::size_t i = 0; i < self->bytes_.size(); ++i)
                      self->atStop_.try_emplace((at + std::uint32_t(i)) & kAddressMask,
                                                self->bytes_[i]);
              }
              self->render();
              emit self->updated();
          });
}

void MemoryPane::render() {
    for (int row = 0; row < kRows; ++row) {
        const std::uint32_t a = (address_ + std::uint32_t(row * kBytesPerRow)) & kAddressMask;
        table_->item(row, 0)->setText(hex(a, 6));
        QString text;
        for (int i = 0; i < kBytesPerRow; ++i) {
            const std::size_t at = std::size_t(row * kBytesPerRow + i);
            QTableWidgetItem* cell = table_->item(row, i + 1);
            if (at >= bytes_.size()) {
                cell->setText(QString());
                cell->setBackground(QBrush());
                continue;
            }
            cell->setText(QStringLiteral("%1").arg(bytes_[at], 2, 16, QLatin1Char('0')).toUpper());
            const std::uint32_t address = (a + std::uint32_t(i)) & kAddressMask;
            const bool marked =
                std::find(changed_.begin(), changed_.end(), address) != changed_.end();
            cell->setBackground(marked ? QBrush(kChanged) : QBrush());
            cell->setToolTip(marked ? tr("Changed since the stop before") : QString());
            text += shown(bytes_[at]);
        }
        table_->item(row, kTextColumn)->setText(text);
    }
    table_->resizeColumnsToContents();
}

void MemoryPane::showRegion() {
    for (const json& r : regions_) {
        const std::uint32_t start = r.value("start", 0u), end = r.value("end", 0u);
        if (address_ >= start && address_ < end) {
            region_->setText(tr("%1 (%2): %3-%4")
                                 .arg(QString::fromStdString(r.value("name", std::string())),
                                      QString::fromStdString(r.value("kind", std::string())),
                                      hex(start, 6), hex(end - 1, 6)));
            return;
        }
    }
    region_->setText(regions_.empty() ? QString() : tr("undecoded space"));
}

void MemoryPane::setError(const QString& text) {
    error_->setText(text);
    error_->setVisible(!text.isEmpty());
}

QString MemoryPane::regionText() const {
    return region_->text();
}
QString MemoryPane::errorText() const {
    return error_->text();
}

QString MemoryPane::byteText(std::uint32_t address) const {
    const std::uint32_t offset = (address - address_) & kAddressMask;
    if (offset >= std::uint32_t(kShown)) return QString();
    return table_->item(int(offset) / kBytesPerRow, int(offset) % kBytesPerRow + 1)->text();
}

QString MemoryPane::rowText(int row) const {
    return row >= 0 && row < kRows ? table_->item(row, kTextColumn)->text() : QString();
}

QList<std::uint32_t> MemoryPane::changedAddresses() const {
    return QList<std::uint32_t>(changed_.begin(), changed_.end());
}

} // namespace copperline
