// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `copperline --run PROG`: boot the ROM with a disk that runs PROG, mirror what PROG
// writes to its standard output onto the host's, and exit with PROG's return code.
// Also the floppy options every mode shares (--floppy0..3, --floppyN-writeback).
// README.md and docs/floppy.md describe the options; docs/guest-api.md the protocol.
//
// How it works. The disk we build (an OFS floppy, emu/media/ofs.h) holds PROG, a small
// loader (resources/guest/run/runner.c, embedded in this binary) and an
// S/Startup-Sequence that starts the loader with PROG's name and arguments. The loader
// LoadSegs PROG, reports the segment list through the guest API, runs it with
// RunCommand and reports its return code. The hunks' load addresses come from that
// segment list: exactly where AmigaDOS put them. While PROG runs, a CPU hook at
// dos.library's Write vector (DOSBase - 48) copies every Write to the shell's output
// handle to the host's stdout, and an exception hook turns a bus or address error, an
// illegal instruction and the like into a report and an exit instead of a hung guru.

#include "app/control/emulator.h"
#include "emu/media/adf.h"

#include <array>
#include <cstdint>
#include <functional>
#include <utility>
#include <string>
#include <vector>

class QCommandLineParser;

namespace copperline {

class Machine;
struct HeadlessOptions;

// Exit statuses of --run besides the program's own return code (modulo 256). They are
// outside the AmigaDOS convention (0, 5, 10, 20); README.md lists them.
namespace run_status {
inline constexpr int NoMemory = 122; // PROG could not be loaded or started: not enough memory
inline constexpr int Crashed = 123; // the CPU took a bus/address error, illegal, ... while PROG ran
inline constexpr int Timeout = 124; // PROG did not return within --timeout emulated seconds
inline constexpr int EmulatorError = 125; // the machine halted, or a file could not be written
inline constexpr int NeverLoaded =
    126; // PROG was not loaded within --load-timeout (60) emulated seconds
} // namespace run_status

// --run's --timeout when none is given: a program that hangs (a guru AROS cannot show, a
// wait that never ends) still ends the run. One emulated minute is far more than a test
// or a benchmark takes, the same bound as the boot has; README.md says how to raise it or
// turn it off.
inline constexpr double kDefaultRunTimeout = 60;

struct RunOptions {
    std::string program;                 // host path of the hunk executable
    std::string args;                    // its argument line
    double timeout = kDefaultRunTimeout; // emulated seconds from load to return; 0 = no limit
    double loadTimeout = 60;             // emulated seconds from power-on to load
    unsigned drive = 0;                  // where the run disk goes (DF1 when the user boots DF0)
    bool verbose = false;                // report load addresses and timing on stderr
    bool printSpeed = false;             // report the host time of the boot and of the run
    // Told when the machine stands at the program's first instruction, with where each hunk
    // was loaded (the profiler starts here), and when the frame the program returned in is
    // complete (it stops here). A nonempty string from onStart ends the run with it.
    std::function<std::string(const std::vector<std::uint32_t>& hunkBases)> onStart;
    // `returned`: the program did return (not: the last --screenshot-after ended the run).
    std::function<void(bool returned)> onEnd;
    // --profile with --profile-frames: whether the capture is over (its frames written, or
    // failed, with the message said); the run then ends with it (exit 0, or 125 when it
    // failed), unless something else needs the program's return (--coverage clears
    // endWithCapture) or a --screenshot-after is still to come.
    enum class CaptureState { Running, Done, Failed };
    std::function<CaptureState()> captureState;
    bool endWithCapture = false;
    // --screenshot-after SECONDS FILE.png with --run: pictures at those emulated seconds
    // after power-on; the last one ends the run (exit 0) if the program is still running,
    // so that a program that never returns is bounded (its profile and coverage written).
    std::vector<std::pair<double, std::string>> screenshots;
    bool screenshotOverlay = false;
    // Told the moment the runner reports that the program returned, before it unloads the
    // program's hunks (coverage stops counting here).
    std::function<void()> onReturn;
    // --run-then: AmigaDOS command lines the loader runs after the program returned and its
    // hunks were freed, each with LoadSeg and RunCommand in the same shell (so a command
    // may land where the program was). The run ends when the last has returned; the exit
    // status stays the program's.
    std::vector<std::string> then;
    // --run-file: host files put in the run disk's root under their own names (a library,
    // data, another program), for the program to open or LoadSeg as ":NAME".
    std::vector<std::string> files;
};

struct RunReport {
    int status = 0;
    std::vector<std::uint32_t> hunkBases; // load address of each hunk, in hunk order
    double loadedAt = 0;                  // emulated seconds at LoadSeg's return
    double returnedAt = 0;                // emulated seconds at the program's return
    double endedAt = 0;
    // Where each --run-then command's hunks were loaded, by line.
    std::vector<std::vector<std::uint32_t>> thenHunkBases;
    double hostBootSeconds = 0, hostRunSeconds = 0;
    std::string output; // what the program wrote to its output
};

// Runs a program on a powered-on machine. Messages go to stderr; the program's output to
// stdout as it is written.
RunReport runProgram(Machine& machine, const RunOptions& options);

// The floppy disk image behind each drive, for writing back at the end.
struct MediaSession {
    std::array<std::string, 4> paths;
    std::array<bool, 4> writeback{};
};

// --run PROG under --control or --control-gui: stages the run disk as --run does (PROG with
// its --run-args, --run-then, --run-file) and refuses what only a headless run does
// (--timeout, --load-timeout, --profile, --coverage, --run-verbose, screenshots). The
// emulator then stops at the program's first instruction (Emulator::Options::runProgram).
// Returns 0, or the exit status with the message printed.
int stageControlledRun(const QCommandLineParser& parser, Machine& machine, const MediaSession& session);

// run.program's disk (Emulator::Options::buildRunDisk): the disk --run builds, for a
// program, its argument line and more files. Empty in a build without the loader.
std::function<AdfImage(const Emulator::Options::RunDisk&)> runDiskBuilder();

// Command-line glue (Qt): adds --run, --run-args, --timeout, --load-timeout,
// --run-verbose, --run-then, --run-file, --floppy0..3 and --floppy0..3-writeback.
void addRunOptions(QCommandLineParser& parser);
bool wantsRun(int argc, char** argv);
// Loads and inserts the --floppyN images; returns a nonzero exit status on failure.
int applyFloppyOptions(const QCommandLineParser& parser, Machine& machine, MediaSession& session);
// Decodes what was written and writes it back where asked; says so on stderr where it was
// not. Returns 0, or an exit status when a file could not be written.
int finishFloppies(Machine& machine, const MediaSession& session);
// The --run mode from the command line; returns the process exit status.
int runFromCommandLine(const QCommandLineParser& parser, Machine& machine, const HeadlessOptions& headless,
                       const MediaSession& session, bool printSpeed);

} // namespace copperline
