// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one naming of code outside a profiled program: ROM code, libraries and devices loaded
// into RAM, interrupt servers. Every report asks it (the .cpuprofile's call tree, the
// system sampler's folded stacks and tables, symbols.resolve, the strip's call tree), so an
// address has one name everywhere. docs/profiling.md, "Attribution", gives the rules:
//
// - a slot of a library's jump table (the JMP a caller runs first, at base - 6n) is the
//   function it leads to;
// - a library or device in RAM claims the hull of its jump table's functions (one loaded
//   from disk is one block of code); one whose hull is wider than 256 KB (its vectors
//   patched to far places) claims its functions' extents alone;
// - in ROM, a jump-table function claims its target up to where its code was measured to
//   end (the first return past every forward branch, within 4 KB), and an interrupt server
//   or handler exec knows of (ExecBase->IntVects) claims its code the same way;
// - otherwise the resident module whose RomTag..rt_EndSkip holds the address names it,
//   alone ("[Kick]amigavideo.hidd"), never a function near it (AROS ends rt_EndSkip right
//   after the RomTag; such a module reaches to the next RomTag, its code following its tag);
// - a hunk of a program a CLI process has loaded is that program ("[Prog]CopperlineRun");
// - otherwise ROM is "[Kickstart]" (the ROM outside every module: AROS keeps shared code
//   there), uaelib's entry "[uaelib]", and anything else is unknown.
//
// The modules are read from the running machine (readCodeModules) or from a capture
// (system-modules.bin, or profile.json's rom_symbols for captures that predate it).

#include "profiler/amigaos/amigaos.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace copperline {

// The kinds as system-modules.bin numbers them (docs/formats/sampler.md).
enum class CodeModuleKind : std::uint8_t { Library = 1, Device = 2, Resident = 3, Resource = 4, Interrupt = 5, Program = 6 };

// A module of code: a library or device (by the hull of its jump table's targets), a
// resident module (its RomTag..EndSkip), an interrupt server or handler (its code), or one
// hunk of a program a CLI process has loaded (its cli_Module: a shell command, --run's
// loader).
struct CodeModule {
    CodeModuleKind kind = CodeModuleKind::Library;
    std::uint32_t start = 0, end = 0; // the range named by it, end exclusive
    std::uint32_t base = 0;           // the library base, the RomTag, or the Interrupt node
    std::string name;
    bool atEnd = false; // from the table written when the capture ended
    // The jump table's targets (libraries and devices), for naming the functions.
    std::vector<std::pair<int, std::uint32_t>> lvos; // (LVO offset, target)
    // Per entry of lvos, where the function at its target ends (exclusive), measured by
    // decoding it when the table was read; empty when not measured.
    std::vector<std::uint32_t> lvoEnds;
};

// Where the function at `entry` ends (exclusive): the first RTS, RTE, RTR, JMP, BRA or
// exception-taking instruction past every forward branch seen so far, within 4 KB; entry +
// 2 when the words there are not backed or not code.
std::uint32_t measureFunctionEnd(const MemoryView& memory, std::uint32_t entry);

// A library's, device's or resource's module: its jump table's targets (each function's
// end measured in `memory`, or its first instruction alone without it) and their hull.
CodeModule libraryModule(const AmigaOsLibrary& library, CodeModuleKind kind, const MemoryView* memory, bool atEnd);

// The libraries, devices, resident modules and interrupt servers as they stand in
// `memory`, every function's end measured, marked as read at the capture's end or start.
std::vector<CodeModule> readCodeModules(const MemoryView& memory, bool atEnd);
// The same from a snapshot that holds no code (profile.json's rom_symbols): the functions'
// ends are not known, so ROM code is named by its resident module alone.
std::vector<CodeModule> codeModulesFromSnapshot(const AmigaOsSnapshot& snapshot);

// What an address outside the program is.
struct CodeName {
    // Host: the emulator's own entry points (uaelib at $F0FF60).
    enum class Where : std::uint8_t { Unknown, Rom, Ram, Host };
    Where where = Where::Unknown;
    std::string module;   // "graphics.library", "amigavideo.hidd", "[Kickstart]"; empty: unknown
    std::string function; // "LoadView", or "graphics/LoadView" for another library's
                          // function inside a resident module; empty: the module alone
    // The function's library and LVO, and its first instruction (when a function holds it).
    std::string library;
    int lvo = 0;
    std::uint32_t functionStart = 0;
    bool interrupt = false; // an interrupt server or handler names it
    bool program = false;   // a program a CLI process loaded names it (module: its command)
    bool jumpTable = false; // a jump table's slot: the JMP to the function, not its code

    bool known() const { return where != Where::Unknown; }
    // As a call tree shows it: "[Kick]graphics/LoadView", "[Kick]amigavideo.hidd",
    // "[Lib]mathffp/SPMul", "[Kickstart]"; "[External]" for an unknown address.
    std::string label() const;
};

class CodeNamer {
public:
    CodeNamer() = default;
    // Modules read at the end come first: a library loaded during a capture is there, and
    // one expunged since its start is still known from the start.
    explicit CodeNamer(std::vector<CodeModule> modules);
    // It points into its own modules: moved, never copied.
    CodeNamer(CodeNamer&&) = default;
    CodeNamer& operator=(CodeNamer&&) = default;
    CodeNamer(const CodeNamer&) = delete;
    CodeNamer& operator=(const CodeNamer&) = delete;

    CodeName name(std::uint32_t address) const;
    // The jump-table functions whose code is in ROM, by ascending target: the names of
    // first instructions (a call tree's nodes are call targets).
    struct RomFunction {
        std::uint32_t start = 0, end = 0;
        int lvo = 0;
        const CodeModule* module = nullptr;
    };
    const std::vector<RomFunction>& romFunctions() const { return romFunctions_; }
    const std::vector<CodeModule>& modules() const { return modules_; }

private:
    const RomFunction* romFunction(std::uint32_t a) const;

    std::vector<CodeModule> modules_;
    std::vector<const CodeModule*> ram_, romResidents_; // romResidents_ by start
    std::vector<std::uint32_t> residentEnds_;            // where each names code up to
    // An rt_EndSkip this close to its RomTag covers the tag alone (AROS's modules).
    static constexpr std::uint32_t kShortEndSkip = 0x40;
    std::vector<RomFunction> romFunctions_; // jump-table functions and interrupt code, by start
    struct JumpTable {
        std::uint32_t low = 0, base = 0; // [low, base): the slots
        const CodeModule* module = nullptr;
    };
    std::vector<JumpTable> jumpTables_; // by low
};

bool inRomSpace(std::uint32_t address); // $F80000-$FFFFFF or $E00000-$E7FFFF

} // namespace copperline
