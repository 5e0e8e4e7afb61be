// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/agnus.h"

#include "emu/chipset/custom_regs.h"
#include "emu/chipset/floppy.h"
#include "emu/state/archive.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace copperline {

namespace {

// An idle clock's slot record at each interrupt level, as three words: what
// expandCommittedRecords writes for a clock whose kind byte is its level.
constexpr auto kIdleRecordWords = [] {
    std::array<std::array<std::uint64_t, 3>, 8> words{};
    for (unsigned level = 0; level < 8; ++level) {
        SlotRecord r;
        r.ipl = std::uint8_t(level);
        words[level] = std::bit_cast<std::array<std::uint64_t, 3>>(r);
    }
    return words;
}();
static_assert(kIdleRecordWords[0][0] == 0 && kIdleRecordWords[0][1] == 0 && kIdleRecordWords[0][2] == 0,
              "an idle clock at level 0 has the empty record");

std::uint16_t setClear(std::uint16_t old, std::uint16_t value) {
    return (value & 0x8000) ? std::uint16_t(old | (value & 0x7FFF)) : std::uint16_t(old & ~value);
}

// Horizontal comparator positions in colour clocks (HRM "Horizontal Beam Position";
// ocs-timing-facts section 1). Used for the slot events and Denise's blanking. Blanking
// ends where Denise's hardwired blank does, lores pixel $5D of its counter, 46.5 CCK
// (WinUAE custom.cpp "Horizontal hardwired defaults"; FS-UAE shows colour from $2E), not
// at the HRM's $35 (docs/display.md).
constexpr unsigned kHblankStart = 0x0F, kHblankEnd = 0x2E;
constexpr unsigned kHsyncStart = 0x12, kHsyncEnd = 0x23;
// Refresh slots (ocs-timing-facts section 2).
constexpr unsigned kRefresh[] = {0x01, 0x03, 0x05};
constexpr unsigned kRefreshLast = 0xE2;
// Disk slots (ocs-timing-facts section 2; HRM chapter 6: three per line).
constexpr unsigned kDiskSlots[] = {0x07, 0x09, 0x0B};

// Lores fetch unit (8 CCK): offset -> plane (HRM figure 6-11).
constexpr std::uint8_t kLoresOrder[8] = {0, 4, 6, 2, 0, 3, 5, 1};
// Hires fetch group (4 CCK): offset -> plane (HRM figure 6-12).
constexpr std::uint8_t kHiresOrder[4] = {4, 2, 3, 1};

} // namespace

Agnus::Agnus(ChipRam& chip, Denise& denise, Paula& paula, Blitter& blitter, Copper& copper)
    : chip_(chip), denise_(denise), paula_(paula), blitter_(blitter), copper_(copper) {
    owners_.assign(std::size_t(kMaxLines) * kMaxLineCck, 0);
    committedOwners_ = owners_;
    previousOwners_ = owners_;
    reset();
}

void Agnus::configure(const Config& config) {
    config_ = config;
    reset();
}

unsigned Agnus::frameLines() const { return (config_.ntsc ? 262u : 312u) + (lof_ ? 1u : 0u); }

void Agnus::reset() {
    cck_ = 0;
    frame_ = 0;
    vpos_ = hpos_ = 0;
    deniseAt_ = 0;
    lof_ = true;
    lol_ = false;
    lineLength_ = 227;
    written_.fill(0);
    writtenMask_.fill(0);
    dmacon_ = 0;
    bplcon0_ = 0;
    diwstrt_ = diwstop_ = ddfstrt_ = ddfstop_ = 0;
    bpl1mod_ = bpl2mod_ = 0;
    bplpt_.fill(0);
    sprpt_.fill(0);
    sprites_ = {};
    vdiw_ = false;
    cpuRefused_ = 0;
    blitIrqAt_ = 0;
    copperDeferred_ = false;
    fixedUntil_ = quietUntil_ = busyUntil_ = 0;
    planKey_ = kNoPlanKey;
    std::fill(owners_.begin(), owners_.end(), 0);
    counts_.fill(0);
    cpuWaitCck_ = 0;
    forgetStalls();
    blitActive_ = false;
    if (trace_) trace_->clear();
    if (recordSlots_) armRecords();
    startLine();
}

void Agnus::setRecordSlots(bool on) {
    fixedUntil_ = quietUntil_ = busyUntil_ = 0;
    if (on == recordSlots_) return;
    recordSlots_ = on;
    if (on) {
        armRecords();
    } else {
        recordKinds_ = {};
        fullRecords_ = {};
        fullCount_ = 0;
        events_.clear();
        masks_.clear();
        cia_.clear();
    }
}

void Agnus::cpuMaskChanged(std::uint8_t mask) {
    cpuMask_ = mask;
    if (recordSlots_) masks_.push_back({std::uint32_t(vpos_) * kMaxLineCck + hpos_, mask});
}

void Agnus::noteCiaAccess(std::uint8_t chips, std::uint8_t reg, bool write, std::uint16_t value) {
    if (!recordSlots_) return;
    const std::uint32_t index = std::uint32_t(vpos_) * kMaxLineCck + hpos_;
    events_.push_back({index, ((chips & 1) ? slot_event::CiaA : 0u) | ((chips & 2) ? slot_event::CiaB : 0u)});
    cia_.push_back({index, chips, reg, write, value});
}

void Agnus::armRecords() {
    recordKinds_.assign(owners_.size(), RecordKind{});
    // One more than the clocks: a clock builds its record in the next free one before it
    // knows whether the record is kept (endClock).
    fullRecords_.assign(owners_.size() + 1, LiveRecord{});
    fullCount_ = 0;
    events_.clear();
    masks_.clear();
    cia_.clear();
    maskAtStart_ = cpuMask_;
    eventsAt_ = hpos_;
    lastCpuFull_ = ~std::size_t(0);
}

void Agnus::moveRecordsBeam(std::size_t from) {
    // The frame in progress keeps the records of the clocks before the new beam that the
    // old one had run (a rewind in the frame: the same history); clocks it had not run
    // hold the frame before last's bytes and become empty records.
    const std::size_t to = std::min(std::size_t(vpos_) * kMaxLineCck + hpos_, recordKinds_.size());
    if (to > from) {
        std::memset(recordKinds_.data() + from, 0, to - from);
    } else {
        fullCount_ = std::size_t(std::count_if(recordKinds_.begin(), recordKinds_.begin() + std::ptrdiff_t(to),
                                               [](RecordKind k) { return (std::uint8_t(k) & kFullRecord) != 0; }));
        std::erase_if(events_, [to](const EventAt& e) { return e.index >= to; });
        std::erase_if(masks_, [to](const EventAt& e) { return e.index >= to; });
        std::erase_if(cia_, [to](const CiaAccess& e) { return e.index >= to; });
    }
    eventsAt_ = hpos_;
    lastCpuFull_ = ~std::size_t(0);
}

void Agnus::expandCommittedRecords() const {
    committedExpanded_ = true;
    if (!committedSlots_) {
        committedRecords_.clear();
        return;
    }
    committedRecords_.resize(committedKinds_.size());
    const std::size_t used = std::min(committedKinds_.size(), std::size_t(committedLines_) * kMaxLineCck);
    const LiveRecord* full = committedFull_.data();
    const LiveRecord* const fullEnd = full + committedFullCount_;
    SlotRecord* out = committedRecords_.data();
    for (std::size_t i = 0; i < used; ++i) {
        const auto kind = std::uint8_t(committedKinds_[i]);
        if (kind & kFullRecord) {
            // (Each kFullRecord clock stored one record: fewer would be a defect here.)
            SlotRecord r;
            if (full < fullEnd) {
                r.reg = full->reg;
                r.owner = full->owner;
                r.subtype = std::uint8_t(full->subtype);
                r.size = std::uint8_t(full->size);
                r.ipl = std::uint8_t(full->ipl);
                r.flags = full->flags;
                r.data = full->data;
                r.address = full->address;
                ++full;
            }
            out[i] = r;
        } else {
            std::memcpy(static_cast<void*>(out + i), kIdleRecordWords[kind & 7].data(), sizeof(SlotRecord));
        }
    }
    std::fill(committedRecords_.begin() + std::ptrdiff_t(used), committedRecords_.end(), SlotRecord{});
    for (const EventAt& e : committedEvents_)
        if (e.index < used) committedRecords_[e.index].events |= e.events;
    // The CPU's interrupt mask, run by run between its changes (the records' mask bits are
    // 0 so far: a run at mask 0, a task's, costs nothing).
    std::size_t from = 0;
    std::uint8_t mask = committedMaskAtStart_;
    const auto fill = [&](std::size_t to) {
        to = std::min(to, used);
        if (mask)
            for (std::size_t i = from; i < to; ++i)
                out[i].flags = std::uint16_t(out[i].flags | (mask << slot_flag::IntMaskShift));
        from = std::max(from, to);
    };
    for (const EventAt& change : committedMasks_) {
        fill(change.index);
        mask = std::uint8_t(change.events);
    }
    fill(used);
}

bool Agnus::verticalBlank() const {
    // PAL blanks lines 0-$19 and NTSC 0-$13 (vAmiga's last blank line; UAE agrees for PAL).
    return vpos_ <= (config_.ntsc ? 0x13 : 0x19);
}

// ---- the line plan -------------------------------------------------------------------

void Agnus::startLine() {
    eventsAt_ = 0;
    lineBlank_ = verticalBlank();
    // The vertical display window flip-flop: set on a VSTART match, reset on a VSTOP match
    // (HRM DIWSTRT/DIWSTOP: VSTOP's V8 is the inverse of its V7).
    const unsigned vstart = diwstrt_ >> 8;
    const unsigned vstop = (diwstop_ >> 8) | ((diwstop_ & 0x8000) ? 0 : 0x100);
    if (vpos_ == vstart) vdiw_ = true;
    if (vpos_ == vstop) vdiw_ = false;

    if (config_.ntsc) {
        lol_ = !lol_;
        lineLength_ = lol_ ? 228 : 227;
    }
    planSprites();
    buildBitplanePlan();
}

void Agnus::planSprites() {
    const unsigned firstLine = config_.ntsc ? 0x14 : 0x19;
    const bool on = (dmacon_ & dmacon::DMAEN) && (dmacon_ & dmacon::SPREN);
    for (auto& s : sprites_) {
        s.line = SpriteDma::Off;
        if (vpos_ < firstLine) {
            s.state = SpriteDma::Off;
            continue;
        }
        if (vpos_ == firstLine) s.state = SpriteDma::Control;
        if (!on) continue;
        switch (s.state) {
        case SpriteDma::Control: s.line = SpriteDma::Control; break;
        case SpriteDma::Waiting:
            if (vpos_ == s.vstart) {
                s.state = SpriteDma::Data;
                s.line = vpos_ == s.vstop ? SpriteDma::Control : SpriteDma::Data;
            }
            break;
        case SpriteDma::Data:
            // The line of VSTOP fetches the next control words instead of data.
            s.line = vpos_ == s.vstop ? SpriteDma::Control : SpriteDma::Data;
            break;
        case SpriteDma::Off: break;
        }
    }
}

void Agnus::buildBitplanePlan() {
    // The plan follows from these alone; a line like the one before keeps its plan.
    std::uint64_t key = std::uint64_t(dmacon_ & 0x3FF) | std::uint64_t(vdiw_) << 10 | std::uint64_t(lol_) << 11 |
                        std::uint64_t(bplcon0_ >> 12) << 12 | std::uint64_t(ddfstrt_ & 0xFF) << 16 |
                        std::uint64_t(ddfstop_ & 0xFF) << 24;
    for (unsigned n = 0; n < 8; ++n)
        if (sprites_[n].line != SpriteDma::Off) key |= std::uint64_t(1) << (32 + n);
    if (key == planKey_) return;
    planKey_ = key;
    fillPlan();
    indexPlan();
}

void Agnus::indexPlan() {
    unsigned next = kMaxLineCck;
    planNext_[kMaxLineCck] = std::uint8_t(next);
    for (unsigned h = kMaxLineCck; h-- > 0;) {
        if (plan_[h]) next = h;
        planNext_[h] = std::uint8_t(next);
    }
}

void Agnus::fillPlan() {
    plan_.fill(PlanNone);
    for (unsigned h : kRefresh) plan_[h] = PlanRefresh;
    // The fourth refresh slot is one later on an NTSC long line (ocs-timing-facts 2).
    plan_[kRefreshLast + (lol_ ? 1 : 0)] = PlanRefresh;
    if (!(dmacon_ & dmacon::DMAEN)) {
        bitplaneLine_ = false;
        return;
    }
    if (dmacon_ & dmacon::DSKEN)
        for (unsigned h : kDiskSlots) plan_[h] = PlanDisk;
    for (unsigned ch = 0; ch < 4; ++ch)
        if (dmacon_ & (dmacon::AUD0EN << ch)) plan_[0x0D + 2 * ch] = std::uint8_t(PlanAudio0 + ch);
    for (unsigned n = 0; n < 8; ++n)
        if ((dmacon_ & dmacon::SPREN) && sprites_[n].line != SpriteDma::Off) {
            plan_[0x15 + 4 * n] = std::uint8_t(PlanSprite + 2 * n);
            plan_[0x17 + 4 * n] = std::uint8_t(PlanSprite + 2 * n + 1);
        }

    bitplaneLine_ = false;
    if (!(dmacon_ & dmacon::BPLEN) || !vdiw_) return;
    const bool hires = bplcon0_ & 0x8000;
    const unsigned bpu = (bplcon0_ >> 12) & 7;
    // Over-programmed counts: lores 7 fetches 4 planes, hires 5+ fetches none
    // (ocs-timing-facts section 2).
    const unsigned planes = hires ? (bpu >= 5 ? 0 : bpu) : (bpu == 7 ? 4 : bpu);
    if (!planes) return;
    // OCS compares DDF bits 7-2 only, within the hardware limits $18-$D8.
    const unsigned start = std::max(ddfstrt_ & 0xFCu, 0x18u);
    if (start > 0xD8) return;  // past the last position the comparator can start at
    unsigned stop = std::min(ddfstop_ & 0xFCu, 0xD8u);
    if (stop < start) stop = 0xD8;
    // The unit running when DDFSTOP matches finishes, then exactly one more is fetched,
    // and that last unit adds the modulos.
    const unsigned units = (stop - start + 7) / 8 + 1;
    bitplaneLine_ = true;
    for (unsigned u = 0; u < units; ++u) {
        const unsigned base = start + 8 * u;
        const bool last = u + 1 == units;
        if (!hires) {
            for (unsigned off = 0; off < 8; ++off) {
                const unsigned p = kLoresOrder[off];
                if (p && p <= planes && base + off < kMaxLineCck)
                    plan_[base + off] = std::uint8_t(PlanBitplane + p + (last ? PlanLastUnit : 0));
            }
        } else {
            for (unsigned g = 0; g < 2; ++g)
                for (unsigned off = 0; off < 4; ++off) {
                    const unsigned p = kHiresOrder[off];
                    const unsigned h = base + 4 * g + off;
                    if (p <= planes && h < kMaxLineCck)
                        plan_[h] = std::uint8_t(PlanBitplane + p + (last && g == 1 ? PlanLastUnit : 0));
                }
        }
    }
}

// ---- fetches ---------------------------------------------------------------------------

template <bool Slots>
[[gnu::always_inline]] inline void Agnus::doBitplaneFetch(std::uint8_t code, LiveRecord& rec) {
    const unsigned p = code & 7;
    std::uint32_t& pt = bplpt_[p - 1];
    const std::uint16_t data = chip_.readWord(pt);
    if constexpr (Slots) {
        rec.address = pt;
        rec.data = data;
        rec.subtype = std::uint8_t(p);
        rec.size = 2;
        rec.reg = std::uint16_t(reg::BPL1DAT + 2 * (p - 1));
        rec.flags = slot_flag::Register;
    }
    pt += 2;
    if (code & PlanLastUnit) pt += std::uint32_t(std::int32_t(std::int16_t(p & 1 ? bpl1mod_ : bpl2mod_)));
    pt &= 0x1FFFFE;
    // BPL2DAT-BPL6DAT only hold their word until BPL1DAT loads them all: no pixel Denise
    // has still to draw depends on them, so she need not catch up first. BPL1DAT waits in
    // her queue for the clock it was written in.
    if (p != 1) denise_.writeBitplane(p - 1, data);
    else if (!denise_.loadsQueueFull()) denise_.queueBitplaneLoad(hpos_ - deniseAt_, data);
    else deniseNow().writeBitplane(0, data);
}

void Agnus::doSpriteFetch(unsigned n, unsigned word, LiveRecord& rec) {
    Sprite& s = sprites_[n];
    std::uint32_t& pt = sprpt_[n];
    const std::uint16_t data = chip_.readWord(pt);
    rec.address = pt;
    rec.data = data;
    rec.subtype = std::uint8_t(n);
    rec.size = 2;
    rec.flags = slot_flag::Register;
    pt = (pt + 2) & 0x1FFFFE;
    std::uint16_t target;
    if (s.line == SpriteDma::Control) {
        target = std::uint16_t((word ? reg::SPR0CTL : reg::SPR0POS) + 8 * n);
        writeRegisterAgnus(target, data);
        if (word) s.state = SpriteDma::Waiting;
    } else {
        target = std::uint16_t((word ? reg::SPR0DATB : reg::SPR0DATA) + 8 * n);
    }
    rec.reg = target;
    deniseNow().poke(target, data);
}

// The fixed DMA of the clock at hpos_ whose plan code is `code` (not PlanNone): who owns
// it, with the transfer made and, with slot records, described in `rec`.
template <bool Slots>
[[gnu::always_inline]] inline BusOwner Agnus::fixedSlot(std::uint8_t code, LiveRecord& rec) {
    if (code == PlanRefresh) return BusOwner::Refresh;
    if (code & PlanBitplane) {
        doBitplaneFetch<Slots>(code, rec);
        return BusOwner::Bitplane;
    }
    if (code >= PlanSprite) {
        doSpriteFetch((code - PlanSprite) >> 1, (code - PlanSprite) & 1, rec);
        return BusOwner::Sprite;
    }
    if (code == PlanDisk) {
        // The slot is the disk's only when the controller has a word to move.
        FloppyController* disk = paula_.floppy();
        if (!disk || !disk->wantsSlot(cck_)) return BusOwner::Idle;
        const std::uint32_t addr = disk->pointer();
        std::uint16_t data;
        if (disk->writing()) {
            data = chip_.readWord(addr);
            disk->giveWord(data, cck_);
        } else {
            data = disk->takeWord(cck_);
            chip_.writeWord(addr, data);
            rec.flags = slot_flag::Write;
        }
        rec.address = addr;
        rec.data = data;
        rec.size = 2;
        rec.reg = std::uint16_t(disk->writing() ? reg::DSKDAT : reg::DSKDATR);
        rec.flags |= slot_flag::Register;
        return BusOwner::Disk;
    }
    // An audio channel's slot.
    const unsigned ch = code - PlanAudio0;
    if (!paula_.audioWantsDma(ch, cck_)) return BusOwner::Idle;
    const std::uint32_t addr = paula_.audioPointer(ch);
    const std::uint16_t data = chip_.readWord(addr);
    rec.address = addr;
    rec.data = data;
    rec.subtype = std::uint8_t(ch);
    rec.size = 2;
    rec.reg = std::uint16_t(reg::AUD0DAT + 0x10 * ch);
    rec.flags = slot_flag::Register;
    paula_.audioDmaWord(ch, data, cck_);
    return BusOwner::Audio;
}

// ---- one colour clock --------------------------------------------------------------------

// A denied CPU clock in the frame's accounting (every denied clock passes here).
[[gnu::always_inline]] inline void Agnus::chargeDenied(BusOwner owner, std::size_t index) {
    FrameStats& f = *stats_;
    ++f.cpuWaitByOwner[unsigned(owner)];
    ++f.cpuWaitByKind[unsigned(pendingKind_)];
    f.cpuWaitGrid[index] = 1;
    std::size_t entry = std::size_t(stallEntry_);
    if (stallEntry_ < 0) [[unlikely]] {
        // The access's first denied clock: its instruction's entry, from the cache when
        // it is there (a busy loop's few instructions nearly always are).
        const StallCacheEntry& c = stallCache_[(pendingPc_ >> 1) % kStallCacheSize];
        if (c.pc == pendingPc_) {
            entry = c.entry;
            stallEntry_ = int(entry);
            ++f.stallPcs[entry].waits;
        } else {
            entry = openStall();
        }
    }
    ++f.stallPcs[entry].waitCck;
}

template <bool Slots>
[[gnu::always_inline]] inline Agnus::LiveRecord& Agnus::clockRecord() {
    // The record is filled where it stays: one built field by field elsewhere and then
    // copied whole is read back wider than it was written, which stalls every clock.
    if constexpr (Slots) {
        // The next free full record: endClock keeps it, or leaves it free for the next
        // clock when it is an idle clock's.
        LiveRecord& rec = fullRecords_[fullCount_];
        rec = LiveRecord{};
        return rec;
    } else {
        return scratchRecord_;
    }
}

// The owner, the counts and (with slot records) the record of the clock at hpos_, and the
// beam moved on past it. Every clock ends here.
template <bool Slots, bool LineMayEnd>
[[gnu::always_inline]] inline void Agnus::endClock(BusOwner owner, LiveRecord& rec) {
    const unsigned h = hpos_;
    const std::size_t index = std::size_t(vpos_) * kMaxLineCck + h;
    // The grid starts each frame zeroed, and an idle clock is zero.
    if (recordOwners_ && owner != BusOwner::Idle) owners_[index] = std::uint8_t(owner);
    ++counts_[unsigned(owner)];
    if constexpr (Slots) {
        // (The events come later: noteEvents.)
        const std::uint8_t ipl = std::uint8_t(paula_.iplAt(cck_));
        rec.owner = owner;
        rec.ipl = ipl;
        // An idle clock that moved nothing is its level alone. (Each field read as it was
        // written: a wider read of narrower stores would stall.)
        const bool plain = owner == BusOwner::Idle && !(rec.reg | rec.subtype | rec.size | rec.flags) &&
                           !(rec.data | rec.address);
        if (plain) {
            recordKinds_[index] = RecordKind(ipl);
        } else {
            recordKinds_[index] = RecordKind(kFullRecord);
            ++fullCount_;
        }
    }
    ++cck_;
    ++hpos_;
    if (LineMayEnd && hpos_ >= lineLength_) endLine();
}

// The blitter's bus step in the clock at hpos_, in its record.
template <bool Slots>
[[gnu::always_inline]] inline BusOwner Agnus::blitterOwns(const Blitter::Step& b, LiveRecord& rec) {
    if constexpr (Slots) {
        rec.address = b.address;
        rec.data = b.data;
        rec.subtype = b.channel;
        rec.size = 2;
        rec.flags = b.write ? slot_flag::Write : 0;
    }
    return BusOwner::Blitter;
}

// Clock h (hpos_) of this line given to the waiting CPU, or denied it (to `owner`).
template <bool Slots>
[[gnu::always_inline]] inline void Agnus::grantCpu(LiveRecord& rec, unsigned h) {
    cpuRefused_ = 0;
    if constexpr (Slots) {
        writeCpuRecord(rec);
        lastCpuFull_ = fullCount_; // (endClock keeps the CPU's record)
    }
    lastCpuIndex_ = std::size_t(vpos_) * kMaxLineCck + h;
    lastCpuCommitted_ = false;
}

template <bool Slots>
[[gnu::always_inline]] inline void Agnus::denyCpu(BusOwner owner, LiveRecord& rec, unsigned h) {
    ++cpuRefused_;
    ++cpuWaitCck_;
    ++cpuDeniedTotal_;
    if constexpr (Slots) rec.flags |= slot_flag::CpuWaited;
    if (stats_) chargeDenied(owner, std::size_t(vpos_) * kMaxLineCck + h);
}

// Inlined into its loops (runClocksFor, cpuAcquireFor), each with its own CpuWants.
template <bool CpuWants, bool Slots>
[[gnu::always_inline]] inline void Agnus::executeClock(bool& cpuGranted) {
    busyUntil_ = 0; // (this clock may wake the Copper or move the blitter on)
    const unsigned h = hpos_;
    LiveRecord& rec = clockRecord<Slots>();
    BusOwner owner = BusOwner::Idle;
    if (const std::uint8_t code = plan_[h]) owner = fixedSlot<Slots>(code, rec);

    // The Copper acts in even clocks and takes the bus only when fixed DMA left it free.
    // When it wants the bus at $E0 ($E1 on an NTSC long line) nobody gets that clock and the
    // Copper acts in the next one instead, odd as it is (vAmiga AgnusDma.cpp busIsFree
    // marks the slot blocked; WinUAE custom.cpp agrees on the visible result).
    if ((!(h & 1) || copperDeferred_) && copper_.state() != Copper::State::Idle) {
        copperDeferred_ = false;
        // A Copper waiting for a beam position it has not reached does nothing in its clock.
        const bool waiting = copper_.state() == Copper::State::Wait &&
                             copper_.dormant(vpos_, std::uint16_t(h), blitter_.busy());
        if (!waiting) {
            const bool may =
                owner == BusOwner::Idle && (dmacon_ & dmacon::DMAEN) && (dmacon_ & dmacon::COPEN);
            if (may && h == (lol_ ? 0xE1u : 0xE0u) && copper_.wantsBus()) {
                owner = BusOwner::Copper; // held, no transfer
                copperDeferred_ = true;
            }
            const Copper::Step s =
                copperDeferred_ ? Copper::Step{}
                                : copper_.clock(vpos_, std::uint16_t(h), may, blitter_.busy(), chip_);
            if (s.usedBus) {
                owner = BusOwner::Copper;
                if constexpr (Slots) {
                    rec.address = s.address;
                    rec.data = s.data;
                    rec.size = 2;
                }
            }
            if (s.move) {
                if constexpr (Slots) {
                    rec.reg = s.reg;
                    rec.flags |= slot_flag::Register | slot_flag::Write;
                    rec.data = std::uint32_t(s.value) | std::uint32_t(s.data) << 16;
                }
                copperWriting_ = true;
                copperMove_ = s.address - 2; // s.address: the MOVE's second word
                writeCustom(s.reg, s.value);
                copperWriting_ = false;
            }
        }
    }

    // The blitter takes what is left, unless BLTPRI is clear and the CPU has been refused
    // three clocks in a row: then it lets the CPU have one (HRM chapter 6). That clock is
    // lost to the blitter whole, an idle step as much as a bus step (vAmiga: BLS denies
    // the blitter's BUSIDLE steps too).
    if (blitter_.running()) {
        const bool yield = CpuWants && !(dmacon_ & dmacon::BLTPRI) && cpuRefused_ >= 3;
        const bool slotFree = owner == BusOwner::Idle && (dmacon_ & dmacon::DMAEN) &&
                              (dmacon_ & dmacon::BLTEN) && !yield;
        Blitter::Step b;
        blitter_.clockAs(slotFree, b);
        if (b.usedBus) owner = blitterOwns<Slots>(b, rec);
        // INTREQ BLIT is set 4 colour clocks after the last main cycle (WinUAE blitter.cpp
        // INTREQ_INT(6, 3): 3 CCK plus one; vAmiga raises it one DMA cycle after its BLTDONE
        // step, which follows the final D write).
        if (b.finished) blitIrqAt_ = cck_ + kBlitIrqDelayCck;
        if (blitActive_) {
            if (b.usedBus) ++blit_.words[b.channel];
            if ((trace_ && trace_->collecting()) || !blitter_.running()) [[unlikely]]
                blitClock(b);
        }
    }
    if (blitIrqAt_ && cck_ >= blitIrqAt_) {
        blitIrqAt_ = 0;
        paula_.raise(intreq::BLIT, cck_);
        if constexpr (Slots) events_.push_back({std::uint32_t(vpos_) * kMaxLineCck + h, slot_event::BlitIrq});
    }

    if (CpuWants) {
        if (owner == BusOwner::Idle) {
            owner = BusOwner::Cpu;
            cpuGranted = true;
            grantCpu<Slots>(rec, h);
        } else {
            // Counted here, before the clock can end the frame, so that a denied last clock
            // of a frame belongs to that frame.
            denyCpu<Slots>(owner, rec, h);
        }
    }

    // Denise draws this clock later, in a run with the clocks around it (flushDenise).
    endClock<Slots>(owner, rec);
}

unsigned Agnus::fixedStretchEnd() const {
    // Only the fixed slots act while no blit runs (or waits to write its last word), no
    // blit interrupt is due and the Copper sleeps; nothing but the Copper can write DMACON
    // or a Copper register inside a run of clocks (the CPU's writes come between runs).
    // The stretch stops short of the line's last clock, which ends the line.
    const unsigned last = lineLength_ - 1u;
    if (blitter_.running() || blitIrqAt_ || copperDeferred_ || hpos_ >= last) return hpos_;
    const bool dma = (dmacon_ & dmacon::DMAEN) && (dmacon_ & dmacon::COPEN);
    const unsigned nextEven = (hpos_ + 1u) & ~1u;
    switch (copper_.state()) {
    case Copper::State::Idle:
    case Copper::State::Halted: return last;
    case Copper::State::Wait: return copper_.waitEnd(vpos_, hpos_, last);
    case Copper::State::Restart:
    case Copper::State::Fetch1:
    case Copper::State::Fetch2:
    case Copper::State::Wakeup:
        // Without Copper DMA these wait for a bus the Copper may not have.
        return dma ? nextEven : last;
    default: return nextEven; // a jump or a SKIP moves on in the next even clock
    }
}

[[gnu::always_inline]] inline void Agnus::writeIdleRecords(unsigned h, unsigned e, std::uint64_t cck) {
    // An idle clock's record is its interrupt level (recordKinds_) and its events, which
    // noteEvents finds later. The level changes at most once (Paula::iplAt), so a run
    // whose ends agree has one level.
    RecordKind* const kinds = recordKinds_.data() + std::size_t(vpos_) * kMaxLineCck;
    const unsigned first = paula_.iplAt(cck), last = paula_.iplAt(cck + (e - 1 - h));
    if (e == h + 1) kinds[h] = RecordKind(first);
    else if (first == last) std::memset(kinds + h, int(first), e - h);
    else
        for (unsigned x = h; x < e; ++x) kinds[x] = RecordKind(paula_.iplAt(cck + (x - h)));
}

void Agnus::noteEvents() {
    // The slot events of this line's clocks from eventsAt_ up to hpos_, all run under the
    // registers read here as they are now: called before any of them changes.
    const unsigned from = eventsAt_, end = hpos_;
    if (!recordSlots_ || from >= end) return;
    const std::uint32_t row = std::uint32_t(vpos_) * kMaxLineCck;
    const auto note = [&](unsigned h, std::uint32_t events) {
        if (events && h >= from && h < end) events_.push_back({row + h, events});
    };
    note(kRefresh[0], (lineBlank_ ? slot_event::VB : 0u) | (vpos_ >= 2 && vpos_ < 5 ? slot_event::VS : 0u) |
                          (vdiw_ ? slot_event::VDIW : 0u));
    note(kRefresh[1], (lof_ ? slot_event::LOF : 0u) | (lol_ ? slot_event::LOL : 0u));
    note(kHblankStart, slot_event::HBS);
    note(kHblankEnd, slot_event::HBE);
    note(kHsyncStart, slot_event::HSS);
    note(kHsyncEnd, slot_event::HSE);
    // DIWSTRT/DIWSTOP H are lores pixels, two per colour clock; DIWSTOP's H8 is 1.
    note((diwstrt_ & 0xFFu) / 2, slot_event::HDIWS);
    note(((diwstop_ & 0xFFu) | 0x100u) / 2, slot_event::HDIWE);
    note(ddfstrt_ & 0xFCu, slot_event::DDFS);
    note(ddfstop_ & 0xFCu, slot_event::DDFE);
    eventsAt_ = std::uint16_t(end);
}

template <bool Slots, bool StopOnInterrupt>
void Agnus::runFixedStretch(unsigned end) {
    // Clocks hpos_ .. end-1 of this line, in which only the fixed slots act
    // (fixedStretchEnd): each is its slot's, or idle.
    const unsigned h0 = hpos_;
    const std::uint64_t cck0 = cck_;
    const std::uint16_t intreq = paula_.intreq();
    const unsigned ipl = paula_.ipl();
    const std::uint64_t iplAt = paula_.iplChangedAt();
    unsigned idle = 0;
    for (unsigned h = h0; h < end; ++h) {
        const std::uint8_t code = plan_[h];
        if (!code) {
            // The run of idle clocks from here, in one go.
            const unsigned e = std::min<unsigned>(planNext_[h], end);
            if constexpr (Slots) writeIdleRecords(h, e, cck0 + (h - h0));
            idle += e - h;
            h = e - 1;
            continue;
        }
        hpos_ = std::uint16_t(h);
        cck_ = cck0 + (h - h0);
        counts_[unsigned(BusOwner::Idle)] += idle;
        idle = 0;
        LiveRecord& rec = clockRecord<Slots>();
        const BusOwner owner = fixedSlot<Slots>(code, rec);
        endClock<Slots>(owner, rec); // (the line does not end here: end < lineLength_)
        if (StopOnInterrupt && code < PlanSprite && code >= PlanDisk &&
            (paula_.intreq() != intreq || paula_.ipl() != ipl || paula_.iplChangedAt() != iplAt))
            return;
    }
    counts_[unsigned(BusOwner::Idle)] += idle;
    cck_ = cck0 + (end - h0);
    hpos_ = std::uint16_t(end);
}

template <bool Slots>
[[gnu::always_inline]] inline void Agnus::idleClock() {
    const unsigned h = hpos_;
    if constexpr (Slots) writeIdleRecords(h, h + 1, cck_);
    ++counts_[unsigned(BusOwner::Idle)];
    ++cck_;
    if (++hpos_ >= lineLength_) endLine();
}

void Agnus::noteFixedStretch(unsigned stretch) {
    fixedUntil_ = cck_ + (stretch - hpos_);
    noteQuiet(stretch);
}

void Agnus::noteQuiet(unsigned stretch) {
    // Disk and audio slots (disk $07-$0B, audio $0D-$13) may raise interrupts: the quiet
    // clocks end at the first of them.
    unsigned quiet = stretch;
    for (unsigned h = std::max(hpos_, std::uint16_t(0x07)) | 1u; h < std::min(quiet, 0x14u); h += 2)
        if (plan_[h] >= PlanDisk && plan_[h] < PlanSprite) {
            quiet = h;
            break;
        }
    quietUntil_ = cck_ + (quiet - hpos_);
}

[[gnu::always_inline]] inline unsigned Agnus::busyStretchEnd() {
    // Nothing but the Copper writes a register inside a run of clocks (the CPU's writes
    // come between runs), and nothing but a register write starts a blit. The end found
    // stands until a register is read or written, a clock runs outside such a stretch, or
    // the blitter leaves clockArea's state (busyUntil_).
    if (cck_ < busyUntil_) return unsigned(hpos_ + (busyUntil_ - cck_));
    const unsigned last = lineLength_ - 1u;
    if (blitIrqAt_ || copperDeferred_ || hpos_ >= last || !blitter_.areaOrIdle() || (trace_ && trace_->collecting()))
        return hpos_;
    unsigned end;
    switch (copper_.state()) {
    case Copper::State::Idle:
    case Copper::State::Halted: end = last; break;
    case Copper::State::Wait:
        // A WAIT with BFD clear sleeps while the blit runs; the stretch ends with the blit.
        if (!(copper_.ir2() & 0x8000) && blitter_.busy()) end = last;
        else end = copper_.waitEnd(vpos_, hpos_, last);
        break;
    default: return hpos_;
    }
    busyUntil_ = cck_ + (end - hpos_);
    // A catch-up inside the stretch may wait for the next one (quietUntil_) up to its first
    // disk or audio slot, and short of the clock in which a busy blit could finish at the
    // earliest (its interrupt follows, and a WAIT with BFD clear may wake).
    unsigned quiet = end;
    if (blitter_.busy()) quiet = unsigned(std::min<std::uint64_t>(quiet, hpos_ + blitter_.minClocksToFinish() - 1));
    noteQuiet(quiet);
    return end;
}

template <bool CpuWants, bool Slots>
bool Agnus::runBusyStretch(unsigned end) {
    // executeClock without the Copper, a due blit interrupt, a line's end, a blit trace or
    // a blitter state but clockArea's.
    const bool blitEnabled = (dmacon_ & dmacon::DMAEN) && (dmacon_ & dmacon::BLTEN);
    const bool mayYield = CpuWants && !(dmacon_ & dmacon::BLTPRI);
    while (hpos_ < end) {
        const unsigned h = hpos_;
        LiveRecord& rec = clockRecord<Slots>();
        BusOwner owner = BusOwner::Idle;
        if (const std::uint8_t code = plan_[h]) owner = fixedSlot<Slots>(code, rec);
        bool leave = false;
        if (blitter_.busy()) {
            const bool slotFree = owner == BusOwner::Idle && blitEnabled && !(mayYield && cpuRefused_ >= 3);
            Blitter::Step b;
            leave = !blitter_.clockArea(slotFree, b);
            if (b.usedBus) {
                owner = blitterOwns<Slots>(b, rec);
                if (blitActive_) ++blit_.words[b.channel];
            }
            if (b.finished) [[unlikely]] {
                blitIrqAt_ = cck_ + kBlitIrqDelayCck;
                if (blitActive_ && !blitter_.running()) blitClock(b);
            }
            // The stretch ends with this clock, the CPU's or not: its end is forgotten.
            if (leave) busyUntil_ = 0;
        }
        if constexpr (CpuWants) {
            if (owner == BusOwner::Idle) {
                grantCpu<Slots>(rec, h);
                endClock<Slots, false>(BusOwner::Cpu, rec);
                return true;
            }
            denyCpu<Slots>(owner, rec, h);
        }
        endClock<Slots, false>(owner, rec);
        if (leave) break;
    }
    return false;
}

template <bool Slots>
void Agnus::runClocksFor(std::uint64_t target) {
    bool granted = false;
    while (cck_ < target) {
        const unsigned stretch = fixedStretchEnd();
        if (stretch > hpos_) {
            // The next catch-ups inside the stretch take runTo's short way (runFixedTo).
            noteFixedStretch(stretch);
            runFixedStretch<Slots, false>(unsigned(std::min<std::uint64_t>(stretch, hpos_ + (target - cck_))));
        } else if (const unsigned busy = busyStretchEnd(); busy > hpos_) {
            runBusyStretch<false, Slots>(unsigned(std::min<std::uint64_t>(busy, hpos_ + (target - cck_))));
        } else if (quietClock()) {
            idleClock<Slots>();
        } else {
            executeClock<false, Slots>(granted);
        }
    }
}

void Agnus::runFixedSlots(unsigned end) {
    if (recordSlots_) runFixedStretch<true, false>(end);
    else runFixedStretch<false, false>(end);
    // Past a disk or audio slot the rest of the stretch may be quiet.
    if (cck_ > quietUntil_) noteQuiet(unsigned(hpos_ + (fixedUntil_ - cck_)));
}

void Agnus::runClocks(std::uint64_t target) {
    if (recordSlots_) runClocksFor<true>(target);
    else runClocksFor<false>(target);
}

template <bool Slots>
void Agnus::runToInterruptChangeFor(std::uint64_t target) {
    const std::uint16_t intreq = paula_.intreq();
    const unsigned ipl = paula_.ipl();
    const std::uint64_t iplAt = paula_.iplChangedAt();
    bool granted = false;
    while (cck_ < target) {
        const unsigned end = unsigned(std::min<std::uint64_t>(fixedStretchEnd(), hpos_ + (target - cck_)));
        if (end > hpos_) runFixedStretch<Slots, true>(end);
        else if (quietClock()) idleClock<Slots>();
        else executeClock<false, Slots>(granted);
        if (paula_.intreq() != intreq || paula_.ipl() != ipl || paula_.iplChangedAt() != iplAt) return;
    }
}

void Agnus::runToInterruptChange(std::uint64_t target) {
    if (recordSlots_) runToInterruptChangeFor<true>(target);
    else runToInterruptChangeFor<false>(target);
}

void Agnus::amendCpuWrite(std::uint16_t data) {
    if (!recordSlots_) return;
    const auto amend = [data](auto& r) {
        r.data = data;
        r.flags |= slot_flag::Write;
    };
    if (!lastCpuCommitted_) {
        if (lastCpuFull_ < fullCount_) amend(fullRecords_[lastCpuFull_]);
        return;
    }
    if (!committedSlots_ || lastCpuFull_ >= committedFullCount_) return;
    amend(committedFull_[lastCpuFull_]);
    if (committedExpanded_ && lastCpuIndex_ < committedRecords_.size()) amend(committedRecords_[lastCpuIndex_]);
}

[[gnu::always_inline]] inline void Agnus::writeCpuRecord(LiveRecord& rec) const {
    // Field by field into the clock's zeroed record: the access was stored a moment ago,
    // and read back whole it would stall.
    rec.reg = pendingCpu_.reg;
    rec.size = pendingCpu_.size;
    rec.flags = pendingCpu_.flags;
    rec.data = pendingCpu_.data;
    rec.address = pendingCpu_.address;
}

template <bool Slots>
std::uint64_t Agnus::grantFixedClock() {
    // A clock of a fixed-slot stretch that no slot takes: the CPU's, as executeClock gives
    // it (no Copper, no blit there).
    LiveRecord& rec = clockRecord<Slots>();
    grantCpu<Slots>(rec, hpos_);
    endClock<Slots>(BusOwner::Cpu, rec);
    return cck_ - 1;
}

template <bool Slots>
std::uint64_t Agnus::cpuAcquireFor() {
    for (;;) {
        if (const unsigned busy = busyStretchEnd(); busy > hpos_) {
            if (runBusyStretch<true, Slots>(busy)) return cck_ - 1;
            continue;
        }
        bool granted = false;
        executeClock<true, Slots>(granted);
        if (granted) return cck_ - 1;
    }
}

void Agnus::noteCpuAccess(std::uint32_t address, bool write, std::uint16_t data, std::uint8_t size, int customReg,
                          bool fetch) {
    pendingCpu_.address = address & 0xFFFFFF;
    pendingCpu_.data = data;
    pendingCpu_.size = size;
    pendingCpu_.flags = std::uint16_t((write ? slot_flag::Write : 0) | (customReg >= 0 ? slot_flag::Register : 0) |
                                      (fetch ? slot_flag::Fetch : 0));
    pendingCpu_.reg = customReg >= 0 ? std::uint16_t(customReg) : 0;
}

std::uint64_t Agnus::cpuAcquire(std::uint64_t at, CpuAccessKind kind, std::uint32_t pc) {
    runTo(at);
    pendingKind_ = kind;
    pendingPc_ = pc;
    stallEntry_ = -1;
    if (!recordSlots_) {
        if (cck_ < fixedUntil_ && plan_[hpos_] == PlanNone) return grantFixedClock<false>();
        return cpuAcquireFor<false>();
    }
    if (cck_ < fixedUntil_ && plan_[hpos_] == PlanNone) return grantFixedClock<true>();
    return cpuAcquireFor<true>();
}

// ---- lines and frames ------------------------------------------------------------------

void Agnus::flushDenise() const {
    unsigned h = deniseAt_;
    const unsigned end = hpos_;
    if (h >= end) return;
    if (lineBlank_) {
        denise_.clockRun(vpos_, h, end, true);
    } else {
        // Horizontal blank is the same stretch of every line.
        if (h < kHblankStart) {
            const unsigned e = std::min(end, kHblankStart);
            denise_.clockRun(vpos_, h, e, false);
            h = e;
        }
        if (h < end && h < kHblankEnd) {
            const unsigned e = std::min(end, kHblankEnd);
            denise_.clockRun(vpos_, h, e, true);
            h = e;
        }
        if (h < end) denise_.clockRun(vpos_, h, end, false);
    }
    deniseAt_ = std::uint16_t(end);
}

void Agnus::endLine() {
    noteEvents();
    if (recordSlots_ && lineLength_ < kMaxLineCck) {
        // A short line's columns past its end hold no clock: idle records, as readers of a
        // frame's kMaxLineCck-wide rows expect.
        std::memset(recordKinds_.data() + std::size_t(vpos_) * kMaxLineCck + lineLength_, 0,
                    kMaxLineCck - lineLength_);
    }
    flushDenise();
    hpos_ = 0;
    deniseAt_ = 0;
    paula_.advanceTo(cck_);
    if (listener_) listener_->hsync(cck_);
    if (++vpos_ >= frameLines()) {
        commitFrame();
        startFrame();
    }
    startLine();
}

void Agnus::setCommitted(unsigned lines, std::vector<std::uint8_t> owners,
                         const std::array<std::uint32_t, kBusOwnerCount>& counts) {
    committedLines_ = lines;
    committedOwners_ = std::move(owners);
    committedCounts_ = counts;
    previousLines_ = 0; // another timeline's: the frame before it is not known
    committedSlots_ = false;
    committedRecords_.clear();
    committedExpanded_ = true;
}

void Agnus::commitFrame() {
    // The committed frame becomes the one before; the buffer that held that one is the
    // next frame's.
    previousLines_ = previousGap_ ? 0 : committedLines_;
    previousGap_ = false;
    previousCounts_ = committedCounts_;
    std::swap(previousOwners_, committedOwners_);
    committedLines_ = frameLines();
    std::swap(committedOwners_, owners_);
    if (owners_.size() != committedOwners_.size()) owners_.resize(committedOwners_.size());
    std::fill(owners_.begin(), owners_.end(), 0);
    committedCounts_ = counts_;
    counts_.fill(0);
    lastCpuCommitted_ = true;
    if (recordSlots_) {
        // The frame before last's stay in the buffers: each clock of the next frame writes
        // its own byte, endLine the columns a short line leaves, and expansion ignores the
        // rows past a frame's lines.
        std::swap(committedKinds_, recordKinds_);
        std::swap(committedFull_, fullRecords_);
        std::swap(committedEvents_, events_);
        std::swap(committedMasks_, masks_);
        std::swap(committedCia_, cia_);
        committedMaskAtStart_ = maskAtStart_;
        maskAtStart_ = cpuMask_;
        committedFullCount_ = fullCount_;
        fullCount_ = 0;
        events_.clear();
        masks_.clear();
        cia_.clear();
        recordKinds_.resize(committedKinds_.size());
        fullRecords_.resize(committedFull_.size());
        committedSlots_ = true;
    } else {
        committedSlots_ = false;
        committedCia_.clear();
    }
    committedExpanded_ = false;
    cpuWaitCck_ = 0;
    // The frame's last word on its blit in flight and its charged instruction; the next
    // frame starts its own entries for both.
    if (blitActive_) blitSnapshot(false);
    forgetStalls();
    if (trace_) trace_->frameCommitted(frame_);
    if (listener_) listener_->frameCommitted(frame_);
    if (blitActive_ && stats_) {
        stats_->blits.push_back(blit_);
        blitEntry_ = stats_->blits.size() - 1;
        if (trace_) trace_->ranIn(frame_ + 1);
    }
}

// ---- per-frame accounting ------------------------------------------------------------------

std::size_t Agnus::openStall() {
    // The access's first denied clock in this frame, its instruction not in the cache
    // chargeDenied looks in first: the frame's map, and the cache takes it.
    FrameStats& f = *stats_;
    const auto [it, added] = stallIndex_.try_emplace(pendingPc_, std::uint32_t(f.stallPcs.size()));
    if (added) f.stallPcs.push_back(StallPc{pendingPc_, 0, 0});
    const std::uint32_t entry = it->second;
    stallCache_[(pendingPc_ >> 1) % kStallCacheSize] = {pendingPc_, entry};
    stallEntry_ = int(entry);
    ++f.stallPcs[entry].waits;
    return entry;
}

void Agnus::forgetStalls() {
    stallEntry_ = -1;
    stallIndex_.clear();
    stallCache_.fill(StallCacheEntry{});
}

void Agnus::blitStarted() {
    if (!stats_) return;
    const Blitter::Info i = blitter_.info();
    BlitRecord& r = blit_;
    r = BlitRecord{};
    r.id = blitter_.blitCount();
    r.byCopper = copperWriting_;
    r.startPc = copperWriting_ ? 0 : pendingPc_;
    r.startFrame = r.endFrame = frame_;
    r.startVpos = r.endVpos = vpos_;
    r.startHpos = r.endHpos = hpos_;
    r.startCck = r.endCck = cck_;
    r.bltcon0 = i.bltcon0;
    r.bltcon1 = i.bltcon1;
    r.afwm = i.afwm;
    r.alwm = i.alwm;
    r.apt = i.apt;
    r.bpt = i.bpt;
    r.cpt = i.cpt;
    r.dpt = i.dpt;
    r.amod = std::int16_t(i.amod);
    r.bmod = std::int16_t(i.bmod);
    r.cmod = std::int16_t(i.cmod);
    r.dmod = std::int16_t(i.dmod);
    r.adat = i.adat;
    r.bhold = i.bhold;
    r.cdat = i.cdat;
    // Line mode draws BLTSIZE's height in pixels, one per step (frame_stats.h).
    r.width = i.line ? i.height : i.width;
    r.height = i.line ? 1 : i.height;
    blitActive_ = true;
    stats_->blits.push_back(r);
    blitEntry_ = stats_->blits.size() - 1;
    if (trace_) trace_->begin(r);
}

void Agnus::blitClock(const Blitter::Step& b) {
    // (executeClock has counted the word.)
    if (b.usedBus && trace_) trace_->add(BlitStream(b.channel), b.data);
    if (b.produced && trace_) trace_->add(BlitStream::Result, b.result);
    if (!blitter_.running()) blitFinished();
}

void Agnus::blitSnapshot(bool finished) {
    blit_.finished = finished;
    blit_.endFrame = frame_;
    blit_.endVpos = vpos_;
    blit_.endHpos = hpos_;
    blit_.endCck = cck_;
    blit_.clocksUsed = blitter_.clocksUsed();
    blit_.clocksStalled = blitter_.clocksStalled();
    if (stats_ && blitEntry_ < stats_->blits.size()) stats_->blits[blitEntry_] = blit_;
}

void Agnus::blitFinished() {
    blitSnapshot(true);
    blitActive_ = false;
    if (trace_) trace_->end();
}

void Agnus::restartAccounting() {
    busyUntil_ = 0;
    forgetStalls();
    blitActive_ = false;
    if (trace_) trace_->clear();
    if (blitter_.running()) {
        // The blit's start lies before the load: it is known from here on only.
        copperWriting_ = false;
        pendingPc_ = 0;
        blitStarted();
    }
}

void Agnus::startFrame() {
    vpos_ = 0;
    ++frame_;
    // LOF toggles each frame only in interlace (BPLCON0 LACE); otherwise it holds.
    if (bplcon0_ & 4) lof_ = !lof_;
    // NTSC lines keep alternating across the frame boundary (263 lines: the long line
    // count alternates 131/132), so LOL is not reset here.
    vdiw_ = false;
    for (auto& s : sprites_) s.state = SpriteDma::Off;
    copper_.startOfFrame((dmacon_ & dmacon::DMAEN) && (dmacon_ & dmacon::COPEN));
    paula_.raise(intreq::VERTB, cck_);
    denise_.beginFrame(lof_, (bplcon0_ & 4) != 0);
    if (listener_) listener_->vsync(cck_);
}

// ---- registers -------------------------------------------------------------------------

void Agnus::writeRegisterAgnus(std::uint16_t r, std::uint16_t v) {
    if (r >= reg::SPR0POS && r < reg::SPR0POS + 0x40) {
        Sprite& s = sprites_[(r - reg::SPR0POS) >> 3];
        const unsigned which = (r >> 1) & 3;
        if (which == 0) {
            s.vstart = std::uint16_t((s.vstart & 0x100) | (v >> 8));
        } else if (which == 1) {
            // SPRxCTL: VSTOP 7-0 in bits 15-8, VSTART8 bit 2, VSTOP8 bit 1 (HRM sprites).
            s.vstop = std::uint16_t((v >> 8) | ((v & 2) << 7));
            s.vstart = std::uint16_t((s.vstart & 0xFF) | ((v & 4) << 6));
        }
    }
}

void Agnus::writeCustom(std::uint16_t r, std::uint16_t v) {
    r &= 0x1FE;
    fixedUntil_ = quietUntil_ = busyUntil_ = 0;
    written_[r >> 1] = v;
    writtenMask_[r >> 6] |= 1u << ((r >> 1) & 31);
    if (writeProbe_) [[unlikely]]
        writeProbe_->customWritten(r, v, copperWriting_, copperMove_);
    if (r >= reg::BLTCON0 && r <= reg::BLTADAT) {
        // A BLTSIZE write while a blit runs restarts the blitter: the old blit ends here.
        if (r == reg::BLTSIZE && blitActive_) blitFinished();
        blitter_.poke(r, v);
        if (r == reg::BLTSIZE) blitStarted();
        return;
    }
    if (r >= reg::BPL1PTH && r < reg::BPL1PTH + 24) {
        std::uint32_t& pt = bplpt_[(r - reg::BPL1PTH) >> 2];
        pt = (r & 2) ? (pt & 0x1F0000) | (v & 0xFFFE) : (pt & 0xFFFF) | std::uint32_t(v & 0x1F) << 16;
        return;
    }
    if (r >= reg::SPR0PTH && r < reg::SPR0PTH + 32) {
        std::uint32_t& pt = sprpt_[(r - reg::SPR0PTH) >> 2];
        pt = (r & 2) ? (pt & 0x1F0000) | (v & 0xFFFE) : (pt & 0xFFFF) | std::uint32_t(v & 0x1F) << 16;
        return;
    }
    if (r >= reg::SPR0POS && r < reg::SPR0POS + 0x40) {
        writeRegisterAgnus(r, v);
        deniseNow().poke(r, v);
        return;
    }
    if ((r >= reg::AUD0LCH && r < reg::AUD0LCH + 0x40) || r == reg::INTENA || r == reg::INTREQ ||
        r == reg::ADKCON || r == reg::SERDAT || r == reg::SERPER || r == reg::DSKPTH || r == reg::DSKPTL ||
        r == reg::DSKLEN || r == reg::DSKSYNC || r == reg::POTGO) {
        paula_.poke(r, v, cck_);
        return;
    }
    switch (r) {
    case reg::DMACON: {
        const std::uint16_t old = dmacon_;
        dmacon_ = std::uint16_t(setClear(dmacon_, v) & 0x07FF);
        for (unsigned ch = 0; ch < 4; ++ch)
            paula_.setAudioDmaEnabled(ch, (dmacon_ & dmacon::DMAEN) && (dmacon_ & (dmacon::AUD0EN << ch)), cck_);
        // The sprites' state moves on at the start of a line only; a DMACON change re-plans
        // the rest of this line's slots.
        if (old != dmacon_) buildBitplanePlan();
        break;
    }
    case reg::BPLCON0:
        bplcon0_ = v;
        deniseNow().poke(r, v);
        buildBitplanePlan();
        break;
    case reg::DIWSTRT:
        noteEvents();
        diwstrt_ = v;
        deniseNow().poke(r, v);
        break;
    case reg::DIWSTOP:
        noteEvents();
        diwstop_ = v;
        deniseNow().poke(r, v);
        break;
    case reg::DDFSTRT:
        noteEvents();
        ddfstrt_ = v;
        buildBitplanePlan();
        break;
    case reg::DDFSTOP:
        noteEvents();
        ddfstop_ = v;
        buildBitplanePlan();
        break;
    case reg::BPL1MOD: bpl1mod_ = v & 0xFFFE; break;
    case reg::BPL2MOD: bpl2mod_ = v & 0xFFFE; break;
    case reg::COP1LCH:
    case reg::COP1LCL:
    case reg::COP2LCH:
    case reg::COP2LCL:
    case reg::COPJMP1:
    case reg::COPJMP2:
    case reg::COPCON: copper_.poke(r, v); break;
    case reg::VPOSW:
        noteEvents();
        lof_ = (v & 0x8000) != 0;
        break;
    case reg::BPLCON1:
    case reg::BPLCON2:
    case reg::CLXCON:
    case reg::JOYTEST: deniseNow().poke(r, v); break;
    default:
        if ((r >= reg::BPL1DAT && r < reg::BPL1DAT + 12) || (r >= reg::COLOR00 && r < reg::COLOR00 + 64))
            deniseNow().poke(r, v);
        break;
    }
}

namespace {
// Which chip answers a read of a readable register Agnus does not hold itself.
enum class Reader { Agnus, Paula, Denise };
Reader readerOf(std::uint16_t r) {
    switch (r) {
    case reg::INTENAR:
    case reg::INTREQR:
    case reg::ADKCONR:
    case reg::SERDATR:
    case reg::DSKBYTR:
    case reg::DSKDATR:
    case reg::POTGOR:
    case reg::POT0DAT:
    case reg::POT1DAT: return Reader::Paula;
    case reg::CLXDAT:
    case reg::JOY0DAT:
    case reg::JOY1DAT: return Reader::Denise;
    default: return Reader::Agnus;
    }
}
} // namespace

std::pair<unsigned, unsigned> Agnus::readBeam() const {
    // A read sees the beam 5 clocks after the clock it was granted (vAmiga peekVHPOSR; UAE
    // reads the same), and the line number turns over 2 clocks after the position does:
    // positions 0 and 1 still read the old line. Registers are read after Agnus ran the
    // granted clock, so that is 4 on from here.
    unsigned v = vpos_, h = hpos_ + 4;
    if (h >= lineLength_) {
        h -= lineLength_;
        if (h >= 2) v = v + 1 >= frameLines() ? 0 : v + 1;
    }
    return {v, h};
}

std::uint16_t Agnus::spyCustom(std::uint16_t r) const {
    r &= 0x1FE;
    switch (readerOf(r)) {
    case Reader::Paula: return paula_.spy(r);
    case Reader::Denise: return deniseNow().spy(r);
    case Reader::Agnus: break;
    }
    switch (r) {
    case reg::DMACONR:
        return std::uint16_t(dmacon_ | (blitter_.busy() ? dmacon::BBUSY : 0) | (blitter_.zero() ? dmacon::BZERO : 0));
    case reg::VPOSR:
        // LOF, the Agnus id (0 for the 8371 PAL, $10 for NTSC; the ECS 8372 $20 and $30:
        // vAmiga), V8.
        return std::uint16_t((lof_ ? 0x8000 : 0) | (config_.ntsc ? 0x1000 : 0) | (config_.ecs ? 0x2000 : 0) |
                             ((readBeam().first >> 8) & 1));
    case reg::VHPOSR: {
        const auto [v, h] = readBeam();
        return std::uint16_t((v & 0xFF) << 8 | (h & 0xFF));
    }
    case reg::BLTDDAT: return blitter_.bltddat();
    default: return 0xFFFF;
    }
}

std::uint16_t Agnus::readCustom(std::uint16_t r) {
    r &= 0x1FE;
    if (r == reg::COPJMP1 || r == reg::COPJMP2) {
        // A read strobes the jump too (ocs-timing-facts section 3).
        fixedUntil_ = quietUntil_ = busyUntil_ = 0;
        copper_.poke(r, 0);
        return 0xFFFF;
    }
    switch (readerOf(r)) {
    case Reader::Paula: fixedUntil_ = quietUntil_ = busyUntil_ = 0; return paula_.peek(r, cck_);
    case Reader::Denise: fixedUntil_ = quietUntil_ = busyUntil_ = 0; return deniseNow().peek(r);
    // The registers Agnus answers herself (DMACONR, the beam) change nothing when read: the
    // stretches found stand (a loop polling DMACONR reads it every few clocks).
    case Reader::Agnus: return spyCustom(r);
    }
    return 0xFFFF;
}

void Agnus::serialize(Archive& ar) {
    const std::size_t beamBefore = std::size_t(vpos_) * kMaxLineCck + hpos_;
    if (ar.loading()) noteEvents(); // (under the registers they ran with)
    ar(cck_, frame_, vpos_, hpos_, lineLength_, lof_, lol_, dmacon_, bplcon0_, diwstrt_, diwstop_, ddfstrt_,
       ddfstop_, bpl1mod_, bpl2mod_, bplpt_, sprpt_, vdiw_);
    for (auto& s : sprites_) ar(s.vstart, s.vstop, s.line, s.state);
    ar(plan_, bitplaneLine_, lineBlank_, cpuRefused_, cpuWaitCck_, written_, writtenMask_,
       blitIrqAt_, copperDeferred_);
    planKey_ = kNoPlanKey; // the plan loaded, whatever made it
    indexPlan();
    fixedUntil_ = quietUntil_ = busyUntil_ = 0;
    // The owner grid of the frame in progress holds zero for an idle clock, which is never
    // written: what another timeline wrote from the beam on goes.
    if (ar.loading())
        std::fill(owners_.begin() + std::ptrdiff_t(std::min<std::size_t>(std::size_t(vpos_) * kMaxLineCck + hpos_,
                                                                          owners_.size())),
                  owners_.end(), std::uint8_t(0));
    if (ar.loading() && recordSlots_) moveRecordsBeam(beamBefore);
    // A state is saved with Denise's picture drawn up to the beam (Machine::serialize).
    deniseAt_ = hpos_;
}

} // namespace copperline
