// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-recordbench [SECONDS]: the record of the past (docs/record.md) with its
// default budget of 256 MiB, on two workloads: AROS's idle screen (booted 40 s first) and
// tests/guest/record/churn.s, which rewrites chip RAM as fast as the A500's bus allows.
// For each it runs SECONDS emulated seconds (default 60) with the record and prints:
//   - the emulated seconds the record holds, its bytes, and the seconds 256 MiB holds at
//     the rate of the run (a lower bound when the record is not yet full: thinning makes
//     older seconds cheaper);
//   - the host time to stand on a random boundary of the latest 10 s, and of the whole
//     record (median and 95th percentile; each from wherever the last one left it);
//   - the speed (emulated seconds per host second) with and without the record, over the
//     same first 20 s.

#include "emu/machine.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "emu/record/record.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <vector>

using namespace copperline;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs `seconds` emulated seconds, telling the record of each new frame if there is one.
double run(Machine& m, Record* r, double seconds, bool& committed) {
    const auto until = m.now() + std::uint64_t(seconds * kPalCpuHz);
    const auto t0 = Clock::now();
    while (m.now() < until) {
        if (r && m.now() >= r->nextDue()) r->applyDue();
        m.stepInstruction();
        if (committed) {
            committed = false;
            if (r) r->frameStarted();
        }
    }
    return since(t0);
}

struct Times {
    double median = 0, p95 = 0;
};

Times standRandomly(Record& r, std::uint64_t from, std::uint64_t to, int samples,
                    std::mt19937_64& rng) {
    std::uniform_int_distribution<std::uint64_t> pick(from, to);
    std::vector<double> ms;
    for (int i = 0; i < samples; ++i) {
        const std::uint64_t target = pick(rng);
        const auto t0 = Clock::now();
        if (!r.seek(Record::Key::Cycle, target)) {
            std::fprintf(stderr, "copperline-recordbench: a seek inside the record failed\n");
            std::exit(1);
        }
        ms.push_back(since(t0) * 1000);
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 95 / 100)]};
}

void bench(const char* name, const std::function<std::unique_ptr<Machine>()>& make,
           double seconds) {
    std::printf("\n%s, %.0f emulated seconds with the record (budget 256 MiB)\n", name, seconds);
    double plain = 0;
    {
        auto m = make();
        bool committed = false;
        m->setFrameCallback([&](std::uint64_t) { committed = true; });
        plain = std::min(seconds, 20.0) / run(*m, nullptr, std::min(seconds, 20.0), committed);
    }
    auto m = make();
    bool committed = false;
    m->setFrameCallback([&](std::uint64_t) { committed = true; });
    Record r(*m);
    // The same stretch as the run without the record, then the rest.
    const double span = std::min(seconds, 20.0);
    const double withRecord = span / run(*m, &r, span, committed);
    run(*m, &r, seconds - span, committed);
    const double held = double(r.newest().cycle - r.oldest().cycle) / kPalCpuHz;
    const double mib = double(r.bytesUsed()) / (1 << 20);
    std::printf("  held: %.1f s in %.1f MiB, %zu snapshots (%s)\n", held, mib, r.snapshotCount(),
                r.holdsStart() ? "nothing evicted yet" : "oldest evicted");
    std::printf("  seconds per 256 MiB: %s%.0f\n", r.holdsStart() ? ">= " : "", held * 256.0 / mib);
    std::mt19937_64 rng(15);
    const std::uint64_t newest = r.newest().cycle, oldest = r.oldest().cycle;
    const std::uint64_t tenSeconds = std::uint64_t(10 * kPalCpuHz);
    const Times recent = standRandomly(
        r, newest > oldest + tenSeconds ? newest - tenSeconds : oldest, newest, 200, rng);
    std::printf("  stand on a random boundary, latest 10 s: median %.1f ms, p95 %.1f ms\n",
                recent.median, recent.p95);
    const Times whole = standRandomly(r, oldest, newest, 60, rng);
    std::printf("  stand on a random boundary, whole record: median %.1f ms, p95 %.1f ms\n",
                whole.median, whole.p95);
    std::printf("  speed: %.2f emulated s per host s without the record, %.2f with it (%.0f%%)\n",
                plain, withRecord, 100.0 * withRecord / plain);
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 60.0;
    if (!(seconds >= 12)) {
        std::fprintf(stderr, "copperline-recordbench: SECONDS must be at least 12\n");
        return 2;
    }
    RomImage rom, ext;
    std::vector<std::uint8_t> churn;
    try {
        rom = loadRom(defaultRomPath());
        ext = loadRom(defaultExtRomPath());
        churn = readFileBytes(RECORD_CHURN);
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline-recordbench: %s\n", e.what());
        return 2;
    }
    // The AROS idle screen: booted 40 s, the state kept, each run starts from it.
    std::vector<std::uint8_t> idle;
    {
        Machine m;
        m.setRom(rom);
        m.setExtRom(ext);
        m.powerOn();
        m.runUntil(std::uint64_t(40 * kPalCpuHz));
        idle = m.saveState();
    }
    bench(
        "AROS idle screen",
        [&] {
            auto m = std::make_unique<Machine>();
            m->setRom(rom);
            m->setExtRom(ext);
            m->loadState(idle);
            return m;
        },
        seconds);
    bench(
        "churn (chip RAM rewritten as fast as the bus allows)",
        [&] {
            auto m = std::make_unique<Machine>();
            m->bootBareMetal(churn);
            return m;
        },
        seconds);
    return 0;
}
