// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/guest_api.h"

#include "emu/state/archive.h"

#include <algorithm>

namespace copperline {

namespace {
enum : unsigned { RegRun = 0x40 };
constexpr std::size_t kMaxLogEntries = 10000;
} // namespace

std::uint16_t GuestApi::read(std::uint32_t address) const {
    switch (address & 0xFE) {
    case 0x00: return kMagic;
    case 0x02: return kVersion;
    default: return 0xFFFF; // what an undecoded address reads
    }
}

bool GuestApi::readable(std::uint32_t a, std::uint32_t length) const {
    const std::uint64_t end = std::uint64_t(a) + length;
    if (end <= chipBytes_) return true;
    if (a >= 0xC00000 && end <= 0xC00000ull + slowBytes_) return true;
    if (fastBytes_ && a >= fastBase_ && end <= std::uint64_t(fastBase_) + fastBytes_) return true;
    return a >= 0xF80000 && end <= 0x1000000;
}

bool GuestApi::writable(std::uint32_t a, std::uint32_t length) const {
    const std::uint64_t end = std::uint64_t(a) + length;
    return end <= chipBytes_ || (a >= 0xC00000 && end <= 0xC00000ull + slowBytes_) ||
           (fastBytes_ && a >= fastBase_ && end <= std::uint64_t(fastBase_) + fastBytes_);
}

std::uint16_t GuestApi::readWord(std::uint32_t a) const {
    return std::uint16_t(readByte(a) << 8 | readByte(a + 1));
}

std::uint32_t GuestApi::readLong(std::uint32_t a) const {
    return std::uint32_t(readWord(a)) << 16 | readWord(a + 2);
}

std::string GuestApi::readString(std::uint32_t a, std::size_t max) const {
    std::string s;
    if (!read_ || !a) return s;
    for (std::size_t i = 0; i < max; ++i) {
        const std::uint8_t c = readByte(a + std::uint32_t(i));
        if (!c) break;
        s += char(c);
    }
    return s;
}

void GuestApi::write(std::uint32_t address, std::uint16_t data, bool upper, bool lower,
                     std::uint64_t cck, std::uint64_t frame) {
    const unsigned offset = address & 0xFE;
    if (!(upper && lower)) {
        // A byte write puts its byte on both halves of the bus.
        const std::uint8_t b = upper ? std::uint8_t(data >> 8) : std::uint8_t(data);
        data = std::uint16_t(b * 0x0101);
    }
    if ((offset & 0xF0) != RegRun || (offset & 0x0F) > 2) return;
    Latch& l = latches_[RegRun >> 4];
    if (offset & 2) {
        l.low = data;
        l.halves |= 2;
    } else {
        l.high = data;
        l.halves |= 1;
    }
    if (l.halves != 3) return;
    l.halves = 0;
    command(RegRun, std::uint32_t(l.high) << 16 | l.low, cck, frame);
}

void GuestApi::command(unsigned reg, std::uint32_t value, std::uint64_t cck, std::uint64_t) {
    const std::uint32_t p = value & 0xFFFFFF;
    if (reg != RegRun) return;
    const std::uint32_t event = readLong(p);
    if (event < 1 || event > 7) return;
    RunMessage m{RunEvent(event), readLong(p + 4), readLong(p + 8), readLong(p + 12), cck};
    run_.push_back(m);
    if (runHandler_) runHandler_(m);
}

void GuestApi::setIdle(bool on, std::uint64_t cck) {
    idleSeen_ = true;
    const bool was = idleDepth_ > 0;
    if (on)
        idleDepth_ = std::min(idleDepth_ + 1, kMaxIdleDepth);
    else if (idleDepth_ > 0)
        --idleDepth_;
    const bool now = idleDepth_ > 0;
    if (now && !was)
        idleSince_ = cck;
    else if (!now && was)
        frameIdle_ += cck - std::max(idleSince_, frameStart_);
}

void GuestApi::addLog(std::string text, bool refused, std::uint64_t frame, std::uint64_t cck) {
    LogMessage m{std::move(text), frame, cck, refused};
    if (logSink_) logSink_(m);
    log_.push_back(std::move(m));
    if (log_.size() > kMaxLogEntries) log_.erase(log_.begin(), log_.begin() + kMaxLogEntries / 2);
    changed(Change::Log);
}

void GuestApi::requestWarp(bool on, const std::string& how) {
    ++warpRequests_;
    guestWarp_ = on;
    if (warpHandler_) warpHandler_(on, how);
}

void GuestApi::refused(std::string text, std::uint64_t frame, std::uint64_t cck) {
    // The texts are the guest's to vary: past kMaxRefusalKinds kinds, the rest are counted
    // together, reported once.
    if (refusalCounts_.size() >= kMaxRefusalKinds && !refusalCounts_.count(text))
        text = "uaelib: further refusals of other kinds (not listed one by one)";
    if (refusalCounts_[text]++ == 0) addLog(std::move(text), true, frame, cck);
}

void GuestApi::registerResource(Resource r) {
    std::erase_if(resources_, [&](const Resource& x) { return x.address == r.address; });
    if (resources_.size() < kMaxResources) resources_.push_back(std::move(r));
    changed(Change::Resources);
}

void GuestApi::unregisterResource(std::uint32_t address) {
    if (address == 0)
        resources_.clear();
    else
        std::erase_if(resources_, [&](const Resource& x) { return x.address == address; });
    changed(Change::Resources);
}

void GuestApi::clearOverlay() {
    overlay_.clear();
    overlayDirty_ = true;
}

bool GuestApi::addOverlayShape(OverlayShape s) {
    if (overlay_.size() >= kMaxOverlayShapes) return false;
    overlay_.push_back(std::move(s));
    overlayDirty_ = true;
    return true;
}

void GuestApi::frameCommitted(std::uint64_t frame, std::uint64_t cck) {
    std::uint64_t total = frameIdle_;
    if (idleDepth_ > 0) total += cck - std::max(idleSince_, frameStart_);
    lastFrameIdle_ = total;
    if (idleSeen_) {
        idleHistory_.push_back({frame, frameStart_, cck - frameStart_, total});
        if (idleHistory_.size() > kIdleHistory) idleHistory_.pop_front();
    }
    frameIdle_ = 0;
    frameStart_ = cck;
    // The overlay a frame shows is the list as it stood when the frame was committed; it
    // stays until the guest clears it, as WinUAE's overlay buffer does.
    if (overlayDirty_) {
        committedOverlay_ = overlay_;
        overlayDirty_ = false;
        ++overlayGeneration_;
    }
}

void GuestApi::reset() {
    refusalCounts_.clear(); // a new run: its refusals are reported again
    for (auto& l : latches_)
        l = Latch{};
    idleDepth_ = 0;
    idleSeen_ = false;
    idleSince_ = frameIdle_ = frameStart_ = lastFrameIdle_ = 0;
    idleHistory_.clear();
    resources_.clear();
    log_.clear();
    run_.clear();
    overlay_.clear();
    if (!committedOverlay_.empty()) ++overlayGeneration_;
    committedOverlay_.clear();
    overlayDirty_ = false;
}

namespace {

void serializeString(Archive& ar, std::string& s, std::size_t max, const char* what) {
    std::vector<std::uint8_t> bytes(s.begin(), s.end());
    std::uint32_t len = std::uint32_t(bytes.size());
    ar(len);
    if (ar.loading()) {
        if (len > max) throw StateError(std::string("state data holds ") + what + " too long");
        bytes.resize(len);
    }
    ar(bytes);
    if (ar.loading()) s.assign(bytes.begin(), bytes.end());
}

} // namespace

void GuestApi::serialize(Archive& ar) {
    for (auto& l : latches_)
        ar(l.high, l.low, l.halves);
    // The layout of a machine that never called uaelib is the one version 1 of this
    // interface wrote: the idle flag, then the resources. What uaelib added (nested idle
    // markers, the overlay) follows only when there is any, flagged by the top bit of the
    // resource count, so that such a machine's state and hash are unchanged.
    bool idleFlag = idleDepth_ > 0;
    ar(idleFlag, idleSeen_, idleSince_, frameIdle_, frameStart_, lastFrameIdle_);
    constexpr std::uint32_t kExtension = 0x80000000u;
    const bool extension = idleDepth_ > 1 || !overlay_.empty();
    std::uint32_t n = std::uint32_t(resources_.size()) | (extension ? kExtension : 0);
    ar(n);
    const bool hasExtension = (n & kExtension) != 0;
    n &= ~kExtension;
    if (ar.loading()) {
        if (n > kMaxResources) throw StateError("state data holds too many guest resources");
        resources_.assign(n, Resource{});
        idleDepth_ = idleFlag ? 1 : 0;
    }
    for (auto& r : resources_) {
        ar(r.kind, r.address, r.size, r.width, r.height, r.depth, r.bytesPerRow, r.frame);
        ar(r.entries, r.flags);
        serializeString(ar, r.name, kMaxNameLength, "a resource name");
        if (ar.loading() && unsigned(r.kind) > unsigned(ResourceKind::Copper))
            throw StateError("state data holds a resource of unknown kind");
    }
    if (!hasExtension) {
        if (ar.loading()) {
            overlay_.clear();
            showLoadedOverlay();
        }
        return;
    }
    std::uint32_t depth = idleDepth_;
    ar(depth);
    std::uint32_t shapes = std::uint32_t(overlay_.size());
    ar(shapes);
    if (ar.loading()) {
        if (depth > kMaxIdleDepth || (depth > 0) != idleFlag)
            throw StateError("state data holds a bad idle depth");
        if (shapes > kMaxOverlayShapes)
            throw StateError("state data holds too many overlay shapes");
        idleDepth_ = depth;
        overlay_.assign(shapes, OverlayShape{});
    }
    for (auto& s : overlay_) {
        ar(s.kind, s.left, s.top, s.right, s.bottom, s.color);
        if (ar.loading() && unsigned(s.kind) > unsigned(OverlayShape::Kind::Text))
            throw StateError("state data holds an overlay shape of unknown kind");
        serializeString(ar, s.text, kMaxOverlayText, "an overlay text");
    }
    if (ar.loading()) showLoadedOverlay();
}

void GuestApi::showLoadedOverlay() {
    // The loaded machine's picture is the one it shows next; so is its overlay.
    committedOverlay_ = overlay_;
    overlayDirty_ = false;
    ++overlayGeneration_;
}

} // namespace copperline
