// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/lcov.h"

#include "emu/hex.h"
#include "emu/media/byte_reader.h"
#include "profiler/coverage/coverage_counter.h"
#include "profiler/json_address.h"
#include "profiler/sampling/sample_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>

namespace copperline {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& what) {
    throw MediaError(what);
}

std::uint32_t saturatingAdd(std::uint32_t a, std::uint64_t b) {
    return std::uint32_t(
        std::min<std::uint64_t>(std::uint64_t(a) + b, coverage_format::kSaturated));
}

// lcov's test names are letters, digits and underscores.
std::string testName(const std::string& program) {
    std::string out;
    for (const char c : program)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return out.empty() ? "copperline" : out;
}

struct FunctionRecord {
    std::uint32_t line = 0;
    std::uint64_t count = 0;
};

struct FileRecord {
    std::map<std::uint32_t, std::uint64_t> lines;    // line -> count
    std::map<std::string, FunctionRecord> functions; // name -> first line, count
};

// An address or a number: profile.json writes addresses as "0x..." strings.
std::uint32_t number(const json& v, const std::string& where) {
    if (const auto a = jsonAddress(v)) return *a;
    bad(where + ": " + v.dump() + " is not an address");
}

std::vector<std::uint32_t> addressList(const json& list, const std::string& where) {
    std::vector<std::uint32_t> out;
    if (!list.is_array()) return out;
    for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(number(list[i], where + "[" + std::to_string(i) + "]"));
    return out;
}

} // namespace

std::string lcovHeader(const LcovSummary& s) {
    const auto n = [](std::uint64_t v) { return std::to_string(v); };
    std::string h;
    h += "# Copperline guest coverage: " + s.program + "\n";
    h += "# " + n(s.total) + " instruction(s) retired: " + n(s.onLines) + " on " + n(s.lines) +
         " source line(s) in " + n(s.files) + " file(s)\n";
    h += "# " + n(s.withoutLine) + " instruction(s) at " + n(s.withoutLineAddresses) +
         " program address(es) without line information\n";
    h += "# " + n(s.outside) +
         " instruction(s) outside the program (Kickstart, libraries, other tasks)\n";
    if (s.overflow)
        h += "# " + n(s.overflow) + " of them at addresses the full sparse map (" +
             n(coverage_format::kDefaultSparseLimit) + " addresses) could not take\n";
    if (s.saturated)
        h += "# " + n(s.saturated) + " counter(s) stopped at " + n(coverage_format::kSaturated) +
             ": the instructions past that are in the total only\n";
    h += "# lines " + n(s.linesHit) + "/" + n(s.lines) + " hit, functions " + n(s.functionsHit) +
         "/" + n(s.functions) + " hit\n";
    return h;
}

LcovReport buildLcov(const CoverageData& data, const DebugInfo& info, const std::string& program) {
    const auto& hunks = info.hunks();
    const std::vector<std::uint32_t> baseList =
        data.relocationBases.empty() ? info.linkBases() : data.relocationBases;
    const HunkBases bases(info, baseList);
    for (const auto& r : data.ranges)
        for (std::size_t h = 0; h < hunks.size(); ++h)
            if (baseList[h] == r.base && r.size != hunks[h].size)
                throw DebugInfoError(info.programPath() +
                                     " is not the program that was counted: the counted range at " +
                                     hex(r.base) + " is " + std::to_string(r.size) +
                                     " bytes, but its hunk " + std::to_string(h) + " there is " +
                                     std::to_string(hunks[h].size) + " bytes");

    LcovReport report;
    LcovSummary& s = report.summary;
    s.program = program;
    s.total = data.total;
    s.overflow = data.overflow;
    s.saturated = data.saturatedCounters();

    // Every count by (hunk, word); what lies in no hunk of the program is outside it.
    std::vector<std::vector<std::uint32_t>> counts(hunks.size());
    for (std::size_t h = 0; h < hunks.size(); ++h)
        counts[h].assign(coverageWords(hunks[h].size), 0);
    std::uint64_t outsideProgram = 0;
    const auto add = [&](std::uint32_t address, std::uint32_t count) {
        if (!count) return;
        const auto where = bases.find(address);
        if (!where) {
            outsideProgram += count;
            return;
        }
        std::uint32_t& c = counts[where->first][where->second >> 1];
        c = saturatingAdd(c, count);
    };
    for (const auto& r : data.ranges)
        for (std::size_t i = 0; i < r.counters.size(); ++i)
            add(r.base + std::uint32_t(2 * i), r.counters[i]);
    for (const auto& [address, count] : data.sparse)
        add(address, count);
    s.outside = data.outside + outsideProgram;
    for (std::uint32_t h = 0; h < counts.size(); ++h)
        for (std::uint32_t i = 0; i < counts[h].size(); ++i) {
            const std::uint32_t c = counts[h][i];
            if (!c) continue;
            if (info.lookup(h, 2 * i).line >= 0) {
                s.onLines += c;
            } else {
                s.withoutLine += c;
                ++s.withoutLineAddresses;
            }
        }

    // The highest count among the words of [start, end) of a hunk.
    const auto highest = [&](std::uint32_t hunk, std::uint32_t start, std::uint32_t end) {
        std::uint32_t m = 0;
        if (hunk >= counts.size() || start >= end) return m;
        const auto& c = counts[hunk];
        const std::size_t last = std::min<std::size_t>((end - 1) >> 1, c.size() ? c.size() - 1 : 0);
        for (std::size_t w = start >> 1; w <= last && w < c.size(); ++w)
            m = std::max(m, c[w]);
        return m;
    };

    // A run of rows counts its most executed word. Two inlined copies of one line may lie
    // side by side in one run (-O0 puts a helper inlined twice into one line there): each
    // copy is its own scope, so the run counts the most executed word of each copy, added.
    // (The caller's line inside a copy, where the compiler gives the call's own code its
    // line, stays the caller's: one count.)
    const auto runCount = [&](const LineRange& r) {
        std::uint64_t sum = 0;
        if (r.hunk >= counts.size()) return sum;
        const auto& c = counts[r.hunk];
        std::vector<std::pair<std::int32_t, std::uint32_t>> copies; // scope, its highest count
        for (std::uint32_t o = r.start & ~1u; o < r.end && (o >> 1) < c.size(); o += 2) {
            const std::uint32_t n = c[o >> 1];
            if (!n) continue;
            std::int32_t scope = info.lookup(r.hunk, o).scope;
            // Code an inlined copy holds for the line that calls it (the arguments' set-up)
            // belongs to the caller's count of that line, not to a copy of its own.
            for (int guard = 0; scope >= 0 && guard < 64; ++guard) {
                const DebugScope& d = info.scopes()[std::size_t(scope)];
                if (d.kind != ScopeKind::Inlined || d.parent < 0 || d.callLine != r.line ||
                    d.callFile != r.file)
                    break;
                scope = d.parent;
            }
            auto it = std::find_if(copies.begin(), copies.end(),
                                   [&](const auto& e) { return e.first == scope; });
            if (it == copies.end())
                copies.emplace_back(scope, n);
            else
                it->second = std::max(it->second, n);
        }
        for (const auto& copy : copies)
            sum += copy.second;
        return sum;
    };

    std::map<std::uint32_t, FileRecord> files;
    // Lines: the runs of a line add up, gcov-like.
    for (const LineRange& r : info.lineTable())
        files[r.file].lines[r.line] += runCount(r);

    // Functions: top-level code scopes with bytes of their own, by their entry instruction.
    const auto& scopes = info.scopes();
    std::vector<std::vector<const ScopeRange*>> rangesOf(scopes.size());
    for (const ScopeRange& r : info.scopeRanges())
        if (r.scope < scopes.size()) rangesOf[r.scope].push_back(&r);
    for (std::size_t i = 0; i < scopes.size(); ++i) {
        const DebugScope& scope = scopes[i];
        if (scope.kind != ScopeKind::Function || scope.parent >= 0 || rangesOf[i].empty()) continue;
        if (rangesOf[i].front()->hunk >= hunks.size() ||
            hunks[rangesOf[i].front()->hunk].kind != HunkKind::Code)
            continue;
        const ScopeRange& entry = *rangesOf[i].front(); // scopeRanges is sorted: the lowest address
        std::uint64_t count =
            highest(entry.hunk, entry.start, std::min(entry.end, entry.start + 2));
        if (!count)
            for (const ScopeRange* r : rangesOf[i])
                count = std::max<std::uint64_t>(count, highest(r->hunk, r->start, r->end));
        // Its file and line: the declaration's, else the line table's at its code.
        std::uint32_t file = scope.file, line = scope.line;
        if (file == kNoFile || !line) {
            for (const ScopeRange* r : rangesOf[i]) {
                for (std::uint32_t o = r->start; o < r->end && (file == kNoFile || !line); o += 2) {
                    const AddressInfo a = info.lookup(r->hunk, o);
                    if (a.line < 0) continue;
                    const LineRange& l = info.lineTable()[std::size_t(a.line)];
                    if (file == kNoFile) file = l.file;
                    if (!line && l.file == file) line = l.line;
                }
                if (file != kNoFile && line) break;
            }
        }
        if (file == kNoFile)
            continue; // nowhere to put it: its instructions are "without line information"
        if (!line) line = 1;
        FunctionRecord& f = files[file].functions[scope.name];
        // One name twice in one file (a static function of a header in two units): one
        // function, as lcov merges them.
        if (!f.line || line < f.line) f.line = line;
        f.count += count;
    }

    // Files in the order of their names, so the output does not depend on the reader's.
    std::vector<std::pair<std::string, const FileRecord*>> ordered;
    for (const auto& [file, record] : files)
        ordered.emplace_back(info.fileName(file), &record);
    std::sort(ordered.begin(), ordered.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });

    std::string body;
    const std::string tn = testName(program);
    for (const auto& [name, record] : ordered) {
        body += "TN:" + tn + "\n";
        body += "SF:" + name + "\n";
        std::vector<std::pair<std::uint32_t, std::string>> fnOrder;
        for (const auto& [fn, f] : record->functions)
            fnOrder.emplace_back(f.line, fn);
        std::sort(fnOrder.begin(), fnOrder.end());
        std::uint64_t hit = 0;
        for (const auto& [line, fn] : fnOrder)
            body += "FN:" + std::to_string(line) + "," + fn + "\n";
        for (const auto& [line, fn] : fnOrder) {
            const std::uint64_t c = record->functions.at(fn).count;
            body += "FNDA:" + std::to_string(c) + "," + fn + "\n";
            hit += c != 0;
        }
        body += "FNF:" + std::to_string(fnOrder.size()) + "\n";
        body += "FNH:" + std::to_string(hit) + "\n";
        std::uint64_t linesHit = 0;
        for (const auto& [line, c] : record->lines) {
            body += "DA:" + std::to_string(line) + "," + std::to_string(c) + "\n";
            linesHit += c != 0;
        }
        body += "LF:" + std::to_string(record->lines.size()) + "\n";
        body += "LH:" + std::to_string(linesHit) + "\n";
        body += "end_of_record\n";
        ++s.files;
        s.lines += record->lines.size();
        s.linesHit += linesHit;
        s.functions += fnOrder.size();
        s.functionsHit += hit;
    }
    report.text = lcovHeader(s) + body;
    return report;
}

CoverageData coverageFromSamples(const CaptureFiles& capture, std::vector<std::string>* warnings) {
    const std::string& dir = capture.dir;
    const json& summary = capture.summary;
    if (!summary.is_object())
        bad(dir + ": no profile.json: the capture did not finish (profile.stop, or its frame "
                  "budget, writes it)");
    if (!summary.contains("sampling") || !summary["sampling"].is_object())
        bad(dir + ": the capture has neither coverage.bin nor precise samples: capture with "
                  "\"coverage\": true "
                  "(or \"samples\": true)");
    const json& sampling = summary["sampling"];
    const bool registers = sampling.value("registers", false);

    CoverageOptions options;
    if (sampling.contains("code_ranges") && sampling["code_ranges"].is_array()) {
        const json& ranges = sampling["code_ranges"];
        for (std::size_t i = 0; i < ranges.size(); ++i) {
            const std::string where = dir + ": sampling.code_ranges[" + std::to_string(i) + "]";
            if (!ranges[i].is_object() || !ranges[i].contains("base") ||
                !ranges[i].contains("size"))
                bad(where + ": wants base and size");
            options.codeRanges.push_back({number(ranges[i]["base"], where + ".base"),
                                          number(ranges[i]["size"], where + ".size")});
        }
    }
    options.relocationBases = addressList(sampling.value("relocation_bases", json::array()),
                                          dir + ": sampling.relocation_bases");
    // PCs in the program's text are written relative to its base.
    const auto text = samplesText(sampling, dir);
    const bool textRelative = text.has_value();
    const std::uint32_t textBase = text ? text->base : 0, textSize = text ? text->size : 0;
    std::optional<CoverageCounter> counter;
    try {
        counter.emplace(options);
    } catch (const std::invalid_argument& e) {
        bad(dir + ": sampling.code_ranges: " + e.what());
    }
    const std::uint64_t dropped = summary.value("samples_dropped", std::uint64_t(0));
    if (dropped && warnings)
        warnings->push_back("the capture dropped " + std::to_string(dropped) +
                            " sample(s) when its buffer was full: these counts are incomplete");
    bool mismatchWarned = false;
    std::uint64_t frames = 0;
    for (const json& r : capture.frames) {
        if (!r.contains("samples")) continue;
        const std::string where = "profile.jsonl frame " + std::to_string(r.value("frame", 0ull));
        if (!r["samples"].is_string() || !r.contains("samples_meta") ||
            !r["samples_meta"].is_string())
            bad(dir + ": " + where + ": malformed samples fields");
        const std::string bin = r["samples"].get<std::string>(),
                          meta = r["samples_meta"].get<std::string>();
        for (const std::string& n : {bin, meta})
            if (n.find('/') != std::string::npos || n.empty() || n[0] == '.')
                bad(dir + ": " + where + ": '" + n + "' is not a file of the capture folder");
        const std::vector<Sample> samples =
            readSamples((fs::path(dir) / bin).string(), (fs::path(dir) / meta).string(), registers);
        ++frames;
        std::uint64_t instructions = 0;
        for (const Sample& s : samples)
            instructions += !s.isIrq() && !s.isStopped();
        // An instruction that straddled the frame's start was split: its first part closed
        // the frame before (whose retired count has it), the rest opens this one.
        std::size_t first = 0;
        if (r.contains("retired_instructions") && r["retired_instructions"].is_number_unsigned()) {
            const std::uint64_t retired = r["retired_instructions"].get<std::uint64_t>();
            if (instructions == retired + 1 && !samples.empty() && !samples[0].isIrq() &&
                !samples[0].isStopped())
                first = 1;
            else if (instructions != retired && !dropped && warnings && !mismatchWarned) {
                mismatchWarned = true;
                warnings->push_back(dir + ": " + where + " holds " + std::to_string(instructions) +
                                    " instruction sample(s) for " + std::to_string(retired) +
                                    " retired instruction(s); each sample is counted");
            }
        }
        for (std::size_t i = first; i < samples.size(); ++i) {
            const Sample& s = samples[i];
            if (s.isIrq() || s.isStopped() || s.stack.empty()) continue;
            std::uint32_t pc = s.stack[0];
            if (textRelative && pc < textSize) pc += textBase;
            m68k::RetireInfo info;
            info.pc = pc & 0xFFFFFF;
            counter->instructionRetired(info);
        }
    }
    if (!frames) bad(dir + ": no frame record of profile.jsonl has samples");
    return counter->snapshot();
}

CoverageData coverageFromCapture(const CaptureFiles& capture, std::vector<std::string>* warnings) {
    const fs::path bin = fs::path(capture.dir) / "coverage.bin";
    std::error_code ec;
    if (!fs::exists(bin, ec)) return coverageFromSamples(capture, warnings);
    CoverageData d = readCoverageBin(bin.string());
    const json& summary = capture.summary;
    const std::string where = capture.dir + ": profile.json";
    if (summary.is_object() && summary.contains("coverage") && summary["coverage"].is_object() &&
        summary["coverage"].contains("relocation_bases"))
        d.relocationBases = addressList(summary["coverage"]["relocation_bases"],
                                        where + ": coverage.relocation_bases");
    else if (summary.is_object() && summary.contains("sampling") && summary["sampling"].is_object())
        d.relocationBases =
            addressList(summary["sampling"].value("relocation_bases", json::array()),
                        where + ": sampling.relocation_bases");
    if (summary.is_object() && summary.contains("coverage") && summary["coverage"].is_object())
        d.overflow = summary["coverage"].value("overflow", std::uint64_t(0));
    if (d.relocationBases.empty() && warnings)
        warnings->push_back(
            where + " records no relocation bases: the program's link addresses are assumed");
    return d;
}

} // namespace copperline
