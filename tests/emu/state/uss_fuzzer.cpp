// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the USS reader and the machine it builds (emu/state/uss.h;
// docs/testing.md). Every input must be loaded or refused with a StateError; an input the
// reader takes and the machine refuses leaves the machine as it was (its snapshot, byte for
// byte), and an accepted one is a machine that runs a few hundred instructions. The machine
// has the ROM of the small states tests build (uss_builder.h), the seeds' ROM: the seeds are
// such a state (tests/fuzz/seeds.cpp) and FS-UAE's (tests/data/uss/scene.uss, refused at the
// ROM check after it is read whole).

#include "emu/machine.h"
#include "emu/state/uss.h"
#include "tests/emu/state/uss_builder.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

using namespace copperline;

namespace {
std::unique_ptr<Machine> machine;
// The machine every input starts from: its configuration and its snapshot (the state hash
// is FNV-1a of those bytes; comparing half a megabyte costs a fraction of hashing it). An
// accepted input's machine is put back to it after its run, so that each input is tried on
// the same machine (a crash reproduces from its input alone) and keeps no memory of its
// own past the run (libFuzzer runs an input again, to look for a leak, when it ends with
// more allocations than it freed: a state with slow RAM, say).
Machine::Config initialConfig;
std::vector<std::uint8_t> before, now;
} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // No slow RAM, as the chip-only seed: a state with slow RAM builds the machine anew.
    Machine::Config config;
    config.slowRamBytes = 0;
    machine = std::make_unique<Machine>(config);
    RomImage rom;
    rom.bytes = testing::testRom();
    rom.originalSize = std::uint32_t(rom.bytes.size());
    machine->setRom(rom);
    machine->powerOn();
    initialConfig = machine->config();
    before = machine->saveSnapshot();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (!machine) LLVMFuzzerInitialize(nullptr, nullptr);
    Machine& m = *machine;
    // The reader first: it is given no machine, so what it refuses needs no proof that the
    // machine is unchanged.
    uss::State state;
    try {
        state = uss::readUss(std::span<const std::uint8_t>(data, size));
    } catch (const StateError&) {
        return 0;
    }
    try {
        uss::loadUss(m, state);
    } catch (const StateError&) {
        now = m.saveSnapshot(std::move(now));
        if (now != before) {
            std::fprintf(stderr, "uss_fuzzer: a refused state changed the machine\n");
            std::abort();
        }
        return 0;
    }
    for (int i = 0; i < 400 && !m.halted(); ++i) m.stepInstruction();
    if (!Machine::sameConfig(m.config(), initialConfig)) m.reconfigure(initialConfig);
    m.loadSnapshot(before);
    return 0;
}
