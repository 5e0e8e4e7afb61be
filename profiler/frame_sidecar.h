// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A plug-in point of the per-frame capture: an observer with files of its own per recorded
// frame (the precise sampler's samples-*.bin and .meta) and fields of its own in the frame
// records, the summary and the status. The capture decides which frames are recorded (its
// budget, its trigger) and names and writes every file, so the sidecar's files follow the
// same rules as the capture's own (new files only, counted, removed when a write fails);
// the sidecar only says what goes in them. Neither knows the other's insides.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace copperline {

struct FrameStats;

class FrameSidecar {
public:
    struct FrameFiles {
        std::uint64_t seq = 0;   // the capture's sequence number of this frame record
        std::uint64_t frame = 0; // the emulated frame
        // The file name for this frame: "PREFIX-SSSSSS-frame-NNNNNN.EXT".
        std::function<std::string(const char* prefix, const char* ext)> name;
        // Writes a new file in the capture folder from parts; throws on failure (the
        // capture then fails with that message).
        std::function<void(const std::string& name, const std::vector<std::span<const std::uint8_t>>& parts)> write;
        // Appends parts to a file that grows for the whole capture (created by its first
        // append, never one that existed); a failed append is cut back to the file's size
        // before it, then throws.
        std::function<void(const std::string& name, const std::vector<std::span<const std::uint8_t>>& parts)> append;
    };

    virtual ~FrameSidecar() = default;
    // The capture recorded this frame: write its files and add fields to its record.
    virtual void frameRecorded(const FrameStats& stats, const FrameFiles& files, nlohmann::json& record) = 0;
    // The capture passed over a completed frame (its trigger has not fired yet).
    virtual void frameSkipped(const FrameStats& /*stats*/) {}
    // The timeline moved backward (a state load, a reverse step).
    virtual void repositioned() {}
    // Fields for profile.json, and for profile.status / profile.stop.
    virtual void addSummary(nlohmann::json& /*summary*/) {}
    virtual void addStatus(nlohmann::json& /*status*/) const {}
    // Writes a file of the capture folder once, at its end.
    struct EndFiles {
        std::function<void(const std::string& name, const std::vector<std::span<const std::uint8_t>>& parts)> write;
        // As FrameFiles::append, to a file the frames appended to.
        std::function<void(const std::string& name, const std::vector<std::span<const std::uint8_t>>& parts)> append;
    };
    // The capture stopped (its budget, profile.stop, a failure): stop observing and write
    // what is written once (before profile.json, which addSummary then completes).
    virtual void captureEnded(const EndFiles& /*files*/) {}
};

} // namespace copperline
