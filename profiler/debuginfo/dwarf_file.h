// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A program's ELF held open for a source-level debugger (docs/debugger.md): its DWARF
// read on demand through elfutils libdw (the scopes around an address, their variables and
// types) and its call-frame information (how each frame's caller is found). DebugInfo reads
// what every address needs once; this answers what only a stopped program's frames need.
//
// Addresses: the ELF speaks of link addresses. The debugger passes (hunk, offset) pairs of
// the DebugInfo the file was opened for and gets them back the same way, so the program may
// be loaded anywhere.

#include "profiler/debuginfo/debug_info.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

struct Dwarf;
struct Dwarf_CFI_s;
struct Elf;

namespace copperline {

// The emulated machine's memory as the debugger reads and writes it (side-effect free
// reads; writes to RAM only). False: the bytes cannot be had.
class TargetMemory {
public:
    virtual ~TargetMemory() = default;
    virtual bool read(std::uint32_t address, std::span<std::uint8_t> out) const = 0;
    virtual bool write(std::uint32_t address, std::span<const std::uint8_t> bytes) = 0;
};

// The 68000's registers by DWARF number (D0-D7 are 0-7, A0-A7 8-15) and the PC, for one
// frame: where each one's value is (the CPU itself in the innermost frame, a save slot on
// the stack in an outer one) or that it is not known there.
struct FrameRegisters {
    static constexpr int kPc = 16;
    static constexpr int kSr = 17;
    static constexpr int kCount = 18;
    enum class Home : std::uint8_t {
        Unknown, // not recoverable in this frame
        Cpu,     // the CPU's own register (the innermost frame, or unchanged since it)
        Memory,  // saved at `slot`
        Value,   // computed (the CFA itself, the caller's stack pointer): not writable
    };
    std::array<std::uint32_t, kCount> value{};
    std::array<Home, kCount> home{};
    std::array<std::uint32_t, kCount> slot{};

    bool known(int r) const { return home[std::size_t(r)] != Home::Unknown; }
    std::uint32_t operator[](int r) const { return value[std::size_t(r)]; }
    void set(int r, std::uint32_t v, Home h, std::uint32_t at = 0) {
        value[std::size_t(r)] = v;
        home[std::size_t(r)] = h;
        slot[std::size_t(r)] = at;
    }
    // The name a user types for register r ("d0".."d7", "a0".."a7", "pc", "sr").
    static const char* name(int r);
};

class DwarfFile {
public:
    // Opens the ELF `info` was read from (info.elfPath()) again. Throws DebugInfoError when
    // it cannot be read or no longer matches what `info` holds (the file was rebuilt).
    static std::shared_ptr<DwarfFile> open(const DebugInfo& info);
    // The same from bytes in memory.
    static std::shared_ptr<DwarfFile> fromBytes(const DebugInfo& info, std::vector<std::uint8_t> bytes,
                                                const std::string& name);
    ~DwarfFile();
    DwarfFile(const DwarfFile&) = delete;
    DwarfFile& operator=(const DwarfFile&) = delete;

    const std::string& name() const { return name_; }
    bool hasDwarf() const { return dwarf_ != nullptr; }
    bool hasCallFrameInfo() const { return cfi_ != nullptr; }
    Dwarf* dwarf() const { return dwarf_; }

    // Link address <-> (hunk, offset).
    std::optional<std::uint32_t> linkAddress(std::uint32_t hunk, std::uint32_t offset) const;
    std::optional<std::pair<std::uint32_t, std::uint32_t>> hunkOf(std::uint64_t linkAddress) const;

    // One step of unwinding: the caller's registers (its PC is the return address, its A7
    // the CFA) from those of the frame at (hunk, offset), by the call-frame information.
    // nullopt when none covers the address or its rules need a register that is not known.
    struct Unwound {
        std::uint32_t cfa = 0;
        FrameRegisters caller;
    };
    std::optional<Unwound> unwind(std::uint32_t hunk, std::uint32_t offset, const FrameRegisters& regs,
                                  const TargetMemory& memory) const;
    // The CFA of the frame at (hunk, offset) alone.
    std::optional<std::uint32_t> cfa(std::uint32_t hunk, std::uint32_t offset,
                                     const FrameRegisters& regs) const;

    // The compilation unit DIE holding a link address, by DIE offset.
    std::optional<std::uint64_t> unitAt(std::uint64_t linkAddress) const;
    // Every compilation unit, by DIE offset.
    const std::vector<std::uint64_t>& units() const { return unitOffsets_; }

private:
    DwarfFile(const DebugInfo& info, std::vector<std::uint8_t> bytes, std::string name);
    void openHandles();
    void checkSections();
    void indexUnits();

    struct Section {
        std::uint32_t link = 0, size = 0;
    };
    std::vector<Section> hunks_; // where the ELF linked each hunk of the DebugInfo
    std::vector<std::uint8_t> bytes_;
    std::string name_;
    Elf* elf_ = nullptr;
    Dwarf* dwarf_ = nullptr;
    Dwarf_CFI_s* cfi_ = nullptr;
    Dwarf_CFI_s* ehCfi_ = nullptr; // ours to end (from .eh_frame)
    std::vector<std::uint64_t> unitOffsets_;
    // Address ranges of each unit: [lo, hi) -> unit DIE offset.
    struct UnitRange {
        std::uint64_t lo, hi, unit;
    };
    std::vector<UnitRange> unitRanges_;
};

} // namespace copperline
