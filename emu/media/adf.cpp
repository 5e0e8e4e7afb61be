// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/media/adf.h"

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

namespace copperline {

AdfImage adfFromBytes(std::vector<std::uint8_t> bytes, const std::string& name) {
    const std::size_t n = bytes.size();
    if (n != adf::kImageBytes) {
        std::string why = "not a double-density ADF image: " + std::to_string(n) +
                          " bytes, where an ADF " + "holds exactly " +
                          std::to_string(adf::kImageBytes) +
                          " (80 cylinders x 2 heads x 11 sectors x 512 bytes)";
        if (n == adf::kHdImageBytes)
            why += "; this looks like a high-density image, which is not supported";
        else if (n > 0 && n < adf::kImageBytes && n % adf::kSectorBytes == 0)
            why += "; it looks truncated after " + std::to_string(n / adf::kSectorBytes) + " of " +
                   std::to_string(adf::kBlocks) + " sectors";
        else if (n == 0)
            why += "; the file is empty";
        throw MediaError(name + ": " + why);
    }
    AdfImage image;
    image.name = name;
    image.bytes = std::move(bytes);
    return image;
}

AdfImage loadAdf(const std::string& path) {
    // Anything much larger than an ADF is refused before it is read.
    return adfFromBytes(readFileBytes(path, 4ull * adf::kImageBytes), path);
}

void saveAdf(const std::string& path, const AdfImage& image) {
    if (image.bytes.size() != adf::kImageBytes)
        throw MediaError(path + ": refusing to write an image of " +
                         std::to_string(image.bytes.size()) + " bytes");
    writeFileBytes(path, image.bytes);
}

} // namespace copperline
