// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `copperline --run PROG --coverage FILE [--coverage-source-map FROM=TO]...` (source
// document 000, "--run PROG --coverage FILE"): line and function coverage of PROG in lcov's
// .info format. The counter (profiler/coverage/coverage_counter.h) counts from the
// program's first instruction, with one counter per instruction word of the code hunks
// where LoadSeg put them, and stops when the program returns: at the runner's report that
// RunCommand came back, or when the program's CLI no longer holds the seglist it ran
// (cli_Module), whichever comes first, so that nothing the loader puts over the freed hunks
// afterwards is counted. The debug information is PROG's own (its LINE blocks and symbols,
// and PROG.elf beside it when there is one).
//
// FILE is written when the run is configured (every line and function at zero: the path
// is known to be writable before the boot), every 250 frames while the program runs, so an
// interrupted run leaves a current file, and at the end of the run, however it ends; a
// program that never loads leaves the all-zero file.

#include "emu/machine.h"
#include "profiler/coverage/coverage_counter.h"
#include "profiler/debuginfo/debug_info.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCommandLineParser;

namespace copperline {

struct RunOptions;
struct RunReport;

void addCoverageOptions(QCommandLineParser& parser);
// What main() checks before a machine exists; 0, or the exit status with the message said.
int checkCoverageOptions(const QCommandLineParser& parser);

class RunCoverage final : private FrameObserver {
public:
    static constexpr unsigned kRewriteFrames = 250; // five seconds of PAL

    RunCoverage() = default;
    RunCoverage(const RunCoverage&) = delete;
    RunCoverage& operator=(const RunCoverage&) = delete;
    ~RunCoverage() override;

    // Checks the options, loads the debug information, writes the all-zero FILE and hooks
    // the counter into the run (after any onStart already there, which runs first).
    // Returns a nonzero exit status, with the message printed, when they are refused.
    int configure(const QCommandLineParser& parser, Machine& machine, RunOptions& run);
    // After runProgram: stops counting if the program never returned, writes FILE and says
    // what it holds. Returns 0, or an exit status when FILE could not be written. Does
    // nothing when configure() was not called.
    int finish(const RunReport& report);

    bool configured() const { return machine_ != nullptr; }

private:
    std::string start(const std::vector<std::uint32_t>& bases);
    void stop(const std::string& why);
    void frameCompleted(const FrameStats& stats) override;
    // Builds the .info from the counts so far (all zero before the program started) and
    // writes FILE; the error message, or empty.
    std::string write();
    void detach();

    Machine* machine_ = nullptr;
    std::string path_, program_;
    bool verbose_ = false;
    std::optional<DebugInfo> info_;
    std::vector<std::uint32_t> hunkSizes_;
    std::vector<bool> codeHunks_;
    std::unique_ptr<CoverageCounter> counter_;
    bool attached_ = false;
    std::uint64_t frames_ = 0;
    std::uint64_t instructionsAtStart_ = 0, instructionsAtStop_ = 0;
    std::string stopReason_;
    // The program's CLI: where its cli_Module is, and the seglist it held at the start.
    std::uint32_t cliModuleAddress_ = 0, cliModule_ = 0;
    bool writeWarned_ = false;
};

} // namespace copperline
