// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Debug information for code that is no AmigaOS executable: a boot block, a trackmo's parts,
// code a loader places itself. Its ELF is loaded by hand (symbols.load on the bus,
// --symbols ELF@BASE on the command line) with where its sections lie, and then names that
// code everywhere the --run program's debug information would: the disassembly,
// symbols.resolve, the strip's call tree, and a capture's samples and coverage (their code
// ranges, relocation bases and unwind table, when profile.start does not give them).

#include "app/control/capture_options.h"
#include "profiler/debuginfo/debug_info.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace copperline {

// What to load: an ELF and where its sections lie. `base` places the lowest linked section
// (the others keep their distances from it), `bases` each section in address order; with
// neither, the ELF's own link addresses.
struct SymbolsSpec {
    std::string path;
    std::optional<std::uint32_t> base;
    std::vector<std::uint32_t> bases;
};

// "ELF" or "ELF@BASE" (BASE as $40000, 0x40000 or decimal). Throws MediaError naming what
// is wrong.
SymbolsSpec parseSymbolsSpec(std::string_view text);

struct LoadedSymbols {
    std::string path;
    std::shared_ptr<const DebugInfo> info;
    std::vector<std::uint32_t> bases; // by section, in address order
};

// Reads the ELF (DebugInfo::loadElf) and places it. Throws MediaError (DebugInfoError) with
// a message that says what is wrong: not an ELF, no loaded section, bases that do not fit
// the sections or run past the 68000's 16 MB.
LoadedSymbols loadSymbols(const SymbolsSpec& spec);

// {path, sections: [{name, kind, base, size}], functions, lines, dwarf}.
nlohmann::json loadedSymbolsJson(const LoadedSymbols& s);

// A capture of code named only by loaded symbols: its samples' and coverage's code ranges
// (every code section of every set), relocation bases (the first set's), text and unwind
// table (the first set's first section, when it is code and the ELF has call-frame
// information), where profile.start's own options leave them unset. What could not be
// filled goes to `notes`.
void fillCaptureFromSymbols(ProfileOptions& options, const std::vector<LoadedSymbols>& sets,
                            std::vector<std::string>* notes = nullptr);

} // namespace copperline
