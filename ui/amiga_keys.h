// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Host keys to Amiga raw key codes (HRM appendix H, the A500 keyboard's matrix), for the
// display's keyboard capture. Keys the A500 does not have map to nothing.

#include <optional>

namespace copperline {

// `qtKey` is a Qt::Key; nullopt for a key without an Amiga counterpart.
std::optional<int> amigaRawKey(int qtKey);

} // namespace copperline
