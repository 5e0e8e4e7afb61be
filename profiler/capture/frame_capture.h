// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The per-frame capture (source document 000, "Per-frame profiling"): a frame observer that
// appends one JSON object per committed frame to profile.jsonl, writes the sidecars the
// options ask for (slots-*.bin, chip-ram.bin and slow-ram.bin, screenshots), and the
// profile.json summary when it completes or is stopped. docs/formats/profile-jsonl.md and
// docs/formats/profile-json.md describe the files.
//
// The capture only watches: it attaches to the Machine's frame hook, reads what the
// machine already keeps (FrameStats, the owner grid, the slot records, the guest's idle
// markers) and writes files. The one thing it arms is Agnus's full slot recording, which
// changes what is recorded, never what the machine does; the frame hashes of a run with
// and without a capture are equal (tests/profiler/test_frame_capture.cpp).
//
// Files are never overwritten: the folder must be new or empty, and every file is created
// exclusively. A write that fails (a full disk) stops the capture with an error; what was
// already written stays whole (profile.jsonl loses no line and gains no partial one).
// profile.json is written (atomically) when the capture starts, marked "recording", and
// again as it learns facts and at the end, so that a capture cut short still converts.

#include "emu/machine.h"
#include "profiler/frame_sidecar.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

struct iovec;

namespace copperline {

struct CaptureOptions {
    static constexpr unsigned kDefaultFrames = 500;
    static constexpr unsigned kMaxFrames = 100'000;

    std::string path; // the capture folder (absolute); made if it does not exist
    unsigned frames = kDefaultFrames;
    bool recordSlots = false; // "slots": full slot records per frame (a Qt macro is named slots)
    bool memory = false;
    enum class Screenshots { None, Last, Every } screenshots = Screenshots::None;
    struct Trigger {
        enum class Kind { None, Frame, BusyCckOver } kind = Kind::None;
        std::uint64_t value = 0;
    } trigger;
    // "pc_samples": each frame record carries the PC, SR and ExecBase->ThisTask at the
    // frame's boundary (the first instruction boundary after its last colour clock).
    bool pcSamples = false;
    // "ring": the flight recorder. The latest `ring` frames are kept in memory (their
    // records and every per-frame file: slots, samples) and nothing is written until the
    // stop condition trips, the capture is stopped or `frames` frames have passed; then
    // the frames held are written (with the one that tripped it) as an ordinary capture.
    // 0: off (every frame is written as it ends).
    unsigned ring = 0;
    static constexpr unsigned kMaxRing = 10'000;
    // At most this many bytes are held; the oldest frames go first (profile.json says how
    // many went for want of room).
    std::uint64_t ringBytes = 512ull << 20;
    static constexpr std::uint64_t kMaxRingBytes = 16ull << 30;
    struct StopOn {
        enum class Kind { None, BusyCckOver, FrameCckOver, Break } kind = Kind::None;
        std::uint64_t value = 0;
    } stopOn;
    // The options as the user gave them (after checking), for profile.json.
    nlohmann::json given = nlohmann::json::object();
};

const char* screenshotsName(CaptureOptions::Screenshots s);

// What the capture reports through profile.status and profile.stop.
struct CaptureStatus {
    enum class State { Armed, Recording, Done, Failed };
    State state = State::Armed;
    std::string path;
    unsigned framesWritten = 0, framesLimit = 0;
    std::uint64_t bytesWritten = 0;
    bool triggered = false;
    std::optional<std::uint64_t> triggeredAt; // the frame the trigger fired on
    // The flight recorder: the frames and bytes it holds, and what stopped it.
    unsigned ringLimit = 0; // 0: not a flight recorder
    std::uint64_t ringBytesLimit = 0;
    unsigned ringFrames = 0;
    std::uint64_t ringBytes = 0;
    std::uint64_t ringDroppedForBytes = 0; // frames let go early for want of room
    nlohmann::json ringStopped;            // null until it stops
    std::string error;                        // why it failed
    bool active() const { return state == State::Armed || state == State::Recording; }
};
const char* captureStateName(CaptureStatus::State s);
nlohmann::json toJson(const CaptureStatus& s);

// A point on the emulated timeline.
struct TimelinePoint {
    std::uint64_t frame = 0, cck = 0, instructions = 0;
    unsigned vpos = 0, hpos = 0;
    double seconds = 0;
};
TimelinePoint timelinePoint(const Machine& m);
nlohmann::json toJson(const TimelinePoint& p);

class FrameCapture : public FrameObserver {
public:
    // What the capture cannot learn from the Machine alone, given by its owner.
    struct Context {
        nlohmann::json machineConfig = nlohmann::json::object(); // for profile.json
        // Extra fields for profile.json (rom_symbols, the stack bounds from ExecBase): called
        // each time the summary is written, at the start, while recording and at the end.
        std::function<void(nlohmann::json& summary)> summaryExtras;
        // Called when the capture no longer needs full slot records; without it the
        // capture turns them off itself. (The Frame Analyzer may still want them.)
        std::function<void()> releaseSlots;
        // Observers with per-frame files of their own (the precise sampler), told of every
        // completed frame in the order given; the capture does not own them.
        std::vector<FrameSidecar*> sidecars;
    };

    // Makes the folder (refusing a file, a folder that is not empty, or one that cannot
    // be written), writes the memory baseline if asked, arms slot recording if asked and
    // attaches to the machine. Throws CaptureError with a message a user can act on.
    FrameCapture(Machine& machine, CaptureOptions options, Context context);
    ~FrameCapture() override; // detaches (and finishes, if still active)
    FrameCapture(const FrameCapture&) = delete;
    FrameCapture& operator=(const FrameCapture&) = delete;

    void frameCompleted(const FrameStats& stats) override;
    // The timeline moved backward (a state load, a reverse step): writes the marker.
    void reposition();
    // Stops recording and writes profile.json (once; later calls return the same).
    // Returns the final status with the summary's main figures.
    nlohmann::json finish();

    const CaptureStatus& status() const { return status_; }
    // The status as profile.status reports it, with the sidecars' fields.
    nlohmann::json statusJson() const;
    const CaptureOptions& options() const { return options_; }
    bool wantsSlots() const { return options_.recordSlots && status_.active(); }
    // The flight recorder: true while it holds frames and has written nothing.
    bool ringHolding() const { return holding_; }
    bool ringStopsOnBreak() const { return holding_ && options_.stopOn.kind == CaptureOptions::StopOn::Kind::Break; }
    // Writes the frames held, says why in profile.json (`reason` and `detail`), and
    // finishes. A capture that is not a holding ring just finishes.
    nlohmann::json stopRing(const std::string& reason, nlohmann::json detail = nlohmann::json::object());
    // Called after the capture completed by itself (its budget reached) or failed.
    void setOnFinished(std::function<void(const CaptureStatus&)> f) { onFinished_ = std::move(f); }

private:
    bool triggerFires(const FrameStats& s, std::uint64_t busy) const;
    void record(const FrameStats& s, std::uint64_t busy, std::uint64_t idle);
    void appendLine(const std::string& line);
    void writeFile(const std::string& name, const void* data, std::size_t size);
    void writeFileV(const std::string& name, std::vector<struct iovec>& parts);
    // FrameSidecar::FrameFiles::append.
    void appendFileV(const std::string& name, std::vector<struct iovec>& parts);
    void closeAppendFiles();
    void writeScreenshot(const std::string& name);
    std::string sidecarName(const char* prefix, std::uint64_t frame, const char* ext,
                            std::uint64_t seq) const;
    void fail(const std::string& why);
    nlohmann::json summaryJson();
    // Writes profile.json (atomically: a temp file renamed over it). While the capture is
    // active, only when `always` or when its facts changed since the last write.
    void writeSummary(bool always = true);
    bool stopOnTrips(const FrameStats& s, std::uint64_t busy, std::uint64_t& value) const;
    void flushRing();

    Machine& machine_;
    CaptureOptions options_;
    Context context_;
    CaptureStatus status_;
    int jsonl_ = -1;
    std::uint64_t jsonlBytes_ = 0;
    struct AppendFile {
        int fd = -1;
        std::uint64_t bytes = 0;
    };
    std::map<std::string, AppendFile> appendFiles_; // the sidecars' growing files
    std::uint64_t seq_ = 0; // capture sequence of the next frame record
    bool attached_ = false, finished_ = false;
    nlohmann::json finalResult_;
    nlohmann::json summaryFacts_; // what the last in-progress summary said, counters left out
    TimelinePoint started_, ended_;
    std::uint64_t startCck_ = 0;            // colour clock the capture started (or triggered)
    std::uint32_t fastBase_ = 0;            // where fast-ram.bin's board was (0: none written)
    std::uint64_t instructionsAtFrame_ = 0; // retired instructions at the last frame boundary
    std::uint64_t irqCck2_ = 0;             // interrupt-entry CPU cycles over recorded frames
    std::uint64_t repositions_ = 0;
    std::optional<std::uint64_t> lastFrame_;
    std::string lastScreenshotFrameName_;
    std::function<void(const CaptureStatus&)> onFinished_;
    // The flight recorder's frames, oldest first: each one's record lines and files, as
    // they would have been written.
    struct HeldFile {
        std::string name;
        std::vector<std::uint8_t> bytes;
    };
    struct HeldFrame {
        std::vector<std::string> lines;
        std::vector<HeldFile> files;
        std::uint64_t bytes = 0;
    };
    bool holding_ = false;         // writes go to held_ instead of the folder
    std::deque<HeldFrame> held_;
    HeldFrame current_;            // the frame being recorded
    std::vector<HeldFile> heldAppends_; // appends to growing files, in order (never dropped)
    std::uint64_t framesWatched_ = 0;
    std::uint64_t ringSamples_ = 0; // the samples of the frames a ring wrote
};

// The summary's name in the capture folder (docs/formats/profile-json.md).
inline constexpr const char* kSummaryFile = "profile.json";

class CaptureError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The run-length encoding of a per-clock grid (docs/formats/profile-jsonl.md, "Grids"):
// rows separated by ';', each row a sequence of runs, a run a letter ('a' + value) and its
// length in decimal when it is more than 1; an empty row repeats the one before it.
std::string encodeGrid(const std::uint8_t* cells, unsigned rows, unsigned cols, unsigned stride);
// The inverse; throws CaptureError on a malformed string or a value over `maxValue`.
std::vector<std::uint8_t> decodeGrid(const std::string& text, unsigned rows, unsigned cols,
                                     unsigned maxValue);

// One blit as profile.jsonl's `blits` array and frame.blits list it.
nlohmann::json blitJson(const BlitRecord& blit);
// The CPU's fields of a frame record, as profile.jsonl and frame.waits give them: `cpu`
// (the four counters), `cpu_wait_classes` (denied clocks by owner and by access kind), the
// `top` most stalled instructions in `stall_pcs` and the others summed in `stall_pcs_rest`.
nlohmann::json cpuWaitFields(const FrameStats& frame, std::size_t top);

// The minterm as a sum of products of A, B and C ("AB+!AC"; "0" and "1" for the constant
// functions), the form the blit lists and the Frame Analyzer show.
std::string mintermFormula(std::uint8_t minterm);

} // namespace copperline
