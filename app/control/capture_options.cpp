// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/capture_options.h"

#include "app/control/params.h"
#include "emu/base64.h"
#include "emu/hex.h"
#include "emu/machine.h"
#include "profiler/debuginfo/unwind_table.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>

namespace copperline {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

[[noreturn]] void invalid(const std::string& message) {
    throw CommandError(errc::InvalidParams, message);
}

// The keys profile.start knows (source document 000); any other is refused by name.
const std::set<std::string>& knownKeys() {
    static const std::set<std::string> keys = {
        "path",        "frames",   "slots",     "memory", "screenshots",
        "trigger",     "samples",  "registers", "unwind", "relocation_bases",
        "code_ranges", "coverage", "pc_samples", "samples_buffer_limit", "sampler",
        "ring",        "ring_bytes", "stop_on"};
    return keys;
}

std::string keyList() {
    std::string out;
    for (const auto& k : knownKeys())
        out += (out.empty() ? "" : ", ") + k;
    return out;
}

bool flag(const json& p, const char* key) {
    if (!p.contains(key)) return false;
    if (!p[key].is_boolean()) invalid(std::string(key) + ": wants true or false");
    return p[key].get<bool>();
}

std::string timestamp() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}


// An address: a number or a "0x"/"$" hex string, 24 bits.
std::uint32_t address(const json& p, const char* key) {
    return std::uint32_t(params::number(p, key, 0xFFFFFF));
}

std::vector<std::uint32_t> addressList(const json& p, const char* key) {
    const json& list = p[key];
    if (!list.is_array() || list.empty() || list.size() > 256)
        invalid(std::string(key) + ": wants an array of 1 to 256 addresses, one per hunk");
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json one = json{{"v", list[i]}};
        try {
            out.push_back(address(one, "v"));
        } catch (const CommandError& e) {
            invalid(std::string(key) + "[" + std::to_string(i) + "]: " +
                    std::string(e.what()).substr(3));
        }
    }
    return out;
}

std::vector<CodeRange> codeRangeList(const json& p) {
    const json& list = p["code_ranges"];
    if (!list.is_array() || list.empty() || list.size() > 256)
        invalid("code_ranges: wants an array of 1 to 256 {\"base\", \"size\"} objects");
    std::vector<CodeRange> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json& r = list[i];
        const std::string where = "code_ranges[" + std::to_string(i) + "]";
        if (!r.is_object() || r.size() != 2 || !r.contains("base") || !r.contains("size"))
            invalid(where + ": wants {\"base\", \"size\"}");
        CodeRange c;
        try {
            c.base = address(r, "base");
            c.size = std::uint32_t(params::number(r, "size", 0x1000000));
        } catch (const CommandError& e) {
            invalid(where + "." + std::string(e.what()));
        }
        if (c.size == 0 || std::uint64_t(c.base) + c.size > 0x1000000)
            invalid(where + ": an empty range, or one that passes the end of the 24-bit address space");
        out.push_back(c);
    }
    return out;
}

// "sampler": {"hz": N, "jitter": bool, "fault": "pc+2"} (docs/formats/sampler.md).
SystemSamplerOptions parseSystemSamplerOptions(const json& v) {
    if (!v.is_object())
        invalid("sampler: wants an object, {\"hz\": N} (N samples a second, 1 to " +
                std::to_string(maxSamplerHz(true)) + "; {} for " +
                std::to_string(sampler_format::kDefaultHz) + ")");
    SystemSamplerOptions s;
    for (const auto& [key, value] : v.items())
        if (key != "hz" && key != "jitter" && key != "fault")
            invalid("sampler." + key + ": not an option of the sampler (it takes hz, jitter, fault)");
    if (v.contains("hz")) {
        if (!v["hz"].is_number_integer() && !v["hz"].is_number_unsigned())
            invalid("sampler.hz: wants a whole number of samples a second");
        const long long hz = v["hz"].get<long long>();
        if (hz < 1 || hz > maxSamplerHz(true))
            invalid("sampler.hz: " + std::to_string(hz) + " is outside 1.." +
                    std::to_string(maxSamplerHz(true)) +
                    " (one sample per raster line at most: " + std::to_string(maxSamplerHz(false)) +
                    " on PAL)");
        s.hz = std::uint32_t(hz);
    }
    if (v.contains("jitter")) {
        if (!v["jitter"].is_boolean())
            invalid("sampler.jitter: wants true (one moment at a fixed pseudo-random place in each "
                    "period, the default) or false (at each period's end)");
        s.jitter = v["jitter"].get<bool>();
    }
    if (v.contains("fault")) {
        if (!v["fault"].is_string() || v["fault"].get<std::string>() != "pc+2")
            invalid("sampler.fault: the one fault it injects is \"pc+2\" (every PC read two bytes "
                    "off, for testing the containment proof)");
        s.faultPcPlus2 = true;
    }
    return s;
}

SamplerOptions parseSamplerOptions(const json& p) {
    SamplerOptions s;
    s.registers = flag(p, "registers");
    if (p.contains("samples_buffer_limit")) {
        const std::uint64_t n = params::number(p, "samples_buffer_limit", SamplerOptions::kDefaultBufferLimit);
        if (n == 0) invalid("samples_buffer_limit: must be at least 1");
        s.bufferLimit = std::size_t(n);
    }
    if (p.contains("relocation_bases")) s.relocationBases = addressList(p, "relocation_bases");
    if (p.contains("code_ranges")) s.codeRanges = codeRangeList(p);
    if (p.contains("unwind")) {
        const json& u = p["unwind"];
        if (!u.is_object() || u.size() != 2 || !u.contains("base") || !u.contains("table"))
            invalid("unwind: wants {\"base\": the text's load address, \"table\": the table in base64}");
        const std::uint32_t base = address(u, "base");
        if (base & 1) invalid("unwind.base: " + hex(base) + " is odd; code starts on a word");
        if (!u["table"].is_string()) invalid("unwind.table: wants the table as a base64 string");
        const auto bytes = fromBase64(u["table"].get<std::string>());
        if (!bytes) invalid("unwind.table: not base64");
        if (bytes->empty()) invalid("unwind.table: empty");
        UnwindTable table;
        try {
            table = parseUnwindTable(*bytes, 0);
        } catch (const MediaError& e) {
            invalid(std::string("unwind.table: ") + e.what());
        }
        if (std::uint64_t(base) + table.textSize > 0x1000000)
            invalid("unwind: the table's " + std::to_string(table.textSize) + " bytes of text from " + hex(base) +
                    " pass the end of the 24-bit address space");
        try {
            s.unwinder = std::make_shared<Unwinder>(std::move(table), base, s.codeRanges);
        } catch (const MediaError& e) {
            invalid(std::string("unwind: ") + e.what());
        }
    }
    return s;
}

} // namespace

std::string tracesFolder(const std::string& override) {
    if (!override.empty()) return fs::absolute(override).lexically_normal().string();
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        return (fs::path(x) / "copperline" / "traces").string();
    const char* home = std::getenv("HOME");
    return (fs::path(home && *home ? home : ".") / ".local" / "share" / "copperline" / "traces")
        .string();
}

ProfileOptions parseCaptureOptions(const json& p, const std::string& tracesDir,
                                   const std::string& baseDir) {
    if (!p.is_object()) invalid("profile.start takes an object of options");
    for (const auto& [key, value] : p.items())
        if (!knownKeys().count(key))
            invalid(key + ": not an option of profile.start (it takes " + keyList() + ")");

    ProfileOptions result;
    CaptureOptions& o = result.capture;
    const bool samples = flag(p, "samples"), coverage = flag(p, "coverage");
    // The combinations source document 000 refuses, before anything else.
    if (p.contains("registers") && !samples) invalid("registers requires \"samples\": true");
    if (p.contains("unwind") && !samples) invalid("unwind requires \"samples\": true");
    if (p.contains("relocation_bases") && !samples && !coverage && !p.contains("sampler"))
        invalid("relocation_bases requires \"samples\": true, \"coverage\": true or a \"sampler\"");
    if (p.contains("code_ranges") && !samples && !coverage)
        invalid("code_ranges requires \"samples\": true or \"coverage\": true");
    if (flag(p, "memory") && p.contains("trigger"))
        invalid("memory cannot be combined with trigger: a deferred capture has no RAM baseline "
                "aligned with its "
                "first recorded frame");
    if (p.contains("samples_buffer_limit") && !samples)
        invalid("samples_buffer_limit requires \"samples\": true");
    // The flight recorder, and what it refuses: what counts the whole run, or needs the
    // first frame it keeps to be the first it saw.
    if (p.contains("ring")) {
        const std::uint64_t n = params::number(p, "ring", ~0ull);
        if (n == 0 || n > CaptureOptions::kMaxRing)
            invalid("ring: " + std::to_string(n) + " is outside 1.." + std::to_string(CaptureOptions::kMaxRing));
        o.ring = unsigned(n);
        if (p.contains("trigger")) invalid("ring cannot be combined with trigger: a ring keeps the frames before its stop_on");
        if (flag(p, "memory"))
            invalid("ring cannot be combined with memory: the RAM baseline would not line up with the first frame the "
                    "ring keeps");
        if (coverage) invalid("ring cannot be combined with coverage: coverage counts the whole run");
        if (p.contains("sampler"))
            invalid("ring cannot be combined with sampler: the system sampler's file grows with the whole run "
                    "(\"samples\": true is kept per frame)");
        o.frames = CaptureOptions::kMaxFrames; // the frames it watches at most, unless "frames" says
    } else {
        for (const char* k : {"ring_bytes", "stop_on"})
            if (p.contains(k)) invalid(std::string(k) + " requires ring");
    }
    if (p.contains("ring_bytes")) {
        const std::uint64_t b = params::number(p, "ring_bytes", CaptureOptions::kMaxRingBytes);
        if (b < (1u << 20)) invalid("ring_bytes: at least 1 MiB (1048576)");
        o.ringBytes = b;
    }
    if (p.contains("stop_on")) {
        const json& t = p["stop_on"];
        if (!t.is_object() || t.size() != 1 ||
            !(t.contains("busy_cck_over") || t.contains("frame_cck_over") || t.contains("break")))
            invalid("stop_on: wants an object with exactly one of \"busy_cck_over\", \"frame_cck_over\" or "
                    "\"break\"");
        if (t.contains("break")) {
            if (!t["break"].is_boolean() || !t["break"].get<bool>()) invalid("stop_on.break: wants true");
            o.stopOn.kind = CaptureOptions::StopOn::Kind::Break;
        } else if (t.contains("busy_cck_over")) {
            o.stopOn.kind = CaptureOptions::StopOn::Kind::BusyCckOver;
            o.stopOn.value = params::number(t, "busy_cck_over", ~0ull);
        } else {
            o.stopOn.kind = CaptureOptions::StopOn::Kind::FrameCckOver;
            o.stopOn.value = params::number(t, "frame_cck_over", ~0ull);
        }
    }
    o.pcSamples = flag(p, "pc_samples");
    if (p.contains("sampler")) result.sampler = parseSystemSamplerOptions(p["sampler"]);

    if (p.contains("frames")) {
        const std::uint64_t f = params::number(p, "frames", ~0ull);
        if (f == 0 || f > CaptureOptions::kMaxFrames)
            invalid("frames: " + std::to_string(f) + " is outside 1.." +
                    std::to_string(CaptureOptions::kMaxFrames));
        o.frames = unsigned(f);
    }
    o.recordSlots = flag(p, "slots");
    o.memory = flag(p, "memory");
    if (p.contains("screenshots")) {
        if (!p["screenshots"].is_string())
            invalid("screenshots: wants \"none\", \"last\" or \"every\"");
        const std::string s = p["screenshots"].get<std::string>();
        if (s == "none")
            o.screenshots = CaptureOptions::Screenshots::None;
        else if (s == "last")
            o.screenshots = CaptureOptions::Screenshots::Last;
        else if (s == "every")
            o.screenshots = CaptureOptions::Screenshots::Every;
        else
            invalid("screenshots: '" + s + "' is not none, last or every");
        if (o.ring && o.screenshots == CaptureOptions::Screenshots::Every)
            invalid("ring cannot be combined with screenshots \"every\" (\"last\" shows the frame that stopped it)");
    }
    if (p.contains("trigger")) {
        const json& t = p["trigger"];
        if (!t.is_object() || t.size() != 1 ||
            !(t.contains("frame") || t.contains("busy_cck_over")))
            invalid("trigger: wants an object with exactly one of \"frame\" or \"busy_cck_over\"");
        if (t.contains("frame")) {
            o.trigger.kind = CaptureOptions::Trigger::Kind::Frame;
            o.trigger.value = params::number(t, "frame", ~0ull);
        } else {
            o.trigger.kind = CaptureOptions::Trigger::Kind::BusyCckOver;
            o.trigger.value = params::number(t, "busy_cck_over", ~0ull);
        }
    }
    if (p.contains("path")) {
        if (!p["path"].is_string() || p["path"].get<std::string>().empty())
            invalid("path: wants the capture folder's name");
        fs::path path = p["path"].get<std::string>();
        if (path.is_relative())
            path = fs::path(baseDir.empty() ? fs::current_path().string() : baseDir) / path;
        o.path = path.lexically_normal().string();
    } else {
        const fs::path base = fs::path(tracesDir) / ("copperline-profile-" + timestamp());
        fs::path path = base;
        std::error_code ec;
        for (unsigned n = 2; fs::exists(path, ec); ++n)
            path = base.string() + "-" + std::to_string(n);
        o.path = path.string();
    }
    if (samples) result.samples = parseSamplerOptions(p);
    if (result.sampler && p.contains("relocation_bases"))
        result.sampler->relocationBases = addressList(p, "relocation_bases");
    if (coverage) {
        CoverageOptions c;
        if (p.contains("relocation_bases")) c.relocationBases = addressList(p, "relocation_bases");
        if (p.contains("code_ranges")) c.codeRanges = codeRangeList(p);
        result.coverage = std::move(c);
    }
    o.given = p;
    o.given["path"] = o.path;
    if (o.given.contains("unwind")) o.given["unwind"]["table"] = "(" + std::to_string(result.samples->unwinder->textSize() / 2 * 6) + " bytes)";
    return result;
}

json machineConfigJson(const Machine& m) {
    const auto& c = m.config();
    return json{{"model", "A500"},
                {"agnus", "8371"},
                {"video", c.ntsc ? "NTSC" : "PAL"},
                {"chip_ram", c.chipRamBytes},
                {"slow_ram", c.slowRamBytes},
                {"ext_rom", m.hasExtRom()},
                {"cpu", "68000"},
                {"cpu_hz", c.ntsc ? kNtscCpuHz : kPalCpuHz},
                {"cck_hz", c.ntsc ? kNtscCckHz : kPalCckHz},
                {"cck_per_cpu_cycle", 1.0 / kCyclesPerCck}};
}

std::vector<std::string> captureOptionNames() {
    return {knownKeys().begin(), knownKeys().end()};
}

} // namespace copperline
