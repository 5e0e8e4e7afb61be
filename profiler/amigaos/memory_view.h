// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The guest memory the AmigaOS reader looks at: which addresses are backed by memory of
// the running machine, and big-endian reads of them without side effects. The reader asks
// `backed` before every read, so a garbage pointer can never reach a custom register, a
// CIA, an unmapped hole or a chip RAM mirror.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace copperline {

class Machine;

enum class MemoryKind : std::uint8_t { ChipRam, SlowRam, Rom, ExtRom, FastRam };

// The name a range has in the files ("chip", "slow", "kickstart", "extension").
const char* memoryKindName(MemoryKind kind);

struct MemoryRange {
    std::uint32_t start = 0;
    std::uint32_t end = 0; // one past the last byte
    MemoryKind kind = MemoryKind::ChipRam;

    bool contains(std::uint32_t address, std::uint32_t length) const {
        return address >= start && address < end && length <= end - address;
    }
    bool isRam() const {
        return kind == MemoryKind::ChipRam || kind == MemoryKind::SlowRam || kind == MemoryKind::FastRam;
    }
    bool isRom() const { return !isRam(); }
};

class MemoryView {
public:
    virtual ~MemoryView() = default;

    // The backed ranges, in ascending address order, none overlapping.
    virtual std::span<const MemoryRange> ranges() const = 0;

    // The range that holds all of [address, address + length), or nullptr.
    const MemoryRange* rangeOf(std::uint32_t address, std::uint32_t length = 1) const;
    bool backed(std::uint32_t address, std::uint32_t length = 1) const {
        return rangeOf(address, length) != nullptr;
    }
    bool inRam(std::uint32_t address, std::uint32_t length = 1) const;
    bool inRom(std::uint32_t address, std::uint32_t length = 1) const;

    // Big-endian reads; nothing where any byte is not backed.
    std::optional<std::uint8_t> byte(std::uint32_t address) const;
    std::optional<std::uint16_t> word(std::uint32_t address) const;
    std::optional<std::uint32_t> longword(std::uint32_t address) const;

protected:
    // One byte of a backed address (the public reads check `backed` first).
    virtual std::uint8_t byteAt(std::uint32_t address) const = 0;
};

// The running machine's memory as the CPU sees it (Machine::spyByte: with the ROM overlay
// on, the ROM shows through at the bottom of chip RAM): chip RAM and slow RAM of the
// configured sizes, the Kickstart ROM at $F80000-$FFFFFF when one is fitted, and the
// extension ROM at $E00000-$E7FFFF when one is fitted (emu/machine.h has the map).
class MachineMemoryView final : public MemoryView {
public:
    explicit MachineMemoryView(const Machine& machine);
    std::span<const MemoryRange> ranges() const override { return ranges_; }

private:
    std::uint8_t byteAt(std::uint32_t address) const override;

    const Machine& machine_;
    std::vector<MemoryRange> ranges_;
};

// Memory held in buffers: for offline use (a capture's chip-ram.bin) and for tests.
class BufferMemoryView final : public MemoryView {
public:
    // Adds a range starting at `start` holding `bytes`; ranges must not overlap.
    void add(MemoryKind kind, std::uint32_t start, std::vector<std::uint8_t> bytes);
    std::span<const MemoryRange> ranges() const override { return ranges_; }

private:
    std::uint8_t byteAt(std::uint32_t address) const override;

    std::vector<MemoryRange> ranges_;
    std::vector<std::vector<std::uint8_t>> buffers_; // parallel to ranges_
};

} // namespace copperline
