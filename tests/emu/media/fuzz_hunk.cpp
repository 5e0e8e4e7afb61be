// SPDX-License-Identifier: GPL-3.0-or-later
// Randomised corruption of a real hunk executable. Every mutant must either parse or be
// refused with a MediaError; in the sanitized build (CI's second part) ASan and UBSan catch any
// read out of bounds, overflow or leak. Deterministic: the seed is fixed, so a failure reproduces.

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"

#include <cstdio>
#include <cstdlib>
#include <random>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: fuzz_hunk FILE [ITERATIONS]\n");
        return 2;
    }
    const auto good = copperline::readFileBytes(argv[1]);
    const long iterations = argc > 2 ? std::atol(argv[2]) : 10000;
    std::mt19937 rng(0xC0FFEE);
    long accepted = 0, refused = 0;
    for (long i = 0; i < iterations; ++i) {
        auto bytes = good;
        const int edits = 1 + int(rng() % 8);
        for (int e = 0; e < edits; ++e) {
            const auto at = bytes.empty() ? 0 : rng() % bytes.size();
            switch (rng() % 6) {
            case 0: if (!bytes.empty()) bytes[at] = std::uint8_t(rng()); break;          // random byte
            case 1: if (!bytes.empty()) bytes[at] ^= std::uint8_t(1u << (rng() % 8)); break;  // bit flip
            case 2: bytes.resize(at); break;                                              // truncate
            case 3: if (bytes.size() >= 4) {                                              // interesting longword
                static const std::uint32_t words[] = {0, 1, 0x3E9, 0x3EA, 0x3EB, 0x3EC, 0x3F0, 0x3F1, 0x3F2, 0x3F3,
                                                      0x3FC, 0xFFFFFFFF, 0x7FFFFFFF, 0x4C494E45, 0x40000000};
                const std::uint32_t w = words[rng() % (sizeof words / sizeof *words)];
                const auto p = (at & ~std::size_t(3)) % (bytes.size() - 3);
                bytes[p] = std::uint8_t(w >> 24); bytes[p + 1] = std::uint8_t(w >> 16);
                bytes[p + 2] = std::uint8_t(w >> 8); bytes[p + 3] = std::uint8_t(w);
            } break;
            case 4: bytes.insert(bytes.begin() + std::ptrdiff_t(at), 4, std::uint8_t(rng())); break;  // insert
            case 5: if (bytes.size() > 8) bytes.erase(bytes.begin() + std::ptrdiff_t(at % (bytes.size() - 4)),
                                                      bytes.begin() + std::ptrdiff_t(at % (bytes.size() - 4)) + 4); break;
            }
        }
        try {
            const auto file = copperline::readHunkFile(bytes, "mutant");
            // Whatever is accepted must be consistent enough to write back and read again.
            const auto again = copperline::readHunkFile(copperline::writeHunkFile(file), "rewrite");
            if (again.sections.size() != file.sections.size()) {
                std::fprintf(stderr, "mutant %ld: rewrite changed the hunk count\n", i);
                return 1;
            }
            ++accepted;
        } catch (const copperline::MediaError&) {
            ++refused;
        }
    }
    std::printf("%ld mutants: %ld accepted, %ld refused, no crash\n", iterations, accepted, refused);
    return 0;
}
