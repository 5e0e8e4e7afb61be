// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The offline commands of copperline-ctl, one file each, dispatched from main.cpp. Each
// takes the arguments after its name and returns the process exit code; bad input is
// thrown as MediaError (or DebugInfoError) and reported by main.

#include <cstdint>
#include <string>

namespace copperline::ctl {

int hunkInfo(int argc, char** argv);
int symbolize(int argc, char** argv);
int sizeReport(int argc, char** argv);
int exe2adf(int argc, char** argv);
int profileReport(int argc, char** argv);
int profileOffline(int argc, char** argv);
int profileDiff(int argc, char** argv);
int unwindTable(int argc, char** argv);

// A usage error: main prints the message and the usage, and exits with 2.
struct UsageError {
    std::string message;
};

// "$1F0", "0x1f0" or decimal; throws UsageError naming the option when it is not a number.
std::uint32_t parseAddress(const std::string& text, const std::string& what);

} // namespace copperline::ctl
