// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The machine state_fuzzer loads states into, and the seeds tool saves its seed from: small,
// so that a state is small and the fuzzer quick (64 KiB of chip RAM, no slow RAM, no ROM),
// and busy: bare metal, a loop with bitplane and Copper DMA switched on, five frames in.

#include "emu/machine.h"

#include <cstdint>
#include <memory>

namespace copperline::testing {

inline std::unique_ptr<Machine> stateFuzzMachine() {
    Machine::Config config;
    config.chipRamBytes = 64 * 1024;
    config.slowRamBytes = 0;
    auto m = std::make_unique<Machine>(config);
    static const std::uint8_t program[] = {
        0x33, 0xFC, 0x83, 0x80,
        0x00, 0xDF, 0xF0, 0x96, // move.w #$8380,DMACON (SET|DMAEN|BPLEN|COPEN)
        0x52, 0x80,             // loop: addq.l #1,d0
        0x60, 0xFC,             //       bra.s loop
    };
    m->bootBareMetal(program);
    for (int i = 0; i < 5; ++i)
        m->runFrame();
    return m;
}

} // namespace copperline::testing
