// SPDX-License-Identifier: GPL-3.0-or-later
// A capture cut short (an emulator killed, a crash, a power cut) still reads: profile.json
// is on disk from the start and says the capture had not finished; readCapture takes every
// whole record of a profile.jsonl cut anywhere in its last record, leaves out a frame whose
// own files (slots, samples, .meta) are cut, and says what it left out in one short line
// without the cut bytes; a file damaged in the middle is refused, naming the file and the
// offset. sampler.bin and system-modules.bin, which grow by appends, read to their last
// whole record. The capture is a real one of tests/guest/capture/capture_load.c.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/capture/frame_capture.h"
#include "profiler/report/system_report.h"
#include "profiler/sampling/sample_reader.h"
#include "profiler/sampling/sampler.h"
#include "profiler/sampling/system_sampler.h"
#endif

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace copperline;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr unsigned kFrames = 4;

std::vector<std::uint8_t> bytesOf(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeBytes(const fs::path& p, const std::vector<std::uint8_t>& b) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void cutTo(const fs::path& p, std::size_t size) {
    fs::resize_file(p, size);
}

// A copy of the capture to damage.
std::string copyOf(const std::string& from, const QTemporaryDir& tmp, const char* name) {
    const std::string to = tmp.filePath(name).toStdString();
    fs::remove_all(to);
    fs::copy(from, to);
    return to;
}

// The samples the whole frames' records say they have.
std::uint64_t recordedSamples(const CaptureFiles& c) {
    std::uint64_t n = 0;
    for (const json& r : c.frames) n += r.at("samples_count").get<std::uint64_t>();
    return n;
}

} // namespace

class TestCaptureCut : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string capture_;
    json inProgress_; // profile.json as it stood after the first frame

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        capture_ = tmp_.filePath("capture").toStdString();
        Machine m;
        m.bootBareMetal(readFileBytes(CAPTURE_LOAD_BIN));
        for (int i = 0; i < 3; ++i) m.runFrame();
        SamplerOptions so;
        so.registers = true;
        Sampler sampler(m, so);
        SystemSampler system(m, SystemSamplerOptions{});
        FrameCapture::Context c;
        c.sidecars = {&sampler, &system};
        CaptureOptions o;
        o.path = capture_;
        o.frames = kFrames;
        o.recordSlots = true;
        o.screenshots = CaptureOptions::Screenshots::Every;
        FrameCapture capture(m, o, std::move(c));
        // On disk from the start, marked as written while the capture records.
        const fs::path summary = fs::path(capture_) / "profile.json";
        QVERIFY(fs::exists(summary));
        QCOMPARE(json::parse(std::ifstream(summary)).at("state").get<std::string>(), std::string("recording"));
        while (capture.status().framesWritten == 0) m.runFrame();
        QCOMPARE(capture.status().framesWritten, 1u);
        inProgress_ = json::parse(std::ifstream(summary));
        while (capture.status().active()) m.runFrame();
        capture.finish();
        QVERIFY(!fs::exists(fs::path(capture_) / "profile.json.tmp"));
    }

    void aSummaryWrittenWhileRecordingSaysSoAndHoldsWhatConvertersNeed() {
        QCOMPARE(inProgress_.at("state").get<std::string>(), std::string("recording"));
        QCOMPARE(inProgress_.at("frames_written").get<unsigned>(), 1u);
        const json final = json::parse(std::ifstream(fs::path(capture_) / "profile.json"));
        QCOMPARE(final.at("state").get<std::string>(), std::string("done"));
        QCOMPARE(final.at("frames_written").get<unsigned>(), kFrames);
        // What a converter reads from the summary is there from the first frame on.
        for (const char* key : {"machine", "options", "owners", "started", "sampling", "sampler", "files"})
            QVERIFY2(inProgress_.contains(key), key);
        QCOMPARE(inProgress_["started"], final["started"]);
        QCOMPARE(inProgress_["sampling"]["layouts"], final["sampling"]["layouts"]);
        QCOMPARE(inProgress_["sampling"]["registers"], json(true));
        // The whole, finished capture reads with nothing to say.
        const CaptureFiles c = readCapture(capture_);
        QVERIFY(c.finished);
        QVERIFY(c.cuts.empty());
        QCOMPARE(c.frames.size(), std::size_t(kFrames));
        QVERIFY(captureNote(c).empty());
    }

    void aProfileJsonlCutAnywhereInItsLastRecordKeepsTheWholeOnes() {
        const std::string dir = copyOf(capture_, tmp_, "cut-jsonl");
        const fs::path jsonl = fs::path(dir) / "profile.jsonl";
        const std::vector<std::uint8_t> all = bytesOf(jsonl);
        QCOMPARE(all.back(), std::uint8_t('\n'));
        std::size_t lastStart = all.size() - 1;
        while (lastStart > 0 && all[lastStart - 1] != '\n') --lastStart;
        const std::size_t length = all.size() - lastStart;
        QVERIFY(length > 1000);
        // As written before the end: a killed capture's summary.
        std::ofstream(fs::path(dir) / "profile.json") << inProgress_.dump(2) << "\n";
        const std::string lastLine(all.begin() + std::ptrdiff_t(lastStart), all.end() - 1);
        const std::string tail = lastLine.substr(lastLine.size() / 2, 40);
        unsigned cuts = 0;
        // Every offset near the ends, and a few dozen between (a prime step, so that they fall
        // inside strings, numbers and keys alike).
        const std::size_t step = length / 29 | 1;
        for (std::size_t keep = 0; keep <= length;
             keep = (keep < 3 || keep + 3 >= length) ? keep + 1 : std::min(keep + step, length - 3)) {
            writeBytes(jsonl, {all.begin(), all.begin() + std::ptrdiff_t(lastStart + keep)});
            CaptureFiles c;
            try {
                c = readCapture(dir);
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QString("cut at %1 of the last record: %2").arg(keep).arg(e.what())));
            }
            QVERIFY(!c.finished);
            if (keep == 0 || keep == length) {
                // At a line's end: nothing cut, every whole record there.
                QVERIFY(c.cuts.empty());
                QCOMPARE(c.frames.size(), std::size_t(keep ? kFrames : kFrames - 1));
                continue;
            }
            ++cuts;
            QCOMPARE(c.frames.size(), std::size_t(kFrames - 1));
            QCOMPARE(c.cuts.size(), std::size_t(1));
            const std::string note = captureNote(c);
            QVERIFY2(note.find("profile.jsonl: cut at byte") != std::string::npos, note.c_str());
            QVERIFY2(note.find("did not finish: 3 whole frame(s)") != std::string::npos, note.c_str());
            // One short line, and none of the cut bytes in it.
            QVERIFY2(note.size() < 300 && note.find('\n') == std::string::npos, note.c_str());
            QVERIFY2(note.find("\"frame\":") == std::string::npos, note.c_str());
            QVERIFY2(keep < lastLine.size() / 2 + 40 || note.find(tail) == std::string::npos, note.c_str());
            // The converters see the same whole frames.
            const SystemSampleFile precise = preciseSystemSamples(c);
            QCOMPARE(std::uint64_t(precise.samples.size()), recordedSamples(c));
        }
        QVERIFY(cuts > 10);
    }

    void aLastFrameWhoseOwnFileIsCutIsLeftOut() {
        const CaptureFiles whole = readCapture(capture_);
        const json& last = whole.frames[kFrames - 1];
        struct Case {
            const char* field;
            std::function<std::size_t(std::size_t)> size; // the cut size from the whole one
        };
        const std::vector<Case> cases = {
            {"slots", [](std::size_t n) { return n - 24; }},
            {"slots", [](std::size_t n) { return n / 2 + 5; }},
            {"slots", [](std::size_t) { return std::size_t(0); }},
            {"samples", [](std::size_t n) { return n - 3; }},  // inside a word
            {"samples", [](std::size_t n) { return n - 4; }},  // a register missing
            {"samples", [](std::size_t n) { return n - 72; }}, // a whole record missing
            {"samples_meta", [](std::size_t n) { return n - 32; }},
            {"samples_meta", [](std::size_t) { return std::size_t(7); }},
            {"screenshot", [](std::size_t n) { return n - 1; }},
        };
        for (const Case& k : cases) {
            const std::string dir = copyOf(capture_, tmp_, "cut-sidecar");
            const fs::path file = fs::path(dir) / last.at(k.field).get<std::string>();
            cutTo(file, k.size(fs::file_size(file)));
            const CaptureFiles c = readCapture(dir);
            QCOMPARE(c.frames.size(), std::size_t(kFrames - 1));
            QCOMPARE(c.framesLeftOut, std::size_t(1));
            const std::string note = captureNote(c);
            QVERIFY2(note.find(file.filename().string()) != std::string::npos, note.c_str());
            QVERIFY2(note.find("from seq 3 (frame " + std::to_string(last.at("frame").get<unsigned>()) + ") on") !=
                         std::string::npos,
                     note.c_str());
            QVERIFY2(note.find("the capture was cut: 3 whole frame(s)") != std::string::npos, note.c_str());
            QCOMPARE(std::uint64_t(preciseSystemSamples(c).samples.size()), recordedSamples(c));
        }
        // The last two cut (a power cut loses what the disk had not written yet): both left out.
        const std::string dir = copyOf(capture_, tmp_, "cut-two");
        cutTo(fs::path(dir) / whole.frames[2].at("samples").get<std::string>(), 4096);
        fs::remove(fs::path(dir) / whole.frames[3].at("slots").get<std::string>());
        const CaptureFiles c = readCapture(dir);
        QCOMPARE(c.frames.size(), std::size_t(2));
        QCOMPARE(c.framesLeftOut, std::size_t(2));
        QCOMPARE(std::uint64_t(preciseSystemSamples(c).samples.size()), recordedSamples(c));
    }

    void aFileDamagedInTheMiddleIsRefusedByNameAndOffset() {
        const CaptureFiles whole = readCapture(capture_);
        {
            // Garbage inside the second line of four.
            const std::string dir = copyOf(capture_, tmp_, "damaged-jsonl");
            const fs::path jsonl = fs::path(dir) / "profile.jsonl";
            std::vector<std::uint8_t> all = bytesOf(jsonl);
            const std::size_t second = std::size_t(std::find(all.begin(), all.end(), '\n') - all.begin()) + 1;
            for (std::size_t i = 0; i < 16; ++i) all[second + 100 + i] = std::uint8_t("\x01garbage\x02\x7f}{]["[i % 14]);
            writeBytes(jsonl, all);
            try {
                readCapture(dir);
                QFAIL("a profile.jsonl damaged in the middle was read");
            } catch (const CaptureError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("profile.jsonl:2 (byte " + std::to_string(second) + ")") != std::string::npos,
                         what.c_str());
                QVERIFY2(what.find("garbage") == std::string::npos, what.c_str());
            }
        }
        {
            // A slot file longer than its frame's records.
            const std::string dir = copyOf(capture_, tmp_, "damaged-slots");
            const fs::path slotFile = fs::path(dir) / whole.frames[1].at("slots").get<std::string>();
            std::vector<std::uint8_t> b = bytesOf(slotFile);
            b.resize(b.size() + 24, 0);
            writeBytes(slotFile, b);
            QVERIFY_THROWS_EXCEPTION(CaptureError, readCapture(dir));
        }
        {
            // A cut sidecar with whole frames after it: damage in the middle, not a cut.
            const std::string dir = copyOf(capture_, tmp_, "damaged-middle");
            const fs::path bin = fs::path(dir) / whole.frames[1].at("samples").get<std::string>();
            cutTo(bin, 4096);
            try {
                readCapture(dir);
                QFAIL("a cut sidecar in the middle was read");
            } catch (const CaptureError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find(bin.filename().string() + ": cut at byte 4096") != std::string::npos, e.what());
                QVERIFY2(what.find("damaged in the middle") != std::string::npos, e.what());
            }
        }
        {
            // A .meta with the wrong magic.
            const std::string dir = copyOf(capture_, tmp_, "damaged-meta");
            const fs::path meta = fs::path(dir) / whole.frames[2].at("samples_meta").get<std::string>();
            std::vector<std::uint8_t> b = bytesOf(meta);
            b[0] = 'X';
            writeBytes(meta, b);
            try {
                readCapture(dir);
                QFAIL("a .meta with the wrong magic was read");
            } catch (const CaptureError& e) {
                QVERIFY2(std::string(e.what()).find(meta.filename().string() + ": offset 0") != std::string::npos,
                         e.what());
            }
        }
    }

    // A number too large for any integer or double, in profile.json or in a record, is refused
    // as damage without quoting it (the JSON library's message repeats the whole number;
    // capture_fuzzer found a 1,017-byte refusal).
    void aNumberTooLargeIsRefusedWithoutQuotingIt() {
        const std::string huge = "1" + std::string(2000, '0');
        const std::string text = [&] {
            const std::vector<std::uint8_t> b = bytesOf(fs::path(capture_) / "profile.jsonl");
            return std::string(b.begin(), b.end());
        }();
        for (const bool inSummary : {true, false}) {
            const std::string dir = copyOf(capture_, tmp_, inSummary ? "huge-summary" : "huge-record");
            if (inSummary)
                std::ofstream(fs::path(dir) / "profile.json", std::ios::trunc) << "{\"state\":\"done\",\"x\":" << huge << "}";
            else
                std::ofstream(fs::path(dir) / "profile.jsonl", std::ios::trunc) << "{\"frame\":" << huge << "}\n" << text;
            try {
                readCapture(dir);
                QFAIL("a number of 2,001 digits was read");
            } catch (const CaptureError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("a number too large to read") != std::string::npos, what.c_str());
                QVERIFY2(what.find("0000000000") == std::string::npos, what.c_str());
                QVERIFY2(what.find(inSummary ? "profile.json:" : "profile.jsonl:1") != std::string::npos, what.c_str());
            }
        }
    }

    // A field of the wrong type is refused as damage by name, as a cut or missing one is: the
    // readers let no JSON library exception out (capture_fuzzer's contract).
    void aFieldOfTheWrongTypeIsRefusedByName() {
        const fs::path summary = fs::path(capture_) / "profile.json";
        const json whole = json::parse(std::ifstream(summary));
        const std::vector<std::uint8_t> jsonl = bytesOf(fs::path(capture_) / "profile.jsonl");
        const std::string text(jsonl.begin(), jsonl.end());
        const json first = json::parse(text.substr(0, text.find('\n')));
        const auto refused = [&](const json& newSummary, const json& newFirst, const char* says) {
            const std::string dir = copyOf(capture_, tmp_, "typed");
            std::ofstream(fs::path(dir) / "profile.json", std::ios::trunc) << newSummary.dump();
            std::ofstream(fs::path(dir) / "profile.jsonl", std::ios::trunc)
                << newFirst.dump() << text.substr(text.find('\n'));
            try {
                readCapture(dir);
            } catch (const CaptureError& e) {
                return QString::fromStdString(e.what()).contains(says);
            }
            return false;
        };
        json s = whole;
        s["state"] = 5;
        QVERIFY(refused(s, first, "state is not a string"));
        s = whole;
        s["sampling"]["registers"] = "yes";
        QVERIFY(refused(s, first, "sampling.registers"));
        for (const char* key : {"seq", "frame", "first_cck"}) {
            json r = first;
            r[key] = "one";
            QVERIFY2(refused(whole, r, "each a whole number"), key);
        }
        for (const char* key : {"lines", "line_cck"}) {
            json r = first;
            r[key] = json::array();
            QVERIFY2(refused(whole, r, key), key);
        }
        // One of the samples' pair of files named and the other not (capture_fuzzer's
        // regression input sidecar-name-missing: the reader looked the missing name up as if
        // it were there).
        for (const std::string key : {"samples", "samples_meta"}) {
            json r = first;
            r[key == "samples" ? "samples_meta" : "samples"] = "frame.bin";
            r.erase(key);
            QVERIFY2(refused(whole, r, (key + " is not a file name").c_str()), key.c_str());
        }
    }

    void anAppendedStreamReadsToItsLastWholeRecord() {
        // (system-modules.bin is the same stream, of modules alone: a bare-metal program has none.)
        for (const char* name : {"sampler.bin"}) {
            const std::vector<std::uint8_t> all = bytesOf(fs::path(capture_) / name);
            const SystemSampleFile whole = parseSystemSamples(all);
            QVERIFY(whole.samples.size() > 10);
            std::size_t seen = 0;
            for (std::size_t size = sampler_format::kHeaderBytes; size <= all.size(); ++size) {
                std::string cut;
                const SystemSampleFile f =
                    parseSystemSamples(std::span<const std::uint8_t>(all.data(), size), &cut);
                QVERIFY(f.samples.size() <= whole.samples.size() && f.modules.size() <= whole.modules.size());
                if (!cut.empty()) {
                    ++seen;
                    QVERIFY2(cut.find("cut at byte " + std::to_string(size)) == 0, cut.c_str());
                    // Without `cut` the same bytes are refused.
                    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                             parseSystemSamples(std::span<const std::uint8_t>(all.data(), size)));
                }
                // What it read is what the whole stream holds up to there.
                for (std::size_t i = 0; i < f.samples.size(); ++i) QCOMPARE(f.samples[i].cck, whole.samples[i].cck);
            }
            QVERIFY(seen > 0);
            // An unknown record type in the middle is damage, not a cut.
            std::vector<std::uint8_t> bad = all;
            bad[sampler_format::kHeaderBytes] = 0x7E;
            std::string cut;
            QVERIFY_THROWS_EXCEPTION(std::runtime_error, parseSystemSamples(bad, &cut));
        }
    }
};

QTEST_APPLESS_MAIN(TestCaptureCut)
#include "test_capture_cut.moc"
