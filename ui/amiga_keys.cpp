// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/amiga_keys.h"

#include <Qt>

namespace copperline {

std::optional<int> amigaRawKey(int k) {
    // The main block's rows (HRM appendix H, figure H-2): 1-0 from $01, Q-P from $10,
    // A-L from $20, Z-M from $31.
    static constexpr char row1[] = "1234567890", row2[] = "QWERTYUIOP", row3[] = "ASDFGHJKL",
                          row4[] = "ZXCVBNM";
    const auto in = [k](const char* row, int base) -> std::optional<int> {
        for (int i = 0; row[i]; ++i)
            if (k == row[i]) return base + i;
        return std::nullopt;
    };
    if (auto c = in(row1, 0x01)) return c;
    if (auto c = in(row2, 0x10)) return c;
    if (auto c = in(row3, 0x20)) return c;
    if (auto c = in(row4, 0x31)) return c;
    if (k >= Qt::Key_F1 && k <= Qt::Key_F10) return 0x50 + (k - Qt::Key_F1);
    switch (k) {
    case Qt::Key_QuoteLeft: return 0x00;
    case Qt::Key_Minus: return 0x0B;
    case Qt::Key_Equal: return 0x0C;
    case Qt::Key_Backslash: return 0x0D;
    case Qt::Key_BracketLeft: return 0x1A;
    case Qt::Key_BracketRight: return 0x1B;
    case Qt::Key_Semicolon: return 0x29;
    case Qt::Key_Apostrophe: return 0x2A;
    case Qt::Key_Comma: return 0x38;
    case Qt::Key_Period: return 0x39;
    case Qt::Key_Slash: return 0x3A;
    case Qt::Key_Space: return 0x40;
    case Qt::Key_Backspace: return 0x41;
    case Qt::Key_Tab: return 0x42;
    case Qt::Key_Enter: return 0x43;
    case Qt::Key_Return: return 0x44;
    case Qt::Key_Escape: return 0x45;
    case Qt::Key_Delete: return 0x46;
    case Qt::Key_Up: return 0x4C;
    case Qt::Key_Down: return 0x4D;
    case Qt::Key_Right: return 0x4E;
    case Qt::Key_Left: return 0x4F;
    case Qt::Key_Help: return 0x5F;
    case Qt::Key_Shift: return 0x60;
    case Qt::Key_CapsLock: return 0x62;
    case Qt::Key_Control: return 0x63;
    case Qt::Key_Alt: return 0x64;
    case Qt::Key_AltGr: return 0x65;
    case Qt::Key_Meta: return 0x66;
    default: return std::nullopt;
    }
}

} // namespace copperline
