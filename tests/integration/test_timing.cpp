// SPDX-License-Identifier: GPL-3.0-or-later
// Timings as a program sees them: bare-metal guest programs (tests/guest/hw) time the
// machine with the beam or a CIA timer and leave their figures in chip RAM; the test
// compares them with the 68000's and the chipset's documented timing and with what the
// peers (vAmiga, WinUAE) do. docs/chipset.md and docs/cpu.md give each rule's source.

#ifndef Q_MOC_RUN
#include "emu/chipset/custom_regs.h"
#include "emu/machine.h"
#include "emu/media/adf.h"
#include "emu/media/file_bytes.h"
#endif

#include <QtTest>
#include <memory>
#include <set>
#include <utility>
#include <vector>

using namespace copperline;

namespace {

std::unique_ptr<Machine> boot(const char* program) {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(program));
    return m;
}

void runUntilStopped(Machine& m, int maxFrames) {
    for (int f = 0; f < maxFrames && !m.cpu().stopped(); ++f)
        m.runFrame();
}

QString list(const std::vector<unsigned>& v) {
    QStringList out;
    for (unsigned x : v)
        out << QString::number(x);
    return out.join(' ');
}

} // namespace

class TestTiming : public QObject {
    Q_OBJECT
private slots:
    void interruptAcknowledgeIsAPlainRead() {
        // The acknowledge is an ordinary 4-clock read of the ROM's vector table tail
        // (WinUAE iack_cycle, vAmiga 4 clocks): no E-clock wait, so the entry costs the
        // same at every E phase. It used to wait for the E clock like a CIA access, 6 to
        // 15 clocks more by phase. From the first VHPOSR read (at t, in a 16-clock
        // move.w abs.l,d0) to the handler's: the INTREQ write of the 20-clock
        // move.w #imm,abs.l is at t+20, the level reaches the pins 3 CCK later, at t+26,
        // too late for that MOVE's IPL sample, so a NOP retires (to t+32); the 44-clock
        // sequence ends at t+76 with the handler's first two words fetched, and its
        // move.w abs.l reads VHPOSR after two more fetches, at t+84: 42 CCK.
        auto m = boot(HW_IRQ_TIMING);
        runUntilStopped(*m, 20);
        QVERIFY(m->cpu().stopped());
        const unsigned n = m->spyWord(0x7F000);
        QCOMPARE(n, 20u);
        std::vector<unsigned> cck;
        for (unsigned i = 0; i < n; ++i)
            cck.push_back(m->spyWord(0x7F002 + 2 * i));
        const std::set<unsigned> distinct(cck.begin(), cck.end());
        QVERIFY2(distinct.size() == 1,
                 qPrintable("the entry depends on the E phase: " + list(cck)));
        QCOMPARE(cck[0], kIrqEntryCck);
    }

    void copperWantingE0TakesE1() {
        // The Copper may not have hpos $E0; when it wants the bus there, nobody gets that
        // clock (the CPU waits too) and the Copper takes $E1, the odd clock after it
        // (vAmiga AgnusDma.cpp: the slot is BLOCKED; WinUAE custom.cpp agrees). The CPU
        // polls chip RAM meanwhile, so an idle $E0 would be its. Without
        // that it lost $E0 and $E2 (refresh) and resumed at the next line's $00.
        // WAIT ($40,$D0) wakes at $CE (the comparator leads by 2), its wake-up clock is
        // $D0, then the MOVEs fetch at $D2/$D4, $D6/$D8, $DA/$DC, $DE/$E1 and, on the next
        // line, $00/$02 (refresh has the odd $01-$05).
        auto m = boot(HW_COPPER_E0);
        m->agnus().setRecordSlots(true);
        for (int f = 0; f < 3; ++f)
            m->runFrame();
        const auto& rec = m->agnus().committedRecords();
        auto at = [&](unsigned v, unsigned h) -> const SlotRecord& {
            return rec[std::size_t(v) * Agnus::kMaxLineCck + h];
        };
        std::vector<std::pair<unsigned, unsigned>> writes;
        for (unsigned v = 0x40; v < 0x42; ++v)
            for (unsigned h = 0; h < 227; ++h)
                if (at(v, h).owner == BusOwner::Copper && (at(v, h).flags & slot_flag::Write))
                    writes.push_back({v, h});
        const std::vector<std::pair<unsigned, unsigned>> want = {
            {0x40, 0xD4}, {0x40, 0xD8}, {0x40, 0xDC}, {0x40, 0xE1},
            {0x41, 0x02}, {0x41, 0x06}, {0x41, 0x0A}, {0x41, 0x0E}};
        QCOMPARE(writes, want);
        QCOMPARE(at(0x40, 0xE0).owner, BusOwner::Copper); // held, no transfer: not the CPU's
        QCOMPARE(at(0x40, 0xDE).owner, BusOwner::Copper);
        QCOMPARE(at(0x40, 0xE2).owner, BusOwner::Refresh);
        // Where the Copper sleeps, $E0 is the CPU's whenever it asks.
        unsigned cpuAtE0 = 0;
        for (unsigned v = 0x50; v < 0x120; ++v)
            cpuAtE0 += at(v, 0xE0).owner == BusOwner::Cpu;
        QVERIFY(cpuAtE0 > 0);
    }

    void copperResumedByCopenRunsTheNewList() {
        // Copper DMA off across a vertical blank, COP1LC rewritten at line 292, COPEN on
        // again with no strobe (hw_copper_copen, the pattern of a trackloaded game demo).
        // The restart waits for Copper DMA and then takes COP1LC as it is: the new list
        // runs (WinUAE: the vertical-blank strobe stays pending until Copper DMA allows its
        // first fetch; vAmiga: COP1LC writes go into the PC while the Copper has not been
        // active in the frame). Resuming the old PC ran the old list, which writes COP1LC
        // back to itself: the new list never ran.
        auto m = boot(HW_COPPER_COPEN);
        for (int f = 0; f < 8 && !m->spyWord(0x7F000); ++f)
            m->runFrame();
        QCOMPARE(m->spyWord(0x7F000), std::uint16_t(1));
        for (int f = 0; f < 3; ++f) {
            m->runFrame();
            QCOMPARE(m->denise().spy(reg::COLOR00), std::uint16_t(0x0F0));
            QCOMPARE(m->copper().cop1lc(), 0x7E100u);
        }
    }

    void vhposrReadsFiveClocksAhead() {
        // A VHPOSR read returns the beam 5 clocks after the clock the CPU was granted
        // (vAmiga peekVHPOSR "five cycles ahead"; UAE reads the same), and positions 0 and
        // 1 still show the old line: the line number turns over at position 2. It read 1
        // ahead and turned the line over at 0, 4 lower and 2 clocks later than the peers.
        auto m = boot(HW_VHPOSR);
        m->agnus().setRecordSlots(true);
        std::vector<std::pair<unsigned, unsigned>> granted; // (line, hpos) of each read
        for (int f = 0; f < 4 && !m->cpu().stopped(); ++f) {
            m->runFrame();
            const auto& rec = m->agnus().committedRecords();
            for (unsigned v = 0; v < m->agnus().committedLines(); ++v)
                for (unsigned h = 0; h < 227; ++h) {
                    const SlotRecord& r = rec[std::size_t(v) * Agnus::kMaxLineCck + h];
                    if (r.owner == BusOwner::Cpu && r.reg == reg::VHPOSR &&
                        !(r.flags & slot_flag::Write))
                        granted.push_back({v, h});
                }
        }
        QVERIFY(m->cpu().stopped());
        QCOMPARE(unsigned(m->spyWord(0x70000)), 400u);
        // The wait loop's reads come first; the stored ones are the last 400.
        QVERIFY(granted.size() >= 400);
        const std::size_t first = granted.size() - 400;
        unsigned wrapped = 0;
        for (unsigned i = 0; i < 400; ++i) {
            const auto [gv, gh] = granted[first + i];
            unsigned h = gh + 5, v = gv;
            if (h >= 227) {
                h -= 227;
                if (h >= 2) ++v;
                ++wrapped;
            }
            const std::uint16_t want = std::uint16_t((v & 0xFF) << 8 | h);
            const std::uint16_t got = m->spyWord(0x70002 + 2 * i);
            if (got != want)
                QFAIL(qPrintable(QString("read %1 granted at line $%2 hpos $%3: $%4, expected $%5")
                                     .arg(i)
                                     .arg(gv, 0, 16)
                                     .arg(gh, 0, 16)
                                     .arg(got, 4, 16, QChar('0'))
                                     .arg(want, 4, 16, QChar('0'))));
        }
        QVERIFY(wrapped >= 2); // some reads fall where the position has turned over
    }

    void borderShowsFromTheBlankEnd() {
        // A red border, no bitplanes (hw_border_left). The horizontal blank runs from CCK
        // $0F to $2D: Denise's hardwired blank ends at lores pixel $5D of its counter,
        // 46.5 CCK (WinUAE custom.cpp), and FS-UAE shows colour from $2E; the HRM's $35
        // blanked 7 clocks of border both peers show. Pixels are 4 per CCK.
        auto m = boot(HW_BORDER_LEFT);
        for (int f = 0; f < 3; ++f)
            m->runFrame();
        const VideoField& f = m->field(true);
        QCOMPARE(f.width, 908u);
        const std::uint32_t red = 0xFFFF0000u, black = 0xFF000000u;
        for (const unsigned line : {0x30u, 0x80u, 0x120u}) {
            const std::uint32_t* row = f.pixels.data() + std::size_t(line) * f.width;
            auto cck = [&](unsigned h) { return row[4 * h]; };
            QCOMPARE(cck(0x0E), red);
            QCOMPARE(cck(0x0F), black);
            QCOMPARE(cck(0x2D), black);
            for (unsigned h = 0x2E; h < 0x36; ++h)
                QCOMPARE(cck(h), red);
            QCOMPARE(row[4 * 0x2E + 3], red);
        }
        // The vertical blank stays black whatever the border.
        QCOMPARE(f.pixels[std::size_t(0x10) * f.width + 4 * 0x80], black);
    }

    void trackloaderTimesItsOwnLoad() {
        // hw_trackloader turns DF0's motor on, waits for /RDY, reads tracks 0-3 with
        // word-synchronised DMA (6,200 words each), stepping once with a 3 ms delay and no
        // settle wait, and times it all with CIA-B's TOD (one count a line, 227 CCK). Then
        // it steps eight times at varied points of the revolution and times, after the
        // 3 ms delay, the first sync word. Mechanics (vAmiga's A1010 figures): /RDY 380 ms
        // after the motor starts (WinUAE: 18 frames of lines, 359 ms, plus a little
        // random), a step 3 ms and the head's settle 9 ms, with noise under the head
        // meanwhile. /RDY used to come at once and the head to read at once.
        auto m = boot(HW_TRACKLOADER);
        AdfImage disk;
        disk.name = "pattern";
        disk.bytes.resize(adf::kImageBytes);
        for (std::size_t i = 0; i < disk.bytes.size(); ++i)
            disk.bytes[i] = std::uint8_t(i * 7 + (i >> 9));
        m->insertDisk(0, std::move(disk));
        auto word = [&](unsigned i) { return unsigned(m->spyWord(0x7F000 + 2 * i)); };
        constexpr unsigned kDone = 19;
        for (int f = 0; f < 300 && !word(kDone); ++f)
            m->runFrame();
        QCOMPARE(word(kDone), 1u);
        const double lineMs = 227 / 3546.895;
        // 380 ms is 5,937.6 lines; the status lines follow at the next line, the poll and
        // the TOD reads add a line more.
        const unsigned ready = word(0);
        QVERIFY2(ready >= 5937 && ready <= 5940,
                 qPrintable(QString("/RDY after %1 lines").arg(ready)));
        for (unsigned t = 0; t < 4; ++t) {
            // A track: to find a sync word, up to a sector and the track gap (1,088 + 532
            // bytes, 25.9 ms), or the 12 ms of the step on track 2 first; then 6,200 words
            // at 32 us, 198.4 ms.
            const double ms = word(1 + t) * lineMs;
            QVERIFY2(ms >= 198.4 - 0.2 && ms <= 198.4 + 25.9 + (t == 2 ? 12 : 0) + 0.2,
                     qPrintable(QString("track %1 took %2 ms").arg(t).arg(ms)));
        }
        // The whole load: the four tracks and the step delay, plus a few lines of the
        // loader's own work between them.
        const unsigned tracks = word(1) + word(2) + word(3) + word(4);
        QVERIFY2(word(9) >= tracks + 47 && word(9) <= tracks + 47 + 8,
                 qPrintable(QString("load %1 lines, tracks %2").arg(word(9)).arg(tracks)));
        QVERIFY(word(10) >= 11); // the last track's sectors came in, each with its sync words
        // Settling: nothing syncs before 3 + 9 ms from the step pulse, 9 ms after the delay
        // (141 lines), and a sync passes within 25.9 ms after that.
        for (unsigned i = 0; i < 8; ++i) {
            const double ms = word(11 + i) * lineMs;
            QVERIFY2(ms >= 9.0 - lineMs && ms <= 9.0 + 25.9 + 0.2,
                     qPrintable(
                         QString("step %1: the first sync %2 ms after the delay").arg(i).arg(ms)));
        }
    }

private:
    static constexpr unsigned kIrqEntryCck = 42;
};

QTEST_GUILESS_MAIN(TestTiming)

#include "test_timing.moc"
