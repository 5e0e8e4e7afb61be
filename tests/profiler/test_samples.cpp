// SPDX-License-Identifier: GPL-3.0-or-later
// The precise sampler on a machine in the test (the bare-metal load of
// tests/guest/capture/capture_load.c: bitplanes, a blit a frame, interrupts), through the
// per-frame capture, read back with the samples reader:
// - the timeline is the same with and without it (frame hashes);
// - every colour clock of every recorded frame is in exactly one sample, and the split of
//   each whole frame is the frame's own CPU accounting;
// - a full buffer drops later samples and counts them everywhere, with one warning;
// - a long STOP is split under 65,536 colour clocks;
// - the reader refuses every malformed sidecar with a message, and random corruption
//   never crashes it.

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
#include <cstring>
#include <filesystem>
#include <random>

using namespace copperline;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<Machine> bootLoad() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(CAPTURE_LOAD_BIN));
    return m;
}

// A capture with a sampler, as profile.start makes them.
struct Session {
    std::unique_ptr<Sampler> sampler;
    std::unique_ptr<FrameCapture> capture;
    std::vector<std::string> warnings;
};

std::unique_ptr<Session> start(Machine& m, const std::string& dir, unsigned frames, SamplerOptions s = {}) {
    auto session = std::make_unique<Session>();
    session->sampler = std::make_unique<Sampler>(m, std::move(s));
    session->sampler->setWarningSink([p = session.get()](const std::string& w) { p->warnings.push_back(w); });
    FrameCapture::Context c;
    c.sidecars.push_back(session->sampler.get());
    CaptureOptions o;
    o.path = dir;
    o.frames = frames;
    session->capture = std::make_unique<FrameCapture>(m, o, std::move(c));
    return session;
}

std::vector<Sample> frameSamples(const std::string& dir, const json& record, bool registers = false) {
    return readSamples((fs::path(dir) / record["samples"].get<std::string>()).string(),
                       (fs::path(dir) / record["samples_meta"].get<std::string>()).string(), registers);
}

std::vector<std::uint8_t> le(std::initializer_list<std::uint32_t> words) {
    std::vector<std::uint8_t> out;
    for (const std::uint32_t w : words)
        for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(w >> (8 * i)));
    return out;
}

std::vector<std::uint8_t> meta(std::initializer_list<SampleMeta> rows, std::uint32_t version = 1, const char* magic = "CLSM") {
    std::vector<std::uint8_t> out(magic, magic + 4);
    const auto rest = le({version, std::uint32_t(rows.size())});
    out.insert(out.end(), rest.begin(), rest.end());
    for (const SampleMeta& r : rows) {
        const auto w = version == 1 ? le({r.totalCck, r.instructionCck, r.waitCck, r.irqLevel, r.irqVector})
                                    : le({r.totalCck, r.instructionCck, r.waitCck, r.irqLevel, r.irqVector, r.pc,
                                          r.task, r.context});
        out.insert(out.end(), w.begin(), w.end());
    }
    return out;
}

QString refusal(const std::vector<std::uint8_t>& stream, const std::vector<std::uint8_t>& m, bool registers = false) {
    try {
        parseSamples(stream, m, registers, "t");
    } catch (const MediaError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestSamples : public QObject {
    Q_OBJECT
private slots:
    void samplingChangesNothing() {
        QTemporaryDir tmp;
        auto a = bootLoad(), b = bootLoad();
        SamplerOptions s;
        s.registers = true;
        auto session = start(*b, tmp.filePath("c").toStdString(), 40, s);
        for (int i = 0; i < 40; ++i) {
            a->runFrame();
            b->runFrame();
            QCOMPARE(a->stateHash(), b->stateHash());
        }
        session->capture->finish();
        QVERIFY(session->sampler->samplesWritten() > 40u * 1000);
    }

    void everyColourClockIsInOneSample() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("c").toStdString();
        auto m = bootLoad();
        for (int i = 0; i < 3; ++i) m->runFrame();
        for (int i = 0; i < 1234; ++i) m->stepInstruction(); // start mid-frame
        SamplerOptions s;
        s.registers = true;
        auto session = start(*m, dir, 30, s);
        const std::uint64_t startCck = m->agnus().cck();
        while (session->capture->status().active()) m->runFrame();
        const CaptureFiles c = readCapture(dir);
        QCOMPARE(c.frames.size(), 30u);
        std::uint64_t irqs = 0, waits = 0;
        for (std::size_t i = 0; i < c.frames.size(); ++i) {
            const json& r = c.frames[i];
            const auto samples = frameSamples(dir, r, true);
            std::uint64_t total = 0, instr = 0, wait = 0, irq = 0, stopped = 0;
            for (const Sample& x : samples) {
                QCOMPARE(x.registers.size(), 17u);
                total += x.meta.totalCck;
                wait += x.meta.waitCck;
                (x.isIrq() ? irq : x.isStopped() ? stopped : instr) += x.meta.instructionCck;
                if (x.isIrq()) ++irqs;
            }
            waits += wait;
            const std::uint64_t first = r["first_cck"], length = r["length_cck"];
            QCOMPARE(total, r["samples_cck"].get<std::uint64_t>());
            if (i == 0) {
                QCOMPARE(r["samples_from_cck"].get<std::uint64_t>(), startCck);
                QCOMPARE(total, first + length - startCck);
                continue;
            }
            QVERIFY(!r.contains("samples_from_cck"));
            QCOMPARE(total, length);
            const json& cpu = r["cpu"]["cycles"];
            QCOMPARE(2 * instr, cpu["instruction"].get<std::uint64_t>());
            QCOMPARE(2 * wait, cpu["wait"].get<std::uint64_t>());
            QCOMPARE(2 * irq, cpu["irq"].get<std::uint64_t>());
            QCOMPARE(2 * stopped, cpu["stopped"].get<std::uint64_t>());
        }
        QCOMPARE(irqs, 0u); // capture_load masks every interrupt (test_profile_run has AROS's)
        QVERIFY(waits > 0);
        QCOMPARE(c.summary["samples_dropped"].get<std::uint64_t>(), 0u);
        QCOMPARE(c.summary["samples_buffer_limit"].get<std::uint64_t>(), 262144u);
        QVERIFY(c.summary["sampling"]["registers"].get<bool>());
        QCOMPARE(c.summary["sampling"]["cck_per_cpu_cycle"].get<double>(), 0.5);
    }

    void aFullBufferDropsAndCounts() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("c").toStdString();
        auto m = bootLoad();
        m->runFrame();
        SamplerOptions s;
        s.bufferLimit = 1000; // far less than a frame holds
        auto session = start(*m, dir, 5, s);
        while (session->capture->status().active()) m->runFrame();
        const json status = session->capture->statusJson();
        const CaptureFiles c = readCapture(dir);
        std::uint64_t lastDropped = 0;
        for (const json& r : c.frames) {
            QVERIFY(r["samples_count"].get<std::uint64_t>() <= 1000);
            const std::uint64_t d = r["samples_dropped"];
            QVERIFY(d > lastDropped); // cumulative, and every frame overflowed
            lastDropped = d;
        }
        QCOMPARE(status["samples_dropped"].get<std::uint64_t>(), lastDropped);
        QCOMPARE(status["samples_buffer_limit"].get<std::uint64_t>(), 1000u);
        QCOMPARE(c.summary["samples_dropped"].get<std::uint64_t>(), lastDropped);
        QCOMPARE(session->warnings.size(), 1u);
        QVERIFY(QString::fromStdString(session->warnings[0]).contains("dropped"));
    }

    void aLongStopIsSplit() {
        // The CPU stopped with interrupts masked for good: one STOP stretch per frame part,
        // split at 65,535 colour clocks, each under the STOP instruction's PC.
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("c").toStdString();
        Machine m;
        const std::vector<std::uint8_t> program = {0x4E, 0x72, 0x27, 0x00, 0x60, 0xFA}; // stop #$2700; bra.s *-4
        m.bootBareMetal(program);
        for (int i = 0; i < 4; ++i) m.stepInstruction();
        auto session = start(m, dir, 3);
        while (session->capture->status().active()) m.runFrame();
        const CaptureFiles c = readCapture(dir);
        for (std::size_t i = 1; i < c.frames.size(); ++i) {
            const auto samples = frameSamples(dir, c.frames[i]);
            QCOMPARE(samples.size(), 2u); // 71,051 colour clocks: 65,535 and the rest
            QCOMPARE(samples[0].meta.totalCck, 65535u);
            QCOMPARE(samples[0].meta.totalCck + samples[1].meta.totalCck, c.frames[i]["length_cck"].get<std::uint32_t>());
            for (const Sample& s : samples) {
                QVERIFY(s.isStopped());
                QCOMPARE(s.stack.size(), 1u);
                QCOMPARE(s.stack[0], 0x1000u); // bootBareMetal loads at $1000
            }
        }
    }

    void theReaderRefusesMalformedFiles() {
        const SampleMeta one{10, 8, 2};
        const auto stream = le({0x1234, 0xFFFFFFFF - 10});
        QVERIFY(refusal(stream, meta({one})).isEmpty());
        QVERIFY(refusal(stream, meta({one}, 3)).contains("version 3"));
        // Version 2 rows carry the context; a version 2 header over version 1 rows is refused.
        SampleMeta withContext = one;
        withContext.pc = 0x1234;
        withContext.task = 0x2000;
        withContext.context = samples_format::kContextKnown | samples_format::kContextForbidden | 0x2000 |
                              3u << samples_format::kContextLevelShift;
        QVERIFY(refusal(stream, meta({withContext}, 2)).isEmpty());
        QCOMPARE(parseSamples(stream, meta({withContext}, 2), false, "t").front().meta.context, withContext.context);
        QCOMPARE(parseSamples(stream, meta({withContext}, 2), false, "t").front().meta.task, 0x2000u);
        QCOMPARE(parseSamples(stream, meta({withContext}, 1), false, "t").front().meta.context, 0u);
        auto shortRows = meta({one}, 1);
        shortRows[4] = 2;
        QVERIFY(refusal(stream, shortRows).contains("32 each in version 2"));
        withContext.context |= 1u << 30;
        QVERIFY(refusal(stream, meta({withContext}, 2)).contains("has bits no version 2 row sets"));
        QVERIFY(refusal(stream, meta({one}, 1, "XXXX")).contains("CLSM"));
        QVERIFY(refusal(stream, meta({one, one})).contains("2 rows"));
        QVERIFY(refusal(stream, {'C', 'L', 'S'}).contains("truncated"));
        QVERIFY(refusal(stream, meta({SampleMeta{11, 9, 2}})).contains("costs 10 CCK"));
        QVERIFY(refusal(stream, meta({SampleMeta{10, 9, 2}})).contains("not its total"));
        QVERIFY(refusal(le({0x1234}), meta({one})).contains("no cost word"));
        QVERIFY(refusal(le({0xFFFFFFFF - 10}), meta({one})).contains("no PC"));
        auto cut = stream;
        cut.pop_back();
        QVERIFY(refusal(cut, meta({one})).contains("multiple of 4"));
        QVERIFY(refusal(stream, meta({one}), true).contains("registers are missing"));
        QVERIFY(refusal(le({samples_format::kIrqMarker, 0xFFFFFFFF - 10}), meta({one})).contains("[IRQ]"));
        QVERIFY(refusal(stream, meta({SampleMeta{10, 8, 2, 3, 27}})).contains("interrupt level"));
    }

    void randomCorruptionNeverCrashes() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("c").toStdString();
        auto m = bootLoad();
        m->runFrame();
        SamplerOptions s;
        s.registers = true;
        auto session = start(*m, dir, 2, s);
        while (session->capture->status().active()) m->runFrame();
        const CaptureFiles c = readCapture(dir);
        const json& r = c.frames[1];
        const auto stream = readFileBytes((fs::path(dir) / r["samples"].get<std::string>()).string());
        const auto metaBytes = readFileBytes((fs::path(dir) / r["samples_meta"].get<std::string>()).string());
        QVERIFY(!parseSamples(stream, metaBytes, true).empty());
        std::mt19937 rng(1234);
        int refused = 0;
        for (int i = 0; i < 400; ++i) {
            auto a = stream;
            auto b = metaBytes;
            auto& target = (i & 1) ? a : b;
            switch (rng() % 3) {
            case 0: target.resize(rng() % (target.size() + 1)); break;
            case 1:
                for (int k = 0; k < 8; ++k) target[rng() % target.size()] ^= std::uint8_t(1u << (rng() % 8));
                break;
            default: target.insert(target.begin() + std::ptrdiff_t(rng() % target.size()), std::uint8_t(rng())); break;
            }
            try {
                parseSamples(a, b, true, "corrupt");
            } catch (const MediaError&) {
                ++refused;
            }
        }
        QVERIFY(refused > 300);
    }
};

QTEST_GUILESS_MAIN(TestSamples)
#include "test_samples.moc"
