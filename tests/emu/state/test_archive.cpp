// SPDX-License-Identifier: GPL-3.0-or-later
// One serialize() serves save, load and hash.

#include "emu/chipset/denise.h"
#include "emu/chipset/keyboard.h"
#include "emu/state/archive.h"

#include <QtTest>

using namespace copperline;

namespace {
struct Thing {
    std::uint8_t a = 1;
    std::int16_t b = -2;
    std::uint32_t c = 3;
    bool d = true;
    std::array<std::uint16_t, 3> e{4, 5, 6};
    std::vector<std::uint8_t> ram = std::vector<std::uint8_t>(16, 7);
    enum class Mode : std::uint8_t { X, Y } mode = Mode::Y;
    void serialize(Archive& ar) { ar(a, b, c, d, e, ram, mode); }
};
} // namespace

class TestArchive : public QObject {
    Q_OBJECT
private slots:
    void roundTrip() {
        Thing t;
        t.b = -1234;
        t.ram[3] = 99;
        auto s = Archive::saver();
        t.serialize(s);
        Thing u;
        auto l = Archive::loader(s.bytes());
        u.serialize(l);
        QCOMPARE(u.b, std::int16_t(-1234));
        QCOMPARE(u.ram[3], std::uint8_t(99));
        QCOMPARE(u.mode, Thing::Mode::Y);
        QCOMPARE(l.remaining(), std::size_t(0));
    }

    void hashSeesEveryField() {
        Thing t, u;
        auto h1 = Archive::hasher(), h2 = Archive::hasher();
        t.serialize(h1);
        u.serialize(h2);
        QCOMPARE(h1.hash(), h2.hash());
        u.ram[15] ^= 1;
        auto h3 = Archive::hasher();
        u.serialize(h3);
        QVERIFY(h3.hash() != h1.hash());
    }

    void refusesTruncatedAndMismatchedData() {
        Thing t;
        auto s = Archive::saver();
        t.serialize(s);
        auto bytes = s.bytes();
        bytes.pop_back();
        Thing u;
        auto l = Archive::loader(bytes);
        QVERIFY_THROWS_EXCEPTION(StateError, u.serialize(l));
        Thing v;
        v.ram.resize(8); // a differently configured machine
        auto l2 = Archive::loader(s.bytes());
        QVERIFY_THROWS_EXCEPTION(StateError, v.serialize(l2));
        auto bad = s.bytes();
        bad[7] = 2; // the bool
        Thing w;
        auto l3 = Archive::loader(bad);
        QVERIFY_THROWS_EXCEPTION(StateError, w.serialize(l3));
    }

    // A state whose keyboard queue claims 4 Gi codes is refused as truncated, before the
    // queue is sized (state_fuzzer found the 4 GiB allocation).
    void refusesAKeyboardQueueLongerThanTheFile() {
        Keyboard k;
        k.reset(0);
        auto s = Archive::saver();
        k.serialize(s);
        auto bytes = s.takeBytes();
        QCOMPARE(bytes[0], std::uint8_t(2)); // the power-up stream's two codes, little-endian
        for (int i = 0; i < 4; ++i)
            bytes[std::size_t(i)] = 0xFF;
        Keyboard again;
        auto l = Archive::loader(bytes);
        QVERIFY_THROWS_EXCEPTION(StateError, again.serialize(l));
    }

    // A state whose shifter holds a pixel value above 63 would index past Denise's
    // 64-entry colour tables when drawn: every byte of a Denise state set to $40 (and to
    // $FF) either loads into a Denise that draws a whole frame, or is refused. Under the
    // sanitize preset a read past the tables fails the test.
    void refusesPixelValuesPastSixPlanes() {
        Denise d;
        d.reset();
        auto s = Archive::saver();
        d.serialize(s);
        const auto good = s.takeBytes();
        unsigned refused = 0;
        for (const std::uint8_t value : {std::uint8_t(0x40), std::uint8_t(0xFF)}) {
            for (std::size_t i = 0; i < good.size(); ++i) {
                auto bytes = good;
                bytes[i] = value;
                Denise again;
                auto l = Archive::loader(bytes);
                try {
                    again.serialize(l);
                } catch (const StateError&) {
                    ++refused;
                    continue;
                }
                again.beginFrame(true, false);
                for (std::uint16_t v = 0x2C; v < 0x30; ++v)
                    for (std::uint16_t h = 0; h < 227; ++h) again.clock(v, h, false);
            }
        }
        QVERIFY(refused > 0);
    }
};

QTEST_GUILESS_MAIN(TestArchive)
#include "test_archive.moc"
