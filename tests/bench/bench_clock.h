// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The benchmarks' clock: CPU seconds of the calling thread, so that another process on
// the machine does not move a figure (a wall clock on a shared 2-core box does).

#include <ctime>

namespace copperline::bench {

inline double threadCpuSeconds() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

} // namespace copperline::bench
