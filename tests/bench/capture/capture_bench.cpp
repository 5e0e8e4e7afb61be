// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-capturebench [FRAMES] [--rss]: what a per-frame capture costs. Runs FRAMES
// frames (default 500) of the AROS boot from power-on with no capture, a capture without
// slots, and one with slots and memory, each into a tmpfs folder (/dev/shm) and into a
// folder on disk (the working directory), and prints emulated seconds per host second,
// bytes per frame and the ratio to no capture (best of 3).
//
// --rss runs one 100,000-frame capture without slots into /dev/shm and prints the resident
// memory at 1,000 and at 100,000 frames.
//
// --ring measures the flight recorder: a ring of 50 frames (no slots) against no capture
// over FRAMES frames (best of 3), and then a ring run for 100,000 frames, with the resident
// memory at 1,000 and at 100,000 frames.
//
// --soak [--frames N] [--dir FOLDER] runs a capture with samples in a real copperline under
// a busy control socket (capture_soak.cpp).

#include "emu/machine.h"
#include "emu/media/byte_reader.h"
#include "emu/media/rom.h"
#include "profiler/capture/frame_capture.h"
#include "tests/bench/capture/capture_soak.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace copperline;
namespace fs = std::filesystem;

namespace {

RomImage rom, ext;

std::unique_ptr<Machine> machine() {
    auto m = std::make_unique<Machine>();
    m->setRom(rom);
    m->setExtRom(ext);
    m->powerOn();
    return m;
}

long rssKiB() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    return -1;
}

struct Result {
    double speed = 0;
    double bytesPerFrame = 0;
};

Result run(unsigned frames, const char* mode, const fs::path& where) {
    Result best;
    for (int rep = 0; rep < 3; ++rep) {
        auto m = machine();
        std::unique_ptr<FrameCapture> capture;
        const fs::path dir = where / ("copperline-capturebench-" + std::to_string(::getpid()) + "-" + std::to_string(rep));
        fs::remove_all(dir);
        const auto t0 = std::chrono::steady_clock::now();
        if (std::strcmp(mode, "none") != 0) {
            CaptureOptions o;
            o.path = dir.string();
            o.frames = frames;
            o.recordSlots = o.memory = std::strcmp(mode, "slots+memory") == 0;
            if (!std::strcmp(mode, "ring")) {
                o.ring = 50;
                o.frames = CaptureOptions::kMaxFrames;
            }
            capture = std::make_unique<FrameCapture>(*m, o, FrameCapture::Context{});
        }
        for (unsigned i = 0; i < frames; ++i) m->runFrame();
        m->runFrame(); // the last frame's accounting completes at the next boundary
        const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        Result r;
        r.speed = m->emulatedSeconds() / host;
        if (capture) {
            if (capture->ringHolding()) capture->stopRing("profile.stop");
            capture->finish();
            r.bytesPerFrame = double(capture->status().bytesWritten) / std::max(1u, capture->status().framesWritten);
        }
        fs::remove_all(dir);
        if (r.speed > best.speed) best = r;
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    unsigned frames = 500;
    bool rss = false, ring = false;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--soak")) return copperline::bench::runSoak(argc, argv);
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--rss")) rss = true;
        else if (!std::strcmp(argv[i], "--ring")) ring = true;
        else frames = unsigned(std::atoi(argv[i]));
    }
    try {
        rom = loadRom(defaultRomPath());
        ext = loadRom(defaultExtRomPath());
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline-capturebench: %s\n", e.what());
        return 2;
    }
    if (ring) {
        std::printf("AROS boot from power-on, %u frames, PAL A500, best of 3\n", frames);
        const Result none = run(frames, "none", "/dev/shm");
        const Result r = run(frames, "ring", "/dev/shm");
        std::printf("no capture                      %7.2fx real time\n", none.speed);
        std::printf("ring of 50 frames (no slots)    %7.2fx real time  %.2fx the time of no capture "
                    "(goal: at most 1.3x)\n",
                    r.speed, none.speed / r.speed);
        auto m = machine();
        CaptureOptions o;
        o.path = "/dev/shm/copperline-capturebench-ring-" + std::to_string(::getpid());
        o.frames = CaptureOptions::kMaxFrames;
        o.ring = 50;
        fs::remove_all(o.path);
        FrameCapture c(*m, o, FrameCapture::Context{});
        long at1000 = 0, at100k = 0;
        std::uint64_t heldAt1000 = 0, heldAt100k = 0;
        for (unsigned n = 1; c.status().active(); ++n) {
            m->runFrame();
            if (n == 1000) {
                at1000 = rssKiB();
                heldAt1000 = c.status().ringBytes;
            }
            if (n == CaptureOptions::kMaxFrames - 1) {
                at100k = rssKiB();
                heldAt100k = c.status().ringBytes;
            }
        }
        std::printf("ring of 50 frames run for 100,000 frames: RSS %.1f MiB at 1,000 frames (%.2f MB held), "
                    "%.1f MiB at 100,000 (%.2f MB held); %u frames written at the end\n",
                    at1000 / 1024.0, double(heldAt1000) / 1e6, at100k / 1024.0, double(heldAt100k) / 1e6,
                    c.status().framesWritten);
        fs::remove_all(o.path);
        return 0;
    }
    if (rss) {
        auto m = machine();
        CaptureOptions o;
        o.path = "/dev/shm/copperline-capturebench-rss-" + std::to_string(::getpid());
        o.frames = 100'000;
        fs::remove_all(o.path);
        FrameCapture c(*m, o, FrameCapture::Context{});
        long at1000 = 0;
        while (c.status().active()) {
            m->runFrame();
            if (c.status().framesWritten == 1000 && !at1000) at1000 = rssKiB();
        }
        const long at100k = rssKiB();
        std::printf("100,000-frame capture without slots: RSS %.1f MiB at 1,000 frames, %.1f MiB at 100,000 "
                    "(%.1f MB written)\n",
                    at1000 / 1024.0, at100k / 1024.0, double(c.status().bytesWritten) / 1e6);
        fs::remove_all(o.path);
        return 0;
    }
    std::printf("AROS boot from power-on, %u frames, PAL A500, best of 3\n", frames);
    const Result none = run(frames, "none", "/dev/shm");
    std::printf("%-34s %7.2fx real time\n", "no capture", none.speed);
    for (const char* where : {"/dev/shm", "."}) {
        for (const char* mode : {"frames", "slots+memory"}) {
            const Result r = run(frames, mode, where);
            std::printf("%-14s %-19s %7.2fx real time  %9.0f bytes/frame  %.2fx the time of no capture\n", mode,
                        std::strcmp(where, ".") ? "tmpfs (/dev/shm)" : "disk (cwd)", r.speed, r.bytesPerFrame,
                        none.speed / r.speed);
        }
    }
    return 0;
}
