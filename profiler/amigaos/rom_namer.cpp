#include "profiler/amigaos/rom_namer.h"

#include "profiler/amigaos/lvo_names.h"

#include <algorithm>
#include <tuple>

namespace copperline {

namespace {

const AmigaOsRomRange* romOf(const std::vector<AmigaOsRomRange>& roms, std::uint32_t address) {
    for (const AmigaOsRomRange& r : roms)
        if (address >= r.start && address < r.end) return &r;
    return nullptr;
}

} // namespace

RomNamer::RomNamer(const AmigaOsSnapshot& snapshot) : roms_(snapshot.romRanges) {
    // Several vectors may share one target (AROS points unused ones at a common stub).
    // The one kept is the first by: a name the tables know, then list order (libraries
    // before devices, each in its list's order), then the offset nearest the base.
    struct Candidate {
        Symbol symbol;
        bool unnamed;
        std::size_t order;
    };
    std::vector<Candidate> all;
    std::size_t order = 0;
    for (const auto* list : {&snapshot.libraries, &snapshot.devices}) {
        for (const AmigaOsLibrary& lib : *list) {
            for (const AmigaOsLvo& e : lib.lvos) {
                if (!e.target || !romOf(roms_, *e.target)) continue;
                all.push_back(
                    {{*e.target, lib.name, e.lvo}, !knownLvoName(lib.name, e.lvo), order});
            }
            ++order;
        }
    }
    std::sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
        return std::tuple(a.symbol.target, a.unnamed, a.order, -a.symbol.lvo) <
               std::tuple(b.symbol.target, b.unnamed, b.order, -b.symbol.lvo);
    });
    for (Candidate& c : all)
        if (symbols_.empty() || symbols_.back().target != c.symbol.target)
            symbols_.push_back(std::move(c.symbol));
}

const RomNamer::Symbol* RomNamer::symbolAt(std::uint32_t address) const {
    const AmigaOsRomRange* rom = romOf(roms_, address);
    if (!rom) return nullptr;
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                               [](std::uint32_t a, const Symbol& s) { return a < s.target; });
    if (it == symbols_.begin()) return nullptr;
    --it;
    return it->target >= rom->start ? &*it : nullptr;
}

std::optional<std::string> RomNamer::name(std::uint32_t address) const {
    const Symbol* s = symbolAt(address);
    if (!s) return std::nullopt;
    return "[Kick]" + symbolName(*s);
}

std::string symbolName(const RomNamer::Symbol& symbol) {
    return std::string(shortLibraryName(symbol.library)) + "/" +
           lvoName(symbol.library, symbol.lvo);
}

} // namespace copperline
