// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What guest programs tell the host (docs/guest-api.md), kept in a form the control
// protocol and the profiler read: idle colour clocks per frame, log messages, registered
// resources (bitmaps, palettes, copper lists), the debug overlay, and the --run loader's
// events.
//
// Guests talk to the host through uaelib, UAE's call at $F0FF60 as Bartman's toolchain
// uses it (emu/uaelib.h decodes the calls and lands them here). The reserved window
// $F7FF00-$F7FFFF, which the A500 leaves undecoded, is kept only for what uaelib has no
// call for, the --run loader's events:
//   $00 R  magic $434C ("CL")        $02 R  interface version (2)
//   $40 W  long: address of a run event (event, a, b, c: 16 bytes); the longword may
//          arrive high word first or low word first and acts when both halves are written

#include "emu/debug_overlay.h"
#include "emu/guest_files.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace copperline {

class Archive;

class GuestApi {
public:
    static constexpr std::uint32_t kBase = 0xF7FF00;
    static constexpr std::uint16_t kMagic = 0x434C;
    static constexpr std::uint16_t kVersion = 2;
    static constexpr std::size_t kMaxLogLength = 1024;
    static constexpr std::size_t kMaxNameLength = 31; // debug_resource's name[32], NUL included
    static constexpr std::size_t kMaxResources = 4096;
    static constexpr std::size_t kMaxOverlayShapes = 4096;
    static constexpr std::size_t kMaxOverlayText = 511;
    static constexpr std::size_t kMaxRefusalKinds = 256; // refusals told apart (refusalCounts())
    // Nested idle markers, as WinUAE keeps them (a stack of 16 previous states).
    static constexpr unsigned kMaxIdleDepth = 16;
    static constexpr std::size_t kIdleHistory = 64; // frames debug.idle can report

    static bool decodes(std::uint32_t address) { return (address & 0xFFFF00) == kBase; }

    // Our kinds (stable numbers the control protocol reports); uaelib's debug_resource
    // numbers its types bitmap 0, palette 1, copper list 2.
    enum class ResourceKind : std::uint32_t { Remove = 0, Bitmap = 1, Palette = 2, Copper = 3 };
    // debug_resource's flags (gcc8_c_support.h).
    enum ResourceFlags : std::uint16_t { Interleaved = 1, Masked = 2, Ham = 4 };
    struct Resource {
        ResourceKind kind = ResourceKind::Bitmap;
        std::uint32_t address = 0, size = 0;
        // Bitmap: width in pixels, height in rows, depth in planes, and the bytes per row
        // of one plane (width / 8). Palette: `entries` colours of $0RGB (depth mirrors it).
        std::uint16_t width = 0, height = 0, depth = 0, bytesPerRow = 0;
        std::uint16_t entries = 0;
        std::uint16_t flags = 0; // ResourceFlags
        std::string name;        // at most kMaxNameLength characters
        std::uint64_t frame = 0; // the frame it was registered in
    };
    enum class RunEvent : std::uint32_t {
        Started = 1,
        Loaded = 2,
        LoadFailed = 3, // b: 0 for PROG, N for the then-command on line N
        Exited = 4,
        ThenLoaded = 5, // a: the seglist, b: the line (0, 1, ...)
        Finished = 6,
        Memory = 7, // a: AvailMem(MEMF_ANY), b: AvailMem(MEMF_LARGEST), before a failure
    };
    struct RunMessage {
        RunEvent event = RunEvent::Started;
        std::uint32_t a = 0, b = 0, c = 0;
        std::uint64_t cck = 0;
    };
    struct LogMessage {
        std::string text;
        std::uint64_t frame = 0, cck = 0;
        // False: the guest's own line (KPrintF). True: the host explains a call it refused.
        bool refused = false;
    };
    struct FrameIdle {
        std::uint64_t frame = 0, startCck = 0, lengthCck = 0, idleCck = 0;
    };
    // What changed, for listeners (the control protocol's event.debug).
    enum class Change { Log, Resources };

    // How the interface reaches guest memory: the Machine's side-effect-free reads, its
    // debugger writes, and the sizes of chip and slow RAM (the only memory a call may name
    // for writing; the Kickstart ROM may also be read).
    void setMemoryReader(std::function<std::uint8_t(std::uint32_t)> read) {
        read_ = std::move(read);
    }
    void setMemoryWriter(std::function<void(std::uint32_t, std::uint8_t)> write) {
        write_ = std::move(write);
    }
    void setRam(std::uint32_t chipBytes, std::uint32_t slowBytes) {
        chipBytes_ = chipBytes;
        slowBytes_ = slowBytes;
    }
    // The fast RAM where its board was configured (0 bytes: none, or not configured yet).
    void setFastRam(std::uint32_t base, std::uint32_t bytes) {
        fastBase_ = base;
        fastBytes_ = bytes;
    }
    // Called for each log message and run event as it arrives (optional).
    void setLogSink(std::function<void(const LogMessage&)> sink) { logSink_ = std::move(sink); }
    void setRunHandler(std::function<void(const RunMessage&)> handler) {
        runHandler_ = std::move(handler);
    }
    void setChangeListener(std::function<void(Change)> listener) {
        changeListener_ = std::move(listener);
    }
    // The host folder debug_load and debug_save reach; without one they fail.
    GuestFiles& files() { return files_; }

    // A CPU access to the $F7FF00 window at colour clock `cck` in frame `frame`.
    std::uint16_t read(std::uint32_t address) const;
    void write(std::uint32_t address, std::uint16_t data, bool upper, bool lower, std::uint64_t cck,
               std::uint64_t frame);

    // A uaelib call (emu/uaelib.cpp): the guest has just jumped to $F0FF60 with the stack
    // pointer `sp` (the return address at sp, the function number at sp + 4). Returns D0.
    std::uint32_t uaelibCall(std::uint32_t sp, std::uint64_t cck, std::uint64_t frame);

    // Frame accounting: the Machine calls this as each frame is committed.
    void frameCommitted(std::uint64_t frame, std::uint64_t cck);

    bool idle() const { return idleDepth_ > 0; }
    // Idle colour clocks of the last committed frame, and whether the guest marked any
    // idle time at all (the profiler then counts busy clocks as the frame minus these).
    std::uint64_t lastFrameIdleCck() const { return lastFrameIdle_; }
    bool idleMarkersSeen() const { return idleSeen_; }
    // The last frames' idle clocks, oldest first (at most kIdleHistory).
    const std::deque<FrameIdle>& idleHistory() const { return idleHistory_; }

    const std::vector<Resource>& resources() const { return resources_; }
    const std::vector<LogMessage>& log() const { return log_; }
    const std::vector<RunMessage>& runMessages() const { return run_; }
    // The overlay as the guest is drawing it, and as the last committed frame shows it.
    const OverlayShapes& overlay() const { return overlay_; }
    const OverlayShapes& committedOverlay() const { return committedOverlay_; }
    // Counts committed-overlay changes, so a reader can tell a new list from the old one.
    std::uint64_t overlayGeneration() const { return overlayGeneration_; }

    // The host's pacing, as function 82 asks for it ("warp true", "cpu_speed max"): told
    // to the handler with the option that asked (the window's Warp follows it; a headless
    // run, unpaced anyway, notes it). Host state: not part of the machine.
    void setWarpHandler(std::function<void(bool on, const std::string& how)> handler) {
        warpHandler_ = std::move(handler);
    }
    void requestWarp(bool on, const std::string& how);
    bool guestWarp() const { return guestWarp_; }
    std::uint64_t warpRequests() const { return warpRequests_; }
    // A refused call: the log hears of each refusal once per run, until the machine is
    // reset (a program that calls every frame is not a line every frame); the same refusal
    // again is counted (refusalCounts(), by its text, at most kMaxRefusalKinds kinds).
    void refused(std::string text, std::uint64_t frame, std::uint64_t cck);
    const std::map<std::string, std::uint64_t>& refusalCounts() const { return refusalCounts_; }

    // The operations the calls perform.
    void setIdle(bool on, std::uint64_t cck);
    void addLog(std::string text, bool refused, std::uint64_t frame, std::uint64_t cck);
    // One resource per address: registering again replaces it.
    void registerResource(Resource r);
    // Forgets the resource at `address`; 0 forgets them all.
    void unregisterResource(std::uint32_t address);
    void clearOverlay();
    bool addOverlayShape(OverlayShape s); // false when the list is full

    // Guest memory, checked: whether [address, address + length) lies in readable memory
    // (chip RAM, slow RAM, the Kickstart ROM) or in writable memory (the RAMs).
    bool readable(std::uint32_t address, std::uint32_t length) const;
    bool writable(std::uint32_t address, std::uint32_t length) const;
    std::uint8_t readByte(std::uint32_t a) const { return read_ ? read_(a & 0xFFFFFF) : 0; }
    std::uint16_t readWord(std::uint32_t address) const;
    std::uint32_t readLong(std::uint32_t address) const;
    void writeByte(std::uint32_t a, std::uint8_t v) {
        if (write_) write_(a & 0xFFFFFF, v);
    }

    void reset();
    void serialize(Archive& ar);

private:
    std::string readString(std::uint32_t address, std::size_t max) const;
    void command(unsigned reg, std::uint32_t value, std::uint64_t cck, std::uint64_t frame);
    void showLoadedOverlay();
    void changed(Change c) {
        if (changeListener_) changeListener_(c);
    }

    std::function<std::uint8_t(std::uint32_t)> read_;
    std::function<void(std::uint32_t, std::uint8_t)> write_;
    std::uint32_t chipBytes_ = 0, slowBytes_ = 0;
    std::uint32_t fastBase_ = 0, fastBytes_ = 0;
    std::function<void(const LogMessage&)> logSink_;
    std::function<void(const RunMessage&)> runHandler_;
    std::function<void(Change)> changeListener_;
    std::function<void(bool, const std::string&)> warpHandler_;
    bool guestWarp_ = false;
    std::uint64_t warpRequests_ = 0;
    std::map<std::string, std::uint64_t> refusalCounts_;
    GuestFiles files_;

    // Longword registers being assembled: halves written so far (bit 0 high, bit 1 low).
    struct Latch {
        std::uint16_t high = 0, low = 0;
        std::uint8_t halves = 0;
    };
    Latch latches_[16]{};

    unsigned idleDepth_ = 0;
    bool idleSeen_ = false;
    std::uint64_t idleSince_ = 0;  // colour clock idle started (while idle)
    std::uint64_t frameIdle_ = 0;  // idle clocks of the frame in progress, closed spans
    std::uint64_t frameStart_ = 0; // colour clock the frame in progress started
    std::uint64_t lastFrameIdle_ = 0;
    std::deque<FrameIdle> idleHistory_;

    std::vector<Resource> resources_;
    std::vector<LogMessage> log_;
    std::vector<RunMessage> run_;
    OverlayShapes overlay_, committedOverlay_;
    std::uint64_t overlayGeneration_ = 0;
    bool overlayDirty_ = false; // overlay_ changed since the last commit
};

} // namespace copperline
