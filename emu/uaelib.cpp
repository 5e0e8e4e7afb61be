// SPDX-License-Identifier: GPL-3.0-or-later
// The uaelib calls (emu/uaelib.h): each reads its arguments from guest memory, checks
// every pointer and string before it acts, and answers D0 = 1, or D0 = 0 with a line in
// the host log saying why it refused.

#include "emu/uaelib.h"

#include "emu/guest_api.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <vector>

namespace copperline {

namespace {

std::string hex(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "$%06X", v);
    return buf;
}

struct Refusal {
    std::string why;
};

// A NUL-terminated string of at most `max` characters that lies wholly in memory.
std::string guestString(const GuestApi& api, std::uint32_t a, std::size_t max, const char* what) {
    a &= 0xFFFFFF;
    std::string s;
    for (std::size_t i = 0; i <= max; ++i) {
        const std::uint32_t at = a + std::uint32_t(i);
        if (!api.readable(at, 1))
            throw Refusal{std::string(what) + " at " + hex(a) +
                          " runs out of memory before its NUL"};
        const std::uint8_t c = api.readByte(at);
        if (!c) return s;
        s += char(c);
    }
    throw Refusal{std::string(what) + " at " + hex(a) + " has no NUL in its first " +
                  std::to_string(max + 1) + " bytes"};
}

void requireReadable(const GuestApi& api, std::uint32_t a, std::uint32_t length, const char* what) {
    if (!api.readable(a, length))
        throw Refusal{std::string(what) + " at " + hex(a) + " (" + std::to_string(length) +
                      " bytes) is not in memory"};
}

// The NUL-terminated name field of a debug_resource at `p`.
std::string resourceName(const GuestApi& api, std::uint32_t p) {
    std::string name;
    for (std::uint32_t i = 0; i < uaelib::resource::kNameBytes; ++i) {
        const std::uint8_t c = api.readByte(p + uaelib::resource::kName + i);
        if (!c) return name;
        name += char(c);
    }
    throw Refusal{"the name of the debug_resource at " + hex(p) +
                  " is not terminated within its 32 bytes"};
}

std::uint32_t debugCommand(GuestApi& api, const std::uint32_t arg[5], std::uint64_t cck,
                           std::uint64_t frame) {
    using uaelib::Command;
    namespace res = uaelib::resource;
    const auto xy = [](std::uint32_t v, std::int16_t& x, std::int16_t& y) {
        x = std::int16_t(v >> 16);
        y = std::int16_t(v & 0xFFFF);
    };
    switch (Command(arg[1])) {
    case Command::Clear: api.clearOverlay(); return uaelib::kOk;
    case Command::Rect:
    case Command::FilledRect: {
        OverlayShape s;
        s.kind = Command(arg[1]) == Command::Rect ? OverlayShape::Kind::Rect
                                                  : OverlayShape::Kind::FilledRect;
        xy(arg[2], s.left, s.top);
        xy(arg[3], s.right, s.bottom);
        s.color = arg[4] & 0xFFFFFF;
        if (!api.addOverlayShape(std::move(s)))
            throw Refusal{"the overlay holds " + std::to_string(GuestApi::kMaxOverlayShapes) +
                          " shapes already"};
        return uaelib::kOk;
    }
    case Command::Text: {
        OverlayShape s;
        s.kind = OverlayShape::Kind::Text;
        xy(arg[2], s.left, s.top);
        s.text = guestString(api, arg[3], GuestApi::kMaxOverlayText, "the overlay text");
        s.right = s.left, s.bottom = s.top;
        s.color = arg[4] & 0xFFFFFF;
        if (!api.addOverlayShape(std::move(s)))
            throw Refusal{"the overlay holds " + std::to_string(GuestApi::kMaxOverlayShapes) +
                          " shapes already"};
        return uaelib::kOk;
    }
    case Command::RegisterResource: {
        const std::uint32_t p = arg[2] & 0xFFFFFF;
        requireReadable(api, p, res::kBytes, "the debug_resource");
        GuestApi::Resource r;
        r.address = api.readLong(p + res::kAddress) & 0xFFFFFF;
        r.size = api.readLong(p + res::kSize);
        r.name = resourceName(api, p);
        r.flags = api.readWord(p + res::kFlags);
        r.frame = frame;
        switch (api.readWord(p + res::kType)) {
        case res::Bitmap:
            r.kind = GuestApi::ResourceKind::Bitmap;
            r.width = api.readWord(p + res::kWidth);
            r.height = api.readWord(p + res::kHeight);
            r.depth = api.readWord(p + res::kPlanes);
            r.bytesPerRow = std::uint16_t(r.width / 8);
            break;
        case res::Palette:
            r.kind = GuestApi::ResourceKind::Palette;
            r.entries = r.depth = api.readWord(p + res::kEntries);
            break;
        case res::CopperList: r.kind = GuestApi::ResourceKind::Copper; break;
        default:
            throw Refusal{"the debug_resource at " + hex(p) + " has the unknown type " +
                          std::to_string(api.readWord(p + res::kType))};
        }
        requireReadable(api, r.address, r.size, ("the resource '" + r.name + "'").c_str());
        api.registerResource(std::move(r));
        return uaelib::kOk;
    }
    case Command::SetIdle: api.setIdle(arg[2] != 0, cck); return uaelib::kOk;
    case Command::UnregisterResource: api.unregisterResource(arg[2] & 0xFFFFFF); return uaelib::kOk;
    case Command::Load: {
        const std::uint32_t p = arg[2] & 0xFFFFFF;
        if (!api.writable(p, res::kBytes))
            throw Refusal{"the debug_resource at " + hex(p) +
                          " is not in RAM (the call writes its size)"};
        const std::string name = resourceName(api, p);
        const std::uint32_t to = api.readLong(p + res::kAddress) & 0xFFFFFF;
        // What fits from `to` to the end of its RAM.
        std::uint32_t room = 0;
        for (std::uint32_t step = 1u << 24; step; step >>= 1)
            if (api.writable(to, room + step)) room += step;
        const auto writeSize = [&](std::uint32_t v) {
            for (unsigned i = 0; i < 4; ++i)
                api.writeByte(p + res::kSize + i, std::uint8_t(v >> (24 - 8 * i)));
        };
        writeSize(0);
        if (!room)
            throw Refusal{"debug_load of '" + name + "' to " + hex(to) +
                          ": that address is not RAM"};
        const auto loaded = api.files().load(name, room);
        if (!loaded.ok) throw Refusal{"debug_load of '" + name + "': " + loaded.error};
        for (std::size_t i = 0; i < loaded.bytes.size(); ++i)
            api.writeByte(to + std::uint32_t(i), loaded.bytes[i]);
        writeSize(std::uint32_t(loaded.bytes.size()));
        return uaelib::kOk;
    }
    case Command::Save: {
        const std::uint32_t p = arg[2] & 0xFFFFFF;
        requireReadable(api, p, res::kBytes, "the debug_resource");
        const std::string name = resourceName(api, p);
        const std::uint32_t from = api.readLong(p + res::kAddress) & 0xFFFFFF;
        const std::uint32_t size = api.readLong(p + res::kSize);
        requireReadable(api, from, size, ("the data for '" + name + "'").c_str());
        std::vector<std::uint8_t> bytes(size);
        for (std::uint32_t i = 0; i < size; ++i)
            bytes[i] = api.readByte(from + i);
        const auto saved = api.files().save(name, bytes);
        if (!saved.ok) throw Refusal{"debug_save of '" + name + "': " + saved.error};
        return uaelib::kOk;
    }
    }
    throw Refusal{"function 88 has no command " + std::to_string(arg[1])};
}

// Function 82: "option value" pairs as WinUAE's configuration file has them. What a
// program built with Bartman's toolchain sends (gcc8_c_support.c, warpmode()) is provided:
// warp on and off ("warp true|false", "cpu_speed max|real"); the cycle-exact switches
// are accepted and change nothing (Copperline is always cycle-exact).
std::uint32_t configCommand(GuestApi& api, const std::uint32_t arg[6], std::string& text) {
    const std::uint32_t length = arg[3];
    const std::size_t max = length ? std::min<std::size_t>(length, uaelib::kMaxConfigText) : uaelib::kMaxConfigText;
    text.clear();
    for (std::size_t i = 0; i < max; ++i) {
        const std::uint32_t at = (arg[2] + std::uint32_t(i)) & 0xFFFFFF;
        if (!api.readable(at, 1)) throw Refusal{"the option text at " + hex(arg[2] & 0xFFFFFF) + " is not in memory"};
        const char c = char(api.readByte(at));
        if (c == 0 || c == '\n' || c == '\r') break;
        text += c;
    }
    // The output buffer: WinUAE writes an empty answer for a change.
    if (arg[5] && api.writable(arg[4] & 0xFFFFFF, 1)) api.writeByte(arg[4], 0);
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;) words.push_back(w);
    if (words.size() < 2 || words.size() % 2)
        throw Refusal{"'" + text + "' is not \"option value\" pairs"};
    const auto truth = [](const std::string& v) -> std::optional<bool> {
        if (v == "true" || v == "yes" || v == "1") return true;
        if (v == "false" || v == "no" || v == "0") return false;
        return std::nullopt;
    };
    for (std::size_t i = 0; i < words.size(); i += 2) {
        const std::string& option = words[i];
        const std::string& value = words[i + 1];
        if (option == "warp" && truth(value)) {
            api.requestWarp(*truth(value), option + " " + value);
        } else if (option == "cpu_speed" && (value == "max" || value == "real")) {
            api.requestWarp(value == "max", option + " " + value);
        } else if ((option == "cpu_cycle_exact" || option == "cpu_memory_cycle_exact" ||
                    option == "blitter_cycle_exact") &&
                   truth(value)) {
            // Always cycle-exact: nothing to change.
        } else {
            throw Refusal{"the option '" + option + " " + value + "' is not provided (warp, cpu_speed max|real "
                          "and the cycle-exact switches are)"};
        }
    }
    return uaelib::kConfigOk;
}

} // namespace

std::uint32_t GuestApi::uaelibCall(std::uint32_t sp, std::uint64_t cck, std::uint64_t frame) {
    sp &= 0xFFFFFF;
    std::uint32_t arg[6] = {};
    if (!readable(sp + 4, 4)) {
        addLog("uaelib: call refused: the stack pointer " + hex(sp) + " is not in memory", true,
               frame, cck);
        return uaelib::kRefused;
    }
    try {
        // The return address at sp, then ARG0-ARG5 (WinUAE uaelib.cpp reads ARG0 at A7 + 4).
        // A caller pushes only what its function takes (KPrintF: two); the rest of the
        // six are whatever lies above, and read as 0 past the end of memory.
        for (unsigned i = 0; i < 6; ++i) {
            const std::uint32_t at = sp + 4 + 4 * i;
            arg[i] = readable(at, 4) ? readLong(at) : 0;
        }
        switch (arg[0]) {
        case uaelib::kFnLog:
            addLog(guestString(*this, arg[1], kMaxLogLength, "the log text"), false, frame, cck);
            return uaelib::kOk;
        case uaelib::kFnDebug: return debugCommand(*this, arg, cck, frame);
        case uaelib::kFnConfig: {
            std::string text;
            try {
                return configCommand(*this, arg, text);
            } catch (const Refusal& r) {
                refused("uaelib: function 82 refused: " + r.why, frame, cck);
                return uaelib::kConfigBadOption;
            }
        }
        default: throw Refusal{"function " + std::to_string(arg[0]) + " is not provided"};
        }
    } catch (const Refusal& r) {
        refused("uaelib: function " + std::to_string(arg[0]) +
                    (arg[0] == uaelib::kFnDebug ? " command " + std::to_string(arg[1]) : std::string()) +
                    " refused: " + r.why,
                frame, cck);
        return uaelib::kRefused;
    }
}

} // namespace copperline
