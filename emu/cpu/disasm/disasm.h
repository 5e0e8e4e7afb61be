// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// MC68000 disassembler. It decodes opcode words itself (it shares nothing with
// the CPU core) and writes the GNU assembler's m68k syntax with Motorola-style
// operands, so that its text assembles again with `m68k-linux-gnu-as -m68000`
// to the very same bytes. docs/disassembler.md describes the syntax.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace copperline {

// How branch targets (BRA, BSR, Bcc) are written.
enum class BranchTargets : std::uint8_t {
    // `bra.w 0x1234`: reads best, and assembles to the same bytes when the code
    // is placed (linked) at the address it was read from.
    Absolute,
    // `bra.w .+0x10`: assembles to the same bytes wherever it is placed.
    Relative,
};

struct DisasmOptions {
    BranchTargets branchTargets = BranchTargets::Absolute;
    // Immediates, displacements and counts in hex (`#0x1f`) or decimal (`#31`).
    // Addresses are always hex.
    bool hexNumbers = true;
};

// What an instruction does to the flow of control, for stepping over calls and
// following branches in a debugger.
enum class Flow : std::uint8_t {
    Next,   // falls through to the next instruction
    Jump,   // BRA, JMP: always goes elsewhere
    Branch, // Bcc, DBcc: may go elsewhere
    Call,   // BSR, JSR: returns to the next instruction
    Return, // RTS, RTE, RTR
    Trap,   // TRAP, ILLEGAL, line A/F and illegal words: always take an exception
    Stop,   // STOP, RESET
};

struct DisasmResult {
    std::uint32_t address = 0;
    // One line of GNU as source, without a leading tab or trailing newline.
    std::string text;
    // Bytes the instruction occupies: 2 to 10, always even (0 only for the span
    // overload given less than a word).
    std::uint32_t length = 2;
    // False when the 68000 does not decode the word as an instruction (it would
    // take the illegal-instruction or line A/F exception); the text is then
    // `.short 0x....`. A legal instruction that GNU as cannot encode with the
    // same bytes is valid but written as `.short` words with the instruction in a
    // comment (see docs/disassembler.md).
    bool valid = false;
    Flow flow = Flow::Trap;
    // Where a branch, a jump or call with a fixed destination, or a PC-relative
    // operand points; hasTarget says whether there is one.
    bool hasTarget = false;
    std::uint32_t target = 0;
};

// Reads the big-endian word at an even address. The debugger passes a
// side-effect-free spy read so that disassembling never disturbs the machine.
using DisasmWordReader = std::function<std::uint16_t(std::uint32_t address)>;

// Disassembles the instruction at pc (even). Reads at most five words.
DisasmResult disassemble(std::uint32_t pc, const DisasmWordReader& readWord,
                         const DisasmOptions& options = {});

// Disassembles the instruction at the start of bytes, which were read from pc.
// An instruction that would run past the end of bytes comes back as an invalid
// `.short` of its first word; fewer than two bytes give an empty text and
// length 0.
DisasmResult disassemble(std::uint32_t pc, std::span<const std::uint8_t> bytes,
                         const DisasmOptions& options = {});

// Disassembles count consecutive instructions from pc, as the control
// protocol's `disasm {addr,count}` does.
std::vector<DisasmResult> disassembleRange(std::uint32_t pc, std::uint32_t count,
                                           const DisasmWordReader& readWord,
                                           const DisasmOptions& options = {});

} // namespace copperline
