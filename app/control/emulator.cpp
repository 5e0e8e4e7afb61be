// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"
#include "emu/media/adf.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"
#include "profiler/capture/screenshot.h"

#include <algorithm>
#include <filesystem>
#include <future>
#include <utility>

namespace copperline {

namespace {
// How long a paced session runs unpaced waiting for the --run program to load.
constexpr double kRunWarpSeconds = 60.0;
} // namespace

namespace {

// Frames a paced run may fall behind real time before it stops trying to catch up (a
// debugger pause or a slow host must not cause a burst of unpaced frames afterwards).
constexpr double kPaceSlackSeconds = 0.25;

CommandResult shuttingDown() {
    CommandResult r;
    r.errorCode = errc::ShuttingDown;
    r.errorMessage = "the emulator is shutting down";
    return r;
}

} // namespace

// ---- construction ----------------------------------------------------------------------------

Emulator::Impl::Impl(std::unique_ptr<Machine> m, const Options& o)
    : machine(std::move(m)), options(o), memoryChosen(o.memoryChosen) {
    machine->setFrameCallback([this](std::uint64_t) { frameCommitted = true; });
    machine->setSerialSink([this](std::uint8_t b) {
        // A replay goes over output the guest gave already.
        if (record && record->replaying()) return;
        if (options.serialOut) {
            std::fputc(b, options.serialOut);
            if (b == '\n') std::fflush(options.serialOut);
        }
        // Bounded: with nobody listening the buffer is dropped at each frame anyway.
        if (serialInterest.load(std::memory_order_relaxed) > 0 && serialBuffer.size() < 65536)
            serialBuffer.push_back(char(b));
    });
    machine->guestApi().setChangeListener([this](GuestApi::Change c) {
        if (c == GuestApi::Change::Resources) {
            debugResourcesChanged = true;
            return;
        }
        // A replay goes over log lines the guest gave already.
        if (record && record->replaying()) return;
        const auto& line = machine->guestApi().log().back();
        if (debugItems.size() >= kMaxDebugItems) {
            ++debugDropped;
            return;
        }
        debugItems.push_back({{"kind", "log"},
                              {"text", params::latin1ToUtf8(line.text)},
                              {"refused", line.refused},
                              {"frame", line.frame},
                              {"cck", line.cck}});
    });
    overlay = std::make_shared<const OverlayShapes>();
    running = options.startRunning;
    record = std::make_unique<Record>(*machine, options.recordBudgetBytes);
    registerMachineCommands(*this);
    registerBreakpointCommands(*this);
    registerStateCommands(*this);
    registerUssCommands(*this);
    registerProfileCommands(*this);
    registerDebugCommands(*this);
    registerCoverageCommands(*this);
    registerFrameCommands(*this);
    registerRecordCommands(*this);
    registerInputCommands(*this);
    registerSymbolCommands(*this);
    registerMediaCommands(*this);
    registerRunCommands(*this);
    registerStripCommands(*this);
    registerLineStepCommands(*this);
    registerStackCommands(*this);
    registerVarsCommands(*this);
    registerSourceCommands(*this);
    registerCopperCommands(*this);
    registerCustomCommands(*this);
    registerMemoryCommands(*this);
    registerRtcCommands(*this);
    floppies = options.floppies;
    loadedSymbols = options.symbols;
    sessionPaced = options.paced;
    machine->guestApi().setRunHandler([this](const GuestApi::RunMessage& message) { runMessage(message); });
    machine->guestApi().setWarpHandler([this](bool on, const std::string&) {
        warpGuest = on;
        updatePacing();
    });
    if (!options.runProgram.empty()) armRun(options.runProgram, true);
    updatePacing();
    publish();
}

Emulator::Impl::~Impl() {
    // A capture still running is finished (its profile.json written) before the machine goes.
    capture.reset();
    machine->setFrameCallback(nullptr);
    machine->setSerialSink(nullptr);
    machine->guestApi().setRunHandler({});
    machine->guestApi().setWarpHandler({});
    machine->setCpuAccessObserver(nullptr);
    machine->guestApi().setChangeListener(nullptr);
}

Emulator::Emulator(std::unique_ptr<Machine> machine, const Options& options)
    : impl_(std::make_unique<Impl>(std::move(machine), options)) {}

Emulator::~Emulator() {
    stop();
}

void Emulator::start() {
    if (impl_->thread.joinable()) return;
    {
        std::lock_guard lock(impl_->queueMutex);
        impl_->exit = false;
    }
    impl_->thread = std::thread([this] { impl_->threadMain(); });
}

void Emulator::stop() {
    if (!impl_->thread.joinable()) return;
    {
        std::lock_guard lock(impl_->queueMutex);
        impl_->exit = true;
    }
    impl_->pending = true;
    impl_->wake.notify_all();
    impl_->thread.join();
}

// ---- the outside's door ------------------------------------------------------------------------

void Emulator::submit(std::string method, nlohmann::json params, Done done) {
    {
        std::lock_guard lock(impl_->queueMutex);
        impl_->queue.push_back({std::move(method), std::move(params), std::move(done)});
    }
    impl_->pending.store(true, std::memory_order_release);
    impl_->wake.notify_all();
}

CommandResult Emulator::call(const std::string& method, const nlohmann::json& params) {
    // The thread object changes only in start and stop, which its owner does not run
    // while it calls.
    const std::thread::id worker = impl_->thread.get_id();
    if (worker == std::thread::id() || std::this_thread::get_id() == worker) {
        // Not started, or from inside a handler or listener: the wait would never end.
        CommandResult r;
        r.errorCode = worker == std::thread::id() ? errc::ShuttingDown : errc::InternalError;
        r.errorMessage = worker == std::thread::id() ? "the emulator thread is not running"
                                                     : "Emulator::call from the emulator thread";
        return r;
    }
    auto promise = std::make_shared<std::promise<CommandResult>>();
    auto future = promise->get_future();
    submit(method, params, [promise](const CommandResult& r) { promise->set_value(r); });
    return future.get();
}

std::shared_ptr<const Snapshot> Emulator::snapshot() const {
    std::lock_guard lock(impl_->publishedMutex);
    return impl_->published;
}

int Emulator::addListener(Listener listener) {
    std::lock_guard lock(impl_->listenerMutex);
    const int id = impl_->nextListener++;
    impl_->listeners.emplace(id, std::move(listener));
    return id;
}

void Emulator::removeListener(int id) {
    std::lock_guard lock(impl_->listenerMutex);
    impl_->listeners.erase(id);
}

void Emulator::wantFrameEvents(bool on) {
    impl_->frameInterest += on ? 1 : -1;
}
void Emulator::wantSerialEvents(bool on) {
    impl_->serialInterest += on ? 1 : -1;
}

void Emulator::setQuitHandler(std::function<void()> handler) {
    std::lock_guard lock(impl_->queueMutex);
    impl_->quitHandler = std::move(handler);
}

const CommandBus& Emulator::bus() const {
    return impl_->bus;
}

// ---- the thread --------------------------------------------------------------------------------

void Emulator::Impl::threadMain() {
    std::unique_lock lock(queueMutex);
    while (!exit) {
        if (!running && queue.empty()) {
            wake.wait(lock, [this] { return exit || !queue.empty(); });
            continue;
        }
        if (!queue.empty()) {
            drain(lock);
            continue;
        }
        lock.unlock();
        runSlice();
        lock.lock();
    }
    // Whatever still waits gets an answer: the machine will not stop for it now.
    std::deque<Request> left;
    left.swap(queue);
    lock.unlock();
    const CommandResult gone = shuttingDown();
    for (auto& r : left)
        if (r.done) r.done(gone);
    abandonStopWaiters();
    // However the session ends (quit, the window closed, a signal), the disks the guest
    // changed go back to their files where the user asked.
    releaseDisks();
}

void Emulator::Impl::abandonStopWaiters() {
    auto waiters = std::move(stopWaiters);
    stopWaiters.clear();
    const CommandResult gone = shuttingDown();
    for (auto& w : waiters)
        w(gone);
}

void Emulator::Impl::drain(std::unique_lock<std::mutex>& lock) {
    while (!queue.empty() && !exit) {
        Request r = std::move(queue.front());
        queue.pop_front();
        pending.store(!queue.empty(), std::memory_order_relaxed);
        lock.unlock();
        execute(r);
        lock.lock();
    }
    pending.store(!queue.empty() || exit, std::memory_order_relaxed);
}

void Emulator::Impl::execute(Request& request) {
    if (quitting) {
        if (request.done) request.done(shuttingDown());
        return;
    }
    deferReply = false;
    CommandResult result = bus.call(request.method, request.params);
    // Whoever gets the reply may look at the snapshot next: it must show the command done.
    publish();
    if (result.ok && deferReply) {
        if (request.done) stopWaiters.push_back(std::move(request.done));
    } else if (request.done) {
        request.done(result);
    }
    deferReply = false;
    if (quitRequested) {
        quitRequested = false;
        std::function<void()> handler;
        {
            std::lock_guard lock(queueMutex);
            handler = quitHandler;
        }
        if (handler) handler();
        // The program ends soon: the machine stops here, and whoever waits for it to stop,
        // or sends anything after the quit, hears so now, while the server can still
        // deliver it (docs/control-protocol.md, quit).
        quitting = true;
        running = false;
        target = Target{};
        publish();
        abandonStopWaiters();
    }
}

void Emulator::Impl::runSlice() {
    Machine& m = *machine;
    auto& cpu = m.cpu();
    Record& rec = *record;
    // Run on from an earlier moment: the cuts made after it are of another timeline.
    strip.runFrom(m.now());
    while (running) {
        if (pending.load(std::memory_order_relaxed)) return;
        if (m.now() >= rec.nextDue()) rec.applyDue();
        const std::uint32_t pc = cpu.instructionAddress();
        if (!skipBreakOnce && !pcBreaks.empty() &&
            std::binary_search(pcBreaks.begin(), pcBreaks.end(), pc)) {
            if (auto scope = watchScopeEnds(*this, pc)) {
                stopRun("watchpoint_scope", std::move(*scope));
                return;
            }
            if (auto detail = breakpointStop(pc)) {
                stopRun("breakpoint", std::move(*detail));
                return;
            }
        }
        if (run.entry && pc == run.entry) {
            // The --run program's first instruction: a one-shot stop for each load.
            run.entry = 0;
            if (run.warping) {
                run.warping = false;
                updatePacing();
            }
            if (run.stopAtEntry) {
                stopRun("loadseg", runProgramJson());
                return;
            }
        }
        if (target.kind == Target::Kind::Pc && pc == target.pc && !skipBreakOnce) {
            stopRun(target.reason);
            return;
        }
        if (target.kind == Target::Kind::PcOutside && (pc < target.rangeStart || pc >= target.rangeEnd) &&
            !skipBreakOnce) {
            stopRun(target.reason);
            return;
        }
        if (pc == run.writeVector && run.writeVector) [[unlikely]]
            programWrite();
        // The instruction a resume starts on raises what it raises: a catch stopped before it.
        const bool resumedHere = skipBreakOnce;
        skipBreakOnce = false;
        currentPc = pc;
        const std::uint64_t before = m.now();
        catcher.taken.reset();
        const bool stripWants = strip.wants(pc);
        if (stripWants) [[unlikely]]
            stripBoundary(pc);
        if (cpu.stopped() && !stripWants && target.kind != Target::Kind::Beam && pc != run.entry &&
            !(target.kind == Target::Kind::Pc && pc == target.pc) &&
            !std::binary_search(pcBreaks.begin(), pcBreaks.end(), pc)) {
            // STOP: the checks above pass for each of its steps alike (its pc stays), so its
            // steps up to the record's next input or the frame's end are taken together.
            if (boundaryWatch) boundaryWatch->before(m);
            m.stepStopped(rec.nextDue());
        } else {
            if (boundaryWatch) boundaryWatch->before(m);
            m.stepInstruction();
        }
        if (run.failed) {
            nlohmann::json detail = std::move(*run.failed);
            run.failed.reset();
            run.entry = 0;
            if (run.warping) {
                run.warping = false;
                updatePacing();
            }
            stopRun("run_failed", std::move(detail));
            return;
        }
        if (catcher.taken && !resumedHere) {
            const m68k::ExceptionInfo taken = *catcher.taken;
            catcher.taken.reset();
            if (auto detail = catchStops(*this, taken, currentPc)) {
                // The machine goes back to stand before the instruction that raised it, as
                // a debugger shows a fault: on its line. Without the record it stays at the
                // handler, and says so.
                watchHits.clear();
                record->note();
                const std::uint64_t from = m.now();
                if (record->seek(Record::Key::Cycle, before)) {
                    arrived(*this, "catch", from, std::move(*detail));
                } else {
                    (*detail)["at_handler"] = true;
                    stopRun("catch", std::move(*detail));
                }
                return;
            }
        }
        if (!watchHits.empty()) {
            // Every watch the instruction touched is asked; the first that stops names the
            // stop, `ids` lists them all.
            const std::vector<WatchHit> hits = std::move(watchHits);
            watchHits.clear();
            std::optional<nlohmann::json> stop;
            nlohmann::json ids = nlohmann::json::array();
            for (const WatchHit& w : hits) {
                nlohmann::json detail = {{"id", w.id},
                                         {"address", w.address},
                                         {"size", w.size},
                                         {"access", w.write ? "write" : "read"},
                                         {"instruction_pc", currentPc}};
                // A write's value is on the bus as it reaches us; a read's is not yet.
                if (w.write)
                    detail["value"] =
                        w.size == 1 ? (w.address & 1 ? w.value & 0xFF : w.value >> 8) : w.value;
                if (!watchStops(*this, detail)) continue;
                ids.push_back(w.id);
                if (!stop) stop = std::move(detail);
            }
            if (stop) {
                if (ids.size() > 1) (*stop)["ids"] = ids;
                stopRun("watchpoint", std::move(*stop));
                return;
            }
        }
        if (m.halted()) {
            stopRun("double_fault");
            return;
        }
        if (boundaryWatch) {
            if (auto stop = boundaryWatch->after(m)) {
                stopHiddenInline = stop->hiddenInline;
                stopRun(stop->reason, std::move(stop->detail));
                return;
            }
        }
        switch (target.kind) {
        case Target::Kind::Steps:
            // A CPU in STOP waits for its interrupt; a step carries it there, but gives up
            // after two frames when no interrupt can reach it.
            if (cpu.stopped()) {
                if (m.frame() >= target.frame) {
                    stopRun(target.reason, {{"cpu_stopped", true}});
                    return;
                }
            } else if (--target.count == 0) {
                // An instruction step shows the innermost frame, as gdb's stepi does.
                stopHiddenInline = 0;
                stopRun(target.reason);
                return;
            }
            break;
        case Target::Kind::Frame:
            if (m.frame() >= target.frame) {
                if (frameCommitted) onFrame();
                stopRun(target.reason);
                return;
            }
            break;
        case Target::Kind::Beam: {
            const auto& a = m.agnus();
            const unsigned here = unsigned(a.vpos()) * 256 + a.hpos();
            if (m.frame() > target.frame || (m.frame() == target.frame && here >= target.beam)) {
                if (frameCommitted) onFrame();
                stopRun(target.reason);
                return;
            }
            break;
        }
        default: break;
        }
        if (frameCommitted) {
            onFrame();
            // A --run program that never loads: the warp gives up after a minute.
            if (run.warping && machine->emulatedSeconds() > kRunWarpSeconds) {
                run.warping = false;
                updatePacing();
            }
            if (options.paced) pace();
            // Hand the time to the command queue at least once a frame.
            return;
        }
    }
}

void Emulator::Impl::onFrame() {
    frameCommitted = false;
    record->frameStarted();
    refreshFrameViews();
    const Agnus& a = machine->agnus();
    const auto now = Clock::now();
    const double emu = machine->emulatedSeconds();
    if (speedHost == Clock::time_point{}) {
        speedHost = now;
        speedEmu = emu;
    } else if (const double dt = std::chrono::duration<double>(now - speedHost).count();
               dt >= 0.5) {
        speed = (emu - speedEmu) / dt;
        speedHost = now;
        speedEmu = emu;
    }
    publish();
    if (frameInterest.load(std::memory_order_relaxed) > 0) {
        nlohmann::json counts = nlohmann::json::object();
        for (unsigned o = 0; o < kBusOwnerCount; ++o)
            counts[busOwnerName(BusOwner(o))] = grid->counts[o];
        nlohmann::json event = {
            {"frame", grid->frame}, {"seconds", emu}, {"cck", a.cck()}, {"owner_cck", counts}};
        if (machine->guestApi().idleMarkersSeen())
            event["guest_idle_cck"] = machine->guestApi().lastFrameIdleCck();
        sendEvent("event.frame", event);
    }
    if (!serialBuffer.empty()) {
        if (serialInterest.load(std::memory_order_relaxed) > 0) {
            sendEvent("event.serial", {{"text", params::latin1ToUtf8(serialBuffer)}});
        }
        serialBuffer.clear();
    }
}

void Emulator::Impl::powerCycle() {
    machine->powerOn();
    // The past before it is another timeline, and power restarts the clock at zero.
    record->restart();
    timelineMoved();
    // A new machine has shown nothing yet: neither have the views.
    frameCommitted = false;
    refreshFrameViews();
}

void Emulator::Impl::refreshFrameViews() {
    const Agnus& a = machine->agnus();
    auto g = std::make_shared<OwnerGrid>();
    g->frame = machine->frame() ? machine->frame() - 1 : 0; // none before power-on's first
    g->lines = a.committedLines();
    g->lineCck = machine->config().ntsc ? 228 : 227;
    const bool ntsc = machine->config().ntsc;
    g->firstLineLong = ntsc && ntscFirstLineLongBefore(g->lines, ntscFirstLineLong(a.vpos(), a.lineLength()));
    g->owners = a.committedOwners();
    g->counts = a.committedOwnerCounts();
    if (publishRecords && a.recordingSlots()) g->records = a.committedRecords();
    // The frame before: the grid shown until now when it was that frame of this timeline,
    // else Agnus's owners of it (without records), when it knows them.
    if (grid && gridContinues && grid->frame + 1 == g->frame) {
        previousGrid = grid;
    } else if (grid && grid->frame == g->frame && gridContinues) {
        // the same frame again (a command that ran no frame): the one before stays
    } else if (a.previousLines() > 0 && g->frame > 0) {
        auto p = std::make_shared<OwnerGrid>();
        p->frame = g->frame - 1;
        p->lines = a.previousLines();
        p->lineCck = g->lineCck;
        p->firstLineLong = ntsc && ntscFirstLineLongBefore(p->lines, g->firstLineLong);
        p->owners = a.previousOwners();
        p->counts = a.previousOwnerCounts();
        previousGrid = std::move(p);
    } else {
        previousGrid = nullptr;
    }
    gridContinues = true;
    grid = std::move(g);
    if (const GuestApi& api = machine->guestApi(); api.overlayGeneration() != overlayGeneration) {
        overlayGeneration = api.overlayGeneration();
        overlay = std::make_shared<const OverlayShapes>(api.committedOverlay());
    }
    if (options.pictures) {
        // No field yet (a machine just powered on): no picture, as before the first frame.
        picture = machine->lastField().pixels.empty()
                      ? nullptr
                      : std::make_shared<const Image>(composeDisplay(*machine));
        pictureFrame = picture ? machine->lastField().frame : 0;
    }
}

void Emulator::Impl::pace() {
    const auto now = Clock::now();
    const double emu = machine->emulatedSeconds();
    if (!paceValid) {
        paceValid = true;
        paceHost = now;
        paceEmu = emu;
        return;
    }
    const auto due = paceHost + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(emu - paceEmu));
    if (now > due + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(kPaceSlackSeconds))) {
        paceHost = now;
        paceEmu = emu;
        return;
    }
    // Sleep until the frame is due, but wake for a command: a click must not wait a frame.
    std::unique_lock lock(queueMutex);
    wake.wait_until(lock, due, [this] { return exit || !queue.empty(); });
}

// ---- --run under --control ---------------------------------------------------------------------

void Emulator::Impl::armRun(const std::string& program, bool stopAtEntry) {
    run = RunProgram{};
    run.name = std::filesystem::path(program).filename().string();
    try {
        run.info = std::make_shared<const DebugInfo>(DebugInfo::load(program));
    } catch (const std::exception& e) {
        run.infoError = e.what(); // it still runs; symbols.resolve says why it cannot name it
    }
    try {
        const HunkFile hunks = readHunkFile(readFileBytes(program, adf::kImageBytes), program);
        run.loadBytes = loadBytes(hunks);
        run.hunks = hunks.sections.size();
    } catch (const std::exception&) {
        // run.program refused it already; --run's staging did too.
    }
    run.stopAtEntry = stopAtEntry;
    run.warping = sessionPaced;
    updatePacing();
}

void Emulator::Impl::stripBoundary(std::uint32_t pc) {
    Machine& m = *machine;
    const m68k::Registers r = m.cpu().registers();
    strip::StripCutter::Boundary b;
    b.pc = pc;
    b.stopped = m.cpu().stopped();
    b.supervisor = r.sr & 0x2000;
    b.usp = b.supervisor ? r.usp : r.a[7];
    b.ssp = b.supervisor ? r.a[7] : r.ssp;
    b.interruptPending = m.paula().ipl() > ((r.sr >> 8) & 7u);
    const RecordPoint p = record->here();
    b.at = {p.cycle, p.instructions, p.cck, p.frame};
    strip.boundary(b);
}

void Emulator::Impl::updatePacing() {
    const bool paced = sessionPaced && !warpManual && !warpGuest && !run.warping;
    // Pacing starts afresh from now: the warped time is not to be caught up with.
    if (paced != options.paced) paceValid = false;
    options.paced = paced;
}

std::string Emulator::Impl::releaseDisk(unsigned n) {
    const std::string said = writeBackFloppy(*machine, n, floppies[n]);
    if (!said.empty()) std::fprintf(stderr, "copperline: %s\n", said.c_str());
    return said;
}

void Emulator::Impl::releaseDisks() {
    for (unsigned n = 0; n < 4; ++n) {
        try {
            releaseDisk(n);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "copperline: DF%u: %s\n", n, e.what());
        }
    }
}

void Emulator::Impl::runMessage(const GuestApi::RunMessage& m) {
    if (run.name.empty()) return; // no run armed: not our loader's program
    using E = GuestApi::RunEvent;
    switch (m.event) {
    case E::Started:
        run.dosBase = m.a;
        run.output = m.b;
        break;
    case E::Loaded:
        runProgramLoaded(m.a);
        // dos.library's Write() sits 48 bytes below its base (_LVOWrite).
        run.writeVector = run.dosBase ? (run.dosBase - 48) & 0xFFFFFF : 0;
        break;
    case E::Memory: run.freeMemory = {m.a, m.b}; break;
    case E::LoadFailed:
        if (m.b != 0) break; // a --run-then line
        run.failed = {{"name", run.name},
                      {"io_err", m.a},
                      {"message", m.a == kNoFreeStore
                                      ? noMemoryToLoad(run.name, run.freeMemory, run.loadBytes, run.hunks)
                                      : "AmigaDOS could not load " + run.name + " (LoadSeg failed, IoErr " +
                                            std::to_string(m.a) + ")"}};
        if (m.a == kNoFreeStore) (*run.failed)["hint"] = kMoreMemoryHint;
        break;
    case E::Exited:
        run.writeVector = 0;
        if (m.a != 0xFFFFFFFFu) sendEvent("event.output", {{"name", run.name}, {"returned", m.a}, {"text", ""}});
        if (m.a == 0xFFFFFFFFu && m.b == kNoFreeStore && run.entry)
            run.failed = {{"name", run.name}, {"io_err", m.b}, {"message", noMemoryToRun(run.name, run.freeMemory)},
                          {"hint", kMoreMemoryHint}};
        break;
    default: break;
    }
    if (run.failed && run.freeMemory) {
        (*run.failed)["free"] = run.freeMemory->first;
        (*run.failed)["largest"] = run.freeMemory->second;
    }
}

void Emulator::Impl::programWrite() {
    // Write(d1 file, d2 buffer, d3 length) to the --run program's output: its bytes, once
    // (a stop on the call and the resume after it arrive at the same cycle), and not again
    // when the record replays the past.
    const auto r = machine->cpu().registers();
    if (r.d[1] != run.output || run.lastWriteAt == machine->now() || record->replaying()) return;
    run.lastWriteAt = machine->now();
    const std::int32_t length = std::int32_t(r.d[3]);
    if (length <= 0) return;
    const std::uint32_t n = std::min<std::uint32_t>(std::uint32_t(length), 64 * 1024);
    std::string bytes(n, '\0');
    for (std::uint32_t i = 0; i < n; ++i) bytes[i] = char(machine->spyByte((r.d[2] + i) & 0xFFFFFF));
    sendEvent("event.output", {{"name", run.name}, {"text", params::latin1ToUtf8(bytes)}});
}

void Emulator::Impl::runProgramLoaded(std::uint32_t segList) {
    // LoadSeg's segment list: each hunk's first byte follows its link longword; RunCommand
    // enters the first hunk's first byte.
    const MachineMemoryView memory(*machine);
    run.segList = segList;
    run.segments = readSegList(memory, segList);
    run.entry = run.segments.empty() ? 0 : run.segments.front().base;
    // Its lines and functions are where they are now.
    source.invalidate();
    resolveBreakpoints();
}

nlohmann::json Emulator::Impl::runProgramJson() const {
    nlohmann::json j = {{"name", run.name}, {"seglist", hex(run.segList)}, {"debug_info", run.info != nullptr}};
    addSegmentsJson(j, run.segments);
    if (!run.info) j["debug_info_error"] = run.infoError;
    if (run.info && !run.info->elfPath().empty()) {
        // Each hunk's ELF section and the address it was linked at: what a debugger that
        // reads the ELF itself (gdb) relocates it by.
        j["elf"] = std::filesystem::absolute(run.info->elfPath()).string();
        const auto& hunks = run.info->hunks();
        if (j.contains("hunks"))
            for (std::size_t i = 0; i < hunks.size() && i < j["hunks"].size(); ++i) {
                j["hunks"][i]["section"] = hunks[i].section;
                if (hunks[i].linkAddress) j["hunks"][i]["link_address"] = hex(*hunks[i].linkAddress);
            }
    }
    return j;
}

// ---- stops, positions, snapshots ---------------------------------------------------------------

nlohmann::json Emulator::Impl::position() const {
    const Agnus& a = machine->agnus();
    return {{"pc", machine->cpu().instructionAddress()},
            {"frame", machine->frame()},
            {"vpos", a.vpos()},
            {"hpos", a.hpos()},
            {"cck", a.cck()},
            {"seconds", machine->emulatedSeconds()},
            {"instructions", machine->cpu().instructions()}};
}

nlohmann::json Emulator::Impl::status() const {
    nlohmann::json s = position();
    s["state"] = running ? "running" : "paused";
    s["halted"] = machine->halted();
    s["stopped"] = machine->cpu().stopped();
    s["paced"] = options.paced;
    s["speed"] = running ? speed : 0.0;
    s["breakpoints"] = breakpoints.size();
    s["recording_slots"] = const_cast<Machine&>(*machine).agnus().recordingSlots();
    return s;
}

nlohmann::json Emulator::Impl::stopRun(const char* reason, nlohmann::json detail) {
    running = false;
    // Where the machine stands includes the inputs due here (docs/record.md).
    record->note();
    record->applyDue();
    target = Target{};
    skipBreakOnce = false;
    paceValid = false;
    boundaryWatch.reset();
    // The debugger reads frames and variables afresh, and shows the inlined frames at the PC
    // as the stop decided.
    source.invalidate();
    source.setHiddenInline(stopHiddenInline ? *stopHiddenInline : source.defaultHiddenInline());
    stopHiddenInline.reset();
    nlohmann::json event = position();
    event["reason"] = reason;
    // Where the stop is in the source, as the innermost frame shows it.
    if (!source.programs().empty()) {
        const auto& frames = source.frames(1);
        if (!frames.empty() && frames.front().kind == StackFrame::Kind::Source && frames.front().line)
            event["source"] = stackFrameJson(*this, frames.front(), 0);
    }
    if (!detail.is_null()) event["detail"] = std::move(detail);
    // A flight recorder waiting for a breakpoint or a watchpoint writes its frames now.
    const std::string why = reason;
    if (capture && capture->ringStopsOnBreak() &&
        (why == "breakpoint" || why == "watchpoint" || why == "watchpoint_scope" || why == "catch")) {
        nlohmann::json d{{"pc", event.value("pc", nlohmann::json())}, {"frame", machine->frame()}, {"stop", why}};
        if (event.contains("detail")) d["detail"] = event["detail"];
        capture->stopRing(why, std::move(d));
        // (A flush that failed has told of it already.)
        if (capture->status().state != CaptureStatus::State::Failed) sendEvent("event.profile", capture->statusJson());
    }
    publish();
    // The notification goes first, so that a client sees it before the reply that ends
    // its resume.
    sendEvent("event.stopped", event);
    CommandResult r;
    r.ok = true;
    r.result = event;
    auto waiters = std::move(stopWaiters);
    stopWaiters.clear();
    for (auto& w : waiters)
        w(r);
    return event;
}

void Emulator::Impl::resume(const Target& t) {
    source.invalidate();
    target = t;
    running = true;
    skipBreakOnce = true;
    paceValid = false;
    deferReply = true;
}

CpuRegisters Emulator::Impl::registers() const {
    const auto r = machine->cpu().registers();
    CpuRegisters out;
    out.d = r.d;
    out.a = r.a;
    out.usp = r.usp;
    out.ssp = r.ssp;
    out.pc = machine->cpu().instructionAddress();
    out.sr = r.sr;
    return out;
}

void Emulator::Impl::publish() {
    auto s = std::make_shared<Snapshot>();
    s->serial = ++snapshotSerial;
    s->running = running;
    s->halted = machine->halted();
    s->frame = machine->frame();
    const Agnus& a = machine->agnus();
    s->vpos = a.vpos();
    s->hpos = a.hpos();
    s->cck = a.cck();
    s->seconds = machine->emulatedSeconds();
    s->speed = running ? speed : 0.0;
    s->instructions = machine->cpu().instructions();
    s->regs = registers();
    s->picture = picture;
    s->pictureFrame = pictureFrame;
    s->grid = grid;
    s->previousGrid = previousGrid;
    // While the machine stands: the frame in progress to the beam (made again only when the
    // beam has moved).
    if (running) {
        progressGrid = nullptr;
    } else if (!progressGrid || progressGrid->frame != machine->frame() || progressCck != a.cck()) {
        auto g = std::make_shared<OwnerGrid>();
        g->frame = machine->frame();
        g->lines = a.frameLines();
        g->lineCck = machine->config().ntsc ? 228 : 227;
        g->firstLineLong = machine->config().ntsc && ntscFirstLineLong(a.vpos(), a.lineLength());
        g->owners = a.ownersInProgress();
        g->inProgress = true;
        g->beamVpos = a.vpos();
        g->beamHpos = a.hpos();
        // The clocks that have happened, each counted once.
        for (unsigned v = 0; v <= g->beamVpos && v < g->lines; ++v)
            for (unsigned h = 0; h < (v == g->beamVpos ? g->beamHpos : g->rowCck(v)); ++h)
                ++g->counts[std::min<unsigned>(unsigned(g->owner(v, h)), kBusOwnerCount - 1)];
        progressGrid = std::move(g);
        progressCck = a.cck();
    }
    s->progressGrid = progressGrid;
    s->overlay = overlay;
    {
        std::shared_ptr<const Snapshot> old;
        std::lock_guard lock(publishedMutex);
        // The old snapshot is released after the lock, and is not freed under it.
        old = std::exchange(published, std::move(s));
    }
    flushDebugEvents();
}

void Emulator::Impl::flushDebugEvents() {
    if (debugResourcesChanged) {
        if (debugItems.size() < kMaxDebugItems) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& r : machine->guestApi().resources())
                list.push_back(resourceJson(r));
            debugItems.push_back({{"kind", "resources"}, {"resources", std::move(list)}});
            debugResourcesChanged = false;
        }
    }
    if (debugItems.empty() && !debugDropped) return;
    nlohmann::json event = {{"items", std::move(debugItems)}, {"dropped", debugDropped}};
    debugItems = nlohmann::json::array();
    debugDropped = 0;
    sendEvent("event.debug", event);
}

void Emulator::Impl::sendEvent(const std::string& method, const nlohmann::json& params) {
    std::lock_guard lock(listenerMutex);
    for (auto& [id, l] : listeners)
        l(method, params);
}

std::vector<SourceProgram> Emulator::Impl::SourceHost::programs() {
    std::vector<SourceProgram> out;
    const RunProgram& r = impl.run;
    if (r.info && !r.segments.empty() && r.segments.size() == r.info->hunks().size()) {
        SourceProgram p;
        p.name = r.name;
        p.info = r.info;
        for (const AmigaOsSegment& s : r.segments) p.bases.push_back(s.base);
        out.push_back(std::move(p));
    }
    for (const LoadedSymbols& set : impl.loadedSymbols) {
        SourceProgram p;
        p.name = std::filesystem::path(set.path).filename().string();
        p.info = set.info;
        p.bases = set.bases;
        out.push_back(std::move(p));
    }
    return out;
}

bool Emulator::Impl::SourceHost::writeMemory(std::uint32_t address, std::span<const std::uint8_t> bytes) {
    for (std::size_t i = 0; i < bytes.size(); ++i)
        if (!isRam(*impl.machine, address + std::uint32_t(i))) return false;
    impl.applyInput(MachineInput::memory(address, std::vector<std::uint8_t>(bytes.begin(), bytes.end())));
    return true;
}

void Emulator::Impl::SourceHost::writeRegister(int reg, std::uint32_t value) {
    auto r = impl.machine->cpu().registers();
    if (reg >= 0 && reg < 8) r.d[std::size_t(reg)] = value;
    else if (reg >= 8 && reg < 16) r.a[std::size_t(reg - 8)] = value;
    else return;
    const bool super = r.sr & 0x2000;
    if (reg == 15) (super ? r.ssp : r.usp) = value;
    const std::uint32_t pc = impl.machine->cpu().instructionAddress();
    r.pc = pc + 4;
    r.ird = impl.machine->spyWord(pc);
    r.irc = impl.machine->spyWord(pc + 2);
    impl.applyInput(MachineInput::setRegisters(r));
}

void Emulator::Impl::timelineMoved() {
    gridContinues = false; // the grids shown are of the timeline left
    if (capture) capture->reposition();
    codeNamer.reset(); // another machine, or the same one earlier: its modules read afresh
}

void Emulator::Impl::applyInput(const MachineInput& in, std::uint64_t due) {
    record->input(in, due);
}

void Emulator::Impl::rebuildBreakIndex() {
    pcBreaks.clear();
    bool watches = false, catches = false;
    for (const auto& b : breakpoints) {
        switch (b.kind) {
        case Breakpoint::Kind::Catch: catches = true; break;
        case Breakpoint::Kind::Pc: pcBreaks.push_back(b.address); break;
        case Breakpoint::Kind::Watch:
            watches = true;
            if (b.scopeReturn) pcBreaks.push_back(b.scopeReturn);
            break;
        case Breakpoint::Kind::Line:
        case Breakpoint::Kind::Function:
            for (const auto& l : b.locations) pcBreaks.push_back(l.address);
            break;
        }
    }
    std::sort(pcBreaks.begin(), pcBreaks.end());
    pcBreaks.erase(std::unique(pcBreaks.begin(), pcBreaks.end()), pcBreaks.end());
    machine->setCpuAccessObserver(watches ? this : nullptr);
    if (catches)
        machine->attachCpuObserver(&catcher, m68k::kHookException);
    else
        machine->detachCpuObserver(&catcher);
}

void Emulator::Impl::cpuAccess(const m68k::BusCycle& c) {
    // Watchpoints watch data; the CPU's own instruction fetches are not "reads" here.
    if (c.fc == m68k::FunctionCode::UserProgram || c.fc == m68k::FunctionCode::SupervisorProgram)
        return;
    const bool write = c.op == m68k::BusOp::Write || c.op == m68k::BusOp::TestAndSet;
    const bool read = c.op != m68k::BusOp::Write;
    const std::uint32_t first = (c.address & 0xFFFFFE) + (c.upper ? 0 : 1);
    const std::uint32_t last = (c.address & 0xFFFFFE) + (c.lower ? 1 : 0);
    for (const auto& b : breakpoints) {
        if (b.kind != Breakpoint::Kind::Watch) continue;
        if (!((write && b.onWrite) || (read && b.onRead))) continue;
        if (last < b.address || first >= b.address + b.length) continue;
        if (std::any_of(watchHits.begin(), watchHits.end(), [&](const WatchHit& h) { return h.id == b.id; }))
            continue; // the instruction's first access to it tells
        watchHits.push_back(WatchHit{b.id, first, last - first + 1, write && b.onWrite, c.data});
    }
}

} // namespace copperline
