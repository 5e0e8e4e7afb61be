// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl profile-diff A B [--program-a PROG] [--program-b PROG] [--program PROG]
//     [--format text|json|markdown] [--out FILE] [--force] [--budget CCK] [--top N]
//     [--fail-if EXPR]... [--source-map FROM=TO]...
//
// Compares two captures (or two .cpuprofile files of ours) of one program: function by
// function (matched by name, never by address), owner by owner, and by frame time, and
// exits 1 when a --fail-if threshold trips, 2 on a usage error or input it cannot read.
// The comparison is profiler/report/profile_diff.h; docs/profiling.md, "Comparing two
// captures", describes it.

#include "app/ctl/commands.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/profile_diff.h"
#include "profiler/report/sample_report.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

namespace copperline::ctl {

namespace fs = std::filesystem;

namespace {

// The program a capture names itself (profile.json's run.program), or empty.
std::string recordedProgram(const CaptureFiles& capture) {
    if (!capture.summary.is_object()) return {};
    const nlohmann::json run = capture.summary.value("run", nlohmann::json::object());
    return run.is_object() ? run.value("program", std::string()) : std::string();
}

ProfileSide loadSide(const std::string& path, std::string program, const char* which, const DebugInfoOptions& debugBase) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const CaptureFiles capture = readCapture(path);
        if (program.empty()) program = recordedProgram(capture);
        if (program.empty())
            throw UsageError{std::string("profile-diff: ") + path + " does not record its program (it was not " +
                             "made by copperline --run): name it with --program-" + which + " PROG"};
        if (!fs::exists(program, ec))
            throw UsageError{std::string("profile-diff: ") + path + "'s program " + program +
                             " is not there: name it with --program-" + which + " PROG"};
        DebugInfoOptions debug = debugBase;
        const DebugInfo info = DebugInfo::load(program, debug);
        for (const std::string& w : info.warnings())
            std::fprintf(stderr, "copperline-ctl: warning: %s: %s\n", program.c_str(), w.c_str());
        const SampleReport report = buildSampleReport(capture, info);
        for (const std::string& w : report.warnings)
            std::fprintf(stderr, "copperline-ctl: warning: %s: %s\n", path.c_str(), w.c_str());
        return sideFromCapture(capture, report, program);
    }
    if (!fs::exists(path, ec)) throw MediaError(path + ": no such capture folder or .cpuprofile");
    if (!program.empty())
        throw UsageError{std::string("profile-diff: --program-") + which + " names the program of a capture folder; " +
                         path + " is a .cpuprofile, already named"};
    const auto bytes = readFileBytes(path);
    const nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (j.is_discarded()) throw MediaError(path + ": not JSON (a capture folder or a .cpuprofile was expected)");
    return sideFromCpuProfile(j, path);
}

double numberArg(const std::string& option, const std::string& text) {
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size() || v < 0) throw std::invalid_argument(text);
        return v;
    } catch (const std::exception&) {
        throw UsageError{"profile-diff: " + option + " wants a number >= 0, not '" + text + "'"};
    }
}

} // namespace

int profileDiff(int argc, char** argv) {
    std::vector<std::string> paths;
    std::string programA, programB, format = "text", out;
    std::vector<std::string> failIf;
    std::optional<double> budget;
    std::size_t top = 20;
    bool force = false;
    DebugInfoOptions debug;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{"profile-diff: " + arg + " needs a value"};
            return argv[++i];
        };
        if (arg == "--program-a")
            programA = value();
        else if (arg == "--program-b")
            programB = value();
        else if (arg == "--program")
            programA = programB = value();
        else if (arg == "--format")
            format = value();
        else if (arg == "--out")
            out = value();
        else if (arg == "--force")
            force = true;
        else if (arg == "--budget")
            budget = numberArg(arg, value());
        else if (arg == "--top")
            top = std::size_t(numberArg(arg, value()));
        else if (arg == "--fail-if")
            failIf.push_back(value());
        else if (arg == "--source-map")
            debug.sourceMap.addSpec(value());
        else if (!arg.empty() && arg[0] == '-')
            throw UsageError{"profile-diff: unknown option " + arg};
        else
            paths.push_back(arg);
    }
    if (paths.size() != 2)
        throw UsageError{"profile-diff: give two captures (folders or .cpuprofile files), A then B; " +
                         std::to_string(paths.size()) + " given"};
    if (format != "text" && format != "json" && format != "markdown")
        throw UsageError{"profile-diff: --format wants text, json or markdown, not '" + format + "'"};
    // Thresholds are checked before any capture is read: a typo fails fast.
    std::vector<Threshold> thresholds;
    for (const std::string& e : failIf) {
        try {
            thresholds.push_back(parseThreshold(e));
        } catch (const ProfileDiffError& err) {
            throw UsageError{std::string("profile-diff: ") + err.what()};
        }
    }
    // Input it cannot read is a bad input (2), not a tripped threshold (1).
    try {
        if (!out.empty() && !force) refuseToReplace(out, "--force");
        const ProfileSide a = loadSide(paths[0], programA, "a", debug);
        const ProfileSide b = loadSide(paths[1], programB, "b", debug);
        const ProfileDiff d = diffProfiles(a, b, budget);
        std::vector<ThresholdResult> results;
        for (const Threshold& t : thresholds) results.push_back(evaluateThreshold(d, t));
        const std::string text = format == "json"       ? diffJson(d, results).dump(2) + "\n"
                                 : format == "markdown" ? diffMarkdown(d, results, top)
                                                        : diffText(d, results, top);
        if (out.empty())
            std::fputs(text.c_str(), stdout);
        else
            writeFileBytes(out, {text.begin(), text.end()});
        int status = 0;
        for (const ThresholdResult& r : results)
            if (r.tripped) {
                std::fprintf(stderr, "copperline-ctl: profile-diff: tripped: %s: %s\n", r.threshold.text.c_str(),
                             describeThreshold(r).c_str());
                status = 1;
            }
        return status;
    } catch (const UsageError&) {
        throw;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copperline-ctl: profile-diff: %s\n", e.what());
        return 2;
    }
}

} // namespace copperline::ctl
