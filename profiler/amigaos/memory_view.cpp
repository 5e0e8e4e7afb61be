// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/amigaos/memory_view.h"

#include "emu/machine.h"

#include <algorithm>
#include <stdexcept>

namespace copperline {

const char* memoryKindName(MemoryKind kind) {
    switch (kind) {
    case MemoryKind::ChipRam: return "chip";
    case MemoryKind::SlowRam: return "slow";
    case MemoryKind::FastRam: return "fast";
    case MemoryKind::Rom: return "kickstart";
    case MemoryKind::ExtRom: return "extension";
    }
    return "unknown";
}

const MemoryRange* MemoryView::rangeOf(std::uint32_t address, std::uint32_t length) const {
    for (const MemoryRange& r : ranges())
        if (r.contains(address, length)) return &r;
    return nullptr;
}

bool MemoryView::inRam(std::uint32_t address, std::uint32_t length) const {
    const MemoryRange* r = rangeOf(address, length);
    return r && r->isRam();
}

bool MemoryView::inRom(std::uint32_t address, std::uint32_t length) const {
    const MemoryRange* r = rangeOf(address, length);
    return r && r->isRom();
}

std::optional<std::uint8_t> MemoryView::byte(std::uint32_t address) const {
    if (!backed(address, 1)) return std::nullopt;
    return byteAt(address);
}

std::optional<std::uint16_t> MemoryView::word(std::uint32_t address) const {
    if (!backed(address, 2)) return std::nullopt;
    return std::uint16_t(byteAt(address) << 8 | byteAt(address + 1));
}

std::optional<std::uint32_t> MemoryView::longword(std::uint32_t address) const {
    if (!backed(address, 4)) return std::nullopt;
    return std::uint32_t(byteAt(address)) << 24 | std::uint32_t(byteAt(address + 1)) << 16 |
           std::uint32_t(byteAt(address + 2)) << 8 | byteAt(address + 3);
}

// ---- the machine --------------------------------------------------------------------------

MachineMemoryView::MachineMemoryView(const Machine& machine) : machine_(machine) {
    // The addresses of emu/machine.h's memory map; only the fitted sizes count, so a
    // pointer into a chip RAM mirror or past the end of slow RAM is not backed.
    const Machine::Config& c = machine.config();
    ranges_.push_back({0, c.chipRamBytes, MemoryKind::ChipRam});
    if (const std::uint32_t fast = machine.fastRamBase())
        ranges_.push_back({fast, fast + c.fastRamBytes, MemoryKind::FastRam});
    if (c.slowRamBytes)
        ranges_.push_back({0xC00000, 0xC00000 + c.slowRamBytes, MemoryKind::SlowRam});
    if (machine.hasExtRom()) ranges_.push_back({0xE00000, 0xE80000, MemoryKind::ExtRom});
    if (machine.hasRom()) ranges_.push_back({0xF80000, 0x1000000, MemoryKind::Rom});
}

std::uint8_t MachineMemoryView::byteAt(std::uint32_t address) const {
    return machine_.spyByte(address);
}

// ---- buffers ------------------------------------------------------------------------------

void BufferMemoryView::add(MemoryKind kind, std::uint32_t start, std::vector<std::uint8_t> bytes) {
    if (bytes.empty()) return;
    if (bytes.size() > 0x1000000 || start > 0x1000000 - bytes.size())
        throw std::invalid_argument("memory range past the 24-bit address space");
    const MemoryRange range{start, start + std::uint32_t(bytes.size()), kind};
    for (const MemoryRange& r : ranges_)
        if (range.start < r.end && r.start < range.end)
            throw std::invalid_argument("memory ranges overlap");
    const auto at = std::find_if(ranges_.begin(), ranges_.end(),
                                 [&](const MemoryRange& r) { return r.start > range.start; });
    const auto index = at - ranges_.begin();
    ranges_.insert(at, range);
    buffers_.insert(buffers_.begin() + index, std::move(bytes));
}

std::uint8_t BufferMemoryView::byteAt(std::uint32_t address) const {
    for (std::size_t i = 0; i < ranges_.size(); ++i)
        if (ranges_[i].contains(address, 1)) return buffers_[i][address - ranges_[i].start];
    return 0;
}

} // namespace copperline
