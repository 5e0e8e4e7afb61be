// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Amiga 500: one object that owns every chip (DESIGN.md section 1: no globals, no
// singletons, so a test can build several side by side) and runs them on one clock.
//
// Memory map (ocs-timing-facts section 9; HRM node012E):
//   $000000-$1FFFFF  chip RAM (512 KiB, mirrored); the ROM overlays $000000-$07FFFF for
//                    reads while CIA-A's PA0 pin (OVL) is high, as it is after reset
//   $A00000-$BFFFFF  the CIAs: CIA-A where A12=0 (odd bytes), CIA-B where A13=0 (even)
//   $C00000-$C7FFFF  slow RAM (512 KiB), on the chip bus but not reachable by DMA
//   $D80000-$DFFFFF  the custom registers ($DFF000), mirrored
//   $E00000-$E7FFFF  the extension ROM AROS uses
//   $F80000-$FFFFFF  the Kickstart ROM
// Chip RAM, slow RAM and the custom registers are arbitrated by Agnus colour clock by
// colour clock; the CIAs synchronise with the E clock; the ROMs answer at once.

#include "emu/chipset/agnus.h"
#include "emu/chipset/blitter.h"
#include "emu/chipset/cia.h"
#include "emu/chipset/copper.h"
#include "emu/chipset/denise.h"
#include "emu/chipset/keyboard.h"
#include "emu/chipset/floppy.h"
#include "emu/chipset/frame_stats.h"
#include "emu/chipset/paula.h"
#include "emu/chipset/rtc.h"
#include "emu/clock.h"
#include "emu/cpu/m68k.h"
#include "emu/cpu/observer_set.h"
#include "emu/guest_api.h"
#include "emu/media/adf.h"
#include "emu/media/rom.h"
#include "emu/memory/chip_ram.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace copperline {

class Machine;

// The CPU's view of the machine: every bus cycle goes through Machine::cpuAccess.
struct CpuBus {
    Machine* machine = nullptr;
    unsigned access(m68k::BusCycle& c);
    void resetAsserted(std::uint64_t from, std::uint64_t to);
};

// Told of each CPU bus cycle (not interrupt acknowledges) as it reaches the machine, for
// a debugger's watchpoints. Unset, it costs one predictable branch per access.
class CpuAccessObserver {
public:
    virtual ~CpuAccessObserver() = default;
    virtual void cpuAccess(const m68k::BusCycle& cycle) = 0;
};

// Told of each frame when it is complete: at the first instruction boundary after Agnus
// committed it, when its CPU accounting (FrameStats) is final. The profiler's observers
// attach here; the frame-committed callback below fires earlier, mid-instruction.
class FrameObserver {
public:
    virtual ~FrameObserver() = default;
    virtual void frameCompleted(const FrameStats& stats) = 0;
};

// One step of the CPU as the per-frame accounting (frame_stats.h) sees it: an instruction
// (with any exception it raised), an interrupt entry, or a stretch of STOP or halt. Every
// CPU cycle belongs to exactly one step, so an observer that adds up steps accounts for
// every clock. Times are 68000 cycles since power-on (two per colour clock).
struct CpuStep {
    enum class Kind : std::uint8_t { Instruction, Interrupt, Stopped };
    Kind kind = Kind::Instruction;
    std::uint32_t pc = 0;           // the instruction's address; the next one for the others
    std::uint64_t start = 0, end = 0;
    std::uint64_t waitCycles = 0;   // refused by the chip bus (2 per denied colour clock)
    // When a frame ended inside the step: the cycle it ended at, and the wait cycles before
    // it. Zero boundary: the step lies inside one frame.
    std::uint64_t boundary = 0, waitCyclesBeforeBoundary = 0;
    std::uint8_t irqLevel = 0, irqVector = 0; // Interrupt only
};

// Where a CPU step starts: the PC of its instruction (the next one for the others), the
// registers an unwinder needs, and whether the CPU is stopped (STOP) or halted. The whole
// register file is Machine::cpu().registers(), asked for only when wanted.
struct CpuStepStart {
    std::uint32_t pc = 0;
    std::uint32_t a5 = 0, a7 = 0;
    std::uint16_t sr = 0, ird = 0;
    bool stopped = false;
};

// Told of every CPU step: stepStarting before it runs (the machine and its memory are as
// the step finds them), stepDone after it, before the frame observers hear of a frame the
// step completed. For the precise sampler.
class CpuStepObserver {
public:
    virtual ~CpuStepObserver() = default;
    virtual void stepStarting(const CpuStepStart& /*start*/) {}
    virtual void stepDone(const CpuStep& step) = 0;
};

// Told once the CPU step that holds a moment it asked for is done, with where that step
// started and what it was: for a statistical sampler that reads the machine at exact
// emulated times. Returns the next moment it wants (after the step's end), or kNever.
// A step costs a comparison; the machine keeps where a step started only within
// kMomentLead cycles of the moment, so for a longer step (the CPU held off the bus that
// long) `startKnown` is false and `start` is the CPU as the step ends. Told too of each
// interrupt entry: its level and the supervisor stack pointer after its frame.
class CpuMomentObserver {
public:
    static constexpr MasterClock kNever = ~MasterClock(0);
    static constexpr MasterClock kMomentLead = 1024;
    virtual ~CpuMomentObserver() = default;
    virtual MasterClock momentReached(const CpuStepStart& start, bool startKnown, const CpuStep& step) = 0;
    virtual void interruptEntered(unsigned /*level*/, std::uint32_t /*ssp*/) {}
};

// One stretch of the CPU's address space as the machine decodes it now (Machine::memoryMap),
// for debuggers. `end` is the first address past it.
struct MemoryRegion {
    const char* name = "";  // "chip", "chip mirror", "slow", "fast", "cia", "custom", ...
    std::uint32_t start = 0, end = 0;
    const char* kind = "";  // "ram", "mirror", "io", "rom", "host"
};

// One field of the display as Denise drew it: a row per beam line, four pixels per
// colour clock, 0xFFRRGGBB.
struct VideoField {
    unsigned width = 0, lines = 0;
    std::vector<std::uint32_t> pixels;
    bool longFrame = true;
    bool interlaced = false;
    std::uint64_t frame = 0;
};

class Machine : private BeamListener {
public:
    using Cpu = m68k::Cpu<CpuBus>;

    struct Config {
        bool ntsc = false;
        std::uint32_t chipRamBytes = 512 * 1024;
        std::uint32_t slowRamBytes = 512 * 1024;
        // Zorro II fast RAM on one AutoConfig board (0: none; else a power of two from 64K to
        // 8M). It answers at $E80000 until the ROM's expansion code gives it a base
        // (usually $200000) and adds it to exec's free memory; off the chip bus, the CPU
        // never waits for it. The RESET line (and power) unconfigures it.
        std::uint32_t fastRamBytes = 0;
        // uaelib at $F0FF60 (emu/uaelib.h). Off, that address is undecoded space as on an
        // A500 (the tests compare the two).
        bool uaelib = true;
        // The A501's clock (emu/chipset/rtc.h), fitted with slow RAM as the card carries
        // both: the time it shows at power-on, and whether it stands still (it otherwise
        // counts emulated seconds). Not part of a state's configuration: a state carries
        // the clock's registers and counters themselves.
        RtcTime rtcTime;
        bool rtcFrozen = false;
    };

    Machine();
    explicit Machine(const Config& config);
    ~Machine() override;
    Machine(const Machine&) = delete;
    Machine& operator=(const Machine&) = delete;

    const Config& config() const { return config_; }
    // Whether a fast RAM size is one a Zorro II board has (0, or 64K to 8M, a power of two).
    static bool validFastRamSize(std::uint32_t bytes);

    // ROMs. The extension ROM is optional (AROS needs it).
    void setRom(const RomImage& rom);
    void setExtRom(const RomImage& rom);
    bool hasRom() const { return !rom_.empty(); }
    // The Kickstart image as set (512 KiB; a 256 KiB ROM mirrored).
    const std::vector<std::uint8_t>& romBytes() const { return rom_; }
    bool hasExtRom() const { return !extRom_.empty(); }
    const std::vector<std::uint8_t>& extRomBytes() const { return extRom_; }
    // FNV-1a of each ROM's bytes, as state files record them.
    std::uint64_t romHash() const { return romHash_; }
    std::uint64_t extRomHash() const { return extRomHash_; }

    // Power on: memory cleared, every chip reset, the CPU reset through the overlay. On a
    // machine that has run this is a power cycle: the machine becomes exactly what a new
    // Machine with the same configuration, ROMs, drives and disks is after powerOn (its
    // state hash is that machine's), keeping only what lies outside the Amiga: the
    // observers and callbacks, and each drive's note that its disk needs writing back.
    void powerOn();
    // The reset a keyboard reset or the RESET line gives: chips and CIAs, then the CPU.
    void reset();

    // Bare metal, for test programs that need no ROM: powers on, turns the ROM overlay
    // off (CIA-A PA0 driven low, as a Kickstart's first instructions do), copies `program`
    // into chip RAM at `loadAddress`, writes the reset vectors (SSP `stack`, PC
    // `loadAddress`) at 0 and 4, and resets the CPU through them.
    void bootBareMetal(std::span<const std::uint8_t> program, std::uint32_t loadAddress = 0x1000,
                       std::uint32_t stack = 0x80000);

    // ---- running -------------------------------------------------------------------
    // Runs whole instructions until the frame counter passes its value at the call.
    void runFrame();
    // Runs until the master clock reaches `until` (68000 cycles).
    void runUntil(MasterClock until);
    // Executes one instruction (or one step of STOP), keeping the chipset in step.
    void stepInstruction();
    // With the CPU in STOP: the steps stepInstruction would take one at a time, while the
    // CPU stays stopped, up to `until` (68000 cycles) or the end of the frame in progress,
    // including the step that wakes it; at least one step. Otherwise one stepInstruction.
    void stepStopped(MasterClock until);
    MasterClock now() const { return cpu_.cycles(); }
    std::uint64_t frame() const { return agnus_.frame(); }
    double emulatedSeconds() const;

    // ---- parts ---------------------------------------------------------------------
    Cpu& cpu() { return cpu_; }
    const Cpu& cpu() const { return cpu_; }
    Agnus& agnus() { return agnus_; }
    Denise& denise() { return denise_; }
    Paula& paula() { return paula_; }
    Blitter& blitter() { return blitter_; }
    Copper& copper() { return copper_; }
    Cia& ciaA() { return ciaA_; }
    Cia& ciaB() { return ciaB_; }
    Keyboard& keyboard() { return keyboard_; }
    // The battery-backed clock at $DC0000, fitted with slow RAM (hasRtc).
    bool hasRtc() const { return config_.slowRamBytes != 0; }
    Rtc& rtc() { return rtc_; }
    const Rtc& rtc() const { return rtc_; }
    ChipRam& chipRam() { return chip_; }
    const ChipRam& chipRam() const { return chip_; }
    std::span<const std::uint8_t> slowRam() const { return slow_; }
    // Slow RAM to write whole (a loader's copy; plain bytes, no side effects, as pokeByte).
    std::span<std::uint8_t> slowRam() { return slow_; }
    std::span<const std::uint8_t> fastRam() const { return fast_; }
    // Where the fast RAM board was configured, 0 while it is not (no board, or before the
    // ROM configured it, or shut up).
    std::uint32_t fastRamBase() const { return zorro_.configured ? zorro_.base : 0; }
    FloppyController& floppy() { return floppy_; }
    GuestApi& guestApi() { return guestApi_; }

    // ---- floppy drives (emu/chipset/floppy_drive.h) ---------------------------------
    // DF0 is fitted, DF1-DF3 are not until connected. A disk may be inserted at any time;
    // the drive's /CHNG line tells the OS. Writes change the drive's copy of the image.
    void connectDrive(unsigned n, bool on);
    void insertDisk(unsigned n, AdfImage image);
    void ejectDisk(unsigned n);

    // ---- game ports (HRM "Controller ports"); port 0 is the mouse port -----------------
    // A mouse moves JOYxDAT's counters; its left button (a joystick's fire) pulls CIA-A
    // PA6/PA7 low, its right and middle buttons the POT pins. A joystick's switches set
    // JOYxDAT's bits as the HRM's table gives them (right: bit 1, left: bit 9, down: bit 0
    // XOR bit 1, up: bit 8 XOR bit 9). What the ports hold is part of the state.
    void moveMouse(unsigned port, int dx, int dy) { denise_.moveMouse(port, dx, dy); }
    void setPortButtons(unsigned port, bool left, bool right, bool middle);
    void setJoystick(unsigned port, bool up, bool down, bool left, bool right);
    // Bits 0-2: port 0's left, right, middle; bits 4-6: port 1's.
    std::uint8_t portButtons() const { return portButtons_; }

    // CPU observers (emu/cpu/m68k_types.h): any number may attach, each with its own
    // hooks; the CPU arms the union. Attaching again changes an observer's hooks.
    void attachCpuObserver(m68k::Observer* observer, unsigned hooks) {
        cpuObservers_.add(observer, hooks);
        if (!muted_) cpu_.setObserver(&cpuObservers_, cpuObservers_.hooks());
    }
    void detachCpuObserver(m68k::Observer* observer) {
        cpuObservers_.remove(observer);
        if (!muted_) cpu_.setObserver(cpuObservers_.empty() ? nullptr : &cpuObservers_, cpuObservers_.hooks());
    }

    // The step observer (CpuStepObserver); one at a time, nullptr detaches.
    void setCpuStepObserver(CpuStepObserver* observer) { stepObserver_ = observer; }
    CpuStepObserver* cpuStepObserver() const { return stepObserver_; }

    // The moment observer (CpuMomentObserver) and the first moment it wants (68000 cycles);
    // one at a time, nullptr detaches. Muted, it is not told.
    void setCpuMomentObserver(CpuMomentObserver* observer, MasterClock first) {
        momentObserver_ = observer;
        nextMoment_ = observer ? first : CpuMomentObserver::kNever;
    }
    CpuMomentObserver* cpuMomentObserver() const { return momentObserver_; }

    // Frame observers (see FrameObserver); any number, told in the order they attached.
    void attachFrameObserver(FrameObserver* observer);
    void detachFrameObserver(FrameObserver* observer);
    // The accounting of the last completed frame (frame_stats.h). `partial` frames were not
    // watched from their first clock (the first after power-on or a state load).
    const FrameStats& lastFrameStats() const { return frameStats_[1]; }
    // The accounting of the frame before that one, while it is known: its `lines` are 0 and
    // its `frame` is not lastFrameStats().frame - 1 when it is not (after power-on or a state
    // load, until two frames have ended).
    const FrameStats& previousFrameStats() const { return frameStats_[2]; }
    const FrameStats& frameStatsInProgress() const { return frameStats_[0]; }
    // The frame in progress, for the chips that fill in its wait and blit details.
    FrameStats& frameStatsInProgress() { return frameStats_[0]; }
    // The DMA words of the blits of the last committed frames, for previews; off until
    // armed (blit_trace.h has its bound). Arming changes nothing in the emulated timeline.
    BlitTrace& blitTrace() { return blitTrace_; }
    const BlitTrace& blitTrace() const { return blitTrace_; }

    // Muted observers are not told anything: CPU observers, frame observers and the
    // access observer stay attached but silent, so that replaying part of the timeline
    // (standing the machine on an earlier instruction) feeds no capture, count or
    // breakpoint twice. The emulated timeline is the same either way.
    void setObserversMuted(bool muted);
    bool observersMuted() const { return muted_; }

    // The memory map as configured and as the ROM has set it up (the fast RAM board once
    // configured, the extension ROM once set), in address order; undecoded space is left
    // out. The ROM overlay (romOverlay) is not a region of its own: it hides chip RAM's
    // first 512 KiB from reads while it lasts.
    std::vector<MemoryRegion> memoryMap() const;
    bool romOverlay() const { return overlay(); }

    // Side-effect-free reads for debuggers (no custom or CIA side effects, no time).
    std::uint8_t spyByte(std::uint32_t address) const;
    std::uint16_t spyWord(std::uint32_t address) const;
    // Debugger writes to RAM (chip or slow); other addresses are ignored.
    void pokeByte(std::uint32_t address, std::uint8_t value);

    // Serial port output (AROS's debug log).
    void setSerialSink(std::function<void(std::uint8_t)> sink) { paula_.setSerialSink(std::move(sink)); }
    // Watchpoints: see CpuAccessObserver (nullptr detaches).
    void setCpuAccessObserver(CpuAccessObserver* observer) { accessObserver_ = observer; }
    // An access observer that muting does not silence: the record's own replays use it to
    // find writes and watchpoint hits in the past (emu/record/record.h).
    void setAccessProbe(CpuAccessObserver* probe) { accessProbe_ = probe; }
    // Called after each committed frame.
    void setFrameCallback(std::function<void(std::uint64_t)> cb) { onFrame_ = std::move(cb); }

    // The last completed field, and the last completed field of each parity (long and
    // short frames alternate in interlace; screenshots weave them).
    const VideoField& lastField() const { return fields_[lastFieldIndex_]; }
    const VideoField& field(bool longFrame) const { return fields_[longFrame ? 0 : 1]; }

    // ---- state ---------------------------------------------------------------------
    // The machine: everything its future depends on, which the hash covers.
    void serialize(Archive& ar);
    std::uint64_t stateHash();
    // A state file (emu/state/state_file.h): the configuration and ROM hashes, a checksum,
    // the machine, and the picture it showed (both fields and the last frame's bus
    // owners), so that a loaded state shows its own last frame rather than the one before
    // the load. The picture is output, not state: the hash leaves it out. loadState
    // refuses a damaged file, or one from another configuration or ROM, with a StateError
    // that says which, and then has changed nothing.
    std::vector<std::uint8_t> saveState();
    // Takes on the state's configuration (memory sizes, PAL/NTSC, uaelib) where it differs
    // from this machine's; a state that cannot be loaded leaves the machine as it was,
    // configuration included. The ROMs must be those it was saved with.
    void loadState(std::span<const std::uint8_t> bytes);
    // Another configuration for this same machine (its ROMs, drives, disks and observers
    // kept; memory cleared): what loadState does before reading a state of another
    // configuration. The chips' state is then whatever the caller loads next.
    void reconfigure(const Config& config);
    static bool sameConfig(const Config& a, const Config& b);
    // The record's snapshots (emu/record/record.h): the machine alone, for this machine
    // only. No envelope and no picture, since the record takes one every frame; the
    // bytes must come from saveSnapshot of a machine configured as this one.
    // `reuse`: a buffer to write into (its capacity kept), such as the last snapshot's.
    std::vector<std::uint8_t> saveSnapshot(std::vector<std::uint8_t> reuse = {});
    void loadSnapshot(std::span<const std::uint8_t> bytes);
    // An empty buffer with room for this machine's snapshot, for a snapshot taken once and
    // let go (power-on, a loader's way back): one allocation, not a buffer grown through
    // several on the way to the memory's size.
    std::vector<std::uint8_t> snapshotBuffer() const;
    // The picture a state file keeps beside the machine (both fields and the last frame's
    // bus owners), for the record of the past: a snapshot leaves it out, so a machine put
    // back where no frame ends before it stands would show the picture it came from.
    // restorePicture takes bytes pictureBytes gave (a StateError for others); forgetPicture
    // leaves no picture at all, as before the first frame.
    std::vector<std::uint8_t> pictureBytes();
    void restorePicture(std::span<const std::uint8_t> bytes);
    void forgetPicture();

    // ---- another emulator's saved state (emu/state/uss.cpp) ------------------------------
    // Runs the chipset alone, the CPU held, until the beam stands at (vpos, hpos): within
    // two frames, else a StateError. The CPU's clock moves with it.
    void advanceBeamTo(unsigned vpos, unsigned hpos);
    // After the chips, the CPU and memory were set from outside: the lines between the
    // chips (drives, ports, interrupt level) settle, the accounting of the frame in
    // progress starts here, and no picture is shown until the next frame completes.
    void settleImported();

    // Whether the CPU has halted (double bus fault) and the machine cannot go on.
    bool halted() const { return cpu_.halted(); }

private:
    friend struct CpuBus;
    enum class Region : std::uint8_t { Unmapped, Chip, Cia, Slow, Custom, ExtRom, Rom, Autoconfig, Fast, Rtc };

    unsigned cpuAccess(m68k::BusCycle& c);
    // Power-on state of memory, beam, clock and the devices outside the chips.
    void coldStart();
    // What a loaded state (a file or a snapshot) needs besides serialize: the interrupt
    // level and the accounting of the frame in progress start again here.
    void afterLoad();
    // The picture part of a state file (saveState, loadState).
    struct Picture;
    void savePicture(Archive& ar);
    Picture readPicture(Archive& ar) const;
    void applyPicture(Picture&& picture);
    void resetLine();
    // The fast RAM board's AutoConfig area and where it answers (zorro_).
    void remapExpansion();
    // Applies config_ to the chips, the guest API and the memory map (construction, reconfigure).
    void applyConfig();
    std::uint16_t autoconfigWord(std::uint32_t a) const;
    void autoconfigWrite(std::uint32_t a, std::uint8_t v);
    void syncTo(MasterClock t);
    // The catch-up at an access off the chip bus (the ROMs, fast RAM): syncTo, unless it
    // would change nothing the next catch-up does not do all the same (syncCanWait).
    void syncOffBus(MasterClock t);
    std::uint16_t romWord(std::uint32_t a, Region r) const; // a word of the ROM or the extended ROM
    bool syncCanWait(MasterClock t);
    bool syncsMayWait_ = false; // inside a step of runFrame or runUntil (step<false>)
    // syncCanWait holds for every t below this while nothing has moved since it was found:
    // zero again at each catch-up of the CIAs (every access to the chipset makes one) and
    // when runFrame or runUntil begins (whatever changed the machine between runs).
    MasterClock waitBound_ = 0;
    void syncCias(MasterClock t);
    void updateIpl();
    // Hands CIA-B's port B pins to the drives and their status lines to CIA-A's port A.
    void updateDriveLines();
    // The guest is about to execute the instruction at $F0FF60: perform its uaelib call.
    void uaelibCall();
    bool overlay() const { return (ciaA_.portAPins() & 1) != 0; }
    Region region(std::uint32_t a) const { return map_[(a >> 16) & 0xFF]; }
    std::uint16_t readMemoryWord(std::uint32_t a, Region r) const;

    // BeamListener
    void hsync(std::uint64_t cck) override;
    void vsync(std::uint64_t cck) override;
    void frameCommitted(std::uint64_t frame) override;

    Config config_;
    ChipRam chip_;
    std::vector<std::uint8_t> slow_;
    std::vector<std::uint8_t> fast_;
    struct ZorroBoard {
        bool configured = false, shutUp = false;
        std::uint8_t lowNibble = 0; // A19-A16 of the base, written before the high nibble
        std::uint32_t base = 0;
    } zorro_;
    std::vector<std::uint8_t> rom_, extRom_;
    Denise denise_;
    Paula paula_;
    FloppyController floppy_;
    GuestApi guestApi_;
    Blitter blitter_;
    Copper copper_;
    Agnus agnus_;
    Cia ciaA_, ciaB_;
    Keyboard keyboard_;
    Rtc rtc_;
    CpuBus bus_;
    m68k::ObserverSet cpuObservers_;
    Cpu cpu_;
    Region map_[256];
    // Per-frame accounting (frame_stats.h): [0] the frame in progress, [1] the last one.
    FrameStats frameStats_[3]; // in progress, the last completed, the one before it
    bool statsHistoryGap_ = false; // after a load: the next frame's end leaves [2] unknown
    BlitTrace blitTrace_;
    std::uint64_t statsDeniedAtStart_ = 0; // Agnus::cpuDeniedTotal() at the frame's first clock
    bool statsFrameEnded_ = false;         // a frame committed during the current step
    std::uint64_t statsBoundaryDenied_ = 0;
    std::vector<FrameObserver*> frameObservers_;
    CpuStepObserver* stepObserver_ = nullptr;
    CpuMomentObserver* momentObserver_ = nullptr;
    MasterClock nextMoment_ = CpuMomentObserver::kNever;
    CpuStepStart momentStart_; // where a step near the next moment started
    MasterClock momentStartAt_ = ~MasterClock(0);
    bool muted_ = false;
    // stepInstruction; with Whole false the chipset may be left behind the CPU where
    // nothing but the next catch-up would see it (syncCanWait): runFrame and runUntil
    // catch up before they return.
    template <bool Whole>
    void step();
    void beginFrameStats(std::uint64_t frame, std::uint64_t firstCck, bool partial);
    void accountStep(MasterClock t0, std::uint64_t denied0, unsigned kind, std::uint32_t pc);
    // Steps of STOP (one colour clock each, as stepInstruction takes them) while nothing
    // watches steps one by one: the same steps without the per-step bookkeeping nobody
    // asked for. Returns when the CPU runs again, a frame ends, an observer wants a step,
    // `frame` is over or the clock reaches `until`.
    void runStoppedSteps(MasterClock until, std::uint64_t frame);
    // One step of a stopped (or halted) CPU: one colour clock, or the interrupt entry that
    // wakes it. Returns the step's kind for the accounting.
    unsigned stepStoppedClock();
    // The same, for the clock the chipset has just run, ending at `next`.
    unsigned stoppedClockTo(MasterClock next);
    // How far stopped clocks from t0 may run as one stretch (runStoppedSteps); 0: not at all.
    std::uint64_t sleepEnd(MasterClock t0, MasterClock until) const;
    void tellMoment(const CpuStep& step, MasterClock t0);
    unsigned lastIpl_ = 0;
    std::uint64_t lastIplAt_ = 0;
    std::function<void(std::uint64_t)> onFrame_;
    CpuAccessObserver* accessObserver_ = nullptr;
    CpuAccessObserver* accessProbe_ = nullptr;
    std::uint8_t portButtons_ = 0;
    // FNV-1a of rom_ and extRom_ for state headers (the empty ROM's hash until one is set).
    std::uint64_t romHash_ = 0xCBF29CE484222325ull, extRomHash_ = 0xCBF29CE484222325ull;
    VideoField fields_[2];
    unsigned lastFieldIndex_ = 0;
};

} // namespace copperline
