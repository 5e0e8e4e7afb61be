// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Denise 8362 (OCS), the video output chip: the bitplane shifters, the colour palette,
// the eight sprite serialisers, the playfield/sprite priority logic, the collision
// detector, the horizontal display-window comparator and the mouse counters (HRM chapters
// 3, 4, 7 and appendix A). docs/denise.md describes the model and where its numbers come
// from.
//
// Agnus drives it one colour clock (CCK) at a time. Within one CCK Agnus first makes the
// clock's bus transfer (a bitplane or sprite DMA word, a Copper MOVE) with poke(), then
// calls clock(vpos, hpos, blank), which emits the four hires pixels of that clock. A poke
// made after clock() belongs to the next CCK.
//
// The picture is a field buffer of 0xFFRRGGBB pixels with one row per beam line and four
// pixels per CCK, from hpos 0 to the end of the line. Column x of a row is Denise's
// horizontal counter x/2 in lores pixels, the unit of DIWSTRT/DIWSTOP and sprite HSTART:
// the standard window start H=$81 is column $102, hpos $40.
//
// Where each input lands, in columns, for an event in CCK s (all from vAmiga's Denise,
// which the HRM's DDF/DIW formulas and CL's hardware-checked numbers agree with):
//   - COLORxx, BPLCON0:            from column 4s;
//   - DIWSTRT/DIWSTOP, SPRxDATA/B: from column 4s+4;
//   - SPRxPOS/SPRxCTL:             from column 4s+6;
//   - BPLCON2:                     from column 4s+8;
//   - BPLCON1:                     compared from CCK s+1;
//   - BPL1DAT: the shifters load at the first CCK j > s whose low bits (3 lores, 2 hires)
//     equal the scroll value / 2, and shift out from column 4j + 2 + 2*(scroll & 1). With
//     no scroll a word loaded by the fetch at $3F (DDFSTRT $38 lores, $3C hires) starts at
//     column $102 = DIW H $81, as HRM "DDFSTRT = DIWSTRT/2 - 8.5" (4.5 hires) requires.
//   - a sprite whose HSTART is H shows its first pixel at counter H+1 (column 2H+2).

#include "emu/chipset/custom_regs.h"

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace copperline {

class Archive;

class Denise {
public:
    static constexpr unsigned kPalLines = 313;
    static constexpr unsigned kPalLineCck = 227;
    static constexpr unsigned kMaxLineCck = 256; // hpos is 8 bits
    static constexpr unsigned kPixelsPerCck = 4;

    // Colours are 0xFFRRGGBB.
    static constexpr std::uint32_t kBlack = 0xFF000000u;

    Denise();

    // Field geometry: rows (beam lines) and colour clocks per line. Defaults to PAL,
    // 313 x 227 (908 pixels a row); NTSC long lines need 228. Clears the picture.
    void setGeometry(unsigned lines, unsigned cckPerLine);

    // Power-on / RESET: all registers zero, the picture black.
    void reset();

    // A write to one of Denise's registers (byte offset from $DFF000): DIWSTRT, DIWSTOP,
    // CLXCON, BPLCON0-2, BPL1DAT-BPL6DAT, SPRxPOS/CTL/DATA/DATB, COLOR00-31, JOYTEST.
    // Other offsets are ignored.
    void poke(std::uint16_t reg, std::uint16_t value);
    // poke(BPL1DAT + 2 * plane, value), for bitplane DMA (plane 0-5).
    void writeBitplane(unsigned plane, std::uint16_t value) {
        shadow_[(reg::BPL1DAT >> 1) + plane] = value;
        if (plane == 0) {
            // The words are copied before BPL1DAT's is stored: read back at once, a word
            // just stored would stall the wider loads of the copy.
            bplPipe_ = bpldat_;
            bplPipe_[0] = value;
            armedOdd_ = armedEven_ = true;
            armTick_ = tick_;
        }
        bpldat_[plane] = value;
    }
    // BPL1DAT written by bitplane DMA `ahead` colour clocks after the last one drawn, before
    // Denise has drawn up to it: the write takes effect when her drawing reaches that clock,
    // exactly as writeBitplane(0, value) would there (BPL2DAT-BPL6DAT, which only hold
    // their words until then, are written at once with writeBitplane). The clocks are drawn
    // with clockRun or clock; loadsQueueFull() says when no more can wait.
    void queueBitplaneLoad(unsigned ahead, std::uint16_t value) {
        shadow_[reg::BPL1DAT >> 1] = value;
        QueuedLoad& q = queued_[queuedCount_++];
        q.tick = tick_ + ahead;
        q.words = bpldat_; // (before BPL1DAT's word is stored, as in writeBitplane)
        q.words[0] = value;
        bpldat_[0] = value;
    }
    bool loadsQueueFull() const { return queuedCount_ == kMaxQueued; }
    // A read with its side effects: CLXDAT clears. JOY0DAT/JOY1DAT return the counters.
    // Offsets Denise does not drive return 0 (the bus decides what such a read yields).
    std::uint16_t peek(std::uint16_t reg);
    // What a read would return, changing nothing; for write-only registers the value last
    // written (a debugger's view).
    std::uint16_t spy(std::uint16_t reg) const;

    // One colour clock at beam position (vpos, hpos): emits pixels 4*hpos..4*hpos+3 of
    // row vpos. `blank` is true in horizontal/vertical blanking; those pixels are black,
    // while the chip's state (shifters, sprites, collisions, HAM) runs on as usual.
    void clock(std::uint16_t vpos, std::uint16_t hpos, bool blank);
    // Colour clocks h0 .. h1-1 of line vpos, all with the same `blank`: exactly what
    // clock() for each of them in turn does, but the clocks between two things that can
    // change a pixel's path (a window edge, a register write falling due, a shifter load,
    // a sprite) are drawn in one pass. Agnus gives Denise its clocks this way, in the runs
    // between the writes it makes to Denise (docs/denise.md, "Clocks in runs").
    void clockRun(std::uint16_t vpos, unsigned h0, unsigned h1, bool blank);

    // The start of a field. Counts the field that ends here (if one was started) and calls
    // the frame hook, then starts the new one. Rows a field does not reach keep their
    // previous contents.
    void beginFrame(bool longFrame, bool interlaced);
    std::uint64_t framesCompleted() const { return frames_; }
    // Called from beginFrame() when a field is complete, with the picture still intact.
    void setFrameHook(std::function<void(const Denise&)> hook) { frameHook_ = std::move(hook); }
    bool longFrame() const { return longFrame_; }
    bool interlaced() const { return interlaced_; }

    // The picture: row vpos (nullptr past the last row), width() pixels long.
    const std::uint32_t* line(unsigned vpos) const;
    // Hands over the field drawn so far, rows 0 .. lines-1 (at most height()): `field`
    // becomes those rows, and Denise draws on in the buffer `field` held, without copying
    // the whole picture. Every pixel the next field does not draw over keeps what it held
    // here: rows from `lines` on, and the columns past a short line's end (NTSC lines of
    // 227 colour clocks in a picture 228 wide).
    void exchangePicture(std::vector<std::uint32_t>& field, unsigned lines);
    unsigned width() const { return width_; }
    unsigned height() const { return height_; }

    // Mouse/joystick counters (JOYxDAT: Y in bits 15-8, X in bits 7-0; HRM "Reading the
    // mouse"). The machine's input layer moves them; the counters wrap at 8 bits.
    void moveMouse(unsigned port, int dx, int dy);
    void setJoyData(unsigned port, std::uint16_t value) { joy_[port & 1] = value; }

    // Palette entry as 0xFFRRGGBB (index 0-31; 32-63 are the half-bright copies).
    std::uint32_t rgb(unsigned index) const;

    void serialize(Archive& ar);

private:
    struct Sprite {
        std::uint16_t pos = 0, ctl = 0, dataA = 0, dataB = 0;
        std::uint16_t shiftA = 0, shiftB = 0;
        std::uint16_t compare = 0; // Denise counter value of the first pixel: HSTART + 1
        bool armed = false;
        void serialize(Archive& ar);
    };

    // A register write waiting for its pipeline delay (see the table at the top).
    struct Pending {
        std::uint64_t due = 0; // tick at which it applies
        std::uint8_t half = 0; // 0: at the clock's first lores pixel, 1: at its second
        std::uint16_t reg = 0;
        std::uint16_t value = 0;
        void serialize(Archive& ar);
    };
    static constexpr unsigned kMaxPending = 64;

    // One entry of the playfield table, indexed by the six shifter bits of a pixel.
    struct Playfield {
        std::uint8_t colour; // palette index 0-63 (32-63: half-bright)
        std::uint8_t code;   // priority against sprite pairs 0-4; kTransparent if clear
        std::uint8_t match;  // collision matches: bit 0 odd planes (PF1), bit 1 even (PF2)
    };
    static constexpr std::uint8_t kTransparent = 0xFF;

    static constexpr unsigned kShiftColumns = kMaxLineCck * kPixelsPerCck + 64;

    void schedule(unsigned delay, unsigned half, std::uint16_t reg, std::uint16_t value);
    void applyPending(unsigned half);
    void apply(std::uint16_t reg, std::uint16_t value);
    void writeSpriteRegister(unsigned n, unsigned which, std::uint16_t value);
    void startLine(std::uint16_t vpos);
    void loadShifters(unsigned hpos);
    void buildTables();
    void clockSlow(std::uint32_t* out, unsigned hpos, bool blank);
    void spriteRun(std::uint16_t vpos, unsigned h0, unsigned h1, bool blank); // clockRun's
    // Sprite pair g's colour for its even sprite's pixel a and its odd one's b (not both 0),
    // and the CLXDAT bits of the pairs present (a bit each) against a playfield pixel's
    // matches (Playfield::match); used by clockSlow and spriteRun.
    std::uint8_t pairColour(unsigned g, unsigned a, unsigned b) const;
    static std::uint16_t spriteCollisions(unsigned pairs, unsigned match);

    std::uint16_t holdAndModify(std::uint16_t held, std::uint8_t bits) const;
    unsigned planes() const;

    // Registers.
    std::uint16_t bplcon0_ = 0, bplcon1_ = 0, bplcon2_ = 0;
    std::uint16_t diwstrt_ = 0, diwstop_ = 0, clxcon_ = 0, clxdat_ = 0;
    std::array<std::uint16_t, 32> colour_{};
    std::array<std::uint16_t, 6> bpldat_{};
    std::array<Sprite, 8> sprites_{};
    std::array<std::uint16_t, 2> joy_{};

    // Bitplane pipeline: BPL1DAT copies all six data registers here; the odd and the even
    // planes then load separately, each at its own scroll position.
    std::array<std::uint16_t, 6> bplPipe_{};
    bool armedOdd_ = false, armedEven_ = false;
    std::uint64_t armTick_ = 0;
    // BPL1DAT writes queued ahead of the drawing (queueBitplaneLoad), in clock order; the
    // first not taken yet is queuedNext_. Empty whenever the machine saves a state (it
    // draws up to the beam first), so not part of it.
    struct QueuedLoad {
        std::uint64_t tick = 0;
        std::array<std::uint16_t, 6> words{};
    };
    static constexpr unsigned kMaxQueued = 64;
    std::array<QueuedLoad, kMaxQueued> queued_{};
    unsigned queuedCount_ = 0, queuedNext_ = 0;
    // Takes the next queued BPL1DAT write (its clock has come), as writeBitplane(0) does.
    void takeQueuedLoad() {
        const QueuedLoad& q = queued_[queuedNext_];
        bplPipe_ = q.words;
        armedOdd_ = armedEven_ = true;
        armTick_ = q.tick;
        if (++queuedNext_ == queuedCount_) queuedNext_ = queuedCount_ = 0;
    }
    // The loads of the BPL1DAT write held now that fall in clocks [h, limit) of a stretch
    // that starts at clock h, tick tick_.
    void loadsBefore(unsigned h, unsigned limit);
    // The shifters' output ahead of the beam: the six plane bits of every pixel column of
    // the current line that a load has placed. Columns are cleared as they are emitted.
    std::array<std::uint8_t, kShiftColumns> shifted_{};
    // Every column from here on holds 0 (derived, not state: a loaded state takes them all).
    unsigned shiftEnd_ = 0;

    std::uint16_t hstart_ = 0, hstop_ = 0x100; // 9-bit comparator values
    bool window_ = false;                      // the horizontal display-window flip-flop
    std::uint16_t ham_ = 0;                    // HAM hold register, $0RGB
    std::uint8_t lastBits_ = 0;                // shifter bits of the last pixel sent
    std::uint8_t spritesLive_ = 0;             // armed, or with pixels left to shift

    std::array<Pending, kMaxPending> pending_{};
    unsigned pendingCount_ = 0;
    std::uint64_t tick_ = 0; // clocks since reset
    std::uint16_t lineVpos_ = 0xFFFF;
    std::array<std::uint16_t, 0x100> shadow_{}; // last value written to each register

    // Derived, rebuilt lazily after writes that change them (not state).
    bool tablesDirty_ = true;
    bool layoutDirty_ = true; // ... and more than the palette: BPLCON0/2 or CLXCON too
    std::uint32_t coloursDirty_ = 0; // the colour registers written since the tables were built
    std::array<std::uint64_t, 64> colourUsers_{}; // per palette index, the pf_ entries showing it
    bool hamMode_ = false; // HOMOD without DBLPF
    std::array<Playfield, 64> pf_{};
    std::array<std::uint32_t, 64> rgb_{};
    // rgb_[pf_[i].colour], twice: the two columns of a lores pixel in one store (the low
    // half alone for one column).
    static constexpr std::uint64_t kTwoColumns = 0x100000001ull;
    std::array<std::uint64_t, 64> pfRgb_{};

    // The picture.
    unsigned height_ = kPalLines, width_ = kPalLineCck * kPixelsPerCck, lineCck_ = kPalLineCck;
    std::vector<std::uint32_t> picture_;
    std::uint64_t frames_ = 0;
    bool started_ = false, longFrame_ = true, interlaced_ = false;
    std::function<void(const Denise&)> frameHook_;
};

} // namespace copperline
