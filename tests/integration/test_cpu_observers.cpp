// SPDX-License-Identifier: GPL-3.0-or-later
// Several observers share the CPU's hook points through the machine.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#endif

#include <QtTest>

using namespace copperline;

namespace {

struct Counter : m68k::Observer {
    unsigned before = 0, retired = 0, exceptions = 0;
    void beforeInstruction(const m68k::InstructionInfo&, const m68k::Registers&) override { ++before; }
    void instructionRetired(const m68k::RetireInfo&) override { ++retired; }
    void exceptionTaken(const m68k::ExceptionInfo&) override { ++exceptions; }
};

// moveq #0,d0; loop: addq.l #1,d0; trap #0 every time round (the handler is an rte at
// $2000); bra loop.
const std::vector<std::uint8_t> kProgram = {0x70, 0x00, 0x52, 0x80, 0x4E, 0x40, 0x60, 0xFA};

} // namespace

class TestCpuObservers : public QObject {
    Q_OBJECT
private slots:
    void eachObserverGetsItsHooks() {
        Machine m;
        m.bootBareMetal(kProgram);
        m.pokeByte(0x2000, 0x4E);  // rte
        m.pokeByte(0x2001, 0x73);
        for (unsigned b = 0; b < 4; ++b) m.pokeByte(0x80 + b, std::uint8_t(0x00002000u >> (24 - 8 * b)));  // TRAP #0
        Counter a, b;
        m.attachCpuObserver(&a, m68k::kHookBefore | m68k::kHookRetire);
        m.attachCpuObserver(&b, m68k::kHookException);
        for (int i = 0; i < 30; ++i) m.stepInstruction();
        QVERIFY(a.before >= 20);
        QCOMPARE(a.exceptions, 0u);
        QVERIFY(b.exceptions >= 5);
        QCOMPARE(b.before, 0u);
        QCOMPARE(b.retired, 0u);

        // Detach one: the other goes on; detach both: the CPU's hooks are off.
        m.detachCpuObserver(&a);
        const unsigned aBefore = a.before, bExceptions = b.exceptions;
        for (int i = 0; i < 30; ++i) m.stepInstruction();
        QCOMPARE(a.before, aBefore);
        QVERIFY(b.exceptions > bExceptions);
        m.detachCpuObserver(&b);
        const unsigned bAfter = b.exceptions;
        for (int i = 0; i < 30; ++i) m.stepInstruction();
        QCOMPARE(b.exceptions, bAfter);
    }
};

QTEST_GUILESS_MAIN(TestCpuObservers)
#include "test_cpu_observers.moc"
