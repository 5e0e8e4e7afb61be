// SPDX-License-Identifier: GPL-3.0-or-later
// The floppy drives, MFM and Paula's disk DMA: the drive's lines and ID, the AmigaDOS
// track format, word sync, transfers through the disk slots at the disk's data rate, and
// writes decoded back into the image.

#include "emu/chipset/agnus.h"
#include "emu/chipset/custom_regs.h"
#include "emu/chipset/floppy.h"
#include "emu/chipset/floppy_mfm.h"
#include "emu/state/archive.h"

#include <QtTest>

using namespace copperline;

namespace {

constexpr std::uint8_t kMtr = 0x80, kSel0 = 0x08, kSide = 0x04, kDir = 0x02, kStep = 0x01;
constexpr std::uint8_t kRdy = 0x20, kTk0 = 0x10, kWpro = 0x08, kChng = 0x04;

// A deterministic pattern image: every byte depends on its offset.
AdfImage patternImage(std::uint32_t seed = 1) {
    std::vector<std::uint8_t> bytes(adf::kImageBytes);
    std::uint32_t x = seed;
    for (auto& b : bytes) {
        x = x * 1664525u + 1013904223u;
        b = std::uint8_t(x >> 24);
    }
    return adfFromBytes(std::move(bytes), "pattern");
}

// The chips the disk DMA path goes through, without a CPU.
struct Rig {
    ChipRam chip;
    Denise denise;
    Paula paula;
    Blitter blitter{chip};
    Copper copper;
    Agnus agnus{chip, denise, paula, blitter, copper};
    FloppyController fc{paula};
    std::uint8_t prb = 0xFF;

    Rig() {
        paula.attachFloppy(&fc);
        fc.powerOn();
        fc.drive(0).setConnected(true);
    }
    void lines(std::uint8_t v) {
        prb = v;
        fc.setControlLines(prb, agnus.cck());
    }
    // DF0 selected with its motor on (the motor line is latched as /SEL falls).
    void motorOn(unsigned drive = 0) {
        const std::uint8_t sel = std::uint8_t(kSel0 << drive);
        lines(std::uint8_t((prb | sel) & ~kMtr));
        lines(std::uint8_t(prb & ~sel));
    }
    void write(std::uint16_t r, std::uint16_t v) { agnus.writeCustom(r, v); }
    // Runs until an INTREQ bit is set; returns the colour clock or 0 on a timeout.
    std::uint64_t runUntilIrq(std::uint16_t bit, std::uint64_t limit) {
        const std::uint64_t end = agnus.cck() + limit;
        while (agnus.cck() < end) {
            agnus.runTo(agnus.cck() + 1);
            if (paula.intreq() & bit) return agnus.cck();
        }
        return 0;
    }
    std::uint32_t readId(unsigned drive) {
        const std::uint8_t sel = std::uint8_t(kSel0 << drive);
        // HRM "Drive identification": motor on and off with SEL to reset the register,
        // then 32 selects, reading /RDY each time.
        lines(std::uint8_t((0xFF & ~kMtr)));
        lines(std::uint8_t(prb & ~sel));
        lines(std::uint8_t(prb | sel));
        lines(std::uint8_t(prb | kMtr));
        lines(std::uint8_t(prb & ~sel));
        lines(std::uint8_t(prb | sel));
        std::uint32_t id = 0;
        for (int i = 0; i < 32; ++i) {
            lines(std::uint8_t(prb & ~sel));
            id = id << 1 | ((fc.statusPins() & kRdy) ? 0u : 1u);
            lines(std::uint8_t(prb | sel));
        }
        return id;
    }
};

std::vector<std::uint8_t> bits(std::span<const std::uint8_t> bytes) {
    std::vector<std::uint8_t> out;
    for (auto b : bytes)
        for (int i = 7; i >= 0; --i)
            out.push_back((b >> i) & 1);
    return out;
}

} // namespace

class TestFloppy : public QObject {
    Q_OBJECT
private slots:
    void mfmRoundTrip() {
        const AdfImage img = patternImage();
        for (unsigned track : {0u, 1u, 79u, 159u}) {
            const auto mfmTrack = mfm::encodeTrack(img.track(track), track);
            QCOMPARE(mfmTrack.size(), std::size_t(mfm::kTrackBytes));
            std::vector<std::uint8_t> out(adf::kTrackBytes, 0);
            const auto found = mfm::decodeTrack(mfmTrack, track, out);
            for (bool f : found)
                QVERIFY(f);
            QVERIFY(std::equal(out.begin(), out.end(), img.track(track).begin()));
            // The sectors are found only on the track their headers name.
            const auto wrong = mfm::decodeTrack(mfmTrack, track ^ 1, out);
            for (bool f : wrong)
                QVERIFY(!f);
        }
    }

    void mfmSectorLayout() {
        const AdfImage img = patternImage();
        const auto t = mfm::encodeTrack(img.track(5), 5);
        for (unsigned s = 0; s < 11; ++s) {
            const std::uint8_t* p = t.data() + s * mfm::kSectorBytes;
            // $AAAA $AAAA then two $4489 sync words (ADF FAQ); the first clock bit is 0
            // after a sector that ended in a 1 bit ($2AAA).
            QCOMPARE(p[0] & 0x7F, 0x2A);
            QCOMPARE(p[3], std::uint8_t(0xAA));
            QCOMPARE(p[4], std::uint8_t(0x44));
            QCOMPARE(p[5], std::uint8_t(0x89));
            QCOMPARE(p[6], std::uint8_t(0x44));
            QCOMPARE(p[7], std::uint8_t(0x89));
            auto lng = [&](unsigned o) {
                return std::uint32_t(p[o]) << 24 | std::uint32_t(p[o + 1]) << 16 |
                       std::uint32_t(p[o + 2]) << 8 | p[o + 3];
            };
            const std::uint32_t info = ((lng(8) & 0x55555555) << 1) | (lng(12) & 0x55555555);
            QCOMPARE(info, 0xFF000000u | 5u << 16 | s << 8 | (11 - s));
        }
        // The gap after the last sector is MFM zeros.
        QCOMPARE(t[mfm::kTrackBytes - 1], std::uint8_t(0xAA));
    }

    void mfmObeysTheClockRule() {
        // Outside the sync words no two 1 bits touch and no more than three 0 bits run.
        const AdfImage img = patternImage(7);
        const auto t = mfm::encodeTrack(img.track(3), 3);
        std::vector<std::uint8_t> stream = t;
        for (unsigned s = 0; s < 11; ++s)
            for (unsigned i = 4; i < 8; ++i)
                stream[s * mfm::kSectorBytes + i] = 0xAA;
        const auto b = bits(stream);
        int zeros = 0;
        for (std::size_t i = 1; i < b.size(); ++i) {
            QVERIFY2(!(b[i] && b[i - 1]), qPrintable(QString("adjacent ones at bit %1").arg(i)));
            zeros = b[i] ? 0 : zeros + 1;
            QVERIFY2(zeros <= 3, qPrintable(QString("a run of zeros at bit %1").arg(i)));
        }
    }

    void mfmChecksumsCatchCorruption() {
        const AdfImage img = patternImage();
        auto t = mfm::encodeTrack(img.track(0), 0);
        t[3 * mfm::kSectorBytes + 200] ^= 0x01; // a data bit of sector 3
        t[7 * mfm::kSectorBytes + 20] ^= 0x04;  // a label bit of sector 7 (header sum)
        std::vector<std::uint8_t> out(adf::kTrackBytes, 0);
        const auto found = mfm::decodeTrack(t, 0, out);
        for (unsigned s = 0; s < 11; ++s)
            QCOMPARE(found[s], s != 3 && s != 7);
    }

    void driveIdentification() {
        Rig r;
        QCOMPARE(r.readId(0), 0xFFFFFFFFu); // a 3.5" DD drive
        QCOMPARE(r.readId(1), 0u);          // nothing fitted: /RDY floats high
        r.fc.drive(1).setConnected(true);
        QCOMPARE(r.readId(1), 0xFFFFFFFFu);
    }

    void motorLatchedOnSelect() {
        Rig r;
        r.lines(std::uint8_t(0xFF & ~kMtr)); // motor line low, drive not selected
        QVERIFY(!r.fc.drive(0).motor());
        r.fc.drive(0).insert(patternImage());
        r.lines(std::uint8_t(r.prb & ~kSel0));
        QVERIFY(r.fc.drive(0).motor());
        // /RDY waits for the motor to reach speed, 380 ms (vAmiga's A1010; WinUAE holds it
        // 18 frames of lines). It was asserted at once, and without a disk too; both peers
        // assert it only with a disk in.
        const std::uint64_t on = r.agnus.cck();
        const std::uint64_t spinUp = std::uint64_t(0.380 * 3546895 + 0.5);
        r.agnus.runTo(on + spinUp - 1);
        r.lines(r.prb);
        QVERIFY(r.fc.statusPins() & kRdy);
        r.agnus.runTo(on + spinUp);
        r.lines(r.prb);
        QVERIFY(!(r.fc.statusPins() & kRdy));
        r.fc.drive(0).eject();
        QVERIFY(r.fc.statusPins() & kRdy); // no disk, no /RDY
        // Deselected, the motor keeps running and the lines go quiet.
        r.lines(std::uint8_t(r.prb | kSel0 | kMtr));
        QVERIFY(r.fc.drive(0).motor());
        QCOMPARE(r.fc.statusPins() & 0x3C, 0x3C);
        // Selected with the motor line high: off.
        r.lines(std::uint8_t(r.prb & ~kSel0));
        QVERIFY(!r.fc.drive(0).motor());
    }

    void stepTrackZeroChangeAndProtect() {
        Rig r;
        r.lines(std::uint8_t(0xFF & ~kSel0));
        QVERIFY(!(r.fc.statusPins() & kTk0));
        QVERIFY(!(r.fc.statusPins() & kChng)); // no disk
        auto step = [&](bool in) {
            const std::uint8_t base = std::uint8_t(in ? (r.prb & ~kDir) : (r.prb | kDir));
            r.lines(std::uint8_t(base | kStep));
            r.lines(std::uint8_t(base & ~kStep));
            r.lines(std::uint8_t(base | kStep));
        };
        step(true);
        QCOMPARE(r.fc.drive(0).cylinder(), 1u);
        QVERIFY(r.fc.statusPins() & kTk0);
        QVERIFY(!(r.fc.statusPins() & kChng)); // stepping without a disk clears nothing
        AdfImage img = patternImage();
        img.writeProtected = true;
        r.fc.drive(0).insert(img);
        QVERIFY(!(r.fc.statusPins() & kChng));
        QVERIFY(!(r.fc.statusPins() & kWpro));
        step(false);
        QCOMPARE(r.fc.drive(0).cylinder(), 0u);
        QVERIFY(r.fc.statusPins() & kChng); // the step with a disk in cleared the latch
        step(false);
        QCOMPARE(r.fc.drive(0).cylinder(), 0u); // no further out than cylinder 0
        r.fc.drive(0).eject();
        QVERIFY(!(r.fc.statusPins() & kChng));
        QVERIFY(r.fc.statusPins() & kWpro);
        // /SIDE low selects the upper head.
        r.lines(std::uint8_t(r.prb & ~kSide));
        QCOMPARE(r.fc.drive(0).head(), 1u);
    }

    void indexPulseEveryRevolution() {
        Rig r;
        r.fc.drive(0).insert(patternImage());
        r.motorOn();
        unsigned pulses = 0;
        // A revolution is 12,500 bytes of 56.75 colour clocks (0.2 s: 300 rpm). Over five
        // revolutions, a line at a time, five pulses.
        constexpr std::uint64_t kRev = 709'375, kStart = 100'000;
        r.fc.advanceTo(kStart);
        for (std::uint64_t c = kStart + 227; c <= kStart + 5 * kRev; c += 227)
            pulses += r.fc.advanceTo(c);
        QCOMPARE(pulses, 5u);
        // No index from a drive that is not selected.
        r.lines(std::uint8_t(r.prb | kSel0));
        for (std::uint64_t c = kStart + 5 * kRev; c <= kStart + 10 * kRev; c += 227)
            pulses += r.fc.advanceTo(c);
        QCOMPARE(pulses, 5u);
    }

    void dsklenNeedsTwoWrites() {
        Rig r;
        r.write(reg::DSKLEN, 0x8000 | 100);
        QVERIFY(!(r.paula.spy(reg::DSKBYTR) & 0x4000));
        r.write(reg::DSKLEN, 0x8000 | 100);
        QVERIFY(r.paula.spy(reg::DSKBYTR) & 0x4000);
        r.write(reg::DSKLEN, 0x4000);
        QVERIFY(!(r.paula.spy(reg::DSKBYTR) & 0x4000));
    }

    void dmaReadWithWordSync() {
        Rig r;
        const AdfImage img = patternImage();
        r.fc.drive(0).insert(img);
        r.motorOn();
        r.write(reg::DMACON, 0x8000 | dmacon::DMAEN | dmacon::DSKEN);
        r.write(reg::ADKCON, 0x8000 | 0x0400 | 0x1000 | 0x0100); // WORDSYNC, MFMPREC, FAST
        r.write(reg::DSKSYNC, 0x4489);
        r.write(reg::DSKPTH, 0x0001);
        r.write(reg::DSKPTL, 0x0000);
        constexpr unsigned kWords = 6400; // more than a revolution, as trackdisk reads
        r.write(reg::DSKLEN, 0x8000 | kWords);
        r.write(reg::DSKLEN, 0x8000 | kWords);
        const std::uint64_t sync = r.runUntilIrq(intreq::DSKSYN, 800'000);
        QVERIFY(sync > 0);
        const std::uint64_t done = r.runUntilIrq(intreq::DSKBLK, 1'000'000);
        QVERIFY(done > 0);
        // 32 us a word: 113.5 colour clocks, give or take the line the slots wait for.
        const double perWord = double(done - sync) / kWords;
        QVERIFY2(perWord > 113.4 && perWord < 113.6, qPrintable(QString::number(perWord)));
        // Word sync: the first word stored is the one after the sync that matched.
        QCOMPARE(r.chip.readWord(0x10000), std::uint16_t(0x4489));
        QVERIFY(r.chip.readWord(0x10002) != 0x4489);
        std::vector<std::uint8_t> buffer(r.chip.data() + 0x10000,
                                         r.chip.data() + 0x10000 + 2 * kWords);
        std::vector<std::uint8_t> out(adf::kTrackBytes, 0);
        const auto found = mfm::decodeTrack(buffer, 0, out);
        for (bool f : found)
            QVERIFY(f);
        QVERIFY(std::equal(out.begin(), out.end(), img.track(0).begin()));
        QCOMPARE(r.fc.dskpt(), 0x10000u + 2 * kWords);
        QVERIFY(!(r.paula.spy(reg::DSKBYTR) & 0x4000));
    }

    void dmaUsesTheDiskSlots() {
        Rig r;
        r.fc.drive(0).insert(patternImage());
        r.motorOn();
        r.write(reg::DMACON, 0x8000 | dmacon::DMAEN | dmacon::DSKEN);
        r.write(reg::DSKLEN, 0x8000 | 0x3FFF);
        r.write(reg::DSKLEN, 0x8000 | 0x3FFF);
        const std::uint64_t frame = r.agnus.frame();
        while (r.agnus.frame() < frame + 2)
            r.agnus.runTo(r.agnus.cck() + 227);
        // Two words a line (a word is half a 64 us line), in slots $07, $09 or $0B only.
        const unsigned disk = r.agnus.committedOwnerCounts()[unsigned(BusOwner::Disk)];
        QVERIFY2(disk >= 623 && disk <= 627, qPrintable(QString::number(disk)));
        const auto& owners = r.agnus.committedOwners();
        for (std::size_t i = 0; i < owners.size(); ++i)
            if (owners[i] == std::uint8_t(BusOwner::Disk)) {
                const unsigned h = unsigned(i % Agnus::kMaxLineCck);
                QVERIFY(h == 0x07 || h == 0x09 || h == 0x0B);
            }
    }

    void dmaWriteDecodesIntoTheImage() {
        Rig r;
        r.fc.drive(0).insert(patternImage(1));
        const AdfImage other = patternImage(2);
        // Cylinder 0, upper head: track 1.
        r.lines(std::uint8_t(0xFF & ~kSide));
        r.motorOn();
        const auto track = mfm::encodeTrack(other.track(1), 1);
        const unsigned words = 11 * mfm::kSectorBytes / 2 + 8;
        for (unsigned i = 0; i < 2 * words; ++i)
            r.chip.writeByte(0x20000 + i, i < 16 ? 0xAA : track[i - 16]);
        r.write(reg::DMACON, 0x8000 | dmacon::DMAEN | dmacon::DSKEN);
        r.write(reg::DSKPTH, 0x0002);
        r.write(reg::DSKPTL, 0x0000);
        r.write(reg::DSKLEN, 0xC000 | words);
        r.write(reg::DSKLEN, 0xC000 | words);
        QVERIFY(r.paula.spy(reg::DSKBYTR) & 0x2000); // DISKWRITE
        QVERIFY(r.runUntilIrq(intreq::DSKBLK, 1'000'000) > 0);
        QVERIFY(!r.fc.drive(0).modified()); // still only on the track under the head
        r.fc.flushAll();
        QVERIFY(r.fc.drive(0).modified());
        const auto& disk = r.fc.drive(0).disk();
        QVERIFY(std::equal(other.track(1).begin(), other.track(1).end(), disk.track(1).begin()));
        const AdfImage before = patternImage(1);
        for (unsigned t = 0; t < adf::kTracks; ++t)
            if (t != 1)
                QVERIFY2(std::equal(before.track(t).begin(), before.track(t).end(),
                                    disk.track(t).begin()),
                         qPrintable(QString::number(t)));
    }

    void writeProtectedDiskIgnoresWrites() {
        Rig r;
        AdfImage img = patternImage(1);
        img.writeProtected = true;
        r.fc.drive(0).insert(img);
        r.motorOn();
        r.write(reg::DMACON, 0x8000 | dmacon::DMAEN | dmacon::DSKEN);
        r.write(reg::DSKLEN, 0xC000 | 1000);
        r.write(reg::DSKLEN, 0xC000 | 1000);
        QVERIFY(r.runUntilIrq(intreq::DSKBLK, 1'000'000) > 0);
        r.fc.flushAll();
        QVERIFY(!r.fc.drive(0).modified());
    }

    void stateRoundTrip() {
        Rig a;
        a.fc.drive(0).insert(patternImage());
        a.motorOn();
        a.write(reg::DMACON, 0x8000 | dmacon::DMAEN | dmacon::DSKEN);
        a.write(reg::DSKLEN, 0x8000 | 3000);
        a.write(reg::DSKLEN, 0x8000 | 3000);
        a.agnus.runTo(50'000);
        Archive save = Archive::saver();
        a.fc.serialize(save);
        const auto bytes = save.takeBytes();
        Rig b;
        Archive load = Archive::loader(bytes);
        b.fc.serialize(load);
        QCOMPARE(load.remaining(), std::size_t(0));
        Archive ha = Archive::hasher(), hb = Archive::hasher();
        a.fc.serialize(ha);
        b.fc.serialize(hb);
        QCOMPARE(ha.hash(), hb.hash());
        QCOMPARE(b.fc.drive(0).disk().bytes, a.fc.drive(0).disk().bytes);
    }
};

QTEST_GUILESS_MAIN(TestFloppy)
#include "test_floppy.moc"
