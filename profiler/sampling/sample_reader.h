// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The reader of the sampler's files (docs/formats/samples.md): one frame's
// samples-*.bin stream and its .meta rows, checked against each other. Every converter
// and test reads samples through it.

#include "profiler/sampling/sampler.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace copperline {

struct Sample {
    // Leaf to root, as written: text-relative PCs for the unwind text, absolute others;
    // an [IRQ] sample holds samples_format::kIrqMarker alone.
    std::vector<std::uint32_t> stack;
    SampleMeta meta;
    std::vector<std::uint32_t> registers; // D0-D7, A0-A7, SR, when the capture recorded them

    bool isIrq() const { return meta.irqLevel != samples_format::kNotIrq && meta.irqLevel != samples_format::kStoppedLevel; }
    bool isStopped() const { return meta.irqLevel == samples_format::kStoppedLevel; }
};

// Parses one frame's stream and meta. `registers`: the capture's "registers" option
// (profile.json's sampling.registers). Throws MediaError naming the file, the offset and
// what is wrong: a truncated stream, a record without a cost word, a .meta with the wrong
// magic, version or size, a row count or a cost that disagrees with the stream.
std::vector<Sample> parseSamples(std::span<const std::uint8_t> stream, std::span<const std::uint8_t> meta,
                                 bool registers, const std::string& name = "samples");

// The same checks, calling `each` once per sample in stream order without building a
// Sample (for converters that read millions). `stack` and `registers` point into a buffer
// that lives until `each` returns; `registers` is empty without them.
struct SampleView {
    std::span<const std::uint32_t> stack;
    const SampleMeta& meta;
    std::span<const std::uint32_t> registers;
    bool isIrq() const { return meta.irqLevel != samples_format::kNotIrq && meta.irqLevel != samples_format::kStoppedLevel; }
    bool isStopped() const { return meta.irqLevel == samples_format::kStoppedLevel; }
};
std::size_t forEachSample(std::span<const std::uint8_t> stream, std::span<const std::uint8_t> meta, bool registers,
                          const std::string& name, const std::function<void(const SampleView&)>& each);
// Reads both files and calls forEachSample; returns the sample count.
std::size_t forEachSampleIn(const std::string& binPath, const std::string& metaPath, bool registers,
                            const std::function<void(const SampleView&)>& each);
std::vector<Sample> readSamples(const std::string& binPath, const std::string& metaPath, bool registers);

// Whether one frame's stream and .meta are whole: nullopt when they are, else what ends
// early, in a few words ("samples-...bin: cut at byte 4096, inside record 120 of 800"),
// as an emulator killed while it wrote them leaves them. `registers` as above; without it
// (nullopt: unknown) only the .meta is checked. Throws MediaError naming the file and the
// offset for files damaged otherwise: a wrong magic or version, more bytes or records than
// the .meta's rows.
std::optional<std::string> samplesCut(std::span<const std::uint8_t> stream, std::span<const std::uint8_t> meta,
                                      std::optional<bool> registers, const std::string& binName,
                                      const std::string& metaName);

// The text a capture's stream writes PCs relative to, from profile.json's "sampling":
// "text", or the unwind table's for captures that predate it; nullopt when every PC is
// absolute (layouts.samples.text_relative false). Throws MediaError naming `where` and the
// field when the capture says its PCs are relative but records no usable text.
struct SamplesText {
    std::uint32_t base = 0, size = 0;
};
std::optional<SamplesText> samplesText(const nlohmann::json& sampling, const std::string& where);

} // namespace copperline
