// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The battery-backed clock of the A501 trapdoor card: an OKI MSM6242B at $DC0000, present
// when the machine has slow RAM (the card carries both). Sixteen 4-bit registers, one per
// longword, read and written on the low nibble of the odd bytes ($DC0001 + 4n and
// $DC0003 + 4n):
//
//    0 S1   1 S10   2 MI1   3 MI10   4 H1   5 H10 (bit 2: PM in 12-hour mode)
//    6 D1   7 D10   8 MO1   9 MO10  10 Y1  11 Y10  12 W (day of the week, 0-6)
//   13 CD: bit 0 HOLD, bit 1 BUSY (read), bit 2 IRQ FLAG, bit 3 30-second adjust
//   14 CE: bit 0 MASK, bit 1 ITRPT/STND, bits 2-3 the period (t0, t1)
//   15 CF: bit 0 REST, bit 1 STOP, bit 2 24/12, bit 3 TEST
//
// The counters advance with emulated time (the chip's own 32.768 kHz crystal, here one
// second per second of colour clocks), never with the host's: a machine started twice
// at the same time reads the same clock at the same clock cycle, so runs and states
// repeat exactly. HOLD stops the carry into the seconds and, on release, adds the one
// second that came due while it was held (as the chip does); STOP and REST stop the
// count (REST also clears the part-second). The years count 00-99, leap every fourth
// (year % 4 == 0), as the chip has it. What is not modelled: the period interrupt (the
// A501 leaves the chip's STD.P pin unconnected, so IRQ FLAG is never set and reads 0),
// TEST mode, BUSY (an update is instantaneous here, so BUSY reads 0).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace copperline {

class Archive;

// A wall-clock time as the chip counts it. `year` is the full year: the chip keeps two
// digits and, as AmigaOS's battclock.resource does, 78-99 read as 1978-1999 and 00-77 as
// 2000-2077.
struct RtcTime {
    int year = 2000, month = 1, day = 1, hour = 0, minute = 0, second = 0;
    int weekday = 6; // 0 = Sunday; 1 January 2000 was a Saturday

    bool operator==(const RtcTime&) const = default;

    // Days since 1970-01-01 of a date in the proleptic Gregorian calendar, and back.
    static std::int64_t daysFromCivil(int year, int month, int day);
    // Seconds since 1970-01-01 00:00:00 of this wall time, as if it were UTC.
    std::int64_t toUnix() const;
    static RtcTime fromUnix(std::int64_t seconds);
    // The range the chip's two year digits can hold: 1978-01-01 to 2077-12-31.
    static bool representable(std::int64_t unixSeconds);
    bool valid() const; // a real date and time within that range

    // "YYYY-MM-DDTHH:MM:SS".
    std::string iso() const;
    // What --rtc-time and rtc.set take: "now" (the host's local time), seconds since
    // 1970 as UTC ("1700000000"), or "YYYY-MM-DD", "YYYY-MM-DDTHH:MM" or
    // "YYYY-MM-DDTHH:MM:SS" (a space may stand for the T). The weekday is worked out. A
    // time outside 1978-2077, or no time at all, is refused with `error` saying why.
    static std::optional<RtcTime> parse(std::string_view text, std::string& error);
    static std::optional<RtcTime> fromUnixChecked(std::int64_t seconds, std::string& error);
};

class Rtc {
public:
    static constexpr unsigned kRegisters = 16;
    enum Reg : unsigned { S1, S10, MI1, MI10, H1, H10, D1, D10, MO1, MO10, Y1, Y10, W, CD, CE, CF };
    static constexpr std::uint8_t kHold = 1, kBusy = 2, kIrqFlag = 4, kAdjust30 = 8;
    static constexpr std::uint8_t kRest = 1, kStop = 2, k24Hour = 4, kTest = 8;

    // The colour clocks in one second of emulated time (PAL 3,546,895; NTSC 3,579,545).
    void setCckPerSecond(std::uint32_t cck) { cckPerSecond_ = cck; }

    // Power-on: the counters show `t`, the part-second is zero, the control registers as
    // a battery-backed chip set by AmigaOS keeps them (24-hour mode, running).
    void powerOn(const RtcTime& t, std::uint64_t cck);

    // The register `reg` (0-15) at colour clock `cck`: the counters brought up to that
    // clock first.
    std::uint8_t read(unsigned reg, std::uint64_t cck);
    void write(unsigned reg, std::uint8_t value, std::uint64_t cck);
    // A read that changes nothing (the debugger's): what read() would answer at `cck`.
    std::uint8_t peek(unsigned reg, std::uint64_t cck) const;

    // The counters as a time at `cck` (the debugger's rtc.get), and setting them (rtc.set):
    // the part-second starts again from zero.
    RtcTime time(std::uint64_t cck) const;
    void setTime(const RtcTime& t, std::uint64_t cck);
    // Frozen: the clock does not advance with emulated time (--rtc-frozen).
    void setFrozen(bool frozen, std::uint64_t cck);
    bool frozen() const { return frozen_; }
    // Whether software stopped the count (CF STOP or REST).
    bool stopped() const { return (cf_ & (kStop | kRest)) != 0; }

    void serialize(Archive& ar);

private:
    // The counters as the chip holds them: each a value of its two digits, so that a
    // guest writing one digit at a time passes through what it writes. `hour` is the hour
    // as the registers show it: 0-23 in 24-hour mode, 0-11 and `pm` in 12-hour mode.
    struct Counters {
        std::uint8_t second = 0, minute = 0, hour = 0, day = 1, month = 1, year = 0, weekday = 6;
        bool pm = false;
    };
    bool h24() const { return cf_ & k24Hour; }
    int hour24() const { return h24() ? c_.hour : c_.hour % 12 + (c_.pm ? 12 : 0); }
    void setHour24(int hour);
    // Brings the counters up to `cck`.
    void advance(std::uint64_t cck);
    void tick();
    std::uint8_t registerValue(unsigned reg) const;
    void writeCounter(unsigned reg, std::uint8_t nibble);

    Counters c_;
    std::uint8_t cd_ = 0, ce_ = 0, cf_ = k24Hour;
    bool heldCarry_ = false; // a second came due while HOLD was set
    bool frozen_ = false;
    std::uint64_t lastCck_ = 0;   // the counters are up to date at this clock
    std::uint64_t partCck_ = 0;   // colour clocks toward the next second
    std::uint32_t cckPerSecond_ = 3'546'895;
};

} // namespace copperline
