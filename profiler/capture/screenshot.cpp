#include "profiler/capture/screenshot.h"

#include <algorithm>

namespace copperline {

Image composeDisplay(const Machine& machine) {
    const VideoField& last = machine.lastField();
    Image img;
    img.width = last.width;
    img.height = 2 * last.lines;
    img.pixels.assign(std::size_t(img.width) * img.height, 0xFF000000u);
    if (last.pixels.empty()) return img;
    const VideoField& other = machine.field(!last.longFrame);
    const bool weave = last.interlaced && !other.pixels.empty() && other.width == last.width;
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
