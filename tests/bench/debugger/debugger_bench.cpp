// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-debuggerbench: how fast the source-level debugger answers. Starts a headless
// `copperline --control --run` on the debugger's -O0 program (tests/guest/debugger/dbg.c),
// runs it to main, and over the local socket times, call by call (wall clock, the socket's
// round trip included): the forward line steps (next_line over main's calls, step_line down
// into walk, area and scale), the backward ones through the record over the same lines,
// stack.frames, the Globals scope read with vars.get, and eval. Prints the median and the
// slowest of each, and the boot to the program's first instruction.
//
//   copperline-debuggerbench [--rounds N] [--exe PATH] [--program PATH]

#include "tests/bench/control_client.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

using Client = copperline::bench::ControlClient;

struct Timings {
    std::map<std::string, std::vector<double>> ms;
    bool failed = false;
    json timed(Client& c, const std::string& method, const json& params = json::object()) {
        const auto t0 = Clock::now();
        json r = c.call(method, params);
        ms[method].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (r.is_discarded()) failed = true;
        return r;
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int lineOf(const char* path, const char* marker) {
    QFile f(QString::fromUtf8(path));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    int line = 0;
    while (!f.atEnd()) {
        ++line;
        if (f.readLine().contains(QByteArray("@") + marker + " ")) return line;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int rounds = 20;
    QString exe = QStringLiteral(COPPERLINE_EXE), program = QStringLiteral(GUEST_DEBUGGER_O0);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--rounds"))
            rounds = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--exe"))
            exe = QString::fromLocal8Bit(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--program"))
            program = QString::fromLocal8Bit(argv[i + 1]);
    }
    QTemporaryDir dir;
    const QString info = dir.filePath("control.json");
    QProcess emulator;
    const std::string path = copperline::bench::startControlled(
        emulator, exe, QStringLiteral("debuggerbench-%1").arg(QCoreApplication::applicationPid()), info,
        {"--run", program}, COPPERLINE_ROM_DIR, "debuggerbench");
    if (path.empty()) return 1;
    Client c("debuggerbench");
    if (!c.connect(path)) return 1;

    Timings t;
    const auto boot = Clock::now();
    if (t.timed(c, "continue").value("reason", std::string()) != "loadseg") return 1;
    std::printf("boot to the program's first instruction: %.0f ms\n",
                std::chrono::duration<double, std::milli>(Clock::now() - boot).count());
    const char* source = COPPERLINE_SOURCE_DIR "/tests/guest/debugger/dbg.c";
    const int mainWord = lineOf(source, "main_word");
    if (!mainWord) return 1;
    c.call("break.add", {{"kind", "line"}, {"file", "dbg.c"}, {"line", mainWord}});
    if (t.timed(c, "continue").is_discarded()) return 1;
    t.ms.clear();
    for (int r = 0; r < rounds && !t.failed; ++r) {
        // Over fill() and walk(), into walk, area and scale, then all the way back.
        for (int i = 0; i < 2; ++i) t.timed(c, "next_line");
        for (int i = 0; i < 8; ++i) t.timed(c, "step_line");
        t.timed(c, "stack.frames");
        const json scopes = t.timed(c, "vars.scopes", {{"frame", 0}});
        if (scopes.is_object() && scopes["scopes"].size() > 2) t.timed(c, "vars.get", {{"ref", scopes["scopes"][2]["ref"]}});
        t.timed(c, "eval", {{"expr", "items[1].flags.delta + ticks"}});
        for (int i = 0; i < 8; ++i) t.timed(c, "reverse_step_line");
        for (int i = 0; i < 2; ++i) t.timed(c, "reverse_next_line");
    }
    if (t.failed) return 1;
    std::printf("%d rounds from dbg.c:%d (wall clock per call, socket included):\n", rounds, mainWord);
    for (const char* m : {"next_line", "step_line", "reverse_step_line", "reverse_next_line", "stack.frames",
                          "vars.scopes", "vars.get", "eval"}) {
        const auto& v = t.ms[m];
        std::printf("  %-18s median %8.2f ms, slowest %8.2f ms (%zu calls)\n", m, median(v),
                    v.empty() ? 0 : *std::max_element(v.begin(), v.end()), v.size());
    }
    c.call("quit");
    emulator.waitForFinished(10000);
    return 0;
}
