// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/denise.h"

#include "emu/chipset/custom_regs.h"
#include "emu/state/archive.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace copperline {

namespace {

// BPLCON0 bits (HRM appendix A).
constexpr std::uint16_t kHires = 0x8000, kHomod = 0x0800, kDblpf = 0x0400;
// BPLCON2 bit 6.
constexpr std::uint16_t kPf2pri = 0x0040;
// SPRxCTL bit 7: attach (odd sprites).
constexpr std::uint16_t kAttach = 0x0080;

// Planes 1, 3, 5 (odd, playfield 1) and 2, 4, 6 (even, playfield 2) as bits of a pixel.
constexpr std::uint8_t kOddPlanes = 0b010101, kEvenPlanes = 0b101010;

// $0RGB to 0xFFRRGGBB: each 4-bit gun is repeated into both nibbles of its byte.
constexpr std::uint32_t expand12(unsigned c) {
    const unsigned r = (c >> 8) & 15, g = (c >> 4) & 15, b = c & 15;
    return 0xFF000000u | (r * 0x11u) << 16 | (g * 0x11u) << 8 | (b * 0x11u);
}

struct Rgb12Table {
    std::array<std::uint32_t, 4096> v{};
    constexpr Rgb12Table() {
        for (unsigned c = 0; c < 4096; ++c)
            v[c] = expand12(c);
    }
};
constexpr Rgb12Table kRgb12{};

// A byte of shifter data, MSB first, as eight bytes each holding 0 or 1: byte i of the
// result (memory order on a little-endian host) is bit 7-i.
struct SpreadTable {
    std::array<std::uint64_t, 256> bytes{};
    // A nibble, MSB first, each bit doubled: eight bytes for four lores pixels.
    std::array<std::uint64_t, 16> nibbles{};
    constexpr SpreadTable() {
        for (unsigned b = 0; b < 256; ++b)
            for (unsigned i = 0; i < 8; ++i)
                if (b & (0x80u >> i)) bytes[b] |= std::uint64_t(1) << (8 * i);
        for (unsigned n = 0; n < 16; ++n)
            for (unsigned i = 0; i < 4; ++i)
                if (n & (8u >> i)) nibbles[n] |= std::uint64_t(0x0101) << (16 * i);
    }
};
constexpr SpreadTable kSpread{};
static_assert(std::endian::native == std::endian::little,
              "the shifter tables assume a little-endian host");

// CLXDAT bits for sprite-sprite collisions, by the set of sprite pairs present at a pixel
// (bit g = pair g, i.e. sprites 2g/2g+1). HRM table 7-3: bit 9 = 0/1-2/3, 10 = 0/1-4/5,
// 11 = 0/1-6/7, 12 = 2/3-4/5, 13 = 2/3-6/7, 14 = 4/5-6/7.
struct SpriteClxTable {
    std::array<std::uint16_t, 16> v{};
    constexpr SpriteClxTable() {
        constexpr unsigned bit[4][4] = {
            {0, 9, 10, 11}, {9, 0, 12, 13}, {10, 12, 0, 14}, {11, 13, 14, 0}};
        for (unsigned m = 0; m < 16; ++m)
            for (unsigned a = 0; a < 4; ++a)
                for (unsigned b = a + 1; b < 4; ++b)
                    if ((m >> a & 1) && (m >> b & 1)) v[m] = std::uint16_t(v[m] | 1u << bit[a][b]);
    }
};
constexpr SpriteClxTable kSpriteClx{};

inline std::uint64_t load64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline void store64(std::uint8_t* p, std::uint64_t v) {
    std::memcpy(p, &v, 8);
}

bool isSpriteReg(std::uint16_t r) {
    return r >= reg::SPR0POS && r < reg::SPR0POS + 0x40;
}

} // namespace

void Denise::Sprite::serialize(Archive& ar) {
    ar(pos, ctl, dataA, dataB, shiftA, shiftB, compare, armed);
}
void Denise::Pending::serialize(Archive& ar) {
    ar(due, half, reg, value);
}

Denise::Denise() {
    reset(); // the picture too, PAL's size until setGeometry says otherwise
}

void Denise::setGeometry(unsigned lines, unsigned cckPerLine) {
    height_ = std::max(1u, lines);
    lineCck_ = std::clamp(cckPerLine, 1u, kMaxLineCck);
    width_ = lineCck_ * kPixelsPerCck;
    picture_.assign(std::size_t(height_) * width_, kBlack);
}

void Denise::reset() {
    bplcon0_ = bplcon1_ = bplcon2_ = 0;
    diwstrt_ = diwstop_ = clxcon_ = clxdat_ = 0;
    colour_.fill(0);
    bpldat_.fill(0);
    sprites_.fill(Sprite{});
    joy_.fill(0);
    bplPipe_.fill(0);
    armedOdd_ = armedEven_ = false;
    armTick_ = 0;
    queuedCount_ = queuedNext_ = 0;
    shifted_.fill(0);
    shiftEnd_ = 0;
    hstart_ = 0;
    hstop_ = 0x100;
    window_ = false;
    ham_ = 0;
    lastBits_ = 0;
    spritesLive_ = 0;
    pending_.fill(Pending{});
    pendingCount_ = 0;
    tick_ = 0;
    lineVpos_ = 0xFFFF;
    shadow_.fill(0);
    tablesDirty_ = true;
    layoutDirty_ = true;
    picture_.assign(std::size_t(height_) * width_, kBlack);
    frames_ = 0;
    started_ = false;
    longFrame_ = true;
    interlaced_ = false;
}

unsigned Denise::planes() const {
    // BPU 7 is not a mode; Denise then takes all six planes (vAmiga Denise::bpu; Agnus
    // fetches four, which is the "HAM with constant planes 5 and 6" trick).
    const unsigned bpu = (bplcon0_ >> 12) & 7;
    return bpu > 6 ? 6 : bpu;
}

// ---- registers --------------------------------------------------------------------------

void Denise::poke(std::uint16_t r, std::uint16_t v) {
    r &= 0x1FE;
    if (r >= reg::COLOR00 && r < reg::COLOR00 + 64) {
        // Colour registers hold 12 bits, $0RGB (HRM appendix A). A write reaches the pixels
        // of this very clock (column 4s): vAmiga pokeCOLORxx, CL COLOR_WRITE_HPOS_FB0.
        shadow_[r >> 1] = v;
        colour_[(r - reg::COLOR00) >> 1] = v & 0x0FFF;
        coloursDirty_ |= 1u << ((r - reg::COLOR00) >> 1);
        tablesDirty_ = true;
        return;
    }
    if (r >= reg::BPL1DAT && r < reg::BPL1DAT + 12) {
        // "Writing BPL1DAT parallel-loads all BPLxDAT into the shift registers" (HRM
        // appendix A). The load itself waits for the scroll comparator (loadShifters),
        // so the words are held in the meantime; a later BPLxDAT belongs to the next load.
        writeBitplane((r - reg::BPL1DAT) >> 1, v);
        return;
    }
    if (isSpriteReg(r)) {
        shadow_[r >> 1] = v;
        // All four sprite registers take the same delay so that writes made close together
        // keep their order (CTL disarms, DATA arms). vAmiga: POS/CTL at column 4s+6.
        schedule(1, 1, r, v);
        return;
    }
    switch (r) {
    case reg::BPLCON0:
        // BPLCON0 reaches Denise's colour logic at column 4s (vAmiga setBPLCON0 records it
        // one CCK later and four pixels earlier), the same place as a colour write, which
        // is what keeps a HAM switch and a palette change in one slot together (CL).
        shadow_[r >> 1] = v;
        bplcon0_ = v;
        tablesDirty_ = true;
        layoutDirty_ = true;
        break;
    case reg::BPLCON1:
        shadow_[r >> 1] = v;
        schedule(1, 0, r, v); // scroll comparators use it from the next CCK (vAmiga)
        break;
    case reg::BPLCON2:
        shadow_[r >> 1] = v;
        schedule(2, 0, r, v); // column 4s+8 (vAmiga setBPLCON2)
        break;
    case reg::DIWSTRT:
    case reg::DIWSTOP:
        shadow_[r >> 1] = v;
        schedule(1, 0, r, v); // column 4s+4 (vAmiga: Denise's copy lands one CCK later)
        break;
    case reg::CLXCON:
        shadow_[r >> 1] = v;
        clxcon_ = v;
        tablesDirty_ = true;
        layoutDirty_ = true;
        break;
    case reg::JOYTEST: {
        // Writes bits 7-2 of all four counters at once (HRM appendix A, JOYTEST).
        shadow_[r >> 1] = v;
        for (auto& j : joy_)
            j = std::uint16_t((j & 0x0303) | (v & 0xFCFC));
        break;
    }
    default: break;
    }
}

std::uint16_t Denise::peek(std::uint16_t r) {
    r &= 0x1FE;
    if (r == reg::CLXDAT) {
        // "Automatically cleared to 0 after it is read" (HRM table 7-3). Bit 15 is not
        // used and reads 1 (vAmiga peekCLXDAT).
        const std::uint16_t v = std::uint16_t(clxdat_ | 0x8000);
        clxdat_ = 0;
        return v;
    }
    if (r == reg::JOY0DAT || r == reg::JOY1DAT) return spy(r);
    return 0;
}

std::uint16_t Denise::spy(std::uint16_t r) const {
    r &= 0x1FE;
    switch (r) {
    case reg::CLXDAT: return std::uint16_t(clxdat_ | 0x8000);
    case reg::JOY0DAT: return joy_[0];
    case reg::JOY1DAT: return joy_[1];
    default: return shadow_[r >> 1];
    }
}

void Denise::moveMouse(unsigned port, int dx, int dy) {
    std::uint16_t& j = joy_[port & 1];
    const auto x = std::uint8_t((j & 0xFF) + dx);
    const auto y = std::uint8_t((j >> 8) + dy);
    j = std::uint16_t(y << 8 | x);
}

void Denise::schedule(unsigned delay, unsigned half, std::uint16_t r, std::uint16_t v) {
    const Pending p{tick_ + delay, std::uint8_t(half), r, v};
    if (pendingCount_ == kMaxPending) {
        // Only a flood of writes within two clocks could get here; apply the oldest now.
        apply(pending_[0].reg, pending_[0].value);
        std::move(pending_.begin() + 1, pending_.begin() + pendingCount_, pending_.begin());
        --pendingCount_;
    }
    // Keep the queue ordered by (due, half), writes of the same moment in write order.
    unsigned i = pendingCount_;
    while (i > 0 && (pending_[i - 1].due > p.due ||
                     (pending_[i - 1].due == p.due && pending_[i - 1].half > p.half))) {
        pending_[i] = pending_[i - 1];
        --i;
    }
    pending_[i] = p;
    ++pendingCount_;
}

void Denise::applyPending(unsigned half) {
    unsigned n = 0;
    while (n < pendingCount_ && pending_[n].due <= tick_ && pending_[n].half <= half) {
        apply(pending_[n].reg, pending_[n].value);
        ++n;
    }
    if (n) {
        std::move(pending_.begin() + n, pending_.begin() + pendingCount_, pending_.begin());
        pendingCount_ -= n;
    }
}

void Denise::apply(std::uint16_t r, std::uint16_t v) {
    if (isSpriteReg(r)) {
        writeSpriteRegister((r - reg::SPR0POS) >> 3, (r >> 1) & 3, v);
        return;
    }
    switch (r) {
    case reg::BPLCON1: bplcon1_ = v & 0xFF; break; // PF2H in 7-4, PF1H in 3-0 (OCS)
    case reg::BPLCON2:
        bplcon2_ = v & 0x7F;
        tablesDirty_ = true;
        layoutDirty_ = true;
        break;
    case reg::DIWSTRT:
        // Denise compares the horizontal half: H7-H0 with H8 = 0 for the start, H8 = 1
        // for the stop (HRM "Display window", node0083).
        diwstrt_ = v;
        hstart_ = v & 0xFF;
        break;
    case reg::DIWSTOP:
        diwstop_ = v;
        hstop_ = std::uint16_t((v & 0xFF) | 0x100);
        break;
    default: break;
    }
}

void Denise::writeSpriteRegister(unsigned n, unsigned which, std::uint16_t v) {
    Sprite& s = sprites_[n];
    switch (which) {
    case 0: s.pos = v; break; // SV7-SV0 | SH8-SH1
    case 1:
        // SPRxCTL: EV7-EV0 | ATT | - | SV8 EV8 SH0. Writing it disarms the sprite (HRM
        // "Sprite hardware details", node00C9).
        s.ctl = v;
        s.armed = false;
        break;
    case 2:
        // Writing SPRxDATA arms the sprite: it starts at the next HSTART match.
        s.dataA = v;
        s.armed = true;
        break;
    default: s.dataB = v; break;
    }
    // HSTART is H8-H1 from POS and H0 from CTL, in lores pixels; the first pixel shows one
    // counter step later (vAmiga Denise::updateSprHCoords: +2 hires pixels).
    const unsigned h = (s.pos & 0xFF) << 1 | (s.ctl & 1);
    s.compare = std::uint16_t((h + 1) & 0x1FF);
    if (s.armed || s.shiftA || s.shiftB) spritesLive_ = std::uint8_t(spritesLive_ | 1u << n);
}

// ---- tables -------------------------------------------------------------------------------

void Denise::buildTables() {
    tablesDirty_ = false;
    const auto palette = [this] {
        for (unsigned i = 0; i < 32; ++i) {
            rgb_[i] = kRgb12.v[colour_[i]];
            // Extra half-brite: each gun halved (HRM "Extra half brite mode").
            rgb_[32 + i] = kRgb12.v[(colour_[i] >> 1) & 0x777];
        }
    };
    if (!layoutDirty_) {
        // Only colour registers changed (COLORxx writes): the playfield table's colour
        // numbers, codes and matches stand; the entries showing a changed colour, or its
        // half-bright copy, take its new value.
        for (std::uint32_t dirty = coloursDirty_; dirty; dirty &= dirty - 1) {
            const unsigned i = unsigned(std::countr_zero(dirty));
            rgb_[i] = kRgb12.v[colour_[i]];
            rgb_[32 + i] = kRgb12.v[(colour_[i] >> 1) & 0x777];
            for (std::uint64_t users = colourUsers_[i] | colourUsers_[32 + i]; users; users &= users - 1) {
                const unsigned s = unsigned(std::countr_zero(users));
                pfRgb_[s] = rgb_[pf_[s].colour] * kTwoColumns;
            }
        }
        coloursDirty_ = 0;
        return;
    }
    layoutDirty_ = false;
    coloursDirty_ = 0;
    const bool dpf = bplcon0_ & kDblpf;
    const bool ham = (bplcon0_ & kHomod) && !dpf;
    if (ham && !hamMode_) {
        // Entering HAM: the hold register starts from the colour the last pixel showed
        // (the old tables still describe it; rgb_ repeats each gun's nibble).
        const std::uint32_t c = std::uint32_t(pfRgb_[lastBits_]);
        ham_ = std::uint16_t((c >> 12 & 0xF00) | (c >> 8 & 0x0F0) | (c >> 4 & 0x00F));
    }
    hamMode_ = ham;
    palette();

    colourUsers_.fill(0);
    const unsigned pf1 = bplcon2_ & 7, pf2 = (bplcon2_ >> 3) & 7;
    const bool pf2First = bplcon2_ & kPf2pri;
    const unsigned enabled = (clxcon_ >> 6) & 0x3F, value = clxcon_ & 0x3F;
    for (unsigned s = 0; s < 64; ++s) {
        Playfield p{};
        // A plane takes part in a collision only if enabled, and then must equal its match
        // value; with no plane enabled the match is always true (HRM table 7-4).
        const bool m1 = ((s ^ value) & enabled & kOddPlanes) == 0;
        const bool m2 = ((s ^ value) & enabled & kEvenPlanes) == 0;
        if (dpf) {
            // Playfield 1 is planes 1/3/5 with colours 0-7, playfield 2 planes 2/4/6 with
            // colours 8-15; colour 0 of each is transparent; PF2PRI puts 2 in front (HRM
            // "Dual-playfield mode"). A priority code above 4 is no position in the chain:
            // that playfield then shows nothing (vAmiga translateDPF).
            const unsigned i1 = (s & 1) | (s >> 1 & 2) | (s >> 2 & 4);
            const unsigned i2 = (s >> 1 & 1) | (s >> 2 & 2) | (s >> 3 & 4);
            const bool a1 = i1 && pf1 <= 4, a2 = i2 && pf2 <= 4;
            if (a1 && (!a2 || !pf2First)) {
                p.colour = std::uint8_t(i1);
                p.code = std::uint8_t(pf1);
            } else if (a2) {
                p.colour = std::uint8_t(8 + i2);
                p.code = std::uint8_t(pf2);
            } else {
                p.colour = 0;
                p.code = kTransparent;
            }
            p.match = std::uint8_t((m1 ? 1 : 0) | (m2 ? 2 : 0));
        } else {
            // One playfield: the six bits are the colour number, 32-63 being the half-brite
            // copies of 0-31 (six planes, neither HAM nor dual playfield). Its place among
            // the sprites is PF2P, not PF1P ("PF2P2-PF2P0 are the priority bits for normal
            // (non-dual) playfields", HRM node0159).
            p.colour = std::uint8_t(s);
            p.code = s ? std::uint8_t(pf2) : kTransparent;
            if (pf2 > 4 && s) {
                // An invalid code puts the playfield behind every sprite, and where plane 5
                // is set Denise drops planes 1-4 (vAmiga translateSPF, vAmigaTS
                // Denise/BPLCON0/invprio; not in HAM).
                p.code = 4;
                if (!hamMode_ && (s & 0x10)) p.colour = std::uint8_t(s & 0x30);
            }
            // With one playfield an odd-plane (PF1) match counts only where the even planes
            // match too (a hardware observation, vAmiga checkS2PCollisions / EAB).
            p.match = std::uint8_t((m1 && m2 ? 1 : 0) | (m2 ? 2 : 0));
        }
        pf_[s] = p;
        pfRgb_[s] = rgb_[p.colour] * kTwoColumns;
        colourUsers_[p.colour] |= std::uint64_t(1) << s;
    }
}

// ---- the beam -----------------------------------------------------------------------------

void Denise::beginFrame(bool longFrame, bool interlaced) {
    if (started_) {
        ++frames_;
        if (frameHook_) frameHook_(*this);
    }
    started_ = true;
    longFrame_ = longFrame;
    interlaced_ = interlaced;
    lineVpos_ = 0xFFFF;
}

std::uint32_t Denise::rgb(unsigned index) const {
    const unsigned c = colour_[index & 31];
    return kRgb12.v[(index & 32) ? (c >> 1) & 0x777 : c];
}

const std::uint32_t* Denise::line(unsigned vpos) const {
    return vpos < height_ ? picture_.data() + std::size_t(vpos) * width_ : nullptr;
}

void Denise::exchangePicture(std::vector<std::uint32_t>& field, unsigned lines) {
    lines = std::min(lines, height_);
    const std::size_t size = std::size_t(height_) * width_;
    picture_.swap(field);
    // The old buffer (a field handed over before, or nothing yet) takes what it must keep
    // from the picture just handed over; the rest the next field draws.
    picture_.resize(size);
    std::copy(field.begin() + std::ptrdiff_t(std::size_t(lines) * width_), field.end(),
              picture_.begin() + std::ptrdiff_t(std::size_t(lines) * width_));
    constexpr unsigned kShortLinePixels = kPalLineCck * kPixelsPerCck;
    if (width_ > kShortLinePixels)
        for (unsigned y = 0; y < lines; ++y) {
            const std::size_t row = std::size_t(y) * width_;
            std::copy(field.begin() + std::ptrdiff_t(row + kShortLinePixels),
                      field.begin() + std::ptrdiff_t(row + width_),
                      picture_.begin() + std::ptrdiff_t(row + kShortLinePixels));
        }
    field.resize(std::size_t(lines) * width_);
}

void Denise::startLine(std::uint16_t vpos) {
    lineVpos_ = vpos;
    // Shifter output and sprite pixels that ran past the end of the previous line would
    // show in the next line's horizontal blank; they are dropped.
    std::fill_n(shifted_.begin(), shiftEnd_, std::uint8_t(0));
    shiftEnd_ = 0;
    spritesLive_ = 0;
    for (unsigned n = 0; n < 8; ++n) {
        Sprite& s = sprites_[n];
        s.shiftA = s.shiftB = 0;
        if (s.armed) spritesLive_ = std::uint8_t(spritesLive_ | 1u << n);
    }
}

void Denise::loadShifters(unsigned hpos) {
    // The parallel load waits for the scroll comparator: Denise compares the low bits of
    // its counter (the CCK within a 16-pixel word: 3 bits lores, 2 hires) with the delay's
    // upper bits; the delay's low bit is a one-lores-pixel (two column) shift. The delay
    // counts lores pixels in both resolutions, so hires ignores its bit 3 (vAmiga
    // Sequencer::computeBplEvents, Agnus::setBPLCON1, Denise::setBPLCON1; CL "hi-res
    // ignores nibble bit 3"). PF1H delays the odd planes, PF2H the even (HRM node0092).
    const bool hires = bplcon0_ & kHires;
    const unsigned mask = hires ? 3 : 7;
    const unsigned n = planes();
    const unsigned delayOdd = bplcon1_ & 15, delayEven = (bplcon1_ >> 4) & 15;
    if (armedOdd_ && armedEven_ && (hpos & mask) == ((delayOdd >> 1) & mask) &&
        (hpos & mask) == ((delayEven >> 1) & mask) && ((delayOdd ^ delayEven) & 1) == 0) {
        // Both playfields load here, into the same columns: every plane's bit is replaced
        // (the loop below, for both parities at once; plane p is bit p of a pixel).
        armedOdd_ = armedEven_ = false;
        std::uint8_t* dst = shifted_.data() + hpos * kPixelsPerCck + 2 + 2 * (delayOdd & 1);
        if (hires) {
            std::uint64_t high = 0, low = 0;
            for (unsigned p = 0; p < n; ++p) {
                const unsigned w = bplPipe_[p];
                high |= kSpread.bytes[w >> 8] << p;
                low |= kSpread.bytes[w & 0xFF] << p;
            }
            store64(dst, high);
            store64(dst + 8, low);
            shiftEnd_ = std::max(shiftEnd_, unsigned(dst + 16 - shifted_.data()));
        } else {
            std::uint64_t quarter[4] = {0, 0, 0, 0};
            for (unsigned p = 0; p < n; ++p) {
                const unsigned w = bplPipe_[p];
                quarter[0] |= kSpread.nibbles[w >> 12] << p;
                quarter[1] |= kSpread.nibbles[(w >> 8) & 15] << p;
                quarter[2] |= kSpread.nibbles[(w >> 4) & 15] << p;
                quarter[3] |= kSpread.nibbles[w & 15] << p;
            }
            for (unsigned q = 0; q < 4; ++q) store64(dst + 8 * q, quarter[q]);
            shiftEnd_ = std::max(shiftEnd_, unsigned(dst + 32 - shifted_.data()));
        }
        return;
    }
    for (unsigned parity = 0; parity < 2; ++parity) {
        bool& armed = parity ? armedEven_ : armedOdd_;
        if (!armed) continue;
        const unsigned delay = (bplcon1_ >> (4 * parity)) & 15;
        if ((hpos & mask) != ((delay >> 1) & mask)) continue;
        armed = false;
        const std::uint64_t keep =
            std::uint64_t(std::uint8_t(~(parity ? kEvenPlanes : kOddPlanes))) * 0x0101010101010101ull;
        std::uint8_t* dst = shifted_.data() + hpos * kPixelsPerCck + 2 + 2 * (delay & 1);
        // This playfield's planes that BPU enables (1, 3, 5 or 2, 4, 6): the words of the
        // others shift out zeros (vAmiga updateShiftRegistersOdd/Even).
        const unsigned count = (n + 1 - parity) / 2;
        const std::uint16_t* words = bplPipe_.data() + parity; // every second one
        if (hires) {
            std::uint64_t high = 0, low = 0;
            for (unsigned k = 0; k < count; ++k) {
                const unsigned w = words[2 * k], shift = parity + 2 * k;
                high |= kSpread.bytes[w >> 8] << shift;
                low |= kSpread.bytes[w & 0xFF] << shift;
            }
            store64(dst, (load64(dst) & keep) | high);
            store64(dst + 8, (load64(dst + 8) & keep) | low);
            shiftEnd_ = std::max(shiftEnd_, unsigned(dst + 16 - shifted_.data()));
        } else {
            std::uint64_t quarter[4] = {0, 0, 0, 0};
            for (unsigned k = 0; k < count; ++k) {
                const unsigned w = words[2 * k], shift = parity + 2 * k;
                quarter[0] |= kSpread.nibbles[w >> 12] << shift;
                quarter[1] |= kSpread.nibbles[(w >> 8) & 15] << shift;
                quarter[2] |= kSpread.nibbles[(w >> 4) & 15] << shift;
                quarter[3] |= kSpread.nibbles[w & 15] << shift;
            }
            for (unsigned q = 0; q < 4; ++q) store64(dst + 8 * q, (load64(dst + 8 * q) & keep) | quarter[q]);
            shiftEnd_ = std::max(shiftEnd_, unsigned(dst + 32 - shifted_.data()));
        }
    }
}

// Hold-and-modify: planes 5/6 select: 00 a colour register (planes 1-4), 01 modify blue,
// 10 modify red, 11 modify green, holding the other two guns of the previous pixel (HRM
// "Hold-and-modify mode"). The hold register follows every pixel the shifters send,
// inside the window or not (CL video.md: hidden samples still advance it).
std::uint16_t Denise::holdAndModify(std::uint16_t held, std::uint8_t bits) const {
    const unsigned v = bits & 15;
    switch (bits >> 4) {
    case 0: return colour_[v];
    case 1: return std::uint16_t((held & 0xFF0) | v);
    case 2: return std::uint16_t((held & 0x0FF) | v << 8);
    default: return std::uint16_t((held & 0xF0F) | v << 4);
    }
}

void Denise::clock(std::uint16_t vpos, std::uint16_t hpos, bool blank) {
    if (vpos != lineVpos_) startLine(vpos);
    if (hpos >= kMaxLineCck) hpos = kMaxLineCck - 1;
    // A BPL1DAT write queued for this clock comes before it, as it came before it was drawn.
    while (queuedNext_ < queuedCount_ && queued_[queuedNext_].tick <= tick_) takeQueuedLoad();
    if (pendingCount_ && pending_[0].due <= tick_) applyPending(0);
    if ((armedOdd_ || armedEven_) && tick_ > armTick_) loadShifters(hpos);
    if (tablesDirty_) buildTables();

    std::uint32_t scratch[kPixelsPerCck];
    std::uint32_t* out = (vpos < height_ && hpos < lineCck_)
                             ? picture_.data() + std::size_t(vpos) * width_ + hpos * kPixelsPerCck
                             : scratch;

    const bool edge = (hstart_ >> 1) == hpos || (hstop_ >> 1) == hpos;
    const bool halfDue = pendingCount_ && pending_[0].due <= tick_;
    // An armed sprite with empty shifters only matters in the clock of its comparator.
    bool sprites = false;
    for (unsigned live = spritesLive_; live && !sprites; live &= live - 1) {
        const Sprite& s = sprites_[std::countr_zero(live)];
        sprites = (s.shiftA | s.shiftB) || (s.compare >> 1) == hpos;
    }
    if (edge || halfDue || sprites) {
        clockSlow(out, hpos, blank);
    } else if (hamMode_) {
        std::uint8_t* d = shifted_.data() + hpos * kPixelsPerCck;
        for (unsigned k = 0; k < 4; ++k) {
            const std::uint8_t bits = d[k];
            if (!(clxdat_ & 1) && pf_[bits].match == 3) clxdat_ |= 1;
            ham_ = holdAndModify(ham_, bits);
            out[k] = blank ? kBlack : window_ ? kRgb12.v[ham_] : rgb_[0];
        }
        std::memset(d, 0, 4);
    } else {
        // Nothing changes inside this clock: four table lookups.
        std::uint8_t* d = shifted_.data() + hpos * kPixelsPerCck;
        if (!(clxdat_ & 1))
            for (unsigned k = 0; k < 4; ++k)
                if (pf_[d[k]].match == 3) clxdat_ |= 1;
        if (blank) {
            out[0] = out[1] = out[2] = out[3] = kBlack;
        } else if (window_) {
            for (unsigned k = 0; k < 4; ++k)
                out[k] = std::uint32_t(pfRgb_[d[k]]);
        } else {
            out[0] = out[1] = out[2] = out[3] = rgb_[0];
        }
        lastBits_ = d[3];
        std::memset(d, 0, 4);
    }
    ++tick_;
}

void Denise::clockRun(std::uint16_t vpos, unsigned h0, unsigned h1, bool blank) {
    h1 = std::min(h1, kMaxLineCck);
    if (h0 >= h1) return;
    if (vpos != lineVpos_) startLine(vpos);
    unsigned h = h0;
    while (h < h1) {
        // A clock in which a write falls due or the window's edge is drawn by clock().
        if ((pendingCount_ && pending_[0].due <= tick_) || (hstart_ >> 1) == h || (hstop_ >> 1) == h) {
            clock(vpos, std::uint16_t(h), blank);
            ++h;
            continue;
        }
        // Plain clocks run up to the next sprite comparator; a sprite with pixels to shift,
        // or its comparator here, makes a sprite run of at most 8 clocks (16 lores pixels,
        // a shifter's width), comparators and all (spriteRun). In HAM (as the tables will
        // be built: a BPLCON0 write may have left them to build) such a clock goes by
        // clock().
        unsigned end = h1;
        bool shifting = false;
        for (unsigned live = spritesLive_; live; live &= live - 1) {
            const Sprite& sp = sprites_[std::countr_zero(live)];
            const unsigned at = sp.compare >> 1;
            if ((sp.shiftA | sp.shiftB) || at == h) shifting = true;
            else if (at > h) end = std::min(end, at);
        }
        if (shifting) {
            if (hamMode_ || (bplcon0_ & kHomod)) {
                clock(vpos, std::uint16_t(h), blank);
                ++h;
                continue;
            }
            end = std::min(h1, h + 8);
        }
        // The plain clocks (or the sprite run) run until the next edge, the next write
        // falling due or the end.
        if ((hstart_ >> 1) > h) end = std::min(end, unsigned(hstart_ >> 1));
        if ((hstop_ >> 1) > h) end = std::min(end, unsigned(hstop_ >> 1));
        if (pendingCount_) end = unsigned(std::min<std::uint64_t>(end, h + (pending_[0].due - tick_)));
        // A held word loads at the first clock after the write whose low bits match its
        // playfield's scroll (loadShifters). A load inside the run is made before it is
        // drawn: it fills the shifter output from its own clock on, which the run draws
        // after the clocks before it, and nothing else in the run depends on it. A load at
        // or past the run's end waits for its own run. So do the loads of the BPL1DAT
        // writes queued inside the run, write by write: a write replaces the words held,
        // and the loads of those still waiting with them.
        for (;;) {
            const bool another = queuedNext_ < queuedCount_ && queued_[queuedNext_].tick < tick_ + (end - h);
            const unsigned limit = another ? h + unsigned(queued_[queuedNext_].tick - tick_) : end;
            if (armedOdd_ || armedEven_) loadsBefore(h, limit);
            if (!another) break;
            takeQueuedLoad();
        }
        if (tablesDirty_) buildTables();
        if (shifting) {
            spriteRun(vpos, h, end, blank);
            tick_ += end - h;
            h = end;
            continue;
        }

        const unsigned n = (end - h) * kPixelsPerCck;
        const unsigned column = h * kPixelsPerCck;
        std::uint8_t* d = shifted_.data() + column;
        // Only the columns a load reached hold bits (shiftEnd_); past them every pixel is 0.
        const unsigned live = shiftEnd_ > column ? std::min(n, shiftEnd_ - column) : 0;
        // The pixels of the run that are in the picture (clock() sends the rest nowhere).
        const unsigned last = std::min(end, lineCck_);
        const unsigned drawn = vpos < height_ && last > h ? (last - h) * kPixelsPerCck : 0;
        std::uint32_t* out = drawn ? picture_.data() + std::size_t(vpos) * width_ + column : nullptr;
        if (!(clxdat_ & 1)) {
            for (unsigned k = 0; k < live; ++k)
                if (pf_[d[k]].match == 3) {
                    clxdat_ |= 1;
                    break;
                }
            if (live < n && pf_[0].match == 3) clxdat_ |= 1;
        }
        if (hamMode_) {
            for (unsigned k = 0; k < n; ++k) {
                ham_ = holdAndModify(ham_, d[k]);
                if (k < drawn) out[k] = blank ? kBlack : window_ ? kRgb12.v[ham_] : rgb_[0];
            }
        } else {
            if (blank) {
                std::fill(out, out + drawn, kBlack);
            } else if (window_) {
                const unsigned looked = std::min(live, drawn);
                unsigned k = 0;
                // A lores pixel fills two columns (a pair starts at an even column): where
                // eight columns hold four such pairs, one look-up serves both of a pair.
                for (; k + 8 <= looked; k += 8) {
                    const std::uint64_t w = load64(d + k);
                    if ((w ^ (w >> 8)) & 0x00FF00FF00FF00FFull) {
                        for (unsigned j = 0; j < 8; ++j) out[k + j] = std::uint32_t(pfRgb_[d[k + j]]);
                        continue;
                    }
                    for (unsigned j = 0; j < 8; j += 2) {
                        std::memcpy(out + k + j, &pfRgb_[d[k + j]], sizeof pfRgb_[0]);
                    }
                }
                for (; k < looked; ++k) out[k] = std::uint32_t(pfRgb_[d[k]]);
                std::fill(out + looked, out + drawn, std::uint32_t(pfRgb_[0]));
            } else {
                std::fill(out, out + drawn, rgb_[0]);
            }
            lastBits_ = live == n ? d[n - 1] : 0;
        }
        std::memset(d, 0, (live + kPixelsPerCck - 1) / kPixelsPerCck * kPixelsPerCck);
        tick_ += end - h;
        h = end;
    }
}

void Denise::loadsBefore(unsigned h, unsigned limit) {
    const unsigned mask = (bplcon0_ & kHires) ? 3 : 7;
    const unsigned first = h + (tick_ > armTick_ ? 0u : unsigned(armTick_ - tick_) + 1);
    unsigned at[2] = {limit, limit};
    for (unsigned parity = 0; parity < 2; ++parity) {
        if (!(parity ? armedEven_ : armedOdd_)) continue;
        const unsigned want = ((bplcon1_ >> (4 * parity)) >> 1) & mask;
        at[parity] = first + ((want - first) & mask);
    }
    // Both playfields' loads at one clock happen in one call.
    if (at[0] < limit) loadShifters(at[0]);
    if (at[1] < limit && at[1] != at[0]) loadShifters(at[1]);
}

std::uint8_t Denise::pairColour(unsigned g, unsigned a, unsigned b) const {
    // An attached pair (ATT on the odd sprite) is one 15-colour sprite in COLOR17-31;
    // otherwise pair g has colours 16+4g .. 16+4g+3, the even sprite in front, with 0
    // transparent (HRM "Attached sprites").
    if (sprites_[2 * g + 1].ctl & kAttach) return std::uint8_t(16 + (a | b << 2));
    return std::uint8_t(16 + 4 * g + (a ? a : b));
}

std::uint16_t Denise::spriteCollisions(unsigned pairs, unsigned match) {
    // Pairs against pairs, and each pair against the odd (PF1) and even (PF2) planes.
    std::uint16_t c = kSpriteClx.v[pairs];
    if (match & 1) c = std::uint16_t(c | pairs << 1);
    if (match & 2) c = std::uint16_t(c | pairs << 5);
    return c;
}

void Denise::spriteRun(std::uint16_t vpos, unsigned h0, unsigned h1, bool blank) {
    // Clocks h0 .. h1-1 (at most 8) drawn as clockSlow draws them, where no window edge
    // and no write falls and HAM is off. Each live sprite's pixels over the run are one
    // window of 32 bits, the i-th lores pixel at bit 31-i: its shifters, and from its
    // comparator on (an armed sprite whose comparator falls in the run) its data words.
    const unsigned count = 2 * (h1 - h0); // lores pixels, at most 16
    const unsigned first = 2 * h0;        // the counter at the run's first
    std::uint64_t windowA[8], windowB[8];
    std::uint64_t any = 0;
    const unsigned live = spritesLive_;
    for (unsigned n = 0; n < 8; ++n) {
        windowA[n] = windowB[n] = 0;
        if (!(live >> n & 1)) continue;
        const Sprite& sp = sprites_[n];
        std::uint64_t a = std::uint64_t(sp.shiftA) << 16, b = std::uint64_t(sp.shiftB) << 16;
        if (sp.armed && sp.compare >= first && sp.compare < first + count) {
            // Loaded at pixel at: the shifters' first pixels before it, the data after.
            const unsigned at = sp.compare - first;
            const std::uint64_t keep = ~((std::uint64_t(1) << (32 - at)) - 1) & 0xFFFFFFFFu;
            a = (a & keep) | std::uint64_t(sp.dataA) << (16 - at);
            b = (b & keep) | std::uint64_t(sp.dataB) << (16 - at);
        }
        windowA[n] = a;
        windowB[n] = b;
        any |= a | b;
    }
    // Each pair's pixels as masks over the window: present, and in its collisions (odd
    // sprites only if CLXCON enables them).
    std::uint64_t present[4], collides[4];
    for (unsigned g = 0; g < 4; ++g) {
        const std::uint64_t a = windowA[2 * g] | windowB[2 * g], b = windowA[2 * g + 1] | windowB[2 * g + 1];
        present[g] = a | b;
        collides[g] = a | ((clxcon_ >> (12 + g) & 1) ? b : 0);
    }
    const unsigned column0 = h0 * kPixelsPerCck;
    std::uint8_t* const d = shifted_.data() + column0;
    const unsigned last = std::min(h1, lineCck_);
    const unsigned drawn = vpos < height_ && last > h0 ? (last - h0) * kPixelsPerCck : 0;
    std::uint32_t* const out = drawn ? picture_.data() + std::size_t(vpos) * width_ + column0 : nullptr;
    for (unsigned i = 0; i < count; ++i) {
        const unsigned bit = 31 - i;
        std::uint8_t spriteColour = 0; // 0: no sprite pixel
        unsigned spritePair = 4;
        unsigned pairs = 0; // sprite pairs present for collisions
        if (any >> bit & 1) {
            for (unsigned g = 0; g < 4; ++g) pairs |= unsigned(collides[g] >> bit & 1) << g;
            // The lowest pair with a pixel wins.
            unsigned g = 0;
            while (!(present[g] >> bit & 1)) ++g;
            const unsigned a = unsigned(windowA[2 * g] >> bit & 1) | unsigned(windowB[2 * g] >> bit & 1) << 1;
            const unsigned b = unsigned(windowA[2 * g + 1] >> bit & 1) | unsigned(windowB[2 * g + 1] >> bit & 1) << 1;
            spriteColour = pairColour(g, a, b);
            spritePair = g;
        }
        for (unsigned k = 0; k < 2; ++k) {
            const unsigned column = 2 * i + k;
            const unsigned bits = d[column];
            const Playfield& p = pf_[bits];
            if (!(clxdat_ & 1) && p.match == 3) clxdat_ |= 1;
            if (pairs && k == 0) clxdat_ |= spriteCollisions(pairs, p.match);
            if (column >= drawn) continue;
            std::uint32_t pixel;
            if (blank) pixel = kBlack;
            else if (!window_) pixel = rgb_[0]; // (no sprites in the border)
            else if (spriteColour && (p.code == kTransparent || spritePair < p.code)) pixel = rgb_[spriteColour];
            else pixel = std::uint32_t(pfRgb_[bits]);
            out[column] = pixel;
        }
    }
    lastBits_ = d[2 * count - 1];
    std::memset(d, 0, 2 * count);
    // The shifters hold the window's next 16 pixels.
    unsigned still = 0;
    for (unsigned n = 0; n < 8; ++n) {
        if (!(live >> n & 1)) continue;
        Sprite& sp = sprites_[n];
        sp.shiftA = std::uint16_t(windowA[n] >> (16 - count));
        sp.shiftB = std::uint16_t(windowB[n] >> (16 - count));
        if (sp.armed || sp.shiftA || sp.shiftB) still |= 1u << n;
    }
    spritesLive_ = std::uint8_t(still);
}

void Denise::clockSlow(std::uint32_t* out, unsigned hpos, bool blank) {
    for (unsigned half = 0; half < 2; ++half) {
        if (half == 1 && pendingCount_ && pending_[0].due <= tick_) {
            applyPending(1);
            if (tablesDirty_) buildTables();
        }
        const unsigned counter = hpos * 2 + half;
        // The window flip-flop: set at HSTART, cleared at HSTOP; the pixel at HSTART is the
        // first inside, the one at HSTOP the first outside (vAmiga updateBorderBuffer).
        if (counter == hstart_) window_ = true;
        if (counter == hstop_) window_ = false;

        // Sprites: each armed sprite loads its data words when the counter reaches its
        // HSTART comparator, then shifts one bit out per lores pixel (HRM chapter 4).
        std::uint8_t spriteColour = 0; // 0: no sprite pixel
        unsigned spritePair = 4;
        std::uint8_t pairs = 0; // sprite pairs present for collisions
        if (spritesLive_) {
            std::uint8_t px[8] = {};
            std::uint8_t live = 0;
            const unsigned was = spritesLive_; // (a local: the sprites' stores may alias it)
            for (unsigned n = 0; n < 8; ++n) {
                if (!(was >> n & 1)) continue;
                Sprite& s = sprites_[n];
                if (s.armed && counter == s.compare) {
                    s.shiftA = s.dataA;
                    s.shiftB = s.dataB;
                }
                px[n] = std::uint8_t((s.shiftA >> 15) | (s.shiftB >> 14 & 2));
                s.shiftA = std::uint16_t(s.shiftA << 1);
                s.shiftB = std::uint16_t(s.shiftB << 1);
                if (s.armed || s.shiftA || s.shiftB) live = std::uint8_t(live | 1u << n);
            }
            spritesLive_ = live;
            for (unsigned g = 4; g-- > 0;) {
                const unsigned a = px[2 * g], b = px[2 * g + 1];
                // Odd sprites join their pair's collisions only if CLXCON enables them.
                if (a || (b && (clxcon_ >> (12 + g) & 1))) pairs = std::uint8_t(pairs | 1u << g);
                if (!(a | b)) continue;
                // The lower-numbered pair wins.
                spriteColour = pairColour(g, a, b);
                spritePair = g;
            }
        }

        std::uint8_t* d = shifted_.data() + counter * 2;
        for (unsigned k = 0; k < 2; ++k) {
            const std::uint8_t bits = d[k];
            d[k] = 0;
            lastBits_ = bits;
            const Playfield& p = pf_[bits];
            if (hamMode_) ham_ = holdAndModify(ham_, bits);
            // Collisions come from the raw shifter and sprite data, window or not.
            if (!(clxdat_ & 1) && p.match == 3) clxdat_ |= 1;
            if (pairs && k == 0) clxdat_ |= spriteCollisions(pairs, p.match);
            std::uint32_t pixel;
            if (blank) {
                pixel = kBlack;
            } else if (!window_) {
                // The border is COLOR00, and OCS shows no sprites there (docs/denise.md).
                pixel = rgb_[0];
            } else if (spriteColour && (p.code == kTransparent || spritePair < p.code)) {
                // A sprite pair shows in front of the playfield if its place in the chain
                // comes before the playfield's code (HRM table 7-2).
                pixel = rgb_[spriteColour];
            } else {
                pixel = hamMode_ ? kRgb12.v[ham_] : std::uint32_t(pfRgb_[bits]);
            }
            out[half * 2 + k] = pixel;
        }
    }
}

// ---- state ----------------------------------------------------------------------------------

void Denise::serialize(Archive& ar) {
    ar(bplcon0_, bplcon1_, bplcon2_, diwstrt_, diwstop_, clxcon_, clxdat_);
    ar(colour_, bpldat_, sprites_, joy_, bplPipe_, armedOdd_, armedEven_, armTick_);
    ar(shifted_, hstart_, hstop_, window_, ham_, lastBits_, spritesLive_);
    ar(pendingCount_, pending_, tick_, lineVpos_, shadow_);
    ar(frames_, started_, longFrame_, interlaced_);
    if (ar.loading()) {
        if (pendingCount_ > kMaxPending)
            throw StateError("Denise state holds too many pending writes");
        // Six bitplanes make pixel values 0-63; the colour tables have 64 entries.
        if (lastBits_ >= 64 || std::any_of(shifted_.begin(), shifted_.end(), [](std::uint8_t v) { return v >= 64; }))
            throw StateError("Denise state holds a pixel value above 63 (six bitplanes at most)");
        // COLORxx registers hold 12 bits; the colour table has 4096 entries.
        if (std::any_of(colour_.begin(), colour_.end(), [](std::uint16_t c) { return c > 0xFFF; }))
            throw StateError("Denise state holds a colour above $FFF (12 bits)");
        // The mode the tables were built for, so that rebuilding them sees no HAM switch.
        hamMode_ = (bplcon0_ & kHomod) && !(bplcon0_ & kDblpf);
        queuedCount_ = queuedNext_ = 0;
        tablesDirty_ = true;
        layoutDirty_ = true;
        shiftEnd_ = kShiftColumns;
    }
}

} // namespace copperline
