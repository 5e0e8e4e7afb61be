// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl profile-report DIR --program PROG [--elf FILE] [--out FILE] [--per-frame]
//     [--format chrome|bartman|lcov] [--source-map FROM=TO]... [--force]
// copperline-ctl profile-report DIR --elf FILE [--base ADDR | --bases B0,B1,...] ...: code
//     that is no executable (a boot block, code a loader placed), named from its ELF alone.
//
// Converts a capture with precise samples into a Chrome .cpuprofile (VS Code, DevTools,
// speedscope): one merged file, or with --per-frame one file per frame record
// (OUT-SSSSSS-frame-NNNNNN.cpuprofile); with --format bartman, the .amigaprofile JSON
// vscode-amiga-debug's frame profiler opens; with --format lcov, guest code coverage as lcov's
// .info (from coverage.bin, or from the precise samples). docs/profiling.md shows the whole loop.
//
// With --format folded|trace|table, the system sampler's sampler.bin attributed by task,
// context, module and function: folded stacks (speedscope, flamegraph.pl, inferno), a Chrome
// trace (Perfetto, speedscope) or a ranked table on the terminal; --program is optional
// (it names the program's own functions, and is refused when its hunk sizes are not the
// capture's). --from samples makes the same reports from the precise samples, weighted by
// the colour clocks each covers (exact); without --from, sampler.bin when the capture has
// one. --contain RANGES checks the samples against profspin's kernels; --agree checks that
// the statistical shares of each task, context and module agree with the precise samples
// of the same run within their binomial error.

#include "app/ctl/commands.h"
#include "emu/media/file_bytes.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/bartman_export.h"
#include "profiler/report/lcov.h"
#include "profiler/report/sample_report.h"
#include "profiler/report/system_report.h"
#include "emu/media/hunk.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

namespace copperline::ctl {

namespace fs = std::filesystem;

namespace {

std::string listOf(const std::vector<std::uint32_t>& v) {
    std::string s;
    for (const std::uint32_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
}

// The program a capture recorded: the system sampler's (sampler.program) or the precise
// sampler's (sampling.relocation_bases and hunks); empty when none.
void recordedProgram(const nlohmann::json& summary, bool precise, std::vector<std::uint32_t>& bases,
                     std::vector<std::uint32_t>& sizes) {
    if (!summary.is_object()) throw std::runtime_error("missing: the capture's summary is needed");
    if (!precise) {
        const nlohmann::json& p = summary.at("sampler").value("program", nlohmann::json::object());
        if (p.contains("relocation_bases")) bases = p["relocation_bases"].get<std::vector<std::uint32_t>>();
        if (p.contains("hunk_sizes")) sizes = p["hunk_sizes"].get<std::vector<std::uint32_t>>();
        return;
    }
    const nlohmann::json sampling = summary.value("sampling", nlohmann::json::object());
    const auto number = [](const nlohmann::json& v) {
        return v.is_string() ? std::uint32_t(std::stoul(v.get<std::string>(), nullptr, 0)) : v.get<std::uint32_t>();
    };
    for (const nlohmann::json& b : sampling.value("relocation_bases", nlohmann::json::array())) bases.push_back(number(b));
    for (const nlohmann::json& h : sampling.value("hunks", nlohmann::json::array())) sizes.push_back(number(h.at("size")));
}

// The system sampler's reports (or the same from the precise samples), the proof's check
// and the agreement of the two.
int samplerReport(const std::string& dir, const std::string& program, const DebugInfoOptions& debug,
                  std::string out, const std::string& format, const std::string& contain, bool force,
                  std::string from, bool agree) {
    const auto start = std::chrono::steady_clock::now();
    const fs::path bin = fs::path(dir) / "sampler.bin";
    const bool haveSampler = fs::exists(bin);
    if (from.empty()) from = haveSampler || !contain.empty() || agree ? "sampler" : "samples";
    if (from != "sampler" && from != "samples")
        throw UsageError{"profile-report: --from wants sampler (sampler.bin) or samples (the precise samples), not '" +
                         from + "'"};
    if ((from == "sampler" || agree) && !haveSampler)
        throw UsageError{"profile-report: " + dir + " has no sampler.bin: the capture was not taken "
                         "with \"sampler\": {\"hz\": N}" +
                         std::string(agree ? "" : " (--from samples reports its precise samples)")};
    if (from == "samples" && !contain.empty())
        throw UsageError{"profile-report: --contain checks the system sampler's samples (--from sampler)"};
    const bool precise = from == "samples";
    SystemSampleFile file, exact;
    CaptureFiles capture;
    try {
        capture = readCapture(dir);
        if (const std::string note = captureNote(capture); !note.empty())
            std::fprintf(stderr, "copperline-ctl: %s\n", note.c_str());
        std::vector<std::string> notes;
        if (precise || agree) exact = preciseSystemSamples(capture, &notes);
        if (!precise) {
            std::string cut;
            file = readSystemSamples(bin.string(), &cut);
            if (!cut.empty()) notes.push_back("sampler.bin: " + cut);
            // Samples taken after the last whole frame record belong to frames the capture
            // did not finish recording: left out, as those frames are.
            const std::uint64_t end = wholeFramesEnd(capture);
            std::size_t keep = 0;
            while (keep < file.samples.size() && file.samples[keep].cck < end) ++keep;
            if (keep < file.samples.size()) {
                notes.push_back("sampler.bin: " + std::to_string(file.samples.size() - keep) +
                                " sample(s) after the last whole frame left out");
                file.samples.resize(keep);
                if (file.sampleName.size() > keep) file.sampleName.resize(keep);
                if (file.weights.size() > keep) file.weights.resize(keep);
            }
        } else {
            file = exact;
        }
        for (const std::string& n : notes) std::fprintf(stderr, "copperline-ctl: %s: %s\n", dir.c_str(), n.c_str());
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "copperline-ctl: %s: %s\n", precise ? dir.c_str() : bin.c_str(), e.what());
        return 1;
    }
    // The program the capture recorded, from profile.json.
    std::vector<std::uint32_t> bases, sizes;
    try {
        recordedProgram(capture.summary, precise, bases, sizes);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copperline-ctl: %s: profile.json: %s\n", dir.c_str(), e.what());
        return 1;
    }
    std::optional<DebugInfo> info;
    std::optional<HunkFile> hunks;
    SystemReportProgram prog;
    if (!program.empty()) {
        hunks = loadHunkFile(program);
        std::vector<std::uint32_t> own;
        for (const HunkSection& h : hunks->sections) own.push_back(h.allocSize);
        if (bases.empty())
            throw UsageError{"profile-report: the capture recorded no program (no relocation_bases): "
                             "--program cannot be placed"};
        if (!sizes.empty() && own != sizes)
            throw UsageError{"profile-report: " + program + " is not the program the capture profiled: "
                             "its hunk sizes are (" + listOf(own) + "), the capture's (" + listOf(sizes) +
                             "); it stays unnamed rather than named from another build"};
        info = DebugInfo::load(program, debug);
        for (const std::string& w : info->warnings()) std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
        prog.name = fs::path(program).filename().string();
        prog.bases = bases;
        prog.sizes = own;
        prog.info = &*info;
    } else if (!bases.empty() && bases.size() == sizes.size()) {
        prog.name = "[program]";
        prog.bases = bases;
        prog.sizes = sizes;
    }
    const SystemReport report = buildSystemReport(file, prog.bases.empty() ? nullptr : &prog);
    if (agree) {
        const AgreementResult a = checkAgreement(report, buildSystemReport(exact, prog.bases.empty() ? nullptr : &prog));
        std::fputs(a.text.c_str(), stdout);
        return a.pass() ? 0 : 1;
    }
    if (!contain.empty()) {
        if (!hunks) throw UsageError{"profile-report: --contain needs --program PROG (the kernels' code)"};
        std::ifstream in(contain);
        if (!in) throw UsageError{"profile-report: --contain: cannot read " + contain};
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::vector<KernelRange> kernels;
        try {
            kernels = parseKernelRanges(text);
        } catch (const std::runtime_error& e) {
            throw UsageError{"profile-report: --contain " + contain + ": " + e.what()};
        }
        const auto readWord = [&](std::uint32_t address) -> std::uint16_t {
            for (std::size_t h = 0; h < bases.size() && h < hunks->sections.size(); ++h) {
                const auto& data = hunks->sections[h].data;
                if (address >= bases[h] && address + 1 - bases[h] < data.size())
                    return std::uint16_t(data[address - bases[h]] << 8 | data[address - bases[h] + 1]);
            }
            return 0x4AFC; // ILLEGAL: not the program's
        };
        const ContainResult r = checkContainment(file, kernels, readWord);
        std::fputs(r.text.c_str(), stdout);
        return r.pass() ? 0 : 1;
    }
    // How much of the capture the report covers: its whole frame records.
    const std::string framesLine = dir + ": " + std::to_string(capture.frames.size()) + " frame(s)" +
                                   (capture.finished && capture.cuts.empty() ? "" : " (whole ones of a cut capture)") +
                                   "\n";
    if (format == "table") {
        const std::string text = tableText(report) + framesLine;
        std::fputs(text.c_str(), stdout);
        if (!out.empty()) {
            if (!force) refuseToReplace(out, "--force");
            writeFileBytes(out, {text.begin(), text.end()});
        }
        return 0;
    }
    if (out.empty())
        out = (fs::path(dir) / (std::string(precise ? "samples" : "sampler") +
                                (format == "folded" ? ".folded" : ".trace.json")))
                  .string();
    if (!force) refuseToReplace(out, "--force");
    const std::string text = format == "folded" ? foldedText(report) : traceJson(report).dump() + "\n";
    writeFileBytes(out, {text.begin(), text.end()});
    const std::string rate = precise ? std::string("precise, weighted by colour clocks")
                                     : "at " + std::to_string(report.header.hz) + " Hz";
    std::printf("%s: %zu frame(s), %zu sample(s) %s, idle %.2f%%, disabled %.2f%%: wrote %s in %.2f s\n",
                dir.c_str(), capture.frames.size(), report.samples.size(), rate.c_str(),
                report.total ? 100.0 * double(report.idle) / double(report.total) : 0.0,
                report.total ? 100.0 * double(report.disabled) / double(report.total) : 0.0,
                out.c_str(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
}

} // namespace

namespace {

std::uint32_t addressArg(const std::string& option, const std::string& text) {
    try {
        std::size_t used = 0;
        const bool dollar = !text.empty() && text[0] == '$';
        const unsigned long long v = std::stoull(dollar ? text.substr(1) : text, &used, dollar ? 16 : 0);
        if (used != text.size() - (dollar ? 1 : 0) || v > 0xFFFFFFFFull) throw std::invalid_argument(text);
        return std::uint32_t(v);
    } catch (const std::exception&) {
        throw UsageError{"profile-report: " + option + " wants an address ($40000, 0x40000 or decimal), not '" +
                         text + "'"};
    }
}

} // namespace

int profileReport(int argc, char** argv) {
    std::string dir, program, out, format = "chrome", contain, from;
    std::optional<std::uint32_t> base;
    std::optional<std::vector<std::uint32_t>> bases;
    DebugInfoOptions debug;
    bool perFrame = false, force = false, agree = false;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{"profile-report: " + arg + " needs a value"};
            return argv[++i];
        };
        if (arg == "--program")
            program = value();
        else if (arg == "--elf")
            debug.elfPath = value();
        else if (arg == "--base")
            base = addressArg(arg, value());
        else if (arg == "--bases") {
            bases.emplace();
            const std::string list = value();
            for (std::size_t at = 0; at <= list.size();) {
                const std::size_t comma = std::min(list.find(',', at), list.size());
                bases->push_back(addressArg(arg, list.substr(at, comma - at)));
                at = comma + 1;
            }
        }
        else if (arg == "--out")
            out = value();
        else if (arg == "--per-frame")
            perFrame = true;
        else if (arg == "--format")
            format = value();
        else if (arg == "--source-map")
            debug.sourceMap.addSpec(value());
        else if (arg == "--force")
            force = true;
        else if (arg == "--contain")
            contain = value();
        else if (arg == "--from")
            from = value();
        else if (arg == "--agree")
            agree = true;
        else if (!arg.empty() && arg[0] == '-')
            throw UsageError{"profile-report: unknown option " + arg};
        else if (dir.empty())
            dir = arg;
        else
            throw UsageError{"profile-report: more than one capture folder given"};
    }
    if (dir.empty()) throw UsageError{"profile-report: no capture folder given"};
    if (format == "folded" || format == "trace" || format == "table" || !contain.empty() || agree) {
        if (perFrame) throw UsageError{"profile-report: --per-frame writes .cpuprofile files"};
        if (base || bases)
            throw UsageError{"profile-report: --base and --bases place an ELF for a .cpuprofile or lcov; the system "
                             "reports take the program the capture recorded (--program)"};
        return samplerReport(dir, program, debug, out, format, contain, force, from, agree);
    }
    if (!from.empty()) throw UsageError{"profile-report: --from goes with --format folded, trace or table"};
    // No executable: an ELF alone (a boot block, code a loader placed), where --base or
    // --bases put it, or where the capture recorded it (symbols.load, --symbols).
    const bool elfAlone = program.empty() && !debug.elfPath.empty();
    // A capture of no program (a saved state's) goes to Bartman's viewer as WinUAE's
    // savestate mode sends it: absolute PCs, no symbols.
    const bool noProgram = program.empty() && !elfAlone && format == "bartman";
    if (program.empty() && !elfAlone && !noProgram)
        throw UsageError{"profile-report: --program PROG names the executable that was profiled (or --elf FILE "
                         "--base ADDR the ELF of code that is no executable)"};
    if ((base || bases) && !elfAlone)
        throw UsageError{"profile-report: --base and --bases place an ELF given alone (--elf FILE without "
                         "--program); an executable's hunks are where the capture recorded them"};
    if (base && bases) throw UsageError{"profile-report: --base or --bases, not both"};
    if (elfAlone) program = debug.elfPath;
    if (format != "chrome" && format != "bartman" && format != "lcov")
        throw UsageError{"profile-report: --format wants chrome, bartman, lcov, folded, trace or table, not '" +
                         format + "'"};
    if (format == "bartman" && perFrame)
        throw UsageError{"profile-report: --per-frame writes .cpuprofile files; --format bartman writes one "
                         ".amigaprofile with every frame"};
    if (format == "lcov" && perFrame)
        throw UsageError{"profile-report: --per-frame writes .cpuprofile files; --format lcov writes one .info "
                         "for the whole capture"};
    if (out.empty())
        out = (fs::path(dir) / ((noProgram ? std::string("profile") : fs::path(program).filename().string()) +
                                (format == "bartman" ? ".amigaprofile"
                                 : format == "lcov"  ? ".info"
                                                     : ".cpuprofile")))
                  .string();

    const auto start = std::chrono::steady_clock::now();
    const DebugInfo info = noProgram  ? DebugInfo()
                           : elfAlone ? DebugInfo::loadElf(debug.elfPath, debug.sourceMap)
                                      : DebugInfo::load(program, debug);
    for (const std::string& w : info.warnings()) std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
    std::optional<std::vector<std::uint32_t>> placed;
    if (base) placed = info.basesAt(*base);
    if (bases) {
        if (bases->size() != info.hunks().size())
            throw UsageError{"profile-report: --bases gives " + std::to_string(bases->size()) + " address(es); " +
                             debug.elfPath + " has " + std::to_string(info.hunks().size()) + " loaded section(s)"};
        placed = *bases;
    }
    const CaptureFiles capture = readCapture(dir);
    if (const std::string note = captureNote(capture); !note.empty())
        std::fprintf(stderr, "copperline-ctl: %s\n", note.c_str());
    if (noProgram && capture.summary.is_object() &&
        !capture.summary.value("sampling", nlohmann::json::object()).value("relocation_bases", nlohmann::json::array()).empty())
        throw UsageError{"profile-report: " + dir + " profiled a program: --program PROG names it (or --elf FILE)"};
    if (format == "bartman") {
        if (placed)
            throw UsageError{"profile-report: --format bartman takes the bases the capture recorded; leave out "
                             "--base and --bases"};
        if (!force) refuseToReplace(out, "--force");
        std::vector<std::string> warnings;
        const AmigaProfileInput in = amigaProfileFromCapture(capture, info, &warnings);
        for (const std::string& w : warnings) std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
        writeAmigaProfile(in, out, force);
        std::printf("%s: %zu frame(s) for vscode-amiga-debug's frame profiler: wrote %s in %.2f s\n", dir.c_str(),
                    in.frames.size(), out.c_str(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return 0;
    }
    if (format == "lcov") {
        // Guest coverage: coverage.bin, or the precise samples' leaf PCs without it.
        if (!force) refuseToReplace(out, "--force");
        std::vector<std::string> warnings;
        CoverageData data = coverageFromCapture(capture, &warnings);
        if (placed) data.relocationBases = *placed; // --base or --bases
        for (const std::string& w : warnings) std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());
        const LcovReport lcov = buildLcov(data, info, fs::path(program).filename().string());
        writeFileBytes(out, {lcov.text.begin(), lcov.text.end()});
        std::fputs(lcovHeader(lcov.summary).c_str(), stdout);
        std::printf("wrote %s in %.2f s\n", out.c_str(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return 0;
    }
    SampleReportOptions options;
    options.perFrame = perFrame;
    options.bases = placed;
    const SampleReport report = buildSampleReport(capture, info, options);
    for (const std::string& w : report.warnings) std::fprintf(stderr, "copperline-ctl: warning: %s\n", w.c_str());

    CpuProfileOptions profileOptions = sampleProfileOptions(report, program);
    std::vector<std::string> written;
    if (perFrame) {
        const fs::path o(out);
        const std::string stem = (o.parent_path() / o.stem()).string();
        std::vector<std::string> names;
        for (const SampleFrameTree& f : report.frames) {
            char suffix[64];
            std::snprintf(suffix, sizeof suffix, "-%06llu-frame-%06llu.cpuprofile",
                          static_cast<unsigned long long>(f.seq), static_cast<unsigned long long>(f.frame));
            names.push_back(stem + suffix);
            if (!force) refuseToReplace(names.back(), "--force");
        }
        for (std::size_t i = 0; i < report.frames.size(); ++i) {
            const SampleFrameTree& f = report.frames[i];
            CpuProfileOptions one = profileOptions;
            one.annotation["frame"] = f.frame;
            one.annotation["seq"] = f.seq;
            one.annotation["cck"] = f.cck;
            std::uint64_t unnamedHere = 0;
            for (const auto& [name, cck] : unnamedShare(f.tree)) unnamedHere += cck;
            one.annotation["unnamed_cck"] = unnamedHere;
            one.annotation.erase("rom_outside_modules_cck"); // the merged profile's
            one.startTime = 0;
            writeCpuProfile(f.tree, names[i], one);
            written.push_back(names[i]);
        }
    } else {
        if (!force) refuseToReplace(out, "--force");
        writeCpuProfile(report.merged, out, profileOptions);
        written.push_back(out);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double us = 1e6 / report.cckHz;
    std::printf("%s: %llu frame(s), %llu sample(s), %llu CCK (%.3f ms): instructions %llu, bus waits %llu, "
                "interrupt entry %llu, stopped %llu CCK\n",
                dir.c_str(), static_cast<unsigned long long>(report.frameCount),
                static_cast<unsigned long long>(report.samples), static_cast<unsigned long long>(report.cck),
                double(report.cck) * us / 1000.0, static_cast<unsigned long long>(report.instructionCck),
                static_cast<unsigned long long>(report.waitCck), static_cast<unsigned long long>(report.irqCck),
                static_cast<unsigned long long>(report.stoppedCck));
    // What no name could be given: it says where the profile is blind.
    std::string unnamed;
    for (const auto& [name, cck] : report.unnamed)
        unnamed += (unnamed.empty() ? " (" : ", ") + name + " " + std::to_string(cck);
    std::printf("unnamed: %llu CCK, %.2f%% of the weight%s; ROM outside every module ([Kickstart]): %llu CCK\n",
                static_cast<unsigned long long>(report.unnamedCck),
                report.cck ? 100.0 * double(report.unnamedCck) / double(report.cck) : 0.0,
                unnamed.empty() ? "" : (unnamed + ")").c_str(), static_cast<unsigned long long>(report.romOutsideCck));
    if (written.size() == 1)
        std::printf("wrote %s in %.2f s\n", written[0].c_str(), seconds);
    else
        std::printf("wrote %zu files (%s ... %s) in %.2f s\n", written.size(), written.front().c_str(),
                    written.back().c_str(), seconds);
    return 0;
}

} // namespace copperline::ctl
