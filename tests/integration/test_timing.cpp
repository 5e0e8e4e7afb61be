// Timings as a program sees them: bare-metal guest programs (tests/guest/hw) time the
// machine with the beam or a CIA timer and leave their figures in chip RAM; the test
// compares them with the 68000's and the chipset's documented timing and with what the
// peers (vAmiga, WinUAE) do. docs/chipset.md and docs/cpu.md give each rule's source.

#ifndef Q_MOC_RUN
#include "emu/chipset/custom_regs.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#endif

#include <QtTest>
#include <memory>
#include <set>

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

private:
    static constexpr unsigned kIrqEntryCck = 42;
};

QTEST_GUILESS_MAIN(TestTiming)

#include "test_timing.moc"
