// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/capture/capture_reader.h"

#include <cstdio>

#include "profiler/capture/frame_capture.h"
#include "profiler/sampling/sample_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

namespace copperline {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::uint8_t> readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CaptureError(path.string() + ": cannot be read");
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// NTSC: whether a frame's first line is a long one (228 clocks); its lines alternate 227
// and 228. The LOL event marks a long line on its record at hpos 3: read on line 0 when the
// records reach back to its hpos 3, else on the last line (the frame's lengths alternate,
// so either tells), else (a capture begun inside the last line) from the frame's length.
bool firstLineLong(const std::vector<SlotRecord>& records, unsigned lines, unsigned rowCck, std::uint64_t first,
                   std::uint64_t length, std::uint64_t recordedFrom) {
    if (lines == 0) return false;
    if (recordedFrom <= first + 3) return records[3].events & slot_event::LOL;
    if (recordedFrom + 225 <= first + length) {
        const bool lastLong = records[std::size_t(lines - 1) * rowCck + 3].events & slot_event::LOL;
        return lastLong != ((lines - 1) % 2 == 1);
    }
    return 2 * (length - std::uint64_t(lines) * 227) > lines;
}

} // namespace

namespace {

// The bytes of a file; empty when it cannot be read (missing).
bool readIfThere(const fs::path& path, std::vector<std::uint8_t>& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), {});
    return !in.bad();
}

std::string withSeparators(std::uint64_t v) {
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// A name a frame record gives: a plain file of the capture folder.
// A whole-number field of a record or of the summary, or a CaptureError that names it.
std::uint64_t wholeField(const json& record, const char* key, const std::string& where) {
    if (!record.is_object() || !record.contains(key) || !record[key].is_number_unsigned())
        throw CaptureError(where + ": " + key + " is not a whole number");
    return record[key].get<std::uint64_t>();
}

std::string sidecarField(const json& record, const char* key, const std::string& where) {
    // A record may name one of a pair's files and not the other (samples_meta without samples).
    const auto v = record.find(key);
    if (v == record.end() || !v->is_string()) throw CaptureError(where + ": " + key + " is not a file name");
    const std::string name = v->get<std::string>();
    if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos)
        throw CaptureError(where + ": " + key + " names no file of the capture folder");
    return name;
}

// Whether a frame record's own files are whole: nullopt when they are, else what is cut.
// Throws CaptureError for a file damaged otherwise.
std::optional<std::string> frameFilesCut(const fs::path& dir, const json& r, std::optional<bool> registers,
                                         const std::string& where) {
    std::error_code ec;
    if (r.contains("slots")) {
        const std::string name = sidecarField(r, "slots", where);
        const auto size = fs::file_size(dir / name, ec);
        if (ec) return name + ": missing (cannot be read)";
        const std::uint64_t lines = wholeField(r, "lines", where), lineCck = wholeField(r, "line_cck", where);
        if (lines > 4096 || lineCck > 4096) throw CaptureError(where + ": lines or line_cck past any frame's");
        const std::uint64_t want = lines * lineCck * sizeof(SlotRecord);
        if (size > want)
            throw CaptureError((dir / name).string() + ": " + std::to_string(size) + " bytes, more than the " +
                               std::to_string(want) + " of its frame's records");
        if (size < want) return name + ": cut at byte " + withSeparators(size) + " of " + withSeparators(want);
    }
    if (r.contains("samples") || r.contains("samples_meta")) {
        const std::string bin = sidecarField(r, "samples", where), meta = sidecarField(r, "samples_meta", where);
        std::vector<std::uint8_t> stream, rows;
        if (!readIfThere(dir / bin, stream)) return bin + ": missing (cannot be read)";
        if (!readIfThere(dir / meta, rows)) return meta + ": missing (cannot be read)";
        try {
            if (auto cut = samplesCut(stream, rows, registers, bin, meta)) return cut;
        } catch (const MediaError& e) {
            throw CaptureError((dir / "").string() + e.what());
        }
    }
    if (r.contains("screenshot")) {
        // A PNG ends with its IEND chunk: length 0, "IEND", its CRC.
        const std::string name = sidecarField(r, "screenshot", where);
        std::vector<std::uint8_t> png;
        if (!readIfThere(dir / name, png)) return name + ": missing (cannot be read)";
        static constexpr std::uint8_t kEnd[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
        if (png.size() < sizeof kEnd || std::memcmp(png.data() + png.size() - sizeof kEnd, kEnd, sizeof kEnd) != 0)
            return name + ": cut at byte " + withSeparators(png.size()) + " (no IEND chunk)";
    }
    return std::nullopt;
}

// What json::parse refused besides a syntax error, in words that never quote the input: the
// library's own message for a number too large (out_of_range 406) repeats the whole number,
// and a damaged file may hold one a megabyte long.
std::string unreadable(const json::exception& e) {
    if (e.id == 406) return "damaged: holds a number too large to read";
    return "damaged: not readable as JSON (JSON error " + std::to_string(e.id) + ")";
}

} // namespace

CaptureFiles readCapture(const std::string& dir) {
    CaptureFiles out;
    out.dir = dir;
    const fs::path summary = fs::path(dir) / kSummaryFile;
    std::error_code ec;
    if (fs::exists(summary, ec)) {
        std::ifstream s(summary);
        try {
            out.summary = json::parse(s);
        } catch (const json::parse_error& e) {
            throw CaptureError(summary.string() + ": not JSON at byte " + std::to_string(e.byte));
        } catch (const json::exception& e) {
            throw CaptureError(summary.string() + ": " + unreadable(e));
        }
        if (!out.summary.is_object()) throw CaptureError(summary.string() + ": not a JSON object");
        const json* state = out.summary.contains("state") ? &out.summary["state"] : nullptr;
        if (state && !state->is_string()) throw CaptureError(summary.string() + ": state is not a string");
        out.finished = state && (*state == "done" || *state == "failed");
    }
    const fs::path jsonl = fs::path(dir) / "profile.jsonl";
    std::vector<std::uint8_t> bytes;
    if (!readIfThere(jsonl, bytes)) throw CaptureError(jsonl.string() + ": cannot be read");
    std::size_t n = 0, at = 0;
    while (at < bytes.size()) {
        const auto nl = std::find(bytes.begin() + std::ptrdiff_t(at), bytes.end(), std::uint8_t('\n'));
        if (nl == bytes.end()) {
            // Every record is written with its newline in one write: a last line without it
            // is a record the writer did not finish. Its bytes are left out, never shown.
            std::string after = "at the start";
            if (!out.frames.empty())
                after = "after seq " + std::to_string(out.frames.back().value("seq", 0ull)) + " (frame " +
                        std::to_string(out.frames.back().value("frame", 0ull)) + ")";
            out.cuts.push_back("profile.jsonl: cut at byte " + withSeparators(bytes.size()) + ", inside the record " +
                               after + ": its " + withSeparators(bytes.size() - at) + " bytes left out");
            break;
        }
        const std::size_t end = std::size_t(nl - bytes.begin());
        ++n;
        const std::string where = jsonl.string() + ":" + std::to_string(n) + " (byte " + std::to_string(at) + ")";
        json j;
        try {
            j = json::parse(bytes.begin() + std::ptrdiff_t(at), nl);
        } catch (const json::parse_error& e) {
            throw CaptureError(where + ": damaged: not JSON at byte " + std::to_string(at + e.byte - 1) +
                               " (the file goes on for " + std::to_string(bytes.size() - end - 1) +
                               " bytes after this line)");
        } catch (const json::exception& e) {
            throw CaptureError(where + ": " + unreadable(e));
        }
        at = end + 1;
        if (!j.is_object()) throw CaptureError(where + ": not an object");
        if (j.contains("marker")) {
            out.markers.push_back(j);
            out.markerBefore.push_back(out.frames.size());
        } else {
            for (const char* key : {"frame", "seq", "first_cck"})
                if (!j.contains(key) || !j[key].is_number_unsigned())
                    throw CaptureError(where + ": a frame record needs frame, seq and first_cck, each a whole number");
            out.frames.push_back(std::move(j));
        }
    }
    // Each frame's own files are written before its record: a frame with a cut file (a
    // power cut, or a file cut by hand) ends what can be converted, here and everywhere.
    std::optional<bool> registers;
    if (out.summary.is_object() && out.summary.contains("sampling") && out.summary["sampling"].is_object()) {
        const json& sampling = out.summary["sampling"];
        if (sampling.contains("registers") && !sampling["registers"].is_boolean())
            throw CaptureError((fs::path(dir) / kSummaryFile).string() + ": sampling.registers is not true or false");
        registers = sampling.value("registers", false);
    }
    const auto frameCut = [&](std::size_t i) {
        const json& r = out.frames[i];
        return frameFilesCut(fs::path(dir), r, registers,
                             jsonl.string() + ": frame record seq " + std::to_string(r.value("seq", 0ull)));
    };
    for (std::size_t i = 0; i < out.frames.size(); ++i) {
        const json& r = out.frames[i];
        if (auto cut = frameCut(i)) {
            // Cut short, the capture's last frames lose their files; a frame with whole
            // files after one with a cut file means the capture was damaged in the middle.
            for (std::size_t later = i + 1; later < out.frames.size(); ++later)
                if (!frameCut(later))
                    throw CaptureError((fs::path(dir) / "").string() + *cut + ", yet frame record seq " +
                                       std::to_string(out.frames[later].value("seq", 0ull)) +
                                       " after it has whole files: damaged in the middle");
            out.framesLeftOut = out.frames.size() - i;
            out.cuts.push_back(*cut + ": frames from seq " + std::to_string(r.value("seq", 0ull)) + " (frame " +
                               std::to_string(r.value("frame", 0ull)) + ") on left out, " +
                               std::to_string(out.framesLeftOut) + " record(s)");
            out.frames.resize(i);
            while (!out.markerBefore.empty() && out.markerBefore.back() > i) {
                out.markerBefore.pop_back();
                out.markers.pop_back();
            }
            break;
        }
    }
    return out;
}

std::string captureNote(const CaptureFiles& capture) {
    if (capture.finished && capture.cuts.empty()) return {};
    std::string out = capture.dir + ": ";
    out += capture.finished ? "the capture was cut: " : "the capture did not finish: ";
    out += std::to_string(capture.frames.size()) + " whole frame(s)";
    if (!capture.summary.is_object()) out += ", no profile.json";
    if (!capture.cuts.empty()) {
        out += " (";
        for (std::size_t i = 0; i < capture.cuts.size(); ++i) out += (i ? "; " : "") + capture.cuts[i];
        out += ")";
    }
    return out;
}

std::uint64_t wholeFramesEnd(const CaptureFiles& capture) {
    if (capture.frames.empty()) return 0;
    const json& last = capture.frames.back();
    const json& length = last.contains("length_cck") ? last["length_cck"] : json();
    return last["first_cck"].get<std::uint64_t>() + (length.is_number_unsigned() ? length.get<std::uint64_t>() : 0);
}

std::vector<SlotRecord> readSlots(const std::string& path, unsigned lines, unsigned lineCck) {
    const auto bytes = readAll(path);
    const std::size_t want = std::size_t(lines) * lineCck * sizeof(SlotRecord);
    if (bytes.size() != want)
        throw CaptureError(path + ": " + std::to_string(bytes.size()) + " bytes; " +
                           std::to_string(lines) + " lines of " + std::to_string(lineCck) +
                           " records are " + std::to_string(want));
    std::vector<SlotRecord> out(std::size_t(lines) * lineCck);
    // The file is little-endian, as is every host this builds for (static_assert below).
    static_assert(std::endian::native == std::endian::little,
                  "slot files are read on little-endian hosts");
    std::memcpy(out.data(), bytes.data(), want);
    for (std::size_t i = 0; i < out.size(); ++i)
        if (unsigned(out[i].owner) >= kBusOwnerCount)
            throw CaptureError(path + ": record " + std::to_string(i) + " names owner " +
                               std::to_string(unsigned(out[i].owner)) + ", which does not exist");
    return out;
}

// ---- the memory replayer -------------------------------------------------------------------

MemoryReplayer::MemoryReplayer(const std::string& dir) : files_(readCapture(dir)) {
    const fs::path chip = fs::path(dir) / "chip-ram.bin", slow = fs::path(dir) / "slow-ram.bin";
    std::error_code ec;
    if (!fs::exists(chip, ec))
        throw CaptureError(
            dir + ": no chip-ram.bin; replaying memory needs a capture made with \"memory\": true");
    chip_ = readAll(chip);
    if (fs::exists(slow, ec)) slow_ = readAll(slow);
    if (chip_.empty() || (chip_.size() & (chip_.size() - 1)))
        throw CaptureError(chip.string() + ": " + std::to_string(chip_.size()) +
                           " bytes is not a chip RAM size");
    if (files_.summary.is_null())
        throw CaptureError(
            dir +
            ": no profile.json; the capture did not finish, so its baseline clock is unknown");
    baseline_ = wholeField(files_.summary.value("started", json()), "capture_cck", dir + "/profile.json: started");
    replayable_ = files_.markerBefore.empty() ? files_.frames.size() : files_.markerBefore.front();
    if (replayable_ == 0) throw CaptureError(dir + ": the capture holds no frame to replay");
    for (std::size_t i = 0; i < replayable_; ++i)
        if (!files_.frames[i].contains("slots"))
            throw CaptureError(dir + ": frame record " + std::to_string(i) +
                               " has no slot file; replaying memory needs \"slots\": true");
    if (const fs::path fast = fs::path(dir) / "fast-ram.bin"; fs::exists(fast, ec)) {
        fast_ = readAll(fast);
        const json f = files_.summary.value("fast_ram", json());
        const std::string where = dir + "/profile.json: fast_ram";
        const std::uint64_t base = wholeField(f, "base", where), bytes = wholeField(f, "bytes", where);
        if (base > 0xFFFFFF) throw CaptureError(where + ": base lies past the 24-bit address space");
        fastBase_ = std::uint32_t(base);
        if (bytes != fast_.size())
            throw CaptureError(fast.string() + ": " + std::to_string(fast_.size()) +
                               " bytes, profile.json's fast_ram says " + std::to_string(bytes));
        const std::uint64_t end = std::uint64_t(fastBase_) + fast_.size();
        const bool placed = (fastBase_ >= 0x200000 && end <= 0xA00000) || (fastBase_ >= 0xE90000 && end <= 0xF00000);
        if (fast_.empty() || (fast_.size() & (fast_.size() - 1)) || !placed) {
            char at[16];
            std::snprintf(at, sizeof at, "$%06X", unsigned(fastBase_));
            throw CaptureError(fast.string() + ": " + std::to_string(fast_.size()) + " bytes at " + at +
                               " is not a Zorro II fast RAM board");
        }
    }
    const json& last = files_.frames[replayable_ - 1];
    const std::string where = dir + "/profile.jsonl: frame record seq " + std::to_string(last["seq"].get<std::uint64_t>());
    const std::uint64_t length = wholeField(last, "length_cck", where);
    if (length == 0) throw CaptureError(where + ": length_cck is 0");
    lastCck_ = last["first_cck"].get<std::uint64_t>() + length - 1;
    position_ = baseline_;
}

void MemoryReplayer::apply(const SlotRecord& r) {
    if (!(r.flags & slot_flag::Write) || r.size == 0) return;
    // A Copper MOVE is a register write, not a memory one; so is any custom access.
    if (r.owner == BusOwner::Copper || (r.flags & slot_flag::Register && r.owner == BusOwner::Cpu))
        return;
    const std::uint32_t a = r.address & 0xFFFFFF;
    std::uint8_t* p = nullptr;
    std::size_t room = 0;
    if (a < 0x200000) {
        const std::size_t off = a & (chip_.size() - 1);
        p = chip_.data() + off;
        room = chip_.size() - off;
    } else if (a >= 0xC00000 && a < 0xD80000 && !slow_.empty()) {
        const std::size_t off = (a - 0xC00000) % slow_.size();
        p = slow_.data() + off;
        room = slow_.size() - off;
    } else {
        return;
    }
    const std::uint16_t word = std::uint16_t(r.data);
    if (r.size == 2) {
        if (room < 2) return;
        p[0] = std::uint8_t(word >> 8);
        p[1] = std::uint8_t(word);
    } else {
        // A byte access drives its byte lane: the even byte on D15-D8, the odd on D7-D0.
        p[0] = (a & 1) ? std::uint8_t(word) : std::uint8_t(word >> 8);
    }
    ++writes_;
}

void MemoryReplayer::replayTo(std::uint64_t cck) {
    if (cck < position_ && position_ != baseline_)
        throw CaptureError("replay moves forward only: at " + std::to_string(position_) +
                           ", asked for " + std::to_string(cck));
    if (cck > lastCck_)
        throw CaptureError("colour clock " + std::to_string(cck) +
                           " lies past the replayable capture (last " + std::to_string(lastCck_) +
                           ")");
    while (position_ <= cck) {
        if (currentIndex_ >= current_.size()) {
            if (nextFrame_ >= replayable_) break;
            const json& f = files_.frames[nextFrame_++];
            const std::string where =
                files_.dir + "/profile.jsonl: frame record seq " + std::to_string(f["seq"].get<std::uint64_t>());
            // readCapture checked lines, line_cck and slots of every record that names slots.
            const unsigned lines = unsigned(wholeField(f, "lines", where)),
                           lineCck = unsigned(wholeField(f, "line_cck", where));
            current_ = readSlots((fs::path(files_.dir) / f["slots"].get<std::string>()).string(), lines, lineCck);
            currentFirst_ = f["first_cck"].get<std::uint64_t>();
            currentLineCck_ = lineCck;
            currentIndex_ = 0;
            // NTSC rows are 228 records wide, and a short line's last is no clock.
            currentFirstLong_ =
                lineCck > 227 && firstLineLong(current_, lines, lineCck, currentFirst_,
                                               wholeField(f, "length_cck", where),
                                               f.contains("partial_from_cck")
                                                   ? wholeField(f, "partial_from_cck", where)
                                                   : currentFirst_);
        }
        // Records are in raster order, row by row: PAL lines all have line_cck clocks, NTSC
        // lines alternate 227 and 228 in rows of 228.
        const std::size_t v = currentIndex_ / currentLineCck_, h = currentIndex_ % currentLineCck_;
        const bool alternating = currentLineCck_ > 227;
        const bool longLine = alternating && ((v % 2 == 0) == currentFirstLong_);
        if (alternating && !longLine && h >= 227) {
            ++currentIndex_;
            continue;
        }
        const std::uint64_t lineStart =
            alternating ? v * 227 + (currentFirstLong_ ? (v + 1) / 2 : v / 2) : v * currentLineCck_;
        const std::uint64_t at = currentFirst_ + lineStart + h;
        if (at > cck) break;
        if (at >= position_) apply(current_[currentIndex_]);
        ++currentIndex_;
        position_ = std::max(position_, at + 1);
    }
}

} // namespace copperline
