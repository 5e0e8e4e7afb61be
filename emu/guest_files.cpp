// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/guest_files.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace copperline {

namespace {

std::string errnoText(const std::string& what) {
    return what + ": " + std::strerror(errno);
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

} // namespace

GuestFiles::~GuestFiles() {
    if (dirFd_ >= 0) ::close(dirFd_);
}

std::string GuestFiles::setFolder(const std::string& path) {
    if (dirFd_ >= 0) ::close(dirFd_);
    dirFd_ = -1;
    folder_.clear();
    created_.clear();
    if (path.empty()) return {};
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errnoText(path);
    dirFd_ = fd;
    folder_ = path;
    return {};
}

std::string GuestFiles::checkName(const std::string& name) {
    if (name.empty()) return "the name is empty";
    if (name.size() > 31) return "the name is longer than 31 characters";
    if (name.front() == '/') return "an absolute path leaves the folder";
    std::size_t partStart = 0;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i == name.size() || name[i] == '/') {
            if (i == partStart) return "the name has an empty part";
            if (name[partStart] == '.') return "a part of the name starts with '.'";
            partStart = i + 1;
            continue;
        }
        const char c = name[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok)
            return "the name holds a character other than letters, digits, '.', '_', '-' and '/'";
    }
    return {};
}

int GuestFiles::openParent(const std::string& name, std::string& leaf, std::string& error) const {
    int dir = ::dup(dirFd_);
    if (dir < 0) {
        error = errnoText("the guest files folder");
        return -1;
    }
    std::size_t start = 0;
    for (std::size_t slash; (slash = name.find('/', start)) != std::string::npos;
         start = slash + 1) {
        const std::string part = name.substr(start, slash - start);
        // O_NOFOLLOW: a link on the way could lead out of the folder.
        const int next =
            ::openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        ::close(dir);
        if (next < 0) {
            error = errno == ELOOP || errno == ENOTDIR
                        ? name.substr(0, slash) + " is not a folder inside the guest files folder"
                        : errnoText(name.substr(0, slash));
            return -1;
        }
        dir = next;
    }
    leaf = name.substr(start);
    return dir;
}

GuestFiles::Result GuestFiles::load(const std::string& name, std::size_t maxBytes) const {
    Result r;
    if (!enabled()) {
        r.error = "no guest files folder (start with --guest-files DIR)";
        return r;
    }
    if (r.error = checkName(name); !r.error.empty()) return r;
    std::string leaf;
    Fd dir{openParent(name, leaf, r.error)};
    if (dir.fd < 0) return r;
    Fd f{::openat(dir.fd, leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)};
    if (f.fd < 0) {
        r.error = errno == ELOOP ? name + " is a symbolic link" : errnoText(name);
        return r;
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        r.error = name + " is not a regular file";
        return r;
    }
    if (std::uint64_t(st.st_size) > maxBytes) {
        r.error = name + " holds " + std::to_string(st.st_size) + " bytes; only " +
                  std::to_string(maxBytes) + " fit at the address given";
        return r;
    }
    r.bytes.resize(std::size_t(st.st_size));
    std::size_t done = 0;
    while (done < r.bytes.size()) {
        const ssize_t n = ::read(f.fd, r.bytes.data() + done, r.bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            r.error = n < 0 ? errnoText(name) : name + " became shorter while it was read";
            r.bytes.clear();
            return r;
        }
        done += std::size_t(n);
    }
    r.ok = true;
    return r;
}

GuestFiles::Result GuestFiles::save(const std::string& name, std::span<const std::uint8_t> bytes) {
    Result r;
    if (!enabled()) {
        r.error = "no guest files folder (start with --guest-files DIR)";
        return r;
    }
    if (r.error = checkName(name); !r.error.empty()) return r;
    std::string leaf;
    Fd dir{openParent(name, leaf, r.error)};
    if (dir.fd < 0) return r;
    const bool ours = created_.count(name) != 0;
    // A file the guest did not create is never replaced: O_EXCL makes the check and the
    // creation one step, so a file that appears meanwhile is not overwritten either.
    const int flags =
        O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (ours ? O_CREAT | O_TRUNC : O_CREAT | O_EXCL);
    Fd f{::openat(dir.fd, leaf.c_str(), flags, 0644)};
    if (f.fd < 0) {
        r.error = errno == EEXIST
                      ? name + " exists and was not created by this guest: not overwritten"
                  : errno == ELOOP ? name + " is a symbolic link"
                                   : errnoText(name);
        return r;
    }
    created_.insert(name);
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(f.fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            r.error = errnoText(name);
            return r;
        }
        done += std::size_t(n);
    }
    r.ok = true;
    return r;
}

} // namespace copperline
