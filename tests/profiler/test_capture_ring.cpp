// SPDX-License-Identifier: GPL-3.0-or-later
// The flight recorder (CaptureOptions::ring): a capture that holds only its latest frames in
// memory, writes nothing while it holds them, and writes them, with the frame that tripped
// its stop condition, as an ordinary capture. On the known load of
// tests/guest/capture/capture_load.c, whose every 40th frame is heavy (its busy time, the
// frame less the idle it marks through the guest interface, several times a light one's):
// the ring stops on the first heavy frame and the folder holds exactly the frames before it,
// whole, with their slot records and samples; a ring stopped by hand holds the latest frames;
// the byte bound lets frames go early and says so; and the refusals.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/capture/frame_capture.h"
#include "profiler/sampling/sample_reader.h"
#include "profiler/sampling/sampler.h"
#endif

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

using namespace copperline;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<Machine> bootLoad() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(CAPTURE_LOAD_BIN));
    // Past the program's set-up, whose frames mark no idle.
    for (int i = 0; i < 5; ++i)
        m->runFrame();
    return m;
}

// The files of a folder other than profile.json and an empty profile.jsonl: what a ring
// that is still holding must not have written.
std::vector<std::string> writtenFiles(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name == "profile.json" || name.rfind("profile.json.", 0) == 0) continue;
        if (name == "profile.jsonl" && fs::file_size(e.path()) == 0) continue;
        out.push_back(name);
    }
    return out;
}

struct Loads {
    std::uint64_t threshold = 0;  // between the light frames' busy time and the heavy ones'
    std::uint64_t firstHeavy = 0; // the first frame over it
};

// The busy times of the load's frames, from an ordinary capture of 120 frames.
Loads measure(const std::string& dir) {
    Loads l;
    auto m = bootLoad();
    CaptureOptions o;
    o.path = dir;
    o.frames = 120;
    FrameCapture c(*m, o, {});
    while (c.status().active())
        m->runFrame();
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
    for (const json& f : readCapture(dir).frames)
        busy.push_back({f.at("frame").get<std::uint64_t>(), f.at("busy_cck").get<std::uint64_t>()});
    std::uint64_t light = ~0ull, heavy = 0;
    for (const auto& [frame, b] : busy) {
        light = std::min(light, b);
        heavy = std::max(heavy, b);
    }
    l.threshold = heavy > 2 * light ? (light + heavy) / 2 : 0;
    for (const auto& [frame, b] : busy)
        if (l.threshold && b > l.threshold) {
            l.firstHeavy = frame;
            break;
        }
    return l;
}

} // namespace

class TestCaptureRing : public QObject {
    Q_OBJECT
private slots:
    void stopsOnTheHeavyFrameWithTheFramesBeforeIt() {
        QTemporaryDir tmp;
        const Loads loads = measure(tmp.filePath("all").toStdString());
        QVERIFY2(loads.threshold > 0 && loads.firstHeavy > 20, "the load has light and heavy frames");

        constexpr unsigned kRing = 8;
        auto m = bootLoad();
        auto sampler = std::make_unique<Sampler>(*m, SamplerOptions{});
        FrameCapture::Context ctx;
        ctx.sidecars.push_back(sampler.get());
        CaptureOptions o;
        const std::string dir = tmp.filePath("ring").toStdString();
        o.path = dir;
        o.frames = CaptureOptions::kMaxFrames;
        o.recordSlots = true;
        o.ring = kRing;
        o.stopOn.kind = CaptureOptions::StopOn::Kind::BusyCckOver;
        o.stopOn.value = loads.threshold;
        FrameCapture c(*m, o, std::move(ctx));
        // While it holds, nothing is written, and it holds no more than its frames.
        unsigned most = 0;
        while (c.status().active()) {
            m->runFrame();
            if (!c.status().active()) break;
            QVERIFY(c.ringHolding());
            most = std::max(most, c.status().ringFrames);
            QVERIFY(c.status().ringFrames <= kRing);
            const std::vector<std::string> written = writtenFiles(dir);
            QVERIFY2(written.empty(), written.empty() ? "" : written.front().c_str());
            QCOMPARE(c.status().framesWritten, 0u);
            QVERIFY(m->frame() <= loads.firstHeavy + 1);
        }
        QCOMPARE(most, kRing);
        QCOMPARE(c.status().state, CaptureStatus::State::Done);
        // The heavy frame and the eight before it, whole and in order.
        const CaptureFiles files = readCapture(dir);
        QCOMPARE(files.frames.size(), std::size_t(kRing + 1));
        for (std::size_t i = 0; i < files.frames.size(); ++i) {
            const json& f = files.frames[i];
            QCOMPARE(f.at("frame").get<std::uint64_t>(), loads.firstHeavy - kRing + i);
            // Its slot records and its samples, as an ordinary capture has them.
            const auto records = readSlots((fs::path(dir) / f.at("slots").get<std::string>()).string(),
                                         f.at("lines").get<unsigned>(), f.at("line_cck").get<unsigned>());
            QCOMPARE(records.size(), std::size_t(f.at("lines").get<unsigned>()) * f.at("line_cck").get<unsigned>());
            const auto samples = readSamples((fs::path(dir) / f.at("samples").get<std::string>()).string(),
                                             (fs::path(dir) / f.at("samples_meta").get<std::string>()).string(),
                                             false);
            QCOMPARE(samples.size(), f.at("samples_count").get<std::size_t>());
            std::uint64_t cck = 0;
            for (const Sample& s : samples)
                cck += s.meta.totalCck;
            QCOMPARE(cck, f.at("length_cck").get<std::uint64_t>());
        }
        QVERIFY(files.frames.back().at("busy_cck").get<std::uint64_t>() > loads.threshold);
        for (std::size_t i = 0; i + 1 < files.frames.size(); ++i)
            QVERIFY(files.frames[i].at("busy_cck").get<std::uint64_t>() <= loads.threshold);
        // profile.json says why it stopped, and counts what it wrote.
        const json& ring = files.summary.at("ring");
        QCOMPARE(ring.at("frames").get<unsigned>(), kRing);
        QCOMPARE(ring.at("stopped").at("reason").get<std::string>(), std::string("busy_cck_over"));
        QCOMPARE(ring.at("stopped").at("frame").get<std::uint64_t>(), loads.firstHeavy);
        QVERIFY(ring.at("stopped").at("value").get<std::uint64_t>() > loads.threshold);
        QCOMPARE(ring.at("stopped").at("limit").get<std::uint64_t>(), loads.threshold);
        QCOMPARE(ring.at("stop_on").at("busy_cck_over").get<std::uint64_t>(), loads.threshold);
        QCOMPARE(files.summary.at("frames_written").get<unsigned>(), kRing + 1);
        std::uint64_t samples = 0;
        for (const json& f : files.frames)
            samples += f.at("samples_count").get<std::uint64_t>();
        QCOMPARE(files.summary.at("samples_total").get<std::uint64_t>(), samples);
    }

    // The frame-time condition: a frame's clocks less the CPU's STOP, on a program that
    // waits for each vertical blank in STOP (tests/guest/capture/ring_stop.s).
    void stopsOnAFrameWhoseWorkOutlastsTheLimit() {
        QTemporaryDir tmp;
        auto m = std::make_unique<Machine>();
        m->bootBareMetal(readFileBytes(RING_STOP_BIN));
        for (int i = 0; i < 3; ++i)
            m->runFrame();
        CaptureOptions o;
        const std::string dir = tmp.filePath("stop").toStdString();
        o.path = dir;
        o.frames = 200;
        o.ring = 4;
        o.stopOn.kind = CaptureOptions::StopOn::Kind::FrameCckOver;
        o.stopOn.value = 8000;
        FrameCapture c(*m, o, {});
        while (c.status().active())
            m->runFrame();
        const CaptureFiles files = readCapture(dir);
        QCOMPARE(files.frames.size(), std::size_t(5));
        const auto work = [](const json& f) {
            return f.at("length_cck").get<std::uint64_t>() -
                   f.at("cpu").at("cycles").at("stopped").get<std::uint64_t>() / 2;
        };
        for (std::size_t i = 0; i + 1 < files.frames.size(); ++i) {
            QVERIFY2(work(files.frames[i]) < 4000, qPrintable(QString::number(work(files.frames[i]))));
            QVERIFY(work(files.frames[i]) > 1000);
        }
        const json& stopped = files.summary.at("ring").at("stopped");
        QCOMPARE(stopped.at("reason").get<std::string>(), std::string("frame_cck_over"));
        QCOMPARE(stopped.at("value").get<std::uint64_t>(), work(files.frames.back()));
        QVERIFY(work(files.frames.back()) > 12000);
        QCOMPARE(stopped.at("frame").get<std::uint64_t>(), files.frames.back().at("frame").get<std::uint64_t>());
    }

    // Stopped by hand: the latest frames; or after the frames it watches.
    void stoppedByHandOrByItsFrames() {
        QTemporaryDir tmp;
        auto m = bootLoad();
        CaptureOptions o;
        const std::string dir = tmp.filePath("hand").toStdString();
        o.path = dir;
        o.frames = CaptureOptions::kMaxFrames;
        o.ring = 5;
        FrameCapture c(*m, o, {});
        for (int i = 0; i < 30; ++i)
            m->runFrame();
        const std::uint64_t last = m->frame() - 1;
        c.stopRing("profile.stop");
        const CaptureFiles files = readCapture(dir);
        QCOMPARE(files.frames.size(), std::size_t(5));
        QCOMPARE(files.frames.back().at("frame").get<std::uint64_t>(), last);
        QCOMPARE(files.frames.front().at("frame").get<std::uint64_t>(), last - 4);
        QCOMPARE(files.summary.at("ring").at("stopped").at("reason").get<std::string>(), std::string("profile.stop"));
        QCOMPARE(files.summary.at("ring").at("frames_watched").get<unsigned>(), 30u);

        // The frames watched bound it too: after `frames` frames it writes what it holds.
        auto m2 = bootLoad();
        CaptureOptions b;
        b.path = tmp.filePath("bounded").toStdString();
        b.frames = 12;
        b.ring = 3;
        FrameCapture c2(*m2, b, {});
        while (c2.status().active())
            m2->runFrame();
        const CaptureFiles bounded = readCapture(b.path);
        QCOMPARE(bounded.frames.size(), std::size_t(3));
        QCOMPARE(bounded.summary.at("ring").at("stopped").at("reason").get<std::string>(), std::string("frames"));
        QCOMPARE(bounded.summary.at("ring").at("frames_watched").get<unsigned>(), 12u);
    }

    // The byte bound: with full slot records (about 1.7 MB a frame) and 2 MiB, the ring
    // keeps one frame and says how many it let go early.
    void theByteBoundLetsFramesGo() {
        QTemporaryDir tmp;
        auto m = bootLoad();
        CaptureOptions o;
        o.path = tmp.filePath("bytes").toStdString();
        o.frames = CaptureOptions::kMaxFrames;
        o.recordSlots = true;
        o.ring = 6;
        o.ringBytes = 2u << 20;
        FrameCapture c(*m, o, {});
        for (int i = 0; i < 10; ++i) {
            m->runFrame();
            QVERIFY(c.status().ringBytes <= o.ringBytes || c.status().ringFrames == 1);
        }
        QCOMPARE(c.status().ringFrames, 1u);
        QVERIFY(c.status().ringDroppedForBytes >= 5);
        c.stopRing("profile.stop");
        const CaptureFiles files = readCapture(o.path);
        QCOMPARE(files.frames.size(), std::size_t(1));
        QVERIFY(files.summary.at("ring").at("dropped_for_bytes").get<std::uint64_t>() >= 5);
    }

    // Watching with a ring changes nothing in the machine.
    void watchingChangesNothing() {
        QTemporaryDir tmp;
        auto a = bootLoad(), b = bootLoad();
        CaptureOptions o;
        o.path = tmp.filePath("w").toStdString();
        o.recordSlots = true;
        o.ring = 4;
        FrameCapture c(*b, o, {});
        for (int i = 0; i < 20; ++i) {
            a->runFrame();
            b->runFrame();
            QCOMPARE(a->stateHash(), b->stateHash());
        }
    }

    void refusals() {
        QTemporaryDir tmp;
        auto m = bootLoad();
        const auto refused = [&](CaptureOptions o, const char* says) {
            o.path = tmp.filePath("refused").toStdString();
            try {
                FrameCapture c(*m, o, {});
            } catch (const CaptureError& e) {
                QVERIFY2(std::string(e.what()).find(says) != std::string::npos, e.what());
                return;
            }
            QFAIL(says);
        };
        CaptureOptions o;
        o.ring = CaptureOptions::kMaxRing + 1;
        refused(o, "ring");
        o.ring = 4;
        o.trigger.kind = CaptureOptions::Trigger::Kind::Frame;
        refused(o, "trigger");
        o.trigger = {};
        o.memory = true;
        refused(o, "memory");
        o.memory = false;
        o.screenshots = CaptureOptions::Screenshots::Every;
        refused(o, "screenshots");
        CaptureOptions n;
        n.stopOn.kind = CaptureOptions::StopOn::Kind::FrameCckOver;
        refused(n, "stop_on requires ring");
        QVERIFY(!fs::exists(tmp.filePath("refused").toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestCaptureRing)
#include "test_capture_ring.moc"
