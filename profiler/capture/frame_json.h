#pragma once

// The JSON of one committed frame's waits and blits (emu/chipset/frame_stats.h), as
// frame.waits and frame.blits return them and profile.jsonl carries them. One writer, so
// the live commands and the capture files name every field the same way.

#include "emu/chipset/frame_stats.h"

#include <nlohmann/json.hpp>

namespace copperline {

// A blit: its id, where it started and ended, every register field and what it moved.
nlohmann::json blitJson(const BlitRecord& blit);
// "ABCD" for the channels a BLTCON0 enables, in order ("-" for none).
std::string blitChannels(std::uint16_t bltcon0);

// The CPU's chip-bus waits: the four CPU counters, denied colour clocks by denier and by
// access kind, the `top` most stalled instructions and the rest summed, and each line's
// denied clocks.
nlohmann::json cpuWaitsJson(const FrameStats& frame, std::size_t top);

} // namespace copperline
