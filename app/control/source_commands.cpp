// SPDX-License-Identifier: GPL-3.0-or-later
// The source family (docs/control-protocol.md, docs/debugger.md): which source files the
// programs loaded were built from, which of a file's lines have code (where a breakpoint can
// go), and where an address is in the source.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"

#include <map>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

} // namespace

void registerSourceCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add("source.files",
            "The source files of every program whose debug information is loaded: {programs: [{name, "
            "files, variables (whether its DWARF gives variables and frames, else why not)}]}.",
            [&e](const json&) {
                json programs = json::array();
                for (const SourceProgram& prog : e.source.programs()) {
                    json files = json::array();
                    std::vector<std::string> names;
                    for (const StepRow& r : prog.info->stepRows())
                        if (r.line != 0) names.push_back(prog.info->fileName(r.file));
                    std::sort(names.begin(), names.end());
                    names.erase(std::unique(names.begin(), names.end()), names.end());
                    for (auto& n : names) files.push_back(n);
                    json entry = {{"name", prog.name}, {"files", files}, {"variables", prog.dwarf != nullptr}};
                    if (!prog.dwarf) entry["variables_error"] = prog.dwarfError;
                    programs.push_back(std::move(entry));
                }
                return json{{"programs", programs}};
            });

    bus.add("source.lines",
            "The lines of {file} that have code, each with its addresses: {file, lines: [{line, addrs}]}; "
            "the file as the debug information names it or any trailing part of its path.",
            {"file"}, [&e](const json& params) {
                const std::string file = p::string(params, "file");
                const auto matches = e.source.findFile(file);
                if (matches.empty()) fail(errc::NotFound, "no program loaded has a source file \"" + file + "\"");
                std::map<std::uint32_t, std::vector<std::uint32_t>> lines;
                std::string name;
                for (const auto& m : matches) {
                    const SourceProgram& prog = e.source.programs()[m.program];
                    if (name.empty()) name = prog.info->fileName(m.files.front());
                    for (const StepRow& r : prog.info->stepRows()) {
                        if (r.line == 0 || !r.isStmt) continue;
                        if (std::find(m.files.begin(), m.files.end(), r.file) == m.files.end()) continue;
                        auto& addrs = lines[r.line];
                        const std::uint32_t a = prog.bases[r.hunk] + r.offset;
                        if (std::find(addrs.begin(), addrs.end(), a) == addrs.end()) addrs.push_back(a);
                    }
                }
                json list = json::array();
                for (const auto& [line, addrs] : lines) list.push_back({{"line", line}, {"addrs", addrs}});
                return json{{"file", name}, {"lines", list}};
            });

    bus.add("source.resolve",
            "Where {addr} is in the source: {addr, module, function, file, line} (the innermost "
            "function or inlined call there).",
            {"addr"}, [&e](const json& params) {
                const auto addr = std::uint32_t(p::number(params, "addr", 0xFFFFFF));
                return e.source.describe(addr);
            });
}

} // namespace copperline
