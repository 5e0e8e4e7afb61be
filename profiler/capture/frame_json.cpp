#include "profiler/capture/frame_json.h"

#include "emu/chipset/agnus.h"
#include "emu/chipset/blitter.h"

#include <algorithm>

namespace copperline {

using nlohmann::json;

namespace {

json beam(std::uint64_t frame, std::uint16_t vpos, std::uint16_t hpos, std::uint64_t cck) {
    return json{{"frame", frame}, {"vpos", vpos}, {"hpos", hpos}, {"cck", cck}};
}

const char* fillName(std::uint16_t bltcon1) {
    if (bltcon1 & Blitter::Line) return "none";
    if (bltcon1 & Blitter::Efe) return "exclusive"; // EFE wins over IFE (blitter.cpp)
    if (bltcon1 & Blitter::Ife) return "inclusive";
    return "none";
}

} // namespace

std::string blitChannels(std::uint16_t bltcon0) {
    std::string out;
    if (bltcon0 & Blitter::UseA) out += 'A';
    if (bltcon0 & Blitter::UseB) out += 'B';
    if (bltcon0 & Blitter::UseC) out += 'C';
    if (bltcon0 & Blitter::UseD) out += 'D';
    return out.empty() ? "-" : out;
}

json blitJson(const BlitRecord& b) {
    const bool line = (b.bltcon1 & Blitter::Line) != 0;
    const std::uint8_t lf = std::uint8_t(b.bltcon0);
    return json{
        {"id", b.id},
        {"start_pc", b.startPc},
        {"by_copper", b.byCopper},
        {"start", beam(b.startFrame, b.startVpos, b.startHpos, b.startCck)},
        {"end", beam(b.endFrame, b.endVpos, b.endHpos, b.endCck)},
        {"finished", b.finished},
        {"mode", line ? "line" : "area"},
        // Line mode has its own octant bits where area mode keeps DESC (HRM "Line Mode").
        {"direction", !line && (b.bltcon1 & Blitter::Desc) ? "descending" : "ascending"},
        {"fill", fillName(b.bltcon1)},
        {"channels", blitChannels(b.bltcon0)},
        {"bltcon0", b.bltcon0},
        {"bltcon1", b.bltcon1},
        {"minterm", lf},
        {"formula", mintermFormula(lf)},
        {"ash", b.bltcon0 >> 12},
        {"bsh", b.bltcon1 >> 12},
        {"afwm", b.afwm},
        {"alwm", b.alwm},
        {"apt", b.apt},
        {"bpt", b.bpt},
        {"cpt", b.cpt},
        {"dpt", b.dpt},
        {"amod", b.amod},
        {"bmod", b.bmod},
        {"cmod", b.cmod},
        {"dmod", b.dmod},
        {"adat", b.adat},
        {"bhold", b.bhold},
        {"cdat", b.cdat},
        {"width", b.width},
        {"height", b.height},
        {"size", std::to_string(b.width) + "x" + std::to_string(b.height)},
        {"words", {{"a", b.words[0]}, {"b", b.words[1]}, {"c", b.words[2]}, {"d", b.words[3]}}},
        {"clocks_used", b.clocksUsed},
        {"clocks_stalled", b.clocksStalled},
    };
}

json cpuWaitsJson(const FrameStats& f, std::size_t top) {
    json byOwner = json::object();
    std::uint64_t denied = 0;
    for (unsigned o = 0; o < kBusOwnerCount; ++o) {
        byOwner[busOwnerName(BusOwner(o))] = f.cpuWaitByOwner[o];
        denied += f.cpuWaitByOwner[o];
    }
    json byKind = json::object();
    for (unsigned k = 0; k < kCpuAccessKindCount; ++k)
        byKind[cpuAccessKindName(CpuAccessKind(k))] = f.cpuWaitByKind[k];
    json stalls = json::array();
    std::uint64_t restCck = 0, restWaits = 0;
    for (std::size_t i = 0; i < f.stallPcs.size(); ++i) {
        const StallPc& s = f.stallPcs[i];
        if (i < top) {
            stalls.push_back({{"pc", s.pc}, {"wait_cck", s.waitCck}, {"waits", s.waits}});
        } else {
            restCck += s.waitCck;
            restWaits += s.waits;
        }
    }
    const json rest = {{"pcs", f.stallPcs.size() - std::min(top, f.stallPcs.size())},
                       {"wait_cck", restCck},
                       {"waits", restWaits}};
    // Each line's denied clocks, from the grid (frame_stats.h).
    constexpr std::size_t kStride = Agnus::kMaxLineCck;
    json lines = json::array();
    for (std::uint32_t v = 0; v < f.lines && (v + 1) * kStride <= f.cpuWaitGrid.size(); ++v) {
        const auto row = f.cpuWaitGrid.begin() + std::ptrdiff_t(v * kStride);
        lines.push_back(std::count(row, row + f.lineCck, std::uint8_t(1)));
    }
    return json{{"frame", f.frame},
                {"partial", f.partial},
                {"first_cck", f.firstCck},
                {"length_cck", f.lengthCck},
                {"lines", f.lines},
                {"line_cck", f.lineCck},
                {"cpu_cycles",
                 {{"instructions", f.cpuInstructionCycles},
                  {"waits", f.cpuWaitCycles},
                  {"irq", f.cpuIrqCycles},
                  {"stopped", f.cpuStoppedCycles}}},
                {"wait_cck", denied},
                {"by_owner", byOwner},
                {"by_kind", byKind},
                {"stall_pcs", stalls},
                {"stall_pcs_rest", rest},
                {"line_wait_cck", lines}};
}

} // namespace copperline
