// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/media/file_bytes.h"

#include "emu/media/byte_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace copperline {

std::vector<std::uint8_t> readFileBytes(const std::string& path, std::uint64_t maxBytes) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw MediaError(
            path + ": " +
            (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw MediaError(path + ": cannot read its size: " + ec.message());
    if (size > maxBytes)
        throw MediaError(path + ": too large (" + std::to_string(size) + " bytes, at most " +
                         std::to_string(maxBytes) + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw MediaError(path + ": cannot open: " + std::strerror(errno));
    std::vector<std::uint8_t> bytes(size);
    if (size && !in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size)))
        throw MediaError(path + ": read failed");
    return bytes;
}

void refuseToReplace(const std::string& path, const std::string& force) {
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
        throw MediaError(path + " exists; " + force + " writes over it");
}

void writeFileBytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw MediaError(path + ": cannot create: " + std::strerror(errno));
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!out.flush()) {
            std::remove(tmp.c_str());
            throw MediaError(path + ": write failed");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw MediaError(path + ": cannot replace: " + ec.message());
    }
}

} // namespace copperline
