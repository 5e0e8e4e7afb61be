// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/capture/screenshot.h"

#include <algorithm>

namespace copperline {

Image composeDisplay(const Machine& machine) {
    const VideoField& last = machine.lastField();
    const VideoField& other = machine.field(!last.longFrame);
    const bool weave = last.interlaced && !other.pixels.empty() && other.width == last.width;
    Image img;
    img.width = last.width;
    // A long field has one line more than a short one: the picture is always as tall as
    // the longer, so its size does not depend on which field came last.
    img.height = 2 * std::max(last.lines, weave ? other.lines : last.lines);
    img.pixels.assign(std::size_t(img.width) * img.height, 0xFF000000u);
    if (last.pixels.empty()) return img;
    for (unsigned row = 0; row < img.height; ++row) {
        const unsigned line = row / 2;
        const bool longRow = (row % 2) == 0;
        const VideoField& src = weave ? (longRow == last.longFrame ? last : other) : last;
        if (line >= src.lines) continue;
        const std::uint32_t* in = src.pixels.data() + std::size_t(line) * src.width;
        std::copy(in, in + img.width, img.pixels.data() + std::size_t(row) * img.width);
    }
    return img;
}

} // namespace copperline
