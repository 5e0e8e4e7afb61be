#pragma once

// Names addresses in ROM after the library function they belong to, "[Kick]exec/AllocMem",
// from a snapshot of the guest's jump tables (readAmigaOs, or romSymbolsFromJson for a
// capture's profile.json). The function is the LVO target nearest at or below the address
// in the same ROM; the LVO's name comes from lvo_names.h ("exec/LVO-552" when unknown).

#include "profiler/amigaos/amigaos.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace copperline {

class RomNamer {
public:
    struct Symbol {
        std::uint32_t target = 0; // the function's first instruction
        std::string library;      // "exec.library"
        int lvo = 0;              // -198
    };

    explicit RomNamer(const AmigaOsSnapshot& snapshot);

    // The function an address in ROM belongs to, or nullptr when the address is outside
    // the ROMs or below the first function of its ROM.
    const Symbol* symbolAt(std::uint32_t address) const;
    // "[Kick]exec/AllocMem" (the prefix for either ROM, Kickstart or extension), or nothing.
    std::optional<std::string> name(std::uint32_t address) const;

    // Every function the namer knows, by ascending target.
    const std::vector<Symbol>& symbols() const { return symbols_; }

private:
    std::vector<AmigaOsRomRange> roms_;
    std::vector<Symbol> symbols_;
};

// "exec/AllocMem" for a symbol.
std::string symbolName(const RomNamer::Symbol& symbol);

} // namespace copperline
