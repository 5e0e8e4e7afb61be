// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A capture's coverage ("coverage": true on profile.start): the counter attached to the
// machine's CPU for as long as the capture runs, and coverage.bin written once, when the
// capture stops or reaches its budget, with profile.json's "coverage" summary. Nothing is
// written per frame (source document 000, "Collecting").

#include "emu/machine.h"
#include "profiler/coverage/coverage_counter.h"
#include "profiler/frame_sidecar.h"

#include <optional>

namespace copperline {

class CoverageSidecar final : public FrameSidecar {
public:
    // Attaches the counter at once. Throws std::invalid_argument for ranges the counter
    // refuses.
    CoverageSidecar(Machine& machine, CoverageOptions options);
    ~CoverageSidecar() override;
    CoverageSidecar(const CoverageSidecar&) = delete;
    CoverageSidecar& operator=(const CoverageSidecar&) = delete;

    void frameRecorded(const FrameStats&, const FrameFiles&, nlohmann::json&) override {}
    void addSummary(nlohmann::json& summary) override;
    void addStatus(nlohmann::json& status) const override;
    void captureEnded(const EndFiles& files) override;

    const CoverageCounter& counter() const { return counter_; }
    bool counting() const { return attached_; }
    // The counts: live while counting, those written to coverage.bin after.
    CoverageData data() const { return final_ ? *final_ : counter_.snapshot(); }

private:
    Machine& machine_;
    CoverageCounter counter_;
    bool attached_ = false;
    std::optional<CoverageData> final_;
};

} // namespace copperline
