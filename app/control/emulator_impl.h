// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The emulator thread's inside: shared by emulator.cpp (the thread, the run loop, stops
// and snapshots) and machine_commands.cpp (the commands). Everything here but the queue,
// the listener list and the published snapshot belongs to the emulator thread alone.

#include "app/control/emulator.h"
#include "app/control/loaded_symbols.h"
#include "app/control/run_report.h"
#include "app/control/source_debugger.h"
#include "emu/machine.h"
#include "profiler/capture/frame_capture.h"
#include "profiler/coverage/coverage_sidecar.h"
#include "profiler/sampling/sampler.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/code_namer.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/sampling/system_sampler.h"
#include "profiler/strip/strip_cutter.h"
#include "emu/record/record.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace copperline {

struct Breakpoint {
    enum class Kind { Pc, Watch, Line, Function, Catch };
    int id = 0;
    Kind kind = Kind::Pc;
    std::uint32_t address = 0; // pc, or the first byte watched
    std::uint32_t length = 1;  // watch: bytes watched
    bool onRead = false, onWrite = true;
    // Line and function breakpoints: every address they stop at (source_debugger.h's
    // Location), found again whenever the programs loaded change; `pending` says why there
    // is none.
    std::vector<SourceDebugger::Location> locations;
    std::string file, function, pending;
    std::uint32_t line = 0;
    // Stops only when the condition holds, after `ignore` hits; a log point prints `log`
    // (with {expressions} in it filled in) instead of stopping.
    std::shared_ptr<const CExpression> condition;
    std::uint64_t ignore = 0, hits = 0;
    std::string log;
    // A watch set on an expression: what it named, and its value as last seen.
    std::string expr;
    std::shared_ptr<const SourceValue> watched;
    std::size_t watchedProgram = 0;
    std::vector<std::uint8_t> lastBytes;
    // A watch on a frame's local: that frame (its CFA and function), the return address
    // its caller resumes at and the context it runs in. When the caller resumes there with
    // the frame gone (the stack pointer back at the CFA), the watch is deleted and the run
    // stops, as gdb does when the program leaves the block.
    std::uint32_t scopeCfa = 0, scopeReturn = 0;
    std::string scopeFunction;
    StepContext scopeContext;
    // The watched bytes as the instruction being replayed found them (reverse searches).
    std::vector<std::uint8_t> replayBefore;
    // A catch: the exception vector an instruction raises, and whether one raised by an
    // instruction in the ROM ($E00000 up) passes.
    std::uint8_t vector = 0;
    bool outsideRom = false;
    bool stopsAt(std::uint32_t pc) const;
};

// A resume's own test at every step boundary (line steps, line_step.cpp): told before each
// step runs and asked after it whether the run stops there.
struct BoundaryWatch {
    virtual ~BoundaryWatch() = default;
    virtual void before(Machine& m) = 0;
    struct Stop {
        const char* reason = "step";
        nlohmann::json detail;
        std::optional<unsigned> hiddenInline; // the stop's view of inlined frames
    };
    virtual std::optional<Stop> after(Machine& m) = 0;
};

struct Emulator::Impl : CpuAccessObserver {
    Impl(std::unique_ptr<Machine> m, const Options& o);
    ~Impl() override;

    // ---- shared with other threads ----------------------------------------------------
    struct Request {
        std::string method;
        nlohmann::json params;
        Done done;
    };
    std::mutex queueMutex;
    std::condition_variable wake;
    std::deque<Request> queue;
    std::atomic<bool> pending{false};
    bool exit = false;
    std::thread thread;

    std::mutex listenerMutex;
    std::map<int, Listener> listeners;
    int nextListener = 1;
    std::atomic<int> frameInterest{0}, serialInterest{0};

    // The latest snapshot. A plain mutex rather than std::atomic<std::shared_ptr>: it is
    // taken once per publication (a frame or a command) and once per read, too seldom to
    // cost anything measurable, and ThreadSanitizer understands it (libstdc++ 12's atomic
    // shared_ptr locks with a bit of its pointer, which it does not).
    mutable std::mutex publishedMutex;
    std::shared_ptr<const Snapshot> published;
    std::function<void()> quitHandler;

    // ---- the emulator thread's own ----------------------------------------------------
    std::unique_ptr<Machine> machine;
    Options options;
    // The record of the past (emu/record/record.h): every input from outside goes through
    // applyInput so that it is logged.
    std::unique_ptr<Record> record;
    CommandBus bus;

    bool running = false;
    // Set while a handler runs: the handler asks for its reply to wait for the next stop.
    bool deferReply = false;
    bool quitRequested = false; // set by `quit`: the quit handler runs after its reply
    // Set once the quit handler has run: every request after it, and every resume still
    // waiting, is answered with ShuttingDown rather than left to die with the thread.
    bool quitting = false;
    std::vector<Done> stopWaiters;
    // What ends the current resume (besides breakpoints and pause).
    struct Target {
        enum class Kind { None, Steps, Frame, Pc, Beam, PcOutside } kind = Kind::None;
        std::uint64_t count = 0; // Steps: instructions left
        std::uint64_t frame = 0; // Frame: stop once machine.frame() reaches it; Beam: at this frame
        std::uint32_t pc = 0;
        unsigned beam = 0; // Beam: vpos * 256 + hpos, reached in `frame`
        std::uint32_t rangeStart = 0, rangeEnd = 0; // PcOutside: stop at a pc outside [start, end)
        const char* reason = "target";
    } target;
    // The first instruction after a resume runs even if a breakpoint sits on it, so that
    // continue leaves a breakpoint it stopped at.
    bool skipBreakOnce = false;

    std::vector<Breakpoint> breakpoints;
    int nextBreakpoint = 1;
    // The line and function breakpoints' locations, found again (the programs loaded changed).
    void resolveBreakpoints();
    // Whether the breakpoints at pc stop the run (their conditions, hits and log points
    // weighed): the stop's detail, or nullopt to run on.
    std::optional<nlohmann::json> breakpointStop(std::uint32_t pc);
    // The resume's boundary test, if any; every stop ends it.
    std::unique_ptr<BoundaryWatch> boundaryWatch;

    // The source-level debugger's engine (source_debugger.h), and how it reaches us.
    struct SourceHost final : SourceDebugger::Host {
        explicit SourceHost(Impl& i) : impl(i) {}
        Machine& machine() override { return *impl.machine; }
        std::vector<SourceProgram> programs() override;
        std::shared_ptr<const CodeNamer> systemNamer() override { return impl.systemNamer(); }
        bool writeMemory(std::uint32_t address, std::span<const std::uint8_t> bytes) override;
        void writeRegister(int reg, std::uint32_t value) override;
        Impl& impl;
    } sourceHost{*this};
    SourceDebugger source{sourceHost};
    // How the next stop shows inlined frames at its PC (set by the step that makes it);
    // otherwise as gdb does: an inlined call's first instruction shows its caller.
    std::optional<unsigned> stopHiddenInline;
    std::vector<std::uint32_t> pcBreaks; // sorted pc breakpoint addresses, for the run loop
    struct WatchHit {
        int id = 0;
        std::uint32_t address = 0;
        unsigned size = 0;
        bool write = false;
        std::uint16_t value = 0;
    };
    std::vector<WatchHit> watchHits; // this instruction's, one per watch
    std::uint32_t currentPc = 0; // the instruction being stepped, for watch reports
    // Catches: the exception the instruction being stepped raised, heard while any catch
    // is set (breakpoint_commands.cpp).
    struct ExceptionCatcher final : m68k::Observer {
        std::optional<m68k::ExceptionInfo> taken;
        void exceptionTaken(const m68k::ExceptionInfo& e) override {
            // An interrupt taken on the way does not hide the instruction's own exception.
            if (!taken || (taken->vector >= m68k::kVectorSpurious && taken->vector < m68k::kVectorTrap0)) taken = e;
        }
    } catcher;

    // --run under --control (Options::runProgram): the program's name on the run disk, its
    // debug information (when it has any), the first instruction of its latest load (0
    // once stopped there) and its hunks as loaded.
    struct RunProgram {
        std::string name;
        std::shared_ptr<const DebugInfo> info;
        std::string infoError;
        std::uint32_t entry = 0, segList = 0;
        std::vector<AmigaOsSegment> segments;
        bool warping = false; // unpaced until the first load
        // The loader's dos.library base and the program's output handle (RunEvent::Started),
        // and Write()'s entry while the program runs (0 otherwise): what it writes to its
        // output is sent as event.output.
        std::uint32_t dosBase = 0, output = 0, writeVector = 0;
        std::uint64_t lastWriteAt = ~0ull; // the cycle whose Write() was last told
        bool stopAtEntry = true; // run.program {"stop": false} runs on past the first instruction
        FreeMemory freeMemory;   // what exec had free when the loader last reported it
        std::uint64_t loadBytes = 0; // what LoadSeg allocates for it (run_report.h)
        std::size_t hunks = 0;
        // Set when the loader could not load or start the program: the run stops with
        // reason run_failed and this detail, instead of waiting for a first instruction
        // that never comes.
        std::optional<nlohmann::json> failed;
    } run;
    void runMessage(const GuestApi::RunMessage& message);
    // Arms the loadseg stop for `program` (--run, run.program): its name, its debug
    // information, and the warp until it loads.
    void armRun(const std::string& program, bool stopAtEntry);
    void runProgramLoaded(std::uint32_t segList);
    // At Write()'s entry while the --run program runs: what it writes to its output, as
    // event.output.
    void programWrite();
    nlohmann::json runProgramJson() const;

    // Debug information loaded by hand for code that is no AmigaOS executable
    // (symbols.load, --symbols; loaded_symbols.h), in the order loaded.
    std::vector<LoadedSymbols> loadedSymbols;
    // The one naming of system code (code_namer.h), read from the machine once per frame
    // (symbol_commands.cpp).
    std::shared_ptr<const CodeNamer> systemNamer();
    std::shared_ptr<const CodeNamer> codeNamer;
    std::uint64_t codeNamerFrame = 0, codeNamerAt = 0;

    bool frameCommitted = false;
    bool memoryChosen = false; // see Options::memoryChosen; machine.memory sets it
    bool publishRecords = false; // frame.record: keep full slot records in snapshots
    std::uint64_t snapshotSerial = 0;
    std::shared_ptr<const Image> picture;
    std::uint64_t pictureFrame = 0;
    std::shared_ptr<const OwnerGrid> grid;
    std::shared_ptr<const OwnerGrid> previousGrid, progressGrid;
    bool gridContinues = false; // grid's frame is the one before the next committed frame
    std::uint64_t progressCck = 0; // the beam progressGrid was made at

    std::string serialBuffer;

    // The per-frame capture (profile.start); kept after it ends so profile.status can
    // report how it ended, replaced by the next.
    // Its precise sampler ("samples": true), declared first so that it outlives the capture.
    std::unique_ptr<Sampler> sampler;
    std::unique_ptr<CoverageSidecar> coverage; // "coverage": true, likewise
    std::unique_ptr<SystemSampler> systemSampler; // "sampler": {...}, likewise
    // What the coverage family shows (coverage_commands.cpp).
    std::shared_ptr<void> coverageView;
    std::unique_ptr<FrameCapture> capture;
    // Full slot records are armed while the Frame Analyzer wants them or a capture does.
    void updateSlotRecording();
    // uaelib's log lines and resource changes since the last event.debug (bounded).
    static constexpr std::size_t kMaxDebugItems = 256;
    nlohmann::json debugItems = nlohmann::json::array();
    std::uint64_t debugDropped = 0;
    bool debugResourcesChanged = false;
    std::uint64_t overlayGeneration = ~std::uint64_t(0);
    std::shared_ptr<const OverlayShapes> overlay;

    // The profile strip's cuts (strip_commands.cpp): told of the boundaries at its start and
    // end, and of every boundary while a call is open, by the run loop.
    strip::StripCutter strip;
    void stripBoundary(std::uint32_t pc);

    // The file behind each drive's disk (media_commands.cpp).
    std::array<FloppyFile, 4> floppies;
    // Writes drive n's disk back to its file as it leaves (floppy_files.h); what there is
    // to say goes to stderr and is returned. Throws MediaError when it cannot be written.
    std::string releaseDisk(unsigned n);
    // Every drive's, as the emulator stops.
    void releaseDisks();

    // Pacing: a paced session (the window) runs unpaced while warp is on (warp.set), while
    // the program asks for it (uaelib's "cpu_speed max") and while a run program boots;
    // options.paced is what the run loop obeys.
    bool sessionPaced = false;
    bool warpManual = false;
    bool warpGuest = false; // the program asked for it (uaelib function 82)
    void updatePacing();

    // Pacing and speed.
    using Clock = std::chrono::steady_clock;
    bool paceValid = false;
    Clock::time_point paceHost;
    double paceEmu = 0;
    Clock::time_point speedHost;
    double speedEmu = 0;
    double speed = 0;

    // ---- the thread -------------------------------------------------------------------
    void threadMain();
    void drain(std::unique_lock<std::mutex>& lock);
    void runSlice();
    void onFrame();
    void pace();
    void execute(Request& request);
    // Answers every resume that waits for a stop with ShuttingDown.
    void abandonStopWaiters();

    // Stops a run: answers every waiting resume with the stop event and notifies listeners.
    // Ends a run: publishes the stop, sends event.stopped and answers those waiting for it;
    // returns the event.
    nlohmann::json stopRun(const char* reason, nlohmann::json detail = nullptr);
    nlohmann::json position() const; // pc, frame, vpos, hpos, cck, seconds, instructions
    nlohmann::json status() const;
    // Starts a resume: the reply waits for the stop.
    void resume(const Target& t);
    void publish();
    void sendEvent(const std::string& method, const nlohmann::json& params);
    void rebuildBreakIndex();
    // The timeline moved backward (a state load, a reverse step, a seek): the capture in
    // progress writes its reposition marker. Every verb that moves it back calls this.
    void timelineMoved();
    // Sends what uaelib delivered since the last call as one event.debug.
    void flushDebugEvents();
    // Applies an input from outside through the record (at `due`, a master clock, or now).
    void applyInput(const MachineInput& in, std::uint64_t due = 0);
    // The owner grid and the picture of the last committed frame, as onFrame builds them
    // (after the record moved the machine, a state load or a power cycle).
    void refreshFrameViews();
    // Powers the machine off and on (machine.reset cold, machine.memory, run.program): a new
    // record, the timeline moved back, views empty until the first frame.
    void powerCycle();

    // CpuAccessObserver: watchpoints.
    void cpuAccess(const m68k::BusCycle& cycle) override;

    CpuRegisters registers() const;
};

// Registers the session, execution and inspection commands on impl.bus
// (machine_commands.cpp).
void registerMachineCommands(Emulator::Impl& impl);
// break.* (breakpoint_commands.cpp).
void registerBreakpointCommands(Emulator::Impl& impl);
// state.* (state_commands.cpp).
void registerStateCommands(Emulator::Impl& impl);
void registerUssCommands(Emulator::Impl& impl);
// The profile family (profile_commands.cpp).
void registerProfileCommands(Emulator::Impl& impl);
// Registers the debug family, debug.resources and debug.idle (debug_commands.cpp).
void registerDebugCommands(Emulator::Impl& impl);
void registerCoverageCommands(Emulator::Impl& impl);
// The line steps: step_line, next_line, reverse_step_line, reverse_next_line (line_step.cpp);
// step_out's inlined-frame form.
void registerLineStepCommands(Emulator::Impl& impl);
// A watchpoint stop's detail, filled in with who wrote (breakpoint_commands.cpp).
// Whether a watch's hit stops the run (condition, ignore count; an expression's watch only
// when its value changed), filling in `detail`: the writer, and an expression's old and new
// values.
bool watchStops(Emulator::Impl& impl, nlohmann::json& detail);
// At a pc where a local's watch may go out of scope: the stop (reason watchpoint_scope) when
// its frame has returned, the watch deleted.
std::optional<nlohmann::json> watchScopeEnds(Emulator::Impl& impl, std::uint32_t pc);
// After an instruction raised `taken` (the instruction at instruction_pc): the catch's stop
// detail when a catch on its vector stops the run (breakpoint_commands.cpp).
std::optional<nlohmann::json> catchStops(Emulator::Impl& impl, const m68k::ExceptionInfo& taken,
                                         std::uint32_t instructionPc);
// An exception vector's name as catches report it ("address error", "TRAP #7").
std::string exceptionName(unsigned vector);
// step_out from an inlined call: runs until the PC leaves it (line_step.cpp). False when the
// innermost frame is no inlined call (step_out then waits for the routine's return).
bool armInlineFinish(Emulator::Impl& impl, const nlohmann::json& params);
// One frame as stack.frames lists it (stack_commands.cpp).
nlohmann::json stackFrameJson(Emulator::Impl& impl, const StackFrame& frame, std::size_t index);
// stack.frames (stack_commands.cpp).
void registerStackCommands(Emulator::Impl& impl);
// vars.scopes, vars.get, vars.set, eval (vars_commands.cpp).
void registerVarsCommands(Emulator::Impl& impl);
// source.files, source.lines, source.resolve (source_commands.cpp).
void registerSourceCommands(Emulator::Impl& impl);
// A uaelib resource as debug.resources and event.debug report it.
nlohmann::json resourceJson(const GuestApi::Resource& r);
// The Frame Analyzer's commands: frame.record, frame.slots, frame.waits, frame.blits,
// blit.render (frame_commands.cpp).
void registerFrameCommands(Emulator::Impl& impl);
// The record's commands: reverse_*, timeline.*, last_writer (record_commands.cpp).
void registerRecordCommands(Emulator::Impl& impl);
// input.key, input.mouse, input.joy (input_commands.cpp).
void registerInputCommands(Emulator::Impl& impl);
void registerSymbolCommands(Emulator::Impl& impl);
// media.floppy.* (media_commands.cpp).
void registerMediaCommands(Emulator::Impl& impl);
// run.program, warp.get, warp.set (run_commands.cpp).
void registerRunCommands(Emulator::Impl& impl);
// The machine stands where the record put it: the views follow, the capture hears of a
// backward move from `fromCycle`, and the stop (reason) is announced as any other; returns
// the position with the reason (record_commands.cpp).
nlohmann::json arrived(Emulator::Impl& e, const char* reason, std::uint64_t fromCycle,
                       nlohmann::json detail = nullptr);
// strip.* (strip_commands.cpp).
void registerStripCommands(Emulator::Impl& impl);
// copper.list (copper_commands.cpp).
void registerCopperCommands(Emulator::Impl& impl);
// custom.dump, custom.writer (custom_commands.cpp).
void registerCustomCommands(Emulator::Impl& impl);
// A register's value by its named bits, as copper.list and custom.dump give it:
// [{name, shift, width, value}] (empty for a register that holds one number).
nlohmann::json registerFieldsJson(std::uint16_t reg, std::uint16_t value);
// mem.find, mem.regions (memory_commands.cpp).
void registerMemoryCommands(Emulator::Impl& impl);
void registerRtcCommands(Emulator::Impl& impl);
// "hunks" ({base, size}) and "relocation_bases" of a segment list, as segments.list gives them.
void addSegmentsJson(nlohmann::json& out, const std::vector<AmigaOsSegment>& segments);

// Chip RAM (and its mirrors) or slow RAM: what the debugger may write and the record
// tracks writes to.
bool isRam(const Machine& m, std::uint32_t address);
// Refuses while the machine runs: -32002 when a resume waits for it to stop (if `resume`),
// else -32003.
void requirePaused(const Emulator::Impl& e, const char* what, bool resume = true);

} // namespace copperline
