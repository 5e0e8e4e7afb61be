// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-bootbench: the speed of the emulated A500, bare and with each observer a user
// can arm, on two workloads:
//   - aros: the AROS boot from power-on, SECONDS emulated seconds (--seconds, default 40);
//   - busy: tests/guest/bench/busy.s, a bare-metal program that loads the chip bus as a demo
//     does (5 lores bitplanes, a Copper list with a WAIT and four colour MOVEs on every line,
//     four sprites, back-to-back blits with BLTPRI off, the CPU working in chip RAM between
//     blit starts, a vertical-blank interrupt), SECONDS emulated seconds (--busy-seconds,
//     default 20).
//
// The speed is "x real time": emulated seconds per CPU second of this thread
// (tests/bench/bench_clock.h), the median of N runs (--runs, default 5). The runs go round
// robin over the modes, so that a change in the host's load falls on every mode alike.
// Each mode is armed as the app arms it (app/control):
//   bare            Agnus records nothing (setRecordOwners(false)), Machine::runFrame
//   owner grid      the owner of every colour clock (the default the app runs with)
//   full slot records    the owners and full 24-byte slot records (the Frame Analyzer,
//                   profile.start's "slots")
//   owners + blit trace  the owners and the blit trace (the DMA words of every blit, for
//                   previews)
//   capture         a per-frame capture of frame records alone (profile.start) into /dev/shm
//   pc_samples      the capture with "pc_samples": true, which the app takes to mean the
//                   PC, SR and ThisTask at each frame's boundary in its frame record (the
//                   statistical sampler is "sampler", the next but one)
//   samples         the capture with "samples": true (the precise sampler, every step)
//   sampler 1 kHz   the capture with "sampler": {"hz": 1000} (the system sampler)
//   coverage        the coverage counter, sparse over every address (as profile.start's
//                   "coverage": true without code_ranges counts), a CPU observer
//   step loop       the owners, run one step at a time by a loop shaped as the app's
//                   (Emulator::Impl::runSlice): the base of the two modes below
//   record          the step loop with the record of the past (256 MiB, told of each frame),
//                   which the app keeps all the time
//   strip armed     the step loop with the profile strip's cutter armed (pass): for busy at
//                   its main loop, for AROS at the level-3 interrupt handler it has at $6C
//                   after 8 s of boot, reached every frame once the boot enables VERTB
//                   (or, if none, at an address nothing reaches: the output says)
// Each line prints the speed, its spread over the runs ((fastest - slowest) / median: how
// quiet the host was), the ratio to bare and the ratio to the mode it builds on (the owner
// grid, or the step loop), each the median over the rounds of that round's ratio, and the
// observer's own figure. After the modes: the share
// of chip-bus clocks by owner in the bare runs and, for busy, the guest's own counters
// (frames its interrupt counted, blits, CPU work chunks). Last, the goals: AROS bare at
// least 30x, busy bare at least 20x, the owner grid under 5 % and full slot records under
// 30 % more time than bare, PASS or MISS.
//
//   copperline-bootbench [--runs N] [--seconds S] [--busy-seconds S] [--workload aros|busy]
//   copperline-bootbench --mode MODE [--workload aros|busy] [--seconds S | --busy-seconds S]
// --mode runs one mode once (bare, owners, slots, blit-trace, capture, pc_samples, samples,
// sampler, coverage, step-loop, record, strip) and prints its speed: for callgrind's
// instruction counts, which the host's load does not move:
//   valgrind --tool=callgrind copperline-bootbench --mode samples --workload busy --busy-seconds 2

#include "emu/clock.h"
#include "emu/machine.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "emu/record/record.h"
#include "profiler/capture/frame_capture.h"
#include "profiler/coverage/coverage_counter.h"
#include "profiler/sampling/sampler.h"
#include "profiler/sampling/system_sampler.h"
#include "profiler/strip/strip_cutter.h"
#include "tests/bench/bench_clock.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using namespace copperline;
namespace fs = std::filesystem;

namespace {

RomImage rom, ext;
std::vector<std::uint8_t> busyProgram;

enum class Workload { Aros, Busy };

enum class Mode {
    Bare, Owners, Slots, BlitTrace, Capture, PcSamples, Samples, Sampler, Coverage, StepLoop,
    Record, Strip
};

struct ModeInfo {
    Mode mode;
    const char* name; // as printed
    const char* key;  // for --mode
    Mode base;        // the mode it adds to
};

const ModeInfo kModes[] = {
    {Mode::Bare, "bare", "bare", Mode::Bare},
    {Mode::Owners, "owner grid", "owners", Mode::Bare},
    {Mode::Slots, "full slot records", "slots", Mode::Owners},
    {Mode::BlitTrace, "owners + blit trace", "blit-trace", Mode::Owners},
    {Mode::Capture, "capture", "capture", Mode::Owners},
    {Mode::PcSamples, "pc_samples", "pc_samples", Mode::Owners},
    {Mode::Samples, "samples", "samples", Mode::Owners},
    {Mode::Sampler, "sampler 1 kHz", "sampler", Mode::Owners},
    {Mode::Coverage, "coverage", "coverage", Mode::Owners},
    {Mode::StepLoop, "step loop", "step-loop", Mode::Owners},
    {Mode::Record, "record", "record", Mode::StepLoop},
    {Mode::Strip, "strip armed", "strip", Mode::StepLoop},
};
constexpr std::size_t kModeCount = sizeof kModes / sizeof kModes[0];

std::size_t indexOf(Mode m) {
    for (std::size_t i = 0; i < kModeCount; ++i)
        if (kModes[i].mode == m) return i;
    return 0;
}

// Where the strip's cutter begins its profiling frames, per workload.
struct StripStart {
    std::uint32_t address = 0;
    std::string what;
};
StripStart arosStrip, busyStrip;

struct Result {
    double speed = 0;
    std::string figure; // the observer's own figure
    std::array<std::uint64_t, kBusOwnerCount> owners{};
    std::uint64_t frames = 0;
    std::uint32_t guestFrames = 0, guestBlits = 0, guestChunks = 0;
};

std::uint32_t spyLong(const Machine& m, std::uint32_t address) {
    return std::uint32_t(m.spyWord(address)) << 16 | m.spyWord(address + 2);
}

std::unique_ptr<Machine> boot(Workload w) {
    auto m = std::make_unique<Machine>();
    if (w == Workload::Aros) {
        m->setRom(rom);
        m->setExtRom(ext);
        m->powerOn();
    } else {
        m->bootBareMetal(busyProgram);
    }
    return m;
}

// The level-3 interrupt handler AROS installs at $6C (read after 8 emulated seconds: the
// vector moves twice during the boot, last to a stub in slow RAM at about 5.8 s); from
// then on it runs every frame. If there is none, an address where no code is.
StripStart findArosStripStart() {
    constexpr double kSettled = 8;
    auto m = boot(Workload::Aros);
    m->runUntil(MasterClock(kSettled * kPalCpuHz));
    const std::uint32_t v = spyLong(*m, 0x6C) & 0xFFFFFF;
    const bool code = !(v & 1) && ((v >= 0x400 && v < 0x80000) || (v >= 0xC00000 && v < 0xC80000) ||
                                   (v >= 0xE00000 && v < 0xE80000) || v >= 0xF80000);
    char text[160];
    if (code) {
        std::snprintf(text, sizeof text, "$%06X, the level-3 interrupt handler at $6C after %.0f s", unsigned(v),
                      kSettled);
        return {v, text};
    }
    constexpr std::uint32_t kNowhere = 0xF7FFFE;
    std::snprintf(text, sizeof text, "$%06X, where no code is ($6C held $%06X after %.0f s)", unsigned(kNowhere),
                  unsigned(v), kSettled);
    return {kNowhere, text};
}

// The strip cutter told of a boundary it wants, as Emulator::Impl::stripBoundary tells it.
void stripBoundary(Machine& m, strip::StripCutter& strip, std::uint32_t pc) {
    const m68k::Registers r = m.cpu().registers();
    strip::StripCutter::Boundary b;
    b.pc = pc;
    b.stopped = m.cpu().stopped();
    b.supervisor = r.sr & 0x2000;
    b.usp = b.supervisor ? r.usp : r.a[7];
    b.ssp = b.supervisor ? r.a[7] : r.ssp;
    b.interruptPending = m.paula().ipl() > ((r.sr >> 8) & 7u);
    b.at = {m.now(), m.cpu().instructions(), m.agnus().cck(), m.frame()};
    strip.boundary(b);
}

void addOwners(const Machine& m, Result& r) {
    const auto& counts = const_cast<Machine&>(m).agnus().committedOwnerCounts();
    for (unsigned o = 0; o < kBusOwnerCount; ++o) r.owners[o] += counts[o];
    ++r.frames;
}

std::string format(const char* f, double a, double b = 0, double c = 0) {
    char buf[200];
    std::snprintf(buf, sizeof buf, f, a, b, c);
    return buf;
}

Result run(Workload w, Mode mode, double seconds, const fs::path& dir) {
    auto machine = boot(w);
    Machine& m = *machine;
    m.agnus().setRecordOwners(mode != Mode::Bare);
    m.agnus().setRecordSlots(mode == Mode::Slots);
    m.blitTrace().setEnabled(mode == Mode::BlitTrace);
    fs::remove_all(dir);
    const bool stepLoop = mode == Mode::StepLoop || mode == Mode::Record || mode == Mode::Strip;
    const bool captured = mode == Mode::Capture || mode == Mode::PcSamples || mode == Mode::Samples ||
                          mode == Mode::Sampler;
    const std::uint64_t frames = std::uint64_t(seconds * 50) + 2;
    const std::uint64_t frame0 = m.frame();
    const double e0 = m.emulatedSeconds();

    std::unique_ptr<Sampler> sampler;
    std::unique_ptr<SystemSampler> system;
    std::unique_ptr<FrameCapture> capture;
    std::unique_ptr<CoverageCounter> counter;
    std::unique_ptr<Record> record;
    strip::StripCutter strip;
    Result r;

    const double t0 = bench::threadCpuSeconds();
    // Armed as profile.start (app/control/profile_commands.cpp, startCapture) arms them.
    if (captured) {
        FrameCapture::Context context;
        if (mode == Mode::Samples) {
            sampler = std::make_unique<Sampler>(m, SamplerOptions{});
            context.sidecars.push_back(sampler.get());
        } else if (mode == Mode::Sampler) {
            SystemSamplerOptions so;
            so.hz = 1000;
            system = std::make_unique<SystemSampler>(m, so);
            context.sidecars.push_back(system.get());
        }
        CaptureOptions o;
        o.path = dir.string();
        o.frames = unsigned(std::min<std::uint64_t>(frames, CaptureOptions::kMaxFrames));
        o.pcSamples = mode == Mode::PcSamples;
        capture = std::make_unique<FrameCapture>(m, o, std::move(context));
    }
    if (mode == Mode::Coverage) {
        counter = std::make_unique<CoverageCounter>(CoverageOptions{});
        m.attachCpuObserver(counter.get(), CoverageCounter::kHooks);
    }
    if (mode == Mode::Record) record = std::make_unique<Record>(m);
    if (mode == Mode::Strip) {
        strip::StripCutter::Spec spec;
        spec.start = w == Workload::Aros ? arosStrip.address : busyStrip.address;
        strip.set(spec);
    }

    if (stepLoop) {
        // Emulator::Impl::runSlice's shape: the record's due inputs, the strip's boundary,
        // the step, and the frame's news to the record.
        bool committed = false;
        m.setFrameCallback([&committed](std::uint64_t) { committed = true; });
        strip.runFrom(m.now());
        auto& cpu = m.cpu();
        const MasterClock until = m.now() + MasterClock(seconds * kPalCpuHz);
        while (m.now() < until) {
            if (record && m.now() >= record->nextDue()) record->applyDue();
            const std::uint32_t pc = cpu.instructionAddress();
            const bool stripWants = strip.wants(pc);
            if (stripWants) [[unlikely]]
                stripBoundary(m, strip, pc);
            if (cpu.stopped() && !stripWants) m.stepStopped(record ? record->nextDue() : CpuMomentObserver::kNever);
            else m.stepInstruction();
            if (committed) {
                committed = false;
                if (record) record->frameStarted();
                addOwners(m, r);
            }
        }
        m.setFrameCallback(nullptr);
    } else {
        while (m.emulatedSeconds() - e0 < seconds) {
            m.runFrame();
            addOwners(m, r);
        }
    }
    if (capture) capture->finish();
    const double host = bench::threadCpuSeconds() - t0;
    r.speed = (m.emulatedSeconds() - e0) / host;

    const double ran = double(m.frame() - frame0);
    if (capture) {
        const double bytes = double(capture->status().bytesWritten) / std::max(1.0, ran);
        if (sampler)
            r.figure = format("%.0f samples/frame, %.0f KB/frame", double(sampler->samplesWritten()) / ran,
                              bytes / 1e3);
        else if (system)
            r.figure = format("%.1f samples/frame, %.0f bytes/frame", double(system->samplesWritten()) / ran, bytes);
        else
            r.figure = format("%.0f bytes/frame", bytes);
    }
    if (counter) {
        m.detachCpuObserver(counter.get());
        r.figure = format("%.1f M instructions counted, %.0f addresses", double(counter->total()) / 1e6,
                          double(counter->sparseEntries()));
    }
    if (record)
        r.figure = format("holds %.1f s in %.1f MiB, %.0f snapshots",
                          double(record->newest().cycle - record->oldest().cycle) / kPalCpuHz,
                          double(record->bytesUsed()) / (1 << 20), double(record->snapshotCount()));
    if (mode == Mode::Strip)
        r.figure = format("%.0f profiling frames cut", double(strip.frames().size() + strip.evicted()));
    if (w == Workload::Busy) {
        r.guestFrames = spyLong(m, 0x400);
        r.guestBlits = spyLong(m, 0x404);
        r.guestChunks = spyLong(m, 0x408);
    }
    capture.reset();
    sampler.reset();
    system.reset();
    record.reset();
    fs::remove_all(dir);
    return r;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Table {
    std::array<double, kModeCount> speed{};   // the median of the runs
    std::array<double, kModeCount> spread{};  // (fastest - slowest) / median of the runs
    // The median over the rounds of each round's speed over its bare speed (vsBare) and
    // over its base mode's (vsBase): a host whose speed drifts between rounds moves both
    // runs of a round alike, where a ratio of the medians would take each from another round.
    std::array<double, kModeCount> vsBare{}, vsBase{};
    std::array<Result, kModeCount> last{};
};

Table measure(Workload w, double seconds, int runs, const fs::path& dir) {
    std::array<std::vector<double>, kModeCount> speeds;
    Table t;
    for (int i = 0; i < runs; ++i)
        for (std::size_t k = 0; k < kModeCount; ++k) {
            t.last[k] = run(w, kModes[k].mode, seconds, dir);
            speeds[k].push_back(t.last[k].speed);
        }
    for (std::size_t k = 0; k < kModeCount; ++k) {
        t.speed[k] = median(speeds[k]);
        const auto [lo, hi] = std::minmax_element(speeds[k].begin(), speeds[k].end());
        t.spread[k] = (*hi - *lo) / t.speed[k];
        const std::size_t base = indexOf(kModes[k].base);
        std::vector<double> bare, other;
        for (int i = 0; i < runs; ++i) {
            bare.push_back(speeds[k][std::size_t(i)] / speeds[0][std::size_t(i)]);
            other.push_back(speeds[k][std::size_t(i)] / speeds[base][std::size_t(i)]);
        }
        t.vsBare[k] = median(bare);
        t.vsBase[k] = median(other);
    }
    return t;
}

void print(Workload w, double seconds, int runs, const Table& t) {
    if (w == Workload::Aros)
        std::printf("AROS boot from power-on, %.0f emulated s, PAL A500; median of %d interleaved run%s\n", seconds,
                    runs, runs == 1 ? "" : "s");
    else
        std::printf("busy (tests/guest/bench/busy.s), %.0f emulated s, PAL A500; median of %d interleaved run%s\n",
                    seconds, runs, runs == 1 ? "" : "s");
    std::printf("  %-20s %9s %7s %8s %8s  %s\n", "mode", "x real", "spread", "vs bare", "vs base", "");
    for (std::size_t k = 0; k < kModeCount; ++k) {
        const ModeInfo& mi = kModes[k];
        std::printf("  %-20s %8.2fx %6.0f%% %8.3f", mi.name, t.speed[k], 100 * t.spread[k], t.vsBare[k]);
        if (mi.base != Mode::Bare)
            std::printf(" %8.3f  (base: %s)", t.vsBase[k], kModes[indexOf(mi.base)].name);
        else
            std::printf(" %8s  %s", "", "");
        if (!t.last[k].figure.empty()) std::printf(" %s", t.last[k].figure.c_str());
        if (mi.mode == Mode::Strip)
            std::printf(" at %s", (w == Workload::Aros ? arosStrip : busyStrip).what.c_str());
        std::printf("\n");
    }
    const Result& b = t.last[0];
    std::uint64_t total = 0;
    for (const std::uint64_t c : b.owners) total += c;
    std::printf("  chip-bus clocks by owner, bare, over %llu frames:", static_cast<unsigned long long>(b.frames));
    for (unsigned o = 0; o < kBusOwnerCount; ++o)
        std::printf(" %s %.1f%%", busOwnerName(BusOwner(o)), 100.0 * double(b.owners[o]) / double(std::max<std::uint64_t>(1, total)));
    std::printf("\n");
    if (w == Workload::Busy)
        std::printf("  the guest counted %u frames (its interrupt), started %u blits, did %u CPU work chunks\n",
                    b.guestFrames, b.guestBlits, b.guestChunks);
}

bool goal(const char* what, bool pass, const std::string& figure) {
    std::printf("  %-44s %-22s %s\n", what, figure.c_str(), pass ? "PASS" : "MISS");
    return pass;
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "copperline-bootbench: %s\n"
                 "usage: copperline-bootbench [--runs N] [--seconds S] [--busy-seconds S] [--workload aros|busy]\n"
                 "       copperline-bootbench --mode MODE [--workload aros|busy] [--seconds S] [--busy-seconds S]\n"
                 "MODE: bare, owners, slots, blit-trace, capture, pc_samples, samples, sampler, coverage,\n"
                 "      step-loop, record, strip\n",
                 why);
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    int runs = 5;
    double arosSeconds = 40, busySeconds = 20;
    std::optional<Workload> only;
    std::optional<Mode> oneMode;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage((a + " wants a value").c_str());
            return argv[++i];
        };
        if (a == "--runs") {
            runs = std::atoi(value().c_str());
            if (runs < 1) usage("--runs wants at least 1");
        } else if (a == "--seconds") {
            arosSeconds = std::atof(value().c_str());
            if (!(arosSeconds > 0)) usage("--seconds wants a positive number");
        } else if (a == "--busy-seconds") {
            busySeconds = std::atof(value().c_str());
            if (!(busySeconds > 0)) usage("--busy-seconds wants a positive number");
        } else if (a == "--workload") {
            const std::string v = value();
            if (v == "aros") only = Workload::Aros;
            else if (v == "busy") only = Workload::Busy;
            else usage(("--workload wants aros or busy, not '" + v + "'").c_str());
        } else if (a == "--mode") {
            const std::string v = value();
            for (const ModeInfo& mi : kModes)
                if (v == mi.key) oneMode = mi.mode;
            if (!oneMode) usage(("no mode is called '" + v + "'").c_str());
        } else {
            usage(("unknown argument '" + a + "'").c_str());
        }
    }
    const bool wantAros = !only || *only == Workload::Aros;
    const bool wantBusy = oneMode ? only == Workload::Busy : (!only || *only == Workload::Busy);
    const bool arosOnly = oneMode && !only;
    try {
        if (wantAros || arosOnly) {
            rom = loadRom(defaultRomPath());
            ext = loadRom(defaultExtRomPath());
        }
#ifdef COPPERLINE_BENCH_BUSY
        if (wantBusy) busyProgram = readFileBytes(COPPERLINE_BENCH_BUSY);
#endif
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline-bootbench: %s\n", e.what());
        return 2;
    }
    if (wantBusy && busyProgram.size() < 8) {
        std::fprintf(stderr, "copperline-bootbench: the busy program was not built (COPPERLINE_BUILD_GUEST)\n");
        if (oneMode || only) return 2;
    }
    const bool haveBusy = wantBusy && busyProgram.size() >= 8;
    if (haveBusy) {
        const std::uint32_t loop = std::uint32_t(busyProgram[4]) << 24 | std::uint32_t(busyProgram[5]) << 16 |
                                   std::uint32_t(busyProgram[6]) << 8 | busyProgram[7];
        char text[80];
        std::snprintf(text, sizeof text, "$%06X, the program's main loop", unsigned(loop));
        busyStrip = {loop, text};
    }
    if ((wantAros || arosOnly) && (!oneMode || *oneMode == Mode::Strip)) arosStrip = findArosStripStart();

    const fs::path dir = "/dev/shm/copperline-bootbench-" + std::to_string(::getpid());
    if (oneMode) {
        const Workload w = haveBusy && only == Workload::Busy ? Workload::Busy : Workload::Aros;
        const double seconds = w == Workload::Aros ? arosSeconds : busySeconds;
        const Result r = run(w, *oneMode, seconds, dir);
        std::printf("%s, %s, %.0f emulated s: %.2fx real time%s%s", w == Workload::Aros ? "aros" : "busy",
                    kModes[indexOf(*oneMode)].name, seconds, r.speed, r.figure.empty() ? "" : ", ",
                    r.figure.c_str());
        if (*oneMode == Mode::Strip)
            std::printf(" at %s", (w == Workload::Aros ? arosStrip : busyStrip).what.c_str());
        std::printf("\n");
        return 0;
    }

    std::printf("x real time: emulated seconds per CPU second of this thread\n\n");
    std::optional<Table> aros, busy;
    if (wantAros) {
        aros = measure(Workload::Aros, arosSeconds, runs, dir);
        print(Workload::Aros, arosSeconds, runs, *aros);
        std::printf("\n");
    }
    if (haveBusy) {
        busy = measure(Workload::Busy, busySeconds, runs, dir);
        print(Workload::Busy, busySeconds, runs, *busy);
        std::printf("\n");
    }
    std::printf("Goals\n");
    bool all = true;
    const auto extra = [](const Table& t, Mode m) { return 100.0 * (1 / t.vsBare[indexOf(m)] - 1); };
    if (aros) all &= goal("AROS bare at least 30x real time", aros->speed[0] >= 30, format("%.2fx", aros->speed[0]));
    if (busy) all &= goal("busy bare at least 20x real time", busy->speed[0] >= 20, format("%.2fx", busy->speed[0]));
    const std::pair<const char*, const std::optional<Table>*> tables[] = {{"AROS", &aros}, {"busy", &busy}};
    for (const auto& [name, table] : tables) {
        if (!*table) continue;
        const Table* t = &**table;
        const double owners = extra(*t, Mode::Owners), slots = extra(*t, Mode::Slots);
        all &= goal((std::string(name) + ": owner grid costs under 5 %").c_str(), owners < 5,
                    format("%+.1f %% time", owners));
        all &= goal((std::string(name) + ": full slot records cost under 30 %").c_str(), slots < 30,
                    format("%+.1f %% time", slots));
    }
    std::printf("%s\n", all ? "all goals met" : "some goals missed");
    return 0;
}
