// The symbols family: what an address is, named from the --run program's debug information
// (its hunks as the loader placed them) and from the ROM's jump tables.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/lvo_names.h"
#include "profiler/amigaos/memory_view.h"
#include "profiler/amigaos/rom_namer.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

} // namespace

// What an address is, as symbols.resolve says it. The ROM's jump tables are read once, as
// the resolver is made, so that one resolver names many addresses (disasm's lines); it
// reads the machine as it stands then. Declared where it is used (machine_commands.cpp).
std::function<json(std::uint32_t)> symbolResolver(const Emulator::Impl& e) {
    auto memory = std::make_shared<const MachineMemoryView>(*e.machine);
    auto rom = std::make_shared<const RomNamer>(readAmigaOs(*memory));
    return [&e, memory, rom](std::uint32_t addr) {
        json out = {{"addr", hex(addr)}, {"module", nullptr}};
        // The program: its hunks as loaded, named by its debug information.
        for (std::size_t h = 0; h < e.run.segments.size(); ++h) {
            const AmigaOsSegment& s = e.run.segments[h];
            if (addr < s.base || addr - s.base >= s.size) continue;
            out["module"] = e.run.name;
            out["hunk"] = h;
            out["offset"] = addr - s.base;
            if (!e.run.info) {
                out["debug_info_error"] = e.run.infoError;
                return out;
            }
            const DebugInfo& info = *e.run.info;
            const std::uint32_t offset = addr - s.base;
            const AddressInfo where = info.lookup(std::uint32_t(h), offset);
            if (const DebugScope* fn = info.function(where)) {
                out["function"] = fn->name;
                // Where the function's run of bytes that holds the address starts.
                const auto& ranges = info.scopeRanges();
                const auto at = std::upper_bound(
                    ranges.begin(), ranges.end(), std::pair{std::uint32_t(h), offset},
                    [](const std::pair<std::uint32_t, std::uint32_t>& key, const ScopeRange& r) {
                        return key.first < r.hunk || (key.first == r.hunk && key.second < r.start);
                    });
                if (at != ranges.begin() && std::prev(at)->hunk == h && offset < std::prev(at)->end)
                    out["function_offset"] = offset - std::prev(at)->start;
            }
            const std::vector<InlineFrame> frames = info.frames(where);
            if (!frames.empty() && frames.front().file != kNoFile) {
                out["file"] = info.fileName(frames.front().file);
                out["line"] = frames.front().line;
            }
            return out;
        }
        // The ROM: the jump-table function at or below it.
        if (const RomNamer::Symbol* s = rom->symbolAt(addr)) {
            out["module"] = s->library;
            out["function"] = std::string(lvoName(s->library, s->lvo));
            out["lvo"] = s->lvo;
            out["offset"] = addr - s->target;
        } else if (memory->inRom(addr)) {
            out["module"] = "[Kickstart]";
        }
        return out;
    };
}

void registerSymbolCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add(
        "symbols.resolve",
        "What an address is: {addr} gives the module (the --run program by its debug "
        "information, or a ROM library by its jump table), the hunk and offset, the function, "
        "and the source file and line.",
        {"addr"}, [&e](const json& params) {
            const std::uint32_t addr = std::uint32_t(p::number(params, "addr", 0xFFFFFF));
            return symbolResolver(e)(addr);
        });
}

} // namespace copperline
