// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/coverage/coverage_counter.h"

#include "emu/hex.h"

#include <algorithm>
#include <stdexcept>

namespace copperline {

namespace cf = coverage_format;

CoverageCounter::CoverageCounter(CoverageOptions options) : options_(std::move(options)) {
    for (std::size_t i = 0; i < options_.codeRanges.size(); ++i) {
        const CodeRange& r = options_.codeRanges[i];
        if (std::uint64_t(r.base) + r.size > 0x1000000)
            throw std::invalid_argument("code range " + std::to_string(i) + " (" + hex(r.base) +
                                        ", " + hex(r.size) +
                                        " bytes) leaves the 68000's 24-bit address space");
        for (std::size_t j = 0; j < i; ++j) {
            const CodeRange& o = options_.codeRanges[j];
            if (r.size && o.size && r.base < std::uint64_t(o.base) + o.size &&
                o.base < std::uint64_t(r.base) + r.size)
                throw std::invalid_argument("code range " + std::to_string(i) + " (" + hex(r.base) +
                                            ", " + hex(r.size) + " bytes) overlaps code range " +
                                            std::to_string(j) + " (" + hex(o.base) + ", " +
                                            hex(o.size) + " bytes)");
        }
        CoverageData::Range range;
        range.base = r.base;
        range.size = r.size;
        range.counters.assign(coverageWords(r.size), 0);
        ranges_.push_back(std::move(range));
    }
    if (ranges_.empty()) sparse_.reserve(std::min<std::uint32_t>(options_.sparseLimit, 1u << 12));
}

void CoverageCounter::countElsewhere(std::uint32_t pc) {
    for (CoverageData::Range& r : ranges_) {
        const std::uint32_t offset = pc - r.base;
        if (offset < r.size) {
            last_ = &r;
            std::uint32_t& c = r.counters[offset >> 1];
            c += c != cf::kSaturated;
            return;
        }
    }
    if (!ranges_.empty()) {
        ++outside_;
        return;
    }
    if (const auto it = sparse_.find(pc); it != sparse_.end()) {
        it->second += it->second != cf::kSaturated;
        return;
    }
    if (sparse_.size() < options_.sparseLimit) {
        sparse_.emplace(pc, 1);
        return;
    }
    ++overflow_;
    ++outside_;
}

CoverageData CoverageCounter::snapshot() const {
    CoverageData d;
    d.ranges = ranges_;
    d.sparse.assign(sparse_.begin(), sparse_.end());
    std::sort(d.sparse.begin(), d.sparse.end());
    d.outside = outside_;
    d.total = total_;
    d.overflow = overflow_;
    d.relocationBases = options_.relocationBases;
    return d;
}

} // namespace copperline
