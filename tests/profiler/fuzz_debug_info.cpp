// SPDX-License-Identifier: GPL-3.0-or-later
// Randomised corruption of a real program's ELF sibling (its headers, its sections, above
// all its DWARF), read with its hunk executable and alone, and, now and then, of the hunk
// executable beside it; then of a real amiga-gcc program's stabs. Every mutant must load
// or be refused with a MediaError (DebugInfoError); whatever loads must answer lookups. The
// reader's sources are built into this test with AddressSanitizer and UBSan, so a read out
// of bounds or an overflow fails it. Deterministic: the seed is fixed.

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "profiler/debuginfo/debug_info.h"

#include <cstdio>
#include <cstdlib>
#include <gelf.h>
#include <libelf.h>
#include <random>

namespace {

struct Region {
    std::size_t offset, size;
};

// Where the pristine ELF keeps its headers and each section's bytes, so mutations can aim at
// every part of the file alike rather than mostly at the largest section.
std::vector<Region> regions(std::vector<std::uint8_t> elfBytes) {
    std::vector<Region> out{{0, 52}};
    elf_version(EV_CURRENT);
    Elf* elf = elf_memory(reinterpret_cast<char*>(elfBytes.data()), elfBytes.size());
    GElf_Ehdr eh;
    if (!elf || !gelf_getehdr(elf, &eh)) {
        std::fprintf(stderr, "fuzz_debug_info: the seed file is not an ELF\n");
        std::exit(2);
    }
    out.push_back({std::size_t(eh.e_shoff), std::size_t(eh.e_shnum) * eh.e_shentsize});
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size)
            out.push_back({std::size_t(sh.sh_offset), std::size_t(sh.sh_size)});
    }
    elf_end(elf);
    return out;
}

void mutate(std::vector<std::uint8_t>& bytes, std::mt19937& rng, const std::vector<Region>& where) {
    const int edits = 1 + int(rng() % 6);
    for (int e = 0; e < edits; ++e) {
        if (bytes.empty()) return;
        const Region r = where.empty() ? Region{0, bytes.size()} : where[rng() % where.size()];
        const std::size_t at = (r.offset + (r.size ? rng() % r.size : 0)) % bytes.size();
        switch (rng() % 7) {
        case 0: bytes[at] = std::uint8_t(rng()); break;
        case 1: bytes[at] ^= std::uint8_t(1u << (rng() % 8)); break;
        case 2: bytes[at] = rng() % 2 ? 0x00 : 0xFF; break;
        case 3: // a large or small 32-bit value, big-endian, where lengths and offsets live
            if (at + 4 <= bytes.size()) {
                static const std::uint32_t words[] = {
                    0,    1,      2,          3,          4,      5,         0x7F,
                    0x80, 0xFFFF, 0xFFFFFFFF, 0x7FFFFFFF, 0x1000, 0xFFFFFFF0};
                const std::uint32_t w = words[rng() % (sizeof words / sizeof *words)];
                for (int i = 0; i < 4; ++i)
                    bytes[at + std::size_t(i)] = std::uint8_t(w >> (24 - 8 * i));
            }
            break;
        case 4: // a run of garbage
            for (std::size_t i = at, n = 1 + rng() % 32; i < bytes.size() && n; ++i, --n)
                bytes[i] = std::uint8_t(rng());
            break;
        case 5:
            if (rng() % 8 == 0) bytes.resize(at);
            break; // truncation, now and then
        case 6:    // copy a neighbouring byte (keeps LEB128 and forms plausible)
            if (at + 1 < bytes.size()) bytes[at] = bytes[at + 1];
            break;
        }
    }
}

} // namespace

// Every answer must be consistent: frames of every address of every hunk.
bool consistent(const copperline::DebugInfo& info, long i) {
    for (std::uint32_t h = 0; h < info.hunks().size(); ++h)
        for (std::uint32_t off = 0; off < info.hunks()[h].size; off += 2) {
            const auto at = info.lookup(h, off);
            for (const auto& f : info.frames(at))
                if (f.file != copperline::kNoFile && f.file >= info.files().size()) {
                    std::fprintf(stderr, "mutant %ld: a frame names file %u of %zu\n", i, f.file, info.files().size());
                    return false;
                }
            (void)info.function(at);
        }
    return true;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: fuzz_debug_info PROGRAM ELF [ITERATIONS [STABS-PROGRAM]]\n");
        return 2;
    }
    const auto hunk = copperline::readFileBytes(argv[1]);
    const auto elf = copperline::readFileBytes(argv[2]);
    const long iterations = argc > 3 ? std::atol(argv[3]) : 5000;
    const auto where = regions(elf);
    std::mt19937 rng(0xD3BA6);
    long accepted = 0, refused = 0;
    for (long i = 0; i < iterations; ++i) {
        auto elfBytes = elf;
        auto hunkBytes = hunk;
        mutate(elfBytes, rng, where);
        if (rng() % 16 == 0) mutate(hunkBytes, rng, {});
        try {
            const auto info =
                copperline::DebugInfo::fromBytes(hunkBytes, "program", elfBytes, "program.elf");
            const copperline::HunkBases bases(info, info.linkBases());
            if (!consistent(info, i)) return 1;
            ++accepted;
        } catch (const copperline::MediaError&) {
            ++refused;
        }
        // The same ELF alone (symbols.load, --symbols): its sections standing for hunks.
        try {
            const auto alone = copperline::DebugInfo::fromElfBytes(elfBytes, "alone.elf");
            const copperline::HunkBases bases(alone, alone.basesAt(0x40000));
            if (!consistent(alone, i)) return 1;
        } catch (const copperline::MediaError&) {
        }
    }
    // bebbo's amiga-gcc stabs: the trailing HUNK_DEBUG of a real program, mutated.
    if (argc > 4) {
        const auto stabs = copperline::readFileBytes(argv[4]);
        const std::vector<Region> tail{{stabs.size() / 8, stabs.size() - stabs.size() / 8}};
        long stabsAccepted = 0, stabsRefused = 0;
        for (long i = 0; i < iterations; ++i) {
            auto bytes = stabs;
            mutate(bytes, rng, tail);
            try {
                const auto info = copperline::DebugInfo::fromBytes(bytes, "stabs", {}, {});
                if (!consistent(info, i)) return 1;
                ++stabsAccepted;
            } catch (const copperline::MediaError&) {
                ++stabsRefused;
            }
        }
        std::printf("%ld stabs mutants: %ld accepted, %ld refused, no crash\n", iterations, stabsAccepted,
                    stabsRefused);
    }
    std::printf("%ld mutants: %ld accepted, %ld refused, no crash\n", iterations, accepted,
                refused);
    return 0;
}
