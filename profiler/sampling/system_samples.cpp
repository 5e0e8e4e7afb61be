// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/sampling/system_samples.h"

#include "emu/media/file_bytes.h"

#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

namespace copperline {

namespace sf = sampler_format;

namespace {

void put8(std::vector<std::uint8_t>& o, std::uint8_t v) { o.push_back(v); }
void put16(std::vector<std::uint8_t>& o, std::uint16_t v) {
    o.push_back(std::uint8_t(v));
    o.push_back(std::uint8_t(v >> 8));
}
void put32(std::vector<std::uint8_t>& o, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) o.push_back(std::uint8_t(v >> (8 * i)));
}
void put64(std::vector<std::uint8_t>& o, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) o.push_back(std::uint8_t(v >> (8 * i)));
}
void pad4(std::vector<std::uint8_t>& o, std::size_t from) {
    while ((o.size() - from) % 4) o.push_back(0);
}

// A record (or the header) that runs past the end of the bytes: a file cut short.
struct Truncated : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Cursor {
public:
    Cursor(std::span<const std::uint8_t> b, std::size_t at) : b_(b), at_(at) {}
    std::size_t at() const { return at_; }
    std::size_t left() const { return b_.size() - at_; }
    void need(std::size_t n, const char* what) const {
        if (left() < n)
            throw Truncated("sampler.bin: offset " + std::to_string(at_) + ": " + what + " needs " +
                            std::to_string(n) + " bytes, " + std::to_string(left()) +
                            " left (truncated)");
    }
    std::uint8_t u8() { return b_[at_++]; }
    std::uint16_t u16() {
        const std::uint16_t v = std::uint16_t(b_[at_] | b_[at_ + 1] << 8);
        at_ += 2;
        return v;
    }
    std::uint32_t u32() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= std::uint32_t(b_[at_ + i]) << (8 * i);
        at_ += 4;
        return v;
    }
    std::uint64_t u64() {
        const std::uint64_t lo = u32();
        return lo | std::uint64_t(u32()) << 32;
    }
    std::string text(std::size_t n) {
        std::string s(reinterpret_cast<const char*>(b_.data() + at_), n);
        at_ += n;
        return s;
    }
    void skip(std::size_t n) { at_ += n; }

private:
    std::span<const std::uint8_t> b_;
    std::size_t at_;
};

} // namespace

void appendSampleRecord(std::vector<std::uint8_t>& o, const SystemSample& s) {
    put8(o, sf::kSample);
    put8(o, s.flags);
    put8(o, s.irqLevel);
    put8(o, 0);
    put16(o, s.sr);
    put8(o, std::uint8_t(s.idNestCnt));
    put8(o, std::uint8_t(s.tdNestCnt));
    put32(o, s.pc);
    put32(o, s.task);
    put64(o, s.cck);
}

void appendTaskRecord(std::vector<std::uint8_t>& o, std::uint32_t task, const std::string& name) {
    const std::size_t from = o.size();
    const std::size_t n = std::min<std::size_t>(name.size(), 255);
    put8(o, sf::kTask);
    put8(o, std::uint8_t(n));
    put16(o, 0);
    put32(o, task);
    o.insert(o.end(), name.begin(), name.begin() + std::ptrdiff_t(n));
    pad4(o, from);
}

void appendModuleRecord(std::vector<std::uint8_t>& o, const SystemSampleModule& m) {
    const std::size_t from = o.size();
    const std::size_t n = std::min<std::size_t>(m.name.size(), 255);
    const std::size_t lvos = std::min<std::size_t>(m.lvos.size(), 65535);
    put8(o, sf::kModule);
    put8(o, std::uint8_t(m.kind));
    put8(o, m.atEnd ? 1 : 0);
    put8(o, std::uint8_t(n));
    put32(o, m.start);
    put32(o, m.end);
    put32(o, m.base);
    put16(o, std::uint16_t(lvos));
    put16(o, 0);
    o.insert(o.end(), m.name.begin(), m.name.begin() + std::ptrdiff_t(n));
    pad4(o, from);
    for (std::size_t i = 0; i < lvos; ++i) {
        put32(o, std::uint32_t(m.lvos[i].first));
        put32(o, m.lvos[i].second);
    }
    for (std::size_t i = 0; i < lvos; ++i) put32(o, i < m.lvoEnds.size() ? m.lvoEnds[i] : m.lvos[i].second + 2);
}

std::uint64_t samplerMoment(std::uint64_t startCck, std::uint64_t k, std::uint32_t cckPerSecond, std::uint32_t hz,
                            bool jitter) {
    const std::uint64_t end = startCck + k * cckPerSecond / hz;
    if (!jitter || k == 0) return end;
    const std::uint64_t begin = startCck + (k - 1) * cckPerSecond / hz;
    if (end <= begin) return end;
    // splitmix64 of k: a fixed, well-spread sequence.
    std::uint64_t z = k * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return begin + z % (end - begin);
}

std::vector<std::uint8_t> encodeSamplerHeader(const SystemSamplesHeader& h) {
    std::vector<std::uint8_t> o(sf::kMagic, sf::kMagic + 4);
    put32(o, sf::kVersion); // the records appended after it are this version's
    put32(o, h.hz);
    put32(o, h.cckPerSecond);
    put64(o, h.startCck);
    put32(o, h.flags);
    put32(o, 0);
    return o;
}

SystemSampleFile parseSystemSamples(std::span<const std::uint8_t> bytes, std::string* cut) {
    SystemSampleFile f;
    Cursor c(bytes, 0);
    c.need(sf::kHeaderBytes, "the header");
    if (std::memcmp(bytes.data(), sf::kMagic, 4) != 0)
        throw std::runtime_error("sampler.bin: not a sampler file (no CLSP magic)");
    c.skip(4);
    f.header.version = c.u32();
    if (f.header.version != 1 && f.header.version != sf::kVersion)
        throw std::runtime_error("sampler.bin: version " + std::to_string(f.header.version) +
                                 "; this reader knows versions 1 and " + std::to_string(sf::kVersion));
    const bool ends = f.header.version >= 2;
    f.header.hz = c.u32();
    f.header.cckPerSecond = c.u32();
    f.header.startCck = c.u64();
    f.header.flags = c.u32();
    c.skip(4);
    const bool modulesOnly = f.header.flags & sf::kModulesOnly;
    if ((f.header.hz == 0) != modulesOnly || f.header.cckPerSecond == 0)
        throw std::runtime_error("sampler.bin: the header gives a rate of " +
                                 std::to_string(f.header.hz) + " Hz and " +
                                 std::to_string(f.header.cckPerSecond) + " colour clocks a second");
    std::map<std::uint32_t, std::uint32_t> nameOf; // task -> index into names
    std::map<std::string, std::uint32_t> indexOf;
    while (c.left()) {
        const std::size_t at = c.at();
        try {
            c.need(4, "a record");
        } catch (const Truncated&) {
            if (!cut) throw;
            *cut = "cut at byte " + std::to_string(bytes.size()) + ": the " +
                   std::to_string(bytes.size() - at) + " bytes of the record at byte " +
                   std::to_string(at) + " left out";
            break;
        }
        try {
            const std::uint8_t type = bytes[at];
            if (type == sf::kSample) {
                if (modulesOnly)
                    throw std::runtime_error("sampler.bin: offset " + std::to_string(at) +
                                             ": a sample in a stream of modules alone");
                c.need(sf::kSampleBytes, "a sample");
                c.skip(1);
                SystemSample s;
                s.flags = c.u8();
                s.irqLevel = c.u8();
                c.skip(1);
                s.sr = c.u16();
                s.idNestCnt = std::int8_t(c.u8());
                s.tdNestCnt = std::int8_t(c.u8());
                s.pc = c.u32();
                s.task = c.u32();
                s.cck = c.u64();
                if (s.irqLevel > 7)
                    throw std::runtime_error("sampler.bin: offset " + std::to_string(at) +
                                             ": interrupt level " + std::to_string(s.irqLevel));
                const auto n = nameOf.find(s.task);
                f.sampleName.push_back(n == nameOf.end() ? std::numeric_limits<std::uint32_t>::max()
                                                         : n->second);
                f.samples.push_back(s);
            } else if (type == sf::kTask) {
                c.need(8, "a task record");
                c.skip(1);
                const std::size_t n = c.u8();
                c.skip(2);
                const std::uint32_t task = c.u32();
                const std::size_t padded = (n + 3) & ~std::size_t(3);
                c.need(padded, "a task name");
                std::string name = c.text(n);
                c.skip(padded - n);
                auto [it, fresh] = indexOf.emplace(name, std::uint32_t(f.names.size()));
                if (fresh) f.names.push_back(name);
                nameOf[task] = it->second;
            } else if (type == sf::kModule) {
                c.need(20, "a module record");
                c.skip(1);
                SystemSampleModule m;
                const std::uint8_t kind = c.u8();
                if (kind < 1 || kind > 6)
                    throw std::runtime_error("sampler.bin: offset " + std::to_string(at) +
                                             ": module kind " + std::to_string(kind));
                m.kind = sf::ModuleKind(kind);
                m.atEnd = c.u8() & 1;
                const std::size_t n = c.u8();
                m.start = c.u32();
                m.end = c.u32();
                m.base = c.u32();
                const std::size_t lvos = c.u16();
                c.skip(2);
                const std::size_t padded = (n + 3) & ~std::size_t(3);
                c.need(padded + lvos * (ends ? 12 : 8), "a module's name and jump table");
                m.name = c.text(n);
                c.skip(padded - n);
                if (m.end < m.start)
                    throw std::runtime_error("sampler.bin: offset " + std::to_string(at) +
                                             ": module " + m.name + " ends before it starts");
                for (std::size_t i = 0; i < lvos; ++i) {
                    const int lvo = int(std::int32_t(c.u32()));
                    // A jump table's entries are 6 bytes apart below the base: -6, -12, ...
                    if (lvo >= 0 || lvo < -0xFFFF || lvo % 6)
                        throw std::runtime_error("sampler.bin: offset " + std::to_string(at) +
                                                 ": module " + m.name + ": " + std::to_string(lvo) +
                                                 " is no jump-table offset");
                    m.lvos.emplace_back(lvo, c.u32());
                }
                for (std::size_t i = 0; ends && i < lvos; ++i) {
                    const std::uint32_t end = c.u32();
                    if (end <= m.lvos[i].second || end - m.lvos[i].second > 0x10000)
                        throw std::runtime_error("sampler.bin: offset " + std::to_string(at) +
                                                 ": module " + m.name + ": the function of LVO " +
                                                 std::to_string(m.lvos[i].first) + " ends at " +
                                                 std::to_string(end) +
                                                 ", not within 64 KB after its start");
                    m.lvoEnds.push_back(end);
                }
                f.modules.push_back(std::move(m));
            } else {
                throw std::runtime_error("sampler.bin: offset " + std::to_string(at) +
                                         ": unknown record type " + std::to_string(type));
            }
        } catch (const Truncated&) {
            // A record cut at the file's end (the writer was killed while it appended):
            // every record before it stands.
            if (!cut) throw;
            *cut = "cut at byte " + std::to_string(bytes.size()) + ": the " +
                   std::to_string(bytes.size() - at) + " bytes of the record at byte " +
                   std::to_string(at) + " left out";
            break;
        }
    }
    return f;
}

SystemSampleFile readSystemSamples(const std::string& path, std::string* cut) {
    const std::vector<std::uint8_t> bytes = readFileBytes(path, std::size_t(1) << 32);
    return parseSystemSamples(bytes, cut);
}

} // namespace copperline
