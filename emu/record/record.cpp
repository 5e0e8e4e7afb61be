// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/record/record.h"

#include "emu/machine.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <zlib.h>

namespace copperline {

namespace {

// The newest band of snapshots spans this many frames (about 5 s of PAL); each older band
// is twice as long as the one after it and keeps every other snapshot of it.
constexpr std::uint64_t kBandFrames = 256;
// The thinning pass runs after this many new snapshots.
constexpr unsigned kThinEvery = 16;
// What a stored page costs besides its compressed bytes: the page object and the
// reference count block of its shared pointer.
constexpr std::size_t kPageOverhead = 64;
constexpr std::size_t kSnapshotOverhead = 96;

std::uint64_t keyOf(const RecordPoint& p, Record::Key k) {
    switch (k) {
    case Record::Key::Cycle: return p.cycle;
    case Record::Key::Instructions: return p.instructions;
    case Record::Key::Frame: return p.frame;
    }
    return p.cycle;
}

// Restores a machine's muted flag however the replay ends.
class MutedReplay {
public:
    MutedReplay(Machine& m, bool& replaying)
        : m_(m), was_(m.observersMuted()), replaying_(replaying) {
        m_.setObserversMuted(true);
        replaying_ = true;
    }
    ~MutedReplay() {
        m_.setObserversMuted(was_);
        replaying_ = false;
    }
    MutedReplay(const MutedReplay&) = delete;
    MutedReplay& operator=(const MutedReplay&) = delete;

private:
    Machine& m_;
    bool was_;
    bool& replaying_;
};

// Whether a page's bytes are close enough to noise that deflate would not shrink them:
// their order-0 entropy above 7.5 bits a byte. Deflate spends as long failing on such a
// page as it spends on fifty pages of zeros, and a program's noise (compressed data,
// random tables) is common enough that the check pays for itself.
bool looksRandom(const std::uint8_t* data, std::size_t n) {
    std::array<std::uint32_t, 256> count{};
    for (std::size_t i = 0; i < n; ++i)
        ++count[data[i]];
    double bits = 0;
    for (const std::uint32_t c : count)
        if (c) bits -= double(c) * std::log2(double(c) / double(n));
    return bits > 7.5 * double(n);
}

} // namespace

// zlib at its fastest level: a snapshot is taken every frame near the present, so its
// cost on the running machine matters more than the last few percent of size. One
// stream of each kind is kept and reset, because initialising one per 4 KiB page costs
// more than compressing it.
struct Record::Zlib {
    z_stream def{};
    z_stream inf{};
    std::vector<std::uint8_t> out;
    Zlib() {
        if (deflateInit(&def, Z_BEST_SPEED) != Z_OK || inflateInit(&inf) != Z_OK)
            throw std::runtime_error("record: zlib would not initialise");
    }
    ~Zlib() {
        deflateEnd(&def);
        inflateEnd(&inf);
    }
    Zlib(const Zlib&) = delete;
    Zlib& operator=(const Zlib&) = delete;

    std::vector<std::uint8_t> compress(const std::uint8_t* data, std::size_t n) {
        deflateReset(&def);
        out.resize(deflateBound(&def, uLong(n)));
        def.next_in = const_cast<Bytef*>(data);
        def.avail_in = uInt(n);
        def.next_out = out.data();
        def.avail_out = uInt(out.size());
        if (deflate(&def, Z_FINISH) != Z_STREAM_END)
            throw std::runtime_error("record: deflate failed");
        return {out.begin(), out.begin() + std::ptrdiff_t(out.size() - def.avail_out)};
    }
    void decompress(const std::vector<std::uint8_t>& z, std::uint8_t* to, std::size_t n) {
        inflateReset(&inf);
        inf.next_in = const_cast<Bytef*>(z.data());
        inf.avail_in = uInt(z.size());
        inf.next_out = to;
        inf.avail_out = uInt(n);
        if (inflate(&inf, Z_FINISH) != Z_STREAM_END || inf.avail_out != 0)
            throw std::runtime_error("record: a stored page does not inflate");
    }
};

Record::Record(Machine& machine, std::size_t budgetBytes)
    : m_(machine), budget_(budgetBytes), z_(std::make_unique<Zlib>()) {
    restart();
}

Record::~Record() = default;

void Record::restart() {
    snapshots_.clear();
    inputs_.clear();
    cursor_ = 0;
    storedBytes_ = inputBytes_ = 0;
    evicted_ = false;
    sinceThin_ = 0;
    lastRaw_.clear();
    newest_ = here();
    startPicture_ = m_.pictureBytes();
    takeSnapshot();
}

void Record::setBudget(std::size_t bytes) {
    budget_ = bytes;
    evict();
}

std::size_t Record::bytesUsed() const {
    // spare_, the buffer the next snapshot is written into, is the one every snapshot was
    // taken in before it was kept: not counted, as that one never was.
    return storedBytes_ + inputBytes_ + lastRaw_.capacity() + scratch_.capacity() + startPicture_.capacity();
}

RecordPoint Record::here() const {
    const Machine& m = m_;
    return {m.now(), m.cpu().instructions(), const_cast<Machine&>(m).agnus().cck(), m.frame()};
}

RecordPoint Record::oldest() const {
    return snapshots_.empty() ? newest_ : snapshots_.front().at;
}

bool Record::inPast() const {
    return m_.now() < newest_.cycle;
}

void Record::note() {
    if (m_.now() > newest_.cycle) newest_ = here();
}

// ---- snapshots ---------------------------------------------------------------------------

void Record::frameStarted() {
    note();
    // Standing in the past, the record already holds this stretch.
    if (!snapshots_.empty() && m_.now() <= snapshots_.back().at.cycle) return;
    if (m_.frame() % interval_ != 0) return;
    takeSnapshot();
}

void Record::takeSnapshot() {
    std::vector<std::uint8_t> raw = m_.saveSnapshot(std::move(spare_));
    Snapshot s;
    s.at = here();
    s.rawBytes = std::uint32_t(raw.size());
    const std::size_t pages = (raw.size() + kPageBytes - 1) / kPageBytes;
    const Snapshot* prev = snapshots_.empty() ? nullptr : &snapshots_.back();
    const bool comparable = prev && lastRaw_.size() == raw.size() && prev->pages.size() == pages;
    s.pages.reserve(pages);
    for (std::size_t p = 0; p < pages; ++p) {
        const std::size_t off = p * kPageBytes, len = std::min(kPageBytes, raw.size() - off);
        if (comparable && std::memcmp(raw.data() + off, lastRaw_.data() + off, len) == 0) {
            s.pages.push_back(prev->pages[p]);
            continue;
        }
        auto page = std::make_shared<Page>();
        if (looksRandom(raw.data() + off, len)) {
            page->raw = true;
            page->z.assign(raw.data() + off, raw.data() + off + len);
        } else {
            page->z = z_->compress(raw.data() + off, len);
        }
        page->z.shrink_to_fit();
        storedBytes_ += page->z.size() + kPageOverhead;
        s.pages.push_back(std::move(page));
    }
    storedBytes_ += kSnapshotOverhead + s.pages.size() * sizeof(s.pages[0]);
    spare_ = std::move(lastRaw_); // the next snapshot's buffer
    lastRaw_ = std::move(raw);
    snapshots_.push_back(std::move(s));
    if (++sinceThin_ >= kThinEvery) {
        sinceThin_ = 0;
        thin();
    }
    evict();
}

std::size_t Record::pageBytes(const Snapshot& s, bool onlyUnshared) const {
    std::size_t n = 0;
    for (const auto& p : s.pages)
        if (!onlyUnshared || p.use_count() == 1) n += p->z.size() + kPageOverhead;
    return n;
}

void Record::dropSnapshot(std::size_t index) {
    const Snapshot& s = snapshots_[index];
    storedBytes_ -= pageBytes(s, true) + kSnapshotOverhead + s.pages.size() * sizeof(s.pages[0]);
    const bool newest = index + 1 == snapshots_.size();
    snapshots_.erase(snapshots_.begin() + std::ptrdiff_t(index));
    if (newest) {
        if (snapshots_.empty())
            lastRaw_.clear();
        else
            decompress(snapshots_.back(), lastRaw_);
    }
}

void Record::thin() {
    if (snapshots_.size() < 3) return;
    const std::uint64_t newestFrame = snapshots_.back().at.frame;
    // Never the oldest (the record's reach) nor the newest.
    for (std::size_t i = snapshots_.size() - 2; i >= 1; --i) {
        const std::uint64_t f = snapshots_[i].at.frame;
        const std::uint64_t age = newestFrame - f;
        std::uint64_t spacing = interval_, bandEnd = kBandFrames;
        while (age >= bandEnd) {
            spacing *= 2;
            bandEnd = bandEnd * 2 + kBandFrames;
        }
        if (f % spacing != 0) dropSnapshot(i);
    }
}

void Record::evict() {
    std::size_t dropped = 0;
    while (snapshots_.size() > 1 && bytesUsed() > budget_) {
        dropSnapshot(0);
        evicted_ = true;
        ++dropped;
    }
    if (dropped) startPicture_ = {};
    if (!dropped) return;
    // Inputs applied before the oldest snapshot are inside it.
    const std::uint64_t from = snapshots_.front().at.cycle;
    std::size_t n = 0;
    while (n < inputs_.size() && inputs_[n].applied && inputs_[n].at < from) {
        inputBytes_ -= inputs_[n].input.bytesHeld();
        ++n;
    }
    inputs_.erase(inputs_.begin(), inputs_.begin() + std::ptrdiff_t(n));
    cursor_ -= std::min(cursor_, n);
}

void Record::decompress(const Snapshot& s, std::vector<std::uint8_t>& out) {
    out.resize(s.rawBytes);
    for (std::size_t p = 0; p < s.pages.size(); ++p) {
        const std::size_t off = p * kPageBytes;
        const Page& page = *s.pages[p];
        if (page.raw)
            std::copy(page.z.begin(), page.z.end(), out.begin() + std::ptrdiff_t(off));
        else
            z_->decompress(page.z, out.data() + off, std::min(kPageBytes, out.size() - off));
    }
}

void Record::restore(std::size_t index) {
    const Snapshot& s = snapshots_[index];
    // The working copy holds the pages of the snapshot restored last: only the pages that
    // differ from those are inflated (most are shared between neighbouring snapshots). A
    // page is known by its storage, which a weak reference keeps from being reused.
    if (scratch_.size() != s.rawBytes || scratchPages_.size() != s.pages.size()) {
        scratchPages_.assign(s.pages.size(), {});
        scratch_.resize(s.rawBytes);
    }
    for (std::size_t p = 0; p < s.pages.size(); ++p) {
        const auto& page = s.pages[p];
        std::weak_ptr<const Page>& held = scratchPages_[p];
        if (!held.owner_before(page) && !page.owner_before(held) && !held.expired()) continue;
        const std::size_t off = p * kPageBytes;
        if (page->raw)
            std::copy(page->z.begin(), page->z.end(), scratch_.begin() + std::ptrdiff_t(off));
        else
            z_->decompress(page->z, scratch_.data() + off, std::min(kPageBytes, scratch_.size() - off));
        held = page;
    }
    m_.loadSnapshot(scratch_);
    // A snapshot holds no picture. From any but the oldest, a seek replays across a frame's
    // end (it restores one snapshot early), which draws it again; in the oldest's frame the
    // picture is the one the record started with, or none once that is gone.
    if (index == 0) {
        if (!startPicture_.empty()) m_.restorePicture(startPicture_);
        else m_.forgetPicture();
    }
    const auto it = std::lower_bound(inputs_.begin(), inputs_.end(), s.at.cycle,
                                     [](const Entry& e, std::uint64_t c) { return e.at < c; });
    cursor_ = std::size_t(it - inputs_.begin());
}

// ---- inputs ------------------------------------------------------------------------------

void Record::applyAt(std::uint64_t cycle) {
    while (cursor_ < inputs_.size() && inputs_[cursor_].at <= cycle) {
        Entry& e = inputs_[cursor_++];
        e.input.apply(m_);
        if (!e.applied) {
            e.applied = true;
            e.at = cycle;
        }
    }
}

void Record::applyDue() {
    applyAt(m_.now());
}

void Record::input(const MachineInput& in, std::uint64_t due) {
    note();
    if (inPast()) forkHere();
    const std::uint64_t now = m_.now();
    Entry e;
    e.issued = now;
    e.due = e.at = std::max(due, now);
    e.input = in;
    inputBytes_ += e.input.bytesHeld();
    const auto it = std::upper_bound(inputs_.begin(), inputs_.end(), e.at,
                                     [](std::uint64_t c, const Entry& x) { return c < x.at; });
    const std::size_t at = std::size_t(it - inputs_.begin());
    inputs_.insert(it, std::move(e));
    if (at < cursor_) ++cursor_; // only when the cursor was past entries applied later on
    applyDue();
}

void Record::forkHere() {
    const std::uint64_t now = m_.now();
    while (snapshots_.size() > 1 && snapshots_.back().at.cycle > now)
        dropSnapshot(snapshots_.size() - 1);
    std::vector<Entry> kept;
    kept.reserve(inputs_.size());
    inputBytes_ = 0;
    for (auto& e : inputs_) {
        if (e.issued > now) continue;
        if (e.at > now) {
            // Issued before the fork, due after it: where it lands is decided again.
            e.applied = false;
            e.at = e.due;
        }
        inputBytes_ += e.input.bytesHeld();
        kept.push_back(std::move(e));
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const Entry& a, const Entry& b) { return a.at < b.at; });
    inputs_ = std::move(kept);
    const auto it = std::upper_bound(inputs_.begin(), inputs_.end(), now,
                                     [](std::uint64_t c, const Entry& x) { return c < x.at; });
    cursor_ = std::size_t(it - inputs_.begin());
    newest_ = here();
}

// ---- standing somewhere --------------------------------------------------------------------

std::optional<std::size_t> Record::latestBefore(Key key, std::uint64_t value) const {
    const auto it =
        std::partition_point(snapshots_.begin(), snapshots_.end(),
                             [&](const Snapshot& s) { return keyOf(s.at, key) < value; });
    if (it == snapshots_.begin()) return std::nullopt;
    return std::size_t(it - snapshots_.begin()) - 1;
}

void Record::stepOn(Key key, std::uint64_t value) {
    if (!m_.cpu().stopped()) {
        m_.stepInstruction();
        return;
    }
    // A stretch of STOP in one go, as the run loop takes it (Machine::stepStopped): the
    // same steps, up to the first boundary at or after the next logged input, the newest
    // point or a clock sought, or the frame's end, or through the step that wakes the CPU.
    // Only that last step can retire an instruction or end a frame, so every key reaches
    // its value on the boundary the steps one by one would reach it on.
    std::uint64_t until = std::min(nextDue(), newest_.cycle);
    if (key == Key::Cycle) until = std::min(until, value);
    m_.stepStopped(until);
}

void Record::replayUntil(Key key, std::uint64_t value) {
    while (keyOf(here(), key) < value && m_.now() < newest_.cycle) {
        stepOn(key, value);
        applyAt(m_.now());
    }
}

void Record::replayTo(Key key, std::uint64_t value, ReplayVisitor& visitor) {
    note();
    MutedReplay quiet(m_, replaying_);
    visitor.beginStretch();
    for (;;) {
        visitor.boundary(m_);
        if (keyOf(here(), key) >= value || m_.now() >= newest_.cycle) return;
        visitor.beforeStep(m_);
        stepOn(key, value);
        applyAt(m_.now());
    }
}

bool Record::seek(Key key, std::uint64_t value, bool picture) {
    note();
    if (snapshots_.empty()) return false;
    if (value > keyOf(newest_, key)) {
        key = Key::Cycle;
        value = newest_.cycle;
    }
    // Standing there already, and the picture does not matter.
    if (!picture && key == Key::Cycle && m_.now() == value) return true;
    const auto j = latestBefore(key, value);
    MutedReplay quiet(m_, replaying_);
    if (!j) {
        // At or before the oldest snapshot: only the oldest itself can be stood on.
        if (keyOf(snapshots_.front().at, key) != value) return false;
        restore(0);
        applyAt(m_.now());
        return true;
    }
    const RecordPoint now = here();
    if (keyOf(now, key) < value && now.cycle >= snapshots_[*j].at.cycle) {
        // Ahead of here on the same stretch: run on from here.
        replayUntil(key, value);
        return true;
    }
    // One snapshot earlier than needed, so that the frame before the target is drawn
    // again and the display shows what it showed there.
    restore(*j > 0 && picture ? *j - 1 : *j);
    applyAt(m_.now());
    replayUntil(key, value);
    return true;
}

std::optional<std::uint64_t> Record::findBack(std::uint64_t before, std::uint64_t n,
                                              ReplayVisitor& visitor) {
    note();
    if (n == 0) return std::nullopt;
    auto idx = latestBefore(Key::Cycle, before);
    if (!idx) return std::nullopt;
    MutedReplay quiet(m_, replaying_);
    std::vector<std::uint64_t> acc; // candidates found so far, oldest first
    std::uint64_t end = before;
    for (;;) {
        visitor.beginStretch();
        restore(*idx);
        applyAt(m_.now());
        std::vector<std::uint64_t> found;
        for (;;) {
            const std::uint64_t c = m_.now();
            // The end boundary is visited too (what its step did is only seen here), but
            // never `before` itself.
            if (visitor.boundary(m_) && c < before && (found.empty() || found.back() != c))
                found.push_back(c);
            if (c >= end) break;
            visitor.beforeStep(m_);
            m_.stepInstruction();
            applyAt(m_.now());
        }
        if (!found.empty() && !acc.empty() && found.back() == acc.front()) found.pop_back();
        found.insert(found.end(), acc.begin(), acc.end());
        acc = std::move(found);
        if (acc.size() >= n) return acc[acc.size() - n];
        if (*idx == 0) return std::nullopt;
        end = snapshots_[*idx].at.cycle;
        --*idx;
    }
}

bool Record::scanBack(std::uint64_t before, ReplayVisitor& visitor) {
    note();
    auto idx = latestBefore(Key::Cycle, before);
    if (!idx) return false;
    MutedReplay quiet(m_, replaying_);
    std::uint64_t end = before;
    // Stretch by stretch while the answers are likely near (most are in the last frames);
    // past that, what is older goes in one forward pass from the oldest snapshot: a restore
    // costs more than the frame it starts, and the older snapshots are as many as the
    // frames they hold to the dense end of the record.
    constexpr unsigned kStretchesOneByOne = 16;
    for (unsigned n = 0;; ++n) {
        const bool rest = n == kStretchesOneByOne && *idx > 0;
        visitor.beginStretch();
        restore(rest ? 0 : *idx);
        applyAt(m_.now());
        for (;;) {
            visitor.boundary(m_);
            if (m_.now() >= end) break;
            visitor.beforeStep(m_);
            m_.stepInstruction();
            applyAt(m_.now());
        }
        if (visitor.stretchEnded()) return true;
        if (rest || *idx == 0) return false;
        end = snapshots_[*idx].at.cycle;
        --*idx;
    }
}

} // namespace copperline
