#pragma once
// PLACEHOLDER until the unwind-table branch lands: the stack is the PC alone.
#include "profiler/debuginfo/unwind_table.h"
#include <cstdint>
#include <vector>
namespace copperline {
class LongReader {
public:
    virtual ~LongReader() = default;
    virtual bool readLong(std::uint32_t address, std::uint32_t& value) const = 0;
};
struct CodeRange {
    std::uint32_t base = 0, size = 0;
};
class Unwinder {
public:
    static constexpr unsigned kMaxDepth = 64;
    Unwinder() = default;
    Unwinder(UnwindTable table, std::uint32_t textBase, std::vector<CodeRange>) : base_(textBase), size_(table.textSize) {}
    void unwind(std::uint32_t pc, std::uint32_t, std::uint32_t, const LongReader&, std::vector<std::uint32_t>& out) const {
        out.push_back(pc);
    }
    bool inText(std::uint32_t pc) const { return pc - base_ < size_; }
    std::uint32_t textBase() const { return base_; }
    std::uint32_t textSize() const { return size_; }
    std::uint32_t base_ = 0, size_ = 0;
};
} // namespace copperline
