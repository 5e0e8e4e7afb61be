// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// sampler.bin, the system sampler's record stream (docs/formats/sampler.md): a 32-byte
// header, then records that each start with a type byte and are a multiple of 4 bytes
// long, little-endian:
//   sample  (type 1, 24 bytes): the moment, PC, SR, context and ExecBase's task fields;
//   task    (type 2): a task's name, written before the first sample that names the task
//           and again when the name at that address changes;
//   module  (type 3): a library, device, resident module or interrupt server and the address range the
//           report names it by, written when the capture starts and again when it ends
//           (so that a library loaded from disk in between is there).
// A record of a type this version does not define is refused (a newer version says so in
// its header's version).

#include "profiler/amigaos/code_namer.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace copperline {

namespace sampler_format {
inline constexpr char kMagic[4] = {'C', 'L', 'S', 'P'};
// Version 2 adds each jump-table entry's function end to the module record; version 1
// files still read (without the ends).
inline constexpr std::uint32_t kVersion = 2;
inline constexpr std::size_t kHeaderBytes = 32;
inline constexpr std::uint8_t kSample = 1, kTask = 2, kModule = 3;
inline constexpr std::size_t kSampleBytes = 24;
inline constexpr std::uint32_t kDefaultHz = 1000;
// Sample flags.
inline constexpr std::uint8_t kStopped = 1;       // the CPU was stopped (STOP) or halted
inline constexpr std::uint8_t kIrqEntry = 2;      // the CPU was entering an interrupt
inline constexpr std::uint8_t kNoExec = 4;        // ExecBase could not be read
inline constexpr std::uint8_t kNoTask = 8;        // ThisTask missing or implausible
inline constexpr std::uint8_t kFaultInjected = 16; // the PC was read wrong on purpose
// The step began more than 1,024 CPU cycles before the moment (the CPU held off the bus):
// SR and the stack pointer are the step's end's.
inline constexpr std::uint8_t kStartAtEnd = 32;
// Header flags.
inline constexpr std::uint32_t kNtsc = 1;
inline constexpr std::uint32_t kFaultPcPlus2 = 2;
// The moments are jittered: one in each period, at a fixed pseudo-random place in it
// (samplerMoment).
inline constexpr std::uint32_t kJitter = 4;
// A stream of module records alone, written beside a capture's precise samples
// (system-modules.bin): its rate is 0 and it holds no sample.
inline constexpr std::uint32_t kModulesOnly = 8;
// Module kinds (5, an interrupt server or handler, and 6, a hunk of a program a CLI process
// loaded, since the code namer reads them).
using ModuleKind = CodeModuleKind;
} // namespace sampler_format

// One sample.
struct SystemSample {
    std::uint64_t cck = 0;       // colour clocks since power-on
    std::uint32_t pc = 0;        // the instruction the CPU was running (24-bit)
    std::uint16_t sr = 0;        // at that instruction's start
    std::uint8_t flags = 0;      // sampler_format::kStopped, ...
    std::uint8_t irqLevel = 0;   // the interrupt being served (1-7), 0 for none
    std::int8_t idNestCnt = -1;  // ExecBase->IDNestCnt: >= 0 inside Disable()
    std::int8_t tdNestCnt = -1;  // ExecBase->TDNestCnt: >= 0 inside Forbid()
    std::uint32_t task = 0;      // ExecBase->ThisTask (0 when unreadable)

    bool stopped() const { return flags & sampler_format::kStopped; }
    bool supervisor() const { return sr & 0x2000; }
    // Exec's idle loop: STOP #$2000, so stopped with SR $2000.
    bool idle() const { return stopped() && sr == 0x2000; }
    bool disabled() const { return idNestCnt >= 0; }
    bool forbidden() const { return tdNestCnt >= 0; }
};

// A module record: a library, device, resident module or interrupt server, as the one
// naming of code outside the program reads it (profiler/amigaos/code_namer.h).
using SystemSampleModule = CodeModule;

struct SystemSamplesHeader {
    std::uint32_t version = 0;
    std::uint32_t hz = 0;
    std::uint32_t cckPerSecond = 0;
    std::uint64_t startCck = 0;
    std::uint32_t flags = 0;
};

struct SystemSampleFile {
    SystemSamplesHeader header;
    std::vector<SystemSample> samples;
    std::vector<SystemSampleModule> modules;
    // The name each sample's task had when it was taken (the task record last written for
    // its address before it).
    std::vector<std::string> names;          // distinct names
    std::vector<std::uint32_t> sampleName;   // per sample: index into names, or UINT32_MAX
    // Per sample, its weight in colour clocks, for samples made from a capture's precise
    // samples (each covers its step's colour clocks exactly); empty: each sample is one.
    std::vector<std::uint32_t> weights;
    std::uint64_t weight(std::size_t i) const { return weights.empty() ? 1 : weights[i]; }
};

// Moment k (k >= 1) of a capture that started at `startCck`, in colour clocks. Without
// jitter, the end of period k: start + floor(k * cckPerSecond / hz). With jitter, a place
// in period k, [start + floor((k - 1) * cps / hz), start + floor(k * cps / hz)), chosen by a
// fixed hash of k, so that a sampler at a rate locked to the frame (1,000 Hz is 20 a PAL
// frame) does not see the same few places of every frame.
std::uint64_t samplerMoment(std::uint64_t startCck, std::uint64_t k, std::uint32_t cckPerSecond, std::uint32_t hz,
                            bool jitter);

// Encoding, for the sampler.
void appendSampleRecord(std::vector<std::uint8_t>& out, const SystemSample& s);
void appendTaskRecord(std::vector<std::uint8_t>& out, std::uint32_t task, const std::string& name);
void appendModuleRecord(std::vector<std::uint8_t>& out, const SystemSampleModule& m);
std::vector<std::uint8_t> encodeSamplerHeader(const SystemSamplesHeader& h);

// Reads a whole sampler.bin. Throws std::runtime_error naming the offset and what is
// wrong for a file that is not one, truncated or malformed.
// With `cut`: a record cut at the end (an emulator killed while it appended) is left out,
// every record before it read, and `cut` says so in a few words ("cut at byte N: ...");
// a header cut short, or a record damaged before the end, is refused all the same.
SystemSampleFile parseSystemSamples(std::span<const std::uint8_t> bytes, std::string* cut = nullptr);
SystemSampleFile readSystemSamples(const std::string& path, std::string* cut = nullptr);

} // namespace copperline
