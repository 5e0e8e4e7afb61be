// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The DMA words of recent blits, kept live for their previews (blit.render and the Frame
// Analyzer's blit list). The profile records only how many words each channel moved
// (BlitRecord::words); the words themselves stay here, for the blits of the last
// kFramesKept committed frames and the one in flight, and never more than kMaxWords in
// all. A blit that would pass the bound keeps what it has and is marked truncated.

#include "emu/chipset/frame_stats.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace copperline {

// The streams of one blit: the words channels A, B and C read and D wrote, in bus order,
// and the minterm's output for every word (pixel in line mode), which exists whether or
// not D is enabled.
enum class BlitStream : std::uint8_t { A = 0, B = 1, C = 2, D = 3, Result = 4 };
inline constexpr unsigned kBlitStreamCount = 5;

struct BlitWords {
    BlitRecord blit;             // as it started: its id, registers and size
    std::uint64_t lastFrame = 0; // the last frame it ran in
    std::array<std::vector<std::uint16_t>, kBlitStreamCount> words;
    bool truncated = false; // the bound cut it short
};

class BlitTrace {
public:
    static constexpr std::size_t kMaxWords = std::size_t(2) << 20; // 4 MiB of words
    static constexpr unsigned kFramesKept = 2;

    // Off, the machine's blits cost nothing here; on, from the next blit that starts.
    void setEnabled(bool on);
    bool enabled() const { return enabled_; }

    // A blit started; later words go to it.
    void begin(const BlitRecord& blit);
    // A blit's words are being kept (add would keep them).
    bool collecting() const { return current_ != nullptr; }
    void add(BlitStream stream, std::uint16_t word) {
        if (!current_) return;
        if (total_ >= kMaxWords) {
            current_->truncated = true;
            return;
        }
        current_->words[unsigned(stream)].push_back(word);
        ++total_;
    }
    // The blit in flight (if any) ran in `frame` too.
    void ranIn(std::uint64_t frame) {
        if (current_) current_->lastFrame = frame;
    }
    // The blit in flight ended.
    void end() { current_ = nullptr; }
    // Frame `frame` committed: blits that last ran before the kept frames are dropped.
    void frameCommitted(std::uint64_t frame);
    void clear();

    const BlitWords* find(std::uint32_t id) const;
    std::size_t totalWords() const { return total_; }
    std::size_t blitsKept() const { return blits_.size(); }

private:
    bool enabled_ = false;
    std::deque<BlitWords> blits_; // in start order
    BlitWords* current_ = nullptr;
    std::size_t total_ = 0;
};

} // namespace copperline
