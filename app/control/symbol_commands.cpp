// SPDX-License-Identifier: GPL-3.0-or-later
// The symbols family: what an address is, named from the --run program's debug information
// (its hunks as the loader placed them), from debug information loaded by hand for code that
// is no executable (symbols.load, --symbols) and from the system's modules (code_namer.h).

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/hex.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/code_namer.h"
#include "profiler/amigaos/memory_view.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

// The function (and how far into it), file and line debug information gives hunk:offset.
void describe(const DebugInfo& info, std::uint32_t hunk, std::uint32_t offset, json& out) {
    const AddressInfo where = info.lookup(hunk, offset);
    if (const DebugScope* fn = info.function(where)) {
        out["function"] = fn->name;
        // Where the function's run of bytes that holds the address starts.
        const auto& ranges = info.scopeRanges();
        const auto at = std::upper_bound(ranges.begin(), ranges.end(), std::pair{hunk, offset},
                                         [](const std::pair<std::uint32_t, std::uint32_t>& key, const ScopeRange& r) {
                                             return key.first < r.hunk || (key.first == r.hunk && key.second < r.start);
                                         });
        if (at != ranges.begin() && std::prev(at)->hunk == hunk && offset < std::prev(at)->end)
            out["function_offset"] = offset - std::prev(at)->start;
    }
    const std::vector<InlineFrame> frames = info.frames(where);
    if (!frames.empty() && frames.front().file != kNoFile) {
        out["file"] = info.fileName(frames.front().file);
        out["line"] = frames.front().line;
    }
}

} // namespace

// What an address is, as symbols.resolve says it. The system's modules are those
// systemNamer() read in this frame, so that disasm's lines and a stepping debugger do not
// read them again for every call. Declared where it is used (machine_commands.cpp).
std::function<json(std::uint32_t)> symbolResolver(Emulator::Impl& e) {
    auto memory = std::make_shared<const MachineMemoryView>(*e.machine);
    auto rom = e.systemNamer();
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
            describe(*e.run.info, std::uint32_t(h), addr - s.base, out);
            return out;
        }
        // Code named by symbols loaded by hand (symbols.load, --symbols).
        for (const LoadedSymbols& set : e.loadedSymbols) {
            const HunkBases bases(*set.info, set.bases);
            const auto where = bases.find(addr);
            if (!where) continue;
            out["module"] = std::filesystem::path(set.path).filename().string();
            out["section"] = set.info->hunks()[where->first].section;
            out["offset"] = where->second;
            describe(*set.info, where->first, where->second, out);
            return out;
        }
        // The system's code, by the one naming every report uses (code_namer.h).
        const CodeName n = rom->name(addr);
        if (!n.known()) return out;
        out["module"] = n.module;
        out["name"] = n.label();
        if (!n.function.empty()) {
            out["function"] = n.function;
            out["offset"] = addr - n.functionStart;
        }
        if (n.lvo) {
            out["library"] = n.library;
            out["lvo"] = n.lvo;
        }
        if (n.interrupt) out["interrupt"] = true;
        if (n.jumpTable) out["jump_table"] = true;
        return out;
    };
}

std::shared_ptr<const CodeNamer> Emulator::Impl::systemNamer() {
    // Reading the modules measures every function of every library (some 10 ms on AROS):
    // once per frame, and again when the timeline moved back.
    const std::uint64_t now = machine->now();
    if (!codeNamer || machine->frame() != codeNamerFrame || now < codeNamerAt) {
        codeNamer = std::make_shared<const CodeNamer>(readCodeModules(MachineMemoryView(*machine), true));
        codeNamerFrame = machine->frame();
        codeNamerAt = now;
    }
    return codeNamer;
}

void registerSymbolCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("symbols.load",
            "Debug information for code that is no AmigaOS executable (a boot block, a trackmo's part, "
            "code a loader places itself): the ELF {path} with its lowest section at {base}, or each "
            "section at {bases} (address order); neither: its link addresses. It names that code in "
            "the disassembly, symbols.resolve, the strip's call tree and captures (their code ranges, "
            "relocation bases and unwind table). Loading a path again replaces it.",
            {"path", "base", "bases"}, [&e](const json& params) {
                SymbolsSpec spec;
                spec.path = p::string(params, "path");
                if (params.contains("base") && params.contains("bases"))
                    fail(errc::InvalidParams, "base or bases, not both");
                if (params.contains("base")) spec.base = std::uint32_t(p::number(params, "base", 0xFFFFFF));
                if (params.contains("bases")) {
                    if (!params["bases"].is_array() || params["bases"].empty())
                        fail(errc::InvalidParams, "bases: expected an array of addresses, one per section");
                    for (std::size_t i = 0; i < params["bases"].size(); ++i)
                        spec.bases.push_back(
                            std::uint32_t(p::number(json{{"base", params["bases"][i]}}, "base", 0xFFFFFF)));
                }
                LoadedSymbols loaded;
                try {
                    loaded = loadSymbols(spec);
                } catch (const MediaError& ex) {
                    fail(errc::InvalidParams, ex.what());
                }
                std::erase_if(e.loadedSymbols, [&](const LoadedSymbols& s) { return s.path == loaded.path; });
                e.loadedSymbols.push_back(loaded);
                e.source.invalidate();
                e.resolveBreakpoints();
                return loadedSymbolsJson(loaded);
            });
    bus.add("symbols.list", "The debug information loaded with symbols.load or --symbols: {symbols: [...]}.", {},
            [&e](const json&) {
                json list = json::array();
                for (const LoadedSymbols& s : e.loadedSymbols) list.push_back(loadedSymbolsJson(s));
                return json{{"symbols", std::move(list)}};
            });
    bus.add("symbols.unload", "Forgets the debug information loaded from {path} (all of it without a path).",
            {"path"}, [&e](const json& params) {
                const auto path = p::optionalString(params, "path");
                const std::size_t before = e.loadedSymbols.size();
                std::erase_if(e.loadedSymbols, [&](const LoadedSymbols& s) { return !path || s.path == *path; });
                if (path && before == e.loadedSymbols.size())
                    fail(errc::NotFound, "symbols.unload: nothing was loaded from " + *path);
                e.source.invalidate();
                e.resolveBreakpoints();
                return json{{"unloaded", before - e.loadedSymbols.size()}};
            });

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
