// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-capturebench --soak: a long capture under a busy control socket. Starts a
// headless `copperline --control`, starts a capture with precise CPU samples for FRAMES
// frames (default 100,000: 33 emulated minutes of the AROS boot and what follows it) and
// runs the machine, while a second client calls `status` in a loop for the whole run. It
// prints the emulator's resident memory every 10,000 frames, with the bytes the record of
// the past holds then (it grows by design until its budget, --record-budget, 256 MiB by
// default), and at the end how much each grew after the first 10,000 (the goal: flat
// within 5 % beside the record), and how many `status` calls were made and answered (the
// goal: every one), with the slowest answer.
//
//   copperline-capturebench --soak [--frames N] [--dir FOLDER] [--exe PATH]
//
// The capture goes into a new folder under FOLDER (default: the working directory) and is
// removed at the end.

#include "tests/bench/capture/capture_soak.h"
#include "tests/bench/control_client.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace copperline::bench {

namespace {

// A process's resident memory in KiB (-1 if it cannot be read).
long rssOf(qint64 pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    return -1;
}

// The second client: `status`, one call after another, until told to stop.
struct StatusLoop {
    std::atomic<bool> stop{false};
    std::uint64_t calls = 0, answered = 0;
    double slowestMs = 0;
    std::string path;

    void run() {
        ControlClient c("soak status client");
        if (!c.connect(path)) return;
        while (!stop.load()) {
            const auto t0 = Clock::now();
            ++calls;
            if (c.callLine("status", json::object(), 60000)) ++answered;
            slowestMs = std::max(slowestMs, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
    }
};

} // namespace

int runSoak(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    unsigned frames = 100'000;
    QString exe = QStringLiteral(COPPERLINE_EXE);
    fs::path where = fs::current_path();
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = unsigned(std::clamp(std::atol(argv[++i]), 10'000L, 100'000L));
        else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc)
            where = argv[++i];
        else if (!std::strcmp(argv[i], "--exe") && i + 1 < argc)
            exe = QString::fromLocal8Bit(argv[++i]);
    }
    const fs::path dir = where / ("copperline-soak-" + std::to_string(QCoreApplication::applicationPid()));
    if (fs::exists(dir)) {
        std::fprintf(stderr, "copperline-capturebench: %s exists\n", dir.c_str());
        return 2;
    }

    QTemporaryDir scratch;
    const QString info = scratch.filePath("control.json");
    QProcess emulator;
    const std::string path =
        startControlled(emulator, exe, QStringLiteral("capturesoak-%1").arg(QCoreApplication::applicationPid()), info,
                        {}, COPPERLINE_ROM_DIR, "copperline-capturebench");
    if (path.empty()) return 1;
    const qint64 pid = emulator.processId();

    ControlClient c("soak");
    if (!c.connect(path)) {
        std::fprintf(stderr, "copperline-capturebench: cannot connect to %s\n", path.c_str());
        return 1;
    }
    const json started = c.call("profile.start", {{"path", dir.string()}, {"frames", frames}, {"samples", true}});
    if (started.is_discarded()) return 1;
    std::printf("soak: a capture with precise samples of %u frames of the AROS boot (PAL A500) into %s,\n"
                "      a second client calling status in a loop throughout\n",
                frames, dir.c_str());
    std::printf("%10s %10s %12s %12s %14s %12s\n", "frames", "RSS MiB", "record MiB", "written MB", "host s",
                "x real time");

    StatusLoop loop;
    loop.path = path;
    std::thread statusThread([&loop] { loop.run(); });
    const auto t0 = Clock::now();
    c.call("continue", {{"wait", false}});
    std::vector<long> rss;            // at every 10,000 frames, KiB
    std::vector<long> recordKiB;      // the record of the past's bytes then
    unsigned next = 10'000;
    json status;
    for (;;) {
        QThread::msleep(200);
        status = c.call("profile.status");
        if (status.is_discarded()) break;
        const unsigned written = status.value("frames_written", 0u);
        while (written >= next && next <= frames) {
            rss.push_back(rssOf(pid));
            const json timeline = c.call("timeline.status");
            recordKiB.push_back(timeline.is_object() ? long(timeline.value("bytes_used", 0ull) / 1024) : 0);
            const double host = std::chrono::duration<double>(Clock::now() - t0).count();
            std::printf("%10u %10.1f %12.1f %12.1f %14.1f %12.1f\n", next, double(rss.back()) / 1024.0,
                        double(recordKiB.back()) / 1024.0, double(status.value("bytes_written", 0ull)) / 1e6, host,
                        double(next) / 50.0 / host);
            std::fflush(stdout);
            next += 10'000;
        }
        if (!status.value("active", false)) break;
    }
    loop.stop = true;
    statusThread.join();
    c.call("pause");
    c.callLine("quit", json::object(), 30000);
    emulator.waitForFinished(30000);
    std::error_code ec;
    fs::remove_all(dir, ec);

    if (rss.size() < frames / 10'000) {
        std::fprintf(stderr, "copperline-capturebench: the capture ended early: %s\n", status.dump().c_str());
        return 1;
    }
    if (rss.size() >= 2) {
        const auto [lo, hi] = std::minmax_element(rss.begin(), rss.end());
        std::printf("resident memory from 10,000 frames on: %.1f to %.1f MiB, %+.1f %% from the first to the last; "
                    "the record of the past grew by %.1f MiB of it\n",
                    double(*lo) / 1024.0, double(*hi) / 1024.0,
                    100.0 * double(rss.back() - rss.front()) / double(rss.front()),
                    double(recordKiB.back() - recordKiB.front()) / 1024.0);
        std::vector<long> rest(rss.size());
        for (std::size_t i = 0; i < rss.size(); ++i)
            rest[i] = rss[i] - recordKiB[i];
        const auto [rlo, rhi] = std::minmax_element(rest.begin(), rest.end());
        std::printf("beside the record: %.1f to %.1f MiB, %.1f %% between the least and the most (goal: within 5 %%)\n",
                    double(*rlo) / 1024.0, double(*rhi) / 1024.0, 100.0 * double(*rhi - *rlo) / double(*rlo));
    }
    std::printf("status calls: %llu made, %llu answered (%s), the slowest answer %.1f ms\n",
                static_cast<unsigned long long>(loop.calls), static_cast<unsigned long long>(loop.answered),
                loop.calls == loop.answered && loop.calls > 0 ? "every one" : "NOT every one", loop.slowestMs);
    return loop.calls == loop.answered && loop.calls > 0 ? 0 : 1;
}

} // namespace copperline::bench
