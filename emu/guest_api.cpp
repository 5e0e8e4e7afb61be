#include "emu/guest_api.h"

#include "emu/state/archive.h"

#include <algorithm>

namespace copperline {

namespace {
enum : unsigned { RegIdle = 0x10, RegLog = 0x20, RegResource = 0x30, RegRun = 0x40 };
} // namespace

std::uint16_t GuestApi::read(std::uint32_t address) const {
    switch (address & 0xFE) {
    case 0x00: return kMagic;
    case 0x02: return kVersion;
    case RegIdle: return idle_ ? 1 : 0;
    default: return 0xFFFF; // what an undecoded address reads
    }
}

std::uint16_t GuestApi::readWord(std::uint32_t a) const {
    if (!read_) return 0;
    return std::uint16_t(read_(a) << 8 | read_(a + 1));
}

std::uint32_t GuestApi::readLong(std::uint32_t a) const {
    return std::uint32_t(readWord(a)) << 16 | readWord(a + 2);
}

std::string GuestApi::readString(std::uint32_t a, std::size_t max) const {
    std::string s;
    if (!read_ || !a) return s;
    for (std::size_t i = 0; i < max; ++i) {
        const std::uint8_t c = read_((a + std::uint32_t(i)) & 0xFFFFFF);
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
    if (offset == RegIdle) {
        const bool on = (data & 1) != 0;
        idleSeen_ = true;
        if (on && !idle_) {
            idle_ = true;
            idleSince_ = cck;
        } else if (!on && idle_) {
            idle_ = false;
            frameIdle_ += cck - std::max(idleSince_, frameStart_);
        }
        return;
    }
    const unsigned reg = offset & 0xF0;
    if (reg != RegLog && reg != RegResource && reg != RegRun) return;
    if ((offset & 0x0F) > 2) return;
    Latch& l = latches_[reg >> 4];
    if (offset & 2) {
        l.low = data;
        l.halves |= 2;
    } else {
        l.high = data;
        l.halves |= 1;
    }
    if (l.halves != 3) return;
    l.halves = 0;
    command(reg, std::uint32_t(l.high) << 16 | l.low, cck, frame);
}

void GuestApi::command(unsigned reg, std::uint32_t value, std::uint64_t cck, std::uint64_t frame) {
    const std::uint32_t p = value & 0xFFFFFF;
    switch (reg) {
    case RegLog: {
        LogMessage m{readString(p, kMaxLogLength), frame, cck};
        if (logSink_) logSink_(m);
        log_.push_back(std::move(m));
        if (log_.size() > 10000) log_.erase(log_.begin(), log_.begin() + 5000);
        break;
    }
    case RegResource: {
        Resource r;
        const std::uint32_t kind = readLong(p);
        r.address = readLong(p + 4) & 0xFFFFFF;
        r.size = readLong(p + 8);
        r.width = readWord(p + 12);
        r.height = readWord(p + 14);
        r.depth = readWord(p + 16);
        r.bytesPerRow = readWord(p + 18);
        r.name = readString(readLong(p + 20) & 0xFFFFFF, kMaxNameLength);
        r.frame = frame;
        // One resource per address: a new registration replaces the old one.
        std::erase_if(resources_, [&](const Resource& x) { return x.address == r.address; });
        if (kind > std::uint32_t(ResourceKind::Copper)) break;
        r.kind = ResourceKind(kind);
        if (r.kind == ResourceKind::Remove) break;
        if (resources_.size() < kMaxResources) resources_.push_back(std::move(r));
        break;
    }
    case RegRun: {
        const std::uint32_t event = readLong(p);
        if (event < 1 || event > 4) break;
        RunMessage m{RunEvent(event), readLong(p + 4), readLong(p + 8), readLong(p + 12), cck};
        run_.push_back(m);
        if (runHandler_) runHandler_(m);
        break;
    }
    default: break;
    }
}

void GuestApi::frameCommitted(std::uint64_t, std::uint64_t cck) {
    std::uint64_t total = frameIdle_;
    if (idle_) total += cck - std::max(idleSince_, frameStart_);
    lastFrameIdle_ = total;
    frameIdle_ = 0;
    frameStart_ = cck;
}

void GuestApi::reset() {
    for (auto& l : latches_)
        l = Latch{};
    idle_ = idleSeen_ = false;
    idleSince_ = frameIdle_ = frameStart_ = lastFrameIdle_ = 0;
    resources_.clear();
    log_.clear();
    run_.clear();
}

void GuestApi::serialize(Archive& ar) {
    for (auto& l : latches_)
        ar(l.high, l.low, l.halves);
    ar(idle_, idleSeen_, idleSince_, frameIdle_, frameStart_, lastFrameIdle_);
    std::uint32_t n = std::uint32_t(resources_.size());
    ar(n);
    if (ar.loading()) {
        if (n > kMaxResources) throw StateError("state data holds too many guest resources");
        resources_.assign(n, Resource{});
    }
    for (auto& r : resources_) {
        ar(r.kind, r.address, r.size, r.width, r.height, r.depth, r.bytesPerRow, r.frame);
        std::vector<std::uint8_t> name(r.name.begin(), r.name.end());
        std::uint32_t len = std::uint32_t(name.size());
        ar(len);
        if (ar.loading()) {
            if (len > kMaxNameLength) throw StateError("state data holds a resource name too long");
            name.resize(len);
        }
        ar(name);
        if (ar.loading()) r.name.assign(name.begin(), name.end());
    }
}

} // namespace copperline
