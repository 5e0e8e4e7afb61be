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

int runHeadless(Machine& machine, const HeadlessOptions& options);

} // namespace copperline
