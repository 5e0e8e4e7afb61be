// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-coveragebench [FRAMES]: what guest code coverage costs.
//
// 1. FRAMES frames (default 500) of the AROS boot from power-on with no counter, with the
//    coverage counter in each of its modes (the sparse map of every address, one range over
//    the Kickstart ROM that nearly every instruction hits, one small range in RAM that none
//    hits, as when a program's hunks are counted while the ROM runs), and with a capture of
//    frame records with and without the counter beside it (what "coverage": true adds to a
//    capture). Prints emulated seconds per second of the thread's CPU time (less disturbed by
//    other work on the host than the wall clock) and the ratio to no counter (the goal is at
//    most 1.2x), the best of 5 rounds that run every mode in turn.
// 2. `copperline --run hello --coverage FILE` against plain `copperline --run hello`: the CPU
//    seconds of the whole process (boot included), best of 5, in turn.
// `--mode MODE FRAMES` runs one mode once (none, sparse, rom, ram, frames, frames+coverage)
// and prints its speed, for callgrind's instruction counts, which the host's load does not
// move (valgrind --tool=callgrind copperline-coveragebench --mode frames+coverage 60).

#include "emu/machine.h"
#include "tests/bench/bench_clock.h"
#include "emu/media/byte_reader.h"
#include "emu/media/rom.h"
#include "profiler/capture/frame_capture.h"
#include "profiler/coverage/coverage_counter.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

using namespace copperline;
namespace fs = std::filesystem;

namespace {

RomImage rom, ext;

using bench::threadCpuSeconds;

double childrenCpuSeconds() {
    rusage u{};
    ::getrusage(RUSAGE_CHILDREN, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

enum class Mode { None, Sparse, RomRange, RamRange, Frames, FramesAndCoverage };

struct Result {
    double speed = 0;
    std::uint64_t counted = 0, sparse = 0;
};

Result boot(unsigned frames, Mode mode, const fs::path& dir) {
    Machine m;
    m.setRom(rom);
    m.setExtRom(ext);
    m.powerOn();
    fs::remove_all(dir);
    std::unique_ptr<CoverageCounter> counter;
    std::unique_ptr<FrameCapture> capture;
    CoverageOptions o;
    if (mode == Mode::RomRange) o.codeRanges = {{0xF80000, 0x80000}};
    if (mode == Mode::RamRange || mode == Mode::FramesAndCoverage)
        o.codeRanges = {{0x070000, 0x2000}};
    const double t0 = threadCpuSeconds();
    if (mode != Mode::None && mode != Mode::Frames) {
        counter = std::make_unique<CoverageCounter>(o);
        m.attachCpuObserver(counter.get(), CoverageCounter::kHooks);
    }
    if (mode == Mode::Frames || mode == Mode::FramesAndCoverage) {
        CaptureOptions c;
        c.path = dir.string();
        c.frames = frames;
        capture = std::make_unique<FrameCapture>(m, c, FrameCapture::Context{});
    }
    for (unsigned i = 0; i < frames; ++i)
        m.runFrame();
    if (capture) capture->finish();
    Result r;
    r.speed = m.emulatedSeconds() / (threadCpuSeconds() - t0);
    if (counter) {
        m.detachCpuObserver(counter.get());
        r.counted = counter->total();
        r.sparse = counter->sparseEntries();
    }
    capture.reset();
    fs::remove_all(dir);
    return r;
}

// CPU seconds of one copperline process; -1 when it failed.
double process(const std::string& command) {
    const double t0 = childrenCpuSeconds();
    const int rc = std::system(command.c_str());
    // hello returns 5 (RETURN_WARN).
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 5) {
        std::fprintf(stderr, "copperline-coveragebench: '%s' failed (%d)\n", command.c_str(), rc);
        return -1;
    }
    return childrenCpuSeconds() - t0;
}

} // namespace

int main(int argc, char** argv) {
    unsigned frames = 500;
    const bool one = argc > 2 && std::string(argv[1]) == "--mode";
    if (argc > 1 && !one) frames = unsigned(std::atoi(argv[1]));
    try {
        rom = loadRom(defaultRomPath());
        ext = loadRom(defaultExtRomPath());
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline-coveragebench: %s\n", e.what());
        return 2;
    }
    const fs::path dir = "/dev/shm/copperline-coveragebench-" + std::to_string(::getpid());
    if (one) {
        const std::string name = argv[2];
        const struct {
            const char* name;
            Mode mode;
        } names[] = {{"none", Mode::None},     {"sparse", Mode::Sparse}, {"rom", Mode::RomRange},
                     {"ram", Mode::RamRange},  {"frames", Mode::Frames}, {"frames+coverage", Mode::FramesAndCoverage}};
        for (const auto& n : names)
            if (name == n.name) {
                const unsigned count = argc > 3 ? unsigned(std::atoi(argv[3])) : frames;
                const Result r = boot(count, n.mode, dir);
                std::printf("%s, %u frames: %.2fx real time\n", n.name, count, r.speed);
                return 0;
            }
        std::fprintf(stderr, "copperline-coveragebench: --mode wants none, sparse, rom, ram, frames or "
                             "frames+coverage, not '%s'\n", name.c_str());
        return 2;
    }
    std::printf("AROS boot from power-on, %u frames, PAL A500, emulated seconds per CPU second, "
                "best of 5 rounds\n",
                frames);
    const struct {
        Mode mode;
        const char* name;
    } modes[] = {{Mode::None, "no counter"},
                 {Mode::Sparse, "counter, sparse map (no ranges)"},
                 {Mode::RomRange, "counter, one range: the Kickstart ROM"},
                 {Mode::RamRange, "counter, one range in RAM (not hit)"},
                 {Mode::Frames, "capture of frame records"},
                 {Mode::FramesAndCoverage, "capture of frame records + coverage"}};
    constexpr std::size_t kModes = sizeof modes / sizeof modes[0];
    Result best[kModes];
    for (int round = 0; round < 5; ++round)
        for (std::size_t i = 0; i < kModes; ++i) {
            const Result r = boot(frames, modes[i].mode, dir);
            if (r.speed > best[i].speed) best[i] = r;
        }
    const double none = best[0].speed;
    for (std::size_t i = 0; i < kModes; ++i) {
        std::printf("%-38s %7.2fx real time", modes[i].name, best[i].speed);
        if (i) std::printf("  %.3fx the time of no counter", none / best[i].speed);
        if (modes[i].mode == Mode::FramesAndCoverage)
            std::printf(", %.3fx the capture alone", best[4].speed / best[i].speed);
        if (best[i].counted)
            std::printf("  (%.1f M instructions, %llu sparse entries)",
                        double(best[i].counted) / 1e6,
                        static_cast<unsigned long long>(best[i].sparse));
        std::printf("\n");
    }

    const std::string exe = COPPERLINE_EXE, hello = COPPERLINE_HELLO;
    const std::string info = (dir.string() + "-hello.info");
    const std::string base = "'" + exe + "' --factory --noaudio --run '" + hello + "'";
    std::printf(
        "\ncopperline --run hello, CPU seconds of the whole process (boot included), best of 5\n");
    double plain = -1, covered = -1;
    for (int round = 0; round < 5; ++round) {
        const double p = process(base + " >/dev/null 2>&1");
        const double c = process(base + " --coverage '" + info + "' --force >/dev/null 2>&1");
        if (p < 0 || c < 0) return 1;
        if (plain < 0 || p < plain) plain = p;
        if (covered < 0 || c < covered) covered = c;
    }
    fs::remove(info);
    std::printf("%-38s %7.3f s\n", "--run hello", plain);
    std::printf("%-38s %7.3f s  %.3fx\n", "--run hello --coverage FILE", covered, covered / plain);
    return 0;
}
