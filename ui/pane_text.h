// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How the chipset panes (Copper, custom registers, memory) write numbers and name bit
// fields: in the Amiga's own notation, $ and upper-case hex, as the hardware manuals do.

#include <QString>
#include <QStringList>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace copperline::pane_text {

inline QString hex(std::uint64_t v, int digits) {
    return QStringLiteral("$%1").arg(v, digits, 16, QLatin1Char('0')).toUpper();
}

// A command's `fields` array ({name, shift, width, value}) as lines "NAME = value".
inline QString fields(const nlohmann::json& fields) {
    QStringList lines;
    for (const auto& f : fields) {
        const unsigned width = f.value("width", 1u), value = f.value("value", 0u);
        const unsigned shift = f.value("shift", 0u);
        const QString bits = width == 1
                                 ? QStringLiteral("bit %1").arg(shift)
                                 : QStringLiteral("bits %1-%2").arg(shift + width - 1).arg(shift);
        lines << QStringLiteral("  %1 = %2   (%3)")
                     .arg(QString::fromStdString(f.value("name", std::string())), -8)
                     .arg(width == 1 ? QString::number(value)
                                     : QStringLiteral("%1 (%2)").arg(value).arg(hex(value, 0)))
                     .arg(bits);
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace copperline::pane_text
