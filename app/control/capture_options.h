// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The options of profile.start (and of `copperline --profile-options`), checked with every
// rule of source document 000: parameter names, types, ranges and the combinations that
// are refused. One reader serves the command and the command line.

#include "profiler/capture/frame_capture.h"
#include "profiler/coverage/coverage_sidecar.h"
#include "profiler/sampling/sampler.h"
#include "profiler/sampling/system_sampler.h"

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace copperline {

// The traces folder: `override` when given, else $XDG_DATA_HOME/copperline/traces, else
// ~/.local/share/copperline/traces.
std::string tracesFolder(const std::string& override);

// What profile.start asks for: the capture, and the observers that write into it.
struct ProfileOptions {
    CaptureOptions capture;
    std::optional<SamplerOptions> samples; // "samples": true
    std::optional<CoverageOptions> coverage; // "coverage": true
    std::optional<SystemSamplerOptions> sampler; // "sampler": {"hz": N}
};

// Checks `params` and returns the options, with `path` absolute (a new
// copperline-profile-<timestamp> folder under `tracesDir` when absent; a relative path is
// taken from `baseDir`). Throws CommandError: InvalidParams for a bad or unknown
// parameter or a refused combination, Unsupported for the options this build cannot
// honour yet.
ProfileOptions parseCaptureOptions(const nlohmann::json& params, const std::string& tracesDir,
                                   const std::string& baseDir);

// Every option parseCaptureOptions knows, for profile.start's declared parameters.
std::vector<std::string> captureOptionNames();

// The machine's configuration as profile.json records it.
nlohmann::json machineConfigJson(const class Machine& machine);

// A running capture and its sidecars. The sampler outlives the capture, which tells it of
// its last frame and summary as it finishes.
struct ProfileSession {
    std::unique_ptr<Sampler> sampler;
    std::unique_ptr<CoverageSidecar> coverage;
    std::unique_ptr<SystemSampler> systemSampler;
    std::unique_ptr<FrameCapture> capture;
};

// Starts a capture on `machine` with everything profile.json records besides the frames
// (the configuration, the guest's resources, ...). `releaseSlots` as in
// FrameCapture::Context; `warn` hears the sampler's one warning; `moreSummary` adds the
// owner's own fields to profile.json when it is written. Throws CaptureError.
ProfileSession startCapture(Machine& machine, const ProfileOptions& options,
                            std::function<void()> releaseSlots,
                            std::function<void(const std::string&)> warn = nullptr,
                            std::function<void(nlohmann::json&)> moreSummary = nullptr);

} // namespace copperline
