#pragma once

// The reports of the system sampler (sampler.bin, docs/formats/sampler.md): every sample
// attributed by task, context, module and function (docs/profiling.md, "Attribution"),
// then written as folded stacks ("task;context;module;function COUNT", speedscope,
// flamegraph.pl, inferno), as a Chrome trace (one track per task, a slice where
// consecutive samples stay in one function), or as a ranked table; and the proof's check
// of containment and proportionality against profspin's kernel ranges.

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
    std::uint32_t pc = 0;
    std::uint32_t task = 0;
    std::string taskName, context, module, function;
};

struct SystemReport {
    SystemSamplesHeader header;
    std::vector<AttributedSample> samples;
    std::uint64_t idle = 0, disabled = 0, forbidden = 0, stopped = 0;
    std::uint64_t irq[8] = {};
    // Samples by "task;context;module;function", by module and by "module/function".
    std::map<std::string, std::uint64_t> stacks, modules, functions;
};

// Attributes every sample. `program` may be null (its hunks then are `unknown`, or named
// by the capture's relocation bases when given). ROM addresses outside every module are
// "[Kickstart]"; anything else no module claims is "unknown".
SystemReport buildSystemReport(const SystemSampleFile& file, const SystemReportProgram* program);

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
