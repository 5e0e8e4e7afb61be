// libFuzzer target for the state-file loader, Machine::loadState (docs/testing.md). The
// machine is a small one (state_fuzz_machine.h); the seed is its own saved state
// (tests/fuzz/seeds.cpp). Every input must load or be refused with a StateError. A
// refused input changes nothing (the machine's hash is the one it had), an accepted one saves
// back to the same bytes, and the machine it makes runs on for a while without crashing.

#include "emu/machine.h"
#include "emu/state/archive.h"
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
std::uint64_t baselineHash = 0;

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    machine = testing::stateFuzzMachine();
    baseline = machine->saveState();
    baselineHash = machine->stateHash();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Machine& m = *machine;
    try {
        m.loadState(std::span(data, size));
    } catch (const StateError&) {
        if (m.stateHash() != baselineHash) {
            std::fprintf(stderr, "state_fuzzer: a refused state changed the machine\n");
            std::abort();
        }
        return 0;
    }
    if (m.saveState() != std::vector<std::uint8_t>(data, data + size)) {
        std::fprintf(stderr, "state_fuzzer: an accepted state does not save back the same\n");
        std::abort();
    }
    // A loaded state is a machine to run: a few hundred instructions of it.
    for (int i = 0; i < 400 && !m.halted(); ++i)
        m.stepInstruction();
    m.loadState(baseline);
    return 0;
}
