// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Pictures of the emulated display, from the fields Denise drew.

#include "emu/machine.h"
#include "profiler/capture/png.h"

namespace copperline {

// The whole display as a picture: four pixels per colour clock across, two rows per beam
// line down. An interlaced display weaves its long field (even rows) and short field (odd
// rows); a progressive one shows each line twice, as a PAL monitor's scanlines do.
Image composeDisplay(const Machine& machine);

} // namespace copperline
