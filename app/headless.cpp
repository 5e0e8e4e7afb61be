// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/headless.h"

#include "emu/machine.h"
#include "profiler/capture/overlay.h"
#include "profiler/capture/screenshot.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace copperline {

namespace {
std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};

extern "C" void onTermination(int sig) {
    g_signal.store(sig);
    if (g_pipe[1] >= 0) {
        const char byte = char(sig);
        [[maybe_unused]] const auto n = ::write(g_pipe[1], &byte, 1);
    }
}
} // namespace

void installTerminationHandlers() {
    if (g_pipe[0] < 0 && ::pipe(g_pipe) == 0) {
        for (int fd : g_pipe) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        ::fcntl(g_pipe[1], F_SETFL, O_NONBLOCK);
    }
    struct sigaction sa {};
    sa.sa_handler = onTermination;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int terminationSignal() {
    return g_signal.load();
}

int terminationPipe() {
    return g_pipe[0];
}

bool writeScreenshotNow(Machine& machine, const std::string& path, bool overlay) {
    try {
        Image picture = composeDisplay(machine);
        if (overlay) drawOverlay(picture, machine.guestApi().committedOverlay());
        writePng(path, picture);
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copperline: screenshot: %s\n", e.what());
        return false;
    }
}

int runHeadless(Machine& machine, const HeadlessOptions& options) {
    auto shots = options.screenshots;
    std::stable_sort(shots.begin(), shots.end(), [](auto& a, auto& b) { return a.seconds < b.seconds; });
    double end = options.runSeconds;
    for (const auto& s : shots) end = std::max(end, s.seconds);

    const auto start = std::chrono::steady_clock::now();
    std::size_t next = 0;
    while (true) {
        while (next < shots.size() && machine.emulatedSeconds() >= shots[next].seconds) {
            if (!writeScreenshotNow(machine, shots[next].path, options.screenshotOverlay))
                return exit_status::EmulatorError;
            ++next;
        }
        if (machine.emulatedSeconds() >= end) break;
        if (const int sig = terminationSignal()) {
            std::fprintf(stderr, "copperline: stopped by signal %d after %.2f emulated s\n", sig,
                         machine.emulatedSeconds());
            return 128 + sig;
        }
        if (machine.halted()) {
            const auto r = machine.cpu().registers();
            std::fprintf(stderr, "copperline: the CPU halted (double bus fault) at PC $%06X after %.2f s\n",
                         r.pc, machine.emulatedSeconds());
            return exit_status::EmulatorError;
        }
        machine.runFrame();
    }
    if (options.printSpeed) {
        const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "copperline: %.2f emulated s in %.2f host s: %.2fx real time\n", machine.emulatedSeconds(),
                     host, host > 0 ? machine.emulatedSeconds() / host : 0.0);
    }
    return exit_status::Ok;
}

} // namespace copperline
