// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The coverage counter (source document 000, "Collecting"): a CPU observer that counts
// every retired instruction. Inside the code ranges (the program's code hunks) each
// instruction word has its own saturating u32 counter, indexed by the opcode's address;
// everything retired elsewhere (Kickstart, libraries, other tasks) adds to one `outside`
// total. Without code ranges each address gets an entry in a sparse map of at most
// `sparseLimit` distinct addresses; an instruction at a new address past that is counted
// in `overflow` and in `outside`, so the totals still add up and the loss is reported.
//
// It only reads what the CPU tells it: the emulated timeline is the same with it attached
// (tests/profiler/test_coverage.cpp compares the state hashes). The owner attaches it with
// Machine::attachCpuObserver(&counter, CoverageCounter::kHooks). An instruction run again
// after a rewind or a state load counts again.

#include "emu/cpu/m68k_types.h"
#include "profiler/coverage/coverage_file.h"
#include "profiler/sampling/unwinder.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace copperline {

struct CoverageOptions {
    // One counter per instruction word inside each range; none: the sparse map counts.
    std::vector<CodeRange> codeRanges;
    // Where each hunk of the program was loaded, recorded for the converter (snapshot()).
    std::vector<std::uint32_t> relocationBases;
    std::uint32_t sparseLimit = coverage_format::kDefaultSparseLimit;
};

class CoverageCounter final : public m68k::Observer {
public:
    static constexpr unsigned kHooks = m68k::kHookRetire;

    // Throws std::invalid_argument, saying which, for a range that leaves the 24-bit
    // address space or overlaps another.
    explicit CoverageCounter(CoverageOptions options);
    CoverageCounter(const CoverageCounter&) = delete;
    CoverageCounter& operator=(const CoverageCounter&) = delete;

    void instructionRetired(const m68k::RetireInfo& info) override {
        if (!counting_) return;
        ++total_;
        const std::uint32_t pc = info.pc & 0xFFFFFF;
        // Most instructions fall in the range the last one did: one compare and one add.
        const std::uint32_t offset = pc - last_->base;
        if (offset < last_->size) {
            std::uint32_t& c = last_->counters[offset >> 1];
            c += c != coverage_format::kSaturated;
            return;
        }
        countElsewhere(pc);
    }

    // A stopped counter ignores every instruction until it is started again.
    void setCounting(bool on) { counting_ = on; }
    bool counting() const { return counting_; }

    std::uint64_t total() const { return total_; }
    std::uint64_t outside() const { return outside_; }
    std::uint64_t overflow() const { return overflow_; }
    std::size_t sparseEntries() const { return sparse_.size(); }
    const CoverageOptions& options() const { return options_; }

    // The counts so far, with the relocation bases (sparse entries sorted by address).
    CoverageData snapshot() const;

private:
    void countElsewhere(std::uint32_t pc);

    CoverageOptions options_;
    std::vector<CoverageData::Range> ranges_;
    CoverageData::Range none_;           // size 0: matches no address
    CoverageData::Range* last_ = &none_; // where the last counted instruction was
    std::unordered_map<std::uint32_t, std::uint32_t> sparse_;
    std::uint64_t total_ = 0, outside_ = 0, overflow_ = 0;
    bool counting_ = true;
};

} // namespace copperline
