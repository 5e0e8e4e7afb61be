// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Small WinUAE states for the reader's tests and the fuzz seeds (docs/formats/uss.md): the
// chunks an A500 state needs, laid out as WinUAE's writers lay them out, around a ROM of
// the test's own; a test changes or adds chunks before it writes the file.

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace copperline::testing {

struct UssChunk {
    std::string name;
    std::vector<std::uint8_t> payload;
    bool compressed = false;
};

inline void be16(std::vector<std::uint8_t>& v, std::uint16_t x) {
    v.push_back(std::uint8_t(x >> 8));
    v.push_back(std::uint8_t(x));
}
inline void be32(std::vector<std::uint8_t>& v, std::uint32_t x) {
    be16(v, std::uint16_t(x >> 16));
    be16(v, std::uint16_t(x));
}
inline void text(std::vector<std::uint8_t>& v, const std::string& s) {
    v.insert(v.end(), s.begin(), s.end());
    v.push_back(0);
}

// A 512K ROM whose reset vectors point at a `bra.s *` (and no Kickstart besides).
inline std::vector<std::uint8_t> testRom() {
    std::vector<std::uint8_t> rom(512 * 1024, 0);
    const std::uint8_t head[] = {0x11, 0x14, 0x4E, 0xF9, 0x00, 0xF8, 0x00, 0x08, 0x60, 0xFE};
    std::copy(std::begin(head), std::end(head), rom.begin());
    for (std::size_t i = 16; i < rom.size(); ++i) rom[i] = std::uint8_t(i * 7 >> 4);
    return rom;
}

// The chunks of a state of an A500 (512K chip, 512K slow) whose CPU spins at $1000
// (`bra.s *`) with a picture-less display, saved with `rom` as its Kickstart.
inline std::vector<UssChunk> minimalUss(const std::vector<std::uint8_t>& rom) {
    std::vector<UssChunk> c;
    std::vector<std::uint8_t> p;
    be32(p, 0);
    text(p, "UAE");
    text(p, "3.3.0");
    text(p, "");
    c.push_back({"ASF ", p});
    p.clear();
    be32(p, 68000);
    be32(p, 0x80000000u);
    for (unsigned i = 0; i < 15; ++i) be32(p, 0x1000u * i + i);
    be32(p, 0x1000);  // PC
    be16(p, 0x60FE);  // IRC
    be16(p, 0x60FE);  // IR
    be32(p, 0x7F000); // USP
    be32(p, 0x7E000); // ISP
    be16(p, 0x2700);  // SR: supervisor
    be32(p, 0);
    be32(p, 709379);
    be32(p, 0);
    c.push_back({"CPU ", p});
    p.clear();
    be32(p, 0); // OCS
    std::vector<std::uint16_t> regs(256, 0);
    regs[0x004 / 2] = 0x8000; // VPOSR: long frame, line 0
    regs[0x006 / 2] = 0x0010; // VHPOSR: colour clock 16
    regs[0x096 / 2] = 0x0280; // DMACON: DMAEN, COPEN
    regs[0x080 / 2] = 0x0000;
    regs[0x082 / 2] = 0x2000; // COP1LC
    regs[0x180 / 2] = 0x0123;
    auto words = [&](unsigned from, unsigned to) {
        for (unsigned o = from; o < to; o += 2) be16(p, regs[o / 2]);
    };
    words(0x000, 0x0A0);
    words(0x0E0, 0x120);
    words(0x180, 0x200);
    c.push_back({"CHIP", p});
    for (const char* name : {"CIAA", "CIAB"}) {
        p.assign({0xFC, 0xFF, 0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0,
                  0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0});
        c.push_back({name, p});
    }
    p.clear();
    be32(p, 5); // BLIT: done
    c.push_back({"BLIT", p});
    p.assign({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    c.push_back({"DISK", p});
    std::vector<std::uint8_t> chip(512 * 1024, 0);
    chip[0x1000] = 0x60;
    chip[0x1001] = 0xFE;
    // The Copper list at $2000: the end.
    chip[0x2000] = chip[0x2001] = chip[0x2002] = 0xFF;
    chip[0x2003] = 0xFE;
    c.push_back({"CRAM", chip, true});
    c.push_back({"BRAM", std::vector<std::uint8_t>(512 * 1024, 0x5A), true});
    p.clear();
    be32(p, 0xF80000);
    be32(p, 0x80000);
    be32(p, 0);
    be32(p, 0x0001'0000);
    be32(p, std::uint32_t(crc32(0L, rom.data(), uInt(rom.size()))));
    text(p, "Kickstart 1.0");
    text(p, "/roms/test.rom");
    c.push_back({"ROM ", p});
    return c;
}

inline std::vector<std::uint8_t> writeUss(const std::vector<UssChunk>& chunks) {
    std::vector<std::uint8_t> out;
    for (const UssChunk& c : chunks) {
        std::vector<std::uint8_t> data = c.payload;
        if (c.compressed) {
            uLongf n = compressBound(uLong(c.payload.size()));
            std::vector<std::uint8_t> z(n);
            compress2(z.data(), &n, c.payload.data(), uLong(c.payload.size()), 9);
            z.resize(n);
            data.clear();
            be32(data, std::uint32_t(c.payload.size()));
            data.insert(data.end(), z.begin(), z.end());
        }
        out.insert(out.end(), c.name.begin(), c.name.end());
        be32(out, std::uint32_t(12 + data.size()));
        be32(out, c.compressed ? 1 : 0);
        out.insert(out.end(), data.begin(), data.end());
        const std::size_t length = c.compressed ? data.size() - 4 : data.size();
        out.insert(out.end(), 4 - (length & 3), 0);
    }
    out.insert(out.end(), {'E', 'N', 'D', ' ', 0, 0, 0, 8});
    return out;
}

} // namespace copperline::testing
