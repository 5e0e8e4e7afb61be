// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A native capture (profile.jsonl, profile.json and their sidecars) in Bartman's formats:
// the .amigaprofile JSON that vscode-amiga-debug's frame profiler opens
// (`copperline-ctl profile-report DIR --format bartman`), and the legacy binary profile
// WinUAE's `monitor profile` writes (`copperline-ctl profile STATE --format bartman`).
// Both need what their readers show: the frames' slot records ("slots": true), the memory
// at the start ("memory": true) and the samples ("samples": true; the binary also needs
// "registers": true, which its reader always expects). A capture without one of them is
// refused with a message that names the missing option.
//
// Sample PCs: a capture with the program's unwind text keeps the capture's encoding where
// Bartman's readers understand it (text-relative in the text, absolute in ROM); any other PC
// would be read as a text offset, so such a sample is written without PCs, which the
// extension shows as [External]. A capture without the text (a saved state's) is written as
// WinUAE's savestate mode writes one: every PC absolute, without callers. Costs are CPU
// cycles (two per colour clock). chipsetFlags is WinUAE's mask for the capture's chipset.

#include "profiler/capture/capture_reader.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/amigaprofile.h"
#include "profiler/report/bartman_profile.h"

#include <span>
#include <string>
#include <vector>

namespace copperline {

// The JSON's input, with the program's call trees, symbols, sections and source lines from
// `info`. Warnings (dropped samples) are appended to `warnings`.
AmigaProfileInput amigaProfileFromCapture(const CaptureFiles& capture, const DebugInfo& info,
                                          std::vector<std::string>* warnings = nullptr);

// The binary profile; `kickRom` is the ROM the capture ran (the file carries it). Refuses a
// capture that dropped samples: the format cannot say it is incomplete.
BartmanProfile bartmanProfileFromCapture(const CaptureFiles& capture, std::span<const std::uint8_t> kickRom);

} // namespace copperline
