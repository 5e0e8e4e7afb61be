// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-cpubench: speed of the 68000 core on a flat zero-wait bus.
//
//   copperline-cpubench              built-in workload, hooks off then a retire hook armed;
//                                    first the cycles one run takes from the end of reset
//   copperline-cpubench FILE...      each raw 68000 binary: 1 MiB RAM, loaded at $1000,
//                                    SSP $00100000 and PC $00001000 in the reset vectors,
//                                    run until the first STOP
//
// Speed is given in emulated clocks per host second and as a multiple of a real PAL
// Amiga's 7.09379 MHz 68000 (crystal 28.37516 MHz / 4, see reference/ocs-timing-facts.md).

#include "emu/cpu/m68k.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

namespace {

using namespace copperline::m68k;

constexpr double kPalCpuHz = 7093790.0;
constexpr std::uint32_t kRamSize = 1u << 20;
constexpr std::uint32_t kLoadAddress = 0x1000;

// 1 MiB of RAM mirrored over the 24-bit space, no wait states.
class FlatBus final {
public:
    FlatBus() : mem_(kRamSize, 0) {}

    unsigned access(BusCycle& c) {
        std::uint32_t a = c.address & (kRamSize - 1) & ~1u;
        std::uint8_t* p = mem_.data() + a;
        switch (c.op) {
        case BusOp::Read: c.data = std::uint16_t((p[0] << 8) | p[1]); break;
        case BusOp::Write:
            if (c.upper) p[0] = std::uint8_t(c.data >> 8);
            if (c.lower) p[1] = std::uint8_t(c.data);
            break;
        case BusOp::TestAndSet:
            c.data = std::uint16_t((p[0] << 8) | p[1]);
            if (c.upper)
                p[0] |= 0x80;
            else
                p[1] |= 0x80;
            break;
        case BusOp::InterruptAcknowledge: c.data = kAutovector; break;
        }
        return 0;
    }

    void load(std::uint32_t at, const std::vector<std::uint8_t>& bytes) {
        for (std::size_t i = 0; i < bytes.size() && at + i < kRamSize; ++i)
            mem_[at + i] = bytes[i];
    }
    void putLong(std::uint32_t at, std::uint32_t v) {
        mem_[at] = std::uint8_t(v >> 24);
        mem_[at + 1] = std::uint8_t(v >> 16);
        mem_[at + 2] = std::uint8_t(v >> 8);
        mem_[at + 3] = std::uint8_t(v);
    }

private:
    std::vector<std::uint8_t> mem_;
};

// The built-in workload, hand-assembled at $1000 (addresses on the left).
constexpr std::uint16_t kWorkload[] = {
    0x3E3C, 0xFFFF,         // 1000 move.w #$FFFF,d7       loop counter
    0x41F9, 0x0000, 0x8000, // 1004 lea    $8000,a0
    // loop:
    0x7064,         // 100A moveq  #100,d0
    0x2200,         // 100C move.l d0,d1
    0xD081,         // 100E add.l  d1,d0
    0x0440, 0x0003, // 1010 subi.w #3,d0
    0xC0C1,         // 1014 mulu.w d1,d0
    0x80FC, 0x0007, // 1016 divu.w #7,d0
    0x0240, 0x00FF, // 101A andi.w #$FF,d0
    0xE789,         // 101E lsl.l  #3,d1
    0x0801, 0x0002, // 1020 btst   #2,d1
    0x01C2,         // 1024 bset   d0,d2
    0x20C1,         // 1026 move.l d1,(a0)+
    0x3610,         // 1028 move.w (a0),d3
    0x48E7, 0xF000, // 102A movem.l d0-d3,-(a7)
    0x6100, 0x0014, // 102E bsr.w  sub ($1044)
    0x4CDF, 0x000F, // 1032 movem.l (a7)+,d0-d3
    0x41E8, 0xFFFC, // 1036 lea    -4(a0),a0
    0x4A82,         // 103A tst.l  d2
    0x51CF, 0xFFCC, // 103C dbra   d7,loop ($100A)
    0x4E72, 0x2700, // 1040 stop   #$2700
    // sub:
    0xD480, // 1044 add.l  d0,d2
    0x4E75, // 1046 rts
};

std::vector<std::uint8_t> workloadBytes() {
    std::vector<std::uint8_t> b;
    for (std::uint16_t w : kWorkload) {
        b.push_back(std::uint8_t(w >> 8));
        b.push_back(std::uint8_t(w));
    }
    return b;
}

class RetireCounter final : public Observer {
public:
    void instructionRetired(const RetireInfo& r) override {
        ++instructions;
        cycles += r.cycles;
    }
    std::uint64_t instructions = 0;
    std::uint64_t cycles = 0;
};

struct Result {
    std::uint64_t cycles = 0;
    std::uint64_t instructions = 0;
    std::uint32_t d0 = 0;
    double seconds = 0;
};

// Resets and runs the program in `bus` until STOP, `repeat` times.
Result run(FlatBus& bus, Observer* observer, int repeat) {
    Cpu<FlatBus> cpu(bus);
    if (observer) cpu.setObserver(observer, kHookRetire);
    Result r;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < repeat; ++i) {
        // Counted from the end of reset (the vector reads and the first refill), so the
        // figure can be set beside another core's count for the same program.
        cpu.reset();
        std::uint64_t start = cpu.cycles();
        std::uint64_t n = 0;
        while (!cpu.stopped() && !cpu.halted()) {
            cpu.step();
            ++n;
        }
        r.cycles += cpu.cycles() - start;
        r.instructions += n;
    }
    auto t1 = std::chrono::steady_clock::now();
    r.seconds = std::chrono::duration<double>(t1 - t0).count();
    r.d0 = cpu.registers().d[0];
    return r;
}

void print(const char* label, const Result& r) {
    double cps = double(r.cycles) / r.seconds;
    std::printf("%-22s %12llu cycles %11llu instructions  D0=$%08X  %7.1f Mcycles/s  %6.1fx "
                "real time\n",
                label, static_cast<unsigned long long>(r.cycles),
                static_cast<unsigned long long>(r.instructions), r.d0, cps / 1e6, cps / kPalCpuHz);
}

void prepare(FlatBus& bus, const std::vector<std::uint8_t>& program) {
    bus.load(kLoadAddress, program);
    bus.putLong(0, 0x00100000);
    bus.putLong(4, kLoadAddress);
}

} // namespace

int main(int argc, char** argv) {
    if (argc > 1) {
        int status = 0;
        for (int i = 1; i < argc; ++i) {
            std::ifstream f(argv[i], std::ios::binary);
            if (!f) {
                std::fprintf(stderr, "%s: cannot read\n", argv[i]);
                status = 1;
                continue;
            }
            std::vector<std::uint8_t> program((std::istreambuf_iterator<char>(f)),
                                              std::istreambuf_iterator<char>());
            FlatBus bus;
            prepare(bus, program);
            print(argv[i], run(bus, nullptr, 1));
        }
        return status;
    }

    // Best of several alternating rounds, so that load from other processes on the host
    // disturbs the comparison as little as possible.
    constexpr int kRepeat = 10;
    constexpr int kRounds = 5;
    FlatBus bus;
    prepare(bus, workloadBytes());
    run(bus, nullptr, 1); // warm-up
    RetireCounter counter;
    Result off, on;
    for (int i = 0; i < kRounds; ++i) {
        Result a = run(bus, nullptr, kRepeat);
        if (i == 0 || a.seconds < off.seconds) off = a;
        Result b = run(bus, &counter, kRepeat);
        if (i == 0 || b.seconds < on.seconds) on = b;
    }
    std::printf("workload: %llu cycles from the end of reset to STOP, %llu instructions\n",
                static_cast<unsigned long long>(off.cycles / kRepeat),
                static_cast<unsigned long long>(off.instructions / kRepeat));
    print("hooks off", off);
    print("retire hook armed", on);
    double cost = (on.seconds / double(on.cycles)) / (off.seconds / double(off.cycles)) - 1.0;
    std::printf("retire hook cost: %+.1f %%\n", cost * 100.0);
    return 0;
}
