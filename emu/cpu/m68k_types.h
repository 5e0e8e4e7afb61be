// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <concepts>
#include <cstdint>

// Types the MC68000 core shares with the machine that drives it: the bus cycle the core
// issues, the programmer-visible state, and the observer interface. Nothing here knows
// about the Amiga.
namespace copperline::m68k {

// Function code pins FC2-FC0 (MC68000 User's Manual, section 3.6 / table 3-3).
enum class FunctionCode : std::uint8_t {
    UserData = 1,
    UserProgram = 2,
    SupervisorData = 5,
    SupervisorProgram = 6,
    InterruptAcknowledge = 7,
};

enum class BusOp : std::uint8_t {
    Read,
    Write,
    // TAS: read a byte, wait two clocks, write it back with bit 7 set, with AS held
    // asserted throughout. The bus sees one indivisible access; it returns the byte it
    // read in `data` and performs the write itself.
    TestAndSet,
    // Interrupt acknowledge (FC = 7). A3-A1 carry the level. The bus answers with a vector
    // number in `data`, or with kAutovector (VPA asserted) or kSpurious (BERR asserted).
    InterruptAcknowledge,
};

inline constexpr std::uint16_t kAutovector = 0x100;
inline constexpr std::uint16_t kSpurious = 0x101;

// One bus cycle as the pins show it. The core fills everything but `data` on a read; the
// bus answers by returning the number of wait states it inserted (DTACK held off), which
// the core adds to its clock, so a stretched access costs the instruction exactly that
// much more.
struct BusCycle {
    std::uint64_t cycle = 0;   // CPU clock at which the cycle starts (S0)
    std::uint32_t address = 0; // 24-bit byte address; for word cycles A0 is 0
    std::uint16_t data = 0;    // write: value driven on D15-D0; read: value returned
    FunctionCode fc = FunctionCode::SupervisorData;
    BusOp op = BusOp::Read;
    bool upper = true; // UDS: D15-D8 (even byte)
    bool lower = true; // LDS: D7-D0 (odd byte)
};

// A bus is any class with `unsigned access(BusCycle&)` returning wait states. Optional
// members the core calls when present (checked at compile time, so absent ones cost
// nothing):
//   void addressErrorCycle(const BusCycle&)   a cycle that faulted before AS was asserted
//   void resetAsserted(std::uint64_t from, std::uint64_t to)   the RESET instruction
template <class B>
concept Bus = requires(B& b, BusCycle& c) {
    { b.access(c) } -> std::convertible_to<unsigned>;
};

// Programmer-visible state plus the prefetch queue. `pc` follows the hardware: it is the
// address of the next prefetch, so at an instruction boundary the opcode (IRD) came from
// pc - 4 and IRC holds the word at pc - 2.
struct Registers {
    std::array<std::uint32_t, 8> d{};
    std::array<std::uint32_t, 8> a{}; // a[7] is the active stack pointer
    std::uint32_t usp = 0;            // valid when S = 1 (otherwise a[7] is the USP)
    std::uint32_t ssp = 0;            // valid when S = 0 (otherwise a[7] is the SSP)
    std::uint32_t pc = 0;
    std::uint16_t sr = 0x2700;
    std::uint16_t ird = 0; // opcode about to execute
    std::uint16_t irc = 0; // next word of the instruction stream
};

// Exception vector numbers (MC68000 User's Manual, table 4-2 / 6-2).
enum Vector : std::uint8_t {
    kVectorResetSsp = 0,
    kVectorResetPc = 1,
    kVectorBusError = 2,
    kVectorAddressError = 3,
    kVectorIllegal = 4,
    kVectorZeroDivide = 5,
    kVectorChk = 6,
    kVectorTrapv = 7,
    kVectorPrivilege = 8,
    kVectorTrace = 9,
    kVectorLineA = 10,
    kVectorLineF = 11,
    kVectorSpurious = 24,
    kVectorAutovector1 = 25,
    kVectorTrap0 = 32,
};

struct InstructionInfo {
    std::uint32_t pc = 0; // address of the opcode
    std::uint16_t opcode = 0;
    std::uint64_t cycle = 0; // clock at which it started
};

struct RetireInfo {
    std::uint32_t pc = 0; // address of the opcode
    std::uint16_t opcode = 0;
    std::uint64_t cycle = 0;  // clock at which it started
    std::uint32_t cycles = 0; // total cost including waits and any exception it raised
    std::uint32_t waits = 0;  // bus wait states inside it
};

struct ExceptionInfo {
    std::uint8_t vector = 0;
    std::uint64_t cycle = 0;        // clock at which processing started
    std::uint32_t cycles = 0;       // clocks the processing took
    std::uint32_t frameAddress = 0; // supervisor stack pointer after the frame was pushed
    std::uint32_t pushedPc = 0;
    std::uint16_t pushedSr = 0;
    std::uint32_t handler = 0; // new PC read from the vector table
};

// Observers attach here. Each hook is armed separately; an unarmed hook costs one
// well-predicted branch per instruction.
class Observer {
public:
    virtual ~Observer() = default;
    virtual void beforeInstruction(const InstructionInfo&, const Registers&) {}
    virtual void instructionRetired(const RetireInfo&) {}
    virtual void exceptionTaken(const ExceptionInfo&) {}
};

enum HookMask : unsigned {
    kHookBefore = 1,
    kHookRetire = 2,
    kHookException = 4,
};

} // namespace copperline::m68k

namespace copperline::m68k {
// A short human-readable name for an exception vector number.
const char* vectorName(unsigned vector);
} // namespace copperline::m68k
