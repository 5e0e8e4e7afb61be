// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/capture/blit_render.h"

#include "emu/chipset/blitter.h"

namespace copperline {

namespace {
constexpr std::uint32_t kClear = 0xFF101014, kMissing = 0xFF505050;
} // namespace

const char* blitStreamName(BlitStream s) {
    switch (s) {
    case BlitStream::A: return "A";
    case BlitStream::B: return "B";
    case BlitStream::C: return "C";
    case BlitStream::D: return "D";
    case BlitStream::Result: return "result";
    }
    return "?";
}

std::optional<BlitStream> blitStreamFromName(std::string_view name) {
    for (unsigned s = 0; s < kBlitStreamCount; ++s)
        if (name == blitStreamName(BlitStream(s))) return BlitStream(s);
    return std::nullopt;
}

std::string blitChannels(std::uint16_t bltcon0) {
    std::string out;
    if (bltcon0 & Blitter::UseA) out += 'A';
    if (bltcon0 & Blitter::UseB) out += 'B';
    if (bltcon0 & Blitter::UseC) out += 'C';
    if (bltcon0 & Blitter::UseD) out += 'D';
    return out.empty() ? "-" : out;
}

bool blitHasStream(const BlitRecord& blit, BlitStream s) {
    static constexpr std::uint16_t use[4] = {Blitter::UseA, Blitter::UseB, Blitter::UseC,
                                             Blitter::UseD};
    return s == BlitStream::Result || (blit.bltcon0 & use[unsigned(s)]) != 0;
}

std::uint32_t blitStreamColour(BlitStream s) {
    switch (s) {
    case BlitStream::A: return 0xFFFF6060;
    case BlitStream::B: return 0xFF60FF60;
    case BlitStream::C: return 0xFF6090FF;
    case BlitStream::D: return 0xFFFFD040;
    case BlitStream::Result: return 0xFFF0F0F0;
    }
    return 0xFFFFFFFF;
}

Image renderBlitStream(const BlitWords& bw, BlitStream s) {
    const BlitRecord& b = bw.blit;
    const bool line = (b.bltcon1 & Blitter::Line) != 0;
    const bool descending = !line && (b.bltcon1 & Blitter::Desc);
    // Area: width words by height rows. Line: one word per pixel step, a row each.
    const unsigned cols = line ? 1u : std::max<unsigned>(1, b.width);
    const unsigned rows = line ? std::max<unsigned>(1, b.width) : std::max<unsigned>(1, b.height);
    Image img;
    img.width = cols * 16;
    img.height = rows;
    img.pixels.assign(std::size_t(img.width) * img.height, kMissing);
    const auto& words = bw.words[unsigned(s)];
    const std::uint32_t on = blitStreamColour(s);
    const std::size_t n = std::min<std::size_t>(words.size(), std::size_t(cols) * rows);
    for (std::size_t k = 0; k < n; ++k) {
        unsigned x = unsigned(k % cols), y = unsigned(k / cols);
        if (descending) {
            x = cols - 1 - x;
            y = rows - 1 - y;
        }
        std::uint32_t* out = img.pixels.data() + std::size_t(y) * img.width + x * 16;
        for (unsigned bit = 0; bit < 16; ++bit)
            out[bit] = (words[k] >> (15 - bit) & 1) ? on : kClear;
    }
    return img;
}

} // namespace copperline
