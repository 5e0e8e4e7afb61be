// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// PNG pictures (libpng): screenshots of the emulated display and of the panes.

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

struct Image {
    unsigned width = 0, height = 0;
    std::vector<std::uint32_t> pixels;  // 0xAARRGGBB, row-major
    std::uint32_t at(unsigned x, unsigned y) const { return pixels[std::size_t(y) * width + x]; }
};

// Writes an 8-bit RGB PNG. Throws std::runtime_error naming the path on failure; the file
// is written beside the target and renamed, so a failure leaves no half-written picture.
void writePng(const std::string& path, const Image& image);
// Reads a PNG of any colour type into 0xFFRRGGBB pixels. Throws std::runtime_error on a
// missing or malformed file.
Image readPng(const std::string& path);

} // namespace copperline
