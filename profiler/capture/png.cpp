// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/capture/png.h"

#include <png.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace copperline {

namespace {
struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

[[noreturn]] void pngError(png_structp png, png_const_charp message) {
    auto* what = static_cast<std::string*>(png_get_error_ptr(png));
    *what = message;
    png_longjmp(png, 1);
}
void pngWarning(png_structp, png_const_charp) {}
} // namespace

void writePng(const std::string& path, const Image& image) {
    if (image.width == 0 || image.height == 0 || image.pixels.size() != std::size_t(image.width) * image.height)
        throw std::runtime_error(path + ": no picture to write");
    const std::string tmp = path + ".tmp";
    File f(std::fopen(tmp.c_str(), "wb"));
    if (!f) throw std::runtime_error(path + ": cannot create the file");
    std::string error;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, pngError, pngWarning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    std::vector<png_byte> row(std::size_t(image.width) * 3);
    // volatile: set across setjmp/longjmp, which libpng uses to report errors.
    volatile bool ok = png && info;
    if (ok && setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f.get());
        png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (unsigned y = 0; y < image.height; ++y) {
            for (unsigned x = 0; x < image.width; ++x) {
                const std::uint32_t p = image.at(x, y);
                row[3 * x] = png_byte(p >> 16);
                row[3 * x + 1] = png_byte(p >> 8);
                row[3 * x + 2] = png_byte(p);
            }
            png_write_row(png, row.data());
        }
        png_write_end(png, nullptr);
    } else {
        ok = false;
    }
    png_destroy_write_struct(&png, &info);
    if (!ok || std::fflush(f.get()) != 0) {
        f.reset();
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": cannot write the PNG" + (error.empty() ? "" : ": " + error));
    }
    f.reset();
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": " + ec.message());
    }
}

Image readPng(const std::string& path) {
    File f(std::fopen(path.c_str(), "rb"));
    if (!f) throw std::runtime_error(path + ": cannot open");
    png_byte sig[8];
    if (std::fread(sig, 1, 8, f.get()) != 8 || png_sig_cmp(sig, 0, 8) != 0)
        throw std::runtime_error(path + ": not a PNG file");
    std::string error;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, pngError, pngWarning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    Image image;
    // volatile: set across setjmp/longjmp, which libpng uses to report errors.
    volatile bool ok = png && info;
    if (ok && setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f.get());
        png_set_sig_bytes(png, 8);
        png_read_info(png, info);
        png_set_expand(png);
        png_set_strip_16(png);
        png_set_gray_to_rgb(png);
        png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
        png_read_update_info(png, info);
        image.width = png_get_image_width(png, info);
        image.height = png_get_image_height(png, info);
        if (image.width == 0 || image.height == 0 || image.width > 16384 || image.height > 16384)
            png_error(png, "image size out of range");
        std::vector<png_byte> row(png_get_rowbytes(png, info));
        image.pixels.resize(std::size_t(image.width) * image.height);
        for (unsigned y = 0; y < image.height; ++y) {
            png_read_row(png, row.data(), nullptr);
            for (unsigned x = 0; x < image.width; ++x)
                image.pixels[std::size_t(y) * image.width + x] =
                    0xFF000000u | std::uint32_t(row[4 * x]) << 16 | std::uint32_t(row[4 * x + 1]) << 8 | row[4 * x + 2];
        }
    } else {
        ok = false;
    }
    png_destroy_read_struct(&png, &info, nullptr);
    if (!ok) throw std::runtime_error(path + ": malformed PNG" + (error.empty() ? "" : ": " + error));
    return image;
}

} // namespace copperline
