// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/amigaprofile.h"

#include "emu/base64.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <limits>

namespace copperline {

namespace {

using nlohmann::json;
using namespace bartman;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
    throw MediaError("amigaprofile: " + where + ": " + what);
}

// ---- writing -----------------------------------------------------------------------------

// The extension's viewer gives each sample the time delta before it (samples[i] ran for
// timeDeltas[i - 1]; samples[0] is a placeholder), where Chrome gives each the delta after
// it. cpuProfileJson writes Chrome's order, ending on a closing root sample: move that root to
// the front and the deltas one place left.
void toViewerSampleOrder(json& profile) {
    json& ids = profile["samples"];
    json& deltas = profile["timeDeltas"];
    json outIds = json::array({ids.back()});
    json outDeltas = json::array();
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
        outIds.push_back(ids[i]);
        outDeltas.push_back(deltas[i + 1]);
    }
    outDeltas.push_back(0);
    ids = std::move(outIds);
    deltas = std::move(outDeltas);
}

json dmaJson(const DmaRec& d) {
    // As the extension's parser turns file records into JSON: a used clock in full, an unused
    // one with only its events, or nothing.
    if (d.reg != kNoReg)
        return {{"reg", d.reg},   {"dat", d.dat},     {"datHi", d.datHi},
                {"size", d.size}, {"addr", d.addr},   {"evt", d.evt},
                {"type", d.type}, {"extra", d.extra}, {"intlev", d.intlev}};
    if (d.evt) return {{"evt", d.evt}};
    return json::object();
}

json resourceJson(const Resource& r) {
    json j = {{"address", r.address},
              {"size", r.size},
              {"name", r.name},
              {"type", r.type},
              {"flags", r.flags}};
    if (r.type == std::uint16_t(ResourceType::Bitmap))
        j["bitmap"] = {{"width", r.info[0]}, {"height", r.info[1]}, {"numPlanes", r.info[2]}};
    else if (r.type == std::uint16_t(ResourceType::Palette))
        j["palette"] = {{"numEntries", r.info[0]}};
    return j;
}

void checkFrame(const AmigaProfileInput& in, std::size_t i) {
    const AmigaProfileFrame& f = in.frames[i];
    const std::string where = "frame " + std::to_string(i);
    if (f.dma.size() != kDmaCount)
        bad(where, std::to_string(f.dma.size()) + " DMA records, the viewer needs " +
                       std::to_string(kDmaCount) + " (227 x 313)");
    if (!f.agaColors.empty() && f.agaColors.size() != 256)
        bad(where,
            std::to_string(f.agaColors.size()) + " AGA colours, the viewer takes none or 256");
    if (!f.registerTrace.empty() && f.registerTrace.size() != f.pcTrace.size())
        bad(where, std::to_string(f.registerTrace.size()) + " register sets for " +
                       std::to_string(f.pcTrace.size()) + " PC trace entries");
    for (const std::uint32_t c : f.callFrames)
        if (c >= f.uniqueCallFrames.size())
            bad(where, "callFrames names call frame " + std::to_string(c) + " of " +
                           std::to_string(f.uniqueCallFrames.size()));
    // The viewer names an address in .text by the source line of its word.
    for (const AmigaSection& s : in.sections)
        if (s.name == ".text" && f.callFrames.size() < (std::uint64_t(s.size) + 1) / 2)
            bad(where, "callFrames has " + std::to_string(f.callFrames.size()) +
                           " entries, .text has " +
                           std::to_string((std::uint64_t(s.size) + 1) / 2) + " words");
}

json frameJson(const AmigaProfileInput& in, std::size_t i) {
    checkFrame(in, i);
    const AmigaProfileFrame& f = in.frames[i];
    CpuProfileOptions options;
    options.startTime = f.startTime;
    json out = cpuProfileJson(f.tree, options);
    toViewerSampleOrder(out);

    json dma = json::array();
    for (const DmaRec& d : f.dma)
        dma.push_back(dmaJson(d));
    json resources = json::array();
    for (const Resource& r : f.resources)
        resources.push_back(resourceJson(r));
    json unique = json::array();
    for (const auto& stack : f.uniqueCallFrames) {
        json frames = json::array();
        for (const AmigaSourceLine& l : stack)
            frames.push_back({{"func", l.func}, {"file", l.file}, {"line", l.line}});
        unique.push_back({{"frames", std::move(frames)}});
    }
    json pcTrace = json::array();
    for (const PcTraceEntry& e : f.pcTrace) {
        pcTrace.push_back(e.pc);
        pcTrace.push_back(e.cycles);
    }
    json registerTrace = json::array();
    for (const auto& regs : f.registerTrace)
        for (const std::uint32_t r : regs)
            registerTrace.push_back(r);

    out["$amiga"] = {{"chipsetFlags", f.chipsetFlags},
                     {"customRegs", f.customRegs},
                     {"agaColors", f.agaColors},
                     {"dmaRecords", std::move(dma)},
                     {"gfxResources", std::move(resources)},
                     {"idleCycles", f.idleCycles},
                     {"uniqueCallFrames", std::move(unique)},
                     {"callFrames", f.callFrames},
                     {"pcTrace", std::move(pcTrace)},
                     {"registerTrace", std::move(registerTrace)}};
    if (!f.screenshot.empty())
        out["screenshot"] = std::string("data:image/") + (f.screenshotType ? "png" : "jpg") +
                            ";base64," + toBase64(f.screenshot);

    if (i == 0) {
        json symbols = json::array();
        for (const AmigaSymbol& s : in.symbols)
            symbols.push_back({{"name", s.name},
                               {"section", s.section},
                               {"address", s.address},
                               {"base", s.base},
                               {"size", s.size}});
        json sections = json::array();
        for (const AmigaSection& s : in.sections)
            sections.push_back({{"name", s.name}, {"address", s.address}, {"size", s.size}});
        out["$base"] = {{"chipMem", toBase64(in.chipMem)},
                        {"bogoMem", toBase64(in.bogoMem)},
                        {"objdump", in.objdump},
                        {"baseClock", in.baseClock},
                        {"cpuCycleUnit", in.cpuCycleUnit},
                        {"symbols", std::move(symbols)},
                        {"sections", std::move(sections)},
                        {"systemStackLower", in.systemStackLower},
                        {"systemStackUpper", in.systemStackUpper},
                        {"stackLower", in.stackLower},
                        {"stackUpper", in.stackUpper}};
    }
    return out;
}

// ---- reading -----------------------------------------------------------------------------

const json& member(const json& obj, const char* key, const std::string& where) {
    if (!obj.is_object()) bad(where, "is not an object");
    const auto it = obj.find(key);
    if (it == obj.end()) bad(where, std::string(key) + " is missing");
    return *it;
}

template <class T>
T integer(const json& v, const std::string& where) {
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > std::uint64_t(std::numeric_limits<T>::max()))
            bad(where, std::to_string(u) + " is out of range");
        return T(u);
    }
    if (v.is_number_integer()) {
        const auto s = v.get<std::int64_t>();
        if (s < std::int64_t(std::numeric_limits<T>::min()) ||
            (s >= 0 && std::uint64_t(s) > std::uint64_t(std::numeric_limits<T>::max())))
            bad(where, std::to_string(s) + " is out of range");
        return T(s);
    }
    bad(where, "is not an integer");
}

template <class T>
T integerMember(const json& obj, const char* key, const std::string& where) {
    return integer<T>(member(obj, key, where), where + "." + key);
}

const json& arrayMember(const json& obj, const char* key, const std::string& where) {
    const json& v = member(obj, key, where);
    if (!v.is_array()) bad(where + "." + key, "is not an array");
    return v;
}

std::string stringMember(const json& obj, const char* key, const std::string& where) {
    const json& v = member(obj, key, where);
    if (!v.is_string()) bad(where + "." + key, "is not a string");
    return v.get<std::string>();
}

std::vector<std::uint8_t> base64Member(const json& obj, const char* key, const std::string& where) {
    auto bytes = fromBase64(stringMember(obj, key, where));
    if (!bytes) bad(where + "." + key, "is not base64");
    return std::move(*bytes);
}

template <class T>
std::vector<T> integers(const json& arr, const std::string& where) {
    std::vector<T> out;
    out.reserve(arr.size());
    for (std::size_t i = 0; i < arr.size(); ++i)
        out.push_back(integer<T>(arr[i], where + "[" + std::to_string(i) + "]"));
    return out;
}

DmaRec readDmaRec(const json& j, const std::string& where) {
    if (!j.is_object()) bad(where, "is not an object");
    DmaRec d;
    if (j.contains("reg")) {
        d.reg = integerMember<std::uint16_t>(j, "reg", where);
        if (d.reg == kNoReg) bad(where, "reg is $FFFF, which marks an unused clock");
        d.dat = integerMember<std::uint32_t>(j, "dat", where);
        d.datHi = integerMember<std::uint32_t>(j, "datHi", where);
        d.size = integerMember<std::uint16_t>(j, "size", where);
        d.addr = integerMember<std::uint32_t>(j, "addr", where);
        d.evt = integerMember<std::uint32_t>(j, "evt", where);
        d.type = integerMember<std::int16_t>(j, "type", where);
        d.extra = integerMember<std::uint16_t>(j, "extra", where);
        d.intlev = integerMember<std::int8_t>(j, "intlev", where);
        return d;
    }
    for (const char* key : {"dat", "datHi", "size", "addr", "type", "extra", "intlev"})
        if (j.contains(key)) bad(where, std::string("has ") + key + " but no reg");
    if (j.contains("evt")) d.evt = integerMember<std::uint32_t>(j, "evt", where);
    return d;
}

Resource readResource(const json& j, const std::string& where) {
    Resource r;
    r.address = integerMember<std::uint32_t>(j, "address", where);
    r.size = integerMember<std::uint32_t>(j, "size", where);
    r.name = stringMember(j, "name", where);
    r.type = integerMember<std::uint16_t>(j, "type", where);
    r.flags = integerMember<std::uint16_t>(j, "flags", where);
    if (r.type == std::uint16_t(ResourceType::Bitmap)) {
        const json& b = member(j, "bitmap", where);
        r.info[0] = integerMember<std::uint16_t>(b, "width", where + ".bitmap");
        r.info[1] = integerMember<std::uint16_t>(b, "height", where + ".bitmap");
        r.info[2] = integerMember<std::uint16_t>(b, "numPlanes", where + ".bitmap");
    } else if (r.type == std::uint16_t(ResourceType::Palette)) {
        r.info[0] = integerMember<std::uint16_t>(member(j, "palette", where), "numEntries",
                                                 where + ".palette");
    }
    return r;
}

// The call tree: the frame's Chrome part with the samples put back in Chrome's order.
ProfileTree readTree(const json& frame, const std::string& where) {
    const json& nodes = arrayMember(frame, "nodes", where);
    if (nodes.empty()) return ProfileTree{};
    json chrome = {{"nodes", nodes}};
    if (frame.contains("samples") || frame.contains("timeDeltas")) {
        const json& ids = arrayMember(frame, "samples", where);
        const json& deltas = arrayMember(frame, "timeDeltas", where);
        if (ids.size() != deltas.size()) bad(where, "samples and timeDeltas differ in length");
        if (!ids.empty()) {
            json outIds = json::array(), outDeltas = json::array({0});
            for (std::size_t i = 1; i < ids.size(); ++i) {
                outIds.push_back(ids[i]);
                outDeltas.push_back(deltas[i - 1]);
            }
            outIds.push_back(ids[0]);
            chrome["samples"] = std::move(outIds);
            chrome["timeDeltas"] = std::move(outDeltas);
        }
    }
    try {
        return readCpuProfile(chrome);
    } catch (const MediaError& e) {
        bad(where, e.what());
    }
}

void readScreenshot(const json& frame, AmigaProfileFrame& f, const std::string& where) {
    const auto it = frame.find("screenshot");
    if (it == frame.end()) return;
    if (!it->is_string()) bad(where + ".screenshot", "is not a string");
    const std::string& url = it->get_ref<const std::string&>();
    const std::string prefix = "data:image/";
    const auto semi = url.find(";base64,");
    if (url.rfind(prefix, 0) != 0 || semi == std::string::npos)
        bad(where + ".screenshot", "is not a base64 data: URL of an image");
    const std::string type = url.substr(prefix.size(), semi - prefix.size());
    if (type == "png")
        f.screenshotType = 1;
    else if (type == "jpg" || type == "jpeg")
        f.screenshotType = 0;
    else
        bad(where + ".screenshot", "is an image/" + type + ", not JPEG or PNG");
    auto bytes = fromBase64(std::string_view(url).substr(semi + 8));
    if (!bytes) bad(where + ".screenshot", "is not base64");
    f.screenshot = std::move(*bytes);
}

AmigaProfileFrame readFrame(const json& frame, const std::string& where) {
    if (!frame.is_object()) bad(where, "is not an object");
    AmigaProfileFrame f;
    f.tree = readTree(frame, where);
    f.startTime = integerMember<std::uint64_t>(frame, "startTime", where);
    integerMember<std::uint64_t>(frame, "endTime", where);
    readScreenshot(frame, f, where);

    if (!frame.contains("$amiga")) bad(where, "no $amiga (not a frame profile)");
    const json& a = frame["$amiga"];
    const std::string at = where + ".$amiga";
    if (!a.is_object()) bad(at, "is not an object");
    f.chipsetFlags = integerMember<std::uint32_t>(a, "chipsetFlags", at);

    const json& regs = arrayMember(a, "customRegs", at);
    if (regs.size() != 256)
        bad(at + ".customRegs", std::to_string(regs.size()) + " registers, want 256");
    const auto regValues = integers<std::uint16_t>(regs, at + ".customRegs");
    std::copy(regValues.begin(), regValues.end(), f.customRegs.begin());

    const json& aga = arrayMember(a, "agaColors", at);
    if (!aga.empty() && aga.size() != 256)
        bad(at + ".agaColors", std::to_string(aga.size()) + " colours, want none or 256");
    f.agaColors = integers<std::uint32_t>(aga, at + ".agaColors");

    const json& dma = arrayMember(a, "dmaRecords", at);
    if (dma.size() != kDmaCount)
        bad(at + ".dmaRecords", std::to_string(dma.size()) + " records, want " +
                                    std::to_string(kDmaCount) + " (227 x 313)");
    f.dma.reserve(kDmaCount);
    for (std::size_t i = 0; i < dma.size(); ++i)
        f.dma.push_back(readDmaRec(dma[i], at + ".dmaRecords[" + std::to_string(i) + "]"));

    const json& res = arrayMember(a, "gfxResources", at);
    for (std::size_t i = 0; i < res.size(); ++i)
        f.resources.push_back(
            readResource(res[i], at + ".gfxResources[" + std::to_string(i) + "]"));

    f.idleCycles = integerMember<std::uint32_t>(a, "idleCycles", at);

    const json& unique = arrayMember(a, "uniqueCallFrames", at);
    for (std::size_t i = 0; i < unique.size(); ++i) {
        const std::string w = at + ".uniqueCallFrames[" + std::to_string(i) + "]";
        const json& lines = arrayMember(unique[i], "frames", w);
        std::vector<AmigaSourceLine> stack;
        for (std::size_t k = 0; k < lines.size(); ++k) {
            const std::string wl = w + ".frames[" + std::to_string(k) + "]";
            AmigaSourceLine l;
            if (lines[k].contains("func")) l.func = stringMember(lines[k], "func", wl);
            l.file = stringMember(lines[k], "file", wl);
            l.line = integerMember<int>(lines[k], "line", wl);
            stack.push_back(std::move(l));
        }
        f.uniqueCallFrames.push_back(std::move(stack));
    }
    f.callFrames = integers<std::uint32_t>(arrayMember(a, "callFrames", at), at + ".callFrames");
    for (const std::uint32_t c : f.callFrames)
        if (c >= f.uniqueCallFrames.size())
            bad(at + ".callFrames", "names call frame " + std::to_string(c) + " of " +
                                        std::to_string(f.uniqueCallFrames.size()));

    const auto trace = integers<std::uint32_t>(arrayMember(a, "pcTrace", at), at + ".pcTrace");
    if (trace.size() % 2) bad(at + ".pcTrace", "has an odd length (it holds pc, cycles pairs)");
    for (std::size_t i = 0; i < trace.size(); i += 2)
        f.pcTrace.push_back({trace[i], trace[i + 1]});
    if (a.contains("registerTrace")) {
        const auto regsTrace =
            integers<std::uint32_t>(arrayMember(a, "registerTrace", at), at + ".registerTrace");
        if (!regsTrace.empty() && regsTrace.size() != f.pcTrace.size() * kRegisterCount)
            bad(at + ".registerTrace", std::to_string(regsTrace.size()) + " values for " +
                                           std::to_string(f.pcTrace.size()) +
                                           " PC trace entries of 17 registers");
        for (std::size_t i = 0; i < regsTrace.size(); i += kRegisterCount) {
            std::array<std::uint32_t, kRegisterCount> r{};
            std::copy_n(regsTrace.begin() + std::ptrdiff_t(i), kRegisterCount, r.begin());
            f.registerTrace.push_back(r);
        }
    }
    return f;
}

} // namespace

nlohmann::json amigaProfileJson(const AmigaProfileInput& input) {
    if (input.frames.empty()) bad("profile", "no frames (the viewer needs one)");
    json out = json::array();
    for (std::size_t i = 0; i < input.frames.size(); ++i)
        out.push_back(frameJson(input, i));
    return out;
}

void writeAmigaProfile(const AmigaProfileInput& input, const std::string& path, bool replace) {
    if (!replace) refuseToReplace(path, "--force");
    if (input.frames.empty()) bad("profile", "no frames (the viewer needs one)");
    // Frame by frame: one frame's DMA records as JSON objects take tens of megabytes.
    std::string text = "[";
    for (std::size_t i = 0; i < input.frames.size(); ++i) {
        if (i) text += ',';
        text += frameJson(input, i).dump();
    }
    text += "]\n";
    writeFileBytes(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

AmigaProfileInput readAmigaProfile(const nlohmann::json& profile) {
    if (!profile.is_array()) bad("profile", "is not an array of frames");
    if (profile.empty()) bad("profile", "has no frames");
    AmigaProfileInput in;
    for (std::size_t i = 0; i < profile.size(); ++i)
        in.frames.push_back(readFrame(profile[i], "frame " + std::to_string(i)));

    if (!profile[0].contains("$base")) bad("frame 0", "no $base (memory and program)");
    const json& b = profile[0]["$base"];
    const std::string at = "frame 0.$base";
    if (!b.is_object()) bad(at, "is not an object");
    in.chipMem = base64Member(b, "chipMem", at);
    in.bogoMem = base64Member(b, "bogoMem", at);
    in.objdump = stringMember(b, "objdump", at);
    in.baseClock = integerMember<std::uint32_t>(b, "baseClock", at);
    in.cpuCycleUnit = integerMember<std::uint32_t>(b, "cpuCycleUnit", at);
    if (in.cpuCycleUnit == 0) bad(at + ".cpuCycleUnit", "is 0");
    in.systemStackLower = integerMember<std::uint32_t>(b, "systemStackLower", at);
    in.systemStackUpper = integerMember<std::uint32_t>(b, "systemStackUpper", at);
    in.stackLower = integerMember<std::uint32_t>(b, "stackLower", at);
    in.stackUpper = integerMember<std::uint32_t>(b, "stackUpper", at);
    const json& symbols = arrayMember(b, "symbols", at);
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        const std::string w = at + ".symbols[" + std::to_string(i) + "]";
        AmigaSymbol s;
        s.name = stringMember(symbols[i], "name", w);
        if (symbols[i].contains("section")) s.section = stringMember(symbols[i], "section", w);
        s.address = integerMember<std::uint32_t>(symbols[i], "address", w);
        s.base = integerMember<std::uint32_t>(symbols[i], "base", w);
        s.size = integerMember<std::uint32_t>(symbols[i], "size", w);
        in.symbols.push_back(std::move(s));
    }
    const json& sections = arrayMember(b, "sections", at);
    for (std::size_t i = 0; i < sections.size(); ++i) {
        const std::string w = at + ".sections[" + std::to_string(i) + "]";
        AmigaSection s;
        s.name = stringMember(sections[i], "name", w);
        s.address = integerMember<std::uint32_t>(sections[i], "address", w);
        s.size = integerMember<std::uint32_t>(sections[i], "size", w);
        in.sections.push_back(std::move(s));
    }
    // Each frame's .text source lines must cover the section, as the writer requires.
    for (std::size_t i = 0; i < in.frames.size(); ++i)
        for (const AmigaSection& s : in.sections)
            if (s.name == ".text" &&
                in.frames[i].callFrames.size() < (std::uint64_t(s.size) + 1) / 2)
                bad("frame " + std::to_string(i) + ".$amiga.callFrames",
                    std::to_string(in.frames[i].callFrames.size()) + " entries, .text has " +
                        std::to_string((std::uint64_t(s.size) + 1) / 2) + " words");
    return in;
}

AmigaProfileInput readAmigaProfileFile(const std::string& path) {
    const auto bytes = readFileBytes(path, std::uint64_t(4) << 30);
    json j = json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (j.is_discarded()) throw MediaError(path + ": not JSON");
    try {
        return readAmigaProfile(j);
    } catch (const MediaError& e) {
        throw MediaError(path + ": " + e.what());
    }
}

AmigaProfileInput amigaProfileFromBartman(const BartmanProfile& p) {
    AmigaProfileInput in;
    in.chipMem = p.chipMem;
    in.bogoMem = p.bogoMem;
    in.baseClock = p.baseClock;
    in.cpuCycleUnit = p.cpuCycleUnit;
    in.systemStackLower = p.systemStackLower;
    in.systemStackUpper = p.systemStackUpper;
    in.stackLower = p.stackLower;
    in.stackUpper = p.stackUpper;
    for (std::size_t i = 0; i < p.frames.size(); ++i) {
        const BartmanProfile::Frame& bf = p.frames[i];
        AmigaProfileFrame f;
        f.chipsetFlags = bf.chipsetFlags;
        f.customRegs = bf.customRegs;
        f.agaColors = bf.agaColors;
        f.dma = bf.dma;
        f.resources = bf.resources;
        f.idleCycles = bf.idleCycles;
        std::vector<ProfileSample> samples;
        try {
            samples = decodeProfileArray(bf.profileArray);
        } catch (const MediaError& e) {
            throw MediaError("frame " + std::to_string(i) + ": " + e.what());
        }
        for (const ProfileSample& s : samples) {
            f.pcTrace.push_back({s.stack.empty() ? 0xFFFFFFFFu : s.stack.front(), s.cycles});
            f.registerTrace.push_back(s.registers);
        }
        f.screenshot = bf.screenshot;
        f.screenshotType = bf.screenshotType;
        in.frames.push_back(std::move(f));
    }
    return in;
}

} // namespace copperline
