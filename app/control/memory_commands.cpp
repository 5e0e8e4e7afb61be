// SPDX-License-Identifier: GPL-3.0-or-later
// mem.find and mem.regions (docs/control-protocol.md): searching memory and naming its
// parts. Both read as a debugger does (Machine::spyWord: no custom or CIA side effects, no
// time), so neither changes the machine. mem.read and mem.write stay with the other
// machine commands (machine_commands.cpp).

#include "app/control/emulator_impl.h"
#include "app/control/params.h"

#include <algorithm>
#include <functional>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

constexpr std::uint64_t kDefaultMatches = 64, kMaxMatches = 4096;
constexpr std::size_t kMaxPattern = 4096;
constexpr std::uint64_t kAddressSpace = 0x1000000; // the 68000's 24 address bits

// What to look for: exactly one of a hex pattern, a text (its Latin-1 bytes, the Amiga's
// character set) or a big-endian value of 1, 2 or 4 bytes.
std::vector<std::uint8_t> needle(const json& params) {
    const auto pattern = p::optionalString(params, "pattern");
    const auto text = p::optionalString(params, "text");
    const auto value = p::optionalNumber(params, "value", 0xFFFFFFFFu);
    const auto size = p::optionalNumber(params, "size", 4);
    if (int(pattern.has_value()) + int(text.has_value()) + int(value.has_value()) != 1)
        fail(errc::InvalidParams,
             "mem.find: give exactly one of pattern, text, or value (with size)");
    if (size && !value) fail(errc::InvalidParams, "size: only with value");
    std::vector<std::uint8_t> bytes;
    if (pattern) {
        std::string digits;
        for (const char c : *pattern)
            if (c != ' ') digits.push_back(c);
        if (digits.empty())
            fail(errc::InvalidParams, "pattern: empty; give at least one byte in hex");
        if (digits.size() % 2)
            fail(errc::InvalidParams, "pattern: hex needs an even number of digits");
        try {
            bytes = p::decode(digits, "hex");
        } catch (const CommandError&) {
            fail(errc::InvalidParams, "pattern: not hex bytes (\"4e75\", \"4E 75\")");
        }
    } else if (text) {
        if (text->empty()) fail(errc::InvalidParams, "text: empty; give at least one character");
        // JSON's UTF-8 back to Latin-1: a character past U+00FF is in no Amiga's memory.
        for (std::size_t i = 0; i < text->size(); ++i) {
            const auto c = static_cast<unsigned char>((*text)[i]);
            if (c < 0x80) {
                bytes.push_back(c);
            } else if ((c == 0xC2 || c == 0xC3) && i + 1 < text->size()) {
                bytes.push_back(std::uint8_t(((c & 0x03) << 6) |
                                             (static_cast<unsigned char>((*text)[++i]) & 0x3F)));
            } else {
                fail(errc::InvalidParams,
                     "text: a character outside ISO 8859-1, the Amiga's character set");
            }
        }
    } else {
        if (!size) fail(errc::InvalidParams, "value: give its size too (1, 2 or 4 bytes)");
        if (*size != 1 && *size != 2 && *size != 4)
            fail(errc::InvalidParams, "size: 1, 2 or 4 bytes, not " + std::to_string(*size));
        if (*size < 4 && *value >> (8 * *size))
            fail(errc::InvalidParams, "value: " + std::to_string(*value) + " does not fit in " +
                                          std::to_string(*size) + " byte(s)");
        for (int i = int(*size) - 1; i >= 0; --i)
            bytes.push_back(std::uint8_t(*value >> (8 * i)));
    }
    if (bytes.size() > kMaxPattern)
        fail(errc::InvalidParams, "mem.find: at most 4096 bytes to look for");
    return bytes;
}

json regionJson(const MemoryRegion& r) {
    return {{"name", r.name}, {"start", r.start}, {"end", r.end}, {"kind", r.kind}};
}

} // namespace

void registerMemoryCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add(
        "mem.find",
        "Finds {pattern} (hex bytes), {text} or {value, size} (1, 2 or 4 bytes, big-endian) in the "
        "RAM and ROM regions (their mirrors and the registers left out), within [start, end) when "
        "given, at most {max} (64; up to 4096) matches, at multiples of {align}: "
        "{matches, truncated}.",
        {"pattern", "text", "value", "size", "start", "end", "max", "align"},
        [&e](const json& params) {
            const std::vector<std::uint8_t> want = needle(params);
            const auto start = p::optionalNumber(params, "start", kAddressSpace - 1);
            const auto end = p::optionalNumber(params, "end", kAddressSpace);
            const auto max = p::optionalNumber(params, "max", ~0ull).value_or(kDefaultMatches);
            const auto align = p::optionalNumber(params, "align", 0x10000).value_or(1);
            if (max < 1 || max > kMaxMatches)
                fail(errc::InvalidParams,
                     "max: from 1 to 4096 matches, not " + std::to_string(max));
            if (align == 0 || (align & (align - 1)))
                fail(errc::InvalidParams,
                     "align: a power of two (1, 2, 4, ...), not " + std::to_string(align));
            // Where to look: the memory itself, RAM and ROM as mem.regions names them (not
            // their mirrors, which would repeat every match, nor the registers), within
            // [start, end) when given.
            const std::uint64_t lo = start.value_or(0), hi = end.value_or(kAddressSpace);
            if (lo >= hi) fail(errc::InvalidParams, "mem.find: start must lie below end");
            std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
            for (const MemoryRegion& r : e.machine->memoryMap()) {
                if (std::string_view(r.kind) != "ram" && std::string_view(r.kind) != "rom")
                    continue;
                const std::uint64_t from = std::max<std::uint64_t>(r.start, lo),
                                    to = std::min<std::uint64_t>(r.end, hi);
                if (from < to) ranges.emplace_back(std::uint32_t(from), std::uint32_t(to));
            }

            const Machine& m = *e.machine;
            json matches = json::array();
            bool truncated = false;
            std::vector<std::uint8_t> bytes;
            const std::boyer_moore_horspool_searcher searcher(want.begin(), want.end());
            for (const auto& [from, to] : ranges) {
                if (truncated) break;
                // The range as the CPU sees it, a word at a time.
                bytes.resize(to - from);
                std::uint32_t a = from;
                if (a & 1) bytes[0] = m.spyByte(a++);
                for (; a + 1 < to; a += 2) {
                    const std::uint16_t w = m.spyWord(a);
                    bytes[a - from] = std::uint8_t(w >> 8);
                    bytes[a - from + 1] = std::uint8_t(w);
                }
                if (a < to) bytes[a - from] = m.spyByte(a);
                for (auto it = bytes.begin();;) {
                    it = std::search(it, bytes.end(), searcher);
                    if (it == bytes.end()) break;
                    const std::uint32_t at = from + std::uint32_t(it - bytes.begin());
                    if (at % align == 0) {
                        if (matches.size() == max) {
                            truncated = true;
                            break;
                        }
                        matches.push_back(at);
                    }
                    ++it;
                }
            }
            json searched = json::array();
            for (const auto& [from, to] : ranges)
                searched.push_back({{"start", from}, {"end", to}});
            return json{{"matches", matches},
                        {"truncated", truncated},
                        {"length", want.size()},
                        {"searched", searched}};
        });

    bus.add(
        "mem.regions",
        "The memory map as the machine is configured: {regions: [{name, start, end, kind}]} in "
        "address order (end: the first address past it), and whether the ROM overlay hides chip "
        "RAM's first 512 KiB from reads.",
        [&e](const json&) {
            json regions = json::array();
            for (const MemoryRegion& r : e.machine->memoryMap())
                regions.push_back(regionJson(r));
            return json{{"regions", regions}, {"overlay", e.machine->romOverlay()}};
        });
}

} // namespace copperline
