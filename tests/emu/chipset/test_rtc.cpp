// SPDX-License-Identifier: GPL-3.0-or-later
// The A501's MSM6242B: its calendar, counting in emulated seconds, HOLD, STOP, REST, the
// 12-hour mode, the 30-second adjust, the registers as software reads and writes them, the
// times --rtc-time takes, and its state.

#include "emu/chipset/rtc.h"
#include "emu/state/archive.h"

#include <QtTest>

using namespace copperline;

namespace {

constexpr std::uint64_t kSecond = 3'546'895; // PAL colour clocks

RtcTime at(int y, int mo, int d, int h, int mi, int s) {
    std::string error;
    char text[96];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s);
    const auto t = RtcTime::parse(text, error);
    if (!t) qFatal("%s", error.c_str());
    return *t;
}

// The counters as the registers show them, as a guest reads them.
std::string shown(Rtc& rtc, std::uint64_t cck) {
    char text[96];
    auto r = [&](unsigned n) { return int(rtc.read(n, cck)); };
    std::snprintf(text, sizeof text, "%d%d-%d%d-%d%d %d%d:%d%d:%d%d w%d", r(Rtc::Y10), r(Rtc::Y1), r(Rtc::MO10),
                  r(Rtc::MO1), r(Rtc::D10), r(Rtc::D1), r(Rtc::H10), r(Rtc::H1), r(Rtc::MI10), r(Rtc::MI1),
                  r(Rtc::S10), r(Rtc::S1), r(Rtc::W));
    return text;
}

} // namespace

class TestRtc : public QObject {
    Q_OBJECT
private slots:
    void calendarAgreesWithKnownDates() {
        // Seconds since 1970 of dates worked out by hand (and by `date -u -d ... +%s`).
        QCOMPARE(at(2000, 1, 1, 0, 0, 0).toUnix(), std::int64_t(946'684'800));
        QCOMPARE(at(1978, 1, 1, 0, 0, 0).toUnix(), std::int64_t(252'460'800));
        QCOMPARE(at(2024, 2, 29, 12, 0, 0).toUnix(), std::int64_t(1'709'208'000));
        QCOMPARE(at(2077, 12, 31, 23, 59, 59).toUnix(), std::int64_t(3'408'220'799));
        // Weekdays: 1 January 2000 a Saturday, 1 January 1978 a Sunday, 7 December 2026 a Monday.
        QCOMPARE(at(2000, 1, 1, 0, 0, 0).weekday, 6);
        QCOMPARE(at(1978, 1, 1, 0, 0, 0).weekday, 0);
        QCOMPARE(at(2026, 12, 7, 10, 30, 0).weekday, 1);
        // And back, for every day of four years around a leap day and a century.
        for (std::int64_t s = at(1998, 1, 1, 0, 0, 0).toUnix(); s < at(2002, 1, 1, 0, 0, 0).toUnix(); s += 86'400 + 3'661) {
            const RtcTime t = RtcTime::fromUnix(s);
            QVERIFY(t.valid());
            QCOMPARE(t.toUnix(), s);
        }
        QCOMPARE(RtcTime::fromUnix(1'700'000'000).iso(), std::string("2023-11-14T22:13:20"));
    }

    void parsesWhatTheCommandLineTakes() {
        std::string error;
        QCOMPARE(RtcTime::parse("2026-12-07T01:02:03", error)->iso(), std::string("2026-12-07T01:02:03"));
        QCOMPARE(RtcTime::parse("2026-12-07 01:02", error)->iso(), std::string("2026-12-07T01:02:00"));
        QCOMPARE(RtcTime::parse("2026-12-07", error)->iso(), std::string("2026-12-07T00:00:00"));
        QCOMPARE(RtcTime::parse("1700000000", error)->iso(), std::string("2023-11-14T22:13:20"));
        const auto now = RtcTime::parse("now", error);
        QVERIFY(now && now->valid());
        for (const char* bad : {"1977-12-31", "2078-01-01", "2026-13-01", "2026-02-29", "2026-12-07T24:00",
                                "2026-12-07T10:60", "tomorrow", "", "2026-1-7", "2026-12-07T10:30:00Z",
                                "99999999999999999999999"}) {
            error.clear();
            QVERIFY2(!RtcTime::parse(bad, error), bad);
            QVERIFY2(!error.empty(), bad);
        }
        QVERIFY(RtcTime::parse("2026-02-29", error) == std::nullopt);
        QVERIFY(error.find("'2026-02-29'") != std::string::npos);
    }

    void countsEmulatedSecondsThroughTheCalendar() {
        Rtc rtc;
        rtc.powerOn(at(1999, 12, 31, 23, 59, 58), 1000);
        QCOMPARE(shown(rtc, 1000), std::string("99-12-31 23:59:58 w5"));
        QCOMPARE(shown(rtc, 1000 + kSecond - 1), std::string("99-12-31 23:59:58 w5"));
        QCOMPARE(shown(rtc, 1000 + kSecond), std::string("99-12-31 23:59:59 w5"));
        QCOMPARE(shown(rtc, 1000 + 2 * kSecond), std::string("00-01-01 00:00:00 w6"));
        QCOMPARE(rtc.time(1000 + 2 * kSecond).year, 2000);
        // The chip's leap years: every fourth.
        rtc.setTime(at(2024, 2, 28, 23, 59, 59), 0);
        QCOMPARE(shown(rtc, kSecond), std::string("24-02-29 00:00:00 w4"));
        rtc.setTime(at(2023, 2, 28, 23, 59, 59), 0);
        QCOMPARE(shown(rtc, kSecond), std::string("23-03-01 00:00:00 w3"));
        // A day of seconds, read once: every carry taken.
        rtc.setTime(at(2026, 12, 7, 10, 30, 0), 0);
        QCOMPARE(rtc.time(86'400 * kSecond + 5).iso(), std::string("2026-12-08T10:30:00"));
        // NTSC's colour clock runs faster.
        rtc.setCckPerSecond(3'579'545);
        rtc.setTime(at(2026, 12, 7, 10, 30, 0), 0);
        QCOMPARE(rtc.time(3'579'545 * 10).second, 10);
        QCOMPARE(rtc.time(kSecond * 10).second, 9);
    }

    void holdKeepsOneSecondStopAndRestStopTheCount() {
        Rtc rtc;
        rtc.powerOn(at(2026, 12, 7, 10, 30, 0), 0);
        rtc.write(Rtc::CD, Rtc::kHold, 0);
        QCOMPARE(int(rtc.read(Rtc::CD, 0)), int(Rtc::kHold));
        QCOMPARE(rtc.read(Rtc::S1, 3 * kSecond + 10), std::uint8_t(0)); // held
        rtc.write(Rtc::CD, 0, 3 * kSecond + 10);
        QCOMPARE(rtc.read(Rtc::S1, 3 * kSecond + 10), std::uint8_t(1)); // one carry kept, two lost
        // STOP: no count at all, then counting on from where it stood.
        rtc.write(Rtc::CF, Rtc::k24Hour | Rtc::kStop, 4 * kSecond);
        QVERIFY(rtc.stopped());
        QCOMPARE(rtc.time(20 * kSecond).second, 2);
        rtc.write(Rtc::CF, Rtc::k24Hour, 20 * kSecond);
        QCOMPARE(rtc.time(21 * kSecond).second, 3);
        // REST clears the part-second: a second after its release, not before.
        rtc.write(Rtc::CF, Rtc::k24Hour | Rtc::kRest, 21 * kSecond + kSecond / 2);
        rtc.write(Rtc::CF, Rtc::k24Hour, 22 * kSecond);
        QCOMPARE(rtc.time(23 * kSecond - 1).second, 3);
        QCOMPARE(rtc.time(23 * kSecond).second, 4);
    }

    void twelveHourModeAndWrites() {
        Rtc rtc;
        rtc.powerOn(at(2026, 12, 7, 15, 4, 0), 0);
        QCOMPARE(int(rtc.read(Rtc::CF, 0)), int(Rtc::k24Hour)); // what AROS looks for: an MSM6242B
        QCOMPARE(int(rtc.read(Rtc::H10, 0)), 1);
        QCOMPARE(int(rtc.read(Rtc::H1, 0)), 5);
        rtc.write(Rtc::CF, 0, 0); // 12-hour mode: 3 PM
        QCOMPARE(int(rtc.read(Rtc::H10, 0)), 4);
        QCOMPARE(int(rtc.read(Rtc::H1, 0)), 3);
        rtc.write(Rtc::H10, 4 | 1, 0); // 1x PM
        rtc.write(Rtc::H1, 1, 0);      // 11 PM
        QCOMPARE(rtc.time(0).hour, 23);
        rtc.write(Rtc::H10, 0, 0); // 01 AM
        QCOMPARE(rtc.time(0).hour, 1);
        rtc.write(Rtc::CF, Rtc::k24Hour, 0);
        // Digits written one register at a time, the unused bits ignored.
        rtc.write(Rtc::MI10, 0xF, 0); // three bits: 7
        QCOMPARE(int(rtc.read(Rtc::MI10, 0)), 7);
        rtc.write(Rtc::MI10, 5, 0);
        rtc.write(Rtc::MI1, 9, 0);
        rtc.write(Rtc::Y10, 8, 0);
        rtc.write(Rtc::Y1, 5, 0);
        rtc.write(Rtc::MO10, 1, 0);
        rtc.write(Rtc::MO1, 2, 0);
        rtc.write(Rtc::D10, 3, 0);
        rtc.write(Rtc::D1, 1, 0);
        rtc.write(Rtc::H10, 2, 0);
        rtc.write(Rtc::H1, 3, 0);
        rtc.write(Rtc::S10, 5, 0);
        rtc.write(Rtc::S1, 9, 0);
        rtc.write(Rtc::W, 2, 0);
        QCOMPARE(shown(rtc, 0), std::string("85-12-31 23:59:59 w2"));
        QCOMPARE(shown(rtc, kSecond), std::string("86-01-01 00:00:00 w3"));
        QCOMPARE(rtc.time(kSecond).year, 1986);
        // IRQ FLAG cannot be set by software (AROS tells an MSM6242B from an RF5C01A so).
        rtc.write(Rtc::CD, Rtc::kIrqFlag, kSecond);
        QCOMPARE(int(rtc.read(Rtc::CD, kSecond)), 0);
    }

    void thirtySecondAdjustRoundsToTheMinute() {
        Rtc rtc;
        rtc.powerOn(at(2026, 12, 7, 10, 59, 45), 0);
        rtc.write(Rtc::CD, Rtc::kAdjust30, 0);
        QCOMPARE(rtc.time(0).iso(), std::string("2026-12-07T11:00:00"));
        QCOMPARE(int(rtc.read(Rtc::CD, 0)), 0);
        rtc.setTime(at(2026, 12, 7, 10, 59, 29), 0);
        rtc.write(Rtc::CD, Rtc::kAdjust30, 0);
        QCOMPARE(rtc.time(0).iso(), std::string("2026-12-07T10:59:00"));
    }

    void frozenStandsStill() {
        Rtc rtc;
        rtc.powerOn(at(2026, 12, 7, 10, 30, 0), 0);
        rtc.setFrozen(true, 5 * kSecond);
        QCOMPARE(rtc.time(500 * kSecond).iso(), std::string("2026-12-07T10:30:05"));
        rtc.setFrozen(false, 500 * kSecond);
        QCOMPARE(rtc.time(501 * kSecond).iso(), std::string("2026-12-07T10:30:06"));
    }

    void peekChangesNothingAndStateRoundTrips() {
        Rtc rtc;
        rtc.powerOn(at(2026, 12, 7, 10, 30, 0), 0);
        rtc.write(Rtc::CD, Rtc::kHold, kSecond / 2);
        rtc.write(Rtc::CE, 0x5, kSecond / 2);
        QCOMPARE(int(rtc.peek(Rtc::S1, 2 * kSecond)), 0);
        Archive save = Archive::saver();
        rtc.serialize(save);
        const std::vector<std::uint8_t> bytes = save.takeBytes();
        Rtc copy;
        Archive load = Archive::loader(bytes);
        copy.serialize(load);
        QCOMPARE(load.remaining(), std::size_t(0));
        for (unsigned r = 0; r < Rtc::kRegisters; ++r) QCOMPARE(copy.peek(r, 2 * kSecond), rtc.peek(r, 2 * kSecond));
        // The held carry travelled with the state: releasing HOLD adds it in both.
        rtc.write(Rtc::CD, 0, 2 * kSecond);
        copy.write(Rtc::CD, 0, 2 * kSecond);
        QCOMPARE(copy.time(2 * kSecond), rtc.time(2 * kSecond));
        QCOMPARE(rtc.time(2 * kSecond).second, 1);
    }
};

QTEST_GUILESS_MAIN(TestRtc)
#include "test_rtc.moc"
