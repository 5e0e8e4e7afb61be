// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the window tests start from: the bare-metal frame load (tests/guest/hw/frame_load.S,
// HW_FRAME_LOAD) on a machine, and an emulator that is paused, unpaced and publishes its
// pictures. Header-only; each test includes it.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"

#include <memory>

namespace copperline::testing {

inline std::unique_ptr<Machine> frameLoad() {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(HW_FRAME_LOAD));
    return m;
}

inline Emulator::Options windowOptions() {
    Emulator::Options o;
    o.pictures = true;
    o.paced = false;
    o.startRunning = false;
    return o;
}

} // namespace copperline::testing
