// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the ADF reader and the OFS reader behind it (docs/testing.md). The
// input is a disk image laid out from the root block on: input block i is disk block
// (880 + i) mod 1760, the rest of the disk zeros. So a small input already holds the root
// block, the bitmap and the directories and files that follow it (where writeVolume puts
// them), and the fuzzer's mutations land where the reader looks. The whole input also goes
// to adfFromBytes as it is, which must refuse every size but 901,120 bytes. Whatever the
// bytes, the reader answers or throws MediaError; it never reads outside the image.

#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"
#include "emu/media/ofs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace copperline;

namespace {

// Lists and reads everything reachable from `path`, a few levels deep.
void walk(const AdfImage& image, const std::string& path, int depth, unsigned& budget) {
    std::vector<std::string> names;
    try {
        names = ofs::listDirectory(image, path);
    } catch (const MediaError&) {
        return;
    }
    for (const auto& n : names) {
        if (budget == 0) return;
        --budget;
        const std::string child = path.empty() ? n : path + "/" + n;
        try {
            const auto data = ofs::readFile(image, child);
            if (data.size() > adf::kImageBytes) {
                std::fprintf(stderr, "adf_fuzzer: a file larger than the disk\n");
                std::abort();
            }
        } catch (const MediaError&) {
        }
        if (depth < 4) walk(image, child, depth + 1, budget);
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const AdfImage whole = adfFromBytes(std::vector<std::uint8_t>(data, data + size), "input");
        if (whole.bytes.size() != adf::kImageBytes) std::abort();
    } catch (const MediaError&) {
        if (size == adf::kImageBytes) {
            std::fprintf(stderr, "adf_fuzzer: an image of the right size is refused\n");
            std::abort();
        }
    }
    // One image for every input, cleared where the last input went: a fresh 880 KiB image
    // per input would cost more than the reading. The input lies from the root block to the
    // disk's end and then from its start: two runs, each copied whole.
    static AdfImage image{"input", std::vector<std::uint8_t>(adf::kImageBytes, 0)};
    static std::size_t dirty = 0;
    const std::size_t rootAt = std::size_t(ofs::kRootBlock) * ofs::kBlockBytes;
    const std::size_t toEnd = adf::kImageBytes - rootAt;
    std::uint8_t* const disk = image.bytes.data();
    std::fill_n(disk + rootAt, std::min(dirty, toEnd), std::uint8_t(0));
    if (dirty > toEnd) std::fill_n(disk, dirty - toEnd, std::uint8_t(0));
    dirty = std::min<std::size_t>(size, adf::kImageBytes);
    std::copy_n(data, std::min(dirty, toEnd), disk + rootAt);
    if (dirty > toEnd) std::copy_n(data + toEnd, dirty - toEnd, disk);
    (void)ofs::bootBlockValid(image);
    try {
        (void)ofs::volumeName(image);
    } catch (const MediaError&) {
    }
    unsigned budget = 256;
    walk(image, "", 0, budget);
    return 0;
}
