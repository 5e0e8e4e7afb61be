// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// uaelib: UAE's host call, as programs built with Bartman's toolchain make it
// (vscode-amiga-debug, template/support/gcc8_c_support.c). Such a program reads the word
// at $F0FF60; when it is $4EB9 or $A00E it calls $F0FF60 as a C function, the function
// number and four longwords pushed on the stack, and takes the result in D0.
//
// What we put there (WinUAE's uaelib.cpp installs the same at rtarea + $FF60: an
// emulator trap, $A000 + trap number, then RTS):
//   data reads:        $F0FF60 = $A00E, $F0FF62 = $4E75
//   instruction fetch: $F0FF60 = $4E75 (RTS), $F0FF62 = $4E75
// The Machine performs the call when the CPU is about to execute the instruction at
// $F0FF60, with nothing pending before it (an interrupt or trace taken first runs its
// handler, and the call happens when the handler returns there): the guest's JSR has
// pushed its return address, the call reads the arguments above it and sets D0, and the
// RTS fetched from $F0FF60 returns to the caller. The call itself takes no emulated time
// and no bus slot; the guest pays the JSR and the RTS, whose fetches from $F0FFxx have
// no wait states (docs/guest-api.md, "What a call costs").

#include <cstdint>

namespace copperline::uaelib {

inline constexpr std::uint32_t kEntry = 0xF0FF60;
inline constexpr std::uint16_t kTrapWord = 0xA00E; // what a data read of kEntry sees
inline constexpr std::uint16_t kRts = 0x4E75;

inline bool decodes(std::uint32_t address) {
    return (address & 0xFFFFFC) == kEntry;
}

// The word at `address` (inside the four bytes decodes() accepts): `program` for the
// CPU's instruction fetches, which see RTS, otherwise the data view.
inline std::uint16_t word(std::uint32_t address, bool program) {
    return (address & 2) || program ? kRts : kTrapWord;
}

// Function numbers (WinUAE uaelib.cpp, uaelib_demux_common).
// ARG1 index (-1), ARG2 "option value" text, ARG3 its length (0: up to its NUL), ARG4 an
// output buffer, ARG5 its size: a configuration change (WinUAE's cfgfile_uaelib_modify).
// D0 0 done, 5 an option not provided (WinUAE's codes, not kOk/kRefused).
inline constexpr std::uint32_t kFnConfig = 82;
inline constexpr std::uint32_t kFnLog = 86;   // ARG1: NUL-terminated text (KPrintF)
inline constexpr std::uint32_t kFnDebug = 88; // ARG1: a command, ARG2-ARG4 its arguments

// Function 88's commands (gcc8_c_support.c, enum barto_cmd).
enum class Command : std::uint32_t {
    Clear = 0,              // the overlay
    Rect = 1,               // ARG2 left << 16 | top, ARG3 right << 16 | bottom, ARG4 $RRGGBB
    FilledRect = 2,         // as Rect
    Text = 3,               // ARG2 left << 16 | top, ARG3 text, ARG4 $RRGGBB
    RegisterResource = 4,   // ARG2: struct debug_resource
    SetIdle = 5,            // ARG2: 1 idle starts, 0 idle stops
    UnregisterResource = 6, // ARG2: address, 0 for all
    Load = 7,               // ARG2: struct debug_resource {address, size (out), name}
    Save = 8,               // ARG2: struct debug_resource {address, size, name}
};

// struct debug_resource (gcc8_c_support.c), big-endian, 50 bytes.
namespace resource {
inline constexpr std::uint32_t kAddress = 0, kSize = 4, kName = 8, kType = 40, kFlags = 42;
inline constexpr std::uint32_t kWidth = 44, kEntries = 44, kHeight = 46, kPlanes = 48;
inline constexpr std::uint32_t kBytes = 50, kNameBytes = 32;
enum Type : std::uint16_t { Bitmap = 0, Palette = 1, CopperList = 2 };
} // namespace resource

// D0 of a call: 1 done, 0 refused (the host log says why). UAE's own numbers.
inline constexpr std::uint32_t kOk = 1, kRefused = 0;
// D0 of function 82: cfgfile_modify's 0 done, 5 an option it does not know.
inline constexpr std::uint32_t kConfigOk = 0, kConfigBadOption = 5;
inline constexpr std::size_t kMaxConfigText = 256; // the "option value" text we read at most

} // namespace copperline::uaelib
