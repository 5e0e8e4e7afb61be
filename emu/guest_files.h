// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one host folder a guest may load files from and save files to (uaelib's debug_load
// and debug_save; docs/guest-api.md, "Host files"). The user names it (--guest-files DIR);
// without it every call fails. A name is a relative path inside the folder: anything that
// would leave it (an absolute path, a "..", a symbolic link anywhere on the way) is
// refused, and a file the guest did not create in this session is never overwritten.

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace copperline {

class GuestFiles {
public:
    GuestFiles() = default;
    ~GuestFiles();
    GuestFiles(const GuestFiles&) = delete;
    GuestFiles& operator=(const GuestFiles&) = delete;

    // Opens `path` as the folder (it must exist and be a directory); an empty path closes
    // it. Returns an error message, or an empty string.
    std::string setFolder(const std::string& path);
    bool enabled() const { return dirFd_ >= 0; }
    const std::string& folder() const { return folder_; }

    struct Result {
        bool ok = false;
        std::string error;               // why not, when !ok
        std::vector<std::uint8_t> bytes; // load: the file's contents
    };
    // Reads `name`; a file longer than maxBytes is refused.
    Result load(const std::string& name, std::size_t maxBytes) const;
    // Writes `bytes` to `name`: a new file, or one this session's guest created.
    Result save(const std::string& name, std::span<const std::uint8_t> bytes);

    // Why `name` is not an acceptable name, or an empty string: 1 to 31 characters of
    // letters, digits, '.', '_', '-' and '/' between parts, no part empty or starting with
    // '.', no leading '/'.
    static std::string checkName(const std::string& name);

private:
    // Opens the folder holding the last part of `name`, following no link; -1 on error.
    int openParent(const std::string& name, std::string& leaf, std::string& error) const;

    int dirFd_ = -1;
    std::string folder_;
    std::set<std::string> created_;
};

} // namespace copperline
