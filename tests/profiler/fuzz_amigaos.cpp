// SPDX-License-Identifier: GPL-3.0-or-later
// Randomised guest memory for the AmigaOS reader, under AddressSanitizer and UBSan: the
// hand-built system of amigaos_guest_image.h with random bytes and pointers written into
// its structures, its structure area replaced by random bytes under a valid ExecBase, and
// random memory outright. Every read must return within its limits, read only backed
// memory and give JSON that serialises. Prints what it saw; exits 1 on a broken rule.
//
// Usage: fuzz_amigaos [iterations]

#include "amigaos_guest_image.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/code_namer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace copperline;
using namespace copperline::test;

namespace {

// The image and the ROM where they are, without copies.
class SpanView final : public MemoryView {
public:
    SpanView(const std::vector<std::uint8_t>& chip, const std::vector<std::uint8_t>& rom)
        : chip_(chip),
          rom_(rom), ranges_{{0, std::uint32_t(chip.size()), MemoryKind::ChipRam},
                             {0xF80000, 0xF80000 + std::uint32_t(rom.size()), MemoryKind::Rom}} {}
    std::span<const MemoryRange> ranges() const override { return ranges_; }

private:
    std::uint8_t byteAt(std::uint32_t a) const override {
        return a < chip_.size() ? chip_[a] : rom_[a - 0xF80000];
    }
    const std::vector<std::uint8_t>& chip_;
    const std::vector<std::uint8_t>& rom_;
    MemoryRange ranges_[2];
};

[[noreturn]] void fail(int iteration, const char* rule) {
    std::fprintf(stderr, "fuzz_amigaos: iteration %d broke the rule: %s\n", iteration, rule);
    std::exit(1);
}

} // namespace

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 3000;
    std::mt19937 rng(0xA4000);
    const GuestImage base = standardImage();
    // A fake ROM so that jump table targets can land in one and the namer has work.
    std::vector<std::uint8_t> rom(512 * 1024);
    for (auto& b : rom)
        b = std::uint8_t(rng());
    const AmigaOsReadLimits limits;
    unsigned withExec = 0, withThisTask = 0, problems = 0, libraries = 0;
    std::uint64_t maxReads = 0;
    // Every change lies below this address; it is restored from `base` after each walk.
    constexpr std::uint32_t kChanged = 0x8000;
    GuestImage g = base;
    for (int i = 0; i < iterations; ++i) {
        std::copy(base.chip.begin(), base.chip.begin() + kChanged, g.chip.begin());
        const int mode = i % 4;
        if (mode <= 1) {
            // A few bytes or pointers of the structures changed.
            const int changes = 1 + int(rng() % 24);
            for (int k = 0; k < changes; ++k) {
                const std::uint32_t a = 0x1D00 + rng() % (0x5300 - 0x1D00);
                switch (rng() % 4) {
                case 0: g.b(a, std::uint8_t(rng())); break;
                case 1: g.l(a & ~1u, rng()); break;                           // any pointer
                case 2: g.l(a & ~1u, 0x1D00 + (rng() % 0x3600 & ~1u)); break; // a nearby one
                default: g.l(a & ~1u, 0xF80000 + (rng() % 0x80000)); break;   // into ROM
                }
            }
        } else if (mode == 2) {
            // The structure area random, ExecBase's identity kept.
            for (std::uint32_t a = 0x1D00; a < 0x5300; ++a)
                g.b(a, std::uint8_t(rng()));
            const GuestImage& s = base;
            for (std::uint32_t a : {layout::kExec + 8, layout::kExec + 10, layout::kExec + 16,
                                    layout::kExec + 18, layout::kExec + 38})
                for (std::uint32_t k = 0; k < 4; ++k)
                    g.b(a + k, s.chip[a + k]);
            for (std::uint32_t k = 0; k < 13; ++k)
                g.b(layout::kExecName + k, s.chip[layout::kExecName + k]);
        } else {
            for (std::uint32_t a = 0; a < kChanged; ++a)
                g.b(a, std::uint8_t(rng()));
        }
        const SpanView view(g.chip, rom);
        const CountingView counted(view);
        const AmigaOsSnapshot s = readAmigaOs(counted, limits);

        if (counted.unbacked) fail(i, "read only backed memory");
        if (counted.reads > 2'000'000) fail(i, "bounded work");
        if (s.problems.size() > limits.maxProblems) fail(i, "at most maxProblems problems");
        std::size_t lvos = 0;
        for (const auto* list : {&s.libraries, &s.devices, &s.resources}) {
            if (list->size() > limits.maxListNodes) fail(i, "at most maxListNodes libraries");
            for (const AmigaOsLibrary& l : *list) {
                if (l.lvos.size() > limits.maxLvos) fail(i, "at most maxLvos entries");
                lvos += l.lvos.size();
            }
        }
        if (lvos > limits.maxTotalLvos) fail(i, "at most maxTotalLvos entries");
        if (s.readyTasks.size() > limits.maxListNodes ||
            s.waitingTasks.size() > limits.maxListNodes)
            fail(i, "at most maxListNodes tasks");
        if (s.residents.size() > limits.maxResidents) fail(i, "at most maxResidents residents");
        if (!s.exec && !(s.libraries.empty() && s.residents.empty() && !s.thisTask))
            fail(i, "nothing is read past an unreadable ExecBase");
        const nlohmann::json j = romSymbolsJson(s);
        const std::string text = j.dump();
        if (romSymbolsJson(romSymbolsFromJson(nlohmann::json::parse(text))) != j)
            fail(i, "rom_symbols reads back");
        const nlohmann::json stack = stackFieldsJson(s);
        if (!s.exec != stack["systemStackLower"].is_null())
            fail(i, "null stack fields only without ExecBase");
        const CodeNamer namer(readCodeModules(counted, true)); // interrupt server lists too
        if (counted.unbacked) fail(i, "the code modules read only backed memory");
        for (int k = 0; k < 16; ++k)
            (void)namer.name(0xF80000 + rng() % 0x80000).label();

        withExec += bool(s.exec);
        withThisTask += bool(s.thisTask);
        problems += unsigned(s.problems.size());
        libraries += unsigned(s.libraries.size());
        maxReads = std::max(maxReads, counted.reads);
    }
    std::printf("fuzz_amigaos: %d memories, ExecBase read in %u, ThisTask in %u, %u libraries, "
                "%u problems, at most %llu bytes read in one walk\n",
                iterations, withExec, withThisTask, libraries, problems,
                static_cast<unsigned long long>(maxReads));
    return 0;
}
