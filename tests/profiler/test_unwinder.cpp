// SPDX-License-Identifier: GPL-3.0-or-later
// The live unwinder on hand-made tables and memory: a three-deep stack through A7 and A5
// frames, the ends of a stack (leaving the text, a caller in another code hunk, unreadable
// memory, odd or zero return addresses, a cycle, the depth limit) and its refusals.

#include "profiler/sampling/unwinder.h"

#include <QtTest>
#include <map>

using namespace copperline;

namespace {

constexpr std::uint32_t kBase = 0x20000; // where the text is loaded
constexpr std::uint32_t kTextSize = 0x100;

UnwindRow row(std::uint8_t reg, std::int32_t cfa, std::int32_t a5, std::int32_t ra) {
    UnwindRow r;
    r.cfaRegister = reg;
    r.cfaOffset = cfa;
    r.a5Offset = a5;
    r.returnOffset = ra;
    return r;
}

// Three functions: A at $00..$3F with an A5 frame from $08, B at $40..$7F with twelve bytes
// on the stack from $44, and C at $80.. a leaf with no frame (the default row throughout).
UnwindTable threeFunctions() {
    UnwindTable t;
    t.textSize = kTextSize;
    t.rows.assign(kTextSize / 2, UnwindRow::defaultRow());
    for (std::uint32_t off = 0x08; off < 0x40; off += 2)
        t.rows[off / 2] = row(UnwindRow::kA5, 8, -8, -4);
    for (std::uint32_t off = 0x44; off < 0x80; off += 2)
        t.rows[off / 2] = row(UnwindRow::kA7, 12, UnwindRow::kNotSaved, -4);
    return t;
}

class Memory : public LongReader {
public:
    std::map<std::uint32_t, std::uint32_t> longs;
    mutable unsigned reads = 0;
    bool readLong(std::uint32_t address, std::uint32_t& value) const override {
        ++reads;
        const auto it = longs.find(address);
        if (it == longs.end()) return false;
        value = it->second;
        return true;
    }
};

// The stack of C at $20080 called from B at $20050, called from A at $20020, whose caller
// is `outer`. A7 = $8000 in C, A5 = $8100 (A's frame).
Memory threeDeep(std::uint32_t outer) {
    Memory m;
    m.longs[0x8000] = 0xFF020050; // C's return address; the top byte is not on the bus
    // B: CFA = A7($8004) + 12 = $8010, return address at $800C.
    m.longs[0x800C] = kBase + 0x20;
    // A: CFA = A5 + 8 = $8108, A5 saved at $8100, return address at $8104.
    m.longs[0x8100] = 0x8200;
    m.longs[0x8104] = outer;
    return m;
}

using Stack = std::vector<std::uint32_t>;

} // namespace

class TestUnwinder : public QObject {
    Q_OBJECT

private slots:
    void threeDeepStack() {
        const Unwinder u(threeFunctions(), kBase);
        const Memory m = threeDeep(0x00F80010); // A was called from Kickstart
        Stack out;
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{kBase + 0x80, kBase + 0x50, kBase + 0x20}));
        // out is appended to, so one buffer serves sample after sample.
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out.size(), std::size_t(6));
        QCOMPARE(out[3], kBase + 0x80);
    }

    // A5 restored from A's frame is what the next A5 frame starts from: A called from A.
    void restoredA5IsUsed() {
        const Unwinder u(threeFunctions(), kBase);
        Memory m = threeDeep(kBase + 0x30);
        m.longs[0x8200] = 0x8300;     // the outer A's frame: saved A5
        m.longs[0x8204] = 0x00FC0000; // and its caller, in the ROM
        Stack out;
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{kBase + 0x80, kBase + 0x50, kBase + 0x20, kBase + 0x30}));
    }

    void stopsWhereTheTextEnds() {
        const Unwinder u(threeFunctions(), kBase);
        Stack out;
        // A PC outside the text is the whole stack; nothing is read.
        Memory m = threeDeep(0);
        u.unwind(0x00FC1234, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{0x00FC1234}));
        QCOMPARE(m.reads, 0u);
        // The first address past the text is outside it.
        QVERIFY(u.inText(kBase) && u.inText(kBase + kTextSize - 2));
        QVERIFY(!u.inText(kBase + kTextSize) && !u.inText(kBase - 2));
        out.clear();
        m = threeDeep(kBase + kTextSize);
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{kBase + 0x80, kBase + 0x50, kBase + 0x20}));
    }

    // A caller in another code hunk is kept, and the walk stops there even though its
    // frame could be read on.
    void keepsACallerInACodeRange() {
        const Unwinder u(threeFunctions(), kBase, {{0x30000, 0x400}, {0x50000, 0x10}});
        Memory m = threeDeep(0x30010);
        m.longs[0x810C] = kBase + 0x80;
        Stack out;
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{kBase + 0x80, kBase + 0x50, kBase + 0x20, 0x30010}));
        QVERIFY(u.inCodeRange(0x5000E) && !u.inCodeRange(0x50010));
        // The leaf itself may be in a code range: kept, and not followed.
        out.clear();
        u.unwind(0x30100, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{0x30100}));
    }

    void unreadableMemoryStops() {
        const Unwinder u(threeFunctions(), kBase);
        Stack out;
        // The leaf's return address cannot be read.
        Memory m = threeDeep(0x00F80010);
        m.longs.erase(0x8000);
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{kBase + 0x80}));
        // A's saved A5 cannot be read: the walk ends in A, before its return address.
        out.clear();
        m = threeDeep(kBase + 0x30);
        m.longs.erase(0x8100);
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{kBase + 0x80, kBase + 0x50, kBase + 0x20}));
    }

    void oddOrZeroReturnAddressStops() {
        const Unwinder u(threeFunctions(), kBase);
        for (const std::uint32_t bad : {kBase + 0x31, 0u, 0xFF000000u}) {
            Memory m = threeDeep(bad);
            Stack out;
            u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
            QCOMPARE(out, (Stack{kBase + 0x80, kBase + 0x50, kBase + 0x20}));
        }
    }

    // A5 frame that leads back to itself: same PC, same A7.
    void cycleStops() {
        const Unwinder u(threeFunctions(), kBase);
        Memory m;
        m.longs[0x8100] = 0x8100;       // saved A5 is the frame itself
        m.longs[0x8104] = kBase + 0x20; // returning where we are
        Stack out;
        u.unwind(kBase + 0x20, 0x8100, 0x8108, m, out);
        QCOMPARE(out, (Stack{kBase + 0x20}));
    }

    // Deep recursion is cut at kMaxDepth PCs.
    void depthIsCapped() {
        UnwindTable t;
        t.textSize = kTextSize;
        t.rows.assign(kTextSize / 2, UnwindRow::defaultRow());
        const Unwinder u(t, kBase);
        Memory m;
        for (std::uint32_t i = 0; i < 200; ++i)
            m.longs[0x9000 + 4 * i] = kBase + 0x10; // each frame returns into the same function
        Stack out{0xDEAD};
        u.unwind(kBase + 0x10, 0, 0x9000, m, out);
        QCOMPARE(out.size(), std::size_t(1 + Unwinder::kMaxDepth));
        QCOMPARE(out.back(), kBase + 0x10);
        QCOMPARE(out.front(), 0xDEADu);
    }

    void withoutATableTheStackIsThePc() {
        const Unwinder u;
        QVERIFY(!u.hasTable());
        const Memory m = threeDeep(0);
        Stack out;
        u.unwind(kBase + 0x80, 0x8100, 0x8000, m, out);
        QCOMPARE(out, (Stack{kBase + 0x80}));
        QCOMPARE(m.reads, 0u);
    }

    void refusals() {
        UnwindTable t = threeFunctions();
        t.rows.pop_back();
        QVERIFY_THROWS_EXCEPTION(DebugInfoError, (void)Unwinder(t, kBase));
        QVERIFY_THROWS_EXCEPTION(DebugInfoError, (void)Unwinder(threeFunctions(), 0xFFFFFF80));
    }
};

QTEST_GUILESS_MAIN(TestUnwinder)
#include "test_unwinder.moc"
