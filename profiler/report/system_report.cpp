#include "profiler/report/system_report.h"

#include "emu/cpu/disasm/disasm.h"
#include "profiler/amigaos/lvo_names.h"
#include "profiler/debuginfo/debug_info.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

namespace copperline {

using nlohmann::json;
namespace sf = sampler_format;

namespace {

bool inRom(std::uint32_t a) { return (a >= 0xF80000 && a <= 0xFFFFFF) || (a >= 0xE00000 && a < 0xE80000); }

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

// The modules as the report names them: those written at the capture's end first (a
// library loaded during the capture is there), then those of its start that the end no
// longer has (expunged). Libraries and devices in RAM come before the resident modules
// and ROM libraries, so a module loaded from disk wins over the ROM's ranges.
struct Modules {
    std::vector<const SystemSampleModule*> ram, romResidents, romLibraries;
    std::vector<std::pair<std::uint32_t, const SystemSampleModule*>> romTargets; // LVO targets in ROM

    explicit Modules(const SystemSampleFile& f) {
        std::set<std::pair<std::string, std::uint32_t>> seen;
        for (int pass = 0; pass < 2; ++pass)
            for (const SystemSampleModule& m : f.modules) {
                if (m.atEnd != (pass == 0)) continue;
                if (!seen.insert({m.name, m.base}).second) continue;
                if (!inRom(m.start)) ram.push_back(&m);
                else if (m.kind == sf::ModuleKind::Resident) romResidents.push_back(&m);
                else romLibraries.push_back(&m);
                if (m.kind != sf::ModuleKind::Resident)
                    for (const auto& [lvo, target] : m.lvos)
                        if (inRom(target)) romTargets.emplace_back(target, &m);
            }
        std::sort(romTargets.begin(), romTargets.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
    }

    // The LVO function of `m` at or below `a` within m's own targets.
    static std::string lvoFunction(const SystemSampleModule& m, std::uint32_t a) {
        int best = 0;
        std::uint32_t at = 0;
        for (const auto& [lvo, target] : m.lvos)
            if (target <= a && (target > at || !best)) {
                at = target;
                best = lvo;
            }
        if (!best) return {};
        return std::string(lvoName(m.name, best));
    }

    // (module, function) of an address outside the program.
    std::pair<std::string, std::string> name(std::uint32_t a) const {
        for (const SystemSampleModule* m : ram)
            if (a >= m->start && a < m->end) return {m->name, lvoFunction(*m, a)};
        // In ROM: the resident module whose RomTag..EndSkip holds it, then the function by
        // the ROM's jump-table targets inside that module.
        for (const SystemSampleModule* r : romResidents)
            if (a >= r->start && a < r->end) {
                std::string fn;
                auto it = std::upper_bound(romTargets.begin(), romTargets.end(), a,
                                           [](std::uint32_t v, const auto& t) { return v < t.first; });
                if (it != romTargets.begin()) {
                    --it;
                    // A function of another library this module holds says whose it is.
                    const SystemSampleModule& owner = *it->second;
                    if (it->first >= r->start) {
                        fn = lvoFunction(owner, a);
                        if (owner.name != r->name) fn = shortName(owner) + "/" + fn;
                    }
                }
                return {r->name, fn};
            }
        for (const SystemSampleModule* m : romLibraries)
            if (a >= m->start && a < m->end) return {m->name, lvoFunction(*m, a)};
        if (inRom(a)) return {"[Kickstart]", {}};
        return {"unknown", {}};
    }

    static std::string shortName(const SystemSampleModule& m) { return std::string(shortLibraryName(m.name)); }
};

} // namespace

SystemReport buildSystemReport(const SystemSampleFile& f, const SystemReportProgram* program) {
    SystemReport r;
    r.header = f.header;
    const Modules modules(f);
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
        if (!named) std::tie(a.module, a.function) = modules.name(s.pc);
        if (s.idle()) ++r.idle;
        if (s.disabled()) ++r.disabled;
        if (s.forbidden()) ++r.forbidden;
        if (s.stopped()) ++r.stopped;
        ++r.irq[s.irqLevel & 7];
        const std::string fn = a.function.empty() ? a.module : a.function;
        ++r.stacks[clean(a.taskName) + ";" + clean(a.context) + ";" + clean(a.module) + ";" + clean(fn)];
        ++r.modules[a.module];
        ++r.functions[a.module + (a.function.empty() ? "" : " " + a.function)];
        r.samples.push_back(std::move(a));
    }
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
    const double period = double(r.header.cckPerSecond) / double(r.header.hz);
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
        const double end = (double(r.samples[j - 1].cck) + period) * usPerCck;
        events.push_back({{"ph", "X"},
                          {"name", a.function.empty() ? a.module : a.function},
                          {"cat", a.module},
                          {"pid", 1},
                          {"tid", tid(a.taskName)},
                          {"ts", start},
                          {"dur", end - start},
                          {"args", {{"module", a.module}, {"context", a.context}, {"samples", j - i}}}});
        i = j;
    }
    return json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

std::string tableText(const SystemReport& r, unsigned top) {
    std::ostringstream o;
    const double n = double(std::max<std::size_t>(r.samples.size(), 1));
    const auto pct = [n](std::uint64_t k) {
        char b[16];
        std::snprintf(b, sizeof b, "%6.2f%%", 100.0 * double(k) / n);
        return std::string(b);
    };
    o << r.samples.size() << " samples at " << r.header.hz << " Hz";
    if (!r.samples.empty()) {
        const double span = double(r.samples.back().cck - r.samples.front().cck) / r.header.cckPerSecond;
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
