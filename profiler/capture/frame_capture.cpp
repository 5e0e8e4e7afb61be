// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/capture/frame_capture.h"

#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"

#include "emu/chipset/custom_regs.h"
#include "profiler/capture/screenshot.h"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <utility>
#include <climits>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace copperline {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kSummaryVersion = 1;
constexpr unsigned kTopStallPcs = 16;

std::string errnoText(int e) {
    return std::strerror(e);
}

// Writes every part in order (writev, continuing after short writes); false with errno
// set on failure. Consumes `parts`.
bool writeAllV(int fd, std::vector<iovec>& parts) {
    std::size_t first = 0;
    while (first < parts.size()) {
        const int count = int(std::min<std::size_t>(parts.size() - first, IOV_MAX));
        const ssize_t n = ::writev(fd, parts.data() + first, count);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) {
            errno = ENOSPC;
            return false;
        }
        std::size_t left = std::size_t(n);
        while (left > 0 && first < parts.size()) {
            iovec& v = parts[first];
            const std::size_t take = std::min(left, v.iov_len);
            v.iov_base = static_cast<char*>(v.iov_base) + take;
            v.iov_len -= take;
            left -= take;
            if (v.iov_len == 0) ++first;
        }
        while (first < parts.size() && parts[first].iov_len == 0) ++first;
    }
    return true;
}

// CPU cycles as colour clocks: an integer when even, a half otherwise.
json cck(std::uint64_t cycles) {
    if (cycles % 2 == 0) return cycles / 2;
    return double(cycles) / 2.0;
}

json ownerCounts(const std::array<std::uint32_t, kBusOwnerCount>& counts) {
    json out = json::object();
    for (unsigned o = 0; o < kBusOwnerCount; ++o)
        out[busOwnerName(BusOwner(o))] = counts[o];
    return out;
}

std::string hexWord(std::uint32_t v, int digits) {
    // "0x" and at least `digits` upper-case hex digits (a frame record holds hundreds: no
    // printf).
    static constexpr char kHex[] = "0123456789ABCDEF";
    int n = 1;
    while (n < 8 && (v >> (4 * n)) != 0)
        ++n;
    n = std::max(n, std::min(digits, 8));
    std::string out(std::size_t(n) + 2, '0');
    out[1] = 'x';
    for (int i = 0; i < n; ++i)
        out[std::size_t(n + 1 - i)] = kHex[(v >> (4 * i)) & 0xF];
    return out;
}

} // namespace

json blitJson(const BlitRecord& b) {
    const bool line = (b.bltcon1 & Blitter::Line) != 0;
    const unsigned channels = (b.bltcon0 >> 8) & 0xF; // UseA..UseD: bits 3..0 = A, B, C, D
    std::string ch;
    if (channels & 8) ch += 'A';
    if (channels & 4) ch += 'B';
    if (channels & 2) ch += 'C';
    if (channels & 1) ch += 'D';
    const std::uint8_t minterm = std::uint8_t(b.bltcon0 & 0xFF);
    const char* mode = line                         ? "line"
                       : (b.bltcon1 & Blitter::Ife) ? "fill-inclusive"
                       : (b.bltcon1 & Blitter::Efe) ? "fill-exclusive"
                                                    : "copy";
    return json{
        {"id", b.id},
        {"start_pc", hexWord(b.startPc, 6)},
        {"by_copper", b.byCopper},
        {"start",
         {{"frame", b.startFrame},
          {"vpos", b.startVpos},
          {"hpos", b.startHpos},
          {"cck", b.startCck}}},
        {"end", b.finished ? json{{"frame", b.endFrame},
                                  {"vpos", b.endVpos},
                                  {"hpos", b.endHpos},
                                  {"cck", b.endCck}}
                           : json(nullptr)},
        {"finished", b.finished},
        {"direction", line                          ? "line"
                      : (b.bltcon1 & Blitter::Desc) ? "descending"
                                                    : "ascending"},
        {"mode", mode},
        {"fill_carry_in", !line && (b.bltcon1 & Blitter::Fci) != 0},
        {"channels", ch},
        {"width_words", b.width},
        {"height", b.height},
        {"bltcon0", hexWord(b.bltcon0, 4)},
        {"bltcon1", hexWord(b.bltcon1, 4)},
        {"pointers",
         {{"a", hexWord(b.apt, 6)},
          {"b", hexWord(b.bpt, 6)},
          {"c", hexWord(b.cpt, 6)},
          {"d", hexWord(b.dpt, 6)}}},
        {"modulos", {{"a", b.amod}, {"b", b.bmod}, {"c", b.cmod}, {"d", b.dmod}}},
        {"shifts", {{"a", b.bltcon0 >> 12}, {"b", b.bltcon1 >> 12}}},
        {"masks", {{"first", hexWord(b.afwm, 4)}, {"last", hexWord(b.alwm, 4)}}},
        {"minterm", hexWord(minterm, 2)},
        {"formula", mintermFormula(minterm)},
        {"constants",
         {{"a", hexWord(b.adat, 4)}, {"b_hold", hexWord(b.bhold, 4)}, {"c", hexWord(b.cdat, 4)}}},
        {"words", {{"a", b.words[0]}, {"b", b.words[1]}, {"c", b.words[2]}, {"d", b.words[3]}}},
        {"clocks_used", b.clocksUsed},
        {"clocks_stalled", b.clocksStalled},
    };
}

json cpuWaitFields(const FrameStats& s, std::size_t top) {
    json out = json::object();
    out["cpu"] = json{{"instruction_cck", cck(s.cpuInstructionCycles)},
                    {"wait_cck", cck(s.cpuWaitCycles)},
                    {"irq_cck", cck(s.cpuIrqCycles)},
                    {"stopped_cck", cck(s.cpuStoppedCycles)},
                    {"cycles",
                     {{"instruction", s.cpuInstructionCycles},
                      {"wait", s.cpuWaitCycles},
                      {"irq", s.cpuIrqCycles},
                      {"stopped", s.cpuStoppedCycles}}}};
    json byKind = json::object();
    for (unsigned k = 0; k < kCpuAccessKindCount; ++k)
        byKind[cpuAccessKindName(CpuAccessKind(k))] = s.cpuWaitByKind[k];
    out["cpu_wait_classes"] = json{{"by_owner", ownerCounts(s.cpuWaitByOwner)}, {"by_kind", byKind}};
    json stalls = json::array();
    std::uint64_t restCck = 0, restPcs = 0;
    for (std::size_t i = 0; i < s.stallPcs.size(); ++i) {
        const StallPc& p = s.stallPcs[i];
        if (i < top) {
            stalls.push_back(
                json{{"pc", hexWord(p.pc, 6)}, {"wait_cck", p.waitCck}, {"waits", p.waits}});
        } else {
            restCck += p.waitCck;
            ++restPcs;
        }
    }
    out["stall_pcs"] = std::move(stalls);
    out["stall_pcs_rest"] = json{{"pcs", restPcs}, {"wait_cck", restCck}};
    return out;
}

const char* screenshotsName(CaptureOptions::Screenshots s) {
    switch (s) {
    case CaptureOptions::Screenshots::None: return "none";
    case CaptureOptions::Screenshots::Last: return "last";
    case CaptureOptions::Screenshots::Every: return "every";
    }
    return "none";
}

const char* captureStateName(CaptureStatus::State s) {
    switch (s) {
    case CaptureStatus::State::Armed: return "armed";
    case CaptureStatus::State::Recording: return "recording";
    case CaptureStatus::State::Done: return "done";
    case CaptureStatus::State::Failed: return "failed";
    }
    return "failed";
}

json toJson(const CaptureStatus& s) {
    json out{{"active", s.active()},
             {"state", captureStateName(s.state)},
             {"path", s.path},
             {"frames_written", s.framesWritten},
             {"frames_limit", s.framesLimit},
             {"bytes_written", s.bytesWritten},
             {"done", s.state == CaptureStatus::State::Done},
             {"triggered", s.triggered},
             {"triggered_at", s.triggeredAt ? json(*s.triggeredAt) : json(nullptr)}};
    if (!s.error.empty()) out["error"] = s.error;
    if (s.ringLimit)
        out["ring"] = json{{"frames", s.ringLimit},
                           {"bytes_limit", s.ringBytesLimit},
                           {"frames_held", s.ringFrames},
                           {"bytes_held", s.ringBytes},
                           {"dropped_for_bytes", s.ringDroppedForBytes},
                           {"stopped", s.ringStopped}};
    return out;
}

TimelinePoint timelinePoint(const Machine& m) {
    auto& mm = const_cast<Machine&>(m); // the chips' getters are not const; nothing changes
    TimelinePoint p;
    p.frame = m.frame();
    p.cck = mm.agnus().cck();
    p.vpos = mm.agnus().vpos();
    p.hpos = mm.agnus().hpos();
    p.instructions = m.cpu().instructions();
    p.seconds = m.emulatedSeconds();
    return p;
}

json toJson(const TimelinePoint& p) {
    return json{{"frame", p.frame}, {"cck", p.cck},         {"vpos", p.vpos},
                {"hpos", p.hpos},   {"seconds", p.seconds}, {"instructions", p.instructions}};
}

// ---- the capture --------------------------------------------------------------------------

FrameCapture::FrameCapture(Machine& machine, CaptureOptions options, Context context)
    : machine_(machine), options_(std::move(options)), context_(std::move(context)) {
    if (options_.path.empty()) throw CaptureError("path: no capture folder given");
    if (options_.frames == 0 || options_.frames > CaptureOptions::kMaxFrames)
        throw CaptureError("frames: " + std::to_string(options_.frames) + " is outside 1.." +
                           std::to_string(CaptureOptions::kMaxFrames));
    if (options_.ring) {
        if (options_.ring > CaptureOptions::kMaxRing)
            throw CaptureError("ring: " + std::to_string(options_.ring) + " is outside 1.." +
                               std::to_string(CaptureOptions::kMaxRing));
        if (options_.ringBytes == 0 || options_.ringBytes > CaptureOptions::kMaxRingBytes)
            throw CaptureError("ring_bytes: outside 1.." + std::to_string(CaptureOptions::kMaxRingBytes));
        if (options_.trigger.kind != CaptureOptions::Trigger::Kind::None)
            throw CaptureError("ring cannot be combined with trigger: a ring keeps the frames before its stop");
        if (options_.memory)
            throw CaptureError("ring cannot be combined with memory: the RAM baseline would not line up with "
                               "the first frame the ring keeps");
        if (options_.screenshots == CaptureOptions::Screenshots::Every)
            throw CaptureError("ring cannot be combined with screenshots \"every\" (\"last\" is the frame "
                               "that stopped it)");
    } else if (options_.stopOn.kind != CaptureOptions::StopOn::Kind::None) {
        throw CaptureError("stop_on requires ring");
    }
    if (options_.memory && options_.trigger.kind != CaptureOptions::Trigger::Kind::None)
        throw CaptureError(
            "memory cannot be combined with trigger: the RAM baseline would not line up with the "
            "first recorded frame");
    const fs::path dir(options_.path);
    std::error_code ec;
    const auto st = fs::status(dir, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(st))
            throw CaptureError(options_.path + ": exists and is not a folder");
        if (!fs::is_empty(dir, ec) || ec)
            throw CaptureError(options_.path +
                               ": the folder is not empty; a capture never overwrites files");
    } else {
        fs::create_directories(dir, ec);
        if (ec) throw CaptureError(options_.path + ": cannot make the folder: " + ec.message());
    }
    const std::string jsonl = (dir / "profile.jsonl").string();
    jsonl_ = ::open(jsonl.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (jsonl_ < 0) throw CaptureError(jsonl + ": " + errnoText(errno));

    status_.path = options_.path;
    status_.framesLimit = options_.frames;
    status_.ringLimit = options_.ring;
    status_.ringBytesLimit = options_.ring ? options_.ringBytes : 0;
    holding_ = options_.ring > 0;
    status_.state = options_.trigger.kind == CaptureOptions::Trigger::Kind::None
                        ? CaptureStatus::State::Recording
                        : CaptureStatus::State::Armed;
    started_ = timelinePoint(machine_);
    startCck_ = started_.cck;
    instructionsAtFrame_ = started_.instructions;
    try {
        if (options_.memory) {
            writeFile("chip-ram.bin", machine_.chipRam().data(), machine_.chipRam().size());
            const auto slow = machine_.slowRam();
            writeFile("slow-ram.bin", slow.data(), slow.size());
            // Zorro II fast RAM, where the ROM configured a board: its bytes at the start only
            // (its accesses are not chip-bus slots, so no slot record replays them).
            if (const auto fast = machine_.fastRam(); !fast.empty() && machine_.fastRamBase()) {
                writeFile("fast-ram.bin", fast.data(), fast.size());
                fastBase_ = machine_.fastRamBase();
            }
        }
    } catch (...) {
        ::close(jsonl_);
        jsonl_ = -1;
        throw;
    }
    // profile.json is on disk from the start, marked as written while the capture records,
    // so that a capture cut short (a kill, a crash, a power cut) still converts.
    try {
        writeSummary();
    } catch (...) {
        ::close(jsonl_);
        jsonl_ = -1;
        throw;
    }
    if (options_.recordSlots) machine_.agnus().setRecordSlots(true);
    machine_.attachFrameObserver(this);
    attached_ = true;
}

FrameCapture::~FrameCapture() {
    if (!finished_) {
        try {
            finish();
        } catch (...) {
            // A destructor cannot report; finish() records its own failures in status_.
        }
    }
    if (attached_) machine_.detachFrameObserver(this);
    if (jsonl_ >= 0) ::close(jsonl_);
    closeAppendFiles();
}

bool FrameCapture::triggerFires(const FrameStats& s, std::uint64_t busy) const {
    switch (options_.trigger.kind) {
    case CaptureOptions::Trigger::Kind::None: return true;
    case CaptureOptions::Trigger::Kind::Frame: return s.frame >= options_.trigger.value;
    case CaptureOptions::Trigger::Kind::BusyCckOver: return busy > options_.trigger.value;
    }
    return false;
}

void FrameCapture::frameCompleted(const FrameStats& s) {
    if (finished_) return;
    // Busy clocks: the frame minus the guest's idle markers, when it gives any (source
    // document 000, "An optional trigger").
    GuestApi& guest = machine_.guestApi();
    const std::uint64_t idle = guest.idleMarkersSeen()
                                   ? std::min<std::uint64_t>(guest.lastFrameIdleCck(), s.lengthCck)
                                   : 0;
    const std::uint64_t busy = s.lengthCck - idle;
    if (status_.state == CaptureStatus::State::Armed) {
        if (!triggerFires(s, busy)) {
            instructionsAtFrame_ = machine_.cpu().instructions();
            for (FrameSidecar* sc : context_.sidecars) sc->frameSkipped(s);
            return;
        }
        status_.state = CaptureStatus::State::Recording;
        status_.triggered = true;
        status_.triggeredAt = s.frame;
        started_ = timelinePoint(machine_);
        startCck_ = s.firstCck;
    }
    record(s, busy, idle);
    if (status_.state != CaptureStatus::State::Recording) return; // failed while writing
    if (holding_) {
        ++framesWatched_;
        std::uint64_t value = 0;
        if (stopOnTrips(s, busy, value)) {
            const char* why = options_.stopOn.kind == CaptureOptions::StopOn::Kind::BusyCckOver
                                  ? "busy_cck_over"
                                  : "frame_cck_over";
            stopRing(why, json{{"frame", s.frame}, {"value", value}, {"limit", options_.stopOn.value}});
            // (A flush that failed has told of it already, through fail().)
            if (onFinished_ && status_.state != CaptureStatus::State::Failed) onFinished_(status_);
            return;
        }
        // Keep the latest `ring` frames, and within the byte bound.
        while (held_.size() > options_.ring ||
               (held_.size() > 1 && status_.ringBytes > options_.ringBytes)) {
            if (held_.size() <= options_.ring) ++status_.ringDroppedForBytes;
            status_.ringBytes -= held_.front().bytes;
            held_.pop_front();
        }
        status_.ringFrames = unsigned(held_.size());
        if (framesWatched_ >= status_.framesLimit) {
            stopRing("frames", json{{"frames_watched", framesWatched_}});
            if (onFinished_ && status_.state != CaptureStatus::State::Failed) onFinished_(status_);
        }
        return;
    }
    if (status_.framesWritten >= status_.framesLimit) {
        status_.state = CaptureStatus::State::Done;
        finish();
        if (onFinished_) onFinished_(status_);
    }
}

std::string FrameCapture::sidecarName(const char* prefix, std::uint64_t frame, const char* ext,
                                      std::uint64_t seq) const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s-%06llu-frame-%06llu.%s", prefix,
                  static_cast<unsigned long long>(seq), static_cast<unsigned long long>(frame),
                  ext);
    return buf;
}

// "pc_sample": where the CPU stands at the frame's boundary (docs/formats/profile-jsonl.md).
static json pcSampleJson(const Machine& m) {
    const auto& cpu = m.cpu();
    json p = {{"pc", cpu.instructionAddress() & 0xFFFFFF},
              {"sr", cpu.sr()},
              {"stopped", cpu.stopped()},
              {"cck", m.now() / kCyclesPerCck}};
    const ExecTaskFields exec = readExecTaskFields(MachineMemoryView(m));
    p["this_task"] = exec.exec ? json(exec.thisTask) : json(nullptr);
    return p;
}

void FrameCapture::record(const FrameStats& s, std::uint64_t busy, std::uint64_t idle) {
    Agnus& agnus = machine_.agnus();
    const unsigned lines = s.lines,
                   lineCck = machine_.config().ntsc ? Agnus::kMaxLineCck : s.lineCck;
    json r = json::object();
    r["frame"] = s.frame;
    r["seq"] = seq_;
    r["first_cck"] = s.firstCck;
    r["length_cck"] = s.lengthCck;
    r["lines"] = lines;
    r["line_cck"] = lineCck;
    // The capture began after the frame's first clock: the slot records and the memory
    // baseline start where the capture did (the CPU accounting covers the whole frame).
    if (startCck_ > s.firstCck) r["partial_from_cck"] = startCck_;
    if (s.partial) r["partial"] = true;
    r["owner_cck"] = ownerCounts(agnus.committedOwnerCounts());
    irqCck2_ += s.cpuIrqCycles;
    r.update(cpuWaitFields(s, kTopStallPcs));
    r["busy_cck"] = busy;
    r["idle_cck"] = idle;
    r["idle_source"] = machine_.guestApi().idleMarkersSeen() ? "uaelib" : "none";
    const std::uint64_t instructions = machine_.cpu().instructions();
    r["retired_instructions"] = instructions - instructionsAtFrame_;
    instructionsAtFrame_ = instructions;
    if (options_.pcSamples) r["pc_sample"] = pcSampleJson(machine_);

    // The chipset's registers at the frame's first clock.
    const std::uint16_t bplcon0 = s.customAtStart[reg::BPLCON0 >> 1];
    unsigned flags = 0;
    if (agnus.config().ecs) flags |= 1u << 1;
    if (machine_.config().ntsc) flags |= 1u << 2;
    if (bplcon0 & 4) flags |= 1u << 3; // LACE
    if (agnus.longFrame()) flags |= 1u << 4;
    json custom = json::object();
    for (unsigned i = 0; i < 256; ++i) {
        if (!(s.customWrittenAtStart[i >> 5] >> (i & 31) & 1)) continue;
        const char* name = reg::name(std::uint16_t(i * 2));
        custom[name ? std::string(name) : hexWord(i * 2, 3)] = hexWord(s.customAtStart[i], 4);
    }
    r["registers"] = json{{"chipset_flags", flags}, {"custom", std::move(custom)}};

    r["grids"] = json{
        {"encoding", "rle-rows-1"},
        {"rows", lines},
        {"cols", lineCck},
        {"owners", encodeGrid(agnus.committedOwners().data(), lines, lineCck, Agnus::kMaxLineCck)},
        {"cpu_waits", s.cpuWaitGrid.empty()
                          ? std::string()
                          : encodeGrid(s.cpuWaitGrid.data(), lines, lineCck, Agnus::kMaxLineCck)}};
    json blits = json::array();
    for (const BlitRecord& b : s.blits)
        blits.push_back(blitJson(b));
    r["blits"] = std::move(blits);
    // Every transfer of this machine takes a colour clock of its own (no zero-time disk
    // DMA), so no two share a beam position; the array is kept for readers of the format.
    r["instantaneous_slots"] = json::array();

    try {
        if (options_.recordSlots) {
            const auto& records = agnus.committedRecords();
            if (records.size() >= std::size_t(lines) * Agnus::kMaxLineCck) {
                // Each row's first line_cck records, straight from Agnus's buffer (its rows
                // are kMaxLineCck long): no copy of the 1.7 MB.
                std::vector<iovec> rows(lines);
                for (unsigned v = 0; v < lines; ++v) {
                    rows[v].iov_base = const_cast<SlotRecord*>(records.data() + std::size_t(v) * Agnus::kMaxLineCck);
                    rows[v].iov_len = std::size_t(lineCck) * sizeof(SlotRecord);
                }
                const std::string name = sidecarName("slots", s.frame, "bin", seq_);
                writeFileV(name, rows);
                r["slots"] = name;
                // The CPU's CIA accesses, which the records mark (CiaA/CiaB) but cannot hold.
                json cia = json::array();
                for (const CiaAccess& a : agnus.committedCiaAccesses()) {
                    const unsigned v = a.index / Agnus::kMaxLineCck, h = a.index % Agnus::kMaxLineCck;
                    if (v >= lines || h >= lineCck) continue;
                    cia.push_back(json::array({v, h, a.chips, a.reg, a.write ? 1 : 0, a.value}));
                }
                r["cia_accesses"] = std::move(cia);
            }
        }
        if (options_.screenshots == CaptureOptions::Screenshots::Every) {
            const std::string name = sidecarName("screenshot", s.frame, "png", seq_);
            writeScreenshot(name);
            r["screenshot"] = name;
        }
        if (!context_.sidecars.empty()) {
            FrameSidecar::FrameFiles files;
            files.seq = seq_;
            files.frame = s.frame;
            files.name = [this, &s](const char* prefix, const char* ext) {
                return sidecarName(prefix, s.frame, ext, seq_);
            };
            files.write = [this](const std::string& name,
                                 const std::vector<std::span<const std::uint8_t>>& parts) {
                std::vector<iovec> v;
                v.reserve(parts.size());
                for (const auto& part : parts)
                    if (!part.empty())
                        v.push_back(iovec{const_cast<std::uint8_t*>(part.data()), part.size()});
                writeFileV(name, v);
            };
            files.append = [this](const std::string& name,
                                  const std::vector<std::span<const std::uint8_t>>& parts) {
                std::vector<iovec> v;
                for (const auto& part : parts)
                    if (!part.empty())
                        v.push_back(iovec{const_cast<std::uint8_t*>(part.data()), part.size()});
                appendFileV(name, v);
            };
            for (FrameSidecar* sc : context_.sidecars) sc->frameRecorded(s, files, r);
        }
        appendLine(r.dump());
    } catch (const CaptureError& e) {
        fail(e.what());
        return;
    }
    ++seq_;
    if (holding_) {
        held_.push_back(std::move(current_));
        current_ = HeldFrame{};
        status_.ringBytes += held_.back().bytes;
    } else {
        ++status_.framesWritten;
    }
    lastFrame_ = s.frame;
    ended_ = timelinePoint(machine_);
    // The summary of a capture in progress: rewritten after the first frame, then whenever
    // a look at frames 2, 4, 8, ... (every 256th from there) finds that its facts changed
    // (a library loaded, a resource registered), so that profile.json is never far behind.
    // (A flight recorder that holds its frames writes none of this until it stops.)
    const unsigned n = status_.framesWritten;
    if (!holding_ && (n == 1 || (n < 256 ? (n & (n - 1)) == 0 : n % 256 == 0))) {
        try {
            writeSummary(n == 1);
        } catch (const std::exception& e) {
            fail(e.what()); // nothing escapes into the machine's frame commit
        }
    }
}

bool FrameCapture::stopOnTrips(const FrameStats& s, std::uint64_t busy, std::uint64_t& value) const {
    switch (options_.stopOn.kind) {
    case CaptureOptions::StopOn::Kind::BusyCckOver: value = busy; break;
    case CaptureOptions::StopOn::Kind::FrameCckOver:
        // The frame's time: its length less the clocks the CPU spent stopped (STOP).
        value = s.lengthCck - std::min<std::uint64_t>(s.lengthCck, s.cpuStoppedCycles / kCyclesPerCck);
        break;
    default: return false;
    }
    return value > options_.stopOn.value;
}

json FrameCapture::stopRing(const std::string& reason, json detail) {
    if (holding_ && !finished_) {
        detail["reason"] = reason;
        status_.ringStopped = std::move(detail);
        try {
            flushRing();
        } catch (const CaptureError& e) {
            // What could not be written is let go, and the capture says why it failed.
            held_.clear();
            status_.ringFrames = 0;
            status_.ringBytes = 0;
            fail(e.what());
            return finalResult_;
        }
    }
    return finish();
}

void FrameCapture::flushRing() {
    // From here on writes go to the folder: the held frames in their order, each one's
    // files before its record line (as a frame written at once would be), and the appends
    // to the growing files before the frames that may refer to them.
    holding_ = false;
    for (HeldFile& f : heldAppends_) {
        std::vector<iovec> one{iovec{f.bytes.data(), f.bytes.size()}};
        appendFileV(f.name, one);
    }
    heldAppends_.clear();
    while (!held_.empty()) {
        HeldFrame& h = held_.front();
        for (HeldFile& f : h.files) {
            std::vector<iovec> one{iovec{f.bytes.data(), f.bytes.size()}};
            writeFileV(f.name, one);
        }
        for (const std::string& line : h.lines) {
            appendLine(line);
            const json j = json::parse(line, nullptr, false);
            if (j.is_object()) ringSamples_ += j.value("samples_count", std::uint64_t(0));
        }
        ++status_.framesWritten;
        status_.ringBytes -= h.bytes;
        held_.pop_front();
    }
    // What the frame in progress noted (a reposition marker) follows the frames.
    for (const std::string& line : current_.lines)
        appendLine(line);
    current_ = HeldFrame{};
    status_.ringFrames = 0;
    status_.ringBytes = 0;
}

void FrameCapture::appendLine(const std::string& text) {
    if (holding_) {
        current_.lines.push_back(text);
        current_.bytes += text.size() + 1;
        return;
    }
    if (jsonl_ < 0) throw CaptureError("profile.jsonl is closed");
    std::string line = text;
    line += '\n';
    // One write per line, so a reader (or a killed emulator) only ever sees whole lines;
    // a short write (a full disk) is cut back to the last whole line.
    std::vector<iovec> one(1);
    one[0].iov_base = line.data();
    one[0].iov_len = line.size();
    if (!writeAllV(jsonl_, one)) {
        const int e = errno;
        if (::ftruncate(jsonl_, off_t(jsonlBytes_)) != 0) {
            // Nothing more can be done for the file; the error below says what happened.
        }
        throw CaptureError((fs::path(options_.path) / "profile.jsonl").string() + ": " +
                           errnoText(e));
    }
    jsonlBytes_ += line.size();
    status_.bytesWritten += line.size();
}

void FrameCapture::writeFile(const std::string& name, const void* data, std::size_t size) {
    std::vector<iovec> one(1);
    one[0].iov_base = const_cast<void*>(data);
    one[0].iov_len = size;
    writeFileV(name, one);
}

void FrameCapture::writeFileV(const std::string& name, std::vector<iovec>& parts) {
    std::size_t size = 0;
    for (const iovec& v : parts) size += v.iov_len;
    if (holding_) {
        HeldFile f{name, {}};
        f.bytes.reserve(size);
        for (const iovec& v : parts) {
            const auto* b = static_cast<const std::uint8_t*>(v.iov_base);
            f.bytes.insert(f.bytes.end(), b, b + v.iov_len);
        }
        current_.files.push_back(std::move(f));
        current_.bytes += size;
        return;
    }
    const std::string path = (fs::path(options_.path) / name).string();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw CaptureError(path + ": " + errnoText(errno));
    if (!writeAllV(fd, parts)) {
        const int e = errno;
        ::close(fd);
        ::unlink(path.c_str()); // no half-written sidecar stays behind
        throw CaptureError(path + ": " + errnoText(e));
    }
    if (::close(fd) != 0) {
        const int e = errno;
        ::unlink(path.c_str());
        throw CaptureError(path + ": " + errnoText(e));
    }
    status_.bytesWritten += size;
}

void FrameCapture::appendFileV(const std::string& name, std::vector<iovec>& parts) {
    if (holding_) {
        HeldFile f{name, {}};
        for (const iovec& v : parts) {
            const auto* b = static_cast<const std::uint8_t*>(v.iov_base);
            f.bytes.insert(f.bytes.end(), b, b + v.iov_len);
        }
        if (!f.bytes.empty()) heldAppends_.push_back(std::move(f));
        return;
    }
    const std::string path = (fs::path(options_.path) / name).string();
    auto it = appendFiles_.find(name);
    if (it == appendFiles_.end()) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) throw CaptureError(path + ": " + errnoText(errno));
        it = appendFiles_.emplace(name, AppendFile{fd, 0}).first;
    }
    AppendFile& f = it->second;
    std::size_t size = 0;
    for (const iovec& v : parts) size += v.iov_len;
    if (!size) return;
    if (f.fd < 0) throw CaptureError(path + ": is closed");
    if (!writeAllV(f.fd, parts)) {
        const int e = errno;
        if (::ftruncate(f.fd, off_t(f.bytes)) != 0) {
            // Nothing more can be done for the file; the error below says what happened.
        }
        throw CaptureError(path + ": " + errnoText(e));
    }
    f.bytes += size;
    status_.bytesWritten += size;
}

void FrameCapture::closeAppendFiles() {
    for (auto& [name, f] : appendFiles_)
        if (f.fd >= 0) {
            ::close(f.fd);
            f.fd = -1;
        }
}

void FrameCapture::writeScreenshot(const std::string& name) {
    const fs::path path = fs::path(options_.path) / name;
    std::error_code ec;
    if (fs::exists(path, ec))
        throw CaptureError(path.string() + ": exists; a capture never overwrites files");
    try {
        writePng(path.string(), composeDisplay(machine_));
    } catch (const std::exception& e) {
        throw CaptureError(e.what());
    }
    status_.bytesWritten += fs::file_size(path, ec);
}

void FrameCapture::reposition() {
    if (finished_) return;
    ++repositions_;
    // The instruction counter is rebaselined: the next frame counts from here.
    instructionsAtFrame_ = machine_.cpu().instructions();
    for (FrameSidecar* sc : context_.sidecars) sc->repositioned();
    if (status_.state != CaptureStatus::State::Recording) return;
    try {
        appendLine(json{{"marker", "reposition"},
                        {"frame", machine_.frame()},
                        {"seq", seq_},
                        {"cck", machine_.agnus().cck()}}
                       .dump());
    } catch (const CaptureError& e) {
        fail(e.what());
    }
}

void FrameCapture::fail(const std::string& why) {
    if (status_.state == CaptureStatus::State::Failed) return;
    status_.state = CaptureStatus::State::Failed;
    status_.error = why;
    finish();
    if (onFinished_) onFinished_(status_);
}

json FrameCapture::statusJson() const {
    json out = toJson(status_);
    for (const FrameSidecar* sc : context_.sidecars) sc->addStatus(out);
    return out;
}

json FrameCapture::finish() {
    if (finished_) return finalResult_;
    if (holding_) {
        // Stopped before its condition tripped (profile.stop, the end of the run): the
        // frames held are the capture.
        if (status_.ringStopped.is_null()) status_.ringStopped = json{{"reason", "stopped"}};
        try {
            flushRing();
        } catch (const CaptureError& e) {
            holding_ = false;
            status_.state = CaptureStatus::State::Failed;
            status_.error = e.what();
        }
    }
    finished_ = true;
    if (attached_) {
        machine_.detachFrameObserver(this);
        attached_ = false;
    }
    {
        FrameSidecar::EndFiles files;
        files.write = [this](const std::string& name, const std::vector<std::span<const std::uint8_t>>& parts) {
            std::vector<iovec> v;
            for (const auto& part : parts)
                if (!part.empty()) v.push_back(iovec{const_cast<std::uint8_t*>(part.data()), part.size()});
            writeFileV(name, v);
        };
        files.append = [this](const std::string& name, const std::vector<std::span<const std::uint8_t>>& parts) {
            std::vector<iovec> v;
            for (const auto& part : parts)
                if (!part.empty()) v.push_back(iovec{const_cast<std::uint8_t*>(part.data()), part.size()});
            appendFileV(name, v);
        };
        for (FrameSidecar* sc : context_.sidecars) {
            try {
                sc->captureEnded(files);
            } catch (const CaptureError& e) {
                status_.state = CaptureStatus::State::Failed;
                status_.error = e.what();
            }
        }
    }
    closeAppendFiles();
    if (status_.active()) status_.state = CaptureStatus::State::Done;
    if (options_.screenshots == CaptureOptions::Screenshots::Last && lastFrame_ &&
        status_.state != CaptureStatus::State::Failed) {
        const std::string name = sidecarName("screenshot", *lastFrame_, "png", seq_ - 1);
        try {
            writeScreenshot(name);
            lastScreenshotFrameName_ = name;
        } catch (const CaptureError& e) {
            status_.state = CaptureStatus::State::Failed;
            status_.error = e.what();
        }
    }
    if (options_.recordSlots) {
        if (context_.releaseSlots)
            context_.releaseSlots();
        else
            machine_.agnus().setRecordSlots(false);
    }
    try {
        writeSummary();
    } catch (const CaptureError& e) {
        if (status_.state != CaptureStatus::State::Failed) {
            status_.state = CaptureStatus::State::Failed;
            status_.error = e.what();
        }
    }
    if (jsonl_ >= 0) {
        ::close(jsonl_);
        jsonl_ = -1;
    }
    finalResult_ = statusJson();
    finalResult_["summary"] = (fs::path(options_.path) / "profile.json").string();
    if (!lastScreenshotFrameName_.empty()) finalResult_["screenshot"] = lastScreenshotFrameName_;
    return finalResult_;
}

json FrameCapture::summaryJson() {
    json s = json::object();
    s["version"] = kSummaryVersion;
    s["machine"] = context_.machineConfig;
    json opts = options_.given;
    opts["frames"] = options_.frames;
    opts["slots"] = options_.recordSlots;
    opts["memory"] = options_.memory;
    opts["screenshots"] = screenshotsName(options_.screenshots);
    s["options"] = std::move(opts);
    json owners = json::array();
    for (unsigned o = 0; o < kBusOwnerCount; ++o)
        owners.push_back(busOwnerName(BusOwner(o)));
    s["owners"] = owners;
    json kinds = json::array();
    for (unsigned k = 0; k < kCpuAccessKindCount; ++k)
        kinds.push_back(cpuAccessKindName(CpuAccessKind(k)));
    s["cpu_wait_classes"] = json{{"by_owner", owners}, {"by_kind", kinds}};
    s["started"] = toJson(started_);
    s["started"]["capture_cck"] = startCck_;
    s["ended"] = status_.framesWritten ? toJson(ended_) : json(nullptr);
    s["frames_written"] = status_.framesWritten;
    s["frames_limit"] = status_.framesLimit;
    s["samples_total"] = 0;
    s["irq_cck"] = cck(irqCck2_);
    s["triggered_at"] = status_.triggeredAt ? json(*status_.triggeredAt) : json(nullptr);
    if (options_.ring) {
        json stopOn = nullptr;
        switch (options_.stopOn.kind) {
        case CaptureOptions::StopOn::Kind::BusyCckOver: stopOn = json{{"busy_cck_over", options_.stopOn.value}}; break;
        case CaptureOptions::StopOn::Kind::FrameCckOver: stopOn = json{{"frame_cck_over", options_.stopOn.value}}; break;
        case CaptureOptions::StopOn::Kind::Break: stopOn = json{{"break", true}}; break;
        case CaptureOptions::StopOn::Kind::None: break;
        }
        s["ring"] = json{{"frames", options_.ring},
                         {"bytes_limit", options_.ringBytes},
                         {"stop_on", stopOn},
                         {"frames_watched", framesWatched_},
                         {"dropped_for_bytes", status_.ringDroppedForBytes},
                         {"stopped", status_.ringStopped}};
    }
    s["repositions"] = repositions_;
    // "recording" (or "armed", its trigger not fired yet) while the capture runs: this
    // summary was written before the end, and profile.jsonl may hold more frames than it says.
    s["state"] = captureStateName(status_.state);
    if (!status_.error.empty()) s["error"] = status_.error;
    s["files"] =
        json{{"jsonl", "profile.jsonl"},
             {"memory", !options_.memory ? json::array()
                        : fastBase_          ? json{"chip-ram.bin", "slow-ram.bin", "fast-ram.bin"}
                                             : json{"chip-ram.bin", "slow-ram.bin"}},
             {"slots", options_.recordSlots ? "slots-SSSSSS-frame-MMMMMM.bin" : json(nullptr)}};
    if (fastBase_) s["fast_ram"] = {{"base", fastBase_}, {"bytes", machine_.fastRam().size()}};
    if (context_.summaryExtras) context_.summaryExtras(s);
    for (FrameSidecar* sc : context_.sidecars) sc->addSummary(s);
    // A ring's samples are those of the frames it wrote, not of every frame it watched.
    if (options_.ring && s.contains("samples_total")) s["samples_total"] = ringSamples_;
    return s;
}

namespace {

// The fields of a summary that change with every frame: left out when a capture in progress
// asks whether its summary learned anything.
json summaryFacts(json s) {
    for (const char* volatileField : {"frames_written", "ended", "samples_total", "samples_dropped", "irq_cck",
                                      "repositions", "sampler", "coverage", "state", "error", "run"})
        s.erase(volatileField);
    return s;
}

} // namespace

void FrameCapture::writeSummary(bool always) {
    json s = summaryJson();
    if (status_.active()) {
        json facts = summaryFacts(s);
        if (!always && facts == summaryFacts_) return;
        summaryFacts_ = std::move(facts);
    }
    // Written to a file of its own and renamed over profile.json, so that a reader (or an
    // emulator killed meanwhile) only ever sees a whole summary, the earlier one or this.
    const std::string text = s.dump(2) + "\n";
    const std::string temp = std::string(kSummaryFile) + ".tmp";
    // The summary goes to the folder even while a flight recorder holds its frames.
    struct Restore {
        bool& flag;
        bool was;
        ~Restore() { flag = was; }
    } restore{holding_, std::exchange(holding_, false)};
    const fs::path tempPath = fs::path(options_.path) / temp;
    std::error_code ec;
    fs::remove(tempPath, ec); // a temp file an earlier failed write left
    writeFile(temp, text.data(), text.size());
    if (::rename(tempPath.c_str(), (fs::path(options_.path) / kSummaryFile).c_str()) != 0) {
        const int e = errno;
        fs::remove(tempPath, ec);
        throw CaptureError((fs::path(options_.path) / kSummaryFile).string() + ": " + errnoText(e));
    }
}



// ---- grids ----------------------------------------------------------------------------------

std::string encodeGrid(const std::uint8_t* cells, unsigned rows, unsigned cols, unsigned stride) {
    std::string out;
    out.reserve(std::size_t(rows) * 8);
    const std::uint8_t* prev = nullptr;
    char num[16];
    for (unsigned v = 0; v < rows; ++v) {
        const std::uint8_t* row = cells + std::size_t(v) * stride;
        if (v > 0) out += ';';
        if (prev && std::equal(row, row + cols, prev)) continue; // an empty row repeats
        unsigned h = 0;
        while (h < cols) {
            const std::uint8_t value = row[h];
            unsigned run = 1;
            while (h + run < cols && row[h + run] == value)
                ++run;
            out += char('a' + std::min<unsigned>(value, 25));
            if (run > 1) {
                const std::to_chars_result r = std::to_chars(num, num + sizeof num, run);
                out.append(num, r.ptr);
            }
            h += run;
        }
        prev = row;
    }
    return out;
}

std::vector<std::uint8_t> decodeGrid(const std::string& text, unsigned rows, unsigned cols,
                                     unsigned maxValue) {
    std::vector<std::uint8_t> out(std::size_t(rows) * cols, 0);
    std::size_t i = 0;
    for (unsigned v = 0; v < rows; ++v) {
        if (v > 0) {
            if (i >= text.size() || text[i] != ';')
                throw CaptureError("grid: row " + std::to_string(v) + " is missing");
            ++i;
        }
        std::uint8_t* row = out.data() + std::size_t(v) * cols;
        if (i >= text.size() || text[i] == ';') {
            if (v == 0) throw CaptureError("grid: the first row is empty");
            std::copy(row - cols, row, row);
            continue;
        }
        unsigned h = 0;
        while (i < text.size() && text[i] != ';') {
            const char c = text[i++];
            if (c < 'a' || c > 'z' || unsigned(c - 'a') > maxValue)
                throw CaptureError(std::string("grid: '") + c + "' is not a cell value");
            unsigned run = 0;
            bool digits = false;
            while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
                run = run * 10 + unsigned(text[i++] - '0');
                digits = true;
                if (run > cols) throw CaptureError("grid: a run is longer than the row");
            }
            if (!digits) run = 1;
            if (run == 0 || h + run > cols)
                throw CaptureError("grid: row " + std::to_string(v) + " is too long");
            std::fill(row + h, row + h + run, std::uint8_t(c - 'a'));
            h += run;
        }
        if (h != cols)
            throw CaptureError("grid: row " + std::to_string(v) + " has " + std::to_string(h) +
                               " cells, not " + std::to_string(cols));
    }
    if (i != text.size()) throw CaptureError("grid: more rows than the frame has");
    return out;
}

// ---- minterms -------------------------------------------------------------------------------

std::string mintermFormula(std::uint8_t minterm) {
    if (minterm == 0) return "0";
    if (minterm == 0xFF) return "1";
    // Bit n of the minterm is the output for A = bit 2, B = bit 1, C = bit 0 of n (HRM,
    // "Designing the LF control byte"). Write the sum of the products whose bit is set,
    // after merging the pairs that differ in one input, as the HRM's own examples do.
    struct Term {
        unsigned care, value; // bits 2..0 = A, B, C
    };
    std::vector<Term> terms;
    for (unsigned n = 0; n < 8; ++n)
        if (minterm >> n & 1) terms.push_back({7, n});
    // Merge repeatedly (a small Quine-McCluskey over three inputs).
    for (bool merged = true; merged;) {
        merged = false;
        std::vector<Term> next;
        std::vector<bool> used(terms.size(), false);
        for (std::size_t i = 0; i < terms.size(); ++i)
            for (std::size_t j = i + 1; j < terms.size(); ++j) {
                if (terms[i].care != terms[j].care) continue;
                const unsigned diff = (terms[i].value ^ terms[j].value) & terms[i].care;
                if (diff && !(diff & (diff - 1))) {
                    const Term t{terms[i].care & ~diff, terms[i].value & ~diff & terms[i].care};
                    used[i] = used[j] = true;
                    if (std::none_of(next.begin(), next.end(), [&](const Term& x) {
                            return x.care == t.care && x.value == t.value;
                        }))
                        next.push_back(t);
                    merged = true;
                }
            }
        for (std::size_t i = 0; i < terms.size(); ++i)
            if (!used[i] && std::none_of(next.begin(), next.end(), [&](const Term& x) {
                    return x.care == terms[i].care && x.value == terms[i].value;
                }))
                next.push_back(terms[i]);
        terms = std::move(next);
    }
    // Drop terms the others already cover.
    for (std::size_t i = 0; i < terms.size();) {
        unsigned covered = 0;
        for (std::size_t j = 0; j < terms.size(); ++j) {
            if (j == i) continue;
            for (unsigned n = 0; n < 8; ++n)
                if ((n & terms[j].care) == terms[j].value) covered |= 1u << n;
        }
        unsigned mine = 0;
        for (unsigned n = 0; n < 8; ++n)
            if ((n & terms[i].care) == terms[i].value) mine |= 1u << n;
        if ((mine & ~covered) == 0)
            terms.erase(terms.begin() + std::ptrdiff_t(i));
        else
            ++i;
    }
    std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
        return a.care != b.care ? a.care > b.care : a.value > b.value;
    });
    std::string out;
    for (const Term& t : terms) {
        if (!out.empty()) out += '+';
        static constexpr char kName[3] = {'A', 'B', 'C'};
        for (unsigned k = 0; k < 3; ++k) {
            const unsigned bit = 4u >> k;
            if (!(t.care & bit)) continue;
            if (!(t.value & bit)) out += '!';
            out += kName[k];
        }
    }
    return out;
}

} // namespace copperline
