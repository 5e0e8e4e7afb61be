// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/sample_report.h"

#include "emu/media/byte_reader.h"
#include "profiler/amigaos/code_namer.h"
#include "profiler/json_address.h"
#include "profiler/sampling/system_samples.h"
#include "profiler/sampling/sample_reader.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <unordered_map>

namespace copperline {

namespace fs = std::filesystem;
using nlohmann::json;
namespace sf = samples_format;

namespace {

[[noreturn]] void bad(const std::string& what) { throw MediaError(what); }

std::uint32_t hexField(const json& j, const char* key, const std::string& where) {
    if (!j.contains(key)) bad(where + ": no " + key);
    if (const auto a = jsonAddress(j[key])) return *a;
    bad(where + "." + key + ": " + j[key].dump() + " is not an address");
}

// How the capture wrote its PCs, and how to name them.
struct Symbolizer {
    const DebugInfo& info;
    std::optional<HunkBases> bases;
    bool textRelative = false;
    std::uint32_t textSize = 0;
    CodeNamer namer;
    // PC word (and whether it is a return address) -> its frames, root first, whether it
    // lies in the program, and for a return address in the program, the place of the call.
    struct Entry {
        std::vector<CallFrame> frames;
        bool inProgram = false;
        std::string callFile;
        int callLine = -1; // 0-based, -1 unknown
    };
    std::unordered_map<std::uint64_t, Entry> cache;

    explicit Symbolizer(const DebugInfo& i) : info(i) {}

    // `absolute`: an address (a .meta row's place), never a text-relative stream word.
    const Entry& at(std::uint32_t word, bool caller, bool absolute = false) {
        const std::uint64_t key = std::uint64_t(word) << 2 | (caller ? 1 : 0) | (absolute ? 2 : 0);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
        return cache.emplace(key, symbolize(word, caller, absolute)).first->second;
    }

    Entry symbolize(std::uint32_t word, bool caller, bool absolute) const {
        Entry e;
        std::optional<std::pair<std::uint32_t, std::uint32_t>> where;
        if (textRelative && !absolute && word < textSize)
            where = std::pair<std::uint32_t, std::uint32_t>{0, word};
        else if (bases)
            where = bases->find(word & 0xFFFFFF);
        if (where) {
            e.inProgram = true;
            auto [hunk, offset] = *where;
            // A caller's entry is its return address: the call is the instruction before it.
            if (caller && offset >= 2) offset -= 2;
            const auto frames = info.frames(info.lookup(hunk, offset));
            if (!frames.empty() && frames.front().file != kNoFile && frames.front().line) {
                e.callFile = info.fileName(frames.front().file);
                e.callLine = int(frames.front().line) - 1;
            }
            if (frames.empty() || !frames.front().scope) {
                e.frames.push_back({"[hunk " + std::to_string(hunk) + "]", "", -1, -1});
                return e;
            }
            for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
                if (!f->scope) continue;
                CallFrame c;
                c.functionName = f->scope->name;
                if (f->scope->file != kNoFile) c.url = info.fileName(f->scope->file);
                c.lineNumber = f->scope->line ? int(f->scope->line) - 1 : -1;
                e.frames.push_back(std::move(c));
            }
            return e;
        }
        // Everything else by the one naming of code outside the program.
        e.frames.push_back({namer.name(word & 0xFFFFFF).label(), "", -1, -1});
        return e;
    }
};

// What the one naming of system code says of an address it cannot name.
bool unnamedSystemFrame(const CallFrame& f) {
    return f.functionName == kExternalNode || f.functionName == kKickstartNode;
}

// One tree being built from samples in time order.
class TreeBuilder {
public:
    TreeBuilder(Symbolizer& s, const std::unordered_map<std::uint32_t, std::string>& taskNames)
        : sym_(s), taskNames_(taskNames) {}

    void add(const SampleView& s) {
        // The interrupt level being served (the .meta's context, version 2).
        const bool known = s.meta.context & sf::kContextKnown;
        const unsigned served = known ? (s.meta.context >> sf::kContextLevelShift) & 7 : 0;
        if (s.isIrq()) {
            // The entry (acknowledge and stacking) belongs to the routine it runs: the
            // handler the vector points to (the .meta row's place, version 2).
            const unsigned level = s.meta.irqLevel & 7;
            handlers_[level] = {s.meta.irqVector, known && s.meta.pc ? std::optional<std::uint32_t>(s.meta.pc)
                                                                      : std::nullopt};
            sample(interruptNode(level), s.meta.totalCck);
            return;
        }
        if (s.isStopped()) {
            // A STOP in the program is its function's; anywhere else the CPU is idle.
            if (sym_.at(s.stack.front(), false).inProgram) {
                sample(childOf(stoppedNodes_, leafOf(s.stack, ProfileTree::kRoot), kStoppedNode), s.meta.totalCck);
                return;
            }
            sample(idleNode(known ? s.meta.task : 0), s.meta.totalCck);
            return;
        }
        const ProfileTree::NodeId leaf = leafOf(s.stack, served ? interruptNode(served) : ProfileTree::kRoot);
        sample(leaf, s.meta.instructionCck);
        if (s.meta.waitCck) sample(childOf(waitNodes_, leaf, kBusWaitNode), s.meta.waitCck);
    }

    ProfileTree finish() {
        flush();
        return std::move(tree_);
    }

    void inheritHandlers(const TreeBuilder& other) { handlers_ = other.handlers_; }

private:
    // [IRQ] > "level L, vector V" > the handler, the routine the interrupt runs: where its
    // entry and its code go.
    ProfileTree::NodeId interruptNode(unsigned level) {
        const Handler h = handlers_.count(level) ? handlers_[level] : Handler{};
        const std::uint64_t key = std::uint64_t(level) << 56 | std::uint64_t(h.vector & 0xFFFFFF) << 32 |
                                  (h.pc ? *h.pc | 0x80000000u : 0);
        if (auto it = irqNodes_.find(key); it != irqNodes_.end()) return it->second;
        if (!irqRoot_) irqRoot_ = tree_.child(ProfileTree::kRoot, {kIrqNode, "", -1, -1});
        ProfileTree::NodeId node = tree_.child(
            *irqRoot_, {"level " + std::to_string(level) +
                            (h.vector != sf::kNotIrq ? ", vector " + std::to_string(h.vector) : std::string()),
                        "", -1, -1});
        if (h.pc) {
            const Symbolizer::Entry& e = sym_.at(*h.pc, false, true);
            if (!e.inProgram && unnamedSystemFrame(e.frames.front()))
                // A handler no module names (AROS's vector stubs live in RAM): the routine the
                // vector points to, by its vector.
                node = tree_.child(node, {"[handler of vector " + std::to_string(h.vector) + "]", "", -1, -1});
            else
                for (const CallFrame& f : e.frames) node = tree_.child(node, f);
        }
        irqNodes_.emplace(key, node);
        return node;
    }

    ProfileTree::NodeId idleNode(std::uint32_t task) {
        if (auto it = idleNodes_.find(task); it != idleNodes_.end()) return it->second;
        if (!idleRoot_) idleRoot_ = tree_.child(ProfileTree::kRoot, {kIdleNode, "", -1, -1});
        ProfileTree::NodeId node = *idleRoot_;
        if (const auto name = taskNames_.find(task); task && name != taskNames_.end())
            node = tree_.child(node, {"[task " + (name->second.empty() ? "(unnamed)" : name->second) + "]", "", -1, -1});
        idleNodes_.emplace(task, node);
        return node;
    }

    // The node a stack ends at, below `start`. (The sampler gives code outside the program
    // the program's stack as its callers when the program called it, and the function it
    // entered between them: no guess is needed here.)
    ProfileTree::NodeId leafOf(std::span<const std::uint32_t> stack, ProfileTree::NodeId start) {
        // Most stacks are a PC alone (no unwind table, or code outside the program): one
        // lookup by the PC.
        const std::uint64_t singleKey = std::uint64_t(start) << 32 | (stack.size() == 1 ? stack[0] : 0);
        if (stack.size() == 1)
            if (auto it = single_.find(singleKey); it != single_.end()) return it->second;
        key_.assign(reinterpret_cast<const char*>(&start), sizeof start);
        key_.append(reinterpret_cast<const char*>(stack.data()), stack.size() * 4);
        if (auto it = nodes_.find(key_); it != nodes_.end()) return it->second;
        ProfileTree::NodeId node = start;
        // Whether the node is system code (a function the program entered, an interrupt's
        // routine) rather than the program's or the root.
        bool inSystem = start != ProfileTree::kRoot;
        const Symbolizer::Entry* previous = nullptr;
        for (std::size_t i = stack.size(); i-- > 0;) {
            const Symbolizer::Entry& e = sym_.at(stack[i], i > 0);
            for (CallFrame f : e.frames) {
                if (!e.inProgram) {
                    // A frame that repeats its parent's name (the leaf inside the function
                    // that was entered, a handler's own code) is the same node, and code no
                    // module names, below system code, is that code's own time.
                    if (inSystem && (tree_.node(node).frame.functionName == f.functionName ||
                                     unnamedSystemFrame(f)))
                        continue;
                    // Code outside the program shows where the program called it.
                    if (previous && previous->inProgram && previous->callLine >= 0) {
                        f.url = previous->callFile;
                        f.lineNumber = previous->callLine;
                    }
                }
                node = tree_.child(node, f);
                inSystem = !e.inProgram;
            }
            previous = &e;
        }
        nodes_.emplace(key_, node);
        if (stack.size() == 1) single_.emplace(singleKey, node);
        return node;
    }

    // The [Bus wait] or [Stopped] child of a node, looked up once.
    ProfileTree::NodeId childOf(std::unordered_map<ProfileTree::NodeId, ProfileTree::NodeId>& cache,
                                ProfileTree::NodeId parent, const char* name) {
        auto it = cache.find(parent);
        if (it == cache.end()) it = cache.emplace(parent, tree_.child(parent, {name, "", -1, -1})).first;
        return it->second;
    }

    void sample(ProfileTree::NodeId node, std::uint64_t cck) {
        if (!cck) return;
        if (pendingCck_ && node != pendingNode_) flush();
        pendingNode_ = node;
        pendingCck_ += cck;
    }
    void flush() {
        if (pendingCck_) tree_.addSample(pendingNode_, pendingCck_);
        pendingCck_ = 0;
    }

    struct Handler {
        std::uint32_t vector = sf::kNotIrq;
        std::optional<std::uint32_t> pc;
    };

    Symbolizer& sym_;
    const std::unordered_map<std::uint32_t, std::string>& taskNames_;
    ProfileTree tree_;
    std::unordered_map<std::string, ProfileTree::NodeId> nodes_;
    std::unordered_map<std::uint64_t, ProfileTree::NodeId> single_;
    std::unordered_map<ProfileTree::NodeId, ProfileTree::NodeId> waitNodes_, stoppedNodes_;
    std::unordered_map<std::uint64_t, ProfileTree::NodeId> irqNodes_;
    std::unordered_map<std::uint32_t, ProfileTree::NodeId> idleNodes_;
    std::unordered_map<unsigned, Handler> handlers_;
    std::optional<ProfileTree::NodeId> irqRoot_, idleRoot_;
    std::string key_;
    ProfileTree::NodeId pendingNode_ = ProfileTree::kRoot;
    std::uint64_t pendingCck_ = 0;
};

} // namespace

SampleReport buildSampleReport(const CaptureFiles& capture, const DebugInfo& info,
                               const SampleReportOptions& options) {
    const std::string dir = capture.dir;
    const json& summary = capture.summary;
    if (!summary.is_object())
        bad(dir + ": no profile.json: the capture did not finish (profile.stop, or its frame "
                  "budget, writes it)");
    if (!summary.contains("sampling") || !summary["sampling"].is_object())
        bad(dir + ": the capture has no precise samples: it was made without \"samples\": true");
    const json& sampling = summary["sampling"];
    const bool registers = sampling.value("registers", false);

    Symbolizer sym(info);
    const auto& hunks = info.hunks();
    // The program must be the one that was profiled.
    if (sampling.contains("hunks") && sampling["hunks"].is_array()) {
        const json& recorded = sampling["hunks"];
        if (recorded.size() != hunks.size())
            bad(info.programPath() + " is not the program profiled in " + dir + ": it has " +
                std::to_string(hunks.size()) + " hunk(s), the profiled one had " + std::to_string(recorded.size()));
        for (std::size_t i = 0; i < hunks.size(); ++i) {
            const std::uint32_t size = hexField(recorded[i], "size", "sampling.hunks[" + std::to_string(i) + "]");
            if (size != hunks[i].size)
                bad(info.programPath() + " is not the program profiled in " + dir + ": its hunk " +
                    std::to_string(i) + " is " + std::to_string(hunks[i].size) + " bytes, the profiled one's was " +
                    std::to_string(size));
        }
    }
    if (options.bases) {
        if (options.bases->size() != hunks.size())
            bad(std::to_string(options.bases->size()) + " base(s) given for " + info.programPath() + "'s " +
                std::to_string(hunks.size()) + " hunk(s)");
        sym.bases.emplace(info, *options.bases);
    } else if (sampling.contains("relocation_bases") && sampling["relocation_bases"].is_array() &&
        !sampling["relocation_bases"].empty()) {
        std::vector<std::uint32_t> b;
        for (std::size_t i = 0; i < sampling["relocation_bases"].size(); ++i)
            b.push_back(hexField(json{{"base", sampling["relocation_bases"][i]}}, "base",
                                 "sampling.relocation_bases[" + std::to_string(i) + "]"));
        if (b.size() != hunks.size())
            bad(dir + ": relocation_bases has " + std::to_string(b.size()) + " base(s) but " + info.programPath() +
                " has " + std::to_string(hunks.size()) + " hunk(s): is it the program that was profiled?");
        sym.bases.emplace(info, std::move(b));
    }
    if (const auto text = samplesText(sampling, dir)) {
        sym.textRelative = true;
        sym.textSize = text->size;
        if (hunks.empty() || sym.textSize > ((hunks[0].size + 3) & ~3u))
            bad(dir + ": the samples' text is " + std::to_string(sym.textSize) + " bytes but " +
                info.programPath() + "'s first hunk is " + std::to_string(hunks.empty() ? 0 : hunks[0].size) +
                " bytes: is it the program that was profiled?");
    }
    // Code outside the program: the modules the sampler read at the capture's start and end
    // (their functions' ends measured), or, for a capture without them, rom_symbols.
    const fs::path modulesFile = fs::path(dir) / sf::kModulesFile;
    std::string cutModules; // a cut system-modules.bin: the start's modules stand
    std::error_code ec;
    if (fs::is_regular_file(modulesFile, ec)) {
        try {
            std::string cut;
            sym.namer = CodeNamer(readSystemSamples(modulesFile.string(), &cut).modules);
            if (!cut.empty()) cutModules = std::string(sf::kModulesFile) + ": " + cut;
        } catch (const std::exception& e) {
            bad(modulesFile.string() + ": " + e.what());
        }
    } else if (summary.contains("rom_symbols") && summary["rom_symbols"].is_object()) {
        sym.namer = CodeNamer(codeModulesFromSnapshot(romSymbolsFromJson(summary["rom_symbols"])));
    }
    // The tasks' names, from the frame records.
    std::unordered_map<std::uint32_t, std::string> taskNames;
    for (const json& r : capture.frames)
        if (r.contains("samples_tasks") && r["samples_tasks"].is_array())
            for (const json& t : r["samples_tasks"])
                if (t.is_object() && t.contains("task") && t["task"].is_number_unsigned() && t.contains("name") &&
                    t["name"].is_string())
                    taskNames[t["task"].get<std::uint32_t>()] = t["name"].get<std::string>();

    SampleReport report;
    report.cckHz = summary.value("machine", json::object()).value("cck_hz", 3546895.0);
    report.dropped = summary.value("samples_dropped", std::uint64_t(0));
    if (report.dropped)
        report.warnings.push_back("the capture dropped " + std::to_string(report.dropped) +
                                  " sample(s) when its buffer was full: this profile is incomplete, "
                                  "its totals too");
    if (!cutModules.empty()) report.warnings.push_back(cutModules);
    TreeBuilder merged(sym, taskNames);
    for (const json& r : capture.frames) {
        if (!r.contains("samples")) continue;
        const std::string where = "profile.jsonl frame " + std::to_string(r.value("frame", 0ull));
        if (!r["samples"].is_string() || !r.contains("samples_meta") || !r["samples_meta"].is_string())
            bad(dir + ": " + where + ": malformed samples fields");
        const std::string bin = r["samples"].get<std::string>(), meta = r["samples_meta"].get<std::string>();
        for (const std::string& n : {bin, meta})
            if (n.find('/') != std::string::npos || n.empty() || n[0] == '.')
                bad(dir + ": " + where + ": '" + n + "' is not a file of the capture folder");
        std::optional<TreeBuilder> frame;
        if (options.perFrame) {
            frame.emplace(sym, taskNames);
            // An interrupt served across the frame's start runs the routine its entry, in an
            // earlier frame, went to.
            frame->inheritHandlers(merged);
        }
        std::uint64_t frameCck = 0;
        const std::size_t count = forEachSampleIn(
            (fs::path(dir) / bin).string(), (fs::path(dir) / meta).string(), registers, [&](const SampleView& s) {
                merged.add(s);
                if (frame) frame->add(s);
                frameCck += s.meta.totalCck;
                if (s.isIrq())
                    report.irqCck += s.meta.totalCck;
                else if (s.isStopped())
                    report.stoppedCck += s.meta.totalCck;
                else {
                    report.instructionCck += s.meta.instructionCck;
                    report.waitCck += s.meta.waitCck;
                }
            });
        if (r.contains("samples_count") && r["samples_count"] != count)
            bad(dir + "/" + bin + ": holds " + std::to_string(count) + " samples but profile.jsonl says " +
                r["samples_count"].dump());
        if (r.contains("samples_cck") && r["samples_cck"] != frameCck)
            bad(dir + "/" + bin + ": its samples cost " + std::to_string(frameCck) + " CCK but profile.jsonl says " +
                r["samples_cck"].dump());
        report.samples += count;
        report.cck += frameCck;
        ++report.frameCount;
        if (frame)
            report.frames.push_back({r.value("seq", 0ull), r.value("frame", 0ull), frame->finish(), frameCck});
    }
    if (!report.frameCount) bad(dir + ": no frame record of profile.jsonl has samples");
    report.merged = merged.finish();
    report.unnamed = unnamedShare(report.merged);
    for (const auto& [name, cck] : report.unnamed) report.unnamedCck += cck;
    for (ProfileTree::NodeId id = 0; id < report.merged.size(); ++id)
        if (report.merged.node(id).frame.functionName == kKickstartNode) report.romOutsideCck += report.merged.node(id).self;
    return report;
}

std::map<std::string, std::uint64_t> unnamedShare(const ProfileTree& tree) {
    std::map<std::string, std::uint64_t> out;
    for (ProfileTree::NodeId id = 0; id < tree.size(); ++id) {
        const ProfileTree::Node& n = tree.node(id);
        if (!n.self) continue;
        const std::string& name = n.frame.functionName;
        if (id == ProfileTree::kRoot || name == kIrqNode || name.rfind("level ", 0) == 0 || name == kExternalNode ||
            name.rfind("[hunk ", 0) == 0)
            out[id == ProfileTree::kRoot ? "(root)" : name] += n.self;
    }
    return out;
}

CpuProfileOptions sampleProfileOptions(const SampleReport& report, const std::string& program) {
    CpuProfileOptions o;
    o.microsecondsPerWeight = 1e6 / report.cckHz;
    o.annotation = {{"weight", "cck"},
                    {"program", program},
                    {"frames", report.frameCount},
                    {"samples", report.samples},
                    {"cck", report.cck},
                    {"instruction_cck", report.instructionCck},
                    {"wait_cck", report.waitCck},
                    {"irq_cck", report.irqCck},
                    {"stopped_cck", report.stoppedCck},
                    {"samples_dropped", report.dropped},
                    {"unnamed_cck", report.unnamedCck},
                    {"rom_outside_modules_cck", report.romOutsideCck},
                    {"cck_hz", report.cckHz}};
    return o;
}

} // namespace copperline
