// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Converting a linked m68k ELF into an AmigaOS hunk executable, as the Amiga cross
// toolchains do. The ELF must be linked with --emit-relocs so its relocations survive.
//
// Every allocated ELF section with contents becomes one hunk, in address order: executable
// sections become HUNK_CODE, other loaded sections HUNK_DATA, NOBITS sections HUNK_BSS.
// R_68K_32 relocations become HUNK_RELOC32 entries; defined symbols become HUNK_SYMBOL; the
// DWARF line table becomes one HUNK_DEBUG LINE block per source file and hunk.

#include "emu/media/hunk.h"

#include <cstdint>
#include <string>
#include <vector>

namespace copperline {

struct ElfToHunkResult {
    HunkFile hunks;
    // For each hunk, the ELF section it came from and that section's link address.
    std::vector<std::string> sectionNames;
    std::vector<std::uint32_t> sectionAddresses;
};

struct ElfToHunkOptions {
    // Lay the hunks out as Bartman's elf2hunk (vscode-amiga-debug) does: every hunk
    // (size + 4) / 4 longwords, one longword more than needed when the section fills whole
    // longwords; every symbol named "NAME@SIZE" with its ELF size in lowercase hex; no LINE
    // blocks. The debug-info reader must pair such a program with its ELF.
    bool bartmanLayout = false;
};

// Throws MediaError with a message naming the problem: not an ELF, not m68k, no
// relocations, a relocation that a hunk file cannot express (a PC-relative reference
// between hunks, a 16-bit absolute reference), a corrupt line table.
ElfToHunkResult convertElfToHunk(const std::string& elfPath, const ElfToHunkOptions& options = {});

} // namespace copperline
