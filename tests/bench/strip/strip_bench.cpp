// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-stripbench: how fast the profile strip replays a profiling frame's call tree.
// Boots a bare-metal main loop, serves it on a local control socket, and over that socket
// (the round trip included) calls strip.tree for a frame-long pass of two programs: one that
// works, then waits in STOP for the vertical blank (tests/guest/strip/strip_loop.s), and one
// that spins on INTREQR instead (tests/guest/strip/strip_busy.s). Prints the median and the
// 95th percentile of each.
//
//   copperline-stripbench [--calls N]

#include "app/control/control_server.h"
#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "tests/bench/control_client.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace copperline;

namespace {

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

std::uint32_t symbol(const char* elf, const std::string& name) {
    QProcess nm;
    nm.start(M68K_NM, {"--defined-only", elf});
    nm.waitForFinished();
    for (const QByteArray& line : nm.readAllStandardOutput().split('\n')) {
        const auto f = line.simplified().split(' ');
        if (f.size() == 3 && f[2].toStdString() == name) return f[0].toUInt(nullptr, 16);
    }
    return 0;
}

// strip.tree of `calls` passes of `bin`, over the socket; false when a call failed.
bool measure(QCoreApplication& app, const char* title, const char* bin, const char* elf, int calls) {
    const std::uint32_t pass = symbol(elf, "pass");
    if (!pass) {
        std::fprintf(stderr, "stripbench: no symbol pass in %s\n", elf);
        return false;
    }
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(bin));
    Emulator emulator(std::move(m), Emulator::Options{});
    ControlServer server(emulator);
    std::string error;
    const std::string name = "stripbench-" + std::to_string(QCoreApplication::applicationPid());
    if (!server.listen(name, &error)) {
        std::fprintf(stderr, "stripbench: %s\n", error.c_str());
        return false;
    }
    emulator.start();
    bool ok = true;
    std::thread client([&] {
        bench::ControlClient c("stripbench");
        ok = c.connect(server.socketPath());
        if (ok) ok = !c.call("step_frame", {{"n", 5}}).is_discarded();
        if (ok) ok = !c.call("strip.set", {{"start", pass}, {"mode", "pass"}}).is_discarded();
        if (ok) ok = !c.call("step_frame", {{"n", 60}}).is_discarded();
        const json bars = ok ? c.call("strip.bars") : json();
        if (!bars.is_object() || bars["bars"].size() < 20) {
            std::fprintf(stderr, "stripbench: %s: too few bars\n", title);
            ok = false;
        }
        std::vector<double> ms;
        std::uint64_t steps = 0, length = 0;
        for (int i = 0; ok && i < calls + 3; ++i) {
            const json& bar = bars["bars"][bars["bars"].size() - 2 - std::size_t(i) % 16];
            const auto t0 = Clock::now();
            const json tree = c.call("strip.tree", {{"bar", bar["bar"]}});
            const double took = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            if (tree.is_discarded()) ok = false;
            if (i < 3) continue; // warm up
            ms.push_back(took);
            steps = tree.value("steps", 0ull);
            length = tree.value("total_cck", 0ull);
        }
        if (ok)
            std::printf("strip.tree, %s: a pass of %llu cck in %llu steps: median %.2f ms, p95 %.2f ms (%d calls)\n",
                        title, (unsigned long long)length, (unsigned long long)steps, percentile(ms, 0.5),
                        percentile(ms, 0.95), calls);
        QMetaObject::invokeMethod(&app, [&app] { app.quit(); }, Qt::QueuedConnection);
    });
    app.exec();
    client.join();
    emulator.stop();
    server.finish();
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int calls = 50;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!std::strcmp(argv[i], "--calls")) calls = std::max(5, std::atoi(argv[i + 1]));
    if (!measure(app, "work, then STOP", STRIP_LOOP_BIN, STRIP_LOOP_ELF, calls)) return 1;
    if (!measure(app, "work, then a busy wait", STRIP_BUSY_BIN, STRIP_BUSY_ELF, calls)) return 1;
    return 0;
}
