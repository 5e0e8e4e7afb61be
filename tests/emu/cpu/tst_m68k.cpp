// SPDX-License-Identifier: GPL-3.0-or-later
// Unit tests of the 68000 core for what the SingleStepTests vectors do not cover:
// interrupts, trace, divide by zero, STOP, RESET, double fault and wait states.
// Programs are hand-assembled opcode words placed in a flat test memory.

#include <QtTest/QtTest>

// moc cannot parse C++20 concepts; it only needs the test class below.
#ifndef Q_MOC_RUN
#include "emu/cpu/m68k.h"
#endif

#include <cstdint>
#include <vector>

using namespace copperline::m68k;

namespace {

struct Access {
    BusOp op;
    FunctionCode fc;
    std::uint32_t address;
    std::uint64_t cycle;
    unsigned waits;
};

class TestBus {
public:
    TestBus() : mem(1u << 20, 0) {}

    unsigned access(BusCycle& c) {
        std::uint32_t a = c.address & 0xFFFFE;
        unsigned w = 0;
        if (c.address >= waitFrom && c.address < waitTo) w = waitStates;
        switch (c.op) {
        case BusOp::Read: c.data = std::uint16_t((mem[a] << 8) | mem[a + 1]); break;
        case BusOp::Write:
            if (c.upper) mem[a] = std::uint8_t(c.data >> 8);
            if (c.lower) mem[a + 1] = std::uint8_t(c.data);
            break;
        case BusOp::TestAndSet:
            c.data = std::uint16_t((mem[a] << 8) | mem[a + 1]);
            if (c.upper)
                mem[a] |= 0x80;
            else
                mem[a + 1] |= 0x80;
            break;
        case BusOp::InterruptAcknowledge: c.data = iackAnswer; break;
        }
        log.push_back({c.op, c.fc, c.address, c.cycle, w});
        return w;
    }
    void resetAsserted(std::uint64_t from, std::uint64_t to) {
        resetFrom = from;
        resetTo = to;
        ++resets;
    }

    void word(std::uint32_t at, std::uint16_t v) {
        mem[at] = std::uint8_t(v >> 8);
        mem[at + 1] = std::uint8_t(v);
    }
    void words(std::uint32_t at, std::initializer_list<std::uint16_t> ws) {
        for (std::uint16_t w : ws) {
            word(at, w);
            at += 2;
        }
    }
    void longword(std::uint32_t at, std::uint32_t v) {
        word(at, std::uint16_t(v >> 16));
        word(at + 2, std::uint16_t(v));
    }
    std::uint16_t peekWord(std::uint32_t at) const {
        return std::uint16_t((mem[at] << 8) | mem[at + 1]);
    }
    std::uint32_t peekLong(std::uint32_t at) const {
        return (std::uint32_t(peekWord(at)) << 16) | peekWord(at + 2);
    }
    const Access* find(BusOp op) const {
        for (const Access& a : log)
            if (a.op == op) return &a;
        return nullptr;
    }

    std::vector<std::uint8_t> mem;
    std::vector<Access> log;
    std::uint16_t iackAnswer = kAutovector;
    std::uint32_t waitFrom = 0, waitTo = 0;
    unsigned waitStates = 0;
    std::uint64_t resetFrom = 0, resetTo = 0;
    int resets = 0;
};

class Recorder final : public Observer {
public:
    void instructionRetired(const RetireInfo& r) override { retired.push_back(r); }
    void exceptionTaken(const ExceptionInfo& e) override { exceptions.push_back(e); }
    std::vector<RetireInfo> retired;
    std::vector<ExceptionInfo> exceptions;
};

constexpr std::uint32_t kCode = 0x1000;
constexpr std::uint32_t kStack = 0x8000;
constexpr std::uint32_t kHandler = 0x2000;
constexpr std::uint16_t kNop = 0x4E71;
constexpr std::uint16_t kRte = 0x4E73;

// A machine: bus, CPU, reset vectors, handlers for every vector at kHandler + 16 * n
// (each a NOP, NOP, RTE), and a NOP sled at kCode.
struct Rig {
    TestBus bus;
    Cpu<TestBus> cpu{bus};

    Rig() {
        bus.longword(0, kStack);
        bus.longword(4, kCode);
        for (unsigned v = 2; v < 256; ++v) {
            std::uint32_t h = kHandler + 16 * v;
            bus.longword(v * 4, h);
            bus.words(h, {kNop, kNop, kRte});
        }
        for (std::uint32_t a = kCode; a < kCode + 0x100; a += 2)
            bus.word(a, kNop);
    }
    // Starts at kCode with the given SR, the queue filled as after a jump.
    void start(std::uint16_t sr) {
        cpu.reset();
        Registers r = cpu.registers();
        r.sr = sr;
        r.a[7] = kStack;
        r.usp = 0x7000;
        cpu.setRegisters(r);
        bus.log.clear();
    }
    static std::uint32_t handler(unsigned vector) { return kHandler + 16 * vector; }
};

} // namespace

class TestM68k : public QObject {
    Q_OBJECT

private slots:
    void resetReadsVectors() {
        Rig m;
        m.cpu.reset();
        Registers r = m.cpu.registers();
        QCOMPARE(r.a[7], kStack);
        QCOMPARE(r.pc, kCode + 4);
        QCOMPARE(r.sr, std::uint16_t(0x2700));
        QCOMPARE(r.ird, kNop);
    }

    void autovectorInterrupt() {
        Rig m;
        m.start(0x2000);
        m.cpu.setIpl(3, m.cpu.cycles());
        m.cpu.step(); // NOP: IPL seen during its prefetch
        std::uint64_t t0 = m.cpu.cycles();
        std::uint32_t n = m.cpu.step();
        QCOMPARE(n, 44u); // MC68000 User's Manual table 8-14: interrupt 44 clocks
        const Access* iack = m.bus.find(BusOp::InterruptAcknowledge);
        QVERIFY(iack);
        QCOMPARE(iack->fc, FunctionCode::InterruptAcknowledge);
        QCOMPARE(iack->address, 0xFFFFF0u | (3u << 1));
        QCOMPARE(iack->cycle, t0 + 10);
        Registers r = m.cpu.registers();
        QCOMPARE(r.pc, Rig::handler(kVectorAutovector1 + 2) + 4);
        QCOMPARE(r.sr, std::uint16_t(0x2300));
        QCOMPARE(r.a[7], kStack - 6);
        QCOMPARE(m.bus.peekWord(kStack - 6), std::uint16_t(0x2000));
        QCOMPARE(m.bus.peekLong(kStack - 4), kCode + 2); // the instruction after the NOP
    }

    void interruptLatency() {
        // IPL is sampled during the last bus cycle of an instruction: a change in time for
        // that sample is taken after the instruction, a later one after the next.
        for (int late = 0; late < 2; ++late) {
            Rig m;
            m.start(0x2000);
            std::uint64_t t = m.cpu.cycles();
            m.cpu.setIpl(2, t + (late ? 3 : 2));
            m.cpu.step(); // NOP, prefetch at t
            QCOMPARE(m.bus.find(BusOp::InterruptAcknowledge) != nullptr, false);
            m.cpu.step();
            bool taken = m.bus.find(BusOp::InterruptAcknowledge) != nullptr;
            QCOMPARE(taken, !late);
            if (late) {
                m.cpu.step();
                QVERIFY(m.bus.find(BusOp::InterruptAcknowledge));
            }
        }
    }

    void maskingAndPriority() {
        Rig m;
        m.start(0x2300);
        m.cpu.setIpl(3, m.cpu.cycles());
        for (int i = 0; i < 4; ++i)
            m.cpu.step();
        QVERIFY(!m.bus.find(BusOp::InterruptAcknowledge)); // level 3 masked by mask 3
        m.cpu.setIpl(5, m.cpu.cycles());
        m.cpu.step();
        m.cpu.step();
        const Access* iack = m.bus.find(BusOp::InterruptAcknowledge);
        QVERIFY(iack);
        QCOMPARE(iack->address & 0xE, 5u << 1);
        QCOMPARE(m.cpu.registers().sr & 0x0700, 0x0500);
    }

    void vectoredAndSpurious() {
        {
            Rig m;
            m.bus.iackAnswer = 64;
            m.start(0x2000);
            m.cpu.setIpl(4, m.cpu.cycles());
            m.cpu.step();
            m.cpu.step();
            QCOMPARE(m.cpu.registers().pc, Rig::handler(64) + 4);
        }
        {
            Rig m;
            m.bus.iackAnswer = kSpurious;
            m.start(0x2000);
            m.cpu.setIpl(4, m.cpu.cycles());
            m.cpu.step();
            m.cpu.step();
            QCOMPARE(m.cpu.registers().pc, Rig::handler(kVectorSpurious) + 4);
        }
    }

    void level7IsEdgeTriggered() {
        Rig m;
        m.start(0x2700);
        m.cpu.setIpl(7, m.cpu.cycles());
        m.cpu.step();
        m.cpu.step(); // NMI taken despite mask 7
        QCOMPARE(m.cpu.registers().pc, Rig::handler(kVectorAutovector1 + 6) + 4);
        m.bus.log.clear();
        for (int i = 0; i < 4; ++i)
            m.cpu.step(); // NOP, NOP, RTE, NOP: level held at 7
        QVERIFY(!m.bus.find(BusOp::InterruptAcknowledge));
        m.cpu.setIpl(0, m.cpu.cycles());
        m.cpu.step();
        m.cpu.setIpl(7, m.cpu.cycles());
        m.cpu.step();
        m.cpu.step();
        QVERIFY(m.bus.find(BusOp::InterruptAcknowledge)); // a new edge
    }

    void traceAfterInstruction() {
        Rig m;
        m.start(0xA000); // T=1, S=1
        Recorder rec;
        m.cpu.setObserver(&rec, kHookException | kHookRetire);
        m.cpu.step(); // NOP
        std::uint32_t n = m.cpu.step();
        QCOMPARE(n, 34u);
        QCOMPARE(rec.exceptions.size(), std::size_t(1));
        QCOMPARE(unsigned(rec.exceptions[0].vector), unsigned(kVectorTrace));
        QCOMPARE(rec.exceptions[0].pushedPc, kCode + 2);
        QCOMPARE(rec.exceptions[0].pushedSr, std::uint16_t(0xA000));
        QCOMPARE(m.cpu.registers().sr & 0x8000, 0);
    }

    void traceBeforeInterrupt() {
        // Trace and an interrupt pending after one instruction: the trace frame is
        // stacked first, then the interrupt's on top of it, so the interrupt handler runs
        // first and returns into the trace handler.
        Rig m;
        m.start(0x8000); // user mode, trace on, mask 0
        Recorder rec;
        m.cpu.setObserver(&rec, kHookException);
        m.cpu.setIpl(1, m.cpu.cycles());
        m.cpu.step();
        m.cpu.step();
        m.cpu.step();
        QCOMPARE(rec.exceptions.size(), std::size_t(2));
        QCOMPARE(unsigned(rec.exceptions[0].vector), unsigned(kVectorTrace));
        QCOMPARE(unsigned(rec.exceptions[1].vector), unsigned(kVectorAutovector1));
        QCOMPARE(rec.exceptions[1].pushedPc, Rig::handler(kVectorTrace));
    }

    void divideByZero() {
        Rig m;
        m.bus.words(kCode, {0x80C1, kNop}); // divu.w d1,d0
        m.start(0x2700);
        Registers r = m.cpu.registers();
        r.d[0] = 1234;
        r.d[1] = 0;
        m.cpu.setRegisters(r);
        std::uint32_t n = m.cpu.step();
        QCOMPARE(n, 38u); // MC68000 User's Manual table 8-13: divide by zero 38 clocks
        Registers o = m.cpu.registers();
        QCOMPARE(o.pc, Rig::handler(kVectorZeroDivide) + 4);
        QCOMPARE(m.bus.peekLong(kStack - 4), kCode + 2);
        QCOMPARE(o.d[0], 1234u);
    }

    void stopAndWake() {
        Rig m;
        m.bus.words(kCode, {0x4E72, 0x2000, kNop}); // stop #$2000
        m.start(0x2700);
        QCOMPARE(m.cpu.step(), 4u);
        QVERIFY(m.cpu.stopped());
        std::uint64_t t = m.cpu.cycles();
        m.cpu.runUntil(t + 100);
        QVERIFY(m.cpu.stopped());
        QCOMPARE(m.cpu.cycles(), t + 100);
        m.cpu.setIpl(2, m.cpu.cycles());
        std::uint64_t wake = m.cpu.cycles();
        while (m.cpu.stopped())
            m.cpu.step();
        // The stopped CPU samples IPL every two clocks; the interrupt sequence follows.
        QVERIFY(m.cpu.cycles() - wake <= 2 + 44);
        QCOMPARE(m.cpu.registers().pc, Rig::handler(kVectorAutovector1 + 1) + 4);
        QCOMPARE(m.bus.peekLong(kStack - 4), kCode + 4); // resumes after STOP
    }

    void stopWithTrace() {
        Rig m;
        // Traced when it starts, STOP is followed by the trace exception at once.
        m.bus.words(kCode, {0x4E72, 0x2700}); // stop #$2700
        m.start(0xA700);
        m.cpu.step();
        std::uint32_t n = m.cpu.step();
        QCOMPARE(n, 34u);
        QCOMPARE(m.cpu.registers().pc, Rig::handler(kVectorTrace) + 4);
        QCOMPARE(m.bus.peekLong(kStack - 4), kCode + 4);
    }

    void resetInstruction() {
        Rig m;
        m.bus.words(kCode, {0x4E70, kNop}); // reset
        m.start(0x2700);
        std::uint64_t t = m.cpu.cycles();
        QCOMPARE(m.cpu.step(), 132u);
        QCOMPARE(m.bus.resets, 1);
        QCOMPARE(m.bus.resetFrom, t + 4);
        QCOMPARE(m.bus.resetTo - m.bus.resetFrom, std::uint64_t(124));
        QCOMPARE(m.cpu.resetInstructions(), std::uint64_t(1));
    }

    void doubleFaultHalts() {
        Rig m;
        m.bus.words(kCode, {0x3010}); // move.w (a0),d0
        m.start(0x2700);
        Registers r = m.cpu.registers();
        r.a[0] = 0x3001; // odd: address error
        r.a[7] = 0x7FFF; // odd stack: the group-0 frame cannot be stacked
        m.cpu.setRegisters(r);
        m.cpu.step();
        QVERIFY(m.cpu.halted());
        std::uint64_t t = m.cpu.cycles();
        m.cpu.runUntil(t + 1000);
        QVERIFY(m.cpu.halted());
        QCOMPARE(m.cpu.cycles(), t + 1000);
        m.cpu.reset();
        QVERIFY(!m.cpu.halted());
    }

    void waitStatesStretchInstruction() {
        for (unsigned waits : {0u, 3u, 7u}) {
            Rig m;
            m.bus.words(kCode, {0x3010, kNop}); // move.w (a0),d0: 8 clocks
            m.bus.waitFrom = 0x4000;
            m.bus.waitTo = 0x4002;
            m.bus.waitStates = waits;
            m.start(0x2700);
            Registers r = m.cpu.registers();
            r.a[0] = 0x4000;
            m.cpu.setRegisters(r);
            Recorder rec;
            m.cpu.setObserver(&rec, kHookRetire);
            QCOMPARE(m.cpu.step(), 8u + waits);
            QCOMPARE(rec.retired.size(), std::size_t(1));
            QCOMPARE(rec.retired[0].cycles, 8u + waits);
            QCOMPARE(rec.retired[0].waits, waits);
            // The prefetch after the stretched read starts exactly `waits` clocks later.
            QCOMPARE(m.bus.log.back().cycle - m.bus.log.front().cycle, 4u + waits);
        }
    }

    void dbccCounterExpired() {
        // dbf d0 with D0.w = 0: "n np np np", 14(3/0) (MC68000 User's Manual table 8-10;
        // WinUAE gencpu.cpp, Yacht). The first fetch is at the branch target and its word is
        // discarded; the queue refills from the next instruction. Random registers make
        // D0.w = 0 once in 65,536, so the vectors never show it.
        Rig m;
        m.bus.words(kCode, {0x51C8, 0x0010}); // dbf d0,.+$12
        m.start(0x2700);
        Registers r = m.cpu.registers();
        r.d[0] = 0x12340000;
        m.cpu.setRegisters(r);
        const std::uint64_t t0 = m.cpu.cycles();
        QCOMPARE(m.cpu.step(), 14u);
        QCOMPARE(m.bus.log.size(), std::size_t(3));
        QCOMPARE(m.bus.log[0].address, kCode + 2 + 0x10);
        QCOMPARE(m.bus.log[0].cycle, t0 + 2); // after the two internal clocks
        QCOMPARE(m.bus.log[1].address, kCode + 4);
        QCOMPARE(m.bus.log[2].address, kCode + 6);
        QCOMPARE(m.bus.log[1].cycle - m.bus.log[0].cycle, 4u);
        r = m.cpu.registers();
        QCOMPARE(r.d[0], 0x1234FFFFu);
        QCOMPARE(r.pc, kCode + 8);
        QCOMPARE(r.ird, kNop);
    }

    void dbccOddDisplacementFaultsEvenWhenExpired() {
        // The discarded fetch goes to the target, so an odd displacement takes the address
        // error on the expiry path as on the branch path, before Dn is written (WinUAE
        // gencpu.cpp raises it whenever the condition is false; Moira checks the target
        // before it tests the counter). A true condition never looks at the target.
        for (const std::uint32_t d0 : {0x00000000u, 0x00000005u}) {
            Rig m;
            m.bus.words(kCode, {0x51C8, 0x0011}); // dbf d0,.+$13: odd
            m.start(0x2700);
            Registers r = m.cpu.registers();
            r.d[0] = d0;
            m.cpu.setRegisters(r);
            Recorder rec;
            m.cpu.setObserver(&rec, kHookException);
            m.cpu.step();
            QCOMPARE(rec.exceptions.size(), std::size_t(1));
            QCOMPARE(unsigned(rec.exceptions[0].vector), 3u);
            r = m.cpu.registers();
            QCOMPARE(r.d[0], d0); // not decremented
            const std::uint32_t sp = r.a[7];
            QCOMPARE(m.bus.peekLong(sp + 2), kCode + 2 + 0x11); // the access address
            QCOMPARE(m.bus.peekLong(sp + 10), kCode + 4);       // the next instruction
        }
        Rig m;
        m.bus.words(kCode, {0x50C8, 0x0011}); // dbt d0: the condition holds, no fault
        m.start(0x2700);
        QCOMPARE(m.cpu.step(), 12u);
        QCOMPARE(m.cpu.registers().pc, kCode + 8);
    }

    void tasIsOneAccess() {
        Rig m;
        m.bus.words(kCode, {0x4AD0, kNop}); // tas (a0)
        m.bus.mem[0x5000] = 0x12;
        m.start(0x2700);
        Registers r = m.cpu.registers();
        r.a[0] = 0x5000;
        m.cpu.setRegisters(r);
        QCOMPARE(m.cpu.step(), 14u);
        int tas = 0;
        for (const Access& a : m.bus.log)
            tas += a.op == BusOp::TestAndSet;
        QCOMPARE(tas, 1);
        QCOMPARE(unsigned(m.bus.mem[0x5000]), 0x92u);
    }
};

QTEST_GUILESS_MAIN(TestM68k)
#include "tst_m68k.moc"
