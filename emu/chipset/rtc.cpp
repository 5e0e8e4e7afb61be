// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/rtc.h"

#include "emu/state/archive.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>

namespace copperline {

namespace {

constexpr std::int64_t kSecondsPerDay = 86'400;

// The unused bits of each counter register read 0 and ignore writes (the tens of
// seconds and minutes have three bits, the tens of hours two and the PM flag, of days
// two, of months one, the day of the week three).
constexpr std::uint8_t kCounterMask[13] = {0xF, 0x7, 0xF, 0x7, 0xF, 0x7, 0xF, 0x3, 0xF, 0x1, 0xF, 0xF, 0x7};

int daysInMonth(int month, int year2) {
    switch (month) {
    case 2: return year2 % 4 == 0 ? 29 : 28; // the chip's rule: every fourth year
    case 4:
    case 6:
    case 9:
    case 11: return 30;
    default: return 31;
    }
}

// (Built by appending: GCC 12 misreads "'" + std::string as an overlapping copy.)
std::string quoted(std::string_view text) {
    std::string q = "'";
    q.append(text);
    q += '\'';
    return q;
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

} // namespace

// ---- calendar ----------------------------------------------------------------------------

std::int64_t RtcTime::daysFromCivil(int year, int month, int day) {
    // Count in eras of 400 years (146,097 days) from 1 March of year 0, so that the leap
    // day falls at the end of each counted year.
    const std::int64_t y = std::int64_t(year) - (month <= 2 ? 1 : 0);
    const std::int64_t era = floorDiv(y, 400);
    const std::int64_t yearOfEra = y - era * 400;                                  // 0-399
    const std::int64_t monthFromMarch = (month + 9) % 12;                          // March = 0
    const std::int64_t dayOfYear = (153 * monthFromMarch + 2) / 5 + (day - 1);     // 0-365
    const std::int64_t dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146'097 + dayOfEra - 719'468; // 719,468 days from 0000-03-01 to 1970-01-01
}

std::int64_t RtcTime::toUnix() const {
    return daysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600 + minute * 60 + second;
}

RtcTime RtcTime::fromUnix(std::int64_t seconds) {
    RtcTime t;
    const std::int64_t days = floorDiv(seconds, kSecondsPerDay);
    const std::int64_t rest = seconds - days * kSecondsPerDay;
    t.hour = int(rest / 3600);
    t.minute = int(rest / 60 % 60);
    t.second = int(rest % 60);
    t.weekday = int(((days % 7) + 7 + 4) % 7); // 1970-01-01 was a Thursday
    // The inverse of daysFromCivil.
    const std::int64_t z = days + 719'468;
    const std::int64_t era = floorDiv(z, 146'097);
    const std::int64_t dayOfEra = z - era * 146'097;
    const std::int64_t yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36'524 - dayOfEra / 146'096) / 365;
    const std::int64_t dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    const std::int64_t monthFromMarch = (5 * dayOfYear + 2) / 153;
    t.day = int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1);
    t.month = int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9);
    t.year = int(yearOfEra + era * 400 + (t.month <= 2 ? 1 : 0));
    return t;
}

bool RtcTime::representable(std::int64_t unixSeconds) {
    return unixSeconds >= daysFromCivil(1978, 1, 1) * kSecondsPerDay &&
           unixSeconds < daysFromCivil(2078, 1, 1) * kSecondsPerDay;
}

bool RtcTime::valid() const {
    if (year < 1978 || year > 2077 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
        minute < 0 || minute > 59 || second < 0 || second > 59 || weekday < 0 || weekday > 6)
        return false;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return day <= (month == 2 ? (leap ? 29 : 28) : daysInMonth(month, 1));
}

std::string RtcTime::iso() const {
    char text[32];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second);
    return text;
}

std::optional<RtcTime> RtcTime::fromUnixChecked(std::int64_t seconds, std::string& error) {
    if (!representable(seconds)) {
        error = "the clock's two year digits hold 1978 to 2077; " + std::to_string(seconds) +
                " seconds since 1970 is outside them";
        return std::nullopt;
    }
    return fromUnix(seconds);
}

std::optional<RtcTime> RtcTime::parse(std::string_view text, std::string& error) {
    if (text == "now") {
        const std::time_t now = std::time(nullptr);
        std::tm local{};
        if (!localtime_r(&now, &local)) {
            error = "the host's local time is unavailable";
            return std::nullopt;
        }
        RtcTime t;
        t.year = local.tm_year + 1900;
        t.month = local.tm_mon + 1;
        t.day = local.tm_mday;
        t.hour = local.tm_hour;
        t.minute = local.tm_min;
        t.second = std::min(local.tm_sec, 59); // a leap second shows as :59
        t.weekday = local.tm_wday;
        if (!t.valid()) {
            error = "the host's date " + t.iso() + " is outside the clock's 1978 to 2077";
            return std::nullopt;
        }
        return t;
    }
    const char* const begin = text.data();
    const char* const end = begin + text.size();
    auto number = [&](const char*& p, int digits, int& out) {
        const char* const start = p;
        const auto r = std::from_chars(p, std::min(end, p + digits), out);
        if (r.ec != std::errc{} || r.ptr - start != digits) return false;
        p = r.ptr;
        return true;
    };
    const bool allDigits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
    if (allDigits) {
        std::int64_t seconds = 0;
        const auto r = std::from_chars(begin, end, seconds);
        if (r.ec != std::errc{} || r.ptr != end) {
            error = quoted(text) + " is too large a number of seconds";
            return std::nullopt;
        }
        return fromUnixChecked(seconds, error);
    }
    RtcTime t;
    t.hour = t.minute = t.second = 0;
    const char* p = begin;
    bool ok = number(p, 4, t.year) && p < end && *p++ == '-' && number(p, 2, t.month) && p < end && *p++ == '-' &&
              number(p, 2, t.day);
    if (ok && p != end) {
        ok = (*p == 'T' || *p == ' ') && number(++p, 2, t.hour) && p < end && *p++ == ':' && number(p, 2, t.minute);
        if (ok && p != end) ok = *p++ == ':' && number(p, 2, t.second) && p == end;
    }
    if (!ok) {
        error = quoted(text) + " is not a time: give now, seconds since 1970, or YYYY-MM-DD[THH:MM[:SS]]";
        return std::nullopt;
    }
    t.weekday = 0;
    const std::int64_t days = daysFromCivil(t.year, t.month, t.day);
    t.weekday = int(((days % 7) + 7 + 4) % 7);
    if (!t.valid()) {
        error = quoted(text) + " is not a date and time between 1978 and 2077";
        return std::nullopt;
    }
    return t;
}

// ---- the chip ----------------------------------------------------------------------------

void Rtc::powerOn(const RtcTime& t, std::uint64_t cck) {
    cd_ = 0;
    ce_ = 0;
    cf_ = k24Hour;
    heldCarry_ = false;
    setTime(t, cck);
}

void Rtc::setTime(const RtcTime& t, std::uint64_t cck) {
    c_.second = std::uint8_t(t.second);
    c_.minute = std::uint8_t(t.minute);
    setHour24(t.hour);
    c_.day = std::uint8_t(t.day);
    c_.month = std::uint8_t(t.month);
    c_.year = std::uint8_t(((t.year % 100) + 100) % 100);
    c_.weekday = std::uint8_t(t.weekday);
    lastCck_ = cck;
    partCck_ = 0;
    heldCarry_ = false;
}

RtcTime Rtc::time(std::uint64_t cck) const {
    Rtc now = *this;
    now.advance(cck);
    RtcTime t;
    t.year = now.c_.year + (now.c_.year >= 78 ? 1900 : 2000);
    t.month = now.c_.month;
    t.day = now.c_.day;
    t.hour = now.hour24();
    t.minute = now.c_.minute;
    t.second = now.c_.second;
    t.weekday = now.c_.weekday;
    return t;
}

void Rtc::setFrozen(bool frozen, std::uint64_t cck) {
    advance(cck); // the time up to now counts at the old setting
    frozen_ = frozen;
}

void Rtc::advance(std::uint64_t cck) {
    if (cck <= lastCck_) return;
    const std::uint64_t delta = cck - lastCck_;
    lastCck_ = cck;
    if (frozen_ || (cf_ & kStop)) return;
    if (cf_ & kRest) {
        partCck_ = 0;
        return;
    }
    partCck_ += delta;
    std::uint64_t seconds = partCck_ / cckPerSecond_;
    partCck_ %= cckPerSecond_;
    if (seconds == 0) return;
    if (cd_ & kHold) {
        heldCarry_ = true; // the chip keeps one carry; more seconds held are lost
        return;
    }
    while (seconds--) tick();
}

void Rtc::setHour24(int hour) {
    if (h24()) {
        c_.hour = std::uint8_t(hour);
        c_.pm = false;
    } else {
        c_.hour = std::uint8_t(hour % 12);
        c_.pm = hour >= 12;
    }
}

void Rtc::tick() {
    Counters& c = c_;
    if (++c.second < 60) return;
    c.second = 0;
    if (++c.minute < 60) return;
    c.minute = 0;
    if (h24()) {
        if (++c.hour < 24) return;
        c.hour = 0;
    } else {
        if (++c.hour < 12) return;
        c.hour = 0;
        c.pm = !c.pm;
        if (c.pm) return; // noon
    }
    c.weekday = std::uint8_t(c.weekday >= 6 ? 0 : c.weekday + 1);
    if (++c.day <= daysInMonth(c.month, c.year)) return;
    c.day = 1;
    if (++c.month <= 12) return;
    c.month = 1;
    c.year = std::uint8_t(c.year >= 99 ? 0 : c.year + 1);
}

std::uint8_t Rtc::registerValue(unsigned reg) const {
    const unsigned hour = c_.hour;
    switch (reg & 15) {
    case S1: return c_.second % 10;
    case S10: return (c_.second / 10) & kCounterMask[S10];
    case MI1: return c_.minute % 10;
    case MI10: return (c_.minute / 10) & kCounterMask[MI10];
    case H1: return std::uint8_t(hour % 10);
    case H10: return std::uint8_t(((hour / 10) & 3) | (!h24() && c_.pm ? 4 : 0));
    case D1: return c_.day % 10;
    case D10: return (c_.day / 10) & kCounterMask[D10];
    case MO1: return c_.month % 10;
    case MO10: return (c_.month / 10) & kCounterMask[MO10];
    case Y1: return c_.year % 10;
    case Y10: return (c_.year / 10) & 0xF;
    case W: return c_.weekday & kCounterMask[W];
    case CD: return cd_ & kHold; // BUSY and IRQ FLAG never set here; the adjust clears at once
    case CE: return ce_;
    default: return cf_;
    }
}

void Rtc::writeCounter(unsigned reg, std::uint8_t nibble) {
    auto setDigits = [&](std::uint8_t& v, bool tens) {
        const unsigned units = v % 10, ten = v / 10;
        v = std::uint8_t(tens ? nibble * 10 + units : ten * 10 + nibble);
    };
    switch (reg) {
    case S1: case S10: setDigits(c_.second, reg == S10); break;
    case MI1: case MI10: setDigits(c_.minute, reg == MI10); break;
    case H1: setDigits(c_.hour, false); break;
    case H10:
        if (!h24()) c_.pm = nibble & 4;
        nibble &= 3;
        setDigits(c_.hour, true);
        break;
    case D1: case D10: setDigits(c_.day, reg == D10); break;
    case MO1: case MO10: setDigits(c_.month, reg == MO10); break;
    case Y1: case Y10: setDigits(c_.year, reg == Y10); break;
    case W: c_.weekday = nibble; break;
    default: break;
    }
}

std::uint8_t Rtc::read(unsigned reg, std::uint64_t cck) {
    advance(cck);
    return registerValue(reg);
}

std::uint8_t Rtc::peek(unsigned reg, std::uint64_t cck) const {
    Rtc now = *this;
    now.advance(cck);
    return now.registerValue(reg);
}

void Rtc::write(unsigned reg, std::uint8_t value, std::uint64_t cck) {
    advance(cck);
    reg &= 15;
    value &= 15;
    switch (reg) {
    case CD: {
        const bool wasHeld = cd_ & kHold;
        cd_ = value & kHold; // IRQ FLAG can only be cleared, and is never set here
        if (wasHeld && !(cd_ & kHold) && heldCarry_) {
            heldCarry_ = false;
            tick();
        }
        if (value & kAdjust30) {
            // Rounds to the nearest minute: 30 seconds or more carry into the minutes.
            if (c_.second >= 30) {
                c_.second = 59;
                tick();
            } else {
                c_.second = 0;
            }
            partCck_ = 0;
        }
        break;
    }
    case CE: ce_ = value; break;
    case CF: {
        // Switching between 12- and 24-hour mode keeps the time shown (the chip's data
        // sheet asks software to set the hour again after a switch; this saves it that).
        const int hour = hour24();
        cf_ = value;
        setHour24(hour);
        if (cf_ & kRest) partCck_ = 0;
        break;
    }
    default: writeCounter(reg, std::uint8_t(value & kCounterMask[reg])); break;
    }
}

void Rtc::serialize(Archive& ar) {
    ar(c_.second, c_.minute, c_.hour, c_.pm, c_.day, c_.month, c_.year, c_.weekday);
    ar(cd_, ce_, cf_, heldCarry_, frozen_, lastCck_, partCck_);
}

} // namespace copperline
