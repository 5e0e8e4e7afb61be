// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Running the emulator without a window: unpaced, as fast as the host allows.

#include <string>
#include <vector>

namespace copperline {

class Machine;

// Writes the machine's display (with the guest's overlay when asked) to a PNG; false, with
// the reason on stderr, when it cannot.
bool writeScreenshotNow(Machine& machine, const std::string& path, bool overlay);

struct HeadlessOptions {
    struct Shot {
        double seconds = 0;  // emulated seconds after power-on
        std::string path;
    };
    std::vector<Shot> screenshots;
    double runSeconds = 0;        // run at least this long (0: until the last screenshot)
    bool printSpeed = false;      // report emulated seconds per host second on stderr
    bool screenshotOverlay = false; // draw the guest's debug overlay into the screenshots
};

// Exit statuses of the copperline command (also in README.md).
namespace exit_status {
inline constexpr int Ok = 0;
inline constexpr int EmulatorError = 1;  // the machine halted or a file could not be written
inline constexpr int Usage = 2;          // bad arguments, a missing or wrong ROM
} // namespace exit_status

// SIGTERM, SIGINT and SIGHUP end a session the way quitting does (the disks the guest
// changed are written back, a capture is finished) instead of killing the process.
// installTerminationHandlers arms them; terminationSignal() is the signal that came (0
// while none has), polled by the headless loops once a frame; terminationPipe() is a file
// descriptor that becomes readable when one comes, for an event loop to watch.
void installTerminationHandlers();
int terminationSignal();
int terminationPipe();

// Runs until the last screenshot or runSeconds; a termination signal ends it early with
// 128 + the signal's number.
int runHeadless(Machine& machine, const HeadlessOptions& options);

} // namespace copperline
