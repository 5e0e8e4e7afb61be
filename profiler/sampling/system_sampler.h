// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The system sampler ("sampler": {"hz": N} on profile.start): a statistical sampler of the
// whole machine, taking samples at exact emulated moments from outside the guest. It adds
// no code, no interrupt and no cycle to the guest. The machine tells it of the CPU step
// that holds each moment it chose (CpuMomentObserver; the steps between cost the machine a
// comparison) and it records that step: the instruction's PC and SR at its start, whether
// the CPU was stopped or entering an interrupt, the interrupt level being served
// (measured: the machine tells it of each interrupt entry, whose level it keeps with the
// supervisor stack pointer after its frame, and the level is served until a step starts
// with the stack pointer above it or in user mode: system_context.h), and ExecBase's ThisTask,
// IDNestCnt (Disable) and TDNestCnt (Forbid) as they stand when the step is done
// (readExecTaskFields); the task's name is read when its frame is recorded. Moment k of a capture is start + floor(k * cck-per-second / hz) colour clocks.
//
// It is a sidecar of the per-frame capture (FrameSidecar): each recorded frame's samples
// are appended to sampler.bin (docs/formats/sampler.md, system_samples.h) with the task
// names they need, each frame record gets its counts, profile.json the summary; the
// libraries, devices and resident modules are written when the capture starts and when it
// ends, for the report's module names.

#include "emu/machine.h"
#include "profiler/frame_sidecar.h"
#include "profiler/sampling/system_context.h"
#include "profiler/sampling/system_samples.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace copperline {

class MachineMemoryView;

struct SystemSamplerOptions {
    std::uint32_t hz = sampler_format::kDefaultHz;
    // Fault injection, for proving the proof: every PC is recorded two bytes past the
    // instruction ("fault": "pc+2"); sampler.bin's header and profile.json say so.
    bool faultPcPlus2 = false;
    // One moment at a fixed pseudo-random place in each period (samplerMoment), so that a
    // rate locked to the frame does not alias; false: at each period's end.
    bool jitter = true;
    // The profiled program's hunks (relocation_bases, or --run's LoadSeg), recorded in
    // profile.json so that a report can refuse a program of another build.
    std::vector<std::uint32_t> relocationBases;
    std::vector<std::uint32_t> hunkSizes;
};

// The highest rate: one sample per raster line (PAL 15,625 Hz, NTSC 15,734 Hz).
std::uint32_t maxSamplerHz(bool ntsc);

class SystemSampler final : public CpuMomentObserver, public FrameSidecar {
public:
    // Attaches at once (the machine's one moment observer); lets go when the capture ends
    // and when destroyed.
    SystemSampler(Machine& machine, SystemSamplerOptions options);
    ~SystemSampler() override;
    SystemSampler(const SystemSampler&) = delete;
    SystemSampler& operator=(const SystemSampler&) = delete;

    // CpuMomentObserver
    MasterClock momentReached(const CpuStepStart& start, bool startKnown, const CpuStep& step) override;
    void interruptEntered(unsigned level, std::uint32_t ssp) override;

    // FrameSidecar
    void frameRecorded(const FrameStats& stats, const FrameFiles& files, nlohmann::json& record) override;
    void frameSkipped(const FrameStats& stats) override;
    void repositioned() override;
    void addSummary(nlohmann::json& summary) override;
    void addStatus(nlohmann::json& status) const override;
    void captureEnded(const EndFiles& files) override;

    std::uint64_t samplesWritten() const { return written_; }
    const SystemSamplerOptions& options() const { return options_; }

private:
    struct Counts {
        std::uint64_t samples = 0, idle = 0, disabled = 0, forbidden = 0, stopped = 0;
        std::uint64_t irq[8] = {};
        void add(const SystemSample& s);
        nlohmann::json json(bool shares) const;
    };

    void take(const CpuStepStart& start, bool startKnown, const CpuStep& step, std::uint64_t atCycle);
    void schedule();
    void detach();
    // Moves the samples taken before `endCck` to `out` (with the task records they need).
    std::size_t flush(std::uint64_t endCck, std::vector<std::uint8_t>& out, Counts& counts);

    Machine& machine_;
    SystemSamplerOptions options_;
    std::unique_ptr<MachineMemoryView> memory_;
    std::uint64_t cckPerSecond_ = 0;
    std::uint64_t startCck_ = 0;
    std::uint64_t index_ = 0;  // moments taken
    std::uint64_t nextAt_ = 0; // the next moment, in CPU cycles

    bool attached_ = false;
    InterruptNesting irqs_; // the interrupts being served

    std::vector<SystemSample> pending_;
    std::map<std::uint32_t, std::string> names_; // the name last written for each task
    bool headerWritten_ = false;
    bool ended_ = false;
    std::uint64_t written_ = 0, skipped_ = 0;
    Counts total_;
    std::vector<SystemSampleModule> startModules_;
};

} // namespace copperline
