// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Readers for every file a capture writes (docs/formats/profile-jsonl.md,
// profile-json.md, slots.md), and the offline memory replayer: from chip-ram.bin,
// slow-ram.bin and the slot records it rebuilds memory at any later colour clock of the
// capture, without running the emulator.

#include "emu/chipset/slot_record.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace copperline {

struct CaptureFiles {
    std::string dir;
    nlohmann::json summary;                // profile.json (null when it was never written)
    std::vector<nlohmann::json> frames;    // profile.jsonl's whole frame records, in file order
    std::vector<nlohmann::json> markers;   // {"marker": ...} lines, in file order
    std::vector<std::size_t> markerBefore; // for each marker: frame records before it
    // Whether the capture finished: its profile.json is the one written at the end (state
    // "done" or "failed"), not one written while it recorded, nor missing.
    bool finished = false;
    // What was left out of a capture cut short (a kill, a crash, a power cut), one short
    // line each: a profile.jsonl that ends inside a record, a frame whose own files are cut
    // (it and every frame after it are left out, everywhere).
    std::vector<std::string> cuts;
    std::size_t framesLeftOut = 0; // whole frame records left out with a cut file of theirs
};

// Reads profile.jsonl and profile.json when present, and checks that the files each frame
// record names (slots, samples and .meta, screenshot) are whole. A capture cut short keeps
// every whole record: a last line without its newline is left out, and so are the last
// frames when their own files end early or are missing (`cuts` says what, once). A file
// damaged otherwise is refused (a line in the middle that does not parse, a sidecar longer
// than its record says, a .meta with the wrong magic, a cut sidecar with whole frames
// after it): throws CaptureError naming the file and the offset, never echoing its bytes.
CaptureFiles readCapture(const std::string& dir);

// One line for a converter to print about a capture that did not finish or was cut:
// "DIR: the capture did not finish: N whole frame(s) (profile.jsonl: cut at ...)"; empty
// for a whole, finished capture.
std::string captureNote(const CaptureFiles& capture);

// The colour clock after the last whole frame record (0 without one): what a converter
// of a stream that runs past the records (sampler.bin) keeps is before it.
std::uint64_t wholeFramesEnd(const CaptureFiles& capture);

// One slots-*.bin file: `lines * lineCck` records. Throws CaptureError when the size does
// not match or a record names an owner that does not exist.
std::vector<SlotRecord> readSlots(const std::string& path, unsigned lines, unsigned lineCck);

class MemoryReplayer {
public:
    // Needs a capture made with "memory": true and "slots": true. Throws CaptureError
    // with what is missing.
    explicit MemoryReplayer(const std::string& dir);

    // Applies every write recorded up to and including colour clock `cck` (absolute, as
    // the records' first_cck). Replay only moves forward; a cck beyond the capture's last
    // frame or past a reposition marker is refused.
    void replayTo(std::uint64_t cck);
    std::uint64_t position() const { return position_; }
    std::uint64_t lastCck() const { return lastCck_; }
    const std::vector<std::uint8_t>& chip() const { return chip_; }
    const std::vector<std::uint8_t>& slow() const { return slow_; }
    // Zorro II fast RAM as it was when the capture started (fast-ram.bin; empty without
    // one) and where its board sat. It is not replayed: the CPU reaches it off the chip
    // bus, so no slot record holds its writes.
    const std::vector<std::uint8_t>& fastAtStart() const { return fast_; }
    std::uint32_t fastBase() const { return fastBase_; }
    std::uint64_t writesApplied() const { return writes_; }

private:
    void apply(const SlotRecord& r);
    CaptureFiles files_;
    std::vector<std::uint8_t> chip_, slow_, fast_;
    std::uint32_t fastBase_ = 0;
    std::uint64_t baseline_ = 0; // the colour clock the baseline was taken at
    std::uint64_t position_ = 0; // replayed up to here (exclusive)
    std::uint64_t lastCck_ = 0;  // the end of the replayable span
    std::size_t nextFrame_ = 0;  // index into files_.frames
    std::vector<SlotRecord> current_;
    std::size_t currentIndex_ = 0;
    std::uint64_t currentFirst_ = 0;
    unsigned currentLineCck_ = 227; // records per row: 227 PAL, 228 NTSC
    bool currentFirstLong_ = false; // NTSC: the frame's first line is a long one (228 clocks)
    std::size_t replayable_ = 0; // frame records before the first reposition marker
    std::uint64_t writes_ = 0;
};

} // namespace copperline
