// SPDX-License-Identifier: GPL-3.0-or-later
// What Bartman's viewer is shown of a program running in RAM, as a user makes it: a state
// saved while tests/guest/profile/viewer_events.c runs under AROS (its blits, its CIA reads,
// AROS's interrupts between), then `copperline-ctl profile STATE --format bartman` (the
// binary profile WinUAE's savestate mode writes) and the native capture of the same state
// turned into the extension's JSON by `profile-report --format bartman`. Both are read back
// with our readers of the formats and checked:
// - every sample carries its PC, absolute, the program's among them (WinUAE writes the PC of
//   every sample of a state's profile);
// - chipsetFlags is what WinUAE's state writer puts there: OCS 0x100, ECS Agnus 0x101;
// - the events are where the frame had them: a blit's end (BLITIRQ) right after its last
//   blitter clock, the CPU taking interrupts (CPUIRQ) with the interrupt mask (intlev) raised
//   after, INTREQ written, the program's CIA reads with their register, and the CPU's
//   instruction fetches told from its data accesses; no conflicts (one owner a clock).

#include "test_control_fixture.h"

#include "emu/chipset/custom_regs.h"
#include "profiler/report/amigaprofile.h"
#include "profiler/report/bartman_profile.h"
#include "tests/tools/run_process.h"

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace copperline;
using copperline::testing::ControlEmulator;
using nlohmann::json;

namespace {

QString uniqueName(const char* stem) {
    return QString("%1-%2").arg(stem).arg(QCoreApplication::applicationPid());
}

struct Program {
    std::uint32_t base = 0, size = 0; // its code hunk
};

// Boots AROS with the program running for a while and saves the machine; returns where the
// program's code lies.
Program saveRunningProgram(const QString& name, const std::string& state, const QStringList& extra = {}) {
    ControlEmulator emu;
    Program p;
    // Without fast RAM the program loads into slow RAM, on the chip bus, where the slot
    // records see its instruction fetches.
    if (!emu.start(name, QStringList{"--fast", "0", "--run", GUEST_VIEWER_EVENTS} + extra)) return p;
    // The machine stops at the program's first instruction (reason loadseg).
    const json stop = emu.ok("continue");
    if (stop.value("reason", std::string()) != "loadseg") return p;
    const json& hunks = stop["detail"]["hunks"];
    p.base = std::uint32_t(std::stoul(hunks[0]["base"].get<std::string>(), nullptr, 16));
    p.size = hunks[0]["size"].get<std::uint32_t>();
    emu.ok("step_frame", {{"n", 10}});
    emu.ok("state.save", {{"path", state}});
    emu.quit();
    return p;
}

// The checks on one frame's DMA records; `intlevAfterIrq` counts the interrupts after whose
// entry the mask was raised.
struct FrameFindings {
    unsigned blitEnds = 0, blitStarts = 0, cpuIrqs = 0, intreqs = 0, ciaAPra = 0, ciaBTod = 0;
    unsigned fetches = 0, dataReads = 0, programFetchesAtMask0 = 0, programFetches = 0, raisedAfterIrq = 0;
    unsigned conflicts = 0;
    unsigned endsAway = 0; // blit ends not right after a blitter clock
};

FrameFindings examine(const std::vector<bartman::DmaRec>& dma, const Program& prog) {
    FrameFindings f;
    long lastBlitterClock = -1, lastBltsize = -1;
    for (std::size_t i = 0; i < dma.size(); ++i) {
        const bartman::DmaRec& d = dma[i];
        if (d.cfReg != bartman::kNoReg) ++f.conflicts;
        if (d.type == bartman::dma_type::Blitter) lastBlitterClock = long(i);
        if (d.type == bartman::dma_type::Cpu && d.reg == (bartman::dma_cpu::Access | bartman::dma_cpu::Write | 2) &&
            d.addr == 0xDFF000u + reg::BLTSIZE) {
            lastBltsize = long(i);
            ++f.blitStarts;
        }
        if (d.evt & bartman::dma_event::BlitIrq) {
            ++f.blitEnds;
            // The end follows the blit's last bus clock closely (4 clocks after its last
            // main cycle; the final D write may come later still), and its start before.
            if (lastBlitterClock < 0 || long(i) - lastBlitterClock > 8 || (lastBltsize >= 0 && lastBltsize > long(i)))
                ++f.endsAway;
        }
        if (d.evt & bartman::dma_event::CpuIrq) {
            ++f.cpuIrqs;
            // Within the interrupt's entry the mask rises to its level (at least 1).
            for (std::size_t j = i; j < std::min(dma.size(), i + 80); ++j)
                if (dma[j].intlev >= 1) {
                    ++f.raisedAfterIrq;
                    break;
                }
        }
        if (d.evt & bartman::dma_event::IntReq) ++f.intreqs;
        if (d.ciaMask == 1 && d.ciaReg == 0 && d.ciaRw == 0) ++f.ciaAPra;
        if (d.ciaMask == 2 && d.ciaReg == 8 && d.ciaRw == 0) ++f.ciaBTod;
        if (d.type == bartman::dma_type::Cpu) {
            if (d.extra == bartman::dma_extra::CpuCode) {
                ++f.fetches;
                if (d.addr >= prog.base && d.addr < prog.base + prog.size) {
                    ++f.programFetches;
                    if (d.intlev == 0) ++f.programFetchesAtMask0;
                }
            } else if (!(d.reg & bartman::dma_cpu::Write)) {
                ++f.dataReads;
            }
        }
    }
    return f;
}

// `cia`: the format has the CIA fields (the binary; the extension's JSON keeps none).
void checkFindings(const FrameFindings& f, std::size_t frame, bool cia) {
    const QByteArray where = "frame " + QByteArray::number(qulonglong(frame));
    QVERIFY2(f.blitStarts > 0 && f.blitEnds > 0, where);
    // Every blit started ends (the last may end in the next frame, the first may have
    // started in the one before).
    QVERIFY2(f.blitEnds + 1 >= f.blitStarts && f.blitEnds <= f.blitStarts + 1, where + ": " + QByteArray::number(f.blitStarts) + " starts, " + QByteArray::number(f.blitEnds) + " ends");
    QCOMPARE(f.endsAway, 0u);
    QVERIFY2(f.cpuIrqs > 0, where); // the vertical blank at least
    QCOMPARE(f.raisedAfterIrq, f.cpuIrqs);
    QVERIFY2(f.intreqs > 0, where);  // AROS's handlers clear what they served
    if (cia) QVERIFY2(f.ciaAPra > 0 && f.ciaBTod > 0, where);
    QVERIFY2(f.fetches > 0 && f.dataReads > 0, where);
    // The program runs as a task: user mode, every interrupt let in.
    QVERIFY2(f.programFetches > 0, where);
    // (The mask is the one of the instruction running: the RTE that returns to the program
    // refills its prefetch under the handler's mask, a word or two each.)
    QVERIFY2(f.programFetchesAtMask0 + 2 * f.cpuIrqs >= f.programFetches,
             where + ": " + QByteArray::number(f.programFetches - f.programFetchesAtMask0) + " of the program's fetches under a raised mask");
    QVERIFY(f.programFetchesAtMask0 > f.programFetches / 2);
    QCOMPARE(f.conflicts, 0u);
}

} // namespace

class TestBartmanViewer : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string state_;
    Program program_;

    copperline::testing::ProcessResult ctl(const QStringList& args) {
        return copperline::testing::runProcess(COPPERLINE_CTL_EXE, args);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        qputenv("COPPERLINE_ROM_DIR", COPPERLINE_ROM_DIR);
        state_ = tmp_.filePath("running.clstate").toStdString();
        program_ = saveRunningProgram(uniqueName("viewer-ocs"), state_);
        QVERIFY2(program_.size > 0, "the machine did not stop at viewer_events' first instruction");
        QVERIFY(std::filesystem::exists(state_));
    }

    void binaryProfileOfTheState() {
        const QString out = tmp_.filePath("state.profile");
        const auto r = ctl({"profile", QString::fromStdString(state_), "--frames", "2", "--format", "bartman", "--out", out});
        QVERIFY2(r.status == 0, r.err.constData());
        const BartmanProfile p = readBartmanProfileFile(out.toStdString());
        QCOMPARE(p.frames.size(), std::size_t(2));
        QVERIFY(p.sectionBases.empty()); // a state's profile: PCs are absolute
        for (std::size_t i = 0; i < p.frames.size(); ++i) {
            const bartman::Frame& f = p.frames[i];
            QCOMPARE(f.chipsetFlags, 0x100u);
            const std::vector<ProfileSample> samples = decodeProfileArray(f.profileArray);
            QVERIFY(samples.size() > 1000);
            std::size_t inProgram = 0, inRom = 0;
            for (const ProfileSample& s : samples) {
                QCOMPARE(s.stack.size(), std::size_t(1)); // the PC alone, as WinUAE writes it
                const std::uint32_t pc = s.stack[0];
                QVERIFY2(pc < 0x1000000 || pc == 0x7FFFFFFF, qPrintable(QString::number(pc, 16)));
                inProgram += pc >= program_.base && pc < program_.base + program_.size;
                inRom += pc >= 0xF80000 && pc < 0x1000000;
            }
            QVERIFY2(inProgram > samples.size() / 4, qPrintable(QString("%1 of %2 samples in the program").arg(inProgram).arg(samples.size())));
            QVERIFY(inRom > 0); // AROS's interrupt code
            checkFindings(examine(f.dma, program_), i, true);
        }
    }

    void extensionJsonOfTheState() {
        const QString dir = tmp_.filePath("native");
        auto r = ctl({"profile", QString::fromStdString(state_), "--frames", "2", "--out", dir});
        QVERIFY2(r.status == 0, r.err.constData());
        // The capture says the chipset and lists the CIA reads the records mark.
        std::ifstream lines((dir + "/profile.jsonl").toStdString());
        std::string line;
        unsigned framesWithCia = 0;
        while (std::getline(lines, line)) {
            const json rec = json::parse(line);
            if (!rec.contains("cia_accesses")) continue;
            QCOMPARE(rec["registers"]["chipset_flags"].get<unsigned>() & 3u, 0u);
            for (const json& a : rec["cia_accesses"]) {
                QCOMPARE(a.size(), std::size_t(6));
                QVERIFY(a[2].get<unsigned>() >= 1 && a[2].get<unsigned>() <= 3);
                QVERIFY(a[3].get<unsigned>() <= 15);
            }
            framesWithCia += !rec["cia_accesses"].empty();
        }
        QCOMPARE(framesWithCia, 2u);

        const QString out = tmp_.filePath("state.amigaprofile");
        r = ctl({"profile-report", dir, "--format", "bartman", "--out", out});
        QVERIFY2(r.status == 0, r.err.constData());
        const AmigaProfileInput in = readAmigaProfileFile(out.toStdString());
        QCOMPARE(in.frames.size(), std::size_t(2));
        for (std::size_t i = 0; i < in.frames.size(); ++i) {
            const AmigaProfileFrame& f = in.frames[i];
            QCOMPARE(f.chipsetFlags, 0x100u);
            std::size_t inProgram = 0;
            for (const PcTraceEntry& e : f.pcTrace) {
                QVERIFY2(e.pc != 0xFFFFFFFF, "a sample without its PC");
                inProgram += e.pc >= program_.base && e.pc < program_.base + program_.size;
            }
            QVERIFY(inProgram > f.pcTrace.size() / 4);
            checkFindings(examine(f.dma, program_), i, false);
            // The extension lists the instructions at the samples' PCs from the objdump text.
            for (const PcTraceEntry& e : f.pcTrace)
                if (e.pc >= program_.base && e.pc < program_.base + program_.size) {
                    std::string at(" ");
                    at.append(QString::number(e.pc, 16).toStdString()).append(":\t");
                    QVERIFY2(in.objdump.find(at) != std::string::npos, at.c_str());
                }
        }
    }

    void ecsAgnusIsFlagged() {
        // 1 MB of chip RAM needs the ECS Agnus: WinUAE's mask has its bit.
        const std::string state = tmp_.filePath("ecs.clstate").toStdString();
        QVERIFY(saveRunningProgram(uniqueName("viewer-ecs"), state, {"--chip", "1M"}).size > 0);
        const QString out = tmp_.filePath("ecs.profile");
        const auto r = ctl({"profile", QString::fromStdString(state), "--frames", "1", "--format", "bartman", "--out", out});
        QVERIFY2(r.status == 0, r.err.constData());
        const BartmanProfile p = readBartmanProfileFile(out.toStdString());
        QCOMPARE(p.frames.size(), std::size_t(1));
        QCOMPARE(p.frames[0].chipsetFlags, 0x101u);
        QCOMPARE(p.chipMem.size(), std::size_t(1u << 20));
    }
};

QTEST_GUILESS_MAIN(TestBartmanViewer)
#include "test_bartman_viewer.moc"
