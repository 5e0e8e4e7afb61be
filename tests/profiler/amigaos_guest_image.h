// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A small AmigaOS system built by hand in a chip RAM image, for the AmigaOS reader's
// tests: ExecBase with its lists, two libraries, a device, a resource, three tasks and two
// resident modules. The offsets are written out here from the NDK's include files
// (exec/nodes.h, lists.h, libraries.h, tasks.h, resident.h, execbase.h), independently
// of the reader's own constants, so that a wrong offset in either shows.

#include "profiler/amigaos/memory_view.h"

#include <cstdint>
#include <string>
#include <vector>

namespace copperline::test {

// A view that counts the bytes read through it and those that were not backed.
class CountingView final : public MemoryView {
public:
    explicit CountingView(const MemoryView& inner) : inner_(inner) {}
    std::span<const MemoryRange> ranges() const override { return inner_.ranges(); }
    mutable std::uint64_t reads = 0, unbacked = 0;

private:
    std::uint8_t byteAt(std::uint32_t a) const override {
        ++reads;
        const auto v = inner_.byte(a);
        if (!v) ++unbacked;
        return v.value_or(0);
    }
    const MemoryView& inner_;
};

struct GuestImage {
    std::vector<std::uint8_t> chip = std::vector<std::uint8_t>(512 * 1024, 0);

    void b(std::uint32_t a, std::uint8_t v) { chip.at(a) = v; }
    void w(std::uint32_t a, std::uint16_t v) {
        b(a, std::uint8_t(v >> 8));
        b(a + 1, std::uint8_t(v));
    }
    void l(std::uint32_t a, std::uint32_t v) {
        w(a, std::uint16_t(v >> 16));
        w(a + 2, std::uint16_t(v));
    }
    std::uint32_t r32(std::uint32_t a) const {
        return std::uint32_t(chip.at(a)) << 24 | std::uint32_t(chip.at(a + 1)) << 16 |
               std::uint32_t(chip.at(a + 2)) << 8 | chip.at(a + 3);
    }
    void str(std::uint32_t a, const std::string& s) {
        for (char c : s)
            b(a++, std::uint8_t(c));
        b(a, 0);
    }

    // An empty list: lh_Head -> &lh_Tail, lh_Tail = 0, lh_TailPred -> the list.
    void initList(std::uint32_t list) {
        l(list + 0, list + 4);
        l(list + 4, 0);
        l(list + 8, list);
    }
    // AddTail(): the node goes between lh_TailPred and the tail node.
    void addTail(std::uint32_t list, std::uint32_t node) {
        const std::uint32_t last = r32(list + 8);
        l(node + 0, list + 4); // ln_Succ
        l(node + 4, last);     // ln_Pred
        l(last + 0, node);
        l(list + 8, node);
    }
    void node(std::uint32_t at, std::uint8_t type, std::int8_t pri, std::uint32_t name) {
        b(at + 8, type);
        b(at + 9, std::uint8_t(pri));
        l(at + 10, name);
    }
    // A Library and its jump table: `lvos` entries of JMP abs.l to `firstTarget` + 16 n.
    void library(std::uint32_t base, std::uint8_t type, std::uint32_t name, std::uint16_t version,
                 unsigned lvos, std::uint32_t firstTarget) {
        node(base, type, 0, name);
        w(base + 16, std::uint16_t(lvos * 6)); // lib_NegSize
        w(base + 18, 34);                      // lib_PosSize
        w(base + 20, version);
        w(base + 22, 1); // lib_Revision
        for (unsigned n = 1; n <= lvos; ++n) {
            w(base - 6 * n, 0x4EF9);
            l(base - 6 * n + 2, lvoTarget(firstTarget, n));
        }
    }
    static std::uint32_t lvoTarget(std::uint32_t firstTarget, unsigned n) {
        return firstTarget + 16 * (n - 1);
    }
    void task(std::uint32_t at, std::uint8_t type, std::uint32_t name, std::uint8_t state,
              std::int8_t pri, std::uint32_t spLower, std::uint32_t spUpper) {
        node(at, type, pri, name);
        b(at + 15, state);        // tc_State
        l(at + 54, spUpper - 64); // tc_SPReg
        l(at + 58, spLower);      // tc_SPLower
        l(at + 62, spUpper);      // tc_SPUpper
    }
    void romTag(std::uint32_t at, std::uint32_t name, std::uint8_t type, std::int8_t pri) {
        w(at + 0, 0x4AFC);  // rt_MatchWord
        l(at + 2, at);      // rt_MatchTag
        l(at + 6, at + 26); // rt_EndSkip
        b(at + 10, 0x81);   // rt_Flags: RTF_AUTOINIT | RTF_COLDSTART
        b(at + 11, 40);     // rt_Version
        b(at + 12, type);
        b(at + 13, std::uint8_t(pri));
        l(at + 14, name);
        l(at + 22, at + 0x40); // rt_Init
    }
};

// Where standardImage() puts things.
namespace layout {
inline constexpr std::uint32_t kExec = 0x2000, kDos = 0x3000, kTimer = 0x3400, kCia = 0x3800;
inline constexpr std::uint32_t kWorker = 0x4000, kHelper = 0x4100, kMain = 0x4200;
inline constexpr std::uint32_t kResModules = 0x5000, kResModules2 = 0x5200;
inline constexpr std::uint32_t kRomTag1 = 0x5100, kRomTag2 = 0x5140;
inline constexpr std::uint32_t kSysStkLower = 0x7E000, kSysStkUpper = 0x7F000;
inline constexpr std::uint32_t kMainStack = 0x60000, kMainStackTop = 0x61000;
inline constexpr std::uint32_t kExecTargets = 0xF80000, kDosTargets = 0xF90000,
                               kTimerTargets = 0xFA0000;
inline constexpr unsigned kExecLvos = 100, kDosLvos = 30, kTimerLvos = 8;
// ExecBase's list headers (exec/execbase.h).
inline constexpr std::uint32_t kResourceList = kExec + 336, kDeviceList = kExec + 350,
                               kLibList = kExec + 378, kTaskReady = kExec + 406,
                               kTaskWait = kExec + 420;
// Names.
inline constexpr std::uint32_t kExecName = 0x1000, kDosName = 0x1010, kTimerName = 0x1020,
                               kCiaName = 0x1030, kMainName = 0x1040, kWorkerName = 0x1048,
                               kHelperName = 0x1050, kExecId = 0x1060, kTag1Name = 0x1090,
                               kTag2Name = 0x10A0;
} // namespace layout

inline GuestImage standardImage() {
    using namespace layout;
    GuestImage g;
    g.str(kExecName, "exec.library");
    g.str(kDosName, "dos.library");
    g.str(kTimerName, "timer.device");
    g.str(kCiaName, "cia.resource");
    g.str(kMainName, "main");
    g.str(kWorkerName, "worker");
    g.str(kHelperName, "helper");
    g.str(kExecId, "exec 40.10 (1.1.93)\r\n");
    g.str(kTag1Name, "romtag.one");
    g.str(kTag2Name, "romtag.two");

    g.l(4, kExec);
    g.library(kExec, 9, kExecName, 40, kExecLvos, kExecTargets);
    g.w(kExec + 18, 632);     // lib_PosSize: sizeof(struct ExecBase), V39
    g.l(kExec + 24, kExecId); // lib_IdString
    g.w(kExec + 34, 1);       // SoftVer
    g.l(kExec + 38, ~kExec);  // ChkBase
    g.l(kExec + 54, kSysStkUpper);
    g.l(kExec + 58, kSysStkLower);
    g.l(kExec + 276, kMain); // ThisTask
    g.l(kExec + 300, kResModules);
    g.b(kExec + 530, 50); // VBlankFrequency
    g.b(kExec + 531, 50); // PowerSupplyFrequency
    // GetCC (-528) is MOVE SR,D0; RTS in the table itself, as on a 68000.
    g.w(kExec - 528, 0x40C0);
    g.w(kExec - 526, 0x4E75);
    g.w(kExec - 524, 0);
    for (std::uint32_t list : {kResourceList, kDeviceList, kLibList, kTaskReady, kTaskWait})
        g.initList(list);

    g.library(kDos, 9, kDosName, 40, kDosLvos, kDosTargets);
    g.library(kTimer, 3, kTimerName, 40, kTimerLvos, kTimerTargets);
    g.library(kCia, 8, kCiaName, 39, 4, 0xFB0000);
    g.addTail(kLibList, kExec);
    g.addTail(kLibList, kDos);
    g.addTail(kDeviceList, kTimer);
    g.addTail(kResourceList, kCia);

    g.task(kWorker, 1, kWorkerName, 4, 5, 0x62000, 0x63000);
    g.task(kHelper, 13, kHelperName, 3, 0, 0x64000, 0x65000);
    g.task(kMain, 13, kMainName, 2, 1, kMainStack, kMainStackTop);
    g.addTail(kTaskWait, kWorker);
    g.addTail(kTaskReady, kHelper);

    g.l(kResModules, kRomTag1);
    g.l(kResModules + 4, 0x80000000u | kResModules2);
    g.l(kResModules2, kRomTag2);
    g.l(kResModules2 + 4, 0);
    g.romTag(kRomTag1, kTag1Name, 9, 120);
    g.romTag(kRomTag2, kTag2Name, 3, -5);
    return g;
}

} // namespace copperline::test
