// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// An A500 powered on with the AROS ROMs set-up extracted, for the whole-machine tests.

#include "emu/machine.h"

#include <memory>

namespace copperline::testing {

inline std::unique_ptr<Machine> arosMachine() {
    auto m = std::make_unique<Machine>();
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    return m;
}

} // namespace copperline::testing
