#pragma once

// The options of profile.start (and of `copperline --profile-options`), checked with every
// rule of source document 000: parameter names, types, ranges and the combinations that
// are refused. One reader serves the command and the command line.

#include "profiler/capture/frame_capture.h"

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace copperline {

// The traces folder: `override` when given, else $XDG_DATA_HOME/copperline/traces, else
// ~/.local/share/copperline/traces.
std::string tracesFolder(const std::string& override);

// Checks `params` and returns the options, with `path` absolute (a new
// copperline-profile-<timestamp> folder under `tracesDir` when absent; a relative path is
// taken from `baseDir`). Throws CommandError: InvalidParams for a bad or unknown
// parameter or a refused combination, Unsupported for the options this build cannot
// honour yet.
CaptureOptions parseCaptureOptions(const nlohmann::json& params, const std::string& tracesDir,
                                   const std::string& baseDir);

// The machine's configuration as profile.json records it.
nlohmann::json machineConfigJson(const class Machine& machine);

// Starts a capture on `machine` with everything profile.json records besides the frames
// (the configuration, the guest's resources, ...). `releaseSlots` as in
// FrameCapture::Context. Throws CaptureError.
std::unique_ptr<FrameCapture> startCapture(Machine& machine, const CaptureOptions& options,
                                           std::function<void()> releaseSlots);

} // namespace copperline
