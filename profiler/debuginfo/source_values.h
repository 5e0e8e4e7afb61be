// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Variables and their values as DWARF describes them (docs/debugger.md): the types (base
// types, typedefs, const and volatile, pointers, arrays, structs and unions, enums,
// bit-fields, functions), where each variable of a frame lives at its PC (a register, the
// frame base, memory, pieces of these, a constant, or nowhere: optimized out), how a value
// reads as text, and how a new value is written. Read through elfutils libdw from the
// DwarfFile of the program.

#include "profiler/debuginfo/dwarf_file.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace copperline {

struct SourceType;
using TypePtr = std::shared_ptr<const SourceType>;

struct SourceType {
    enum class Kind : std::uint8_t {
        Void,
        Integer, // including characters (isChar) and enums' underlying values
        Boolean,
        Float,
        Pointer,
        Struct,
        Union,
        Array,
        Enum,
        Function,
        Typedef,   // a name for `target`
        Qualified, // const or volatile `target`
        Unknown,
    };
    struct Member {
        std::string name;
        std::uint32_t offset = 0;    // bytes from the start of the aggregate
        std::uint32_t bitOffset = 0; // bit-fields: bits from the most significant bit of `offset`
        std::uint32_t bitSize = 0;   // 0: not a bit-field
        TypePtr type;
    };

    Kind kind = Kind::Unknown;
    std::string name; // as C spells the type: "int", "const char *", "struct Item", "Item"
    std::uint32_t size = 0;
    bool isSigned = false;
    bool isChar = false;
    TypePtr target;          // Pointer, Array (element), Typedef, Qualified, Enum (may be null)
    std::uint32_t count = 0; // Array: elements (0 when unknown)
    std::vector<Member> members;
    std::vector<std::pair<std::string, std::int64_t>> enumerators;
    bool incomplete = false; // a declaration only: no members, no size

    // The type with typedefs and qualifiers taken off.
    const SourceType& resolved() const;
    // Whether a value of it has children a user can open (struct, union, array, a pointer
    // to something).
    bool expandable() const;
};

// The C base types an expression names or computes with: "int", "unsigned long", "char".
// nullptr for a name that is none.
TypePtr baseType(const std::string& name);
// A pointer to `to`, as `&` and casts make it.
TypePtr pointerTo(const TypePtr& to);

// Where a value is, and what it is.
struct SourceValue {
    enum class Where : std::uint8_t {
        Memory,       // at `address`
        Register,     // in register `reg` of the frame (FrameRegisters numbering)
        Bytes,        // computed: `bytes` is the value, big-endian (read-only)
        OptimizedOut, // the compiler left nothing from which to recover it here
        Unavailable,  // it exists but cannot be read (`why`)
    };
    TypePtr type;
    Where where = Where::Unavailable;
    std::uint32_t address = 0;
    int reg = -1;
    std::vector<std::uint8_t> bytes;
    // A bit-field: bits from the most significant bit of the first byte, and how many.
    std::uint32_t bitOffset = 0, bitSize = 0;
    std::string why;

    bool readable() const { return where == Where::Memory || where == Where::Register || where == Where::Bytes; }
    static SourceValue optimizedOut(TypePtr t);
    static SourceValue unavailable(TypePtr t, std::string why);
    static SourceValue ofBytes(TypePtr t, std::vector<std::uint8_t> bytes);
    static SourceValue ofInteger(TypePtr t, std::int64_t v);
    static SourceValue inMemory(TypePtr t, std::uint32_t address);
};

// One frame as the values of its variables are read in it.
struct SourceFrame {
    const DwarfFile* file = nullptr;
    const DebugInfo* info = nullptr;
    std::vector<std::uint32_t> bases; // where each hunk of the program is loaded
    FrameRegisters regs;
    std::optional<std::uint32_t> cfa;
    std::uint32_t hunk = 0, offset = 0; // the frame's PC within the program
    bool outer = false;                 // not the innermost frame: its PC is a return address
    // The frame's function or inlined call (DebugScope::die); its lexical blocks holding the
    // PC are its scopes, up to any inlined call inside them (that call is a frame of its own).
    std::uint64_t scopeDie = 0;
};

struct SourceVariable {
    std::string name;
    SourceValue value;
    bool parameter = false;
};

// Reads types, scopes and values from one program's DWARF. Cheap to make; caches types.
class SourceValues {
public:
    explicit SourceValues(std::shared_ptr<const DwarfFile> file);

    // The variables of a frame: its parameters, and its locals from the innermost block
    // holding the PC outwards (each block's in declaration order).
    std::vector<SourceVariable> parameters(const SourceFrame& frame, const TargetMemory& memory) const;
    std::vector<SourceVariable> locals(const SourceFrame& frame, const TargetMemory& memory) const;
    // The variables of the frame's compilation unit: its file-static and external data.
    std::vector<SourceVariable> globals(const SourceFrame& frame, const TargetMemory& memory) const;
    // A name as C sees it from the frame: locals and parameters, then the unit's globals,
    // then every unit's externals and statics, then enumerators. nullopt when none.
    std::optional<SourceVariable> lookup(const SourceFrame& frame, const TargetMemory& memory,
                                         const std::string& name) const;
    // A global by name, from any unit (the first found), without a frame: placed by `bases`.
    std::optional<SourceVariable> global(const std::string& name, const std::vector<std::uint32_t>& bases,
                                         const TargetMemory& memory) const;

    // The value's bytes as its type holds them (a bit-field's bits shifted down), or nullopt
    // with `why` when they cannot be read.
    std::optional<std::vector<std::uint8_t>> read(const SourceValue& v, const SourceFrame& frame,
                                                  const TargetMemory& memory, std::string* why = nullptr) const;
    // As a number: integers, enums, booleans, pointers (sign-extended where signed).
    std::optional<std::int64_t> integer(const SourceValue& v, const SourceFrame& frame,
                                        const TargetMemory& memory, std::string* why = nullptr) const;
    // The value as text, as gdb prints it (aggregates summarised in braces).
    std::string format(const SourceValue& v, const SourceFrame& frame, const TargetMemory& memory) const;
    // What opening the value shows: a struct's members, an array's elements [start, start+count),
    // the thing a pointer points at.
    std::vector<SourceVariable> children(const SourceVariable& parent, const SourceFrame& frame,
                                         const TargetMemory& memory, std::uint32_t start = 0,
                                         std::uint32_t count = 1000) const;
    // How many children children() can give (an array's length).
    std::uint32_t childCount(const SourceValue& v) const;
    // A member of a struct or union value by name, an element by index, the pointee.
    std::optional<SourceValue> member(const SourceValue& v, const std::string& name, const SourceFrame& frame,
                                      const TargetMemory& memory) const;
    std::optional<SourceValue> element(const SourceValue& v, std::int64_t index, const SourceFrame& frame,
                                       const TargetMemory& memory, std::string* why = nullptr) const;
    std::optional<SourceValue> deref(const SourceValue& v, const SourceFrame& frame, const TargetMemory& memory,
                                     std::string* why = nullptr) const;

    // Writes `bytes` (the type's size, big-endian) as the value's new contents. A value in a
    // register of the innermost frame (or not saved since it) is reported in `cpuRegister`
    // for the caller to set; one saved on the stack is written there. Throws
    // DebugInfoError saying why a value cannot be written.
    struct RegisterWrite {
        int reg = -1;
        std::uint32_t value = 0;
    };
    std::optional<RegisterWrite> write(const SourceValue& v, const SourceFrame& frame, TargetMemory& memory,
                                       const std::vector<std::uint8_t>& bytes) const;

    // A type by its DIE offset.
    TypePtr typeAt(std::uint64_t die) const;
    const DwarfFile& file() const { return *file_; }

    struct Impl; // source_values.cpp's own

private:
    std::shared_ptr<Impl> impl_;
    std::shared_ptr<const DwarfFile> file_;
};

// An integer of `size` bytes in big-endian order, sign-extended when `isSigned`.
std::int64_t bigEndianInteger(const std::vector<std::uint8_t>& bytes, bool isSigned);
// The low `size` bytes of v, big-endian.
std::vector<std::uint8_t> bigEndianBytes(std::uint64_t v, std::uint32_t size);

} // namespace copperline
