// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/coverage/coverage_sidecar.h"

namespace copperline {

CoverageSidecar::CoverageSidecar(Machine& machine, CoverageOptions options)
    : machine_(machine), counter_(std::move(options)) {
    machine_.attachCpuObserver(&counter_, CoverageCounter::kHooks);
    attached_ = true;
}

CoverageSidecar::~CoverageSidecar() {
    if (attached_) machine_.detachCpuObserver(&counter_);
}

void CoverageSidecar::captureEnded(const EndFiles& files) {
    if (!attached_) return;
    machine_.detachCpuObserver(&counter_);
    attached_ = false;
    final_ = counter_.snapshot();
    const std::vector<std::uint8_t> bytes = coverageBinBytes(*final_);
    files.write("coverage.bin", {std::span<const std::uint8_t>(bytes)});
}

void CoverageSidecar::addSummary(nlohmann::json& summary) {
    summary["coverage"] = coverageSummaryJson(data());
    summary["files"]["coverage"] = "coverage.bin";
}

void CoverageSidecar::addStatus(nlohmann::json& status) const {
    status["coverage"] = {{"counting", attached_},
                          {"instructions", counter_.total()},
                          {"outside", counter_.outside()},
                          {"overflow", counter_.overflow()}};
}

} // namespace copperline
