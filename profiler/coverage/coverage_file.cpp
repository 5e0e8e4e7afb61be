// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/coverage/coverage_file.h"

#include "emu/hex.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <algorithm>
#include <cstring>

namespace copperline {

namespace cf = coverage_format;
using nlohmann::json;

namespace {

// coverage.bin is little-endian: a bounds-checked reader of its words.
class LittleReader {
public:
    LittleReader(std::span<const std::uint8_t> bytes, const std::string& name)
        : bytes_(bytes), name_(name) {}

    std::size_t offset() const { return pos_; }
    std::size_t remaining() const { return bytes_.size() - pos_; }

    std::uint32_t u32(const std::string& field) {
        need(4, field);
        const std::uint8_t* p = bytes_.data() + pos_;
        pos_ += 4;
        return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
               std::uint32_t(p[3]) << 24;
    }
    std::uint64_t u64(const std::string& field) {
        need(8, field);
        const std::uint64_t lo = u32(field);
        return lo | std::uint64_t(u32(field)) << 32;
    }
    // Fails before an allocation when `count` items of `itemBytes` each cannot be there.
    void needItems(std::uint64_t count, std::size_t itemBytes, const std::string& field) {
        if (count * itemBytes > remaining())
            fail("truncated: " + field + " says " + std::to_string(count) + ", which needs " +
                 std::to_string(count * itemBytes) + " bytes, " + std::to_string(remaining()) +
                 " remain");
    }
    [[noreturn]] void fail(const std::string& message) const { failAt(pos_, message); }
    [[noreturn]] void failAt(std::size_t offset, const std::string& message) const {
        throw MediaError(name_ + ": " + message + " (at offset " + std::to_string(offset) + ")");
    }

private:
    void need(std::size_t n, const std::string& field) const {
        if (n > remaining())
            fail("truncated: " + field + " needs " + std::to_string(n) + " bytes, " +
                 std::to_string(remaining()) + " remain");
    }

    std::span<const std::uint8_t> bytes_;
    const std::string& name_;
    std::size_t pos_ = 0;
};

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        out.push_back(std::uint8_t(v >> (8 * i)));
}
void put64(std::vector<std::uint8_t>& out, std::uint64_t v) {
    put32(out, std::uint32_t(v));
    put32(out, std::uint32_t(v >> 32));
}

} // namespace

std::uint64_t CoverageData::saturatedCounters() const {
    std::uint64_t n = 0;
    for (const Range& r : ranges)
        n += std::uint64_t(std::count(r.counters.begin(), r.counters.end(), cf::kSaturated));
    for (const auto& [address, count] : sparse)
        n += count == cf::kSaturated;
    return n;
}

std::uint64_t CoverageData::instructionsInRanges() const {
    std::uint64_t n = 0;
    for (const Range& r : ranges)
        for (const std::uint32_t c : r.counters)
            n += c;
    return n;
}

std::uint64_t CoverageData::instructionsInSparse() const {
    std::uint64_t n = 0;
    for (const auto& [address, count] : sparse)
        n += count;
    return n;
}

std::vector<std::uint8_t> coverageBinBytes(const CoverageData& data) {
    std::vector<std::uint8_t> out;
    std::size_t words = 0;
    for (const auto& r : data.ranges)
        words += r.counters.size();
    out.reserve(24 + data.ranges.size() * 12 + words * 4 + data.sparse.size() * 8);
    for (const char c : cf::kMagic)
        out.push_back(std::uint8_t(c));
    put32(out, cf::kVersion);
    put32(out, std::uint32_t(data.ranges.size()));
    for (const auto& r : data.ranges) {
        put32(out, r.base);
        put32(out, r.size);
        put32(out, std::uint32_t(r.counters.size()));
        for (const std::uint32_t c : r.counters)
            put32(out, c);
    }
    put32(out, std::uint32_t(data.sparse.size()));
    for (const auto& [address, count] : data.sparse) {
        put32(out, address);
        put32(out, count);
    }
    put64(out, data.outside);
    put64(out, data.total);
    return out;
}

CoverageData parseCoverageBin(std::span<const std::uint8_t> bytes, const std::string& name) {
    LittleReader in(bytes, name);
    if (bytes.size() < 4 || std::memcmp(bytes.data(), cf::kMagic, 4) != 0) {
        std::string seen;
        for (std::size_t i = 0; i < 4 && i < bytes.size(); ++i) {
            const char c = char(bytes[i]);
            seen += (c >= 0x20 && c < 0x7F) ? std::string(1, c) : "\\x" + hex(bytes[i]).substr(2);
        }
        in.failAt(0, "not a coverage file: it starts with '" + seen + "', not 'CLCV'");
    }
    (void)in.u32("magic");
    const std::uint32_t version = in.u32("version");
    if (version != cf::kVersion)
        in.failAt(4, "version " + std::to_string(version) + ", but this reader knows version " +
                         std::to_string(cf::kVersion) + " only");
    CoverageData d;
    const std::uint32_t rangeCount = in.u32("range count");
    in.needItems(rangeCount, 12, "the range count");
    d.ranges.reserve(rangeCount);
    std::vector<std::size_t> starts; // each range's offset in the file, for messages
    bool saturated = false;
    std::uint64_t sum = 0;
    for (std::uint32_t i = 0; i < rangeCount; ++i) {
        const std::string what = "range " + std::to_string(i);
        const std::size_t at = in.offset();
        CoverageData::Range r;
        r.base = in.u32(what + " base");
        r.size = in.u32(what + " size");
        const std::uint32_t words = in.u32(what + " word count");
        if (words != coverageWords(r.size))
            in.failAt(at + 8, what + ": its word count " + std::to_string(words) +
                                  " disagrees with its size of " + std::to_string(r.size) +
                                  " bytes (" + std::to_string(coverageWords(r.size)) + " words)");
        if (std::uint64_t(r.base) + r.size > 0x1000000)
            in.failAt(at, what + " at " + hex(r.base) + " of " + std::to_string(r.size) +
                              " bytes leaves the 68000's 24-bit address space");
        in.needItems(words, 4, what + "'s word count");
        r.counters.resize(words);
        for (std::uint32_t w = 0; w < words; ++w) {
            r.counters[w] = in.u32(what + " counter");
            sum += r.counters[w];
            saturated |= r.counters[w] == cf::kSaturated;
        }
        d.ranges.push_back(std::move(r));
        starts.push_back(at);
    }
    // Each address is counted in one place: no two ranges overlap (sorted by base, each
    // non-empty range must end before the next begins).
    std::vector<std::uint32_t> byBase;
    for (std::uint32_t i = 0; i < rangeCount; ++i)
        if (d.ranges[i].size) byBase.push_back(i);
    std::sort(byBase.begin(), byBase.end(), [&](std::uint32_t a, std::uint32_t b) {
        return d.ranges[a].base < d.ranges[b].base;
    });
    for (std::size_t k = 1; k < byBase.size(); ++k) {
        const auto& lo = d.ranges[byBase[k - 1]];
        const auto& hi = d.ranges[byBase[k]];
        if (std::uint64_t(lo.base) + lo.size > hi.base) {
            const std::uint32_t i = std::max(byBase[k - 1], byBase[k]),
                                j = std::min(byBase[k - 1], byBase[k]);
            in.failAt(starts[i], "range " + std::to_string(i) + " (" + hex(d.ranges[i].base) +
                                     ", " + std::to_string(d.ranges[i].size) +
                                     " bytes) overlaps range " + std::to_string(j) + " (" +
                                     hex(d.ranges[j].base) + ", " +
                                     std::to_string(d.ranges[j].size) + " bytes)");
        }
    }
    // The range holding an address, if any.
    const auto rangeOf = [&](std::uint32_t address) -> std::int64_t {
        auto it = std::upper_bound(
            byBase.begin(), byBase.end(), address,
            [&](std::uint32_t a, std::uint32_t r) { return a < d.ranges[r].base; });
        if (it == byBase.begin()) return -1;
        --it;
        return address - d.ranges[*it].base < d.ranges[*it].size ? std::int64_t(*it) : -1;
    };
    const std::uint32_t sparseCount = in.u32("sparse-entry count");
    in.needItems(sparseCount, 8, "the sparse-entry count");
    d.sparse.reserve(sparseCount);
    for (std::uint32_t i = 0; i < sparseCount; ++i) {
        const std::string what = "sparse entry " + std::to_string(i);
        const std::size_t at = in.offset();
        const std::uint32_t address = in.u32(what + " address");
        const std::uint32_t count = in.u32(what + " count");
        if (address > 0xFFFFFF || (address & 1))
            in.failAt(at, what + ": " + hex(address) +
                              " is no instruction address (odd, or past 24 bits)");
        if (!d.sparse.empty() && address <= d.sparse.back().first)
            in.failAt(at, what + ": " + hex(address) + " does not follow " +
                              hex(d.sparse.back().first) +
                              " (the entries ascend by address, each address once)");
        if (const std::int64_t j = rangeOf(address); j >= 0)
            in.failAt(at, what + ": " + hex(address) + " lies in range " + std::to_string(j) +
                              ", which counts it already");
        d.sparse.emplace_back(address, count);
        sum += count;
        saturated |= count == cf::kSaturated;
    }
    d.outside = in.u64("outside count");
    const std::size_t totalAt = in.offset();
    d.total = in.u64("total count");
    if (in.remaining())
        in.fail(std::to_string(in.remaining()) + " byte(s) after the totals, where the file ends");
    // The parts add up to the total exactly, unless a counter saturated: then they are less.
    const std::uint64_t parts = sum + d.outside;
    if (parts < sum || parts > d.total || (parts < d.total && !saturated))
        in.failAt(totalAt, "the counts cannot add up: the counters hold " + std::to_string(sum) +
                               " and outside " + std::to_string(d.outside) +
                               " instruction(s), but the total is " + std::to_string(d.total) +
                               (saturated ? "" : " (no counter saturated)"));
    return d;
}

CoverageData readCoverageBin(const std::string& path) {
    // Four bytes a word of 16 MiB of address space, and the headers: no file of ours is larger.
    const auto bytes = readFileBytes(path, (std::uint64_t(1) << 25) + (std::uint64_t(1) << 24));
    return parseCoverageBin(bytes, path);
}

void writeCoverageBin(const std::string& path, const CoverageData& data, bool replace) {
    if (!replace) refuseToReplace(path, "replacing it");
    writeFileBytes(path, coverageBinBytes(data));
}

json coverageSummaryJson(const CoverageData& data, const std::string& file) {
    json ranges = json::array();
    for (const auto& r : data.ranges) {
        std::uint64_t instructions = 0, hit = 0;
        for (const std::uint32_t c : r.counters) {
            instructions += c;
            hit += c != 0;
        }
        ranges.push_back(json{{"base", hex(r.base)},
                              {"size", hex(r.size)},
                              {"words", r.counters.size()},
                              {"addresses_hit", hit},
                              {"instructions", instructions}});
    }
    json bases = json::array();
    for (const std::uint32_t b : data.relocationBases)
        bases.push_back(hex(b));
    return json{{"file", file},
                {"ranges", std::move(ranges)},
                {"instructions_in_ranges", data.instructionsInRanges()},
                {"sparse_entries", data.sparse.size()},
                {"instructions_in_sparse", data.instructionsInSparse()},
                {"outside", data.outside},
                {"total", data.total},
                {"overflow", data.overflow},
                {"saturated_counters", data.saturatedCounters()},
                {"relocation_bases", std::move(bases)}};
}

} // namespace copperline
