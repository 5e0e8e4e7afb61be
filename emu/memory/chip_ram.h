// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Chip RAM as the DMA channels see it: word accesses at even addresses, the address
// wrapped to the fitted size (512 KiB on an A500: Agnus 8371 drives 19 address lines; an
// ECS Agnus 8372 drives 20 for 1 MiB, 21 for 2 MiB).

#include <cstdint>
#include <vector>

namespace copperline {

class Archive;

class ChipRam {
public:
    explicit ChipRam(std::uint32_t bytes = 512 * 1024) : bytes_(bytes), mask_(bytes - 1), ram_(bytes, 0) {}

    std::uint32_t size() const { return bytes_; }
    // Another fitted size (a power of two), all of it zero (Machine::reconfigure).
    void resize(std::uint32_t bytes) {
        bytes_ = bytes;
        mask_ = bytes - 1;
        ram_.assign(bytes, 0);
    }
    std::uint32_t mask() const { return mask_; }

    std::uint16_t readWord(std::uint32_t addr) const {
        addr &= mask_ & ~1u;
        return std::uint16_t(ram_[addr] << 8 | ram_[addr + 1]);
    }
    void writeWord(std::uint32_t addr, std::uint16_t v) {
        addr &= mask_ & ~1u;
        ram_[addr] = std::uint8_t(v >> 8);
        ram_[addr + 1] = std::uint8_t(v);
    }
    std::uint8_t readByte(std::uint32_t addr) const { return ram_[addr & mask_]; }
    void writeByte(std::uint32_t addr, std::uint8_t v) { ram_[addr & mask_] = v; }

    std::uint8_t* data() { return ram_.data(); }
    const std::uint8_t* data() const { return ram_.data(); }

    template <class A>
    void serialize(A& ar) {
        ar(ram_);
    }

private:
    std::uint32_t bytes_;
    std::uint32_t mask_;
    std::vector<std::uint8_t> ram_;
};

} // namespace copperline
