// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The reports of the system sampler (sampler.bin, docs/formats/sampler.md): every sample
// attributed by task, context, module and function (docs/profiling.md, "Attribution"),
// then written as folded stacks ("task;context;module;function COUNT", speedscope,
// flamegraph.pl, inferno), as a Chrome trace (one track per task, a slice where
// consecutive samples stay in one function), or as a ranked table; and the proof's check
// of containment and proportionality against profspin's kernel ranges.

#include "profiler/capture/capture_reader.h"
#include "profiler/sampling/system_samples.h"

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace copperline {

class DebugInfo;

// The profiled program: its hunks in the machine, and (optionally) its debug information,
// used only when its hunk sizes are the ones the capture recorded.
struct SystemReportProgram {
    std::string name;                        // the module name ("profspin")
    std::vector<std::uint32_t> bases;        // where each hunk was loaded
    std::vector<std::uint32_t> sizes;        // each hunk's size
    const DebugInfo* info = nullptr;         // names its functions
};

// One sample, attributed.
struct AttributedSample {
    std::uint64_t cck = 0;
    std::uint64_t weight = 1; // colour clocks, for a sample made from precise samples
    std::uint32_t pc = 0;
    std::uint32_t task = 0;
    std::string taskName, context, module, function;
};

struct SystemReport {
    SystemSamplesHeader header;
    std::vector<AttributedSample> samples;
    // Every count is a sum of weights: samples, or colour clocks when `precise`.
    bool precise = false;
    std::uint64_t total = 0;
    std::uint64_t idle = 0, disabled = 0, forbidden = 0, stopped = 0;
    std::uint64_t irq[8] = {};
    // By task name and by context.
    std::map<std::string, std::uint64_t> tasks, contexts;
    // Samples by "task;context;module;function", by module and by "module/function".
    std::map<std::string, std::uint64_t> stacks, modules, functions;
};

// Attributes every sample. `program` may be null (its hunks then are `unknown`, or named
// by the capture's relocation bases when given). ROM addresses outside every module are
// "[Kickstart]"; anything else no module claims is "unknown".
SystemReport buildSystemReport(const SystemSampleFile& file, const SystemReportProgram* program);

// A capture's precise samples (their .meta rows' context, version 2; the frames' task
// names, system-modules.bin) as system samples, each weighted by the colour clocks it
// covers: the same reports, exact rather than statistical. Throws std::runtime_error when
// the capture has no precise samples, when they predate the context (version 1 rows), or
// when a file is malformed.
SystemSampleFile preciseSystemSamples(const std::string& dir);
// The same from a capture already read (its whole frames only: readCapture leaves out what
// a cut capture lost); `notes` gets a line for a cut system-modules.bin.
SystemSampleFile preciseSystemSamples(const CaptureFiles& capture, std::vector<std::string>* notes = nullptr);

// Whether the statistical report's shares of each task, context and module agree with the
// exact ones of the same run: each within `sigmas` binomial standard errors of the exact
// share p for n samples (sqrt(p (1 - p) / n)), plus 1/n. Prints a line per share and
// "agreement with the precise samples: N outside Ksigma, PASS|FAIL".
struct AgreementResult {
    std::uint64_t failures = 0, compared = 0;
    std::string text;
    bool pass() const { return failures == 0 && compared > 0; }
};
AgreementResult checkAgreement(const SystemReport& statistical, const SystemReport& exact, double sigmas = 4.0);

std::string foldedText(const SystemReport& report);
nlohmann::json traceJson(const SystemReport& report);
std::string tableText(const SystemReport& report, unsigned top = 20);

// profspin's output: "kernel NAME $START $END LINES" per kernel (other lines are ignored).
struct KernelRange {
    std::string name;
    std::uint32_t start = 0, end = 0;
    std::uint64_t lines = 0; // the time the program measured itself running it
};
// Throws std::runtime_error naming the line for a malformed one, or when none is there.
std::vector<KernelRange> parseKernelRanges(const std::string& text);

struct ContainResult {
    std::uint64_t failures = 0;
    std::string text; // the per-kernel lines and the verdict
    bool pass() const { return failures == 0; }
};
// Containment: every sample inside a kernel's range lands on one of its instructions (the
// instruction starts found by decoding the kernel from its first byte with `readWord`);
// proportionality: each kernel's share of the kernels' samples is within `tolerance`
// (0.01: one percentage point) of its share of the measured time. A kernel without
// samples fails.
ContainResult checkContainment(const SystemSampleFile& file, const std::vector<KernelRange>& kernels,
                               const std::function<std::uint16_t(std::uint32_t)>& readWord,
                               double tolerance = 0.01);

} // namespace copperline
