// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `copperline --profile DIR`: boot as usual, start a per-frame capture (at power-on or
// after --profile-after SECONDS), run unpaced and exit when it completes. The options are
// profile.start's (app/control/capture_options.h), from --profile-options JSON, with
// --profile and --profile-frames for the two everybody sets.

#include "app/control/capture_options.h"
#include "app/control/loaded_symbols.h"

#include <optional>
#include <string>

class QCommandLineParser;

namespace copperline {

class Machine;
struct RunOptions;

void addProfileOptions(QCommandLineParser& parser);
bool wantsProfile(int argc, char** argv);
// Runs the capture; returns the exit status (0 done, 1 the capture failed, 2 bad options).
// `symbols` (--symbols) name code that is no executable: the capture's samples and coverage
// take their code ranges, relocation bases and unwind table from them.
int runProfileFromCommandLine(const QCommandLineParser& parser, Machine& machine,
                              const std::vector<LoadedSymbols>& symbols = {});

// `copperline --run PROG --profile DIR`: profiles the program from its first instruction to
// its return (or --profile-frames N frames; a capture that ends first says so on stderr and
// in profile.json's "run") with precise samples, the unwind table built from its ELF
// sibling and the relocation bases and code ranges of the segments LoadSeg reported.
class RunProfiler {
public:
    // Checks the options and hooks the profiler into the run; returns a nonzero exit status
    // (with the message printed) when they are refused.
    int configure(const QCommandLineParser& parser, Machine& machine, RunOptions& run);

private:
    std::string start(Machine& machine, const std::vector<std::uint32_t>& bases);
    void end(bool returned);

    ProfileOptions options_;
    // No --profile-frames: the capture runs to the program's return (at most 100,000 frames).
    bool toReturn_ = false;
    bool returned_ = false;
    const RunOptions* run_ = nullptr;
    std::string program_;
    std::vector<std::uint32_t> hunkSizes_;
    std::vector<bool> codeHunks_;
    std::optional<UnwindTable> unwind_;
    ProfileSession session_;
};

} // namespace copperline
