// SPDX-License-Identifier: GPL-3.0-or-later
// The coverage family: coverage.open, coverage.status, coverage.lines, coverage.addresses
// (docs/control-protocol.md). They show guest code coverage by source line for the
// coverage pane and any client: live from the capture that counts ("coverage": true on
// profile.start), or from a finished coverage.bin or .info file. The counts are the lcov
// converter's (profiler/report/lcov.h), so the pane shows what the .info file holds.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/coverage/coverage_file.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/lcov.h"
#include "profiler/report/lcov_reader.h"

#include <filesystem>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

// What the family shows: the program's debug information and, for a file, its counts.
struct CoverageView {
    std::string program;
    std::optional<DebugInfo> info;
    std::string path;                   // the file shown; empty: the live capture
    std::optional<LcovData> file;       // its lines (a .info, or a coverage.bin converted)
    std::vector<std::uint32_t> bases;   // where the hunks were (from coverage.bin)
};

CoverageView& view(Emulator::Impl& e) {
    if (!e.coverageView) e.coverageView = std::make_shared<CoverageView>();
    return *std::static_pointer_cast<CoverageView>(e.coverageView);
}

// The counts now: the file's, or the live counter's through the converter.
LcovData current(Emulator::Impl& e, std::vector<std::uint32_t>* bases) {
    CoverageView& v = view(e);
    if (v.file) {
        if (bases) *bases = v.bases;
        return *v.file;
    }
    if (!e.coverage) fail(errc::InvalidState, "no coverage is being counted: start a capture with \"coverage\": true, or coverage.open a file");
    // Without a program named, the --run program's lines are the ones counted.
    const DebugInfo* info = v.info ? &*v.info : e.run.info.get();
    const std::string program = v.info ? v.program : e.options.runProgram;
    if (!info) fail(errc::InvalidState, "no program: coverage.open {\"program\": PATH} names the program counted");
    const CoverageData data = e.coverage->data();
    if (bases) *bases = data.relocationBases;
    try {
        return parseLcov(buildLcov(data, *info, program).text, program);
    } catch (const MediaError& ex) {
        fail(errc::CommandFailed, ex.what());
    }
}

json fileJson(const LcovFile& f) {
    return {{"file", f.path}, {"lines", f.lines.size()}, {"lines_hit", f.linesHit()},
            {"functions", f.functions.size()}, {"functions_hit", f.functionsHit()}};
}

json statusJson(Emulator::Impl& e) {
    CoverageView& v = view(e);
    // Until a program is opened, a capture's counts are the --run program's.
    const bool runProgram = !v.info && e.run.info;
    const std::string program = runProgram ? e.options.runProgram : v.program;
    json out = {{"program", program.empty() ? json(nullptr) : json(program)},
                {"source", !v.path.empty() ? "file" : e.coverage ? "capture" : "none"},
                {"path", v.path.empty() ? json(nullptr) : json(v.path)},
                {"counting", e.coverage && e.coverage->counting()}};
    if (v.path.empty() && (!e.coverage || (!v.info && !runProgram))) {
        out["files"] = json::array();
        return out;
    }
    const LcovData d = current(e, nullptr);
    json files = json::array();
    std::uint64_t lines = 0, hit = 0, fns = 0, fnHit = 0;
    for (const LcovFile& f : d.files) {
        files.push_back(fileJson(f));
        lines += f.lines.size();
        hit += f.linesHit();
        fns += f.functions.size();
        fnHit += f.functionsHit();
    }
    out["files"] = std::move(files);
    out["header"] = d.header;
    out["totals"] = {{"lines", lines}, {"lines_hit", hit}, {"functions", fns}, {"functions_hit", fnHit}};
    return out;
}

} // namespace

void registerCoverageCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;
    bus.add("coverage.open",
            "Names the program whose coverage to show {program, elf?, path?, source_map?}: path a "
            "coverage.bin or .info file, or none for the capture that counts.",
            {"program", "elf", "path", "source_map"}, [&e](const json& params) {
                const std::string program = p::string(params, "program");
                DebugInfoOptions options;
                if (auto elf = p::optionalString(params, "elf")) options.elfPath = *elf;
                if (params.contains("source_map")) {
                    if (!params["source_map"].is_array()) fail(errc::InvalidParams, "source_map: wants [\"FROM=TO\", ...]");
                    for (const json& m : params["source_map"]) {
                        if (!m.is_string()) fail(errc::InvalidParams, "source_map: wants strings FROM=TO");
                        try {
                            options.sourceMap.addSpec(m.get<std::string>());
                        } catch (const MediaError& ex) {
                            fail(errc::InvalidParams, std::string("source_map: ") + ex.what());
                        }
                    }
                }
                CoverageView next;
                try {
                    next.info = DebugInfo::load(program, options);
                    next.program = program;
                    if (auto path = p::optionalString(params, "path")) {
                        next.path = std::filesystem::absolute(*path).string();
                        if (next.path.ends_with(".info")) {
                            next.file = readLcovFile(next.path);
                        } else {
                            // A capture's coverage.bin is placed by the relocation bases of the
                            // profile.json beside it, as profile-report --format lcov places it.
                            const auto dir = std::filesystem::path(next.path).parent_path();
                            const bool inCapture = std::filesystem::path(next.path).filename() == "coverage.bin" &&
                                                   std::filesystem::exists(dir / "profile.json");
                            const CoverageData placed =
                                inCapture ? coverageFromCapture(readCapture(dir.string())) : readCoverageBin(next.path);
                            next.bases = placed.relocationBases;
                            next.file = parseLcov(buildLcov(placed, *next.info, program).text, next.path);
                        }
                    }
                } catch (const MediaError& ex) {
                    fail(errc::CommandFailed, ex.what());
                } catch (const CaptureError& ex) {
                    fail(errc::CommandFailed, ex.what());
                }
                view(e) = std::move(next);
                return statusJson(e);
            });
    bus.add("coverage.status",
            "What the coverage shown holds: its source, the accounting header, totals and each "
            "source file's lines and functions hit.",
            [&e](const json&) { return statusJson(e); });
    bus.add("coverage.lines",
            "One source file's lines with code and their counts, and its functions {file}.",
            {"file"}, [&e](const json& params) {
                const std::string file = p::string(params, "file");
                const LcovData d = current(e, nullptr);
                const LcovFile* f = d.file(file);
                if (!f) fail(errc::InvalidParams, "file: " + file + " has no counts (coverage.status lists the files)");
                json lines = json::array(), functions = json::array();
                for (const auto& [line, count] : f->lines) lines.push_back({{"line", line}, {"count", count}});
                for (const LcovFunction& fn : f->functions)
                    functions.push_back({{"name", fn.name}, {"line", fn.line}, {"count", fn.count}});
                json out = fileJson(*f);
                out["lines"] = std::move(lines);
                out["functions"] = std::move(functions);
                return out;
            });
    bus.add("coverage.addresses",
            "Where the code of one source line is {file, line}: its address ranges, where the "
            "program's hunks were loaded.",
            {"file", "line"}, [&e](const json& params) {
                const std::string file = p::string(params, "file");
                const std::uint32_t line = std::uint32_t(p::number(params, "line", 0xFFFFFFFF));
                CoverageView& v = view(e);
                if (!v.info) fail(errc::InvalidState, "no program: coverage.open {\"program\": PATH} first");
                std::vector<std::uint32_t> bases;
                current(e, &bases);
                if (bases.empty()) bases = v.info->linkBases();
                json ranges = json::array();
                for (std::uint32_t i = 0; i < v.info->files().size(); ++i) {
                    if (v.info->fileName(i) != file) continue;
                    for (const LineRange& r : v.info->rangesOfLine(i, line)) {
                        const std::uint32_t base = r.hunk < bases.size() ? bases[r.hunk] : 0;
                        ranges.push_back({{"hunk", r.hunk}, {"start", base + r.start}, {"end", base + r.end},
                                          {"start_hex", hex(base + r.start)}});
                    }
                }
                return json{{"file", file}, {"line", line}, {"ranges", ranges}};
            });
}

} // namespace copperline
