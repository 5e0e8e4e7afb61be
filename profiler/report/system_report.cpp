// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/system_report.h"

#include "emu/cpu/disasm/disasm.h"
#include "profiler/amigaos/code_namer.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/sampling/sample_reader.h"
#include "profiler/debuginfo/debug_info.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace copperline {

using nlohmann::json;
namespace sf = sampler_format;

namespace {

// A name in a folded line: no separator of the format inside it.
std::string clean(std::string s) {
    for (char& c : s)
        if (c == ';' || c == '\n' || c == '\r') c = ':';
    return s.empty() ? "?" : s;
}

std::string context(const SystemSample& s) {
    if (s.idle()) return "idle";
    if (s.irqLevel) return "interrupt L" + std::to_string(s.irqLevel);
    if (s.disabled()) return "disabled";
    return s.supervisor() ? "supervisor" : "user";
}

} // namespace

SystemReport buildSystemReport(const SystemSampleFile& f, const SystemReportProgram* program) {
    SystemReport r;
    r.header = f.header;
    r.precise = !f.weights.empty();
    const CodeNamer modules(f.modules);
    r.samples.reserve(f.samples.size());
    for (std::size_t i = 0; i < f.samples.size(); ++i) {
        const SystemSample& s = f.samples[i];
        AttributedSample a;
        a.cck = s.cck;
        a.pc = s.pc;
        a.task = s.task;
        if (s.flags & sf::kNoExec) a.taskName = "[no ExecBase]";
        else if (s.flags & sf::kNoTask) a.taskName = "[no task]";
        else if (i < f.sampleName.size() && f.sampleName[i] < f.names.size())
            a.taskName = f.names[f.sampleName[i]].empty() ? "[unnamed task]" : f.names[f.sampleName[i]];
        else a.taskName = "[unnamed task]";
        a.context = context(s);
        bool named = false;
        if (program)
            for (std::size_t h = 0; h < program->bases.size() && h < program->sizes.size(); ++h) {
                const std::uint32_t base = program->bases[h];
                if (s.pc < base || s.pc - base >= program->sizes[h]) continue;
                a.module = program->name;
                if (program->info) {
                    const AddressInfo info = program->info->lookup(std::uint32_t(h), s.pc - base);
                    if (const DebugScope* fn = program->info->function(info)) a.function = fn->name;
                }
                named = true;
                break;
            }
        if (!named) {
            const CodeName n = modules.name(s.pc);
            a.module = n.known() ? n.module : "unknown";
            a.function = n.function;
        }
        const std::uint64_t w = f.weight(i);
        a.weight = w;
        r.total += w;
        if (s.idle()) r.idle += w;
        if (s.disabled()) r.disabled += w;
        if (s.forbidden()) r.forbidden += w;
        if (s.stopped()) r.stopped += w;
        r.irq[s.irqLevel & 7] += w;
        const std::string fn = a.function.empty() ? a.module : a.function;
        r.stacks[clean(a.taskName) + ";" + clean(a.context) + ";" + clean(a.module) + ";" + clean(fn)] += w;
        r.modules[a.module] += w;
        r.functions[a.module + (a.function.empty() ? "" : " " + a.function)] += w;
        r.tasks[a.taskName] += w;
        r.contexts[a.context] += w;
        r.samples.push_back(std::move(a));
    }
    return r;
}

SystemSampleFile preciseSystemSamples(const std::string& dir) {
    return preciseSystemSamples(readCapture(dir));
}

SystemSampleFile preciseSystemSamples(const CaptureFiles& capture, std::vector<std::string>* notes) {
    namespace fs = std::filesystem;
    namespace pf = samples_format;
    const std::string& dir = capture.dir;
    const auto bad = [&](const std::string& what) { throw std::runtime_error(dir + ": " + what); };
    SystemSampleFile out;
    const fs::path modules = fs::path(dir) / pf::kModulesFile;
    if (fs::exists(modules)) {
        // Appended to at the start and the end: a capture killed while it appended the end's
        // modules keeps the start's.
        std::string cut;
        SystemSampleFile m = readSystemSamples(modules.string(), &cut);
        if (!cut.empty() && notes) notes->push_back(std::string(pf::kModulesFile) + ": " + cut);
        if (!(m.header.flags & sf::kModulesOnly)) bad(std::string(pf::kModulesFile) + " is not a stream of modules");
        out.header = m.header;
        out.modules = std::move(m.modules);
    }
    out.header.hz = 0;
    if (!out.header.cckPerSecond)
        out.header.cckPerSecond = std::uint32_t(
            capture.summary.is_object() ? capture.summary.value("machine", json::object()).value("cck_hz", 3546895.0)
                                        : 3546895.0);
    const bool registers = capture.summary.is_object() &&
                           capture.summary.value("sampling", json::object()).value("registers", false);
    std::map<std::string, std::uint32_t> indexOf;
    bool any = false;
    for (const json& r : capture.frames) {
        if (!r.contains("samples")) continue;
        const std::string where = "profile.jsonl frame " + std::to_string(r.value("frame", 0ull));
        if (!r["samples"].is_string() || !r.contains("samples_meta") || !r["samples_meta"].is_string())
            bad(where + ": malformed samples fields");
        const std::string bin = r["samples"].get<std::string>(), meta = r["samples_meta"].get<std::string>();
        for (const std::string& n : {bin, meta})
            if (n.find('/') != std::string::npos || n.empty() || n[0] == '.')
                bad(where + ": '" + n + "' is not a file of the capture folder");
        // The frame's task names.
        std::map<std::uint32_t, std::uint32_t> nameOf;
        if (r.contains("samples_tasks")) {
            const json& tasks = r["samples_tasks"];
            if (!tasks.is_array()) bad(where + ": samples_tasks is not an array");
            for (const json& t : tasks) {
                if (!t.is_object() || !t.contains("task") || !t["task"].is_number_unsigned() || !t.contains("name") ||
                    !t["name"].is_string())
                    bad(where + ": samples_tasks holds " + t.dump() + ", not {\"task\": N, \"name\": \"...\"}");
                const std::string name = t["name"].get<std::string>();
                auto [it, fresh] = indexOf.emplace(name, std::uint32_t(out.names.size()));
                if (fresh) out.names.push_back(name);
                nameOf[t["task"].get<std::uint32_t>()] = it->second;
            }
        }
        std::uint64_t cck = r.value("samples_from_cck", r.value("first_cck", std::uint64_t(0)));
        forEachSampleIn((fs::path(dir) / bin).string(), (fs::path(dir) / meta).string(), registers,
                        [&](const SampleView& v) {
                            const SampleMeta& m = v.meta;
                            if (!(m.context & pf::kContextKnown))
                                bad(bin + ": its samples have no context (a .meta of version 1, from an "
                                          "earlier Copperline): capture again for the system report");
                            SystemSample x;
                            x.cck = cck;
                            x.pc = m.pc & 0xFFFFFF;
                            x.sr = std::uint16_t(m.context & pf::kContextSrMask);
                            x.irqLevel = std::uint8_t(m.context >> pf::kContextLevelShift & 7);
                            if (v.isStopped()) x.flags |= sf::kStopped;
                            if (v.isIrq()) x.flags |= sf::kIrqEntry;
                            if (m.context & pf::kContextNoExec) x.flags |= sf::kNoExec;
                            if (m.context & pf::kContextNoTask) x.flags |= sf::kNoTask;
                            x.idNestCnt = (m.context & pf::kContextDisabled) ? 0 : -1;
                            x.tdNestCnt = (m.context & pf::kContextForbidden) ? 0 : -1;
                            x.task = m.task;
                            const auto n = nameOf.find(m.task);
                            out.sampleName.push_back(n == nameOf.end() ? std::numeric_limits<std::uint32_t>::max()
                                                                       : n->second);
                            out.samples.push_back(x);
                            out.weights.push_back(m.totalCck);
                            cck += m.totalCck;
                        });
        any = true;
    }
    if (!any) bad("no frame record of profile.jsonl has precise samples (\"samples\": true)");
    if (out.samples.empty()) bad("its precise samples are empty");
    return out;
}

AgreementResult checkAgreement(const SystemReport& st, const SystemReport& ex, double sigmas) {
    AgreementResult r;
    std::ostringstream o;
    const double n = double(st.total);
    char b[320];
    std::snprintf(b, sizeof b, "%llu samples against %llu exact colour clocks; each share within %.0f sigma + 1/n\n",
                  static_cast<unsigned long long>(st.total), static_cast<unsigned long long>(ex.total), sigmas);
    o << b;
    const auto level = [&](const char* what, const std::map<std::string, std::uint64_t>& a,
                           const std::map<std::string, std::uint64_t>& e) {
        std::set<std::string> keys;
        for (const auto& [k, v] : a) keys.insert(k);
        for (const auto& [k, v] : e) keys.insert(k);
        for (const std::string& k : keys) {
            const auto ia = a.find(k);
            const auto ie = e.find(k);
            const double ps = n > 0 && ia != a.end() ? double(ia->second) / n : 0.0;
            const double pe = ex.total && ie != e.end() ? double(ie->second) / double(ex.total) : 0.0;
            const double sigma = n > 0 ? std::sqrt(pe * (1 - pe) / n) : 1.0;
            const double allowed = sigmas * sigma + (n > 0 ? 1.0 / n : 1.0);
            const bool ok = std::fabs(ps - pe) <= allowed;
            ++r.compared;
            if (!ok) ++r.failures;
            std::snprintf(b, sizeof b, "%s %s: sampled %.3f%%, exact %.3f%%, allowed +-%.3f%%: %s\n", what, k.c_str(),
                          100 * ps, 100 * pe, 100 * allowed, ok ? "agrees" : "DISAGREES");
            o << b;
        }
    };
    level("task", st.tasks, ex.tasks);
    level("context", st.contexts, ex.contexts);
    level("module", st.modules, ex.modules);
    o << "agreement with the precise samples: " << r.failures << " outside " << sigmas << " sigma, "
      << (r.pass() ? "PASS" : "FAIL") << "\n";
    r.text = o.str();
    return r;
}

std::string foldedText(const SystemReport& r) {
    std::string out;
    for (const auto& [stack, n] : r.stacks) out += stack + " " + std::to_string(n) + "\n";
    return out;
}

json traceJson(const SystemReport& r) {
    json events = json::array();
    const double usPerCck = 1e6 / double(r.header.cckPerSecond);
    const double period = r.header.hz ? double(r.header.cckPerSecond) / double(r.header.hz) : 0.0;
    std::map<std::string, int> tids;
    const auto tid = [&](const std::string& task) {
        auto [it, fresh] = tids.emplace(task, int(tids.size()) + 1);
        if (fresh)
            events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", it->second},
                              {"args", {{"name", task}}}});
        return it->second;
    };
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "Amiga"}}}});
    // Consecutive samples of one task in one function and context make one slice, from the
    // first one's moment to the moment after the last one.
    for (std::size_t i = 0; i < r.samples.size();) {
        const AttributedSample& a = r.samples[i];
        std::size_t j = i + 1;
        while (j < r.samples.size() && r.samples[j].taskName == a.taskName &&
               r.samples[j].function == a.function && r.samples[j].module == a.module &&
               r.samples[j].context == a.context && r.samples[j].cck >= r.samples[j - 1].cck)
            ++j;
        const double start = double(a.cck) * usPerCck;
        const AttributedSample& last = r.samples[j - 1];
        const double end = (double(last.cck) + (r.precise ? double(last.weight) : period)) * usPerCck;
        events.push_back({{"ph", "X"},
                          {"name", a.function.empty() ? a.module : a.function},
                          {"cat", a.module},
                          {"pid", 1},
                          {"tid", tid(a.taskName)},
                          {"ts", start},
                          {"dur", end - start},
                          {"args", {{"module", a.module}, {"context", a.context}, {"samples", j - i}}}});
        if (r.precise) {
            std::uint64_t cck = 0;
            for (std::size_t k = i; k < j; ++k) cck += r.samples[k].weight;
            events.back()["args"]["cck"] = cck;
        }
        i = j;
    }
    return json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

std::string tableText(const SystemReport& r, unsigned top) {
    std::ostringstream o;
    const double n = double(std::max<std::uint64_t>(r.total, 1));
    const auto pct = [n](std::uint64_t k) {
        char b[16];
        std::snprintf(b, sizeof b, "%6.2f%%", 100.0 * double(k) / n);
        return std::string(b);
    };
    if (r.precise)
        o << r.samples.size() << " precise samples, " << r.total << " colour clocks (exact: shares of time)";
    else
        o << r.samples.size() << " samples at " << r.header.hz << " Hz";
    if (!r.samples.empty()) {
        const double span =
            double(r.samples.back().cck + (r.precise ? r.samples.back().weight : 0) - r.samples.front().cck) /
            r.header.cckPerSecond;
        char b[64];
        std::snprintf(b, sizeof b, " over %.2f emulated s", span);
        o << b;
    }
    o << "\n";
    o << "idle (STOP with SR $2000) " << pct(r.idle) << "   disabled (Disable) " << pct(r.disabled)
      << "   forbidden (Forbid) " << pct(r.forbidden) << "\n";
    for (unsigned l = 1; l < 8; ++l)
        if (r.irq[l]) o << "interrupt L" << l << " " << pct(r.irq[l]) << "\n";
    const auto ranked = [&](const std::map<std::string, std::uint64_t>& m, const char* title) {
        std::vector<std::pair<std::uint64_t, std::string>> v;
        for (const auto& [k, c] : m) v.emplace_back(c, k);
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        o << "\n" << title << "\n";
        for (std::size_t i = 0; i < v.size() && i < top; ++i)
            o << pct(v[i].first) << " " << std::to_string(v[i].first) << "  " << v[i].second << "\n";
    };
    ranked(r.tasks, "tasks");
    ranked(r.contexts, "contexts");
    ranked(r.modules, "modules");
    ranked(r.functions, "functions");
    return o.str();
}

std::vector<KernelRange> parseKernelRanges(const std::string& text) {
    std::vector<KernelRange> out;
    std::istringstream in(text);
    std::string line;
    unsigned number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.rfind("kernel ", 0) != 0) continue;
        std::istringstream w(line);
        std::string word, name, start, end, lines;
        w >> word >> name >> start >> end >> lines;
        const auto hex = [&](const std::string& s) {
            std::string t = s;
            if (!t.empty() && t[0] == '$') t = t.substr(1);
            else if (t.rfind("0x", 0) == 0) t = t.substr(2);
            std::size_t used = 0;
            unsigned long v = 0;
            try {
                v = std::stoul(t, &used, 16);
            } catch (const std::exception&) {
                used = 0;
            }
            if (t.empty() || used != t.size() || v > 0xFFFFFF)
                throw std::runtime_error("line " + std::to_string(number) + ": '" + s +
                                         "' is not a 24-bit address ($XXXXXX)");
            return std::uint32_t(v);
        };
        KernelRange k;
        k.name = name;
        if (name.empty() || lines.empty())
            throw std::runtime_error("line " + std::to_string(number) +
                                     ": wants 'kernel NAME $START $END LINES', not '" + line + "'");
        k.start = hex(start);
        k.end = hex(end);
        try {
            // Decimal, or $hex as profspin prints it.
            const bool isHex = !lines.empty() && lines[0] == '$';
            const std::string digits = isHex ? lines.substr(1) : lines;
            std::size_t used = 0;
            k.lines = std::stoull(digits, &used, isHex ? 16 : 10);
            if (digits.empty() || used != digits.size()) throw std::invalid_argument("");
        } catch (const std::exception&) {
            throw std::runtime_error("line " + std::to_string(number) + ": '" + lines +
                                     "' is not a count of raster lines");
        }
        if (k.end <= k.start)
            throw std::runtime_error("line " + std::to_string(number) + ": kernel " + name +
                                     " ends before it starts");
        out.push_back(k);
    }
    if (out.empty()) throw std::runtime_error("no 'kernel NAME $START $END LINES' line");
    return out;
}

ContainResult checkContainment(const SystemSampleFile& f, const std::vector<KernelRange>& kernels,
                               const std::function<std::uint16_t(std::uint32_t)>& readWord,
                               double tolerance) {
    ContainResult r;
    std::ostringstream o;
    std::vector<std::set<std::uint32_t>> starts(kernels.size());
    for (std::size_t k = 0; k < kernels.size(); ++k)
        for (std::uint32_t pc = kernels[k].start; pc < kernels[k].end;) {
            starts[k].insert(pc);
            const DisasmResult d = disassemble(pc, readWord);
            pc += std::max<std::uint32_t>(d.length, 2);
        }
    std::vector<std::uint64_t> in(kernels.size()), off(kernels.size());
    for (const SystemSample& s : f.samples)
        for (std::size_t k = 0; k < kernels.size(); ++k)
            if (s.pc >= kernels[k].start && s.pc < kernels[k].end) {
                if (starts[k].count(s.pc)) ++in[k];
                else ++off[k];
                break;
            }
    std::uint64_t samples = 0, lines = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        samples += in[k] + off[k];
        lines += kernels[k].lines;
    }
    char b[256];
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        const std::uint64_t n = in[k] + off[k];
        const double sampleShare = samples ? double(n) / double(samples) : 0;
        const double timeShare = lines ? double(kernels[k].lines) / double(lines) : 0;
        const bool contained = off[k] == 0 && n > 0;
        const bool proportional = n > 0 && std::fabs(sampleShare - timeShare) <= tolerance;
        std::snprintf(b, sizeof b,
                      "kernel %s $%06X-$%06X: %llu samples, %llu between instructions; %.2f%% of "
                      "the kernels' samples, %.2f%% of their time: %s, %s\n",
                      kernels[k].name.c_str(), kernels[k].start, kernels[k].end,
                      static_cast<unsigned long long>(n), static_cast<unsigned long long>(off[k]),
                      100 * sampleShare, 100 * timeShare, contained ? "contained" : "NOT CONTAINED",
                      proportional ? "proportional" : "NOT PROPORTIONAL");
        o << b;
        r.failures += off[k] + (n == 0 ? 1 : 0) + (proportional ? 0 : 1);
    }
    o << "containment and proportionality: " << r.failures << " failures, "
      << (r.failures ? "FAIL" : "PASS") << "\n";
    r.text = o.str();
    return r;
}

} // namespace copperline
