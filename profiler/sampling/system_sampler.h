#pragma once

// The system sampler ("sampler": {"hz": N} on profile.start): a statistical sampler of the
// whole machine, taking samples at exact emulated moments from outside the guest. It adds
// no code, no interrupt and no cycle to the guest; it watches the CPU's steps
// (CpuStepObserver) and, at each moment it chose, records the step that holds it: the
// instruction's PC and SR at its start, whether the CPU was stopped or entering an
// interrupt, the interrupt level being served (measured: an interrupt entry pushes its
// level with the supervisor stack pointer it left, and the level is served until that
// stack pointer is popped past or the CPU is back in user mode), and ExecBase's ThisTask,
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
    // The profiled program's hunks (relocation_bases, or --run's LoadSeg), recorded in
    // profile.json so that a report can refuse a program of another build.
    std::vector<std::uint32_t> relocationBases;
    std::vector<std::uint32_t> hunkSizes;
};

// The highest rate: one sample per raster line (PAL 15,625 Hz, NTSC 15,734 Hz).
std::uint32_t maxSamplerHz(bool ntsc);

class SystemSampler final : public CpuStepObserver, public FrameSidecar {
public:
    // Does not attach: the session sets it as (or fans it into) the step observer. It lets
    // go of the slot when the capture ends and when destroyed.
    SystemSampler(Machine& machine, SystemSamplerOptions options);
    ~SystemSampler() override;
    SystemSampler(const SystemSampler&) = delete;
    SystemSampler& operator=(const SystemSampler&) = delete;

    // CpuStepObserver
    void stepStarting(const CpuStepStart& start) override;
    void stepDone(const CpuStep& step) override;

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

    void take(const CpuStep& step, std::uint64_t atCycle);
    void schedule();
    // Moves the samples taken before `endCck` to `out` (with the task records they need).
    std::size_t flush(std::uint64_t endCck, std::vector<std::uint8_t>& out, Counts& counts);
    std::vector<SystemSampleModule> modules(bool atEnd) const;

    Machine& machine_;
    SystemSamplerOptions options_;
    std::unique_ptr<MachineMemoryView> memory_;
    std::uint64_t cckPerSecond_ = 0;
    std::uint64_t startCck_ = 0;
    std::uint64_t index_ = 0;  // moments taken
    std::uint64_t nextAt_ = 0; // the next moment, in CPU cycles

    // The step in progress, as it started.
    std::uint32_t startPc_ = 0, startA7_ = 0;
    std::uint16_t startSr_ = 0;
    bool startStopped_ = false;
    // Interrupts being served: (level, supervisor stack pointer after its frame).
    struct Irq {
        std::uint8_t level;
        std::uint32_t ssp;
    };
    std::vector<Irq> irqs_;
    std::uint8_t enteringIrq_ = 0; // an interrupt entry step just ended

    std::vector<SystemSample> pending_;
    std::map<std::uint32_t, std::string> names_; // the name last written for each task
    bool headerWritten_ = false;
    bool ended_ = false;
    std::uint64_t written_ = 0, skipped_ = 0;
    Counts total_;
    std::vector<SystemSampleModule> startModules_;
};

// Fans the machine's one step observer slot out to several (the precise sampler and the
// system sampler of one capture). Attaches itself; as the capture's last sidecar it
// detaches when the capture ends, and on destruction.
class CpuStepFanout final : public CpuStepObserver, public FrameSidecar {
public:
    CpuStepFanout(Machine& machine, std::vector<CpuStepObserver*> observers)
        : machine_(machine), observers_(std::move(observers)) {
        machine_.setCpuStepObserver(this);
    }
    ~CpuStepFanout() override { detach(); }
    CpuStepFanout(const CpuStepFanout&) = delete;
    CpuStepFanout& operator=(const CpuStepFanout&) = delete;
    void stepStarting(const CpuStepStart& start) override {
        for (CpuStepObserver* o : observers_) o->stepStarting(start);
    }
    void stepDone(const CpuStep& step) override {
        for (CpuStepObserver* o : observers_) o->stepDone(step);
    }
    void frameRecorded(const FrameStats&, const FrameFiles&, nlohmann::json&) override {}
    void captureEnded(const EndFiles&) override { detach(); }

private:
    void detach() {
        if (machine_.cpuStepObserver() == this) machine_.setCpuStepObserver(nullptr);
    }
    Machine& machine_;
    std::vector<CpuStepObserver*> observers_;
};

} // namespace copperline
