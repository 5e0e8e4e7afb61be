// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `copperline-ctl profile-diff A B`: two profiles of the same program compared, as a
// regression gate. Each side is a capture folder (its precise samples named by the report
// code, profiler/report/sample_report.h, and its frame records) or a .cpuprofile. The
// comparison is function by function, matched by name (and file where the program's debug
// information gives one), never by address, so two builds of one program compare; owner by
// owner (the chip bus's colour clocks per frame); and by the distribution of frame time.
// Thresholds (`--fail-if`) turn it into an exit status. docs/profiling.md, "Comparing two
// captures", describes it; docs/formats/profile-diff.md its JSON.

#include "profiler/capture/capture_reader.h"
#include "profiler/report/cpuprofile.h"
#include "profiler/report/sample_report.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace copperline {

// A threshold expression that does not parse, or names what neither side has. what()
// names the expression and what is wrong with it.
class ProfileDiffError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One function (one name, and one file where known) with its weight summed over every node
// of the call tree that bears it.
struct FunctionWeight {
    std::string name, file;
    std::uint64_t self = 0;  // weight of the nodes' own code
    std::uint64_t total = 0; // with their descendants, each call path counted once (recursion)
};

// One frame record, as profile-diff reads it.
struct FrameTime {
    std::uint64_t frame = 0, seq = 0, length = 0;
    double cck = 0;        // the frame time (frameTimeOf)
    double idle = 0;       // idle_cck: the time the guest marked idle
    std::string source;    // "uaelib" (busy_cck) or "cpu" (length_cck - cpu.stopped_cck)
    std::map<std::string, double> owners; // owner_cck
};

struct ProfileSide {
    std::string path;
    std::string kind;             // "capture" or "cpuprofile"
    std::string program;          // the program that named it (captures), or the annotation's
    std::string weight = "cck";   // the unit: "cck", or "weight" for a foreign .cpuprofile
    std::uint64_t whole = 0;      // every node's self weight: the profile's whole
    std::vector<FunctionWeight> functions;
    bool hasFrames = false;       // a capture: frames and owners below
    std::vector<FrameTime> frames;     // the frames compared (sideFromCapture)
    std::uint64_t partialFrames = 0;   // frame records left out: the machine or the capture
                                       // did not watch them from their first clock
    std::uint64_t outsideFrames = 0;   // left out: before the first frame the program marked
                                       // idle time in, or after the last
};

// The weights of a call tree by function. Nodes whose name is in brackets (the system's
// code, "[Kick]graphics/LoadView", and the report's own nodes, "[Bus wait]", "[IRQ]") and
// the interrupt level nodes match by name alone (their url is the caller's place); the
// program's functions by name and file. The root is left out.
std::vector<FunctionWeight> functionWeights(const ProfileTree& tree);

// The frame time of one frame record: busy_cck (the frame minus the time the guest marked
// idle with uaelib's idle markers) when the frame's idle_source is "uaelib", else the time
// the CPU was not stopped, length_cck - cpu.stopped_cck. Throws ProfileDiffError naming
// a missing field.
FrameTime frameTimeOf(const nlohmann::json& record);

// A capture's side: the report's merged tree by function, and its frame records: the
// whole ones (watched from their first clock), and of a program that marks its idle time,
// those from the first it marked idle time in to the last (its frame loop: not its start-up,
// nor what ran after it returned; a frame of its loop with no idle time, an overrun, stays).
ProfileSide sideFromCapture(const CaptureFiles& capture, const SampleReport& report, const std::string& program);
// A .cpuprofile's side (readCpuProfile's tree); its "$copperline" annotation says the unit.
ProfileSide sideFromCpuProfile(const nlohmann::json& profile, const std::string& path);

// A change from A to B.
struct Change {
    double a = 0, b = 0;
    double delta() const { return b - a; }
    // The change relative to A, in percent; none when A is 0.
    std::optional<double> percent() const;
};

struct FunctionDiff {
    std::string name, file;
    std::string status;  // "changed", "same", "added" (B only), "removed" (A only)
    Change self, total;
    Change selfShare, totalShare; // fractions of each side's whole, 0..1
};

struct OwnerDiff {
    std::string owner;
    Change meanPerFrame;
};

struct FrameTimeStats {
    std::size_t count = 0;
    double mean = 0, median = 0, p95 = 0, max = 0, sum = 0;
    std::uint64_t overBudget = 0;
};

// The median (of the two middle values for an even count) and the nearest-rank p95 of
// `values`; throws ProfileDiffError on an empty list.
FrameTimeStats frameStats(std::vector<double> values, std::optional<double> budget);

struct ProfileDiff {
    const ProfileSide* a = nullptr;
    const ProfileSide* b = nullptr;
    Change whole;
    std::vector<FunctionDiff> functions; // the largest self change first
    bool haveFrames = false;             // both sides are captures with whole frames
    std::vector<OwnerDiff> owners;       // in the captures' owner order
    FrameTimeStats framesA, framesB;
    std::optional<double> budget;
    std::string frameSource;             // "uaelib", "cpu", or "mixed"
};

ProfileDiff diffProfiles(const ProfileSide& a, const ProfileSide& b, std::optional<double> budget);

// --fail-if EXPR: METRIC OP LIMIT.
//   METRIC: total_cck | total_frame_cck | mean_frame_cck | median_frame_cck |
//           p95_frame_cck | max_frame_cck | frames_over_budget |
//           function:NAME self | function:NAME total | owner:NAME
//   OP:     > (trips when B - A is above LIMIT) or < (below it)
//   LIMIT:  a signed number, with % relative to A's value, else absolute
// e.g. "p95_frame_cck>+2%", "function:main self>+5%", "owner:blitter>+3%", "max_frame_cck>+500".
struct Threshold {
    std::string text;       // as given
    std::string metric;     // "p95_frame_cck", "function", "owner", ...
    std::string name;       // the function or owner
    std::string part;       // "self" or "total" for a function
    char op = '>';
    double limit = 0;
    bool percent = false;
};

// Throws ProfileDiffError naming the expression and what is wrong in it.
Threshold parseThreshold(const std::string& text);

struct ThresholdResult {
    Threshold threshold;
    Change value;
    bool tripped = false;
};

// Throws ProfileDiffError when a metric needs what the profiles lack (frame metrics of a
// .cpuprofile, a budget without --budget), or names a function or owner neither side has.
ThresholdResult evaluateThreshold(const ProfileDiff& diff, const Threshold& threshold);

// "p95_frame_cck +3.1% (+412 CCK) > +2%": what a tripped threshold says.
std::string describeThreshold(const ThresholdResult& r);

// The reports. `top`: the function rows shown (0: all); JSON always has every row.
std::string diffText(const ProfileDiff& diff, const std::vector<ThresholdResult>& results, std::size_t top);
std::string diffMarkdown(const ProfileDiff& diff, const std::vector<ThresholdResult>& results, std::size_t top);
nlohmann::json diffJson(const ProfileDiff& diff, const std::vector<ThresholdResult>& results);

} // namespace copperline
