// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Drawing the guest's debug overlay (emu/debug_overlay.h) over a picture of the display:
// the window's View toggle and screenshots that ask for it use this, never the emulated
// picture itself.

#include "emu/debug_overlay.h"
#include "profiler/capture/png.h"

namespace copperline {

// Where the overlay's (0, 0) lands in composeDisplay's picture. The overlay's coordinates
// are a UAE display window's pixels; that window starts 46 colour clocks into the line
// and 26 lines into the frame, which is our pixel (184, 52) (the alignment
// tests/integration/test_aros_boot.cpp proves against FS-UAE, docs/display.md).
inline constexpr int kOverlayOriginX = 184, kOverlayOriginY = 52;

// Draws `shapes` in order, clipped to the overlay's 768 x 576 and to the picture.
void drawOverlay(Image& picture, const OverlayShapes& shapes);

} // namespace copperline
