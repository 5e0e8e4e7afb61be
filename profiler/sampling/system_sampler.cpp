// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/sampling/system_sampler.h"

#include "emu/chipset/frame_stats.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"
#include "profiler/sampling/system_context.h"

#include <algorithm>

namespace copperline {

using nlohmann::json;
namespace sf = sampler_format;

std::uint32_t maxSamplerHz(bool ntsc) {
    // A raster line is 227 colour clocks (PAL) or 227.5 on average (NTSC).
    return ntsc ? 15734 : 15625;
}

void SystemSampler::Counts::add(const SystemSample& s) {
    ++samples;
    if (s.idle()) ++idle;
    if (s.stopped()) ++stopped;
    if (s.disabled()) ++disabled;
    if (s.forbidden()) ++forbidden;
    if (s.irqLevel) ++irq[s.irqLevel & 7];
}

json SystemSampler::Counts::json(bool shares) const {
    static const char* const kLevels[8] = {"L0", "L1", "L2", "L3", "L4", "L5", "L6", "L7"};
    nlohmann::json irqs = nlohmann::json::object();
    for (unsigned l = 1; l < 8; ++l)
        if (irq[l])
            irqs[kLevels[l]] =
                shares ? nlohmann::json(double(irq[l]) / double(samples)) : nlohmann::json(irq[l]);
    if (!shares)
        return {{"samples", samples}, {"idle", idle},         {"disabled", disabled},
                {"forbidden", forbidden}, {"stopped", stopped}, {"interrupts", irqs}};
    const auto share = [this](std::uint64_t n) { return samples ? double(n) / double(samples) : 0.0; };
    return {{"idle_share", share(idle)},
            {"disabled_share", share(disabled)},
            {"forbidden_share", share(forbidden)},
            {"interrupt_shares", irqs}};
}

SystemSampler::SystemSampler(Machine& machine, SystemSamplerOptions options)
    : machine_(machine), options_(options) {
    memory_ = std::make_unique<MachineMemoryView>(machine_);
    const bool ntsc = machine_.config().ntsc;
    cckPerSecond_ = std::uint64_t(ntsc ? kNtscCckHz : kPalCckHz);
    options_.hz = std::clamp<std::uint32_t>(options_.hz, 1, maxSamplerHz(ntsc));
    startCck_ = machine_.now() / kCyclesPerCck;
    startModules_ = readCodeModules(*memory_, false);
    schedule();
    machine_.setCpuMomentObserver(this, nextAt_);
    attached_ = true;
}

SystemSampler::~SystemSampler() { detach(); }

void SystemSampler::detach() {
    if (!attached_) return;
    attached_ = false;
    if (machine_.cpuMomentObserver() == this) machine_.setCpuMomentObserver(nullptr, 0);
}

void SystemSampler::schedule() {
    // Moment k + 1 (the first lies in the first period after the start).
    nextAt_ = samplerMoment(startCck_, index_ + 1, std::uint32_t(cckPerSecond_), options_.hz, options_.jitter) *
              kCyclesPerCck;
}

void SystemSampler::interruptEntered(unsigned level, std::uint32_t ssp) {
    // Its level is served from here until its frame is popped.
    irqs_.entered(level, ssp);
}

MasterClock SystemSampler::momentReached(const CpuStepStart& start, bool startKnown, const CpuStep& step) {
    if (ended_) return kNever;
    while (step.end > nextAt_) {
        take(start, startKnown, step, nextAt_);
        ++index_;
        schedule();
    }
    return nextAt_;
}

void SystemSampler::take(const CpuStepStart& start, bool startKnown, const CpuStep& step,
                         std::uint64_t atCycle) {
    SystemSample s;
    s.cck = atCycle / kCyclesPerCck;
    s.sr = start.sr;
    if (!startKnown) s.flags |= sf::kStartAtEnd;
    if (step.kind == CpuStep::Kind::Interrupt) {
        // Entering the handler (the entry this step made is on irqs_ already): the time is
        // the interrupt's, and its place the handler the vector points to.
        s.flags |= sf::kIrqEntry;
        s.irqLevel = step.irqLevel ? step.irqLevel : 1;
        const auto handler = memory_->longword(std::uint32_t(step.irqVector) * 4);
        s.pc = handler ? (*handler & 0xFFFFFF) : step.pc;
    } else {
        // The interrupts whose frames were popped (RTE, or a stack reset by a task switch),
        // or all of them once the CPU is back in user mode.
        irqs_.stepStarts(start.sr, start.a7);
        if (step.kind == CpuStep::Kind::Stopped || start.stopped) s.flags |= sf::kStopped;
        s.pc = step.kind == CpuStep::Kind::Instruction ? step.pc : start.pc;
        s.irqLevel = std::uint8_t(irqs_.served());
    }
    if (options_.faultPcPlus2) {
        s.pc = (s.pc + 2) & 0xFFFFFF;
        s.flags |= sf::kFaultInjected;
    }
    // ExecBase's task fields, as they stand when the step is done.
    const ExecTaskFields exec = readExecTaskFields(*memory_);
    if (!exec.exec) {
        s.flags |= sf::kNoExec | sf::kNoTask;
    } else {
        s.idNestCnt = exec.idNestCnt;
        s.tdNestCnt = exec.tdNestCnt;
        if (exec.taskPlausible) s.task = exec.thisTask;
        else s.flags |= sf::kNoTask;
    }
    pending_.push_back(s);
}

std::size_t SystemSampler::flush(std::uint64_t endCck, std::vector<std::uint8_t>& out, Counts& counts) {
    std::size_t n = 0;
    while (n < pending_.size() && pending_[n].cck < endCck) ++n;
    std::uint32_t lastTask = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const SystemSample& s = pending_[i];
        if (s.task && s.task != lastTask) {
            // The task's name as it stands now (a task's memory may be freed and reused by
            // another task: the name is read again in each frame the task is sampled in).
            std::string name = readTaskName(*memory_, s.task);
            const auto it = names_.find(s.task);
            if (it == names_.end() || it->second != name) {
                appendTaskRecord(out, s.task, name);
                names_[s.task] = std::move(name);
            }
        }
        lastTask = s.task;
        appendSampleRecord(out, s);
        counts.add(s);
    }
    pending_.erase(pending_.begin(), pending_.begin() + std::ptrdiff_t(n));
    return n;
}

void SystemSampler::frameRecorded(const FrameStats& stats, const FrameFiles& files, json& record) {
    std::vector<std::uint8_t> out;
    if (!headerWritten_) {
        SystemSamplesHeader h;
        h.hz = options_.hz;
        h.cckPerSecond = std::uint32_t(cckPerSecond_);
        h.startCck = startCck_;
        h.flags = (machine_.config().ntsc ? sf::kNtsc : 0) | (options_.faultPcPlus2 ? sf::kFaultPcPlus2 : 0) |
                  (options_.jitter ? sf::kJitter : 0);
        out = encodeSamplerHeader(h);
        for (const SystemSampleModule& m : startModules_) appendModuleRecord(out, m);
        headerWritten_ = true;
    }
    Counts frame;
    written_ += flush(stats.firstCck + stats.lengthCck, out, frame);
    total_.samples += frame.samples;
    total_.idle += frame.idle;
    total_.stopped += frame.stopped;
    total_.disabled += frame.disabled;
    total_.forbidden += frame.forbidden;
    for (unsigned l = 0; l < 8; ++l) total_.irq[l] += frame.irq[l];
    files.append("sampler.bin", {std::span<const std::uint8_t>(out)});
    record["sampler"] = frame.json(false);
}

void SystemSampler::frameSkipped(const FrameStats& stats) {
    const std::uint64_t end = stats.firstCck + stats.lengthCck;
    std::size_t n = 0;
    while (n < pending_.size() && pending_[n].cck < end) ++n;
    skipped_ += n;
    pending_.erase(pending_.begin(), pending_.begin() + std::ptrdiff_t(n));
}

void SystemSampler::repositioned() {
    // The timeline moved: the samples of the frame in progress never happened, and the
    // moments start again from here.
    pending_.clear();
    irqs_.clear();
    startCck_ = machine_.now() / kCyclesPerCck;
    index_ = 0;
    schedule();
    if (attached_) machine_.setCpuMomentObserver(this, nextAt_);
}

void SystemSampler::addStatus(json& status) const {
    status["sampler"] = {{"hz", options_.hz}, {"samples", written_}};
}

void SystemSampler::addSummary(json& summary) {
    json s = {{"file", "sampler.bin"},
              {"format", "docs/formats/sampler.md"},
              {"hz", options_.hz},
              {"period_cck", double(cckPerSecond_) / options_.hz},
              {"jitter", options_.jitter},
              {"samples", written_},
              {"samples_of_skipped_frames", skipped_}};
    s.update(total_.json(false));
    s.update(total_.json(true));
    if (options_.faultPcPlus2) s["fault"] = "pc+2";
    if (!options_.relocationBases.empty())
        s["program"] = {{"relocation_bases", options_.relocationBases}, {"hunk_sizes", options_.hunkSizes}};
    summary["sampler"] = std::move(s);
}

void SystemSampler::captureEnded(const EndFiles& files) {
    if (ended_) return;
    ended_ = true;
    detach();
    pending_.clear();
    if (!headerWritten_) return; // no frame recorded: no file
    std::vector<std::uint8_t> out;
    for (const SystemSampleModule& m : readCodeModules(*memory_, true)) appendModuleRecord(out, m);
    files.append("sampler.bin", {std::span<const std::uint8_t>(out)});
}

} // namespace copperline
