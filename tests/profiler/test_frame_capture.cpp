// SPDX-License-Identifier: GPL-3.0-or-later
// The per-frame capture against a guest program with a known load (tests/guest/capture/
// capture_load.c): bitplanes, a Copper list, one blit a frame from start_blit() with the
// CPU polling chip RAM in wait_blit(), and its wait for the vertical blank marked idle.
// What the capture wrote is read back with the readers in profiler/capture and checked
// against what the program did and measured itself.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/capture/frame_capture.h"
#endif

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <map>

using namespace copperline;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kReport = 0x7F000;

// The ELF's function symbols (run addresses: bare-metal programs are linked at $1000).
std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> functions() {
    QProcess nm;
    nm.start(M68K_NM, {"-S", "--defined-only", CAPTURE_LOAD_ELF});
    nm.waitForFinished();
    std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> out;
    for (const QByteArray& line : nm.readAllStandardOutput().split('\n')) {
        const auto f = line.simplified().split(' ');
        if (f.size() == 4 && (f[2] == "T" || f[2] == "t"))
            out[f[3].toStdString()] = {f[0].toUInt(nullptr, 16), f[1].toUInt(nullptr, 16)};
    }
    return out;
}

std::unique_ptr<Machine> bootLoad() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(CAPTURE_LOAD_BIN));
    return m;
}

std::uint32_t peekLong(const Machine& m, std::uint32_t a) {
    return std::uint32_t(m.spyWord(a)) << 16 | m.spyWord(a + 2);
}

FrameCapture::Context context() {
    return {};
}

CaptureOptions options(const std::string& path, unsigned frames) {
    CaptureOptions o;
    o.path = path;
    o.frames = frames;
    return o;
}

} // namespace

class TestFrameCapture : public QObject {
    Q_OBJECT
private slots:
    void twoHundredFramesOfAKnownLoad() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("cap").toStdString();
        auto m = bootLoad();
        // Let the program set up its display and run its first frames.
        for (int i = 0; i < 5; ++i)
            m->runFrame();
        // Stand just after one of its waits ended, in the frame it ended in.
        const std::uint32_t before = peekLong(*m, kReport);
        while (peekLong(*m, kReport) == before)
            m->stepInstruction();
        const std::uint32_t iterationsAtStart = peekLong(*m, kReport);
        QVERIFY(iterationsAtStart >= 1);
        const std::uint64_t firstFrame = m->frame();

        CaptureOptions o = options(dir, 200);
        o.recordSlots = true;
        o.memory = true;
        o.screenshots = CaptureOptions::Screenshots::Last;
        FrameCapture capture(*m, o, context());
        while (capture.status().active())
            m->stepInstruction();
        QCOMPARE(capture.status().state, CaptureStatus::State::Done);
        QCOMPARE(capture.status().framesWritten, 200u);

        const CaptureFiles files = readCapture(dir);
        QCOMPARE(files.frames.size(), std::size_t(200));
        QVERIFY(files.markers.empty());
        QCOMPARE(files.summary.at("frames_written").get<unsigned>(), 200u);
        QCOMPARE(files.summary.at("state").get<std::string>(), std::string("done"));

        const auto fn = functions();
        QVERIFY(fn.count("start_blit") && fn.count("wait_blit"));
        const auto inside = [&](const std::string& name, std::uint32_t pc) {
            const auto [at, size] = fn.at(name);
            return pc >= at && pc < at + size;
        };
        std::uint64_t blitsSeen = 0;
        for (std::size_t i = 0; i < files.frames.size(); ++i) {
            const json& f = files.frames[i];
            QCOMPARE(f.at("seq").get<std::uint64_t>(), std::uint64_t(i));
            QCOMPARE(f.at("frame").get<std::uint64_t>(), firstFrame + i);
            const std::uint64_t len = f.at("length_cck").get<std::uint64_t>();
            QCOMPARE(len, std::uint64_t(313 * 227));
            // The clocks per owner add up to the frame.
            std::uint64_t owners = 0;
            for (const auto& [k, v] : f.at("owner_cck").items())
                owners += v.get<std::uint64_t>();
            QCOMPARE(owners, len);
            QVERIFY(f.at("owner_cck").at("bitplane").get<std::uint64_t>() > 0);
            QVERIFY(f.at("owner_cck").at("copper").get<std::uint64_t>() > 0);
            // The CPU's split adds up to the frame, in CPU cycles, two per colour clock.
            const json& c = f.at("cpu").at("cycles");
            QCOMPARE(c.at("instruction").get<std::uint64_t>() + c.at("wait").get<std::uint64_t>() +
                         c.at("irq").get<std::uint64_t>() + c.at("stopped").get<std::uint64_t>(),
                     2 * len);
            // Busy and idle make the frame.
            QCOMPARE(f.at("busy_cck").get<std::uint64_t>() + f.at("idle_cck").get<std::uint64_t>(),
                     len);
            QCOMPARE(f.at("idle_source").get<std::string>(), std::string("uaelib"));
            // The grids decode to the frame's shape, and the owner grid to the counts.
            const auto grid = decodeGrid(f.at("grids").at("owners").get<std::string>(), 313, 227,
                                         kBusOwnerCount - 1);
            std::uint64_t bitplane = 0;
            for (std::uint8_t g : grid)
                bitplane += g == std::uint8_t(BusOwner::Bitplane);
            QCOMPARE(bitplane, f.at("owner_cck").at("bitplane").get<std::uint64_t>());
            // Waits: with BLTPRI set the CPU waits for the blitter, in wait_blit.
            const std::uint64_t waitCck = f.at("cpu").at("cycles").at("wait").get<std::uint64_t>() / 2;
            std::uint64_t byOwner = 0, byKind = 0;
            for (const auto& [k, v] : f.at("cpu_wait_classes").at("by_owner").items())
                byOwner += v.get<std::uint64_t>();
            for (const auto& [k, v] : f.at("cpu_wait_classes").at("by_kind").items())
                byKind += v.get<std::uint64_t>();
            QCOMPARE(byOwner, waitCck);
            QCOMPARE(byKind, waitCck);
            QVERIFY(waitCck > 0);
            QVERIFY(f.at("cpu_wait_classes").at("by_owner").at("blitter").get<std::uint64_t>() > 0);
            const auto& top = f.at("stall_pcs").at(0);
            // With BLTPRI set the blitter takes every clock it can use: the first access after
            // the BLTSIZE write, in start_blit, waits for most of the blit at once.
            QVERIFY2(inside("start_blit", std::stoul(top.at("pc").get<std::string>(), nullptr, 16)),
                     top.dump().c_str());
            QVERIFY(top.at("wait_cck").get<std::uint64_t>() > 1000);
            const auto waits = decodeGrid(f.at("grids").at("cpu_waits").get<std::string>(), 313, 227, 1);
            std::uint64_t marked = 0;
            for (std::uint8_t w : waits)
                marked += w;
            QCOMPARE(marked, waitCck);
            // The program's blit: 16 words by 64 rows, A to D, minterm $F0, from start_blit.
            for (const json& b : f.at("blits")) {
                QCOMPARE(b.at("width_words").get<unsigned>(), 16u);
                QCOMPARE(b.at("height").get<unsigned>(), 64u);
                QCOMPARE(b.at("channels").get<std::string>(), std::string("AD"));
                QCOMPARE(b.at("minterm").get<std::string>(), std::string("0xF0"));
                QCOMPARE(b.at("formula").get<std::string>(), std::string("A"));
                QVERIFY(inside("start_blit", std::stoul(b.at("start_pc").get<std::string>(), nullptr, 16)));
                if (b.at("finished").get<bool>()) {
                    QCOMPARE(b.at("words").at("a").get<unsigned>(), 16u * 64u);
                    QCOMPARE(b.at("words").at("d").get<unsigned>(), 16u * 64u);
                }
                ++blitsSeen;
            }
            QVERIFY(f.contains("slots"));
        }

        // One blit a frame, each reported in the frame it ran in.
        QVERIFY(blitsSeen >= 199);

        // The idle clocks the capture saw match what the program measured from the beam,
        // within a line: frame e+j holds the end of wait j and the start of wait j+1.
        std::uint32_t iterations = peekLong(*m, kReport);
        // One iteration a frame, heavy ones included (the mapping below relies on it).
        QVERIFY2(
            iterations >= iterationsAtStart + 199 && iterations <= iterationsAtStart + 201,
            qPrintable(QString("%1 iterations from %2").arg(iterations).arg(iterationsAtStart)));
        unsigned compared = 0;
        for (std::size_t i = 1; i + 1 < files.frames.size(); ++i) {
            const json& f = files.frames[i];
            // The iteration whose wait ended at this frame's start.
            const std::uint64_t j =
                iterationsAtStart - 1 + (f.at("frame").get<std::uint64_t>() - firstFrame);
            if (j + 1 >= 400) break;
            const std::uint32_t to = peekLong(*m, kReport + 8 + 1600 + 4 * std::uint32_t(j));
            const std::uint32_t from = peekLong(*m, kReport + 8 + 4 * std::uint32_t(j + 1));
            const std::int64_t measured = std::int64_t(to) + (313 * 227 - std::int64_t(from));
            const std::int64_t captured = f.at("idle_cck").get<std::int64_t>();
            QVERIFY2(std::llabs(measured - captured) <= 227,
                     qPrintable(QString("frame %1: measured %2, captured %3")
                                    .arg(i)
                                    .arg(measured)
                                    .arg(captured)));
            ++compared;
        }
        QVERIFY(compared > 150);

        // The memory replayer rebuilds chip RAM at the capture's end from the baseline and
        // the slot records, byte for byte.
        MemoryReplayer replay(dir);
        replay.replayTo(replay.lastCck());
        QVERIFY(replay.writesApplied() > 1000);
        const std::uint32_t chipSize = m->chipRam().size();
        QCOMPARE(replay.chip().size(), std::size_t(chipSize));
        // The machine stands at the first instruction boundary after the last frame: run
        // a fresh machine to exactly the capture's end instead, clock for clock.
        auto ref = bootLoad();
        while (ref->agnus().cck() <= replay.lastCck())
            ref->stepInstruction();
        // ref has run past lastCck by part of an instruction; compare where neither moved.
        std::size_t differ = 0;
        for (std::uint32_t a = 0; a < chipSize; ++a)
            if (replay.chip()[a] != m->chipRam().data()[a] &&
                replay.chip()[a] != ref->chipRam().data()[a])
                ++differ;
        QCOMPARE(differ, std::size_t(0));
        const fs::path shot = fs::path(dir) / capture.finish().at("screenshot").get<std::string>();
        QVERIFY(fs::file_size(shot) > 100);
    }

    // NTSC: lines of 227 and 228 clocks alternate, in slot files of rows 228 records wide.
    // The frames have NTSC's line counts and lengths, end to end, and the memory replayer
    // rebuilds chip RAM exactly as the machine had it at clocks in the middle of blits,
    // where every record that lands on the wrong clock would show.
    void anNtscCaptureReplaysMemoryClockForClock() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("ntsc").toStdString();
        Machine::Config config;
        config.ntsc = true;
        const auto boot = [&config] {
            auto m = std::make_unique<Machine>(config);
            m->bootBareMetal(readFileBytes(NTSC_WRITES_BIN));
            for (int i = 0; i < 3; ++i)
                m->runFrame();
            return m;
        };
        auto m = boot();
        CaptureOptions o = options(dir, 4);
        o.recordSlots = true;
        o.memory = true;
        FrameCapture capture(*m, o, context());
        while (capture.status().active())
            m->stepInstruction();
        const CaptureFiles files = readCapture(dir);
        QCOMPARE(files.frames.size(), std::size_t(4));
        for (std::size_t i = 0; i < files.frames.size(); ++i) {
            const json& f = files.frames[i];
            const unsigned lines = f.at("lines").get<unsigned>();
            QVERIFY2(lines == 262 || lines == 263, f.dump().c_str());
            QCOMPARE(f.at("line_cck").get<unsigned>(), 228u);
            // Half the lines long: 227.5 clocks a line on average.
            const std::uint64_t length = f.at("length_cck").get<std::uint64_t>();
            QVERIFY(length == lines * 227ull + lines / 2 || length == lines * 227ull + (lines + 1) / 2);
            if (i) {
                const json& p = files.frames[i - 1];
                QCOMPARE(f.at("first_cck").get<std::uint64_t>(),
                         p.at("first_cck").get<std::uint64_t>() + p.at("length_cck").get<std::uint64_t>());
            }
        }
        MemoryReplayer replay(dir);
        auto ref = boot();
        const std::uint64_t startCck = files.summary.at("started").at("capture_cck").get<std::uint64_t>();
        while (ref->agnus().cck() < startCck)
            ref->stepInstruction();
        // Every 37 lines or so, through lines of both lengths.
        unsigned compared = 0;
        for (std::uint64_t target = startCck + 5000; target < replay.lastCck(); target += 37 * 227 + 101) {
            while (ref->agnus().cck() < target)
                ref->stepInstruction();
            const std::uint64_t c = ref->agnus().cck();
            replay.replayTo(c - 1);
            const auto& chip = ref->chipRam();
            std::size_t differ = 0;
            for (std::size_t a = 0; a < chip.size(); ++a)
                differ += replay.chip()[a] != chip.data()[a];
            QVERIFY2(differ == 0, qPrintable(QString("at cck %1 (line %2): %3 bytes differ")
                                                 .arg(c)
                                                 .arg(ref->agnus().vpos())
                                                 .arg(differ)));
            ++compared;
        }
        QVERIFY(compared >= 20);
    }

    void triggerFiresOnTheFirstHeavyFrame() {
        QTemporaryDir tmp;
        // Find the heavy frames with an untriggered capture.
        std::vector<std::uint64_t> busy;
        std::uint64_t first = 0;
        {
            // After the program's set-up (whose frames, with no idle marked, are busy).
            auto m = bootLoad();
            for (int i = 0; i < 5; ++i)
                m->runFrame();
            FrameCapture c(*m, options(tmp.filePath("all").toStdString(), 120), context());
            while (c.status().active())
                m->runFrame();
            for (const json& f : readCapture(tmp.filePath("all").toStdString()).frames) {
                if (busy.empty()) first = f.at("frame").get<std::uint64_t>();
                busy.push_back(f.at("busy_cck").get<std::uint64_t>());
            }
        }
        // Light frames are far below the heavy ones.
        const std::uint64_t light = *std::min_element(busy.begin(), busy.end());
        const std::uint64_t heavy = *std::max_element(busy.begin(), busy.end());
        QVERIFY2(heavy > 2 * light, qPrintable(QString("light %1 heavy %2").arg(light).arg(heavy)));
        const std::uint64_t threshold = (light + heavy) / 2;
        std::uint64_t firstHeavy = 0;
        for (std::size_t i = 0; i < busy.size(); ++i)
            if (busy[i] > threshold) {
                firstHeavy = first + i;
                break;
            }
        QVERIFY(firstHeavy > 0);

        auto m = bootLoad();
        for (int i = 0; i < 5; ++i)
            m->runFrame();
        CaptureOptions o = options(tmp.filePath("trig").toStdString(), 3);
        o.trigger.kind = CaptureOptions::Trigger::Kind::BusyCckOver;
        o.trigger.value = threshold;
        FrameCapture c(*m, o, context());
        // Armed, it writes nothing until the heavy frame.
        while (m->frame() < firstHeavy) {
            m->runFrame();
            QCOMPARE(c.status().state, CaptureStatus::State::Armed);
            QCOMPARE(readCapture(tmp.filePath("trig").toStdString()).frames.size(), std::size_t(0));
        }
        while (c.status().active())
            m->runFrame();
        QVERIFY(c.status().triggered);
        QCOMPARE(*c.status().triggeredAt, firstHeavy);
        const auto files = readCapture(tmp.filePath("trig").toStdString());
        QCOMPARE(files.frames.size(), std::size_t(3));
        QCOMPARE(files.frames[0].at("frame").get<std::uint64_t>(), firstHeavy);
        QCOMPARE(files.summary.at("triggered_at").get<std::uint64_t>(), firstHeavy);
    }

    void watchingChangesNothing() {
        QTemporaryDir tmp;
        auto a = bootLoad(), b = bootLoad();
        CaptureOptions o = options(tmp.filePath("c").toStdString(), 60);
        o.recordSlots = true;
        FrameCapture c(*b, o, context());
        for (int i = 0; i < 60; ++i) {
            a->runFrame();
            b->runFrame();
            QCOMPARE(a->stateHash(), b->stateHash());
        }
    }

    void refusesWhatItMustNotOverwrite() {
        QTemporaryDir tmp;
        auto m = bootLoad();
        // A file.
        const std::string file = tmp.filePath("file").toStdString();
        std::ofstream(file) << "mine";
        QVERIFY_THROWS_EXCEPTION(CaptureError, FrameCapture(*m, options(file, 5), context()));
        // A folder that is not empty.
        const std::string full = tmp.filePath("full").toStdString();
        fs::create_directories(full);
        std::ofstream(full + "/keep") << "mine";
        QVERIFY_THROWS_EXCEPTION(CaptureError, FrameCapture(*m, options(full, 5), context()));
        // A folder that cannot be made, for root too: its parent is a regular file.
        QVERIFY_THROWS_EXCEPTION(CaptureError, FrameCapture(*m, options(file + "/cap", 5), context()));
        // Memory with a trigger; frames out of range.
        CaptureOptions bad = options(tmp.filePath("bad").toStdString(), 5);
        bad.memory = true;
        bad.trigger.kind = CaptureOptions::Trigger::Kind::Frame;
        QVERIFY_THROWS_EXCEPTION(CaptureError, FrameCapture(*m, bad, context()));
        QVERIFY_THROWS_EXCEPTION(
            CaptureError, FrameCapture(*m, options(tmp.filePath("z").toStdString(), 0), context()));
        QVERIFY_THROWS_EXCEPTION(
            CaptureError,
            FrameCapture(*m, options(tmp.filePath("z").toStdString(), 100'001), context()));
        // Nothing was touched.
        std::ifstream in(file);
        std::string text;
        in >> text;
        QCOMPARE(text, std::string("mine"));
        QVERIFY(fs::exists(full + "/keep"));
        QCOMPARE(std::distance(fs::directory_iterator(full), fs::directory_iterator()),
                 std::ptrdiff_t(1));
    }

    // A machine with Zorro II fast RAM: "memory": true writes fast-ram.bin beside chip and
    // slow RAM, profile.json says where the board sat, and the replayer reads it back as
    // the fast RAM at the capture's start.
    void memorySnapshotsHoldFastRam() {
        QTemporaryDir tmp;
        Machine::Config c;
        c.fastRamBytes = 1u << 20;
        auto m = std::make_unique<Machine>(c);
        m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        m->powerOn();
        for (int i = 0; i < 600 && !m->fastRamBase(); ++i) m->runFrame(); // the ROM configures it
        QCOMPARE(m->fastRamBase(), 0x200000u);
        m->pokeByte(0x2ABCDE, 0x77);
        const std::vector<std::uint8_t> atStart(m->fastRam().begin(), m->fastRam().end());
        const std::string dir = tmp.filePath("fast").toStdString();
        CaptureOptions o = options(dir, 3);
        o.memory = true;
        o.recordSlots = true;
        {
            FrameCapture capture(*m, o, context());
            while (capture.status().active()) m->runFrame();
            capture.finish();
        }
        QCOMPARE(readFileBytes(dir + "/fast-ram.bin"), atStart);
        const json summary = json::parse(std::ifstream(dir + "/profile.json"));
        QCOMPARE(summary["fast_ram"].value("base", 0u), 0x200000u);
        QCOMPARE(summary["files"]["memory"].size(), std::size_t(3));
        MemoryReplayer replay(dir);
        QCOMPARE(replay.fastBase(), 0x200000u);
        QCOMPARE(replay.fastAtStart(), atStart);
        QCOMPARE(replay.fastAtStart()[0xABCDE], std::uint8_t(0x77));
        // A fast-ram.bin that does not match profile.json is refused by name.
        writeFileBytes(dir + "/fast-ram.bin", std::vector<std::uint8_t>(4096));
        try {
            MemoryReplayer bad(dir);
            QFAIL("a short fast-ram.bin was accepted");
        } catch (const CaptureError& e) {
            QVERIFY2(std::string(e.what()).find("fast-ram.bin") != std::string::npos, e.what());
        }
    }

    void repositionWritesItsMarker() {
        QTemporaryDir tmp;
        auto m = bootLoad();
        for (int i = 0; i < 3; ++i)
            m->runFrame();
        const auto state = m->saveState();
        FrameCapture c(*m, options(tmp.filePath("r").toStdString(), 10), context());
        for (int i = 0; i < 4; ++i)
            m->runFrame();
        m->loadState(state);
        c.reposition();
        while (c.status().active())
            m->runFrame();
        const auto files = readCapture(tmp.filePath("r").toStdString());
        QCOMPARE(files.markers.size(), std::size_t(1));
        QCOMPARE(files.markers[0].at("marker").get<std::string>(), std::string("reposition"));
        QCOMPARE(files.markers[0].at("frame").get<std::uint64_t>(), std::uint64_t(3));
        // The frame numbers repeat after the marker; the sequence numbers never do.
        const std::size_t before = files.markerBefore[0];
        QVERIFY(before >= 3);
        QCOMPARE(files.frames[before].at("frame").get<std::uint64_t>(), std::uint64_t(3));
        for (std::size_t i = 0; i < files.frames.size(); ++i)
            QCOMPARE(files.frames[i].at("seq").get<std::uint64_t>(), std::uint64_t(i));
        // The replayer refuses to replay past a reposition (its baseline no longer holds).
        QVERIFY_THROWS_EXCEPTION(CaptureError, MemoryReplayer(tmp.filePath("r").toStdString()));
    }

    void gridsRoundTrip() {
        std::vector<std::uint8_t> cells(5 * 228, 0);
        for (unsigned h = 0; h < 227; ++h)
            cells[h] = std::uint8_t(h % 3);
        std::copy(cells.begin(), cells.begin() + 228, cells.begin() + 228); // row 1 repeats row 0
        for (unsigned h = 0; h < 227; ++h)
            cells[2 * 228 + h] = 8;
        const std::string text = encodeGrid(cells.data(), 5, 227, 228);
        const auto back = decodeGrid(text, 5, 227, 8);
        for (unsigned v = 0; v < 5; ++v)
            for (unsigned h = 0; h < 227; ++h)
                QCOMPARE(back[v * 227 + h], cells[v * 228 + h]);
        QVERIFY(text.find(";;") != std::string::npos); // the repeated row is empty
        QVERIFY_THROWS_EXCEPTION(CaptureError, decodeGrid("a226", 1, 227, 8));  // short row
        QVERIFY_THROWS_EXCEPTION(CaptureError, decodeGrid("a228", 1, 227, 8));  // long row
        QVERIFY_THROWS_EXCEPTION(CaptureError, decodeGrid("z227", 1, 227, 8));  // not an owner
        QVERIFY_THROWS_EXCEPTION(CaptureError, decodeGrid("a227;", 1, 227, 8)); // extra row
        QVERIFY_THROWS_EXCEPTION(CaptureError, decodeGrid(";a227", 2, 227, 8)); // empty first row
    }

    void mintermFormulas() {
        QCOMPARE(mintermFormula(0xF0), std::string("A"));
        QCOMPARE(mintermFormula(0xCC), std::string("B"));
        QCOMPARE(mintermFormula(0xAA), std::string("C"));
        QCOMPARE(mintermFormula(0xCA), std::string("AB+!AC")); // the HRM's cookie cut
        QCOMPARE(mintermFormula(0x0F), std::string("!A"));
        QCOMPARE(mintermFormula(0x00), std::string("0"));
        QCOMPARE(mintermFormula(0xFF), std::string("1"));
        QCOMPARE(mintermFormula(0x3C), std::string("A!B+!AB")); // A xor B
        // Every formula evaluates back to its minterm.
        for (unsigned mt = 0; mt < 256; ++mt) {
            const std::string f = mintermFormula(std::uint8_t(mt));
            unsigned got = 0;
            for (unsigned n = 0; n < 8; ++n) {
                const bool in[3] = {(n & 4) != 0, (n & 2) != 0, (n & 1) != 0};
                bool sum = f == "1";
                if (f != "0" && f != "1") {
                    std::size_t i = 0;
                    while (i <= f.size()) {
                        bool prod = true;
                        while (i < f.size() && f[i] != '+') {
                            bool neg = false;
                            if (f[i] == '!') {
                                neg = true;
                                ++i;
                            }
                            const bool v = in[f[i] - 'A'];
                            prod = prod && (neg ? !v : v);
                            ++i;
                        }
                        sum = sum || prod;
                        ++i;
                    }
                }
                if (sum) got |= 1u << n;
            }
            QCOMPARE(got, mt);
        }
    }
};

QTEST_GUILESS_MAIN(TestFrameCapture)
#include "test_frame_capture.moc"
