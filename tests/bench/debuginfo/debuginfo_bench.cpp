// SPDX-License-Identifier: GPL-3.0-or-later
// Prints how long the debug-info reader takes to load a program's debug information (hunk
// executable and ELF sibling with DWARF) and to symbolise 1,000,000 addresses of it: the
// innermost scope, the inline chain and the outermost function of each.
//
//   copperline-debuginfo-bench [PROGRAM] [ADDRESSES]
//
// Without PROGRAM it reads the generated ~200 KB guest program built beside it.

#include "profiler/debuginfo/debug_info.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace copperline;
using Clock = std::chrono::steady_clock;

namespace {

double millis(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

long fileSize(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? long(st.st_size) : -1;
}

} // namespace

int main(int argc, char** argv) {
#ifdef BENCH_PROGRAM
    std::string program = BENCH_PROGRAM;
#else
    std::string program;
#endif
    if (argc > 1) program = argv[1];
    const long count = argc > 2 ? std::atol(argv[2]) : 1'000'000;
    if (program.empty()) {
        std::fprintf(stderr, "usage: copperline-debuginfo-bench PROGRAM [ADDRESSES]\n");
        return 2;
    }
    try {
        // Load: the median of five, each from the files (the OS caches them after the first).
        std::vector<double> loads;
        DebugInfo info;
        for (int i = 0; i < 5; ++i) {
            const auto t0 = Clock::now();
            info = DebugInfo::load(program);
            loads.push_back(millis(Clock::now() - t0));
        }
        std::sort(loads.begin(), loads.end());
        std::uint64_t code = 0, total = 0;
        for (const DebugHunk& h : info.hunks()) {
            total += h.size;
            if (h.kind == HunkKind::Code) code += h.size;
        }
        std::size_t inlined = 0;
        for (const DebugScope& s : info.scopes())
            inlined += s.kind == ScopeKind::Inlined;
        std::printf("program: %s (%ld bytes), ELF %s (%ld bytes)\n", program.c_str(),
                    fileSize(program), info.elfPath().c_str(), fileSize(info.elfPath()));
        std::printf("         %llu bytes in %zu hunks (%llu of code), %zu functions and objects, "
                    "%zu inlined calls, "
                    "%zu line runs in %zu files\n",
                    static_cast<unsigned long long>(total), info.hunks().size(),
                    static_cast<unsigned long long>(code), info.scopeRanges().size(), inlined,
                    info.lineTable().size(), info.files().size());
        std::printf("load:      %.1f ms (median of 5; fastest %.1f ms)\n", loads[2], loads[0]);

        // Symbolise: addresses spread over the code hunks, at their link addresses.
        const HunkBases bases(info, info.linkBases());
        std::vector<std::uint32_t> addresses;
        addresses.reserve(std::size_t(count));
        std::mt19937 rng(1234);
        for (long i = 0; i < count; ++i) {
            const std::uint32_t h = 0; // the code hunk
            addresses.push_back(bases.bases()[h] + (rng() % info.hunks()[h].size & ~1u));
        }
        // Twice: the scope and function alone (what a sampler's per-PC attribution needs), and
        // with the whole inline chain built (what a report's call tree needs).
        // Each is timed three times and the fastest run reported: the machine may be busy.
        std::size_t known = 0;
        std::uint64_t check = 0;
        std::size_t frames = 0;
        double lookupMs = 1e30, framesMs = 1e30;
        for (int run = 0; run < 3; ++run) {
            known = 0;
            auto t0 = Clock::now();
            for (const std::uint32_t a : addresses)
                known += info.function(info.lookup(a, bases)) != nullptr;
            lookupMs = std::min(lookupMs, millis(Clock::now() - t0));
            check = 0;
            frames = 0;
            t0 = Clock::now();
            for (const std::uint32_t a : addresses) {
                const AddressInfo at = info.lookup(a, bases);
                const auto chain = info.frames(at);
                frames += chain.size();
                check += chain.empty() ? 0 : chain[0].line;
            }
            framesMs = std::min(framesMs, millis(Clock::now() - t0));
        }
        std::printf("symbolize: %ld addresses in %.1f ms (%.0f ns each): module, innermost scope, "
                    "function, line\n",
                    count, lookupMs, lookupMs * 1e6 / double(count));
        std::printf("symbolize: %ld addresses in %.1f ms (%.0f ns each) with the inline chain "
                    "(%.2f frames each)\n",
                    count, framesMs, framesMs * 1e6 / double(count),
                    double(frames) / double(count));
        std::printf("           %zu of them in a function; check %llu\n", known,
                    static_cast<unsigned long long>(check));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copperline-debuginfo-bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
