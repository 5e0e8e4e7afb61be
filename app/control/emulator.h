// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The emulator thread (DESIGN.md section 5). One thread owns the Machine. Everyone else
// (the window, the control server, the tests) talks to it only by submitting commands of
// the one vocabulary (command_bus.h); the thread drains them between instructions while it
// runs, or at once while it is paused. After each committed frame, and after each command,
// it publishes an immutable Snapshot that any thread reads without taking a lock.
//
// This header deliberately does not include emu/machine.h, so that Qt's moc can read the
// widgets that include it (the CPU core's C++20 concepts are beyond moc).

#include "app/control/command_bus.h"
#include "app/control/floppy_files.h"
#include "app/control/loaded_symbols.h"
#include "app/control/snapshot.h"

#include <array>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace copperline {

class Machine;
struct AdfImage;

class Emulator {
public:
    // The memory --run gives a program's machine (and run.program, unless the user chose
    // the memory): the most slow RAM an A500 takes, and a Zorro II board's 8 MB of fast RAM.
    static constexpr std::uint32_t kRunSlowRamBytes = 1536u << 10;
    static constexpr std::uint32_t kRunFastRamBytes = 8u << 20;
    struct Options {
        bool paced = false; // hold to real time (50 Hz PAL): the window; headless runs unpaced
        bool startRunning = false; // run at start, or wait paused for a command
        bool pictures = false;     // compose the display into every frame's snapshot (the window)
        std::FILE* serialOut = nullptr; // where the guest's serial output goes besides event.serial
        std::string tracesDir; // where captures go by default (--traces); empty: the XDG data folder
        // The byte budget of the record of the past (docs/record.md).
        std::size_t recordBudgetBytes = std::size_t(256) << 20;
        // The user chose the machine's memory (--chip, --slow, --fast, --run's own): a
        // program opened later (run.program) keeps it. Otherwise that program gets --run's
        // memory, as it would on the command line.
        bool memoryChosen = false;
        // --run PROG under --control: the program the staged run disk's loader loads. Each
        // time it is loaded the machine stops at its first instruction (reason "loadseg"),
        // and its debug information names its addresses (symbols.resolve). A paced session
        // runs unpaced until then (the boot at full speed).
        std::string runProgram;
        // The file behind each drive's disk (--floppyN, --floppyN-writeback). A disk the
        // guest changed goes back to its file, when asked, as it leaves the drive
        // (media.floppy.eject, another disk, run.program) and when the emulator stops.
        std::array<FloppyFile, 4> floppies;
        // run.program: builds the disk that runs a program (the copperline binary's
        // run_program.cpp gives it; it throws MediaError naming what is wrong). Without
        // one, run.program is refused as unsupported.
        struct RunDisk {
            std::string program;            // host path of the hunk executable
            std::string args;               // its argument line
            std::vector<std::string> files; // more files for the disk's root (--run-file)
        };
        std::function<AdfImage(const RunDisk&)> buildRunDisk;
        // --symbols ELF@BASE: debug information for code that is no AmigaOS executable,
        // loaded as symbols.load loads it (loaded_symbols.h).
        std::vector<LoadedSymbols> symbols;
    };

    // Reply to one submitted command; called on the emulator thread.
    using Done = std::function<void(const CommandResult&)>;
    // A notification (`event.frame`, `event.stopped`, `event.serial`); called on the
    // emulator thread.
    using Listener = std::function<void(const std::string& method, const nlohmann::json& params)>;

    // Takes a machine that is powered on and ready to run.
    Emulator(std::unique_ptr<Machine> machine, const Options& options);
    ~Emulator(); // stops the thread; pending replies are answered with ShuttingDown
    Emulator(const Emulator&) = delete;
    Emulator& operator=(const Emulator&) = delete;

    void start();
    void stop();

    // Queues a command for the emulator thread. Thread-safe; never throws. `done` is called
    // once, on the emulator thread; a resume verb (continue, step, step_frame, run_until)
    // calls it when the machine stops.
    void submit(std::string method, nlohmann::json params, Done done);
    // Submits and waits for the reply (from any thread but the emulator's own).
    CommandResult call(const std::string& method,
                       const nlohmann::json& params = nlohmann::json::object());

    // The latest snapshot; never null once constructed.
    std::shared_ptr<const Snapshot> snapshot() const;

    // Notifications. A listener is called on the emulator thread and must not block.
    int addListener(Listener listener);
    void removeListener(int id);
    // Interest counts: frame and serial events cost something, so they are made only while
    // somebody wants them.
    void wantFrameEvents(bool on);
    void wantSerialEvents(bool on);

    // Called (on the emulator thread) when a `quit` command arrives.
    void setQuitHandler(std::function<void()> handler);

    // The registry; its handlers run on the emulator thread only (call them through submit).
    const CommandBus& bus() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace copperline
