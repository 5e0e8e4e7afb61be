// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for a capture folder's readers (docs/testing.md, docs/formats/profile-jsonl.md,
// profile-json.md, profile-json-rom-symbols.md, slots.md). The first byte chooses what the rest
// of the input is:
//   0  profile.jsonl, alone (a capture that never wrote its summary);
//   1  profile.json, beside a small whole profile.jsonl; its rom_symbols, when it has them,
//      are read back (romSymbolsFromJson) and named (codeModulesFromSnapshot);
//   2  a frame's slot records (slots-1.bin, cut or padded to the two lines its record says),
//      with a 1 KiB chip-ram.bin, replayed to the frame's last clock.
// readCapture, readSlots and MemoryReplayer either read the folder or throw CaptureError;
// romSymbolsFromJson throws std::invalid_argument. Nothing else may escape, no message may
// echo the input (a refusal names the file and the offset: a line of the input is up to
// megabytes), and what is read is consistent: every frame record has frame, seq and first_cck,
// markers are placed among the frames, cuts are short lines.
// The files go to a folder of this process's own under $TMPDIR (or /tmp), rewritten for each
// input; put TMPDIR on a tmpfs for speed.

#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/code_namer.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/capture/frame_capture.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

using namespace copperline;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "capture_fuzzer: %s\n", what.c_str());
    std::abort();
}

void put(const char* name, const std::uint8_t* data, std::size_t size) {
    std::ofstream out(g_dir / name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    if (!out) fail(std::string("cannot write ") + name);
}

void put(const char* name, const std::string& text) {
    put(name, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

void clear() {
    std::error_code ec;
    for (const char* f : {"profile.json", "profile.jsonl", "slots-1.bin", "chip-ram.bin"}) fs::remove(g_dir / f, ec);
}

// A refusal names the file, the line and the offset; the folder's path is the longest part.
void checkMessage(const std::string& what, const char* from) {
    if (what.size() > 600 + g_dir.string().size() * 3)
        fail(std::string(from) + " gave a message of " + std::to_string(what.size()) + " bytes: it echoes the input");
}

void checkRead(const CaptureFiles& c) {
    for (const nlohmann::json& r : c.frames)
        if (!r.is_object() || !r.contains("frame") || !r.contains("seq") || !r.contains("first_cck"))
            fail("a frame record without frame, seq or first_cck");
    if (c.markers.size() != c.markerBefore.size()) fail("markers and their places disagree");
    for (std::size_t i = 0; i < c.markerBefore.size(); ++i)
        if (c.markerBefore[i] > c.frames.size() || (i && c.markerBefore[i] < c.markerBefore[i - 1]))
            fail("a marker placed outside the frames or out of order");
    for (const std::string& cut : c.cuts) checkMessage(cut, "a cut");
    checkMessage(captureNote(c), "captureNote");
    (void)wholeFramesEnd(c);
}

// A whole, finished frame record with no files of its own.
const char* const kOneFrame =
    "{\"frame\":1,\"seq\":1,\"first_cck\":70938,\"length_cck\":70938}\n";

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const char* tmp = std::getenv("TMPDIR");
    g_dir = fs::path(tmp && *tmp ? tmp : "/tmp") / ("capture_fuzzer." + std::to_string(getpid()));
    std::error_code ec;
    fs::create_directories(g_dir, ec);
    if (ec) fail("cannot make " + g_dir.string());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (g_dir.empty()) LLVMFuzzerInitialize(nullptr, nullptr);
    if (size == 0) return 0;
    const unsigned mode = data[0] % 3;
    const std::uint8_t* body = data + 1;
    const std::size_t n = size - 1;
    clear();
    try {
        if (mode == 0) {
            put("profile.jsonl", body, n);
            checkRead(readCapture(g_dir.string()));
        } else if (mode == 1) {
            put("profile.json", body, n);
            put("profile.jsonl", kOneFrame);
            const CaptureFiles c = readCapture(g_dir.string());
            checkRead(c);
            if (c.summary.is_object() && c.summary.contains("rom_symbols")) {
                try {
                    const AmigaOsSnapshot s = romSymbolsFromJson(c.summary["rom_symbols"]);
                    (void)codeModulesFromSnapshot(s);
                    // What was read writes back and reads again to the same.
                    const nlohmann::json again = romSymbolsJson(s);
                    if (romSymbolsJson(romSymbolsFromJson(again)) != again) fail("rom_symbols do not round-trip");
                } catch (const std::invalid_argument& e) {
                    checkMessage(e.what(), "romSymbolsFromJson");
                }
            }
        } else {
            // Two lines of 227 records; the input cut or padded with idle records to fit,
            // unless its length is a multiple of a record (a cut file, or one too long).
            constexpr std::size_t kWant = 2 * 227 * sizeof(SlotRecord);
            std::string slots(reinterpret_cast<const char*>(body), n);
            if (n % sizeof(SlotRecord)) slots.resize(kWant, '\0');
            put("slots-1.bin", slots);
            put("chip-ram.bin", std::string(1024, '\0'));
            put("profile.json", "{\"state\":\"done\",\"started\":{\"capture_cck\":70938}}");
            put("profile.jsonl", "{\"frame\":1,\"seq\":1,\"first_cck\":70938,\"length_cck\":454,\"lines\":2,"
                                 "\"line_cck\":227,\"slots\":\"slots-1.bin\"}\n");
            checkRead(readCapture(g_dir.string()));
            if (slots.size() == kWant) {
                (void)readSlots((g_dir / "slots-1.bin").string(), 2, 227);
                MemoryReplayer r(g_dir.string());
                r.replayTo(r.lastCck());
                if (r.position() <= r.lastCck()) fail("the replayer stopped short of its last clock");
                if (r.chip().size() != 1024) fail("the replayer's chip RAM changed size");
            }
        }
    } catch (const CaptureError& e) {
        checkMessage(e.what(), "CaptureError");
    }
    return 0;
}
