// SPDX-License-Identifier: GPL-3.0-or-later
// The profilers on an NTSC machine (262/263 lines of 227.5 colour clocks on average, lines
// alternating 227 and 228), through Emulator::call as the control socket drives them, on
// bare-metal guests:
// - a capture of tests/guest/capture/capture_load.c with the precise samples, the system
//   sampler at 1 kHz, the slots and the memory: frames laid end to end, each frame's
//   samples adding up to its length, the system sampler's moments inside their frames at
//   NTSC's rate; the same program's PAL capture does the same work a frame, in NTSC's
//   proportion of time;
// - the capture as Bartman's binary profile (NTSC's base clock, the long lines' STRLONG,
//   the lines an NTSC frame does not have left idle) and through copperline-ctl
//   profile-report (.cpuprofile, .amigaprofile, the table from the precise samples);
// - the Frame Analyzer's grids and frame.slots: each row as long as its line;
// - the profile strip's pass bars (tests/guest/strip/strip_loop.s) in NTSC microseconds,
//   one NTSC frame each, and a bar's call tree.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/report/bartman_export.h"
#include "profiler/report/bartman_profile.h"
#include "profiler/sampling/sample_reader.h"
#include "profiler/sampling/system_samples.h"
#include "tests/app/strip_loop_fixture.h"
#include "tests/tools/call_tree_json.h"
#include "tests/tools/run_process.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace copperline;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr double kNtscHz = 3579545.0, kPalHz = 3546895.0;

std::unique_ptr<Emulator> booted(const char* program, bool ntsc) {
    Machine::Config config;
    config.ntsc = ntsc;
    auto m = std::make_unique<Machine>(config);
    m->bootBareMetal(readFileBytes(program));
    auto e = std::make_unique<Emulator>(std::move(m), Emulator::Options{});
    e->start();
    return e;
}

// `frames` frames of capture_load with everything the reports need, as profile.start makes
// them; the capture begins mid-frame.
CaptureFiles captureLoad(bool ntsc, const std::string& dir, unsigned frames) {
    auto e = booted(CAPTURE_LOAD_BIN, ntsc);
    json r = testing::callJson(*e, "step_frame", {{"n", 5}});
    if (!r.contains("frame")) qFatal("step_frame: %s", r.dump().c_str());
    testing::callJson(*e, "step", {{"n", 1000}});
    r = testing::callJson(*e, "profile.start", {{"path", dir},
                                                {"frames", frames},
                                                {"samples", true},
                                                {"registers", true},
                                                {"slots", true},
                                                {"memory", true},
                                                {"sampler", {{"hz", 1000}}}});
    if (r.contains("error")) qFatal("profile.start: %s", r.dump().c_str());
    testing::callJson(*e, "step_frame", {{"n", frames + 1}});
    if (!testing::callJson(*e, "profile.status").value("done", false)) qFatal("the capture did not end");
    return readCapture(dir);
}

std::uint64_t u64(const json& r, const char* key) { return r.at(key).get<std::uint64_t>(); }

testing::ProcessResult ctl(const QStringList& args) { return testing::runProcess(COPPERLINE_CTL_EXE, args, 120000); }

} // namespace

class TestNtscProfiling : public QObject {
    Q_OBJECT
private slots:
    void samplesFillNtscFramesAndConvert() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("ntsc").toStdString();
        const CaptureFiles c = captureLoad(true, dir, 6);
        QCOMPARE(c.summary["machine"]["video"].get<std::string>(), std::string("NTSC"));
        QCOMPARE(c.summary["machine"]["cck_hz"].get<double>(), kNtscHz);
        QCOMPARE(c.frames.size(), std::size_t(6));

        const SystemSampleFile sys = readSystemSamples(dir + "/sampler.bin");
        QCOMPARE(sys.header.cckPerSecond, 3579545u);
        QVERIFY(sys.header.flags & sampler_format::kNtsc);
        QCOMPARE(sys.header.hz, 1000u);
        std::size_t next = 0; // the system samples, in time order
        std::uint64_t lastCck = sys.header.startCck;
        for (std::size_t i = 0; i < c.frames.size(); ++i) {
            const json& r = c.frames[i];
            const std::uint64_t first = u64(r, "first_cck"), length = u64(r, "length_cck");
            const unsigned lines = r.at("lines").get<unsigned>();
            // Without interlace every NTSC frame is a long one: 263 lines, half of them long.
            QCOMPARE(lines, 263u);
            QCOMPARE(r.at("line_cck").get<unsigned>(), 228u);
            QVERIFY2(length == 263 * 227 + 131 || length == 263 * 227 + 132, r.dump().c_str());
            if (i) QCOMPARE(first, u64(c.frames[i - 1], "first_cck") + u64(c.frames[i - 1], "length_cck"));
            // The precise samples: every colour clock of the frame once (the first frame's
            // from where the capture began in it).
            const auto samples = readSamples((fs::path(dir) / r["samples"].get<std::string>()).string(),
                                             (fs::path(dir) / r["samples_meta"].get<std::string>()).string(), true);
            std::uint64_t total = 0;
            for (const Sample& s : samples) total += s.meta.totalCck;
            QCOMPARE(total, u64(r, "samples_cck"));
            QCOMPARE(total, first + length - r.value("samples_from_cck", first));
            if (i) QCOMPARE(total, length);
            // The system sampler's moments of this frame lie inside it, at 1 kHz of NTSC's clock.
            std::uint64_t here = 0;
            for (; next < sys.samples.size() && sys.samples[next].cck < first + length; ++next, ++here) {
                QVERIFY(sys.samples[next].cck >= std::max(first, sys.header.startCck));
                QVERIFY(sys.samples[next].cck >= lastCck);
                lastCck = sys.samples[next].cck;
            }
            QCOMPARE(here, r["sampler"]["samples"].get<std::uint64_t>());
            if (i) QVERIFY(std::abs(double(here) - 1000.0 * double(length) / kNtscHz) <= 1.0);
        }
        QCOMPARE(next, sys.samples.size());
        // The system sampler's moments are those of its NTSC period.
        for (std::size_t k = 0; k < sys.samples.size(); ++k)
            QCOMPARE(sys.samples[k].cck, samplerMoment(sys.header.startCck, k + 1, 3579545, 1000, true));

        // The same program on PAL does the same work a frame, in frames that last longer.
        const std::string palDir = tmp.filePath("pal").toStdString();
        const CaptureFiles pal = captureLoad(false, palDir, 6);
        for (std::size_t i = 1; i < 6; ++i) {
            const double busyNtsc = c.frames[i]["busy_cck"].get<double>(), busyPal = pal.frames[i]["busy_cck"].get<double>();
            QVERIFY2(std::abs(busyNtsc - busyPal) < 0.05 * busyPal, qPrintable(QString("%1 %2").arg(busyNtsc).arg(busyPal)));
            QCOMPARE(pal.frames[i]["length_cck"].get<std::uint64_t>(), 313u * 227u);
        }

        // copperline-ctl profile-report: a .cpuprofile in NTSC microseconds, the PAL one in
        // PAL's; each as long as its frames.
        const auto cpuprofileSpan = [](const std::string& d, const CaptureFiles& files, double hz) {
            const std::string out = d + "/load.cpuprofile";
            const auto r = ctl({"profile-report", QString::fromStdString(d), "--elf", CAPTURE_LOAD_ELF, "--base",
                                "0x1000", "--out", QString::fromStdString(out)});
            if (r.status != 0) qWarning("%s", r.err.constData());
            const json p = json::parse(std::ifstream(out));
            std::uint64_t cck = 0;
            for (const json& f : files.frames) cck += f["samples_cck"].get<std::uint64_t>();
            const double span = p["endTime"].get<double>() - p["startTime"].get<double>();
            return std::pair<double, double>(span, double(cck) * 1e6 / hz);
        };
        const auto [ntscSpan, ntscWant] = cpuprofileSpan(dir, c, kNtscHz);
        QVERIFY2(std::abs(ntscSpan - ntscWant) < 1.0, qPrintable(QString("%1 us, want %2").arg(ntscSpan).arg(ntscWant)));
        const auto [palSpan, palWant] = cpuprofileSpan(palDir, pal, kPalHz);
        QVERIFY2(std::abs(palSpan - palWant) < 1.0, qPrintable(QString("%1 us, want %2").arg(palSpan).arg(palWant)));

        // The table from the precise samples: every colour clock, in NTSC time.
        auto t = ctl({"profile-report", QString::fromStdString(dir), "--format", "table", "--from", "samples"});
        QVERIFY2(t.status == 0, t.err.constData());
        std::uint64_t ntscCck = 0;
        for (const json& f : c.frames) ntscCck += f["samples_cck"].get<std::uint64_t>();
        const QString table = QString::fromUtf8(t.out);
        QVERIFY2(table.contains(QString(" precise samples, %1 colour clocks").arg(ntscCck)), t.out.constData());

        // The .amigaprofile for vscode-amiga-debug: NTSC's base clock, a DMA grid a frame.
        const std::string amiga = dir + "/load.amigaprofile";
        t = ctl({"profile-report", QString::fromStdString(dir), "--format", "bartman", "--out", QString::fromStdString(amiga)});
        QVERIFY2(t.status == 0, t.err.constData());
        const json a = json::parse(std::ifstream(amiga));
        QVERIFY(a.is_array() && a.size() == c.frames.size());
        QCOMPARE(a[0]["$base"]["baseClock"].get<std::uint32_t>(), bartman::kNtscBaseClock);

        // Bartman's binary profile of the same capture.
        const BartmanProfile bp = bartmanProfileFromCapture(c, {});
        QCOMPARE(bp.baseClock, bartman::kNtscBaseClock);
        QCOMPARE(bp.frames.size(), c.frames.size());
        for (std::size_t i = 0; i < bp.frames.size(); ++i) {
            const bartman::Frame& f = bp.frames[i];
            const json& r = c.frames[i];
            const std::uint64_t length = u64(r, "length_cck");
            QCOMPARE(std::uint64_t(f.profileCycles), 2 * length);
            std::uint64_t cycles = 0;
            for (const ProfileSample& s : decodeProfileArray(f.profileArray)) cycles += s.cycles;
            QCOMPARE(cycles, 2 * u64(r, "samples_cck"));
            QCOMPARE(f.dma.size(), std::size_t(bartman::kDmaCount));
            if (i == 0) continue; // begun mid-frame: its lines before the start are not recorded
            // The second refresh clock of a long line carries STRLONG; the long lines are the
            // frame's length beyond 227 a line, every other one.
            std::uint64_t longLines = 0;
            for (unsigned v = 0; v < 263; ++v) {
                const bartman::DmaRec* second = nullptr;
                for (unsigned h = 0; h < bartman::kDmaHpos && !second; ++h) {
                    const bartman::DmaRec& d = f.dma[v * bartman::kDmaHpos + h];
                    if (d.type == bartman::dma_type::Refresh && d.extra == 1) second = &d;
                }
                QVERIFY2(second, qPrintable(QString("line %1 has no second refresh clock").arg(v)));
                const bool isLong = second->reg == 0x03E;
                QVERIFY2(isLong || second->reg == 0x1FE, qPrintable(QString::number(second->reg, 16)));
                longLines += isLong;
                if (v) {
                    const bartman::DmaRec& prev =
                        *std::find_if(f.dma.begin() + (v - 1) * bartman::kDmaHpos, f.dma.begin() + v * bartman::kDmaHpos,
                                      [](const bartman::DmaRec& d) { return d.type == bartman::dma_type::Refresh && d.extra == 1; });
                    QVERIFY2((prev.reg == 0x03E) != isLong, qPrintable(QString("lines %1 and %2").arg(v - 1).arg(v)));
                }
            }
            QCOMPARE(263 * 227 + longLines, length);
            // The lines an NTSC frame does not have are nobody's.
            for (std::size_t k = 263 * bartman::kDmaHpos; k < f.dma.size(); ++k)
                QVERIFY(f.dma[k] == bartman::DmaRec{});
        }
    }

    void frameAnalyzerRowsHaveTheirLinesLengths() {
        auto e = booted(CAPTURE_LOAD_BIN, true);
        QVERIFY(testing::callJson(*e, "step_frame", {{"n", 4}}).contains("frame"));
        testing::callJson(*e, "step", {{"n", 3000}}); // into the next frame
        const json waits = testing::callJson(*e, "frame.waits");
        const unsigned lines = waits.at("lines").get<unsigned>();
        QCOMPARE(lines, 263u);
        const auto snap = e->snapshot();
        QVERIFY(snap->grid);
        QCOMPARE(snap->grid->frame, waits.at("frame").get<std::uint64_t>());
        // frame.slots gives each row its own clocks, 228 and 227 in turn; they add up to the
        // frame's length (263 lines: 132 long ones when the first is long, else 131).
        std::uint64_t clocks = 0;
        std::size_t before = 0;
        for (unsigned v = 0; v < lines; ++v) {
            const json row = testing::callJson(*e, "frame.slots", {{"row", v}});
            const std::size_t n = row["slots"].size();
            QVERIFY2(n == 227 || n == 228, qPrintable(QString("line %1: %2 slots").arg(v).arg(n)));
            if (v) QVERIFY2(n != before, qPrintable(QString("lines %1 and %2 both %3").arg(v - 1).arg(v).arg(n)));
            QCOMPARE(row.value("line_cck", 0u), unsigned(n));
            QCOMPARE(snap->grid->rowCck(v), unsigned(n));
            clocks += n;
            before = n;
        }
        QCOMPARE(clocks, waits.at("length_cck").get<std::uint64_t>());
        // The frame before, as the Frame Analyzer shows it above the last.
        QVERIFY(snap->previousGrid);
        QCOMPARE(snap->previousGrid->rowCck(snap->previousGrid->lines - 1) == 228, snap->grid->rowCck(0) == 227);
        // The frame in progress counts the clocks that ran, no short line's padding.
        QVERIFY(snap->progressGrid);
        const json now = testing::callJson(*e, "frame.waits", {{"frame", snap->progressGrid->frame}});
        std::uint64_t counted = 0;
        for (const std::uint32_t c : snap->progressGrid->counts) counted += c;
        QVERIFY(snap->progressGrid->beamVpos > 2);
        QCOMPARE(counted, now.at("length_cck").get<std::uint64_t>());
        QCOMPARE(snap->progressGrid->rowCck(0) == 228, snap->grid->rowCck(lines - 1) == 227);
    }

    void stripBarsInNtscTime() {
        const auto sym = testing::stripLoopSymbols();
        auto e = booted(STRIP_LOOP_BIN, true);
        QVERIFY(testing::callJson(*e, "step_frame", {{"n", 5}}).contains("frame"));
        testing::callJson(*e, "strip.set", {{"start", sym.at("pass")}, {"mode", "pass"}});
        QVERIFY(testing::callJson(*e, "step_frame", {{"n", 20}}).contains("frame"));
        const json b = testing::callJson(*e, "strip.bars");
        const json& bars = b["bars"];
        QVERIFY2(bars.size() >= 18 && bars.size() <= 20, b.dump().c_str());
        // A frame of the NTSC beam without interlace: 263 lines of 227.5 colour clocks.
        QCOMPARE(b.value("frame_cck", 0.0), 263.0 * 227.5);
        for (std::size_t i = 0; i < bars.size(); ++i) {
            const json& bar = bars[i];
            QCOMPARE(bar.value("frames_spanned", 0ull), 1ull);
            const double len = bar.value("length_cck", 0.0);
            // One pass a frame, give or take where the interrupt lands in an instruction;
            // an NTSC frame is 263 * 227 + 131 or 132 colour clocks.
            QVERIFY2(std::abs(len - 263.0 * 227.5) < 40, bar.dump().c_str());
            QVERIFY2(len <= b.value("frame_cck", 0.0) + 40, bar.dump().c_str());
            QCOMPARE(bar.value("length_us", 0.0), len * 1e6 / kNtscHz);
            if (i) QCOMPARE(bar.value("position", 0ull), bars[i - 1].value("end_position", 1ull));
        }
        // A pass's call tree, replayed on the NTSC machine: its total is the bar's length.
        const json& bar = bars[bars.size() - 2];
        const json tree = testing::callJson(*e, "strip.tree", {{"bar", bar.value("bar", 0)}});
        QVERIFY2(!tree.contains("error"), tree.dump().c_str());
        testing::checkTreeSums(tree);
        QCOMPARE(tree.value("total_cck", 0ull), bar.value("length_cck", 1ull));
        const json* loopCode = nullptr;
        for (const json& c : tree["children"])
            if (c.value("at", 0u) == sym.at("pass")) loopCode = &c;
        QVERIFY2(loopCode, tree.dump().c_str());
        bool thrice = false;
        for (const json& c : (*loopCode)["children"])
            if (c.value("at", 0u) == sym.at("thrice")) thrice = c.value("calls", 0u) == 3;
        QVERIFY2(thrice, loopCode->dump().c_str());
    }
};

QTEST_GUILESS_MAIN(TestNtscProfiling)
#include "test_ntsc_profiling.moc"
