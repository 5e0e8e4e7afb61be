// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the state-file loader, Machine::loadState (docs/testing.md). The
// machine is a small one (state_fuzz_machine.h); the seed is its own saved state
// (tests/fuzz/seeds.cpp). Every input must load or be refused with a StateError. A
// refused input changes nothing (the machine's state, byte for byte), an accepted one saves
// back to the same machine and picture, and the machine it makes runs on for a while without
// crashing. Each input is tried as it is (almost always refused by the checksum) and then sealed
// with a checksum that matches, so that the fuzzer reaches the reading of the body behind it.

#include "emu/machine.h"
#include "emu/state/archive.h"
#include "emu/state/state_file.h"
#include "tests/emu/state/state_fuzz_machine.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

using namespace copperline;

namespace {

std::unique_ptr<Machine> machine;
std::vector<std::uint8_t> baseline;
// The machine's state before each input, its snapshot: the bytes serialize saves (the state
// hash is FNV-1a of them; comparing them costs a fraction of hashing them), and a buffer for
// the one after.
std::vector<std::uint8_t> before, now;

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    machine = testing::stateFuzzMachine();
    baseline = machine->saveState();
    before = machine->saveSnapshot();
    return 0;
}

namespace {

void tryLoad(const std::vector<std::uint8_t>& file) {
    Machine& m = *machine;
    try {
        m.loadState(file);
    } catch (const StateError&) {
        now = machine->saveSnapshot(std::move(now));
        if (now != before) {
            std::fprintf(stderr, "state_fuzzer: a refused state changed the machine\n");
            std::abort();
        }
        return;
    }
    // It saves back the same, but for the picture's compression: a zlib stream of other
    // blocks may inflate to the same pixels.
    const std::uint64_t hash = m.stateHash();
    if (const auto again = m.saveState(); again != file) {
        m.loadState(again);
        if (m.stateHash() != hash || m.saveState() != again) {
            std::fprintf(stderr, "state_fuzzer: an accepted state does not save back the same\n");
            std::abort();
        }
    }
    // A loaded state is a machine to run: a few hundred instructions of it.
    for (int i = 0; i < 400 && !m.halted(); ++i)
        m.stepInstruction();
    m.loadState(baseline);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::uint8_t> file(data, data + size);
    tryLoad(file);
    if (file.size() >= state_file::kHeaderBytes) {
        state_file::seal(file);
        tryLoad(file);
    }
    return 0;
}
