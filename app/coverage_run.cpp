// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/coverage_run.h"

#include "app/headless.h"
#include "app/run_program.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"
#include "profiler/report/lcov.h"

#include <QCommandLineParser>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace copperline {

namespace {

// dos/dosextens.h: Process.pr_CLI (a BPTR to the CommandLineInterface) at 172, and its
// cli_Module (the seglist BPTR of the command it runs) at 60.
constexpr std::uint32_t kPrCli = 172, kCliModule = 60;

} // namespace

void addCoverageOptions(QCommandLineParser& parser) {
    parser.addOptions({
        {"coverage",
         "With --run: write the program's line and function coverage to FILE in lcov's .info "
         "format "
         "(genhtml, editors' coverage views), rewritten every 250 frames while it runs.",
         "FILE"},
        {"coverage-source-map",
         "With --coverage: rewrite the source paths the debug information recorded, FROM to TO "
         "(repeatable).",
         "FROM=TO"},
    });
}

int checkCoverageOptions(const QCommandLineParser& parser) {
    if (parser.isSet("coverage-source-map") && !parser.isSet("coverage")) {
        std::fprintf(stderr, "copperline: --coverage-source-map needs --coverage FILE\n");
        return exit_status::Usage;
    }
    if (parser.isSet("coverage") && !parser.isSet("run")) {
        std::fprintf(
            stderr,
            "copperline: --coverage FILE needs --run PROG: coverage is counted for a program "
            "that --run starts (a capture of a running machine takes profile.start's "
            "\"coverage\": true)\n");
        return exit_status::Usage;
    }
    return 0;
}

RunCoverage::~RunCoverage() {
    detach();
}

void RunCoverage::detach() {
    if (!attached_) return;
    machine_->detachCpuObserver(counter_.get());
    machine_->detachFrameObserver(this);
    attached_ = false;
}

int RunCoverage::configure(const QCommandLineParser& parser, Machine& machine, RunOptions& run) {
    const auto usage = [](const std::string& message) {
        std::fprintf(stderr, "copperline: %s\n", message.c_str());
        return exit_status::Usage;
    };
    path_ = parser.value("coverage").toStdString();
    program_ = run.program;
    verbose_ = run.verbose;
    if (path_.empty()) return usage("--coverage: no file given");
    DebugInfoOptions debug;
    try {
        for (const QString& spec : parser.values("coverage-source-map"))
            debug.sourceMap.addSpec(spec.toStdString());
    } catch (const MediaError& e) {
        return usage(std::string("--coverage-source-map: ") + e.what());
    }
    try {
        if (!parser.isSet("force")) refuseToReplace(path_, "--force");
    } catch (const MediaError& e) {
        return usage(std::string("--coverage: ") + e.what());
    }
    try {
        const HunkFile hunks = readHunkFile(readFileBytes(program_, 16u << 20), program_);
        for (const HunkSection& h : hunks.sections) {
            hunkSizes_.push_back(h.allocSize);
            codeHunks_.push_back(h.kind == HunkKind::Code);
        }
        info_ = DebugInfo::load(program_, debug);
    } catch (const MediaError& e) {
        return usage(std::string("--run: ") + e.what());
    }
    for (const std::string& w : info_->warnings())
        std::fprintf(stderr, "copperline: --coverage: %s\n", w.c_str());
    if (info_->lineTable().empty())
        std::fprintf(
            stderr,
            "copperline: --coverage: %s has no line information: %s will hold the instruction "
            "totals alone\n",
            program_.c_str(), path_.c_str());
    machine_ = &machine;
    // Every line and function at zero, now: the path is writable, and a run that never
    // loads the program leaves this file.
    if (const std::string error = write(); !error.empty()) return usage("--coverage: " + error);

    run.endWithCapture = false; // coverage counts to the program's return
    auto before = std::move(run.onStart);
    run.onStart = [this, before](const std::vector<std::uint32_t>& bases) -> std::string {
        if (before)
            if (std::string error = before(bases); !error.empty()) return error;
        return start(bases);
    };
    auto returned = std::move(run.onReturn);
    run.onReturn = [this, returned] {
        stop(std::filesystem::path(program_).filename().string() + " returned");
        if (returned) returned();
    };
    return 0;
}

std::string RunCoverage::start(const std::vector<std::uint32_t>& bases) {
    CoverageOptions options;
    options.relocationBases = bases;
    for (std::size_t i = 0; i < bases.size() && i < hunkSizes_.size(); ++i)
        if (codeHunks_[i]) options.codeRanges.push_back({bases[i], hunkSizes_[i]});
    try {
        counter_ = std::make_unique<CoverageCounter>(std::move(options));
    } catch (const std::invalid_argument& e) {
        return std::string("--coverage: the loaded program's hunks cannot be counted: ") + e.what();
    }
    // The CLI process that runs the program (ThisTask at its first instruction): the
    // seglist its cli_Module holds now is dropped when the command is over.
    const MachineMemoryView memory(*machine_);
    const AmigaOsSnapshot os = readExecAndThisTask(memory);
    if (os.thisTask && os.thisTask->process)
        if (const auto cli = memory.longword(os.thisTask->address + kPrCli); cli && *cli) {
            const std::uint32_t module = ((*cli << 2) & 0xFFFFFF) + kCliModule;
            if (const auto seglist = memory.longword(module); seglist && *seglist) {
                cliModuleAddress_ = module;
                cliModule_ = *seglist;
            }
        }
    if (verbose_) {
        if (cliModuleAddress_)
            std::fprintf(stderr,
                         "copperline: coverage: the program's CLI holds seglist $%08X at $%06X\n",
                         cliModule_, cliModuleAddress_);
        else
            std::fprintf(stderr, "copperline: coverage: the program runs in no CLI; counting ends "
                                 "when it returns\n");
    }
    instructionsAtStart_ = machine_->cpu().instructions();
    machine_->attachCpuObserver(counter_.get(), CoverageCounter::kHooks);
    machine_->attachFrameObserver(this);
    attached_ = true;
    return {};
}

void RunCoverage::stop(const std::string& why) {
    if (!counter_ || !counter_->counting()) return;
    counter_->setCounting(false);
    instructionsAtStop_ = machine_->cpu().instructions();
    stopReason_ = why;
}

void RunCoverage::frameCompleted(const FrameStats&) {
    if (!counter_ || !counter_->counting()) return;
    // The CLI dropped the program's seglist: whatever runs next is not the program, even at
    // the addresses of its freed hunks.
    if (cliModuleAddress_) {
        const MachineMemoryView memory(*machine_);
        const auto seglist = memory.longword(cliModuleAddress_);
        if (!seglist || *seglist != cliModule_) {
            stop("the program's CLI dropped its seglist");
            return;
        }
    }
    if (++frames_ % kRewriteFrames) return;
    if (const std::string error = write(); !error.empty() && !writeWarned_) {
        writeWarned_ = true;
        std::fprintf(stderr, "copperline: --coverage: %s\n", error.c_str());
    }
}

std::string RunCoverage::write() {
    CoverageData data;
    if (counter_) data = counter_->snapshot();
    const std::string name = std::filesystem::path(program_).filename().string();
    try {
        const LcovReport lcov = buildLcov(data, *info_, name);
        writeFileBytes(path_, {lcov.text.begin(), lcov.text.end()});
    } catch (const MediaError& e) {
        return e.what();
    }
    return {};
}

int RunCoverage::finish(const RunReport& report) {
    if (!machine_) return 0;
    if (counter_)
        stop(report.status == run_status::Timeout ? "the run timed out" : "the run ended");
    detach();
    CoverageData data;
    if (counter_) data = counter_->snapshot();
    const std::string name = std::filesystem::path(program_).filename().string();
    LcovReport lcov;
    try {
        lcov = buildLcov(data, *info_, name);
        writeFileBytes(path_, {lcov.text.begin(), lcov.text.end()});
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline: --coverage: %s\n", e.what());
        return run_status::EmulatorError;
    }
    const LcovSummary& s = lcov.summary;
    if (!counter_) {
        std::fprintf(
            stderr,
            "copperline: coverage: %s never ran: %s lists its %llu line(s) and %llu function(s), "
            "none hit\n",
            name.c_str(), path_.c_str(), static_cast<unsigned long long>(s.lines),
            static_cast<unsigned long long>(s.functions));
        return 0;
    }
    std::fprintf(
        stderr,
        "copperline: coverage: lines %llu/%llu hit, functions %llu/%llu hit; %llu instruction(s) "
        "counted, %llu outside the program: wrote %s\n",
        static_cast<unsigned long long>(s.linesHit), static_cast<unsigned long long>(s.lines),
        static_cast<unsigned long long>(s.functionsHit),
        static_cast<unsigned long long>(s.functions), static_cast<unsigned long long>(s.total),
        static_cast<unsigned long long>(s.outside), path_.c_str());
    if (verbose_)
        std::fprintf(
            stderr,
            "copperline: coverage: counting stopped when %s; the CPU retired %llu instruction(s) "
            "from the program's first instruction to then\n",
            stopReason_.c_str(),
            static_cast<unsigned long long>(instructionsAtStop_ - instructionsAtStart_));
    return 0;
}

} // namespace copperline
