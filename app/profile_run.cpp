// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/profile_run.h"

#include "app/control/capture_options.h"
#include "app/control/command_bus.h"
#include "app/headless.h"
#include "app/run_program.h"
#include "emu/hex.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/debuginfo/unwind_table.h"

#include <QCommandLineParser>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <unistd.h>

namespace copperline {

namespace {
using nlohmann::json;
} // namespace

void addProfileOptions(QCommandLineParser& parser) {
    parser.addOptions({
        {"profile",
         "Headless: capture frames into the new folder DIR (docs/formats/profile-jsonl.md) and "
         "exit when "
         "the capture completes.",
         "DIR"},
        {"profile-frames",
         "With --profile: frames to capture (1-100000; default 500, and with --run to the program's "
         "return, at most 100000; a --run capture bounded so ends the run with it).",
         "N"},
        {"profile-ring",
         "With --profile: the flight recorder; keep only the latest N frames (1-10000) in memory "
         "and write them when --profile-stop-on trips, at the end of the run, or after "
         "--profile-frames frames (default 100000).",
         "N"},
        {"profile-stop-on",
         "With --profile-ring: busy_cck_over=C (a frame's time less the uaelib idle markers over "
         "C colour clocks) or frame_cck_over=C (a frame's time less the CPU's STOP over C).",
         "WHEN"},
        {"profile-after",
         "With --profile: start the capture after SECONDS emulated seconds (default: at power-on).",
         "SECONDS"},
        {"profile-options",
         "With --profile: profile.start's options as a JSON object, e.g. "
         "'{\"slots\": true, \"memory\": true, \"screenshots\": \"last\"}'.",
         "JSON"},
        {"traces",
         "The folder captures go to when no path is given (default "
         "$XDG_DATA_HOME/copperline/traces).",
         "DIR"},
    });
}

bool wantsProfile(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--profile") || !std::strncmp(argv[i], "--profile=", 10))
            return true;
    return false;
}

namespace {

// --profile-options, --profile and --profile-frames as profile.start's parameters; an
// error message when they are refused.
std::string profileParams(const QCommandLineParser& parser, json& params) {
    params = json::object();
    if (parser.isSet("profile-options")) {
        try {
            params = json::parse(parser.value("profile-options").toStdString());
        } catch (const json::exception& e) {
            return std::string("--profile-options: not JSON: ") + e.what();
        }
        if (!params.is_object())
            return "--profile-options: wants a JSON object of profile.start's options";
    }
    const std::string dir = parser.value("profile").toStdString();
    if (params.contains("path") && params["path"] != dir)
        return "--profile-options: path differs from --profile " + dir;
    params["path"] = dir;
    if (parser.isSet("profile-frames")) {
        bool ok = false;
        const qlonglong n = parser.value("profile-frames").toLongLong(&ok);
        if (!ok || n < 1 || n > CaptureOptions::kMaxFrames)
            return "--profile-frames: wants 1-100000, not '" + parser.value("profile-frames").toStdString() + "'";
        if (params.contains("frames") && params["frames"] != n)
            return "--profile-options: frames differs from --profile-frames";
        params["frames"] = n;
    }
    if (parser.isSet("profile-ring")) {
        bool ok = false;
        const qlonglong n = parser.value("profile-ring").toLongLong(&ok);
        if (!ok || n < 1 || n > CaptureOptions::kMaxRing)
            return "--profile-ring: wants 1-10000, not '" + parser.value("profile-ring").toStdString() + "'";
        if (params.contains("ring") && params["ring"] != n) return "--profile-options: ring differs from --profile-ring";
        params["ring"] = n;
    }
    if (parser.isSet("profile-stop-on")) {
        const std::string when = parser.value("profile-stop-on").toStdString();
        const auto eq = when.find('=');
        const std::string kind = when.substr(0, eq);
        json stopOn;
        if (when == "break") {
            return "--profile-stop-on break: a headless run has no breakpoints (use profile.start with "
                   "\"stop_on\": {\"break\": true} over --control)";
        } else if ((kind == "busy_cck_over" || kind == "frame_cck_over") && eq != std::string::npos &&
                   eq + 1 < when.size() && when.find_first_not_of("0123456789", eq + 1) == std::string::npos &&
                   when.size() - eq - 1 <= 12) {
            stopOn = json{{kind, std::stoull(when.substr(eq + 1))}};
        } else {
            return "--profile-stop-on: wants busy_cck_over=C, frame_cck_over=C or break, not '" + when + "'";
        }
        if (!params.contains("ring")) return "--profile-stop-on requires --profile-ring";
        if (stopOn.begin().value() == 0) return "--profile-stop-on: a limit of 0 trips on every frame";
        if (params.contains("stop_on") && params["stop_on"] != stopOn)
            return "--profile-options: stop_on differs from --profile-stop-on";
        params["stop_on"] = stopOn;
    }
    if (params.contains("stop_on") && params["stop_on"].is_object() && params["stop_on"].contains("break"))
        return "--profile-options: stop_on break: a headless run has no breakpoints (use profile.start over --control)";
    return {};
}

} // namespace

int runProfileFromCommandLine(const QCommandLineParser& parser, Machine& machine,
                              const std::vector<LoadedSymbols>& symbols) {
    const auto usage = [](const std::string& message) {
        std::fprintf(stderr, "copperline: %s\n", message.c_str());
        return exit_status::Usage;
    };
    for (const char* flag : {"run", "control", "control-gui", "screenshot-after"})
        if (parser.isSet(flag))
            return usage(std::string("--profile cannot be combined with --") + flag);
    json params;
    if (const std::string error = profileParams(parser, params); !error.empty()) return usage(error);
    // Code named by --symbols is code to sample, unless the options say otherwise.
    if (!symbols.empty() && !params.contains("samples")) params["samples"] = true;
    double after = 0;
    if (parser.isSet("profile-after")) {
        bool ok = false;
        after = parser.value("profile-after").toDouble(&ok);
        if (!ok || after < 0 || after > 86400)
            return usage("--profile-after: wants emulated seconds, not '" +
                         parser.value("profile-after").toStdString() + "'");
    }
    ProfileOptions options;
    try {
        options =
            parseCaptureOptions(params, tracesFolder(parser.value("traces").toStdString()), "");
    } catch (const CommandError& e) {
        return usage("--profile: " + std::string(e.what()));
    }
    std::vector<std::string> notes;
    fillCaptureFromSymbols(options, symbols, &notes);
    for (const std::string& n : notes) std::fprintf(stderr, "copperline: --profile: %s\n", n.c_str());

    while (machine.emulatedSeconds() < after) {
        if (machine.halted()) {
            std::fprintf(stderr, "copperline: the CPU halted before the capture started\n");
            return exit_status::EmulatorError;
        }
        machine.runFrame();
    }
    ProfileSession session;
    try {
        session = startCapture(machine, options, nullptr, [](const std::string& warning) {
            std::fprintf(stderr, "\ncopperline: profile: %s\n", warning.c_str());
        });
    } catch (const CaptureError& e) {
        return usage(std::string("--profile: ") + e.what());
    }
    FrameCapture* capture = session.capture.get();
    const bool tty = ::isatty(2) == 1;
    const auto start = std::chrono::steady_clock::now();
    auto lastReport = start;
    const double emuStart = machine.emulatedSeconds();
    const auto report = [&](bool final) {
        const auto& s = capture->status();
        const double host =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double speed = host > 0 ? (machine.emulatedSeconds() - emuStart) / host : 0;
        std::fprintf(stderr, "\rcopperline: profile: %u/%u frames, %.1f MB, %.1fx real time%s",
                     s.framesWritten, s.framesLimit, double(s.bytesWritten) / 1e6, speed,
                     final ? "\n" : "   ");
        std::fflush(stderr);
    };
    while (capture->status().active()) {
        if (machine.halted()) {
            capture->finish();
            std::fprintf(
                stderr,
                "\ncopperline: the CPU halted during the capture; %s holds what was recorded\n",
                options.capture.path.c_str());
            return exit_status::EmulatorError;
        }
        machine.runFrame();
        if (tty) {
            const auto now = std::chrono::steady_clock::now();
            if (now - lastReport >= std::chrono::seconds(1)) {
                lastReport = now;
                report(false);
            }
        }
    }
    const json result = capture->finish();
    if (tty) report(true);
    if (capture->status().state == CaptureStatus::State::Failed) {
        std::fprintf(stderr, "copperline: profile: %s\n", capture->status().error.c_str());
        return exit_status::EmulatorError;
    }
    std::fprintf(stderr, "copperline: profile: %u frames in %s\n", capture->status().framesWritten,
                 options.capture.path.c_str());
    return exit_status::Ok;
}

int RunProfiler::configure(const QCommandLineParser& parser, Machine& machine, RunOptions& run) {
    const auto usage = [](const std::string& message) {
        std::fprintf(stderr, "copperline: %s\n", message.c_str());
        return exit_status::Usage;
    };
    if (parser.isSet("profile-after"))
        return usage("--profile-after cannot be combined with --run: the capture starts at the "
                     "program's first instruction");
    json params;
    if (const std::string error = profileParams(parser, params); !error.empty()) return usage(error);
    // The program's own sampling: what --run knows is filled in at its first instruction.
    // "samples": false leaves the system sampler alone ("sampler": {...}).
    const bool samplesOff = params.contains("samples") && params["samples"] == false &&
                            params.contains("sampler");
    if (samplesOff) params.erase("samples");
    for (const char* key : {"samples", "unwind", "relocation_bases", "code_ranges", "trigger"})
        if (params.contains(key))
            return usage(std::string("--profile-options: ") + key +
                         " is set by --run --profile itself (samples with the unwind table, "
                         "relocation bases and code ranges of the loaded program; \"samples\": "
                         "false with a \"sampler\" leaves the system sampler alone)");
    if (!samplesOff) params["samples"] = true;
    // Without a bound the capture runs to the program's return, as far as a capture goes.
    toReturn_ = !params.contains("frames") && !params.contains("ring");
    if (toReturn_) params["frames"] = CaptureOptions::kMaxFrames;
    if (params.value("coverage", false) && parser.isSet("coverage"))
        return usage("--profile-options: a coverage capture cannot run while --coverage counts the program");
    try {
        options_ = parseCaptureOptions(params, tracesFolder(parser.value("traces").toStdString()), "");
    } catch (const CommandError& e) {
        return usage("--profile: " + std::string(e.what()));
    }
    program_ = run.program;
    try {
        const HunkFile hunks = readHunkFile(readFileBytes(program_, 16u << 20), program_);
        for (const HunkSection& h : hunks.sections) {
            hunkSizes_.push_back(h.allocSize);
            codeHunks_.push_back(h.kind == HunkKind::Code);
        }
    } catch (const MediaError& e) {
        return usage(std::string("--run: ") + e.what());
    }
    // Call stacks come from the ELF sibling's call-frame information; without it each
    // sample is its PC alone, which still gives every function its self time.
    try {
        const DebugInfo info = DebugInfo::load(program_);
        std::vector<std::string> warnings;
        unwind_ = buildUnwindTable(info, &warnings);
        for (const std::string& w : warnings) std::fprintf(stderr, "copperline: --profile: %s\n", w.c_str());
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline: --profile: no call stacks (each sample is its PC alone): %s\n", e.what());
    }
    run.onStart = [this, &machine](const std::vector<std::uint32_t>& bases) { return start(machine, bases); };
    run.onEnd = [this](bool returned) { end(returned); };
    // Bounded by --profile-frames, the run ends with the capture (unless --coverage or a
    // screenshot still wants it); a capture that failed ends it in any case.
    run.endWithCapture = !toReturn_;
    run.captureState = [this] {
        if (!session_.capture || session_.capture->status().active()) return RunOptions::CaptureState::Running;
        return session_.capture->status().state == CaptureStatus::State::Failed ? RunOptions::CaptureState::Failed
                                                                                : RunOptions::CaptureState::Done;
    };
    run_ = &run;
    return 0;
}

std::string RunProfiler::start(Machine& machine, const std::vector<std::uint32_t>& bases) {
    std::vector<CodeRange> codeRanges;
    for (std::size_t i = 0; i < bases.size() && i < hunkSizes_.size(); ++i)
        if (codeHunks_[i]) codeRanges.push_back({bases[i], hunkSizes_[i]});
    if (options_.sampler) {
        options_.sampler->relocationBases = bases;
        options_.sampler->hunkSizes = hunkSizes_;
    }
    if (options_.samples) {
        SamplerOptions& s = *options_.samples;
        s.relocationBases = bases;
        s.hunkSizes = hunkSizes_;
        s.codeRanges = codeRanges;
        // Hunk 0's PCs are written relative to its base with or without an unwind table.
        if (!bases.empty() && !codeHunks_.empty() && codeHunks_[0]) s.text = CodeRange{bases[0], hunkSizes_[0]};
        if (unwind_ && !bases.empty()) {
            try {
                s.unwinder = std::make_shared<Unwinder>(*unwind_, bases[0], s.codeRanges);
            } catch (const MediaError& e) {
                return std::string("--profile: the unwind table does not fit the loaded program: ") + e.what();
            }
        }
    }
    if (options_.coverage) {
        options_.coverage->relocationBases = bases;
        options_.coverage->codeRanges = codeRanges;
    }
    json& given = options_.capture.given;
    json hex = json::array();
    for (const std::uint32_t b : bases) hex.push_back(copperline::hex(b));
    given["relocation_bases"] = hex;
    given["program"] = std::filesystem::absolute(program_).string();
    try {
        session_ = startCapture(
            machine, options_, nullptr,
            [](const std::string& warning) { std::fprintf(stderr, "copperline: profile: %s\n", warning.c_str()); },
            [this](json& summary) {
                summary["run"] = json{{"program", options_.capture.given.value("program", program_)},
                                      {"until", toReturn_ ? "return" : "frames"},
                                      {"returned", returned_}};
            });
    } catch (const CaptureError& e) {
        return std::string("--profile: ") + e.what();
    }
    // A capture that reaches its frame budget while the program runs on says so.
    session_.capture->setOnFinished([this](const CaptureStatus& st) {
        if (st.state == CaptureStatus::State::Failed) {
            std::fprintf(stderr, "copperline: profile: %s\n", st.error.c_str());
            return;
        }
        if (st.ringLimit) {
            // The flight recorder: what stopped it, and what it wrote.
            std::fprintf(stderr, "copperline: profile: the flight recorder stopped (%s); %u frames written\n",
                         st.ringStopped.dump().c_str(), st.framesWritten);
            return;
        }
        if (st.state != CaptureStatus::State::Done || returned_) return;
        std::fprintf(stderr,
                     "copperline: profile: the capture stopped after %u frames, before %s returned (%s); "
                     "profile.json says \"returned\": false%s\n",
                     st.framesWritten, std::filesystem::path(program_).filename().c_str(),
                     toReturn_ ? "100000 frames is the most a capture holds"
                               : "--profile-frames; leave it out to capture to the return",
                     run_ && run_->endWithCapture && run_->screenshots.empty() ? "; the run ends with it" : "");
    });
    return {};
}

void RunProfiler::end(bool returned) {
    if (!session_.capture) return;
    const bool wasActive = session_.capture->status().active();
    returned_ = returned;
    if (session_.capture->ringHolding())
        session_.capture->stopRing(returned ? "returned" : "stopped");
    else
        session_.capture->finish();
    const CaptureStatus& st = session_.capture->status();
    if (st.state == CaptureStatus::State::Failed) {
        if (wasActive) std::fprintf(stderr, "copperline: profile: %s\n", st.error.c_str()); // else said already
    } else {
        if (wasActive && !returned)
            std::fprintf(stderr, "copperline: profile: the capture ended with the run, before %s returned; "
                                 "profile.json says \"returned\": false\n",
                         std::filesystem::path(program_).filename().c_str());
        std::fprintf(stderr, "copperline: profile: %u frames of %s in %s (%llu precise samples%s%s)\n",
                     st.framesWritten, program_.c_str(), options_.capture.path.c_str(),
                     static_cast<unsigned long long>(session_.sampler ? session_.sampler->samplesWritten() : 0),
                     session_.sampler && session_.sampler->samplesDropped() ? ", some dropped: see profile.json" : "",
                     session_.systemSampler
                         ? (", " + std::to_string(session_.systemSampler->samplesWritten()) + " sampler samples").c_str()
                         : "");
    }
}

} // namespace copperline
