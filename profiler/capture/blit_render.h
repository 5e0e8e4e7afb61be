// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Pictures of a blit's channels from the DMA words the live trace kept (emu/chipset/
// blit_trace.h): what blit.render writes and the Frame Analyzer previews.

#include "emu/chipset/blit_trace.h"
#include "profiler/capture/png.h"

#include <optional>
#include <string>
#include <string_view>

namespace copperline {

// "A", "B", "C", "D", "result" (and back).
const char* blitStreamName(BlitStream stream);
std::optional<BlitStream> blitStreamFromName(std::string_view name);

// "ABCD" for the channels a BLTCON0 enables, in order ("-" for none).
std::string blitChannels(std::uint16_t bltcon0);

// Whether the blit has the stream: a channel its BLTCON0 enables, or the result.
bool blitHasStream(const BlitRecord& blit, BlitStream stream);

// The stream as a picture, one pixel per bit, 16 per word, the blit's rows down: the
// words laid out where they lie in memory (a descending blit's first word is its last
// row's last word). A line blit draws one row per pixel step. Set bits are the stream's
// colour, clear bits near black; words the trace does not have (the blit is still
// running, or the trace's bound cut it) are grey.
Image renderBlitStream(const BlitWords& words, BlitStream stream);

std::uint32_t blitStreamColour(BlitStream stream);

} // namespace copperline
