// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/lcov_reader.h"

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <charconv>

namespace copperline {

namespace {

bool number(std::string_view s, std::uint64_t& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A field of the file as a message shows it: at most 80 characters, so that a refusal never
// echoes a line of any length.
std::string shown(std::string_view s) {
    return s.size() <= 80 ? std::string(s) : std::string(s.substr(0, 80)) + "... (" + std::to_string(s.size()) + " bytes)";
}

} // namespace

std::uint64_t LcovFile::linesHit() const {
    std::uint64_t n = 0;
    for (const auto& [line, count] : lines) n += count > 0;
    return n;
}

std::uint64_t LcovFile::functionsHit() const {
    std::uint64_t n = 0;
    for (const LcovFunction& f : functions) n += f.count > 0;
    return n;
}

const LcovFile* LcovData::file(std::string_view path) const {
    for (const LcovFile& f : files)
        if (f.path == path) return &f;
    return nullptr;
}

LcovData parseLcov(std::string_view text, const std::string& name) {
    LcovData out;
    LcovFile* current = nullptr;
    std::size_t lineNo = 0;
    const auto fail = [&](const std::string& what) {
        throw MediaError(name + ":" + std::to_string(lineNo) + ": " + what);
    };
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        if (line[0] == '#') {
            line.remove_prefix(1);
            if (!line.empty() && line[0] == ' ') line.remove_prefix(1);
            out.header.emplace_back(line);
            continue;
        }
        if (line == "end_of_record") {
            if (!current) fail("end_of_record outside a record");
            current = nullptr;
            continue;
        }
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) fail("not an lcov record line: '" + shown(line) + "'");
        const std::string_view key = line.substr(0, colon), value = line.substr(colon + 1);
        if (key == "TN") {
            if (out.testName.empty()) out.testName = std::string(value);
            continue;
        }
        if (key == "SF") {
            if (current) fail("SF inside the record of " + shown(current->path) + " (no end_of_record)");
            out.files.push_back(LcovFile{std::string(value), {}, {}});
            current = &out.files.back();
            continue;
        }
        if (!current) fail(shown(key) + " outside a record (no SF before it)");
        if (key == "DA") {
            const std::size_t comma = value.find(',');
            std::uint64_t l = 0, c = 0;
            const std::string_view countText = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
            // An optional checksum follows the count.
            if (comma == std::string_view::npos || !number(value.substr(0, comma), l) ||
                !number(countText.substr(0, countText.find(',')), c) || l == 0 || l > 0xFFFFFFFF)
                fail("DA wants LINE,COUNT");
            current->lines[std::uint32_t(l)] += c;
        } else if (key == "FN") {
            const std::size_t comma = value.find(',');
            std::uint64_t l = 0;
            if (comma == std::string_view::npos || !number(value.substr(0, comma), l) || l > 0xFFFFFFFF)
                fail("FN wants LINE,NAME");
            current->functions.push_back({std::string(value.substr(comma + 1)), std::uint32_t(l), 0});
        } else if (key == "FNDA") {
            const std::size_t comma = value.find(',');
            std::uint64_t c = 0;
            if (comma == std::string_view::npos || !number(value.substr(0, comma), c)) fail("FNDA wants COUNT,NAME");
            const std::string_view fn = value.substr(comma + 1);
            bool found = false;
            for (LcovFunction& f : current->functions)
                if (f.name == fn) {
                    f.count += c;
                    found = true;
                    break;
                }
            if (!found) fail("FNDA for " + shown(fn) + ", which no FN named");
        }
        // LF, LH, FNF, FNH, BRDA, BRF, BRH: totals and branches, recomputed or not used.
    }
    if (current) fail("the record of " + shown(current->path) + " has no end_of_record");
    return out;
}

LcovData readLcovFile(const std::string& path) {
    const auto bytes = readFileBytes(path, 256u << 20);
    return parseLcov(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

} // namespace copperline
