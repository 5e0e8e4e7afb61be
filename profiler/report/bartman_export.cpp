// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/bartman_export.h"

#include "emu/chipset/custom_regs.h"
#include "emu/cpu/disasm/disasm.h"
#include "emu/media/hunk.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "profiler/report/sample_report.h"
#include "profiler/sampling/sample_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace copperline {

namespace fs = std::filesystem;
using nlohmann::json;
namespace sf = samples_format;

namespace {

[[noreturn]] void bad(const std::string& what) { throw MediaError(what); }

std::uint32_t number(const json& v) {
    if (v.is_number_unsigned()) return v.get<std::uint32_t>();
    if (v.is_string()) return std::uint32_t(std::stoul(v.get<std::string>(), nullptr, 0));
    return 0;
}

// What both formats need of a capture, refused by option name when it is not there.
struct Need {
    const CaptureFiles& c;
    bool registers = false;
    bool textRelative = false;
    std::uint32_t textSize = 0;

    Need(const CaptureFiles& capture, bool wantRegisters, const char* format) : c(capture) {
        if (!c.summary.is_object())
            bad(c.dir + ": no profile.json: the capture did not finish (profile.stop writes it)");
        const json& o = c.summary.value("options", json::object());
        std::string missing;
        const auto add = [&missing](const char* option) { missing += (missing.empty() ? " \"" : ", \"") + std::string(option) + "\": true"; };
        if (!c.summary.contains("sampling")) add("samples");
        if (!o.value("slots", false)) add("slots");
        if (!o.value("memory", false)) add("memory");
        registers = c.summary.contains("sampling") && c.summary["sampling"].value("registers", false);
        if (wantRegisters && !registers) add("registers");
        if (!missing.empty())
            bad(c.dir + ": " + format + " needs a capture made with" + missing +
                " (it shows the frames' DMA, the memory and the samples" +
                (wantRegisters ? ", each with its registers)" : ")"));
        const json& sampling = c.summary["sampling"];
        const auto text = samplesText(sampling, c.dir);
        textRelative = text.has_value();
        if (text) textSize = text->size;
    }

    std::string path(const json& r, const char* key) const {
        if (!r.contains(key) || !r[key].is_string()) bad(c.dir + ": frame " + r.value("frame", json(0)).dump() + " has no " + key);
        const std::string n = r[key].get<std::string>();
        if (n.empty() || n.find('/') != std::string::npos || n[0] == '.')
            bad(c.dir + ": '" + n + "' is not a file of the capture folder");
        return (fs::path(c.dir) / n).string();
    }

    // A PC as Bartman's readers take it. With the program's text (the capture unwound it):
    // a text offset or a ROM address, nothing else. Without (a saved state's capture, as
    // WinUAE profiles a state: no text, no unwinding), every PC, absolute.
    bool keepPc(std::uint32_t pc) const {
        if (pc == sf::kIrqMarker) return true;
        if (!textRelative) return pc < sf::kIrqMarker;
        if (pc < textSize) return true;
        return pc >= 0xF80000 && pc < 0x1000000;
    }
};

std::array<std::uint16_t, 256> customRegisters(const json& record) {
    static const std::map<std::string, std::uint16_t> byName = [] {
        std::map<std::string, std::uint16_t> m;
        for (std::uint16_t off = 0; off < 0x200; off += 2)
            if (const char* n = reg::name(off)) m.emplace(n, off);
        return m;
    }();
    std::array<std::uint16_t, 256> regs{};
    const json custom = record.value("registers", json::object()).value("custom", json::object());
    for (const auto& [name, value] : custom.items()) {
        std::uint16_t off;
        if (auto it = byName.find(name); it != byName.end())
            off = it->second;
        else
            off = std::uint16_t(std::stoul(name, nullptr, 0));
        if (off < 0x200) regs[off >> 1] = std::uint16_t(number(value));
    }
    return regs;
}

std::vector<bartman::Resource> resources(const json& summary) {
    std::vector<bartman::Resource> out;
    for (const json& r : summary.value("resources", json::array())) {
        bartman::Resource b;
        b.address = number(r.value("address", json(0)));
        b.size = number(r.value("size", json(0)));
        b.name = r.value("name", std::string());
        b.flags = std::uint16_t(number(r.value("flags", json(0))));
        const std::string kind = r.value("kind", std::string());
        if (kind == "bitmap") {
            b.type = std::uint16_t(bartman::ResourceType::Bitmap);
            b.info = {std::uint16_t(number(r.value("width", json(0)))), std::uint16_t(number(r.value("height", json(0)))),
                      std::uint16_t(number(r.value("planes", json(0)))), 0};
        } else if (kind == "palette") {
            b.type = std::uint16_t(bartman::ResourceType::Palette);
            b.info = {std::uint16_t(number(r.value("entries", json(0)))), 0, 0, 0};
        } else if (kind == "copperlist") {
            b.type = std::uint16_t(bartman::ResourceType::CopperList);
        } else {
            continue;
        }
        out.push_back(std::move(b));
    }
    return out;
}

// One frame's chipset part, shared by both formats.
struct FrameParts {
    std::uint32_t chipsetFlags = bartman::chipset_flag::Full;
    std::array<std::uint16_t, 256> custom{};
    std::vector<bartman::DmaRec> dma;
    std::vector<Sample> samples;
    std::vector<std::uint8_t> screenshot;
    std::uint32_t cycles = 0, idleCycles = 0;
};

FrameParts frameParts(const Need& need, const json& r) {
    FrameParts f;
    f.custom = customRegisters(r);
    f.chipsetFlags = bartman::chipsetFlagsFromCapture(
        unsigned(number(r.value("registers", json::object()).value("chipset_flags", json(0)))));
    const unsigned lines = r.value("lines", 0u), lineCck = r.value("line_cck", 0u);
    const std::vector<SlotRecord> slots = readSlots(need.path(r, "slots"), lines, lineCck);
    std::vector<bartman::CiaAt> cia;
    for (const json& a : r.value("cia_accesses", json::array())) {
        if (!a.is_array() || a.size() != 6)
            bad(need.c.dir + ": frame " + r.value("frame", json(0)).dump() + ": a cia_accesses entry is not [vpos, hpos, chips, reg, write, value]: " + a.dump());
        cia.push_back({number(a[0]), number(a[1]), std::uint8_t(number(a[2])), std::uint8_t(number(a[3]) & 15),
                       number(a[4]) != 0, std::uint16_t(number(a[5]))});
    }
    f.dma = bartman::toBartmanDmaFrame(slots, lineCck, f.custom[0x042 >> 1], cia);
    f.samples = readSamples(need.path(r, "samples"), need.path(r, "samples_meta"), need.registers);
    if (r.contains("screenshot")) f.screenshot = readFileBytes(need.path(r, "screenshot"), 64u << 20);
    f.cycles = 2 * r.value("length_cck", 0u);
    f.idleCycles = 2 * r.value("idle_cck", 0u);
    return f;
}

std::vector<std::uint8_t> memoryFile(const CaptureFiles& c, const char* name) {
    return readFileBytes((fs::path(c.dir) / name).string(), 16u << 20);
}

std::vector<std::uint32_t> sectionBases(const json& summary) {
    std::vector<std::uint32_t> out;
    for (const json& b : summary["sampling"].value("relocation_bases", json::array())) out.push_back(number(b));
    return out;
}

std::uint32_t field(const json& summary, const char* key) {
    return summary.contains(key) && summary[key].is_number() ? summary[key].get<std::uint32_t>() : 0;
}

// A tree weighted in colour clocks as one in CPU cycles.
ProfileTree inCycles(const ProfileTree& t) {
    ProfileTree out;
    std::vector<ProfileTree::NodeId> map(t.size(), ProfileTree::kRoot);
    for (ProfileTree::NodeId id = 0; id < t.size(); ++id)
        for (const auto c : t.node(id).children) map[c] = out.child(map[id], t.node(c).frame);
    for (const auto& s : t.samples()) out.addSample(map[s.node], 2 * s.duration);
    return out;
}

// An instruction's words and text as objdump lists them after the address: "4e75 \trts\n".
void appendInstruction(std::string& out, std::span<const std::uint8_t> bytes, const DisasmResult& d) {
    char buf[8];
    for (std::uint32_t w = 0; w < d.length; w += 2) {
        std::snprintf(buf, sizeof buf, "%02x%02x ", bytes[w], bytes[w + 1]);
        out += buf;
    }
    const std::size_t space = d.text.find_first_of(" \t");
    out += "\t" + (space == std::string::npos ? d.text : d.text.substr(0, space) + " " + d.text.substr(space + 1)) + "\n";
}

// The program's first code hunk as objdump lists it (the extension's disassembly view parses
// that text): text-relative addresses, as the samples' PCs are, a "<name>:" heading where a
// function starts and a "file:line" line where the source line changes.
std::string objdumpText(const DebugInfo& info) {
    HunkFile hunks;
    try {
        hunks = readHunkFile(readFileBytes(info.programPath(), 16u << 20), info.programPath());
    } catch (const MediaError&) {
        return {};
    }
    if (hunks.sections.empty() || hunks.sections[0].kind != HunkKind::Code) return {};
    const std::vector<std::uint8_t>& code = hunks.sections[0].data;
    std::map<std::uint32_t, std::string> starts;
    for (const ScopeRange& r : info.scopeRanges())
        if (r.hunk == 0 && info.scopes()[r.scope].kind == ScopeKind::Function) starts.emplace(r.start, info.scopes()[r.scope].name);
    std::string out;
    std::int32_t lastLine = -2;
    char buf[160];
    for (std::uint32_t off = 0; off + 1 < code.size();) {
        if (auto it = starts.find(off); it != starts.end()) {
            std::snprintf(buf, sizeof buf, "\n%08x <%s>:\n", off, it->second.c_str());
            out += buf;
        }
        const AddressInfo where = info.lookup(0, off);
        if (where.line != lastLine && where.line >= 0) {
            const LineRange& l = info.lineTable()[std::size_t(where.line)];
            out += info.fileName(l.file) + ":" + std::to_string(l.line) + "\n";
        }
        lastLine = where.line;
        const DisasmResult d = disassemble(off, std::span<const std::uint8_t>(code).subspan(off));
        if (d.length == 0) break;
        std::snprintf(buf, sizeof buf, "%8x:\t", off);
        out += buf;
        appendInstruction(out, std::span<const std::uint8_t>(code).subspan(off), d);
        off += d.length;
    }
    return out;
}

// Without a program, the instructions at the samples' PCs in the memory the capture holds
// (chip RAM at $000000, slow RAM at $C00000), as the extension disassembles a saved state's
// trace: one "address:\twords\ttext" line per distinct PC, in address order.
std::string pcTraceText(const std::vector<AmigaProfileFrame>& frames, const std::vector<std::uint8_t>& chip,
                        const std::vector<std::uint8_t>& slow) {
    std::vector<std::uint32_t> pcs;
    for (const AmigaProfileFrame& f : frames)
        for (const PcTraceEntry& e : f.pcTrace) pcs.push_back(e.pc);
    std::sort(pcs.begin(), pcs.end());
    pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
    std::string out;
    char buf[48];
    for (const std::uint32_t pc : pcs) {
        std::span<const std::uint8_t> mem;
        if (pc < chip.size()) mem = std::span<const std::uint8_t>(chip).subspan(pc);
        else if (pc >= 0xC00000 && pc - 0xC00000 < slow.size()) mem = std::span<const std::uint8_t>(slow).subspan(pc - 0xC00000);
        else continue;
        if ((pc & 1) || mem.size() < 2) continue;
        const DisasmResult d = disassemble(pc, mem.first(std::min<std::size_t>(mem.size(), 22)));
        if (d.length == 0 || d.length > mem.size()) continue;
        std::snprintf(buf, sizeof buf, " %x:\t", pc);
        out += buf;
        appendInstruction(out, mem, d);
    }
    return out;
}

} // namespace

AmigaProfileInput amigaProfileFromCapture(const CaptureFiles& capture, const DebugInfo& info,
                                          std::vector<std::string>* warnings) {
    const Need need(capture, false, "--format bartman");
    SampleReportOptions options;
    options.perFrame = true;
    const SampleReport report = buildSampleReport(capture, info, options);
    if (warnings) warnings->insert(warnings->end(), report.warnings.begin(), report.warnings.end());

    AmigaProfileInput in;
    in.chipMem = memoryFile(capture, "chip-ram.bin");
    in.bogoMem = memoryFile(capture, "slow-ram.bin");
    in.objdump = objdumpText(info);
    const json& s = capture.summary;
    in.systemStackLower = field(s, "systemStackLower");
    in.systemStackUpper = field(s, "systemStackUpper");
    in.stackLower = field(s, "stackLower");
    in.stackUpper = field(s, "stackUpper");
    if (s.value("machine", json::object()).value("video", std::string()) == "NTSC") in.baseClock = bartman::kNtscBaseClock;

    // The program: its sections where they were loaded, its functions, and a stack of source
    // lines for every word of its text.
    const std::vector<std::uint32_t> bases = sectionBases(s);
    const auto& hunks = info.hunks();
    for (std::size_t h = 0; h < hunks.size(); ++h)
        in.sections.push_back({hunks[h].section, h < bases.size() ? bases[h] : 0, hunks[h].size});
    for (const ScopeRange& r : info.scopeRanges()) {
        const DebugScope& scope = info.scopes()[r.scope];
        if (scope.kind != ScopeKind::Function || r.hunk >= hunks.size()) continue;
        in.symbols.push_back({scope.name, hunks[r.hunk].section, r.start, r.hunk < bases.size() ? bases[r.hunk] : 0, r.end - r.start});
    }
    std::map<std::string, std::uint32_t> unique; // a line stack's text -> its index
    const auto textIt = std::find_if(in.sections.begin(), in.sections.end(), [](const AmigaSection& x) { return x.name == ".text"; });
    if (textIt != in.sections.end()) {
        const std::uint32_t hunk = std::uint32_t(textIt - in.sections.begin());
        std::vector<std::uint32_t> callFrames;
        std::vector<std::vector<AmigaSourceLine>> uniqueCallFrames;
        for (std::uint32_t off = 0; off < textIt->size; off += 2) {
            std::vector<AmigaSourceLine> lines;
            const auto frames = info.frames(info.lookup(hunk, off));
            for (auto f = frames.rbegin(); f != frames.rend(); ++f)
                lines.push_back({f->scope ? f->scope->name : std::string(kExternalNode),
                                 f->file != kNoFile ? info.fileName(f->file) : std::string(), int(f->line)});
            if (lines.empty()) lines.push_back({"[hunk " + std::to_string(hunk) + "]", "", 0});
            std::string key;
            for (const AmigaSourceLine& l : lines) key += l.func + '\x1f' + l.file + '\x1f' + std::to_string(l.line) + '\x1e';
            auto [it, added] = unique.emplace(key, std::uint32_t(uniqueCallFrames.size()));
            if (added) uniqueCallFrames.push_back(lines);
            callFrames.push_back(it->second);
        }
        // Every frame carries the same tables; the viewer reads them from each.
        for (std::size_t i = 0; i < report.frames.size(); ++i) {
            AmigaProfileFrame f;
            f.uniqueCallFrames = uniqueCallFrames;
            f.callFrames = callFrames;
            in.frames.push_back(std::move(f));
        }
    } else {
        in.frames.resize(report.frames.size());
    }

    const std::vector<bartman::Resource> res = resources(s);
    std::size_t index = 0;
    for (const json& r : capture.frames) {
        if (!r.contains("samples")) continue;
        AmigaProfileFrame& f = in.frames.at(index);
        FrameParts parts = frameParts(need, r);
        f.tree = inCycles(report.frames.at(index).tree);
        f.chipsetFlags = parts.chipsetFlags;
        f.customRegs = parts.custom;
        f.dma = std::move(parts.dma);
        f.resources = res;
        f.idleCycles = parts.idleCycles;
        for (const Sample& x : parts.samples) {
            const std::uint32_t pc = need.keepPc(x.stack.front()) ? x.stack.front() : 0xFFFFFFFF;
            f.pcTrace.push_back({pc, 2 * x.meta.totalCck});
            if (need.registers) {
                std::array<std::uint32_t, bartman::kRegisterCount> regs{};
                std::copy(x.registers.begin(), x.registers.end(), regs.begin());
                f.registerTrace.push_back(regs);
            }
        }
        f.screenshot = std::move(parts.screenshot);
        f.screenshotType = 1;
        ++index;
    }
    if (info.programPath().empty() && !need.textRelative) in.objdump = pcTraceText(in.frames, in.chipMem, in.bogoMem);
    return in;
}

BartmanProfile bartmanProfileFromCapture(const CaptureFiles& capture, std::span<const std::uint8_t> kickRom) {
    const Need need(capture, true, "a Bartman binary profile");
    const json& s = capture.summary;
    if (const std::uint64_t dropped = s.value("samples_dropped", std::uint64_t(0)))
        bad(capture.dir + ": the capture dropped " + std::to_string(dropped) +
            " sample(s); a Bartman binary profile cannot say it is incomplete, so none is written");
    BartmanProfile p;
    p.sectionBases = sectionBases(s);
    p.systemStackLower = field(s, "systemStackLower");
    p.systemStackUpper = field(s, "systemStackUpper");
    p.stackLower = field(s, "stackLower");
    p.stackUpper = field(s, "stackUpper");
    p.kickRom.assign(kickRom.begin(), kickRom.end());
    p.chipMem = memoryFile(capture, "chip-ram.bin");
    p.bogoMem = memoryFile(capture, "slow-ram.bin");
    if (s.value("machine", json::object()).value("video", std::string()) == "NTSC") p.baseClock = bartman::kNtscBaseClock;
    const std::vector<bartman::Resource> res = resources(s);
    for (const json& r : capture.frames) {
        if (!r.contains("samples")) continue;
        FrameParts parts = frameParts(need, r);
        bartman::Frame f;
        f.chipsetFlags = parts.chipsetFlags;
        f.customRegs = parts.custom;
        f.dma = std::move(parts.dma);
        f.resources = res;
        f.profileCycles = parts.cycles;
        f.idleCycles = parts.idleCycles;
        std::vector<ProfileSample> samples;
        samples.reserve(parts.samples.size());
        for (const Sample& x : parts.samples) {
            ProfileSample o;
            for (const std::uint32_t pc : x.stack) {
                if (need.keepPc(pc)) o.stack.push_back(pc);
                else break; // the callers of code Bartman cannot place are not its own
                if (!need.textRelative) break; // a state's samples: the PC alone, as WinUAE's
            }
            o.cycles = 2 * x.meta.totalCck;
            std::copy(x.registers.begin(), x.registers.end(), o.registers.begin());
            samples.push_back(std::move(o));
        }
        f.profileArray = encodeProfileArray(samples);
        f.screenshot = std::move(parts.screenshot);
        f.screenshotType = 1;
        p.frames.push_back(std::move(f));
    }
    if (p.frames.empty()) bad(capture.dir + ": no frame record has samples");
    return p;
}

} // namespace copperline
