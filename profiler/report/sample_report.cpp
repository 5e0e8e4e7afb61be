#include "profiler/report/sample_report.h"

#include "emu/media/byte_reader.h"
#include "profiler/amigaos/rom_namer.h"
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
    const json& v = j[key];
    if (v.is_number_unsigned()) return v.get<std::uint32_t>();
    if (!v.is_string()) bad(where + "." + key + ": not an address");
    const std::string s = v.get<std::string>();
    try {
        std::size_t used = 0;
        const unsigned long n = std::stoul(s, &used, 0);
        if (used != s.size() || n > 0xFFFFFFFFul) throw std::invalid_argument(s);
        return std::uint32_t(n);
    } catch (const std::exception&) {
        bad(where + "." + key + ": '" + s + "' is not an address");
    }
}

bool isRom(std::uint32_t pc) {
    return (pc >= 0xF80000 && pc < 0x1000000) || (pc >= 0xE00000 && pc < 0xE80000);
}

// How the capture wrote its PCs, and how to name them.
struct Symbolizer {
    const DebugInfo& info;
    std::optional<HunkBases> bases;
    bool textRelative = false;
    std::uint32_t textSize = 0;
    std::unique_ptr<RomNamer> rom;
    // PC word (and whether it is a return address) -> its frames, root first, and whether
    // it lies in the program.
    struct Entry {
        std::vector<CallFrame> frames;
        bool inProgram = false;
    };
    std::unordered_map<std::uint64_t, Entry> cache;

    explicit Symbolizer(const DebugInfo& i) : info(i) {}

    const Entry& at(std::uint32_t word, bool caller) {
        const std::uint64_t key = std::uint64_t(word) << 1 | (caller ? 1 : 0);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
        return cache.emplace(key, symbolize(word, caller)).first->second;
    }

    Entry symbolize(std::uint32_t word, bool caller) const {
        Entry e;
        std::optional<std::pair<std::uint32_t, std::uint32_t>> where;
        if (textRelative && word < textSize)
            where = std::pair<std::uint32_t, std::uint32_t>{0, word};
        else if (bases)
            where = bases->find(word & 0xFFFFFF);
        if (where) {
            e.inProgram = true;
            auto [hunk, offset] = *where;
            // A caller's entry is its return address: the call is the instruction before it.
            if (caller && offset >= 2) offset -= 2;
            const auto frames = info.frames(info.lookup(hunk, offset));
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
        const std::uint32_t pc = word & 0xFFFFFF;
        if (isRom(pc)) {
            std::optional<std::string> name;
            if (rom) name = rom->name(pc);
            e.frames.push_back({name ? *name : std::string(kKickstartNode), "", -1, -1});
            return e;
        }
        e.frames.push_back({kExternalNode, "", -1, -1});
        return e;
    }
};

// One tree being built from samples in time order.
class TreeBuilder {
public:
    explicit TreeBuilder(Symbolizer& s) : sym_(s) {}

    void add(const SampleView& s) {
        if (s.isIrq()) {
            const std::uint64_t key = std::uint64_t(s.meta.irqLevel) << 32 | s.meta.irqVector;
            auto it = irqNodes_.find(key);
            if (it == irqNodes_.end()) {
                const auto irq = tree_.child(ProfileTree::kRoot, {kIrqNode, "", -1, -1});
                it = irqNodes_
                         .emplace(key, tree_.child(irq, {"level " + std::to_string(s.meta.irqLevel) + ", vector " +
                                                             std::to_string(s.meta.irqVector),
                                                         "", -1, -1}))
                         .first;
            }
            sample(it->second, s.meta.totalCck);
            return;
        }
        const ProfileTree::NodeId leaf = leafOf(s.stack).first;
        if (s.isStopped()) {
            sample(childOf(stoppedNodes_, leaf, kStoppedNode), s.meta.totalCck);
            return;
        }
        sample(leaf, s.meta.instructionCck);
        if (s.meta.waitCck) sample(childOf(waitNodes_, leaf, kBusWaitNode), s.meta.waitCck);
    }

    ProfileTree finish() {
        flush();
        return std::move(tree_);
    }

private:
    // The node a stack ends at. (The sampler gives code outside the program the program's
    // stack as its callers when the program called it: no guess is needed here.)
    std::pair<ProfileTree::NodeId, bool> leafOf(std::span<const std::uint32_t> stack) {
        // Most stacks are a PC alone (no unwind table, or a leaf outside the program): one
        // lookup by the PC.
        if (stack.size() == 1) {
            if (auto it = single_.find(stack[0]); it != single_.end()) return it->second;
        }
        const bool leafInProgram = sym_.at(stack.front(), false).inProgram;
        const ProfileTree::NodeId start = ProfileTree::kRoot;
        key_.assign(reinterpret_cast<const char*>(&start), sizeof start);
        key_.append(reinterpret_cast<const char*>(stack.data()), stack.size() * 4);
        if (auto it = nodes_.find(key_); it != nodes_.end()) return {it->second, leafInProgram};
        ProfileTree::NodeId node = start;
        for (std::size_t i = stack.size(); i-- > 0;)
            for (const CallFrame& f : sym_.at(stack[i], i > 0).frames) node = tree_.child(node, f);
        nodes_.emplace(key_, node);
        if (stack.size() == 1) single_.emplace(stack[0], std::pair<ProfileTree::NodeId, bool>{node, leafInProgram});
        return {node, leafInProgram};
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

    Symbolizer& sym_;
    ProfileTree tree_;
    std::unordered_map<std::string, ProfileTree::NodeId> nodes_;
    std::unordered_map<std::uint32_t, std::pair<ProfileTree::NodeId, bool>> single_;
    std::unordered_map<ProfileTree::NodeId, ProfileTree::NodeId> waitNodes_, stoppedNodes_;
    std::unordered_map<std::uint64_t, ProfileTree::NodeId> irqNodes_;
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
    if (sampling.contains("relocation_bases") && sampling["relocation_bases"].is_array() &&
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
    const json layouts = sampling.value("layouts", json::object());
    sym.textRelative = layouts.value("samples", json::object()).value("text_relative", false);
    if (sym.textRelative) {
        if (!sampling.contains("unwind") || !sampling["unwind"].is_object())
            bad(dir + ": profile.json says its PCs are text-relative but records no unwind text");
        sym.textSize = hexField(sampling["unwind"], "size", "sampling.unwind");
        if (hunks.empty() || sym.textSize > ((hunks[0].size + 3) & ~3u))
            bad(dir + ": the unwind table covers " + std::to_string(sym.textSize) + " bytes of text but " +
                info.programPath() + "'s first hunk is " + std::to_string(hunks.empty() ? 0 : hunks[0].size) +
                " bytes: is it the program that was profiled?");
    }
    if (summary.contains("rom_symbols") && summary["rom_symbols"].is_object())
        sym.rom = std::make_unique<RomNamer>(romSymbolsFromJson(summary["rom_symbols"]));

    SampleReport report;
    report.cckHz = summary.value("machine", json::object()).value("cck_hz", 3546895.0);
    report.dropped = summary.value("samples_dropped", std::uint64_t(0));
    if (report.dropped)
        report.warnings.push_back("the capture dropped " + std::to_string(report.dropped) +
                                  " sample(s) when its buffer was full: this profile is incomplete, "
                                  "its totals too");
    TreeBuilder merged(sym);
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
        if (options.perFrame) frame.emplace(sym);
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
    return report;
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
                    {"cck_hz", report.cckHz}};
    return o;
}

} // namespace copperline
