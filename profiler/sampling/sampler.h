// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The precise CPU sampler (source document 000, "Precise CPU samples and unwinding"): one
// sample per retired instruction with its call stack and its cost in colour clocks, chip-
// bus waits included; one [IRQ] sample per interrupt entry; one sample per stretch of the
// CPU stopped by STOP (or halted). It watches the Machine's CPU steps (CpuStepObserver),
// so every CPU cycle of the interval it watched belongs to exactly one sample, and writes
// each recorded frame's samples as the capture's sidecar (FrameSidecar):
// samples-SSSSSS-frame-NNNNNN.bin and .meta, laid out in docs/formats/samples.md.
//
// Costs: a sample covering CPU cycles [a, b) costs floor(b / 2) - floor(a / 2) colour
// clocks, so the costs of consecutive samples add up to the colour clocks between them
// exactly. A step that straddles a frame boundary is split there: the part before belongs
// to the frame that ended, the rest to the next, both with the instruction's PC and stack.
//
// The sampler only reads: the timeline with and without it is the same.

#include "emu/machine.h"
#include "profiler/frame_sidecar.h"
#include "profiler/sampling/system_context.h"
#include "profiler/sampling/system_samples.h"
#include "profiler/sampling/unwinder.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace copperline {

class MachineMemoryView;

struct SamplerOptions {
    static constexpr std::size_t kDefaultBufferLimit = 262'144;

    bool registers = false; // append D0-D7, A0-A7 and SR to every sample
    // The unwind table and its text (absent: each stack is the PC alone, and every PC is
    // written absolute).
    std::shared_ptr<const Unwinder> unwinder;
    std::vector<std::uint32_t> relocationBases; // by hunk, for the converter
    // The size of each hunk (parallel to relocationBases; empty when unknown), recorded so
    // a converter can tell the profiled program from another.
    std::vector<std::uint32_t> hunkSizes;
    std::vector<CodeRange> codeRanges;
    // The program's text (hunk 0) when there is no unwind table: its PCs are written
    // relative to its base all the same, as the source document's rule has them. With an
    // unwind table, the table's text is the text.
    std::optional<CodeRange> text;
    std::size_t bufferLimit = kDefaultBufferLimit; // pending records at most
};

// One row of the .meta file (version 2; a version 1 row is the first five fields, and reads
// with no context).
struct SampleMeta {
    std::uint32_t totalCck = 0;
    std::uint32_t instructionCck = 0;
    std::uint32_t waitCck = 0;
    std::uint32_t irqLevel = 0xFFFFFFFF;
    std::uint32_t irqVector = 0xFFFFFFFF;
    // The system around the step (docs/formats/samples.md, "Context"): where the system
    // report places it (the instruction's address, the handler an interrupt entry goes to,
    // the PC a stopped CPU resumes at; absolute), ExecBase->ThisTask when the step is done,
    // and the context word (samples_format::kContext*).
    std::uint32_t pc = 0;
    std::uint32_t task = 0;
    std::uint32_t context = 0;
};
static_assert(sizeof(SampleMeta) == 32);

namespace samples_format {
inline constexpr std::uint32_t kIrqMarker = 0x7FFFFFFF; // the PC word of an [IRQ] sample
inline constexpr std::uint32_t kMaxCck = 65535;         // a longer sample is split
inline constexpr std::uint32_t kNotIrq = 0xFFFFFFFF;    // irq level/vector of an instruction
// The irq level of a sample of the CPU stopped by STOP (or halted): not an instruction, not
// an interrupt. Its stack is the STOP instruction's.
inline constexpr std::uint32_t kStoppedLevel = 0xFFFFFFFE;
inline constexpr unsigned kRegisterWords = 17; // D0-D7, A0-A7, SR
inline constexpr char kMetaMagic[4] = {'C', 'L', 'S', 'M'};
inline constexpr std::uint32_t kMetaVersion = 2;
inline constexpr std::uint32_t kMetaRowWords1 = 5, kMetaRowWords = 8; // by version
// The context word: SR at the step's start in bits 0-15, the interrupt level being served
// (1-7, 0 for none; an interrupt entry's own level) in bits 16-18, and flags.
inline constexpr std::uint32_t kContextSrMask = 0xFFFF;
inline constexpr unsigned kContextLevelShift = 16;
inline constexpr std::uint32_t kContextDisabled = 1u << 20;  // ExecBase->IDNestCnt >= 0
inline constexpr std::uint32_t kContextForbidden = 1u << 21; // ExecBase->TDNestCnt >= 0
inline constexpr std::uint32_t kContextNoExec = 1u << 22;    // ExecBase could not be read
inline constexpr std::uint32_t kContextNoTask = 1u << 23;    // ThisTask missing or implausible
inline constexpr std::uint32_t kContextKnown = 1u << 24;     // set on every row that has one
// Beside the frames' samples: the libraries, devices and resident modules at the capture's
// start and end, for the system report (a sampler.bin stream of module records alone).
inline constexpr const char* kModulesFile = "system-modules.bin";
} // namespace samples_format

class Sampler final : public CpuStepObserver, public FrameSidecar {
public:
    // Attaches to the machine's CPU steps at once.
    Sampler(Machine& machine, SamplerOptions options);
    ~Sampler() override;
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;

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
    // Stops observing.
    void detach();

    std::uint64_t samplesWritten() const { return samplesTotal_; }
    std::uint64_t samplesDropped() const { return dropped_; }
    std::size_t bufferLimit() const { return options_.bufferLimit; }
    std::size_t pending() const { return pending_.meta.size() + closed_.meta.size(); }
    // Told once per capture, when the first sample is dropped.
    void setWarningSink(std::function<void(const std::string&)> sink) { warn_ = std::move(sink); }

private:
    struct Batch {
        std::vector<std::uint32_t> stream;
        std::vector<SampleMeta> meta;
        std::uint64_t cck = 0;      // sum of the rows' total
        std::uint64_t fromCck = 0;  // the colour clock its first sample starts at
        bool open = false;          // holds a first sample (fromCck is set)
        // The last row may grow (a STOP stretch goes on): where its cost word is.
        std::size_t lastCostWord = 0;
        bool lastGrowable = false;
        std::vector<std::uint32_t> tasks; // the distinct ThisTask values of its rows
        void clear();
    };

    // Appends one part of a step: [start, end) in CPU cycles with its wait cycles.
    void addPart(const CpuStep& step, std::uint64_t start, std::uint64_t end, std::uint64_t waitCycles);
    void push(const std::vector<std::uint32_t>& stack, std::uint32_t cck, std::uint32_t waitCck,
              std::uint32_t level, std::uint32_t vector, bool growable);
    std::uint32_t encodePc(std::uint32_t pc) const;
    // The step's place, task and context word (SampleMeta).
    void readContext(const CpuStep& step);
    void closeFrame();

    Machine& machine_;
    SamplerOptions options_;
    std::unique_ptr<MachineMemoryView> memory_;
    std::unique_ptr<LongReader> longs_;
    bool attached_ = false;

    m68k::Registers startRegs_{};
    bool startStopped_ = false;
    // The stack of the step in progress (absolute); while the CPU is stopped, the STOP
    // instruction's.
    std::vector<std::uint32_t> stack_;
    std::vector<std::uint32_t> irqStack_{samples_format::kIrqMarker};
    // Code outside the program (ROM, libraries) that the program called: the program's
    // last stack, while the same task runs on in the same mode below the same stack.
    bool inProgram(std::uint32_t pc) const;
    std::uint32_t thisTask() const;
    std::vector<std::uint32_t> programStack_;
    std::uint32_t programSp_ = 0, programTask_ = 0;
    bool programSupervisor_ = false, programCalling_ = false, programTaskKnown_ = false;
    // The function the program entered outside it (the first instruction there, or the
    // target of the jump table's JMP abs.l it landed on): a frame between the leaf and the
    // program's call, so that time deep in the ROM still shows which call it belongs to.
    std::uint32_t entryPc_ = 0;
    bool entryPending_ = false;
    // The text PCs are written relative to (textSize_ 0: none).
    std::uint32_t textBase_ = 0, textSize_ = 0;

    // The system around the step (system_context.h).
    InterruptNesting irqs_;
    unsigned enteredLevel_ = 0; // an interrupt entry just done: its frame is on the stack
    std::uint16_t startSr_ = 0;
    std::uint32_t startPc_ = 0;
    std::uint32_t rowPc_ = 0, rowTask_ = 0, rowContext_ = 0;
    // ExecBase as last checked in full (readExecTaskFields): checked again when the
    // longword at 4 changes, when ThisTask changes, and at each frame's start; between,
    // a step reads ThisTask and the nesting counts alone.
    struct ExecCache {
        bool checked = false, valid = false, taskPlausible = false;
        std::uint32_t raw = 0; // the longword at 4 when checked
        std::uint32_t base = 0, task = 0;
    } exec_;
    std::vector<SystemSampleModule> startModules_;
    bool modulesWritten_ = false;

    Batch pending_; // the frame in progress
    Batch closed_;  // the frame that just ended, until the capture records or skips it
    bool closedReady_ = false;

    std::uint64_t samplesTotal_ = 0;
    std::uint64_t dropped_ = 0;
    bool warned_ = false;
    std::function<void(const std::string&)> warn_;
};

} // namespace copperline
