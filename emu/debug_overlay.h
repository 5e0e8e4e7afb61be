// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The debug overlay a guest draws through uaelib (docs/guest-api.md, "The debug overlay"):
// rectangles, filled rectangles and text over the display, never into the emulated
// picture. Coordinates are those of Bartman's toolchain: a PAL picture of 768 x 576
// pixels, a hires pixel across and an interlaced row down (gcc8_c_support.h,
// "coordinates are PAL-based"). Colours are $RRGGBB.

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

struct OverlayShape {
    enum class Kind : std::uint8_t { Rect = 0, FilledRect = 1, Text = 2 };
    Kind kind = Kind::Rect;
    // Rectangles include both corners; text starts at (left, top), 8 x 8 pixels a glyph.
    std::int16_t left = 0, top = 0, right = 0, bottom = 0;
    std::uint32_t color = 0; // $RRGGBB
    std::string text;
    bool operator==(const OverlayShape&) const = default;
};

using OverlayShapes = std::vector<OverlayShape>;

inline constexpr int kOverlayWidth = 768, kOverlayHeight = 576;

} // namespace copperline
