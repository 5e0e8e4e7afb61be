// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The source-level debugger's engine (docs/debugger.md): the programs it knows the source of
// (the --run program, symbols loaded by hand), the stack of frames at a stop (the call-frame
// information, inlined calls as frames of their own, through system code by its return
// addresses), the variables of each frame behind numbered references, and where a line or
// a function puts a breakpoint. The commands of the line, stack and variable families, the
// breakpoints and the line steps all ask it; the window's panes, the Debug Adapter and the
// GDB stub only ever reach it through those commands.

#include "profiler/debuginfo/c_expression.h"
#include "profiler/debuginfo/dwarf_file.h"
#include "profiler/debuginfo/source_values.h"

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace copperline {

class Machine;
class CodeNamer;

// A program whose source the debugger knows, placed where it is loaded.
struct SourceProgram {
    std::string name; // the module: the program's file name, or the ELF's
    std::shared_ptr<const DebugInfo> info;
    std::vector<std::uint32_t> bases; // by hunk
    std::shared_ptr<DwarfFile> dwarf; // null without an ELF with DWARF (dwarfError says why)
    std::string dwarfError;
    std::shared_ptr<SourceValues> values;
};

// An address inside a known program.
struct SourcePlace {
    std::size_t program = 0;
    std::uint32_t hunk = 0, offset = 0;
};

// One frame of the stack, innermost first.
struct StackFrame {
    enum class Kind : std::uint8_t { Source, System, Unknown };
    Kind kind = Kind::Unknown;
    std::uint32_t pc = 0;       // where the frame is: its PC, or the return address of a caller
    bool outer = false;         // a caller: pc is a return address (its line is the call's)
    bool inlined = false;       // an inlined call, sharing its physical frame's registers
    std::optional<SourcePlace> place;
    std::int32_t scope = -1;    // the function or inlined call (DebugInfo scope)
    std::string function;       // its name, or the system's ("[Kick]exec/AllocMem")
    std::uint32_t file = kNoFile;
    std::uint32_t line = 0, column = 0;
    std::optional<std::uint32_t> cfa;
    FrameRegisters regs;        // the physical frame's
    bool interrupted = false;   // the code an interrupt or exception interrupted
};

class SourceDebugger {
public:
    // How the engine reaches the machine and the system's names.
    struct Host {
        virtual ~Host() = default;
        virtual Machine& machine() = 0;
        virtual std::vector<SourceProgram> programs() = 0;     // as they are loaded now
        virtual std::shared_ptr<const CodeNamer> systemNamer() = 0;
        virtual bool writeMemory(std::uint32_t address, std::span<const std::uint8_t> bytes) = 0;
        virtual void writeRegister(int reg, std::uint32_t value) = 0;
    };
    explicit SourceDebugger(Host& host);

    // The machine moved or changed: frames and references are read afresh.
    void invalidate();
    // The inlined frames hidden at the innermost PC (gdb shows the caller at an inlined
    // call's first instruction until a step goes into it). Set by the stop that made it.
    void setHiddenInline(unsigned n) { hiddenInline_ = n, frames_.reset(); }
    unsigned hiddenInline() const { return hiddenInline_; }
    // gdb's rule for a stop no step decided: the inlined calls whose first instruction the
    // PC is on are hidden (the innermost first, while each starts here).
    unsigned defaultHiddenInline();
    // How many inlined frames lie inside `scope` at pc (0: the scope is the innermost).
    std::optional<unsigned> inlineDepthOf(std::uint32_t pc, std::int32_t scope);
    // The scopes of the inlined calls and the function at an address, innermost first.
    std::vector<std::int32_t> scopeChain(const SourcePlace& at);

    const std::vector<SourceProgram>& programs();
    std::optional<SourcePlace> place(std::uint32_t address);
    std::uint32_t address(const SourcePlace& p);

    // The stack now, innermost first (at most `max` frames).
    const std::vector<StackFrame>& frames(std::size_t max = 256);
    // Frame n as variables are read in it. Throws CommandError for a frame past the stack.
    SourceFrame sourceFrame(std::size_t n);
    const SourceValues* values(std::size_t n);
    const TargetMemory& memory() const { return *memory_; }
    TargetMemory& memory() { return *memory_; }

    // A file's path as a user gives it, matched against every program's files.
    struct FileMatch {
        std::size_t program;
        std::vector<std::uint32_t> files;
    };
    std::vector<FileMatch> findFile(const std::string& path);
    // Where a breakpoint on file:line goes (gdb's rules; a location at a function's entry
    // moves past its prologue). Empty with `why` when nothing has code there.
    struct Location {
        std::uint32_t address = 0;
        std::size_t program = 0;
        std::string file;
        std::uint32_t line = 0;
        std::string function;
        std::int32_t scope = -1;
    };
    std::vector<Location> lineLocations(const std::string& file, std::uint32_t line, std::string& why);
    std::vector<Location> functionLocations(const std::string& name, std::string& why);
    // The address after a function's prologue: where gdb's breakpoint on it goes.
    std::uint32_t afterPrologue(const SourcePlace& entry);
    // The source location of an address: {module, function, file, line}.
    nlohmann::json describe(std::uint32_t address, bool returnAddress = false);

    // Expressions in frame n. Throw ExpressionError / CommandError.
    SourceValue evaluate(const std::string& expr, std::size_t frame);
    std::string format(const SourceValue& v, std::size_t frame);

    // Numbered references to what a variables view can open: a frame's scope, or a value.
    // They last until the machine moves.
    struct Ref {
        enum class Kind : std::uint8_t { Locals, Parameters, Globals, Registers, Value } kind;
        std::size_t frame = 0;
        SourceVariable variable;
    };
    int makeRef(Ref ref);
    const Ref* ref(int id) const;
    // A variable as the views show it: {name, value, type, ref (0: nothing to open), ...}.
    nlohmann::json variableJson(const SourceVariable& v, std::size_t frame);

private:
    void buildFrames(std::size_t max);
    bool unwindHeuristic(StackFrame& frame, FrameRegisters& regs, bool& interruptedNext);

    Host& host_;
    std::unique_ptr<TargetMemory> memory_;
    std::optional<std::vector<SourceProgram>> programs_;
    std::optional<std::vector<StackFrame>> frames_;
    std::size_t framesMax_ = 0;
    unsigned hiddenInline_ = 0;
    std::vector<Ref> refs_;
    // DwarfFiles opened, by DebugInfo, so that each ELF is read once.
    std::map<const DebugInfo*, std::pair<std::weak_ptr<const DebugInfo>, std::shared_ptr<DwarfFile>>> dwarfCache_;
    std::map<const DebugInfo*, std::string> dwarfErrors_;
};

// The context a step runs in: the mode, and in user mode the task (exec's ThisTask).
struct StepContext {
    bool supervisor = false;
    std::uint32_t task = 0;
    friend bool operator==(const StepContext&, const StepContext&) = default;
};
StepContext stepContext(const Machine& m);

// Whether the instruction at `pc` is one a step goes into or over as a call (BSR, JSR,
// TRAP #n, the line A and line F words), and its length.
bool isCallInstruction(const Machine& m, std::uint32_t pc, std::uint32_t* length = nullptr);
bool isReturnInstruction(std::uint16_t opcode);

} // namespace copperline
