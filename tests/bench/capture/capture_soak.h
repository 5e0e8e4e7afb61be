// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// copperline-capturebench --soak (capture_soak.cpp): a long capture under a busy control
// socket, with the emulator's resident memory printed as it goes.

namespace copperline::bench {

int runSoak(int argc, char** argv);

} // namespace copperline::bench
