// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Agnus 8371 (OCS, PAL; NTSC as a configuration): the beam counters, DMA control, the
// bus arbiter, and the hub through which every custom register is read and written.
//
// Agnus runs one colour clock at a time. For each it decides the owner of the chip bus:
// refresh, disk, audio, sprites and bitplanes in their fixed slots, then the Copper in
// even clocks, then the blitter, and what is left goes to the CPU if it asks (HRM
// chapter 6; ocs-timing-facts section 2). The owner of every clock is recorded for each
// frame; when armed, a full 24-byte SlotRecord is written too.
//
// The CPU runs ahead in whole instructions and asks Agnus for the bus at the colour clock
// of each chip-bus access (cpuAccess). Agnus first runs every clock before it, then looks
// for the first clock from there that the CPU may have, and charges the difference as a
// wait.

#include "emu/chipset/blit_trace.h"
#include "emu/chipset/blitter.h"
#include "emu/chipset/copper.h"
#include "emu/chipset/denise.h"
#include "emu/chipset/frame_stats.h"
#include "emu/chipset/paula.h"
#include "emu/chipset/slot_record.h"
#include "emu/memory/chip_ram.h"

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace copperline {

class Archive;

// What Agnus tells the rest of the machine about the beam.
class BeamListener {
public:
    virtual ~BeamListener() = default;
    virtual void hsync(std::uint64_t /*cck*/) {}
    virtual void vsync(std::uint64_t /*cck*/) {}
    virtual void frameCommitted(std::uint64_t /*frame*/) {}
};

// Told of every custom register write as Agnus makes it, whoever makes it: for the
// record's searches of who wrote a register (custom.writer). `copperMove` is the address
// of the Copper's MOVE that wrote it, when the Copper did. Unset, it costs one
// predictable branch per write; it sees the writes and changes nothing.
class CustomWriteProbe {
public:
    virtual ~CustomWriteProbe() = default;
    virtual void customWritten(std::uint16_t reg, std::uint16_t value, bool byCopper, std::uint32_t copperMove) = 0;
};

namespace dmacon {
inline constexpr std::uint16_t AUD0EN = 1u << 0;
inline constexpr std::uint16_t DSKEN = 1u << 4;
inline constexpr std::uint16_t SPREN = 1u << 5;
inline constexpr std::uint16_t BLTEN = 1u << 6;
inline constexpr std::uint16_t COPEN = 1u << 7;
inline constexpr std::uint16_t BPLEN = 1u << 8;
inline constexpr std::uint16_t DMAEN = 1u << 9;
inline constexpr std::uint16_t BLTPRI = 1u << 10;
inline constexpr std::uint16_t BZERO = 1u << 13;
inline constexpr std::uint16_t BBUSY = 1u << 14;
} // namespace dmacon

class Agnus {
public:
    static constexpr unsigned kMaxLineCck = 228;   // NTSC long lines; PAL lines are 227
    static constexpr unsigned kMaxLines = 314;

    struct Config {
        bool ntsc = false;
        // The ECS Agnus (8372) that more than 512K of chip RAM needs: its id in VPOSR.
        bool ecs = false;
    };

    Agnus(ChipRam& chip, Denise& denise, Paula& paula, Blitter& blitter, Copper& copper);

    void configure(const Config& config);
    const Config& config() const { return config_; }
    void reset();
    void setListener(BeamListener* l) { listener_ = l; }

    // ---- time ------------------------------------------------------------------------
    std::uint64_t cck() const { return cck_; }  // colour clocks executed since power-on
    std::uint16_t vpos() const { return vpos_; }
    std::uint16_t hpos() const { return hpos_; }
    bool longFrame() const { return lof_; }
    std::uint64_t frame() const { return frame_; }
    unsigned lineLength() const { return lineLength_; }
    unsigned frameLines() const;

    // Runs colour clocks until cck() == target.
    void runTo(std::uint64_t target) {
        if (cck_ >= target) return;
        if (target <= fixedUntil_) runFixedTo(target);
        else runClocks(target);
    }
    // Runs clocks towards `target` like runTo, but stops after a clock that changed
    // Paula's interrupt requests or the level she gives the CPU (a stopped CPU's stretch).
    void runToInterruptChange(std::uint64_t target);
    // runTo(t) for a t up to this clock only runs clocks that raise no interrupt and need
    // no CPU: fixed DMA slots but disk and audio, and an area blit's clocks short of the
    // earliest it could finish in; no Copper, no line end. Nothing a catch-up to such a t
    // does (Machine::syncTo) differs if it waits for the next one.
    std::uint64_t quietUntil() const { return quietUntil_; }

    // ---- the CPU on the chip bus ---------------------------------------------------------
    // The CPU wants the chip bus from colour clock `at` (>= cck()). Runs the clocks before
    // the one it is granted, gives it that clock, and returns the granted clock. The access
    // itself happens at the granted clock. Its denied clocks are charged to `kind` and to
    // `pc`, the instruction executing. With slot records (recordingSlots), noteCpuAccess
    // first says what the granted clock's record shows of the access.
    std::uint64_t cpuAcquire(std::uint64_t at, CpuAccessKind kind, std::uint32_t pc);
    void noteCpuAccess(std::uint32_t address, bool write, std::uint16_t data, std::uint8_t size, int customReg,
                       bool fetch = false);

    // ---- per-frame accounting (frame_stats.h) ------------------------------------------
    // The frame in progress, where Agnus charges each denied CPU clock (by owner, access
    // kind, instruction and beam position) and records each blit. The object keeps its
    // address; its owner swaps the contents at each commit.
    void setFrameStats(FrameStats* stats) { stats_ = stats; }
    // Where the words of each blit go for its preview (nullptr: nowhere).
    void setBlitTrace(BlitTrace* trace) {
        trace_ = trace;
        busyUntil_ = 0;
    }
    // After a state load: forgets the blit and the instruction charged so far, and picks
    // up a blit in flight as one that starts at this clock.
    void restartAccounting();

    // The CPU's last granted access wrote after all (the write half of TAS, known only
    // once the byte was read): its slot record, when recorded, becomes a write of `data`.
    void amendCpuWrite(std::uint16_t data);
    // Draws the clocks run so far that Denise has not drawn yet (they are drawn in runs,
    // between the writes Agnus makes to Denise). The machine's state is whole only after
    // this: saving a state calls it first.
    void flushDenise() const;
    // ---- custom registers (CPU and Copper) ----------------------------------------------
    std::uint16_t readCustom(std::uint16_t reg);   // with side effects (COPJMP, CLXDAT, ...)
    std::uint16_t spyCustom(std::uint16_t reg) const;
    void writeCustom(std::uint16_t reg, std::uint16_t value);
    std::uint16_t dmacon() const { return dmacon_; }
    // See CustomWriteProbe (nullptr detaches). Not state: a load keeps it.
    void setWriteProbe(CustomWriteProbe* probe) { writeProbe_ = probe; }
    // The last value the CPU or the Copper wrote to a register, for debuggers: most
    // custom registers cannot be read back. nullopt if it has not been written since
    // power-on.
    std::optional<std::uint16_t> lastWritten(std::uint16_t reg) const {
        reg &= 0x1FE;
        if (!(writtenMask_[reg >> 6] >> ((reg >> 1) & 31) & 1)) return std::nullopt;
        return written_[reg >> 1];
    }

    // ---- recording -----------------------------------------------------------------------
    // Owners of the last committed frame, one byte (BusOwner) per clock, row-major with a
    // stride of kMaxLineCck; rows beyond frameLines() are zero.
    const std::vector<std::uint8_t>& committedOwners() const { return committedOwners_; }
    unsigned committedLines() const { return committedLines_; }
    // The same for the frame before it, while it is known: its lines are 0 when it is not
    // (after power-on, a reset of the frame or a loaded state, until two frames have ended).
    const std::vector<std::uint8_t>& previousOwners() const { return previousOwners_; }
    unsigned previousLines() const { return previousLines_; }
    const std::array<std::uint32_t, kBusOwnerCount>& previousOwnerCounts() const { return previousCounts_; }
    // The machine moved to another moment (a snapshot restored): the committed frame held
    // now is not the one before the next, so the frame before stays unknown one frame longer.
    void forgetPreviousFrame() {
        previousLines_ = 0;
        previousGap_ = true;
    }
    // The owners of the frame in progress so far: clocks the beam has not reached are 0.
    const std::vector<std::uint8_t>& ownersInProgress() const { return owners_; }
    // The owner grid is kept unless turned off (the benchmark measures what it costs).
    void setRecordOwners(bool on) { recordOwners_ = on; }
    bool recordingOwners() const { return recordOwners_; }
    // Full 24-byte records: off, or on from the next clock.
    void setRecordSlots(bool on);
    bool recordingSlots() const { return recordSlots_; }
    // The last committed frame's records, a whole row of kMaxLineCck for each clock (rows
    // beyond frameLines() zero), or none when slot records were off at its end. Built from
    // the frame's compact form at the first call after the frame's end.
    const std::vector<SlotRecord>& committedRecords() const {
        if (!committedExpanded_) expandCommittedRecords();
        return committedRecords_;
    }
    // With slot records, what happens off Agnus's own clocks, noted on the clock at the beam
    // (the next to run: a caller syncs first): slot_event bits (the CPU taking an interrupt,
    // a CIA's /IRQ), the CPU's interrupt mask from that clock on (each record's flags), and
    // a CPU access to a CIA register (CiaA/CiaB event, and committedCiaAccesses). Without
    // slot records they do nothing.
    void noteEvent(std::uint32_t events) {
        if (recordSlots_) [[unlikely]]
            events_.push_back({std::uint32_t(vpos_) * kMaxLineCck + hpos_, events});
    }
    void noteCpuMask(std::uint8_t mask) {
        if (mask != cpuMask_) [[unlikely]]
            cpuMaskChanged(mask);
    }
    void noteCiaAccess(std::uint8_t chips, std::uint8_t reg, bool write, std::uint16_t value);
    // The last committed frame's CIA accesses, in time order (empty without slot records).
    const std::vector<CiaAccess>& committedCiaAccesses() const { return committedCia_; }
    // Per-owner clock counts of the last committed frame.
    const std::array<std::uint32_t, kBusOwnerCount>& committedOwnerCounts() const { return committedCounts_; }
    // Stands in another timeline's last committed frame (a loaded state file's): its
    // lines, owners (sized as committedOwners) and counts. Its slot records are not known,
    // so the ones held are dropped.
    void setCommitted(unsigned lines, std::vector<std::uint8_t> owners,
                      const std::array<std::uint32_t, kBusOwnerCount>& counts);
    // Colour clocks the CPU waited for the bus during the current frame, so far.
    std::uint64_t cpuWaitCck() const { return cpuWaitCck_; }
    // Colour clocks the CPU has been denied since power-on (never reset by a frame), for
    // the per-frame CPU accounting (emu/chipset/frame_stats.h).
    std::uint64_t cpuDeniedTotal() const { return cpuDeniedTotal_; }
    // Every register's last written value and the bits of the ones written (lastWritten).
    const std::array<std::uint16_t, 256>& writtenValues() const { return written_; }
    const std::array<std::uint32_t, 8>& writtenBits() const { return writtenMask_; }

    void serialize(Archive& ar);

private:
    // Fixed-slot plan codes for one line.
    enum : std::uint8_t {
        PlanNone = 0,
        PlanRefresh = 1,
        PlanDisk = 2,
        PlanAudio0 = 3,  // +channel
        PlanSprite = 8,  // +2*sprite+word
        PlanBitplane = 0x20,  // +plane (1-6); PlanLastUnit added for the unit that adds modulos
        PlanLastUnit = 0x40,
    };

    // A full slot record while its frame runs (fullRecords_): a SlotRecord's fields but its
    // events (events_) in 16 bytes, none of them a char (a store of a char may alias
    // anything, and the compiler loads every member again after it).
    struct LiveRecord {
        std::uint32_t address = 0;
        std::uint32_t data = 0; // a word, or a Copper MOVE's value and its second word
        std::uint16_t reg = 0;
        std::uint16_t flags = 0;
        BusOwner owner : 8 = BusOwner::Idle;
        std::uint32_t subtype : 8 = 0, size : 8 = 0, ipl : 8 = 0;
    };
    static_assert(sizeof(LiveRecord) == 16);

    template <bool CpuWants, bool Slots>
    void executeClock(bool& cpuGranted);
    // The fixed DMA of a clock whose plan code is `code`, and the record of the clock.
    template <bool Slots>
    BusOwner fixedSlot(std::uint8_t code, LiveRecord& rec);
    // The record of the clock at hpos_, zeroed: the frame's next free full record (with
    // slot records; else a scratch record nobody reads). endClock completes it and keeps
    // it, or leaves it free when the clock turns out idle.
    template <bool Slots>
    LiveRecord& clockRecord();
    // The blitter's bus step in the clock's record; the clock given to the waiting CPU, or
    // denied it (the CPU's record fields, its refusals and the frame's charges).
    template <bool Slots>
    BusOwner blitterOwns(const Blitter::Step& b, LiveRecord& rec);
    template <bool Slots>
    void grantCpu(LiveRecord& rec, unsigned h);
    template <bool Slots>
    void denyCpu(BusOwner owner, LiveRecord& rec, unsigned h);
    // LineMayEnd false: the caller knows the clock is not the line's last.
    template <bool Slots, bool LineMayEnd = true>
    void endClock(BusOwner owner, LiveRecord& rec);
    // Where a stretch of clocks from hpos_ in which only the fixed slots act ends (hpos_:
    // none): no blit, no blit interrupt due, the Copper asleep, short of the line's last
    // clock. runFixedStretch runs such a stretch, stopping early after a slot that changed
    // an interrupt request or level when StopOnInterrupt.
    unsigned fixedStretchEnd() const;
    template <bool Slots, bool StopOnInterrupt>
    void runFixedStretch(unsigned end);
    // Where a stretch of clocks from hpos_ ends in which the Copper sleeps, no blit
    // interrupt is due and the blitter is idle or in an area blit (Blitter::areaOrIdle)
    // with no trace collecting, short of the line's last clock (hpos_: none).
    // runBusyStretch runs such a stretch up to `end`, leaving it early after the clock in
    // which the blitter leaves that state or, when CpuWants, the CPU is granted the bus
    // (then it returns true).
    unsigned busyStretchEnd();
    template <bool CpuWants, bool Slots>
    bool runBusyStretch(unsigned end);
    template <bool Slots>
    void runClocksFor(std::uint64_t target);
    template <bool Slots>
    void runToInterruptChangeFor(std::uint64_t target);
    template <bool Slots>
    std::uint64_t cpuAcquireFor();
    // Denise draws Agnus's clocks in runs (Denise::clockRun): the clocks of this line from
    // deniseAt_ up to hpos_ have run but are not drawn yet. Whatever writes to Denise, reads
    // her or ends the line draws them first (deniseNow). Drawing them changes nothing that
    // has not been decided already, so a const reader may do it too.
    Denise& deniseNow() const {
        if (deniseAt_ < hpos_) flushDenise();
        return denise_;
    }
    // Most clocks: no fixed DMA slot, the Copper asleep or in an odd clock, no blit and no
    // CPU request. Then the clock is idle (Denise draws it later, with its run).
    bool quietClock() const {
        return plan_[hpos_] == PlanNone && !blitter_.running() && !blitIrqAt_ &&
               (((hpos_ & 1) && !copperDeferred_) || copper_.dormant(vpos_, hpos_, false));
    }
    template <bool Slots>
    void idleClock();
    // The slot records of idle clocks h .. e-1 of this line, the first at colour clock cck.
    void writeIdleRecords(unsigned h, unsigned e, std::uint64_t cck);
    template <bool Slots>
    std::uint64_t grantFixedClock(); // cpuAcquire's clock inside a fixed-slot stretch
    void runClocks(std::uint64_t target); // runTo's clocks, when there are any
    // runTo's clocks inside the stretch fixedUntil_ marks: the slots found in the plan run
    // out of line (all of them with slot records, which idle clocks write too).
    void runFixedTo(std::uint64_t target) {
        const unsigned h0 = hpos_, h1 = unsigned(h0 + (target - cck_));
        if (recordSlots_ || planNext_[h0] < h1) {
            runFixedSlots(h1);
            return;
        }
        counts_[0] += h1 - h0; // BusOwner::Idle
        cck_ = target;
        hpos_ = std::uint16_t(h1);
    }
    void runFixedSlots(unsigned end);
    // Notes that clocks hpos_ .. stretch-1 are a fixed-slot stretch (fixedStretchEnd):
    // fixedUntil_ and quietUntil_, for runTo's short way and Machine's deferred catch-ups.
    void noteFixedStretch(unsigned stretch);
    // quietUntil_ for the stretch's clocks from hpos_ on (noteFixedStretch).
    void noteQuiet(unsigned stretch);
    void startLine();
    void endLine();
    void startFrame();
    void commitFrame();
    void buildBitplanePlan();
    void planSprites();
    template <bool Slots>
    void doBitplaneFetch(std::uint8_t code, LiveRecord& rec);
    void doSpriteFetch(unsigned sprite, unsigned word, LiveRecord& rec);
    void writeRegisterAgnus(std::uint16_t reg, std::uint16_t value);
    bool verticalBlank() const;
    // The line and position a VPOSR/VHPOSR read returns.
    std::pair<unsigned, unsigned> readBeam() const;
    void ownerCount(BusOwner o);
    void chargeDenied(BusOwner owner, std::size_t index);
    std::size_t openStall(); // chargeDenied's first clock of an access in a frame, on a cache miss
    void blitStarted();
    void blitClock(const Blitter::Step& b);
    void blitFinished();
    void blitSnapshot(bool finished);

    ChipRam& chip_;
    Denise& denise_;
    Paula& paula_;
    Blitter& blitter_;
    Copper& copper_;
    BeamListener* listener_ = nullptr;
    Config config_;

    std::uint64_t cck_ = 0;
    std::uint64_t frame_ = 0;
    std::uint16_t vpos_ = 0, hpos_ = 0;
    mutable std::uint16_t deniseAt_ = 0; // the first clock of the line Denise has not drawn
    unsigned lineLength_ = 227;
    bool lof_ = true;   // long frame
    bool lol_ = false;  // NTSC long line

    std::array<std::uint16_t, 256> written_{};
    std::array<std::uint32_t, 8> writtenMask_{};
    std::uint16_t dmacon_ = 0;
    std::uint16_t bplcon0_ = 0;
    std::uint16_t diwstrt_ = 0, diwstop_ = 0, ddfstrt_ = 0, ddfstop_ = 0;
    std::uint16_t bpl1mod_ = 0, bpl2mod_ = 0;
    std::array<std::uint32_t, 6> bplpt_{};
    std::array<std::uint32_t, 8> sprpt_{};
    bool vdiw_ = false;  // the vertical display window flip-flop

    // Sprite DMA per sprite: vertical start/stop from its POS/CTL, and what this line does.
    enum class SpriteDma : std::uint8_t { Off, Control, Data, Waiting };
    struct Sprite {
        std::uint16_t vstart = 0, vstop = 0;
        SpriteDma line = SpriteDma::Off;  // this line's fetch
        SpriteDma state = SpriteDma::Off;
    };
    std::array<Sprite, 8> sprites_{};

    std::array<std::uint8_t, kMaxLineCck> plan_{};  // fixed DMA slots of this line
    // For each clock, the first clock from it on with a plan code (kMaxLineCck if none).
    std::array<std::uint8_t, kMaxLineCck + 1> planNext_ = [] {
        std::array<std::uint8_t, kMaxLineCck + 1> a{};
        a.fill(std::uint8_t(kMaxLineCck));
        return a;
    }();
    void fillPlan();  // plan_ from the registers (buildBitplanePlan)
    void indexPlan(); // planNext_ from plan_
    // What plan_ was built from (buildBitplanePlan), or none.
    static constexpr std::uint64_t kNoPlanKey = ~std::uint64_t(0);
    std::uint64_t planKey_ = kNoPlanKey;
    bool bitplaneLine_ = false;
    bool lineBlank_ = false;  // the whole line is in vertical blank
    unsigned cpuRefused_ = 0;  // consecutive clocks the blitter took while the CPU waited
    // The clock at which a finished blit's INTREQ BLIT is due (0: none).
    static constexpr unsigned kBlitIrqDelayCck = 4;
    std::uint64_t blitIrqAt_ = 0;
    bool copperDeferred_ = false; // the Copper wanted the barred $E0: it acts in $E1
    // Clocks before this one (of the line in progress) are a stretch in which only the
    // fixed slots act (fixedStretchEnd). Whatever may end such a stretch early, a CPU's
    // read or write of a register above all, or a change of recording, sets it back to 0.
    std::uint64_t fixedUntil_ = 0;
    std::uint64_t quietUntil_ = 0; // ... and before this one no disk or audio slot either
    // Clocks before this one (of the line in progress) are a busy stretch (busyStretchEnd),
    // found when the stretch's first clock ran; set back to 0 as fixedUntil_ is, and by
    // any clock outside such a stretch.
    std::uint64_t busyUntil_ = 0;

    // Recording.
    std::vector<std::uint8_t> owners_, committedOwners_, previousOwners_;
    unsigned committedLines_ = 0, previousLines_ = 0;
    bool previousGap_ = false; // the next frame's end leaves the frame before unknown
    bool recordOwners_ = true;
    bool recordSlots_ = false;
    // A frame's slot records, compact: a byte per clock (row-major, stride kMaxLineCck)
    // that is an idle clock's interrupt level (its record: kIdleRecordWords) or
    // kFullRecord, and the full records of the kFullRecord clocks in beam order, without
    // their events (events_). Every clock writes its byte (the buffers are not cleared
    // between frames). Most clocks are idle: an idle run costs a memset rather than a
    // 24-byte record per clock. (A byte that is not a char: a store of one does not make
    // the compiler load every member again.)
    enum class RecordKind : std::uint8_t {};
    static constexpr std::uint8_t kFullRecord = 0x80;
    std::vector<RecordKind> recordKinds_, committedKinds_;
    std::vector<LiveRecord> fullRecords_, committedFull_; // sized for every clock, and one
    std::size_t fullCount_ = 0, committedFullCount_ = 0;  // records used
    // The slot events (slot_event bits) of the frame's clocks, a few a line, noted a stretch
    // of clocks at a time (noteEvents) rather than looked for in every clock's record.
    struct EventAt {
        std::uint32_t index; // the clock, row-major
        std::uint32_t events;
    };
    std::vector<EventAt> events_, committedEvents_;
    // The CPU's interrupt mask: now, at the frame's first clock, and its changes in the
    // frame (index, mask), filled into the records' flags when they are expanded.
    std::uint8_t cpuMask_ = 7, maskAtStart_ = 7, committedMaskAtStart_ = 7;
    void cpuMaskChanged(std::uint8_t mask);
    std::vector<EventAt> masks_, committedMasks_;
    std::vector<CiaAccess> cia_, committedCia_;
    std::uint16_t eventsAt_ = 0; // this line's clocks before it are in events_
    void noteEvents();
    void moveRecordsBeam(std::size_t from); // a loaded state's beam; from: the old one
    bool committedSlots_ = false; // the committed frame has slot records
    // committedRecords()'s whole rows, built from the committed compact form on demand.
    mutable std::vector<SlotRecord> committedRecords_;
    mutable bool committedExpanded_ = true;
    void expandCommittedRecords() const;
    void armRecords(); // the compact buffers for a frame, all clocks idle
    std::array<std::uint32_t, kBusOwnerCount> counts_{}, committedCounts_{}, previousCounts_{};
    std::uint64_t cpuWaitCck_ = 0;
    std::uint64_t cpuDeniedTotal_ = 0;
    // Per-frame accounting: the CPU access waiting (its kind, its instruction, the entry of
    // that instruction in the frame's stallPcs, -1 before its first denied clock), and
    // the blit in flight with its entry in the frame's blits.
    FrameStats* stats_ = nullptr;
    BlitTrace* trace_ = nullptr;
    CpuAccessKind pendingKind_ = CpuAccessKind::Read;
    std::uint32_t pendingPc_ = 0;
    int stallEntry_ = -1;
    std::unordered_map<std::uint32_t, std::uint32_t> stallIndex_; // pc -> stallPcs index
    // A direct-mapped cache in front of stallIndex_. The key is wider than a pc, so that the
    // mark of an empty entry is no pc: the 68000's PC holds 32 bits, only 24 of which reach
    // the bus, and a program that jumps to $FFFFFFFF takes its address error there.
    struct StallCacheEntry {
        std::uint64_t pc = ~std::uint64_t(0);
        std::uint32_t entry = 0;
    };
    static constexpr std::size_t kStallCacheSize = 64;
    std::array<StallCacheEntry, kStallCacheSize> stallCache_{};
    void forgetStalls(); // the frame's stall entries start again
    bool copperWriting_ = false;
    std::uint32_t copperMove_ = 0; // while copperWriting_: the MOVE's address
    CustomWriteProbe* writeProbe_ = nullptr;
    bool blitActive_ = false;
    BlitRecord blit_;
    std::size_t blitEntry_ = 0;
    // The CPU's access waiting for the bus, as its slot record will show it (cpuAcquire);
    // the clock that grants it copies it into its own (writeCpuRecord). The fields are
    // laid out unlike a SlotRecord's so that the copy reads each as it was stored.
    struct PendingCpu {
        std::uint32_t address = 0;
        std::uint16_t data = 0;
        std::uint16_t reg = 0;
        std::uint16_t flags = 0;
        std::uint8_t size = 0;
    };
    PendingCpu pendingCpu_{};
    void writeCpuRecord(LiveRecord& rec) const;
    LiveRecord scratchRecord_{}; // clockRecord's without slot records
    // The record of the CPU's last granted clock: its clock (row-major) and its place
    // among the full records; lastCpuCommitted_ once its frame has ended.
    std::size_t lastCpuIndex_ = 0, lastCpuFull_ = ~std::size_t(0);
    bool lastCpuCommitted_ = false;
};

} // namespace copperline
