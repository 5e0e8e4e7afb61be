// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/sampling/sampler.h"

#include "emu/hex.h"
#include "emu/chipset/frame_stats.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace copperline {

using nlohmann::json;
namespace sf = samples_format;

namespace {

// The unwinder's reads: the running machine's memory without side effects, where memory
// is (never a custom register or a CIA), a word at a time.
class MachineLongs final : public LongReader {
public:
    MachineLongs(const Machine& machine, const MemoryView& view) : machine_(machine), view_(view) {}
    bool readLong(std::uint32_t address, std::uint32_t& value) const override {
        address &= 0xFFFFFF;
        if ((address & 1) || !view_.backed(address, 4)) return false;
        value = std::uint32_t(machine_.spyWord(address)) << 16 | machine_.spyWord(address + 2);
        return true;
    }

private:
    const Machine& machine_;
    const MemoryView& view_;
};

std::uint32_t cckOf(std::uint64_t cycles) { return std::uint32_t(cycles / kCyclesPerCck); }

// The files are little-endian whatever the host is.
template <class T>
std::span<const std::uint8_t> littleEndianBytes(std::vector<T>& words) {
    if constexpr (std::endian::native == std::endian::big) {
        for (auto& w : words) w = __builtin_bswap32(w);
    }
    return {reinterpret_cast<const std::uint8_t*>(words.data()), words.size() * sizeof(T)};
}

} // namespace

void Sampler::Batch::clear() {
    stream.clear();
    meta.clear();
    cck = 0;
    fromCck = 0;
    open = false;
    lastCostWord = 0;
    lastGrowable = false;
    tasks.clear();
}

Sampler::Sampler(Machine& machine, SamplerOptions options)
    : machine_(machine), options_(std::move(options)) {
    if (options_.bufferLimit == 0) options_.bufferLimit = 1;
    memory_ = std::make_unique<MachineMemoryView>(machine_);
    longs_ = std::make_unique<MachineLongs>(machine_, *memory_);
    stack_.reserve(Unwinder::kMaxDepth + 1);
    startModules_ = readCodeModules(*memory_, false);
    if (options_.unwinder && options_.unwinder->hasTable()) {
        textBase_ = options_.unwinder->textBase();
        textSize_ = options_.unwinder->textSize();
    } else if (options_.text) {
        textBase_ = options_.text->base;
        textSize_ = options_.text->size;
    }
    machine_.setCpuStepObserver(this);
    attached_ = true;
}

Sampler::~Sampler() { detach(); }

void Sampler::captureEnded(const EndFiles& files) {
    detach();
    if (!modulesWritten_) return; // no frame recorded
    std::vector<std::uint8_t> out;
    for (const SystemSampleModule& m : readCodeModules(*memory_, true)) appendModuleRecord(out, m);
    files.append(sf::kModulesFile, {std::span<const std::uint8_t>(out)});
}

void Sampler::detach() {
    if (attached_ && machine_.cpuStepObserver() == this) machine_.setCpuStepObserver(nullptr);
    attached_ = false;
}

void Sampler::stepStarting(const CpuStepStart& r) {
    if (options_.registers) startRegs_ = machine_.cpu().registers(); // only the registers option writes them
    startStopped_ = r.stopped;
    if (enteredLevel_) {
        // The interrupt entry before this step: its frame is on the supervisor stack.
        irqs_.entered(enteredLevel_, r.a7);
        enteredLevel_ = 0;
    }
    irqs_.stepStarts(r.sr, r.a7);
    startSr_ = r.sr;
    startPc_ = r.pc;
    if (startStopped_) return; // a STOP stretch keeps the STOP instruction's stack
    stack_.clear();
    const std::uint32_t pc = r.pc;
    const bool supervisor = r.sr & 0x2000;
    // In an interrupt, the frames above its exception frame are the interrupted code's, not
    // callers of the handler.
    const std::uint32_t limit = supervisor ? irqs_.servedFrame() : 0;
    if (options_.unwinder)
        options_.unwinder->unwind(pc, r.a5, r.a7, *longs_, stack_, limit);
    else
        stack_.push_back(pc);
    if (inProgram(pc)) {
        programStack_ = stack_;
        programSp_ = r.a7;
        programSupervisor_ = supervisor;
        // A return (RTS, RTE, RTR) leaves the program for its caller, which it did not call.
        programCalling_ = r.ird != 0x4E75 && r.ird != 0x4E73 && r.ird != 0x4E77;
        programTaskKnown_ = false;
        entryPc_ = 0;
        entryPending_ = false;
        return;
    }
    if (!programCalling_ || stack_.size() != 1) return;
    // Outside the program: it called this code when the same task runs it in the same mode
    // on the program's stack, at or below where the program left it. (An interrupt runs in
    // supervisor mode, another task has another ThisTask.) The call is the program's last
    // instruction; its address + 2 stands for the return address a caller entry holds.
    if (!programTaskKnown_) {
        programTask_ = thisTask();
        programTaskKnown_ = true;
    }
    if (supervisor != programSupervisor_ || r.a7 > programSp_ || programSp_ - r.a7 > 0x10000 ||
        thisTask() != programTask_)
        return;
    // The function the program entered: where it went first, or past the JMP abs.l of a
    // library's jump table there.
    if (!entryPc_) {
        entryPc_ = pc;
        entryPending_ = r.ird == 0x4EF9;
    } else if (entryPending_) {
        entryPc_ = pc;
        entryPending_ = false;
    }
    if (entryPc_ != pc && !entryPending_) stack_.push_back(entryPc_);
    for (std::size_t i = 0; i < programStack_.size() && stack_.size() <= Unwinder::kMaxDepth; ++i)
        stack_.push_back(i == 0 ? programStack_[0] + 2 : programStack_[i]);
}

bool Sampler::inProgram(std::uint32_t pc) const {
    if (options_.unwinder && options_.unwinder->inText(pc)) return true;
    for (const CodeRange& c : options_.codeRanges)
        if (pc - c.base < c.size) return true;
    return false;
}

std::uint32_t Sampler::thisTask() const {
    // ExecBase->ThisTask (exec/execbase.h): ExecBase at address 4, ThisTask at offset 276.
    std::uint32_t exec = 0, task = 0;
    if (!longs_->readLong(4, exec) || !longs_->readLong(exec + 276, task)) return 0;
    return task;
}

std::uint32_t Sampler::encodePc(std::uint32_t pc) const {
    // PCs in the program's text are relative to its base; all others (Kickstart at
    // $F80000-$FFFFFF, other hunks, libraries) are absolute.
    if (pc - textBase_ < textSize_) return pc - textBase_;
    return pc;
}

void Sampler::push(const std::vector<std::uint32_t>& stack, std::uint32_t cck, std::uint32_t waitCck,
                   std::uint32_t level, std::uint32_t vector, bool growable) {
    Batch& b = pending_;
    // A STOP stretch goes on: the last row grows while it stays under the split limit.
    if (growable && b.lastGrowable && b.meta.back().totalCck + cck <= sf::kMaxCck) {
        SampleMeta& m = b.meta.back();
        m.totalCck += cck;
        m.instructionCck += cck - waitCck;
        m.waitCck += waitCck;
        b.stream[b.lastCostWord] = 0xFFFFFFFFu - m.totalCck;
        b.cck += cck;
        return;
    }
    if (pending() >= options_.bufferLimit) {
        ++dropped_;
        b.lastGrowable = false;
        if (!warned_) {
            warned_ = true;
            if (warn_)
                warn_("the sample buffer is full (" + std::to_string(options_.bufferLimit) +
                      " pending records): later samples are dropped and counted in samples_dropped; "
                      "the instruction profile is incomplete");
        }
        return;
    }
    for (const std::uint32_t pc : stack) b.stream.push_back(pc == sf::kIrqMarker ? pc : encodePc(pc));
    if (stack.empty()) b.stream.push_back(0);
    b.lastCostWord = b.stream.size();
    b.stream.push_back(0xFFFFFFFFu - cck);
    if (options_.registers) {
        const m68k::Registers& r = startRegs_;
        for (unsigned i = 0; i < 8; ++i) b.stream.push_back(r.d[i]);
        for (unsigned i = 0; i < 8; ++i) b.stream.push_back(r.a[i]);
        b.stream.push_back(r.sr);
    }
    b.meta.push_back(SampleMeta{cck, cck - waitCck, waitCck, level, vector, rowPc_, rowTask_, rowContext_});
    if (b.tasks.empty() || b.tasks.back() != rowTask_)
        if (std::find(b.tasks.begin(), b.tasks.end(), rowTask_) == b.tasks.end()) b.tasks.push_back(rowTask_);
    b.cck += cck;
    b.lastGrowable = growable;
}

void Sampler::addPart(const CpuStep& step, std::uint64_t start, std::uint64_t end, std::uint64_t waitCycles) {
    if (!pending_.open) {
        pending_.open = true;
        pending_.fromCck = cckOf(start);
    }
    std::uint32_t cck = cckOf(end) - cckOf(start);
    std::uint32_t wait = std::min<std::uint32_t>(std::uint32_t(waitCycles / kCyclesPerCck), cck);
    const std::vector<std::uint32_t>* stack = &stack_;
    std::uint32_t level = sf::kNotIrq, vector = sf::kNotIrq;
    bool growable = false;
    switch (step.kind) {
    case CpuStep::Kind::Instruction: break;
    case CpuStep::Kind::Interrupt:
        stack = &irqStack_;
        level = step.irqLevel;
        vector = step.irqVector;
        break;
    case CpuStep::Kind::Stopped:
        // stepStarting leaves the stack alone while the CPU is stopped: it is still the
        // STOP instruction's.
        stack = &stack_;
        level = sf::kStoppedLevel;
        growable = true;
        break;
    }
    // Over 65,535 colour clocks: split, so that no cost word can be taken for a PC.
    do {
        const std::uint32_t part = std::min(cck, sf::kMaxCck);
        const std::uint32_t partWait = std::min(wait, part);
        push(*stack, part, partWait, level, vector, growable);
        cck -= part;
        wait -= partWait;
    } while (cck > 0);
}

void Sampler::readContext(const CpuStep& step) {
    std::uint32_t level = irqs_.served();
    switch (step.kind) {
    case CpuStep::Kind::Instruction: rowPc_ = step.pc; break;
    case CpuStep::Kind::Interrupt: {
        // Entering the handler: the interrupt's time, placed at the handler the vector
        // points to (as the system sampler places it).
        level = step.irqLevel ? step.irqLevel & 7 : 1;
        enteredLevel_ = level;
        const auto handler = memory_->longword(std::uint32_t(step.irqVector) * 4);
        rowPc_ = handler ? (*handler & 0xFFFFFF) : step.pc;
        break;
    }
    case CpuStep::Kind::Stopped: rowPc_ = startPc_; break;
    }
    std::uint32_t c = sf::kContextKnown | startSr_ | level << sf::kContextLevelShift;
    // ExecBase (at 4), ThisTask (276), IDNestCnt and TDNestCnt (294, 295): read as the
    // system sampler reads them (readExecTaskFields), in full only when something changed.
    const auto spyLong = [this](std::uint32_t a) {
        return std::uint32_t(machine_.spyWord(a)) << 16 | machine_.spyWord(a + 2);
    };
    const auto full = [&] {
        exec_.raw = spyLong(4);
        const ExecTaskFields f = readExecTaskFields(*memory_);
        exec_.checked = true;
        exec_.valid = f.exec.has_value();
        exec_.base = f.exec.value_or(0);
        exec_.task = f.thisTask;
        exec_.taskPlausible = f.taskPlausible;
    };
    if (!exec_.checked || spyLong(4) != exec_.raw) full();
    std::uint32_t task = 0;
    if (exec_.valid) {
        task = spyLong(exec_.base + 276);
        if (task != exec_.task) full();
    }
    rowTask_ = 0;
    if (!exec_.valid) {
        c |= sf::kContextNoExec | sf::kContextNoTask;
    } else {
        const std::uint16_t nest = machine_.spyWord(exec_.base + 294);
        if (std::int8_t(nest >> 8) >= 0) c |= sf::kContextDisabled;
        if (std::int8_t(nest & 0xFF) >= 0) c |= sf::kContextForbidden;
        if (exec_.taskPlausible) rowTask_ = exec_.task;
        else c |= sf::kContextNoTask;
    }
    rowContext_ = c;
}

void Sampler::stepDone(const CpuStep& step) {
    if (step.kind == CpuStep::Kind::Stopped && stack_.empty()) stack_.push_back(step.pc);
    readContext(step);
    if (step.boundary == 0) {
        addPart(step, step.start, step.end, step.waitCycles);
        return;
    }
    if (step.boundary > step.start)
        addPart(step, step.start, step.boundary, step.waitCyclesBeforeBoundary);
    closeFrame();
    if (step.end > step.boundary) {
        pending_.open = true;
        pending_.fromCck = cckOf(step.boundary);
        addPart(step, step.boundary, step.end, step.waitCycles - step.waitCyclesBeforeBoundary);
    } else {
        pending_.open = true;
        pending_.fromCck = cckOf(step.boundary);
    }
}

void Sampler::closeFrame() {
    exec_.checked = false; // ExecBase is checked in full again in each frame
    // A frame the capture never heard of (it was not attached yet) is dropped unseen.
    std::swap(closed_, pending_);
    pending_.clear();
    closedReady_ = true;
}

void Sampler::frameRecorded(const FrameStats& stats, const FrameFiles& files, json& record) {
    if (!closedReady_) {
        // Nothing was watched in this frame (the sampler attached at its very end).
        closed_.clear();
        closed_.fromCck = stats.firstCck + stats.lengthCck;
    }
    const std::string bin = files.name("samples", "bin");
    const std::string meta = files.name("samples", "meta");
    std::vector<std::uint32_t> header = {0, sf::kMetaVersion, std::uint32_t(closed_.meta.size())};
    std::memcpy(&header[0], sf::kMetaMagic, 4);
    if constexpr (std::endian::native == std::endian::big) header[0] = __builtin_bswap32(header[0]);
    // The rows are SampleMeta as it lies in memory: eight u32 each, no padding.
    std::span<const std::uint8_t> rowBytes(reinterpret_cast<const std::uint8_t*>(closed_.meta.data()),
                                           closed_.meta.size() * sizeof(SampleMeta));
    std::vector<std::uint32_t> rows;
    if constexpr (std::endian::native == std::endian::big) {
        rows.reserve(closed_.meta.size() * sf::kMetaRowWords);
        for (const SampleMeta& m : closed_.meta)
            for (const std::uint32_t v :
                 {m.totalCck, m.instructionCck, m.waitCck, m.irqLevel, m.irqVector, m.pc, m.task, m.context})
                rows.push_back(__builtin_bswap32(v));
        rowBytes = {reinterpret_cast<const std::uint8_t*>(rows.data()), rows.size() * 4};
    }
    const std::size_t count = closed_.meta.size();
    const std::uint64_t cck = closed_.cck;
    const std::uint64_t from = closed_.fromCck;
    // The magic is bytes, already in file order; the rest of the header is little-endian.
    std::vector<std::uint32_t> headerRest(header.begin() + 1, header.end());
    std::span<const std::uint8_t> magic(reinterpret_cast<const std::uint8_t*>(sf::kMetaMagic), 4);
    files.write(bin, {littleEndianBytes(closed_.stream)});
    files.write(meta, {magic, littleEndianBytes(headerRest), rowBytes});
    samplesTotal_ += count;
    record["samples"] = bin;
    record["samples_meta"] = meta;
    record["samples_count"] = count;
    record["samples_cck"] = cck;
    if (from != stats.firstCck) record["samples_from_cck"] = from;
    record["samples_dropped"] = dropped_;
    // The tasks the frame's samples ran, with their names as they stand now.
    json tasks = json::array();
    for (const std::uint32_t t : closed_.tasks)
        if (t) tasks.push_back(json{{"task", t}, {"name", readTaskName(*memory_, t)}});
    record["samples_tasks"] = std::move(tasks);
    if (!modulesWritten_) {
        SystemSamplesHeader h;
        h.cckPerSecond = std::uint32_t(machine_.config().ntsc ? kNtscCckHz : kPalCckHz);
        h.startCck = from;
        h.flags = sampler_format::kModulesOnly | (machine_.config().ntsc ? sampler_format::kNtsc : 0);
        std::vector<std::uint8_t> out = encodeSamplerHeader(h);
        for (const SystemSampleModule& m : startModules_) appendModuleRecord(out, m);
        files.append(sf::kModulesFile, {std::span<const std::uint8_t>(out)});
        modulesWritten_ = true;
    }
    closed_.clear();
    closedReady_ = false;
}

void Sampler::frameSkipped(const FrameStats&) {
    closed_.clear();
    closedReady_ = false;
}

void Sampler::repositioned() {
    // What was sampled since the last frame boundary belongs to a frame that will never be
    // committed; the new timeline's frame starts being sampled here.
    pending_.clear();
    irqs_.clear();
    enteredLevel_ = 0;
    programCalling_ = false;
    entryPc_ = 0;
    entryPending_ = false;
}

void Sampler::addStatus(json& status) const {
    status["samples_total"] = samplesTotal_;
    status["samples_buffer_limit"] = options_.bufferLimit;
    status["samples_dropped"] = dropped_;
}

void Sampler::addSummary(json& s) {
    addStatus(s);
    json sampling = json::object();
    sampling["cck_per_cpu_cycle"] = 1.0 / kCyclesPerCck;
    sampling["cpu_cycles_per_cck"] = kCyclesPerCck;
    sampling["registers"] = options_.registers;
    json bases = json::array();
    for (const std::uint32_t b : options_.relocationBases) bases.push_back(hex(b));
    sampling["relocation_bases"] = std::move(bases);
    if (!options_.hunkSizes.empty() && options_.hunkSizes.size() == options_.relocationBases.size()) {
        json hunks = json::array();
        for (std::size_t i = 0; i < options_.hunkSizes.size(); ++i)
            hunks.push_back(json{{"base", hex(options_.relocationBases[i])}, {"size", options_.hunkSizes[i]}});
        sampling["hunks"] = std::move(hunks);
    }
    json ranges = json::array();
    for (const CodeRange& r : options_.codeRanges)
        ranges.push_back(json{{"base", hex(r.base)}, {"size", hex(r.size)}});
    sampling["code_ranges"] = std::move(ranges);
    if (options_.unwinder)
        sampling["unwind"] = json{{"base", hex(options_.unwinder->textBase())},
                                  {"size", hex(options_.unwinder->textSize())}};
    else
        sampling["unwind"] = nullptr;
    if (textSize_)
        sampling["text"] = json{{"base", hex(textBase_)}, {"size", hex(textSize_)}};
    else
        sampling["text"] = nullptr;
    sampling["max_depth"] = Unwinder::kMaxDepth;
    sampling["layouts"] = json{
        {"samples",
         json{{"file", "samples-SSSSSS-frame-NNNNNN.bin"},
              {"word", "u32le"},
              {"record", options_.registers ? "pc... (leaf to root), 0xffffffff - cck, d0-d7, a0-a7, sr"
                                            : "pc... (leaf to root), 0xffffffff - cck"},
              {"register_words", options_.registers ? sf::kRegisterWords : 0},
              {"text_relative", textSize_ != 0},
              {"irq_marker", hex(sf::kIrqMarker)},
              {"max_cck", sf::kMaxCck}}},
        {"meta",
         json{{"file", "samples-SSSSSS-frame-NNNNNN.meta"},
              {"magic", "CLSM"},
              {"version", sf::kMetaVersion},
              {"header", "magic[4], u32le version, u32le rows"},
              {"row", json::array({"total_cck", "instruction_cck", "wait_cck", "irq_level", "irq_vector", "pc",
                                   "task", "context"})},
              {"not_irq", hex(sf::kNotIrq)},
              {"stopped_level", hex(sf::kStoppedLevel)}}}};
    s["sampling"] = std::move(sampling);
    s["files"]["samples"] = "samples-SSSSSS-frame-NNNNNN.bin";
    s["files"]["samples_meta"] = "samples-SSSSSS-frame-NNNNNN.meta";
    s["files"]["samples_modules"] = sf::kModulesFile;
}

} // namespace copperline
