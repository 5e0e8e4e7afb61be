// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/loaded_symbols.h"

#include "emu/hex.h"
#include "emu/media/byte_reader.h"
#include "profiler/debuginfo/unwind_table.h"
#include "profiler/sampling/unwinder.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace copperline {

namespace {

std::uint32_t parseAddress(std::string_view text, std::string_view whole) {
    std::string t(text);
    try {
        std::size_t used = 0;
        const bool dollar = !t.empty() && t[0] == '$';
        const unsigned long long v = std::stoull(dollar ? t.substr(1) : t, &used, dollar ? 16 : 0);
        if (used != t.size() - (dollar ? 1 : 0)) throw std::invalid_argument(t);
        if (v > 0xFFFFFF) throw MediaError(std::string(whole) + ": " + t + " lies beyond the 68000's 16 MB");
        return std::uint32_t(v);
    } catch (const MediaError&) {
        throw;
    } catch (const std::exception&) {
        throw MediaError(std::string(whole) + ": '" + t + "' is not an address ($40000, 0x40000 or decimal)");
    }
}

} // namespace

SymbolsSpec parseSymbolsSpec(std::string_view text) {
    SymbolsSpec spec;
    if (text.empty()) throw MediaError("no ELF named: the form is ELF or ELF@BASE");
    const auto at = text.rfind('@');
    // A file whose own name holds an '@' is that file, placed at its link addresses.
    std::error_code ec;
    if (at == std::string_view::npos || std::filesystem::is_regular_file(std::string(text), ec)) {
        spec.path = std::string(text);
        return spec;
    }
    spec.path = std::string(text.substr(0, at));
    if (spec.path.empty()) throw MediaError(std::string(text) + ": no ELF before the @");
    spec.base = parseAddress(text.substr(at + 1), text);
    return spec;
}

LoadedSymbols loadSymbols(const SymbolsSpec& spec) {
    LoadedSymbols out;
    out.path = spec.path;
    auto info = std::make_shared<DebugInfo>(DebugInfo::loadElf(spec.path));
    if (!spec.bases.empty()) {
        if (spec.bases.size() != info->hunks().size())
            throw MediaError(spec.path + ": " + std::to_string(spec.bases.size()) + " base(s) given for its " +
                             std::to_string(info->hunks().size()) + " loaded section(s)");
        out.bases = spec.bases;
    } else if (spec.base) {
        out.bases = info->basesAt(*spec.base);
    } else {
        out.bases = info->linkBases();
    }
    for (std::size_t i = 0; i < out.bases.size(); ++i) {
        if (out.bases[i] & 1)
            throw MediaError(spec.path + ": section " + info->hunks()[i].section + " would start at the odd address " +
                             hex(out.bases[i]));
        if (std::uint64_t(out.bases[i]) + info->hunks()[i].size > 0x1000000)
            throw MediaError(spec.path + ": section " + info->hunks()[i].section + " (" +
                             std::to_string(info->hunks()[i].size) + " bytes) at " + hex(out.bases[i]) +
                             " runs past the 68000's 16 MB");
    }
    out.info = std::move(info);
    return out;
}

nlohmann::json loadedSymbolsJson(const LoadedSymbols& s) {
    nlohmann::json sections = nlohmann::json::array();
    for (std::size_t i = 0; i < s.bases.size(); ++i) {
        const DebugHunk& h = s.info->hunks()[i];
        sections.push_back({{"name", h.section},
                            {"kind", hunkKindName(h.kind)},
                            {"base", hex(s.bases[i])},
                            {"size", h.size}});
    }
    std::size_t functions = 0;
    for (const DebugScope& scope : s.info->scopes()) functions += scope.kind == ScopeKind::Function;
    return {{"path", s.path},
            {"sections", std::move(sections)},
            {"functions", functions},
            {"lines", s.info->lineTable().size()},
            {"dwarf", s.info->hasDwarf()}};
}

void fillCaptureFromSymbols(ProfileOptions& options, const std::vector<LoadedSymbols>& sets,
                            std::vector<std::string>* notes) {
    if (sets.empty() || (!options.samples && !options.coverage)) return;
    const nlohmann::json& given = options.capture.given;
    const LoadedSymbols& first = sets.front();
    std::vector<CodeRange> ranges;
    for (const LoadedSymbols& s : sets)
        for (std::size_t i = 0; i < s.bases.size(); ++i)
            if (s.info->hunks()[i].kind == HunkKind::Code) ranges.push_back({s.bases[i], s.info->hunks()[i].size});
    std::vector<std::uint32_t> sizes;
    for (const DebugHunk& h : first.info->hunks()) sizes.push_back(h.size);
    nlohmann::json recorded = nlohmann::json::array();
    for (const std::uint32_t b : first.bases) recorded.push_back(hex(b));
    if (options.samples) {
        SamplerOptions& s = *options.samples;
        if (!given.contains("code_ranges")) s.codeRanges = ranges;
        if (!given.contains("relocation_bases")) {
            s.relocationBases = first.bases;
            s.hunkSizes = sizes;
            options.capture.given["relocation_bases"] = recorded;
        }
        const bool textIsCode = first.info->hunks().front().kind == HunkKind::Code;
        if (!given.contains("unwind") && textIsCode) {
            s.text = CodeRange{first.bases.front(), first.info->hunks().front().size};
            try {
                s.unwinder = std::make_shared<Unwinder>(buildUnwindTable(*first.info), first.bases.front(), s.codeRanges);
            } catch (const MediaError& e) {
                if (notes) notes->push_back(std::string("no call stacks (each sample is its PC alone): ") + e.what());
            }
        }
        options.capture.given["symbols"] = first.path;
    }
    if (options.coverage) {
        CoverageOptions& c = *options.coverage;
        if (!given.contains("code_ranges")) c.codeRanges = ranges;
        if (!given.contains("relocation_bases")) c.relocationBases = first.bases;
    }
}

} // namespace copperline
