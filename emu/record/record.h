// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The record of the recent past (DESIGN.md section 6; docs/record.md): snapshots of the
// whole machine taken at frame boundaries, plus a log of every input from outside stamped
// with where it was applied. Standing the machine on any step boundary the record holds
// means restoring the nearest snapshot before it and running forward with observers muted,
// applying the logged inputs where they were applied the first time; the emulation is
// deterministic, so that reaches the very state the machine had there.
//
// Positions. Every step of the machine (Machine::stepInstruction: an instruction, an
// interrupt entry, or a clock of STOP) advances the master clock, so the master clock at
// a step boundary names that boundary uniquely on one timeline. The record speaks of a
// boundary by its master clock; people speak of it by the count of retired instructions,
// with its colour clock and frame (RecordPoint).
//
// Storage. A snapshot is the machine's state as Machine::saveSnapshot writes it, cut into
// 4 KiB pages. A page equal to the same page of the snapshot before shares that one's
// storage; a changed page is stored zlib-compressed. Most of chip RAM, the slow RAM, the
// ROM-sized disk image and most of the chips do not change from one frame to the next, so
// a snapshot usually costs only the pages that did. Snapshots are dense near the present
// and thinned with age (the spacing doubles for each older band), and the oldest are
// evicted first when the record passes its byte budget.

#include "emu/record/machine_input.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace copperline {

class Machine;

// Where a step boundary lies, in every unit the record and its users speak.
struct RecordPoint {
    std::uint64_t cycle = 0;        // master clock (68000 cycles); names the boundary
    std::uint64_t instructions = 0; // retired instructions (the position)
    std::uint64_t cck = 0;
    std::uint64_t frame = 0;
};

// Told about a replay as it runs (Record::findBack).
class ReplayVisitor {
public:
    virtual ~ReplayVisitor() = default;
    // A replay of one stretch of the record begins (the visitor forgets what it found in
    // the stretch it saw before).
    virtual void beginStretch() {}
    // The replay stands on a boundary, inputs applied. True marks it as a candidate.
    virtual bool boundary(Machine& m) = 0;
    // The step from the current boundary is about to run.
    virtual void beforeStep(Machine&) {}
    // Record::scanBack: the stretch begun at the last beginStretch has been replayed to its
    // end. True when the visitor has all it looks for, and the scan may stop.
    virtual bool stretchEnded() { return false; }
};

class Record {
public:
    static constexpr std::size_t kPageBytes = 4096;
    static constexpr std::size_t kDefaultBudgetBytes = std::size_t(256) << 20;

    explicit Record(Machine& machine, std::size_t budgetBytes = kDefaultBudgetBytes);
    ~Record();
    Record(const Record&) = delete;
    Record& operator=(const Record&) = delete;

    // Forgets everything and starts a new record at the machine's current boundary (after
    // a state load or a reset, and at the start).
    void restart();

    std::size_t budget() const { return budget_; }
    void setBudget(std::size_t bytes);
    // Snapshot pages, page tables, the input log and the one uncompressed working copy.
    std::size_t bytesUsed() const;
    std::size_t snapshotCount() const { return snapshots_.size(); }
    std::size_t inputCount() const { return inputs_.size(); }
    // Frames between the snapshots in the newest band (the densest); 1 by default.
    void setInterval(unsigned frames) { interval_ = frames ? frames : 1; }
    unsigned interval() const { return interval_; }

    // ---- the forward run ----------------------------------------------------------------
    // The machine stands on the first boundary after a committed frame: maybe a snapshot.
    // It must come before the inputs applied at the same boundary.
    void frameStarted();
    // The master clock at which the next logged input is due (~0 when none): the run loop
    // calls applyDue() once the machine's clock reaches it.
    std::uint64_t nextDue() const { return cursor_ < inputs_.size() ? inputs_[cursor_].at : ~0ull; }
    // Applies the inputs due at the machine's current boundary.
    void applyDue();
    // Logs an input and applies it at the first boundary at or after `due` (now when due
    // is at or before the machine's clock). An input while the machine stands in the past
    // drops the future the record held beyond this boundary: the timeline forks here.
    void input(const MachineInput& in, std::uint64_t due = 0);
    // The machine reached its current boundary (the newest point moves forward to it).
    void note();

    // ---- what the record holds --------------------------------------------------------
    RecordPoint here() const;
    RecordPoint oldest() const;
    RecordPoint newest() const { return newest_; }
    bool inPast() const;
    // Whether the record reaches back to where it started (nothing evicted yet).
    bool holdsStart() const { return !evicted_; }

    // ---- standing somewhere -------------------------------------------------------------
    enum class Key { Cycle, Instructions, Frame };
    // Stands the machine on the first boundary whose `key` is at least `value`, at most
    // the newest point. False (machine unchanged) when that lies before the record.
    // Without `picture` the display may show another frame than the one it showed there
    // (a seek that only looks at the machine and then seeks back is quicker so).
    bool seek(Key key, std::uint64_t value, bool picture = true);
    // The master clock of the `n`th latest candidate boundary (ReplayVisitor::boundary)
    // strictly before `before`, looking back snapshot by snapshot. nullopt when the record
    // holds fewer. Leaves the machine somewhere in the past: seek afterwards.
    std::optional<std::uint64_t> findBack(std::uint64_t before, std::uint64_t n,
                                          ReplayVisitor& visitor);
    // Replays the record's stretches that lie before `before` (a master clock), the latest
    // first and each from its snapshot to where the next begins, telling `visitor` of each
    // as findBack does, until its stretchEnded() says it has what it looks for: one pass
    // for a search with many answers (the last writer of every custom register). After the
    // 16 latest stretches, everything older is one stretch, replayed from the oldest
    // snapshot on (restoring each older snapshot would cost more than replaying it). True
    // when the visitor said so, false when the record's oldest stretch was reached first.
    // Leaves the machine somewhere in the past: seek afterwards.
    bool scanBack(std::uint64_t before, ReplayVisitor& visitor);
    // Runs the machine on from where it stands, as a replay (its observers muted, the
    // logged inputs applied), up to the first boundary whose `key` reaches `value` (at most
    // the newest point), telling `visitor` of every boundary on the way and of each step
    // before it runs: for an observer of its own that watches a stretch the record holds
    // (the profile strip's call tree). A stretch of STOP is one step, as the run loop takes
    // it (Machine::stepStopped): from a stopped boundary to the first where the CPU has
    // woken (its interrupt entry included), a logged input is due, the frame has ended or
    // `value` is reached. The machine is left where it stopped: seek back.
    void replayTo(Key key, std::uint64_t value, ReplayVisitor& visitor);
    // Whether a replay is running (sinks of output the machine already gave stay quiet).
    bool replaying() const { return replaying_; }

private:
    struct Page {
        std::vector<std::uint8_t> z; // zlib stream of kPageBytes (fewer for the last page)
        bool raw = false;            // z holds the bytes themselves (they did not compress)
    };
    struct Snapshot {
        RecordPoint at;
        std::uint32_t rawBytes = 0;
        std::vector<std::shared_ptr<const Page>> pages;
    };
    struct Entry {
        std::uint64_t issued = 0; // the boundary it was issued at
        std::uint64_t due = 0;
        std::uint64_t at = 0; // applied at this boundary (or, until applied, its due)
        bool applied = false;
        MachineInput input;
    };

    void takeSnapshot();
    void restore(std::size_t index);
    void decompress(const Snapshot& s, std::vector<std::uint8_t>& out);
    // Applies the logged inputs due at the current boundary (from cursor_ on).
    void applyAt(std::uint64_t cycle);
    void forkHere();
    void thin();
    void evict();
    void dropSnapshot(std::size_t index);
    std::size_t pageBytes(const Snapshot& s, bool onlyUnshared) const;
    // Latest snapshot whose key is below `value`, if any.
    std::optional<std::size_t> latestBefore(Key key, std::uint64_t value) const;
    // One step on from the current boundary, or a stretch of STOP whole (stopping where a
    // replay to `value` of `key` must look).
    void stepOn(Key key, std::uint64_t value);
    // Runs from the current boundary to the first whose `key` reaches `value`.
    void replayUntil(Key key, std::uint64_t value);

    Machine& m_;
    std::size_t budget_;
    // The picture the machine showed when the record started (Machine::pictureBytes): the
    // frame before the oldest snapshot's, drawn before the record began. Dropped with that
    // snapshot: a machine put back in the oldest snapshot's frame then shows no picture.
    std::vector<std::uint8_t> startPicture_;
    unsigned interval_ = 1;
    std::deque<Snapshot> snapshots_;
    std::vector<Entry> inputs_; // ordered by `at`
    std::size_t cursor_ = 0;    // the first input not applied on the current timeline
    std::uint64_t nextSeq_ = 0;
    RecordPoint newest_;
    bool evicted_ = false;
    bool replaying_ = false;
    std::size_t storedBytes_ = 0; // compressed pages and page tables
    std::size_t inputBytes_ = 0;
    unsigned sinceThin_ = 0;
    // The newest snapshot's state, uncompressed, to find the pages that changed.
    std::vector<std::uint8_t> lastRaw_;
    std::vector<std::uint8_t> spare_; // the snapshot before's buffer, written over by the next
    std::vector<std::uint8_t> scratch_;
    // The pages scratch_ holds, one for each of its pages (restore).
    std::vector<std::weak_ptr<const Page>> scratchPages_;
    struct Zlib;
    std::unique_ptr<Zlib> z_;
};

} // namespace copperline
