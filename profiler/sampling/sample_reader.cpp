// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/sampling/sample_reader.h"

#include "emu/media/byte_reader.h"
#include "profiler/json_address.h"

#include <cstring>
#include <fstream>
#include <iterator>

namespace copperline {

namespace sf = samples_format;

namespace {

std::uint32_t le32(std::span<const std::uint8_t> b, std::size_t at) {
    return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
           std::uint32_t(b[at + 3]) << 24;
}

std::vector<std::uint8_t> slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw MediaError(path + ": cannot be read");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

[[noreturn]] void bad(const std::string& name, const std::string& what) {
    throw MediaError(name + ": " + what);
}

} // namespace

std::size_t forEachSample(std::span<const std::uint8_t> stream, std::span<const std::uint8_t> meta, bool registers,
                          const std::string& name, const std::function<void(const SampleView&)>& each) {
    const std::string metaName = name + " (.meta)";
    if (meta.size() < 12) bad(metaName, "truncated: " + std::to_string(meta.size()) + " bytes, the header alone is 12");
    if (std::memcmp(meta.data(), sf::kMetaMagic, 4) != 0) bad(metaName, "not a sample .meta file (no CLSM magic)");
    const std::uint32_t version = le32(meta, 4);
    if (version != 1 && version != sf::kMetaVersion)
        bad(metaName, "version " + std::to_string(version) + " is not supported (this reader knows versions 1 and 2)");
    // Version 1 rows are the first five words of version 2's, without the context.
    const std::size_t rowBytes = 4 * (version == 1 ? sf::kMetaRowWords1 : sf::kMetaRowWords);
    const std::uint32_t rows = le32(meta, 8);
    if ((meta.size() - 12) % rowBytes != 0 || (meta.size() - 12) / rowBytes != rows)
        bad(metaName, "says " + std::to_string(rows) + " rows but holds " + std::to_string(meta.size() - 12) +
                          " bytes of rows (" + std::to_string(rowBytes) + " each in version " +
                          std::to_string(version) + ")");
    if (stream.size() % 4) bad(name, "its size (" + std::to_string(stream.size()) + " bytes) is not a multiple of 4");

    const std::size_t words = stream.size() / 4;
    std::vector<std::uint32_t> stack, regs;
    stack.reserve(64);
    std::size_t row = 0, w = 0;
    while (w < words) {
        const std::uint32_t v = le32(stream, 4 * w);
        ++w;
        if (v < 0xFFFF0000u) {
            if (stack.size() > 1024) bad(name, "a record at word " + std::to_string(w) + " has over 1024 PCs (a corrupt stream)");
            stack.push_back(v);
            continue;
        }
        if (stack.empty()) bad(name, "the record ending at word " + std::to_string(w - 1) + " has no PC");
        const std::uint32_t cck = 0xFFFFFFFFu - v;
        regs.clear();
        if (registers) {
            if (w + sf::kRegisterWords > words)
                bad(name, "truncated: the last record's registers are missing (word " + std::to_string(w) + ")");
            for (unsigned i = 0; i < sf::kRegisterWords; ++i) regs.push_back(le32(stream, 4 * (w + i)));
            w += sf::kRegisterWords;
        }
        if (row >= rows) bad(name, "holds more records than its .meta's " + std::to_string(rows) + " rows");
        const std::size_t at = 12 + rowBytes * row;
        SampleMeta m{le32(meta, at), le32(meta, at + 4), le32(meta, at + 8), le32(meta, at + 12), le32(meta, at + 16)};
        if (version >= 2) {
            m.pc = le32(meta, at + 20);
            m.task = le32(meta, at + 24);
            m.context = le32(meta, at + 28);
            if (m.context & ~(sf::kContextSrMask | 7u << sf::kContextLevelShift | sf::kContextDisabled |
                              sf::kContextForbidden | sf::kContextNoExec | sf::kContextNoTask | sf::kContextKnown))
                bad(metaName, "row " + std::to_string(row) + ": context word " + std::to_string(m.context) +
                                  " has bits no version 2 row sets");
        }
        const SampleView view{stack, m, regs};
        if (m.totalCck != cck)
            bad(name, "record " + std::to_string(row) + " costs " + std::to_string(cck) + " CCK but its .meta row says " +
                          std::to_string(m.totalCck));
        if (std::uint64_t(m.instructionCck) + m.waitCck != m.totalCck)
            bad(metaName, "row " + std::to_string(row) + ": instruction " + std::to_string(m.instructionCck) +
                              " + wait " + std::to_string(m.waitCck) + " CCK is not its total " +
                              std::to_string(m.totalCck));
        const bool irqMarked = stack.size() == 1 && stack[0] == sf::kIrqMarker;
        if (irqMarked != view.isIrq())
            bad(name, "record " + std::to_string(row) + (irqMarked ? " is an [IRQ] sample but its .meta row has no interrupt level"
                                                                    : " has an interrupt level in its .meta row but is not an [IRQ] sample"));
        each(view);
        ++row;
        stack.clear();
    }
    if (!stack.empty()) bad(name, "truncated: the last record has no cost word");
    if (row != rows)
        bad(name, "holds " + std::to_string(row) + " records but its .meta has " + std::to_string(rows) + " rows");
    return row;
}

std::optional<std::string> samplesCut(std::span<const std::uint8_t> stream, std::span<const std::uint8_t> meta,
                                      std::optional<bool> registers, const std::string& binName,
                                      const std::string& metaName) {
    const auto cut = [](const std::string& name, std::size_t at, const std::string& what) {
        return std::optional<std::string>(name + ": cut at byte " + std::to_string(at) + ", " + what);
    };
    if (meta.size() < 12) return cut(metaName, meta.size(), "inside its 12-byte header");
    if (std::memcmp(meta.data(), sf::kMetaMagic, 4) != 0) bad(metaName, "offset 0: not a sample .meta file (no CLSM magic)");
    const std::uint32_t version = le32(meta, 4);
    if (version != 1 && version != sf::kMetaVersion)
        bad(metaName, "offset 4: version " + std::to_string(version) + " is not supported");
    const std::size_t rowBytes = 4 * (version == 1 ? sf::kMetaRowWords1 : sf::kMetaRowWords);
    const std::uint64_t rows = le32(meta, 8);
    const std::uint64_t want = 12 + rows * rowBytes;
    if (meta.size() > want)
        bad(metaName, "offset " + std::to_string(want) + ": " + std::to_string(meta.size() - want) +
                          " bytes more than its " + std::to_string(rows) + " rows");
    if (meta.size() < want)
        return cut(metaName, meta.size(), "inside row " + std::to_string((meta.size() - 12) / rowBytes) + " of " +
                                              std::to_string(rows));
    if (!registers) return std::nullopt;
    // Walk the stream's records as forEachSample does, without reading them.
    const std::size_t words = stream.size() / 4;
    std::size_t records = 0, w = 0, recordStart = 0;
    bool inRecord = false;
    while (w < words) {
        const std::uint32_t v = le32(stream, 4 * w);
        if (!inRecord) recordStart = w;
        ++w;
        if (v < 0xFFFF0000u) {
            inRecord = true;
            continue;
        }
        if (*registers) {
            if (w + sf::kRegisterWords > words) {
                inRecord = true;
                break;
            }
            w += sf::kRegisterWords;
        }
        inRecord = false;
        ++records;
        if (records > rows)
            bad(binName, "offset " + std::to_string(4 * recordStart) + ": more records than its .meta's " +
                             std::to_string(rows) + " rows");
    }
    if (inRecord || stream.size() % 4)
        return cut(binName, stream.size(), "inside record " + std::to_string(records) + " of " + std::to_string(rows));
    if (records < rows)
        return cut(binName, stream.size(), "after record " + std::to_string(records) + " of " + std::to_string(rows));
    return std::nullopt;
}

std::vector<Sample> parseSamples(std::span<const std::uint8_t> stream, std::span<const std::uint8_t> meta,
                                 bool registers, const std::string& name) {
    std::vector<Sample> out;
    forEachSample(stream, meta, registers, name, [&out](const SampleView& v) {
        Sample s;
        s.stack.assign(v.stack.begin(), v.stack.end());
        s.meta = v.meta;
        s.registers.assign(v.registers.begin(), v.registers.end());
        out.push_back(std::move(s));
    });
    return out;
}

std::size_t forEachSampleIn(const std::string& binPath, const std::string& metaPath, bool registers,
                            const std::function<void(const SampleView&)>& each) {
    const auto stream = slurp(binPath);
    const auto meta = slurp(metaPath);
    return forEachSample(stream, meta, registers, binPath, each);
}

std::vector<Sample> readSamples(const std::string& binPath, const std::string& metaPath, bool registers) {
    const auto stream = slurp(binPath);
    const auto meta = slurp(metaPath);
    return parseSamples(stream, meta, registers, binPath);
}

std::optional<SamplesText> samplesText(const nlohmann::json& sampling, const std::string& where) {
    const auto fail = [&](const std::string& what) -> std::optional<SamplesText> { throw MediaError(where + ": " + what); };
    if (!sampling.is_object()) return std::nullopt;
    const nlohmann::json layouts = sampling.value("layouts", nlohmann::json::object());
    if (!layouts.is_object() || !layouts.value("samples", nlohmann::json::object()).is_object() ||
        !layouts["samples"].value("text_relative", false))
        return std::nullopt;
    const char* key = sampling.contains("text") && sampling["text"].is_object() ? "text" : "unwind";
    if (!sampling.contains(key) || !sampling[key].is_object())
        return fail("profile.json says its PCs are text-relative but records no text (sampling.text)");
    const auto number = [&](const char* field) -> std::uint32_t {
        if (const auto a = jsonAddress(sampling[key].value(field, nlohmann::json()))) return *a;
        fail(std::string("sampling.") + key + "." + field + " is not an address");
        return 0;
    };
    SamplesText t;
    t.base = number("base");
    t.size = number("size");
    return t;
}

} // namespace copperline
