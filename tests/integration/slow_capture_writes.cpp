// SPDX-License-Identifier: GPL-3.0-or-later
// Preloaded (LD_PRELOAD) into the copperline that test_capture_killed kills: the capture's
// writes to profile.jsonl go out a page at a time, and its appends to sampler.bin 64 bytes
// at a time, each after a short pause. The kernel may end a write at any page when a
// fatal signal arrives; the pauses make the SIGKILL the test sends land inside a record
// often instead of almost never. The capture's own loop (writeAllV) carries on after a
// short write, so what reaches the disk is byte for byte what it would be without this.

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <string_view>
#include <sys/uio.h>
#include <unistd.h>

extern "C" ssize_t writev(int fd, const struct iovec* iov, int count) {
    using Writev = ssize_t (*)(int, const struct iovec*, int);
    static const Writev real = reinterpret_cast<Writev>(dlsym(RTLD_NEXT, "writev"));
    char link[64], target[PATH_MAX];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = ::readlink(link, target, sizeof target - 1);
    std::size_t chunk = 0;
    if (n > 0) {
        const std::string_view path(target, std::size_t(n));
        if (path.ends_with("/profile.jsonl")) chunk = 4096;
        else if (path.ends_with("/sampler.bin")) chunk = 64;
    }
    if (!chunk) return real(fd, iov, count);
    for (int i = 0; i < count; ++i) {
        if (!iov[i].iov_len) continue;
        const timespec pause{0, 400'000};
        ::nanosleep(&pause, nullptr);
        const struct iovec one{iov[i].iov_base, std::min(chunk, iov[i].iov_len)};
        return real(fd, &one, 1);
    }
    return real(fd, iov, count);
}
