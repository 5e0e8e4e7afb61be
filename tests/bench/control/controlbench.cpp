// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-controlbench: how fast the control protocol answers. Starts a headless
// `copperline --control`, then over its local socket measures the `status` round trip
// (median and 99th percentile of many calls, one at a time) and the throughput of
// `mem.read` of 64 KiB blocks in hex and in base64.
//
//   copperline-controlbench [--calls N] [--reads N] [--exe PATH]

#include "tests/bench/control_client.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int calls = 5000, reads = 400;
    QString exe = QStringLiteral(COPPERLINE_EXE);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--calls"))
            calls = std::max(10, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--reads"))
            reads = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--exe"))
            exe = QString::fromLocal8Bit(argv[i + 1]);
    }

    QTemporaryDir dir;
    const QString info = dir.filePath("control.json");
    QProcess emulator;
    const std::string path = copperline::bench::startControlled(
        emulator, exe, QStringLiteral("controlbench-%1").arg(QCoreApplication::applicationPid()), info, {},
        COPPERLINE_ROM_DIR, "controlbench");
    if (path.empty()) return 1;

    copperline::bench::ControlClient c("controlbench");
    if (!c.connect(path)) {
        std::fprintf(stderr, "controlbench: cannot connect to %s\n", path.c_str());
        return 1;
    }
    // A booted machine, so that memory holds something.
    c.callLine("step_frame", {{"n", 100}}, 30000);

    for (int i = 0; i < 200; ++i)
        c.callLine("status", json::object(), 30000); // warm up
    std::vector<double> us;
    us.reserve(std::size_t(calls));
    for (int i = 0; i < calls; ++i) {
        const auto t0 = Clock::now();
        if (!c.callLine("status", json::object(), 30000)) return 1;
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    std::printf("status round trip: median %.1f us, p99 %.1f us (%d calls)\n", percentile(us, 0.5),
                percentile(us, 0.99), calls);

    for (const char* encoding : {"hex", "base64"}) {
        constexpr std::uint32_t kBlock = 64 * 1024;
        const auto t0 = Clock::now();
        std::size_t wire = 0;
        for (int i = 0; i < reads; ++i) {
            const std::uint32_t addr =
                std::uint32_t(i % 8) * kBlock; // across the 512 KiB of chip RAM
            const auto reply =
                c.callLine("mem.read", {{"addr", addr}, {"len", kBlock}, {"encoding", encoding}}, 30000);
            if (!reply) return 1;
            wire += std::size_t(reply->size());
        }
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        std::printf(
            "mem.read 64 KiB (%s): %.1f MiB/s of memory, %.0f calls/s, %.1f MiB/s on the wire\n",
            encoding, double(reads) * kBlock / s / (1 << 20), reads / s,
            double(wire) / s / (1 << 20));
    }

    c.callLine("quit", json::object(), 30000);
    emulator.waitForFinished(10000);
    return 0;
}
