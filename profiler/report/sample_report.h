// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `profile-report` for a capture with precise samples (source document 000, "Converting to
// a CPU profile"): the call tree of every sample, named from the program's debug
// information, weighted in colour clocks. A program function's self weight is the colour
// clocks its own instructions ran; the chip-bus waits inside them are a "[Bus wait]" child
// (from the .meta rows); an interrupt's entry and code sit below "[IRQ]", its level and
// the routine it runs; the CPU stopped by STOP is a "[Stopped]" child of the program
// function that stopped it, or "[Idle]" (with its task) when the system stopped it; code
// outside the program is named by the one naming of it (profiler/amigaos/code_namer.h:
// "[Kick]exec/AllocMem", "[Kick]amigavideo.hidd", "[Lib]mathffp/SPMul"), and what nothing
// names is "[Kickstart]" or "[External]". docs/profiling.md describes the tree; docs/formats/samples.md the files.

#include "profiler/capture/capture_reader.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/cpuprofile.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace copperline {

inline constexpr const char* kBusWaitNode = "[Bus wait]";
inline constexpr const char* kIrqNode = "[IRQ]";
inline constexpr const char* kStoppedNode = "[Stopped]";
inline constexpr const char* kExternalNode = "[External]";
inline constexpr const char* kKickstartNode = "[Kickstart]";
inline constexpr const char* kIdleNode = "[Idle]";

struct SampleReportOptions {
    bool perFrame = false; // also one tree per frame record
    // Where each hunk (or, for an ELF alone, each section) was: overrides the capture's
    // relocation_bases.
    std::optional<std::vector<std::uint32_t>> bases;
};

struct SampleFrameTree {
    std::uint64_t seq = 0, frame = 0;
    ProfileTree tree;
    std::uint64_t cck = 0;
};

struct SampleReport {
    ProfileTree merged;                  // every frame, in capture order
    std::vector<SampleFrameTree> frames; // perFrame only
    std::uint64_t frameCount = 0, samples = 0, cck = 0, instructionCck = 0, waitCck = 0, irqCck = 0,
                  stoppedCck = 0;
    std::uint64_t dropped = 0;           // samples the capture dropped (then it is incomplete)
    // The colour clocks the merged tree could not name: self time of (root), of [IRQ] and
    // its level nodes, of [External] and of [hunk N] (unnamedShare), by node name. And the
    // self time of [Kickstart]: ROM code no module claims (AROS keeps shared code after its
    // last module), named by the ROM alone.
    std::uint64_t unnamedCck = 0, romOutsideCck = 0;
    std::map<std::string, std::uint64_t> unnamed;
    double cckHz = 0;                    // to convert colour clocks to time
    std::vector<std::string> warnings;   // e.g. dropped samples
};

// Reads every frame's samples of the capture and builds the trees. Throws MediaError (or
// CaptureError, DebugInfoError) when the capture has no samples, when `info` is not the
// program that was profiled (its hunks differ from the capture's), or when a sidecar is
// missing, truncated or disagrees with its .meta.
SampleReport buildSampleReport(const CaptureFiles& capture, const DebugInfo& info,
                               const SampleReportOptions& options = {});

// Self weight of the nodes that name nothing (see SampleReport::unnamed), by node name.
std::map<std::string, std::uint64_t> unnamedShare(const ProfileTree& tree);

// The "$copperline" annotation and time scale of a report's .cpuprofile files.
CpuProfileOptions sampleProfileOptions(const SampleReport& report, const std::string& program);

} // namespace copperline
