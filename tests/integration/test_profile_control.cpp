// SPDX-License-Identifier: GPL-3.0-or-later
// profile.start, profile.stop and profile.status over the control socket, and
// `copperline --profile` on the command line: every refused combination, a capture that
// starts paused and ends exactly where step_frame stops, a capture killed with SIGKILL,
// and one that runs out of disk.

#include "test_control_fixture.h"

#include "emu/base64.h"
#ifndef Q_MOC_RUN
#include "profiler/capture/capture_reader.h"
#endif
#include "profiler/report/bartman_profile.h"
#include "profiler/sampling/system_samples.h"

#include <QDir>
#include <QFile>
#include <csignal>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/mount.h>
#include <unistd.h>

using namespace copperline::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Every line of a profile.jsonl parses and is a whole frame record or a marker.
int checkWholeLines(const QString& path, QString* why) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *why = "cannot read " + path;
        return -1;
    }
    const QByteArray all = f.readAll();
    if (!all.isEmpty() && !all.endsWith('\n')) {
        *why = "the file ends inside a line";
        return -1;
    }
    int n = 0;
    for (const QByteArray& line : all.split('\n')) {
        if (line.isEmpty()) continue;
        const json j = json::parse(line.constData(), nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            *why = QString("line %1 does not parse").arg(n + 1);
            return -1;
        }
        if (!j.contains("marker")) {
            for (const char* key : {"frame", "seq", "first_cck", "length_cck", "owner_cck", "cpu",
                                    "busy_cck", "idle_cck", "grids", "blits", "registers"})
                if (!j.contains(key)) {
                    *why = QString("line %1 has no %2").arg(n + 1).arg(key);
                    return -1;
                }
        }
        ++n;
    }
    return n;
}

struct Run {
    int exit = -1;
    QByteArray err;
};

Run runCopperline(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    QStringList env = QProcess::systemEnvironment();
    env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
    p.setEnvironment(env);
    p.setStandardOutputFile(QProcess::nullDevice());
    p.start(COPPERLINE_EXE, QStringList{"--factory", "--noaudio"} + args);
    Run r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exit = p.exitCode();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestProfileControl : public QObject {
    Q_OBJECT
    ControlEmulator emu;
    QTemporaryDir tmp;

    int errorCode(const CtlReply& r) { return r.json.is_object() ? r.json.value("code", 0) : 0; }

private slots:
    void initTestCase() { QVERIFY(emu.start(uniqueName("test-profile"))); }

    void refusesBadOptions() {
        const std::string p = tmp.filePath("refused").toStdString();
        const struct {
            json params;
            int code;
            const char* says;
        } cases[] = {
            {{{"path", p}, {"frames", 0}}, -32602, "frames"},
            {{{"path", p}, {"frames", 100001}}, -32602, "frames"},
            {{{"path", p}, {"frames", "lots"}}, -32602, "frames"},
            {{{"path", p}, {"memory", true}, {"trigger", {{"frame", 5}}}}, -32602, "trigger"},
            {{{"path", p}, {"registers", true}}, -32602, "samples"},
            {{{"path", p}, {"unwind", {{"base", "0x1000"}}}}, -32602, "samples"},
            {{{"path", p}, {"code_ranges", json::array()}}, -32602, "coverage"},
            {{{"path", p}, {"relocation_bases", json::array()}}, -32602, "coverage"},
            {{{"path", p}, {"trigger", {{"frame", 5}, {"busy_cck_over", 9}}}}, -32602, "trigger"},
            {{{"path", p}, {"trigger", {{"when", 5}}}}, -32602, "trigger"},
            {{{"path", p}, {"trigger", 5}}, -32602, "trigger"},
            {{{"path", p}, {"trigger", {{"frame", -1}}}}, -32602, "frame"},
            {{{"path", p}, {"screenshots", "some"}}, -32602, "screenshots"},
            {{{"path", p}, {"slots", "yes"}}, -32602, "slots"},
            {{{"path", p}, {"fames", 10}}, -32602, "fames"},
            {{{"path", p}, {"samples_buffer_limit", 10}}, -32602, "samples"},
            {{{"path", p}, {"samples", true}, {"samples_buffer_limit", 0}}, -32602, "samples_buffer_limit"},
            {{{"path", p}, {"samples", true}, {"samples_buffer_limit", 262145}}, -32602, "samples_buffer_limit"},
            {{{"path", p}, {"samples", true}, {"unwind", {{"base", "0x1000"}}}}, -32602, "unwind"},
            {{{"path", p}, {"samples", true}, {"unwind", {{"base", "0x1001"}, {"table", "AAAAAAAA"}}}}, -32602, "odd"},
            {{{"path", p}, {"samples", true}, {"unwind", {{"base", "0x1000"}, {"table", "not base64!"}}}}, -32602, "base64"},
            // 8 bytes: not a whole number of six-byte rows.
            {{{"path", p}, {"samples", true}, {"unwind", {{"base", "0x1000"}, {"table", "AAAAAAAAAAA="}}}}, -32602, "unwind.table"},
            {{{"path", p}, {"samples", true}, {"relocation_bases", "0x1000"}}, -32602, "relocation_bases"},
            {{{"path", p}, {"samples", true}, {"relocation_bases", {"nowhere"}}}, -32602, "relocation_bases[0]"},
            {{{"path", p}, {"samples", true}, {"code_ranges", {{{"base", "0x1000"}}}}}, -32602, "code_ranges[0]"},
            {{{"path", p}, {"samples", true}, {"code_ranges", {{{"base", "0xFFFFF0"}, {"size", "0x100"}}}}}, -32602, "code_ranges[0]"},
            {{{"path", p}, {"coverage", true}, {"code_ranges", {{{"base", "0x1000"}, {"size", "0x100"}}, {{"base", "0x1080"}, {"size", "0x10"}}}}}, -32602, "code_ranges"},
            {{{"path", p}, {"pc_samples", "yes"}}, -32602, "pc_samples"},
            {{{"path", p}, {"sampler", 1000}}, -32602, "sampler"},
            {{{"path", p}, {"sampler", {{"hz", 0}}}}, -32602, "sampler.hz"},
            {{{"path", p}, {"sampler", {{"hz", 15735}}}}, -32602, "sampler.hz"},
            {{{"path", p}, {"sampler", {{"hz", 1.5}}}}, -32602, "sampler.hz"},
            {{{"path", p}, {"sampler", {{"rate", 10}}}}, -32602, "sampler.rate"},
            {{{"path", p}, {"sampler", {{"fault", "pc+4"}}}}, -32602, "sampler.fault"},
            // One sample per raster line at most: NTSC's line rate is over PAL's.
            {{{"path", p}, {"sampler", {{"hz", 15700}}}}, -32602, "raster line"},
            // The flight recorder and what it does not combine with.
            {{{"path", p}, {"ring", 0}}, -32602, "ring"},
            {{{"path", p}, {"ring", 10001}}, -32602, "ring"},
            {{{"path", p}, {"ring", "many"}}, -32602, "ring"},
            {{{"path", p}, {"ring", 5}, {"trigger", {{"frame", 5}}}}, -32602, "trigger"},
            {{{"path", p}, {"ring", 5}, {"memory", true}}, -32602, "memory"},
            {{{"path", p}, {"ring", 5}, {"coverage", true}}, -32602, "coverage"},
            {{{"path", p}, {"ring", 5}, {"sampler", {{"hz", 100}}}}, -32602, "sampler"},
            {{{"path", p}, {"ring", 5}, {"screenshots", "every"}}, -32602, "screenshots"},
            {{{"path", p}, {"ring", 5}, {"ring_bytes", 1000}}, -32602, "ring_bytes"},
            {{{"path", p}, {"ring_bytes", 1 << 24}}, -32602, "requires ring"},
            {{{"path", p}, {"stop_on", {{"busy_cck_over", 5}}}}, -32602, "requires ring"},
            {{{"path", p}, {"ring", 5}, {"stop_on", {{"slow", 5}}}}, -32602, "stop_on"},
            {{{"path", p}, {"ring", 5}, {"stop_on", 5}}, -32602, "stop_on"},
            {{{"path", p}, {"ring", 5}, {"stop_on", {{"busy_cck_over", 5}, {"break", true}}}}, -32602, "stop_on"},
            {{{"path", p}, {"ring", 5}, {"stop_on", {{"break", false}}}}, -32602, "stop_on.break"},
            {{{"path", p}, {"ring", 5}, {"stop_on", {{"frame_cck_over", "lots"}}}}, -32602, "frame_cck_over"},
        };
        for (const auto& c : cases) {
            const CtlReply r = emu.ctl("profile.start", c.params);
            QVERIFY2(r.exitCode != 0, c.params.dump().c_str());
            QCOMPARE(errorCode(r), c.code);
            QVERIFY2(r.json.value("message", std::string()).find(c.says) != std::string::npos,
                     r.err.constData());
        }
        // Nothing was made, and nothing runs.
        QVERIFY(!fs::exists(p));
        QCOMPARE(emu.ok("profile.status").value("active", true), false);
    }

    void refusesPathsItMustNotTouch() {
        const QString file = tmp.filePath("a-file");
        { std::ofstream(file.toStdString()) << "keep me"; }
        CtlReply r = emu.ctl("profile.start", {{"path", file.toStdString()}});
        QCOMPARE(errorCode(r), -32005);
        const QString full = tmp.filePath("full");
        QDir().mkpath(full);
        { std::ofstream((full + "/mine.txt").toStdString()) << "keep me"; }
        r = emu.ctl("profile.start", {{"path", full.toStdString()}});
        QCOMPARE(errorCode(r), -32005);
        QVERIFY(r.json.value("message", std::string()).find("not empty") != std::string::npos);
        std::ifstream in(file.toStdString());
        std::string text;
        std::getline(in, text);
        QCOMPARE(text, std::string("keep me"));
        QCOMPARE(QDir(full).entryList(QDir::Files).size(), 1);
    }

    void startsPausedAndEndsWhereStepFrameStops() {
        const std::string dir = tmp.filePath("paused").toStdString();
        emu.ok("step_frame", {{"n", 3}});
        const json started =
            emu.ok("profile.start", {{"path", dir}, {"frames", 7}, {"screenshots", "last"}});
        QCOMPARE(started.value("frames_limit", 0), 7);
        QCOMPARE(started.value("state", std::string()), std::string("recording"));
        // A second capture while one runs is refused.
        const CtlReply second = emu.ctl("profile.start", {{"path", dir + "-2"}});
        QCOMPARE(errorCode(second), -32003);
        const json status = emu.ok("profile.status");
        QCOMPARE(status.value("active", false), true);
        QCOMPARE(status.value("frames_written", -1), 0);
        const json stop = emu.ok("step_frame", {{"n", 7}});
        const json done = emu.ok("profile.status");
        QCOMPARE(done.value("done", false), true);
        QCOMPARE(done.value("frames_written", 0), 7);
        // The machine stands just past the end of the capture's last frame.
        std::ifstream in(dir + "/profile.jsonl");
        std::string line, last;
        int lines = 0;
        while (std::getline(in, line)) {
            last = line;
            ++lines;
        }
        QCOMPARE(lines, 7);
        const json f = json::parse(last);
        QCOMPARE(stop.value("frame", 0ull), f.value("frame", 0ull) + 1);
        const std::uint64_t end = f.value("first_cck", 0ull) + f.value("length_cck", 0ull);
        QVERIFY(stop.value("cck", 0ull) >= end);
        QVERIFY(stop.value("cck", 0ull) < end + 100);
        // profile.json was written when the budget was reached, and stop returns the same.
        const json summary = json::parse(std::ifstream(dir + "/profile.json"));
        QCOMPARE(summary.value("frames_written", 0), 7);
        QCOMPARE(summary.value("version", 0), 1);
        QVERIFY(summary.contains("owners") && summary.contains("cpu_wait_classes") &&
                summary.contains("machine"));
        const json stopped = emu.ok("profile.stop");
        QCOMPARE(stopped.value("frames_written", 0), 7);
        QVERIFY(fs::exists(dir + "/" + stopped.value("screenshot", std::string("none"))));
    }

    void stopsEarlyAndSharesTracingWithTheAnalyzer() {
        const std::string dir = tmp.filePath("early").toStdString();
        // The pane has armed full records; a capture with slots and its stop leave them on.
        emu.ok("frame.record", {{"on", true}});
        emu.ok("profile.start", {{"path", dir}, {"frames", 50}, {"slots", true}});
        emu.ok("step_frame", {{"n", 2}});
        // Closing the pane does not stop the capture's records.
        QCOMPARE(emu.ok("frame.record", {{"on", false}}).value("recording", false), true);
        emu.ok("step_frame", {{"n", 1}});
        const json stopped = emu.ok("profile.stop");
        QCOMPARE(stopped.value("frames_written", 0), 3);
        QCOMPARE(stopped.value("done", false), true);
        int slotFiles = 0;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().filename().string().starts_with("slots-")) ++slotFiles;
        QCOMPARE(slotFiles, 3);
        // With the pane closed and the capture stopped, recording is off again.
        QCOMPARE(emu.ok("frame.record", {{"on", false}}).value("recording", true), false);
    }

    // The flight recorder over the socket: it holds frames while the machine runs, writes
    // nothing, and writes what it holds when a watchpoint stops the machine.
    void aRingStopsAtAWatchpoint() {
        const std::string dir = tmp.filePath("ring-break").toStdString();
        const json started = emu.ok("profile.start", {{"path", dir}, {"ring", 4}, {"samples", true},
                                                      {"stop_on", {{"break", true}}}});
        QCOMPARE(started["ring"].value("frames", 0), 4);
        emu.ok("step_frame", {{"n", 6}});
        json status = emu.ok("profile.status");
        QVERIFY(status.value("active", false));
        QCOMPARE(status.value("frames_written", -1), 0);
        QCOMPARE(status["ring"].value("frames_held", 0), 4);
        QVERIFY(status["ring"].value("bytes_held", 0ull) > 0);
        QVERIFY(status["ring"]["stopped"].is_null());
        QVERIFY(!fs::exists(fs::path(dir) / "profile.jsonl") || fs::file_size(fs::path(dir) / "profile.jsonl") == 0);
        // The system reads ExecBase (address 4) all the time: a watchpoint on it stops the
        // machine soon.
        const int id = emu.ok("break.add", {{"kind", "watch"}, {"addr", 4}, {"len", 4}, {"access", "read"}}).value("id", 0);
        const json stop = emu.ok("continue");
        QCOMPARE(stop.value("reason", std::string()), std::string("watchpoint"));
        emu.ok("break.remove", {{"id", id}});
        status = emu.ok("profile.status");
        QCOMPARE(status.value("active", true), false);
        QCOMPARE(status.value("frames_written", 0), 4);
        QCOMPARE(status["ring"]["stopped"].value("reason", std::string()), std::string("watchpoint"));
        QCOMPARE(status["ring"]["stopped"].value("pc", 0u), stop.value("pc", 1u));
        const copperline::CaptureFiles files = copperline::readCapture(dir);
        QCOMPARE(files.frames.size(), std::size_t(4));
        // The frames written are the four that ended last before the stop.
        QCOMPARE(files.frames.back().at("frame").get<std::uint64_t>() + 1, stop.value("frame", 0ull));
        QCOMPARE(files.summary.at("ring").at("stopped").at("reason").get<std::string>(), std::string("watchpoint"));
        for (const json& f : files.frames)
            QVERIFY(fs::exists(fs::path(dir) / f.at("samples").get<std::string>()));
    }

    void samplesOverTheSocket() {
        const std::string dir = tmp.filePath("sampled").toStdString();
        const std::string state = tmp.filePath("sampled.clstate").toStdString();
        emu.ok("state.save", {{"path", state}});
        // A table of 64 default rows (CFA = A7 + 4, A5 not saved, return address at CFA - 4)
        // for 128 bytes of text at $1000.
        std::string table;
        for (int i = 0; i < 64; ++i) table += std::string("\x04\xF0\xFF\xFF\xFC\xFF", 6);
        const json started = emu.ok(
            "profile.start",
            {{"path", dir}, {"frames", 4}, {"samples", true}, {"registers", true},
             {"unwind", {{"base", "0x1000"}, {"table", copperline::toBase64(reinterpret_cast<const std::uint8_t*>(table.data()), table.size())}}},
             {"relocation_bases", {"0x1000"}}, {"code_ranges", {{{"base", "0x1000"}, {"size", "0x80"}}}}});
        QCOMPARE(started.value("samples_buffer_limit", 0), 262144);
        QCOMPARE(started.value("samples_dropped", -1), 0);
        emu.ok("step_frame", {{"n", 2}});
        QVERIFY(emu.ok("profile.status").value("samples_total", 0) > 1000);
        emu.ok("state.load", {{"path", state}});
        emu.ok("step_frame", {{"n", 3}});
        QCOMPARE(emu.ok("profile.status").value("done", false), true);
        const json stopped = emu.ok("profile.stop");
        QCOMPARE(stopped.value("samples_dropped", -1), 0);
        const json summary = json::parse(std::ifstream(dir + "/profile.json"));
        const json& sampling = summary["sampling"];
        QCOMPARE(sampling["unwind"]["base"].get<std::string>(), std::string("0x1000"));
        QCOMPARE(sampling["unwind"]["size"].get<std::string>(), std::string("0x80"));
        QCOMPARE(sampling["relocation_bases"], json({"0x1000"}));
        QVERIFY(sampling["registers"].get<bool>());
        QCOMPARE(sampling["layouts"]["meta"]["magic"].get<std::string>(), std::string("CLSM"));
        QCOMPARE(summary["options"]["unwind"]["table"].get<std::string>(), std::string("(384 bytes)"));
        // Each frame record's samples cover it, from where sampling began in it; after the
        // state load the capture's next frame starts where the state stood.
        std::ifstream in(dir + "/profile.jsonl");
        std::string line;
        int frames = 0, markers = 0;
        std::uint64_t total = 0;
        while (std::getline(in, line)) {
            const json r = json::parse(line);
            if (r.contains("marker")) {
                ++markers;
                continue;
            }
            ++frames;
            const std::uint64_t first = r["first_cck"], length = r["length_cck"];
            QCOMPARE(r["samples_cck"].get<std::uint64_t>(), first + length - r.value("samples_from_cck", first));
            QVERIFY(fs::exists(dir + "/" + r["samples"].get<std::string>()));
            QVERIFY(fs::exists(dir + "/" + r["samples_meta"].get<std::string>()));
            total += r["samples_count"].get<std::uint64_t>();
        }
        QCOMPARE(frames, 4);
        QCOMPARE(markers, 1);
        QCOMPARE(summary["samples_total"].get<std::uint64_t>(), total);
    }

    // The system sampler beside the precise one (they share the step hook), and the
    // frame-boundary PCs: every record has both, and sampler.bin holds what the records
    // count.
    void systemSamplerOverTheSocket() {
        const std::string dir = tmp.filePath("system").toStdString();
        emu.ok("profile.start", {{"path", dir},
                                 {"frames", 4},
                                 {"samples", true},
                                 {"pc_samples", true},
                                 {"sampler", {{"hz", 2000}}}});
        QCOMPARE(emu.ok("profile.status")["sampler"].value("hz", 0), 2000);
        emu.ok("step_frame", {{"n", 5}});
        const json summary = json::parse(std::ifstream(dir + "/profile.json"));
        const json& sampler = summary["sampler"];
        QCOMPARE(sampler["hz"].get<int>(), 2000);
        std::ifstream in(dir + "/profile.jsonl");
        std::string line;
        std::uint64_t counted = 0;
        int frames = 0;
        while (std::getline(in, line)) {
            const json r = json::parse(line);
            ++frames;
            QVERIFY(r["pc_sample"]["pc"].get<std::uint32_t>() <= 0xFFFFFF);
            QVERIFY(r["pc_sample"].contains("this_task"));
            QVERIFY(r["pc_sample"]["cck"].get<std::uint64_t>() >=
                    r["first_cck"].get<std::uint64_t>() + r["length_cck"].get<std::uint64_t>());
            counted += r["sampler"]["samples"].get<std::uint64_t>();
            if (!r.contains("partial_from_cck")) {
                // A whole PAL frame at 2 kHz: 2000 * length / 3,546,895, give or take one.
                const double expect = 2000.0 * r["length_cck"].get<double>() / 3546895.0;
                QVERIFY(std::abs(r["sampler"]["samples"].get<double>() - expect) <= 1.0);
            }
            QVERIFY(r["samples_count"].get<std::uint64_t>() > 0);
        }
        QCOMPARE(frames, 4);
        QCOMPARE(sampler["samples"].get<std::uint64_t>(), counted);
        const copperline::SystemSampleFile f = copperline::readSystemSamples(dir + "/sampler.bin");
        QCOMPARE(std::uint64_t(f.samples.size()), counted);
        QCOMPARE(f.header.hz, 2000u);
    }

    void coverageOverTheSocket() {
        const std::string dir = tmp.filePath("covered").toStdString();
        const json started = emu.ok("profile.start", {{"path", dir}, {"frames", 3}, {"coverage", true}});
        QCOMPARE(started["coverage"].value("counting", false), true);
        emu.ok("step_frame", {{"n", 3}});
        const json done = emu.ok("profile.status");
        QCOMPARE(done["coverage"].value("counting", true), false);
        QVERIFY(done["coverage"].value("instructions", 0) > 1000);
        const json summary = json::parse(std::ifstream(dir + "/profile.json"));
        QVERIFY(fs::exists(dir + "/coverage.bin"));
        // Without code ranges every address is in the sparse map: nothing is outside.
        QCOMPARE(summary["coverage"]["total"], done["coverage"]["instructions"]);
        QCOMPARE(summary["coverage"]["outside"].get<std::uint64_t>(), 0u);
        QVERIFY(summary["coverage"]["sparse_entries"].get<std::uint64_t>() > 0);
        QCOMPARE(summary["coverage"]["instructions_in_sparse"], summary["coverage"]["total"]);
        QCOMPARE(summary["files"]["coverage"].get<std::string>(), std::string("coverage.bin"));
    }

    void offlineProfileOfASavedMachine() {
        const std::string state = tmp.filePath("offline.clstate").toStdString();
        emu.ok("state.save", {{"path", state}});
        const std::string dir = tmp.filePath("offline").toStdString();
        QProcess p;
        p.start(COPPERLINE_CTL_EXE, {"profile", QString::fromStdString(state), "--frames", "2", "--out", QString::fromStdString(dir)});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const json summary = json::parse(std::ifstream(dir + "/profile.json"));
        QCOMPARE(summary.value("frames_written", 0), 2);
        QVERIFY(summary["sampling"]["registers"].get<bool>());
        int samples = 0, slotFiles = 0, shots = 0;
        for (const auto& e : fs::directory_iterator(dir)) {
            const std::string n = e.path().filename().string();
            samples += n.starts_with("samples-") && n.ends_with(".bin");
            slotFiles += n.starts_with("slots-");
            shots += n.starts_with("screenshot-");
        }
        QCOMPARE(samples, 2);
        QCOMPARE(slotFiles, 2);
        QCOMPARE(shots, 2);
        QVERIFY(fs::exists(dir + "/chip-ram.bin") && fs::exists(dir + "/slow-ram.bin"));
        // The same run as the server's: the offline capture starts where the state stood.
        std::string firstLine;
        std::getline(std::ifstream(dir + "/profile.jsonl") >> std::ws, firstLine);
        const json r = json::parse(firstLine);
        QCOMPARE(r.value("frame", 0ull), json::parse(std::ifstream(dir + "/profile.json"))["started"].value("frame", 1ull));

        // The legacy binary profile, read back with our reader of the format.
        const std::string binary = tmp.filePath("offline.profile").toStdString();
        p.start(COPPERLINE_CTL_EXE, {"profile", QString::fromStdString(state), "--frames", "2", "--format", "bartman",
                                     "--out", QString::fromStdString(binary)});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const copperline::BartmanProfile bp = copperline::readBartmanProfileFile(binary);
        QCOMPARE(bp.frames.size(), std::size_t(2));
        QCOMPARE(bp.kickRom.size(), std::size_t(512 * 1024));
        QCOMPARE(bp.chipMem.size(), std::size_t(512 * 1024));
        for (std::size_t i = 0; i < 2; ++i) {
            const auto& f = bp.frames[i];
            QCOMPARE(f.dma.size(), std::size_t(copperline::bartman::kDmaCount));
            std::uint64_t cycles = 0;
            for (const auto& smp : copperline::decodeProfileArray(f.profileArray)) cycles += smp.cycles;
            // Every cycle of the frame is in a sample (the first from where the state stood).
            if (i == 1) QCOMPARE(cycles, std::uint64_t(f.profileCycles));
            QVERIFY(cycles <= f.profileCycles && cycles > 0);
            QVERIFY(!f.screenshot.empty());
        }
        // No scratch capture is left behind, and the file is not written over.
        p.start(COPPERLINE_CTL_EXE, {"profile", QString::fromStdString(state), "--format", "bartman", "--out", QString::fromStdString(binary)});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(p.exitCode() != 0 && p.readAllStandardError().contains("--force"));

        // Refusals, each with its message and nothing written.
        const std::string corrupt = tmp.filePath("corrupt.clstate").toStdString();
        {
            std::ifstream in(state, std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(in)), {});
            bytes.resize(bytes.size() / 2);
            std::ofstream(corrupt, std::ios::binary) << bytes;
        }
        const struct {
            QStringList args;
            const char* says;
        } refusals[] = {
            {{"profile", QString::fromStdString(corrupt), "--out", tmp.filePath("r1")}, "corrupt.clstate"},
            {{"profile", QString::fromStdString(state), "--frames", "0", "--out", tmp.filePath("r2")}, "--frames"},
            {{"profile", QString::fromStdString(state), "--frames", "101", "--out", tmp.filePath("r3")}, "--frames"},
            {{"profile", tmp.filePath("x.uss"), "--out", tmp.filePath("r4")}, ".uss"},
            {{"profile", QString::fromStdString(state), "--out", QString::fromStdString(dir)}, "not empty"},
            {{"profile", QString::fromStdString(state)}, "--out"},
        };
        for (const auto& c : refusals) {
            p.start(COPPERLINE_CTL_EXE, c.args);
            QVERIFY(p.waitForFinished(60000));
            const QByteArray err = p.readAllStandardError();
            QVERIFY2(p.exitCode() != 0 && err.contains(c.says), (c.args.join(' ') + ": " + err).toUtf8().constData());
        }
        for (const char* d : {"r1", "r2", "r3", "r4"}) QVERIFY(!fs::exists(tmp.filePath(d).toStdString()));
    }

    void stateLoadWritesARepositionMarker() {
        const std::string dir = tmp.filePath("repos").toStdString();
        const std::string state = tmp.filePath("s.clstate").toStdString();
        emu.ok("state.save", {{"path", state}});
        emu.ok("profile.start", {{"path", dir}, {"frames", 4}});
        emu.ok("step_frame", {{"n", 2}});
        emu.ok("state.load", {{"path", state}});
        emu.ok("step_frame", {{"n", 2}});
        QCOMPARE(emu.ok("profile.status").value("done", false), true);
        std::ifstream in(dir + "/profile.jsonl");
        std::string line;
        std::vector<json> lines;
        while (std::getline(in, line))
            lines.push_back(json::parse(line));
        QCOMPARE(lines.size(), std::size_t(5));
        QCOMPARE(lines[2].value("marker", std::string()), std::string("reposition"));
        QCOMPARE(lines[3].value("frame", 0ull), lines[0].value("frame", 1ull));
        QCOMPARE(lines[3].value("seq", 0ull), 2ull);
    }

    void commandLineCaptureAndItsRefusals() {
        const QString dir = tmp.filePath("cli");
        const Run ok =
            runCopperline({"--profile", dir, "--profile-frames", "20", "--profile-after", "1",
                           "--profile-options", R"({"slots": true, "screenshots": "every"})"});
        QCOMPARE(ok.exit, 0);
        QString why;
        QCOMPARE(checkWholeLines(dir + "/profile.jsonl", &why), 20);
        QVERIFY(QFile::exists(dir + "/profile.json"));
        const json summary = json::parse(std::ifstream((dir + "/profile.json").toStdString()));
        QVERIFY(summary.at("started").at("seconds").get<double>() >= 1.0);
        QCOMPARE(QDir(dir).entryList({"slots-*.bin"}).size(), 20);
        QCOMPARE(QDir(dir).entryList({"screenshot-*.png"}).size(), 20);
        // Into the same folder again: refused, nothing touched.
        const Run again = runCopperline({"--profile", dir, "--profile-frames", "2"});
        QCOMPARE(again.exit, 2);
        QVERIFY(again.err.contains("not empty"));
        QCOMPARE(checkWholeLines(dir + "/profile.jsonl", &why), 20);
        for (const QStringList& bad :
             {QStringList{"--profile", tmp.filePath("b1"), "--profile-frames", "0"},
              QStringList{"--profile", tmp.filePath("b2"), "--profile-options", "{nope"},
              QStringList{"--profile", tmp.filePath("b3"), "--profile-options",
                          R"({"memory": true, "trigger": {"frame": 3}})"},
              QStringList{"--profile", tmp.filePath("b4"), "--profile-after", "-1"},
              QStringList{"--profile", tmp.filePath("b5"), "--profile-ring", "0"},
              QStringList{"--profile", tmp.filePath("b6"), "--profile-stop-on", "break"},
              QStringList{"--profile", tmp.filePath("b7"), "--profile-ring", "3", "--profile-stop-on", "slow=5"},
              QStringList{"--profile", tmp.filePath("b8"), "--profile-ring", "3", "--profile-stop-on",
                          "frame_cck_over="},
              QStringList{"--profile", tmp.filePath("b9"), "--profile-ring", "3", "--profile-options",
                          R"({"memory": true})"}}) {
            const Run r = runCopperline(bad);
            QVERIFY2(r.exit == 2, qPrintable(bad.join(' ') + ": " + r.err));
            QVERIFY(!QFile::exists(bad[1]));
        }
        // The flight recorder from the command line: of 12 frames watched it writes the last 3.
        const QString ring = tmp.filePath("cli-ring");
        const Run rr = runCopperline({"--profile", ring, "--profile-frames", "12", "--profile-ring", "3",
                                      "--profile-stop-on", "frame_cck_over=1000000"});
        QVERIFY2(rr.exit == 0, rr.err.constData());
        QCOMPARE(checkWholeLines(ring + "/profile.jsonl", &why), 3);
        const json ringSummary = json::parse(std::ifstream((ring + "/profile.json").toStdString()));
        QCOMPARE(ringSummary.at("ring").at("stopped").at("reason").get<std::string>(), std::string("frames"));
        QCOMPARE(ringSummary.at("ring").at("stop_on").at("frame_cck_over").get<std::uint64_t>(), 1000000ull);
        QCOMPARE(ringSummary.at("frames_written").get<unsigned>(), 3u);
    }

    void romSymbolsOfAnArosCapture() {
        // At the "Waiting for bootable media" screen exec, graphics and intuition are up
        // (dos.library starts only with something to boot: test_amigaos_aros covers it).
        const QString dir = tmp.filePath("aros");
        const Run r = runCopperline({"--profile", dir, "--profile-frames", "1", "--profile-after", "30"});
        QCOMPARE(r.exit, 0);
        const json summary = json::parse(std::ifstream((dir + "/profile.json").toStdString()));
        const json& rom = summary.at("rom_symbols");
        QVERIFY(rom.at("exec_base").is_number());
        std::map<std::string, json> libraries;
        for (const json& l : rom.at("libraries")) libraries[l.at("name").get<std::string>()] = l;
        for (const char* name : {"exec.library", "graphics.library", "intuition.library"}) {
            QVERIFY2(libraries.count(name), name);
            const json& lvos = libraries[name].at("lvos");
            QVERIFY(lvos.size() > 50);
            // Every target read from a JMP lies in a ROM or in RAM, and most are in ROM.
            unsigned inRom = 0;
            for (const json& v : lvos)
                if (v.at("target").is_number()) {
                    const auto t = v.at("target").get<std::uint32_t>();
                    if (t >= 0xE00000) ++inRom;
                }
            QVERIFY(inRom > lvos.size() / 2);
        }
        // exec's AllocMem (LVO -198) is a JMP into the Kickstart ROM.
        bool allocMem = false;
        for (const json& v : libraries["exec.library"].at("lvos"))
            if (v.at("lvo").get<int>() == -198) {
                allocMem = v.at("target").is_number() && v.at("target").get<std::uint32_t>() >= 0xF80000;
            }
        QVERIFY(allocMem);
        // The system stack is ExecBase's; it is never null on a running AROS.
        QVERIFY(summary.at("systemStackLower").is_number());
        QVERIFY(summary.at("systemStackUpper").get<std::uint32_t>() > summary.at("systemStackLower").get<std::uint32_t>());
    }

    void aKilledCaptureLeavesWholeLines() {
        const QString dir = tmp.filePath("killed");
        QProcess p;
        QStringList env = QProcess::systemEnvironment();
        env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
        p.setEnvironment(env);
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start(COPPERLINE_EXE,
                {"--factory", "--noaudio", "--profile", dir, "--profile-frames", "100000"});
        QVERIFY(p.waitForStarted());
        // Kill it in the middle of its writing, after a good number of frames.
        for (int i = 0; i < 600; ++i) {
            QTest::qWait(50);
            QFile f(dir + "/profile.jsonl");
            if (f.size() > 400 * 1024) break;
        }
        ::kill(pid_t(p.processId()), SIGKILL);
        p.waitForFinished();
        QString why;
        const int lines = checkWholeLines(dir + "/profile.jsonl", &why);
        QVERIFY2(lines > 50, qPrintable(why));
        // The summary was written as the capture began, and says it had not finished.
        const json summary = json::parse(std::ifstream((dir + "/profile.json").toStdString()));
        QCOMPARE(summary.at("state").get<std::string>(), std::string("recording"));
        QVERIFY(summary.at("started").contains("capture_cck"));
        QVERIFY(!QFile::exists(dir + "/profile.json.tmp"));
    }

    void aFullDiskStopsTheCaptureAndKeepsWhatItWrote() {
        if (::geteuid() != 0) QSKIP("mounting a small tmpfs needs root; CI runs as root");
        const QString mnt = tmp.filePath("tmpfs");
        QDir().mkpath(mnt);
        QVERIFY(::mount("tmpfs", mnt.toLocal8Bit().constData(), "tmpfs", 0, "size=4m") == 0);
        const QString dir = mnt + "/cap";
        // Slot files are 1.7 MB a frame: the disk is full by the third.
        const Run r = runCopperline({"--profile", dir, "--profile-frames", "50",
                                     "--profile-options", R"({"slots": true})"});
        QString why;
        const int lines = checkWholeLines(dir + "/profile.jsonl", &why);
        ::umount(mnt.toLocal8Bit().constData());
        QCOMPARE(r.exit, 1);
        QVERIFY2(r.err.contains("No space left on device"), r.err.constData());
        QVERIFY2(lines >= 1 && lines < 50, qPrintable(why));
        // And the emulator runs on after a failed capture.
        const std::string dir2 = tmp.filePath("after-fail").toStdString();
        QVERIFY(emu.ok("profile.start", {{"path", dir2}, {"frames", 1}}).is_object());
        emu.ok("step_frame", {{"n", 2}});
        QCOMPARE(emu.ok("profile.status").value("done", false), true);
    }

    void cleanupTestCase() { QVERIFY(emu.quit()); }
};

QTEST_GUILESS_MAIN(TestProfileControl)
#include "test_profile_control.moc"
