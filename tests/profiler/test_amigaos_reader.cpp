// SPDX-License-Identifier: GPL-3.0-or-later
// The AmigaOS reader on systems built by hand in a Machine's chip RAM: what it reads from
// a well-formed system, the source document's rules for the four stack fields, and lists
// that are circular, broken or random, which must end in a list of problems, never in a
// crash or an endless walk. Also the LVO names, the ROM namer and rom_symbols read back.

#include "amigaos_guest_image.h"
#include "emu/machine.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/lvo_names.h"
#include "profiler/amigaos/code_namer.h"

#include <QtTest>
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <random>

using namespace copperline;
using namespace copperline::test;
using namespace copperline::test::layout;

namespace {

// A machine with its ROM overlay off, as after a Kickstart's first instructions (with the
// overlay on, the bottom of chip RAM shows the ROM), holding `g` in its chip RAM.
std::unique_ptr<Machine> machineWith(const GuestImage& g) {
    auto m = std::make_unique<Machine>();
    const std::uint8_t braSelf[] = {0x60, 0xFE};
    m->bootBareMetal(braSelf);
    std::memcpy(m->chipRam().data(), g.chip.data(),
                std::min<std::size_t>(g.chip.size(), m->chipRam().size()));
    return m;
}

AmigaOsSnapshot readImage(const GuestImage& g) {
    return readAmigaOs(*machineWith(g));
}

bool hasProblem(const AmigaOsSnapshot& s, const std::string& where, const std::string& fragment) {
    return std::any_of(s.problems.begin(), s.problems.end(), [&](const AmigaOsProblem& p) {
        return p.where.find(where) != std::string::npos &&
               p.what.find(fragment) != std::string::npos;
    });
}

std::string problemsText(const AmigaOsSnapshot& s) {
    std::string t;
    for (const AmigaOsProblem& p : s.problems)
        t += p.where + ": " + p.what + "\n";
    return t;
}

const AmigaOsLibrary* find(const std::vector<AmigaOsLibrary>& list, const std::string& name) {
    for (const AmigaOsLibrary& l : list)
        if (l.name == name) return &l;
    return nullptr;
}

// What every read must satisfy, whatever memory held: the limits are kept and the work
// is bounded. With the default limits a read touches at most about 1.3 million bytes
// (5 lists of 512 nodes with two names each, 32,768 jump table entries, 512 RomTags).
void checkBounded(const AmigaOsSnapshot& s, const CountingView& view,
                  const AmigaOsReadLimits& lim) {
    QVERIFY(s.problems.size() <= lim.maxProblems);
    for (const auto* list : {&s.readyTasks, &s.waitingTasks})
        QVERIFY(list->size() <= lim.maxListNodes);
    std::size_t lvos = 0;
    for (const auto* list : {&s.libraries, &s.devices, &s.resources}) {
        QVERIFY(list->size() <= lim.maxListNodes);
        for (const AmigaOsLibrary& l : *list) {
            QVERIFY(l.lvos.size() <= lim.maxLvos);
            QVERIFY(l.name.size() <= 2 * lim.maxNameLength);
            lvos += l.lvos.size();
        }
    }
    QVERIFY(lvos <= lim.maxTotalLvos);
    QVERIFY(s.residents.size() <= lim.maxResidents);
    QCOMPARE(view.unbacked, std::uint64_t(0));
    QVERIFY2(view.reads < 2'000'000, qPrintable(QString::number(view.reads)));
    // Whatever was read can be written as JSON (names are valid UTF-8).
    QVERIFY(!romSymbolsJson(s).dump().empty());
    QVERIFY(!stackFieldsJson(s).dump().empty());
}

} // namespace

class TestAmigaOsReader : public QObject {
    Q_OBJECT
private slots:
    void memoryViewBacksOnlyTheMachinesMemory() {
        const auto machine = machineWith(GuestImage{});
        Machine& m = *machine;
        const MachineMemoryView v(m);
        QCOMPARE(int(v.ranges().size()), 2); // no ROM fitted: chip and slow RAM
        QVERIFY(v.inRam(0, 512 * 1024));
        QVERIFY(!v.backed(0x80000));    // a chip RAM mirror
        QVERIFY(!v.backed(0x7FFFE, 4)); // runs past the end of chip RAM
        QVERIFY(v.inRam(0xC00000, 512 * 1024));
        QVERIFY(!v.backed(0xC80000));
        QVERIFY(!v.backed(0xDFF000)); // custom registers
        QVERIFY(!v.backed(0xBFE001)); // CIA-A
        QVERIFY(!v.backed(0xF80000)); // no Kickstart
        QVERIFY(!v.longword(0xDFF004));
        m.pokeByte(0x1234, 0x12);
        m.pokeByte(0x1235, 0x34);
        m.pokeByte(0x1236, 0x56);
        m.pokeByte(0x1237, 0x78);
        QCOMPARE(*v.longword(0x1234), 0x12345678u);
        QCOMPARE(*v.word(0x1235), std::uint16_t(0x3456));
        QCOMPARE(*v.byte(0x1237), std::uint8_t(0x78));

        Machine::Config c;
        c.slowRamBytes = 0;
        Machine bare(c);
        std::vector<std::uint8_t> rom(512 * 1024, 0);
        rom[0] = 0x11, rom[1] = 0x14, rom[2] = 0x4E, rom[3] = 0xF9; // $1114, JMP
        rom[100] = 0xAB;
        rom[512 * 1024 - 0x14 + 1] = 0x08; // its size, $00080000, where a Kickstart's footer has it
        bare.setRom(romFromBytes(rom, "test.rom"));
        const MachineMemoryView bv(bare);
        QCOMPARE(int(bv.ranges().size()), 2); // chip RAM and the Kickstart
        QVERIFY(!bv.backed(0xC00000));
        QVERIFY(bv.inRom(0xF80000, 512 * 1024));
        QCOMPARE(*bv.byte(0xF80000 + 100), std::uint8_t(0xAB));
        QVERIFY(!bv.backed(0xE00000)); // no extension ROM
    }

    void bufferViewRefusesOverlaps() {
        BufferMemoryView v;
        v.add(MemoryKind::SlowRam, 0xC00000, std::vector<std::uint8_t>(16, 1));
        v.add(MemoryKind::ChipRam, 0, std::vector<std::uint8_t>(16, 2));
        QCOMPARE(v.ranges()[0].kind, MemoryKind::ChipRam); // kept in address order
        QCOMPARE(*v.byte(0xC0000F), std::uint8_t(1));
        QVERIFY(!v.byte(0xC00010));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 v.add(MemoryKind::ChipRam, 8, std::vector<std::uint8_t>(16)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 v.add(MemoryKind::Rom, 0xFFFFF0, std::vector<std::uint8_t>(32)));
    }

    // The sampler's lean read: ExecBase only when ChkBase is its complement, ThisTask
    // plausible only when it is an even pointer to a Task's worth of RAM, the nesting
    // counts as bytes; garbage gives nothing and never reads outside memory.
    void execTaskFieldsOfGoodAndGarbageMemory() {
        std::vector<std::uint8_t> ram(64 * 1024, 0);
        const auto put32 = [&ram](std::uint32_t a, std::uint32_t v) {
            for (int i = 0; i < 4; ++i) ram[a + i] = std::uint8_t(v >> (24 - 8 * i));
        };
        const std::uint32_t exec = 0x1000, task = 0x2000, name = 0x3000;
        put32(4, exec);
        put32(exec + 38, ~exec);
        put32(exec + 276, task);
        ram[exec + 294] = 0;    // IDNestCnt: one Disable()
        ram[exec + 295] = 0xFF; // TDNestCnt: no Forbid()
        put32(task + 10, name);
        const char text[] = "worker";
        std::copy(text, text + sizeof text, ram.begin() + name);
        const auto view = [&ram] {
            BufferMemoryView v;
            v.add(MemoryKind::ChipRam, 0, ram);
            return v;
        };
        {
            const BufferMemoryView v = view();
            const ExecTaskFields f = readExecTaskFields(v);
            QCOMPARE(f.exec.value_or(0), exec);
            QCOMPARE(f.thisTask, task);
            QVERIFY(f.taskPlausible);
            QCOMPARE(f.idNestCnt, std::int8_t(0));
            QCOMPARE(f.tdNestCnt, std::int8_t(-1));
            QCOMPARE(readTaskName(v, task), std::string("worker"));
        }
        put32(exec + 276, task + 1); // odd
        QVERIFY(!readExecTaskFields(view()).taskPlausible);
        put32(exec + 276, 0xFFFF00); // not RAM
        QVERIFY(!readExecTaskFields(view()).taskPlausible);
        QCOMPARE(readTaskName(view(), 0xFFFF00), std::string());
        put32(name, 0x01020304); // unprintable
        QCOMPARE(readTaskName(view(), task), std::string());
        put32(exec + 38, exec); // ChkBase wrong
        QVERIFY(!readExecTaskFields(view()).exec);
        put32(4, 0xFFF1); // odd ExecBase
        QVERIFY(!readExecTaskFields(view()).exec);
        put32(4, 0xFFFFF0); // ExecBase beyond memory
        QVERIFY(!readExecTaskFields(view()).exec);
    }

    void readsAWellFormedSystem() {
        const AmigaOsSnapshot s = readImage(standardImage());
        QVERIFY2(s.problems.empty(), problemsText(s).c_str());
        QVERIFY(s.romRanges.empty()); // the test machine has no ROM
        QVERIFY(s.exec);
        QCOMPARE(s.exec->base, kExec);
        QCOMPARE(s.exec->version, std::uint16_t(40));
        QCOMPARE(s.exec->revision, std::uint16_t(1));
        QCOMPARE(s.exec->softVer, std::uint16_t(1));
        QCOMPARE(s.exec->sysStkLower, kSysStkLower);
        QCOMPARE(s.exec->sysStkUpper, kSysStkUpper);
        QCOMPARE(s.exec->vblankFrequency, std::uint8_t(50));

        QVERIFY(s.thisTask);
        QCOMPARE(s.thisTask->name, std::string("main"));
        QVERIFY(s.thisTask->process);
        QCOMPARE(s.thisTask->state, std::uint8_t(2));
        QCOMPARE(std::string(taskStateName(s.thisTask->state)), std::string("run"));
        QCOMPARE(s.thisTask->priority, std::int8_t(1));
        QCOMPARE(s.thisTask->spLower, kMainStack);
        QCOMPARE(s.thisTask->spUpper, kMainStackTop);
        QCOMPARE(s.thisTask->spReg, kMainStackTop - 64);
        QCOMPARE(int(s.waitingTasks.size()), 1);
        QCOMPARE(s.waitingTasks[0].name, std::string("worker"));
        QVERIFY(!s.waitingTasks[0].process);
        QCOMPARE(s.waitingTasks[0].priority, std::int8_t(5));
        QCOMPARE(int(s.readyTasks.size()), 1);
        QCOMPARE(s.readyTasks[0].name, std::string("helper"));
        QVERIFY(s.readyTasks[0].process);

        QCOMPARE(int(s.libraries.size()), 2);
        const AmigaOsLibrary& exec = s.libraries[0];
        QCOMPARE(exec.name, std::string("exec.library"));
        QCOMPARE(exec.base, kExec);
        QCOMPARE(exec.negSize, std::uint16_t(kExecLvos * 6));
        QCOMPARE(exec.posSize, std::uint16_t(632));
        QCOMPARE(exec.idString, std::string("exec 40.10 (1.1.93)")); // CR LF trimmed
        QCOMPARE(int(exec.lvos.size()), int(kExecLvos));
        for (unsigned n = 1; n <= kExecLvos; ++n) {
            const AmigaOsLvo& e = exec.lvos[n - 1];
            QCOMPARE(e.lvo, -int(6 * n));
            if (n == 88) { // GetCC, not a JMP
                QCOMPARE(e.opcode, std::uint16_t(0x40C0));
                QVERIFY(!e.target);
            } else {
                QCOMPARE(e.opcode, std::uint16_t(0x4EF9));
                QCOMPARE(*e.target, GuestImage::lvoTarget(kExecTargets, n));
            }
        }
        QCOMPARE(s.libraries[1].name, std::string("dos.library"));
        QCOMPARE(int(s.libraries[1].lvos.size()), int(kDosLvos));
        QCOMPARE(int(s.devices.size()), 1);
        QCOMPARE(s.devices[0].name, std::string("timer.device"));
        QCOMPARE(*s.devices[0].lvos.back().target,
                 GuestImage::lvoTarget(kTimerTargets, kTimerLvos));
        QCOMPARE(int(s.resources.size()), 1);
        QCOMPARE(s.resources[0].name, std::string("cia.resource"));
        QVERIFY(s.resources[0].lvos.empty()); // no jump table is read for a resource
        QCOMPARE(s.resources[0].version, std::uint16_t(39));

        QCOMPARE(int(s.residents.size()), 2); // through the extension link
        QCOMPARE(s.residents[0].name, std::string("romtag.one"));
        QCOMPARE(s.residents[0].address, kRomTag1);
        QCOMPARE(s.residents[0].priority, std::int8_t(120));
        QCOMPARE(s.residents[0].flags, std::uint8_t(0x81));
        QCOMPARE(s.residents[0].init, kRomTag1 + 0x40);
        QCOMPARE(s.residents[1].name, std::string("romtag.two"));
        QCOMPARE(s.residents[1].priority, std::int8_t(-5));
        QCOMPARE(s.residents[1].type, std::uint8_t(3));
    }

    void thisTaskAloneIsTheFullReadsThisTask() {
        GuestImage g = standardImage();
        const auto m = machineWith(g);
        const MachineMemoryView view(*m);
        const AmigaOsSnapshot quick = readExecAndThisTask(view);
        QVERIFY(quick.exec && quick.thisTask);
        QCOMPARE(quick.thisTask->name, std::string("main"));
        QCOMPARE(stackFieldsJson(quick), stackFieldsJson(readAmigaOs(view)));
        QVERIFY(quick.libraries.empty() && quick.waitingTasks.empty() && quick.residents.empty());
        g.l(kMain + 62, 0); // an implausible ThisTask is refused the same way
        const AmigaOsSnapshot refused = readExecAndThisTask(MachineMemoryView(*machineWith(g)));
        QVERIFY(refused.exec && !refused.thisTask);
        QVERIFY(hasProblem(refused, "ThisTask", "stack"));
        g.l(kExec + 38, 0);
        QVERIFY(!readExecAndThisTask(MachineMemoryView(*machineWith(g))).exec);
    }

    void setFunctionPatchesShow() {
        GuestImage g = standardImage();
        g.l(kExec - 198 + 2, 0x00012340); // SetFunction(SysBase, -198, ...) rewrites the JMP
        const AmigaOsSnapshot s = readImage(g);
        QCOMPARE(*find(s.libraries, "exec.library")->lvos[32].target, 0x12340u);
    }

    void stackFieldsFollowTheDocumentsRules() {
        // Valid: ExecBase's system stack and ThisTask's stack.
        QCOMPARE(stackFieldsJson(readImage(standardImage())),
                 nlohmann::json({{"systemStackLower", kSysStkLower},
                                 {"systemStackUpper", kSysStkUpper},
                                 {"stackLower", kMainStack},
                                 {"stackUpper", kMainStackTop}}));
        const nlohmann::json taskZero = {{"systemStackLower", kSysStkLower},
                                         {"systemStackUpper", kSysStkUpper},
                                         {"stackLower", 0},
                                         {"stackUpper", 0}};
        const nlohmann::json allNull = {{"systemStackLower", nullptr},
                                        {"systemStackUpper", nullptr},
                                        {"stackLower", nullptr},
                                        {"stackUpper", nullptr}};
        struct Case {
            const char* name;
            std::function<void(GuestImage&)> damage;
            nlohmann::json expected;
            const char* where;
            const char* problem;
        };
        const std::vector<Case> cases = {
            {"no ThisTask", [](GuestImage& g) { g.l(kExec + 276, 0); }, taskZero, "ThisTask",
             "null"},
            {"ThisTask odd", [](GuestImage& g) { g.l(kExec + 276, kMain + 1); }, taskZero,
             "ThisTask", "not in memory"},
            {"ThisTask unbacked", [](GuestImage& g) { g.l(kExec + 276, 0xDFF000); }, taskZero,
             "ThisTask", "not in memory"},
            {"ThisTask a library", [](GuestImage& g) { g.l(kExec + 276, kDos); }, taskZero,
             "ThisTask", "ln_Type"},
            {"ThisTask without stack", [](GuestImage& g) { g.l(kMain + 62, 0); }, taskZero,
             "ThisTask", "stack"},
            {"ThisTask stack outside RAM", [](GuestImage& g) { g.l(kMain + 62, 0xA00000); },
             taskZero, "ThisTask", "stack"},
            {"ThisTask state 0", [](GuestImage& g) { g.b(kMain + 15, 0); }, taskZero, "ThisTask",
             "tc_State"},
            {"ThisTask unnamed", [](GuestImage& g) { g.l(kMain + 10, 0); }, taskZero, "ThisTask",
             "no name"},
            {"address 4 odd", [](GuestImage& g) { g.l(4, kExec + 1); }, allNull, "ExecBase", "odd"},
            {"ExecBase in the custom chips", [](GuestImage& g) { g.l(4, 0xDFF000); }, allNull,
             "ExecBase", "not in RAM"},
            {"ExecBase past chip RAM", [](GuestImage& g) { g.l(4, 0x7FF00); }, allNull, "ExecBase",
             "not in RAM"},
            {"ChkBase wrong", [](GuestImage& g) { g.l(kExec + 38, kExec); }, allNull, "ExecBase",
             "ChkBase"},
            {"not a library", [](GuestImage& g) { g.b(kExec + 8, 1); }, allNull, "ExecBase",
             "ln_Type"},
            {"another name", [](GuestImage& g) { g.str(kExecName, "exec.libraryX"); }, allNull,
             "ExecBase", "not exec.library"},
            {"no name", [](GuestImage& g) { g.l(kExec + 10, 0); }, allNull, "ExecBase", "no name"},
            {"positive size too small", [](GuestImage& g) { g.w(kExec + 18, 100); }, allNull,
             "ExecBase", "lib_PosSize"},
            {"negative size 0", [](GuestImage& g) { g.w(kExec + 16, 0); }, allNull, "ExecBase",
             "lib_NegSize"},
            {"blank memory", [](GuestImage& g) { std::fill(g.chip.begin(), g.chip.end(), 0); },
             allNull, "ExecBase", "ChkBase"},
        };
        for (const Case& c : cases) {
            GuestImage g = standardImage();
            c.damage(g);
            const AmigaOsSnapshot s = readImage(g);
            QVERIFY2(stackFieldsJson(s) == c.expected, c.name);
            QVERIFY2(hasProblem(s, c.where, c.problem),
                     qPrintable(QString(c.name) + "\n" + QString::fromStdString(problemsText(s))));
            if (c.expected == allNull) {
                QVERIFY2(s.libraries.empty() && s.residents.empty(),
                         c.name); // nothing past ExecBase
                QVERIFY(romSymbolsJson(s)["exec_base"].is_null());
            } else {
                QVERIFY2(!s.thisTask && s.libraries.size() == 2, c.name); // the rest is read
            }
        }
    }

    void brokenListsAreReported() {
        struct Case {
            const char* name;
            std::function<void(GuestImage&)> damage;
            const char* where;
            const char* problem;
            int libraries; // how many LibList entries are still read
        };
        const std::vector<Case> cases = {
            {"circular", [](GuestImage& g) { g.l(kDos + 0, kExec); }, "LibList", "circular", 2},
            {"circular on itself", [](GuestImage& g) { g.l(kExec + 0, kExec); }, "LibList",
             "circular", 1},
            {"odd successor", [](GuestImage& g) { g.l(kExec + 0, kDos + 1); }, "LibList", "odd", 1},
            {"successor in the custom chips", [](GuestImage& g) { g.l(kExec + 0, 0xDFF100); },
             "LibList", "no memory", 1},
            {"successor in a chip RAM mirror",
             [](GuestImage& g) { g.l(kExec + 0, 0x80000 + kDos); }, "LibList", "no memory", 1},
            {"ends short of the tail", [](GuestImage& g) { g.l(kDos + 0, 0); }, "LibList",
             "without reaching", 1},
            {"wrong predecessor", [](GuestImage& g) { g.l(kDos + 4, 0x1234); }, "LibList",
             "ln_Pred", 2},
            {"wrong tail predecessor", [](GuestImage& g) { g.l(kLibList + 8, kExec); }, "LibList",
             "lh_TailPred", 2},
            {"unterminated name",
             [](GuestImage& g) {
                 for (unsigned i = 0; i < 300; ++i)
                     g.b(kDosName + 0x400 + i, 'a');
                 g.l(kDos + 10, kDosName + 0x400);
             },
             "LibList", "longer than 128", 1},
            {"name running off chip RAM",
             [](GuestImage& g) {
                 g.b(0x7FFFC, 'd'), g.b(0x7FFFD, 'o'), g.b(0x7FFFE, 's'), g.b(0x7FFFF, '.');
                 g.l(kDos + 10, 0x7FFFC);
             },
             "LibList", "not there", 1},
            {"unprintable name", [](GuestImage& g) { g.b(kDosName + 2, 0x07); }, "LibList",
             "unprintable byte $07", 1},
            {"a task on the library list", [](GuestImage& g) { g.b(kDos + 8, 1); }, "LibList",
             "ln_Type is 1", 1},
            {"huge jump table", [](GuestImage& g) { g.w(kDos + 16, 60000); }, "dos.library",
             "more than 1024 functions", 2},
            {"jump table off the bottom of memory",
             [](GuestImage& g) {
                 // A library at $60 whose 20 entries would start below address 0.
                 g.library(0x60, 9, kDosName, 1, 0, 0);
                 g.w(0x60 + 16, 120);
                 g.l(kDos + 0, 0x60);
                 g.l(0x60 + 0, kLibList + 4);
                 g.l(0x60 + 4, kDos);
                 g.l(kLibList + 8, 0x60);
             },
             "dos.library", "not in memory", 3},
            {"ResModules circular",
             [](GuestImage& g) { g.l(kResModules2 + 4, 0x80000000u | kResModules); }, "ResModules",
             "links back", 2},
            {"ResModules not a RomTag", [](GuestImage& g) { g.w(kRomTag2, 0x4E75); }, "ResModules",
             "no RomTag", 2},
            {"ResModules off the end of chip RAM", [](GuestImage& g) { g.l(kExec + 300, 0x7FFFE); },
             "ResModules", "not there", 2},
        };
        for (const Case& c : cases) {
            GuestImage g = standardImage();
            c.damage(g);
            const auto m = machineWith(g);
            const MachineMemoryView view(*m);
            const CountingView counted(view);
            const AmigaOsSnapshot s = readAmigaOs(counted);
            QVERIFY2(hasProblem(s, c.where, c.problem),
                     qPrintable(QString(c.name) + "\n" + QString::fromStdString(problemsText(s))));
            QVERIFY2(int(s.libraries.size()) == c.libraries,
                     qPrintable(QString("%1: %2 libraries").arg(c.name).arg(s.libraries.size())));
            checkBounded(s, counted, {});
        }
    }

    void longListsStopAtTheLimit() {
        GuestImage g = standardImage();
        // 600 tasks on TaskWait, the walk stops at 512 nodes.
        for (unsigned i = 0; i < 600; ++i) {
            const std::uint32_t t = 0x10000 + 96 * i;
            g.task(t, 1, kWorkerName, 4, 0, 0x62000, 0x63000);
            g.addTail(kTaskWait, t);
        }
        const AmigaOsSnapshot s = readImage(g);
        QCOMPARE(int(s.waitingTasks.size()), 512);
        QVERIFY(hasProblem(s, "TaskWait", "more than 512 nodes"));
        AmigaOsReadLimits small;
        small.maxListNodes = 10;
        small.maxProblems = 1;
        const AmigaOsSnapshot t = readAmigaOs(*machineWith(g), small);
        QCOMPARE(int(t.waitingTasks.size()), 10);
        QCOMPARE(int(t.problems.size()), 1);
    }

    void latin1NamesBecomeUtf8() {
        GuestImage g = standardImage();
        g.b(kWorkerName + 1, 0xF6); // "w\xF6rker", Latin-1
        const AmigaOsSnapshot s = readImage(g);
        QCOMPARE(s.waitingTasks.at(0).name, std::string("w\xC3\xB6rker"));
    }

    void randomChipRamNeverCrashes() {
        std::mt19937 rng(1985);
        const auto machine = machineWith(GuestImage{});
        Machine& m = *machine;
        const MachineMemoryView view(m);
        for (int i = 0; i < 300; ++i) {
            std::uint8_t* ram = m.chipRam().data();
            for (std::uint32_t a = 0; a < m.chipRam().size(); a += 4) {
                const std::uint32_t v = rng();
                std::memcpy(ram + a, &v, 4);
            }
            if (i % 2) {
                // A believable ExecBase over random contents, so that the walk goes on
                // into random lists, tasks and jump tables.
                GuestImage g;
                g.l(4, kExec);
                g.node(kExec, 9, 0, kExecName);
                g.str(kExecName, "exec.library");
                g.w(kExec + 16, 600);
                g.w(kExec + 18, 632);
                g.l(kExec + 38, ~kExec);
                for (std::uint32_t a :
                     {4u, kExec + 8, kExec + 10, kExec + 16, kExec + 18, kExec + 38})
                    for (std::uint32_t k = 0; k < 4; ++k)
                        m.pokeByte(a + k, g.chip[a + k]);
                for (std::uint32_t k = 0; k < 13; ++k)
                    m.pokeByte(kExecName + k, g.chip[kExecName + k]);
            }
            const CountingView counted(view);
            const AmigaOsSnapshot s = readAmigaOs(counted);
            checkBounded(s, counted, {});
            if (i % 2) {
                QVERIFY(s.exec);
                QVERIFY(!s.problems.empty());
            } else {
                QVERIFY(!s.exec);
            }
        }
    }

    void lvoNames() {
        QCOMPARE(*knownLvoName("exec.library", -198), std::string_view("AllocMem"));
        QCOMPARE(*knownLvoName("exec.library", -552), std::string_view("OpenLibrary"));
        QCOMPARE(*knownLvoName("exec.library", -420), std::string_view("SetFunction"));
        QCOMPARE(*knownLvoName("dos.library", -30), std::string_view("Open"));
        QCOMPARE(*knownLvoName("dos.library", -150), std::string_view("LoadSeg"));
        QCOMPARE(*knownLvoName("graphics.library", -270), std::string_view("WaitTOF"));
        QCOMPARE(*knownLvoName("graphics.library", -456), std::string_view("OwnBlitter"));
        QCOMPARE(*knownLvoName("intuition.library", -204), std::string_view("OpenWindow"));
        QCOMPARE(*knownLvoName("intuition.library", -30), std::string_view("OpenIntuition"));
        QCOMPARE(*knownLvoName("layers.library", -6), std::string_view("Open"));
        QCOMPARE(*knownLvoName("timer.device", -30), std::string_view("BeginIO"));
        QCOMPARE(*knownLvoName("timer.device", -36), std::string_view("AbortIO"));
        QVERIFY(!knownLvoName("layers.library", -30));
        QVERIFY(!knownLvoName("exec.library", -6000));
        QCOMPARE(lvoName("exec.library", -6000), std::string("LVO-6000"));
        QCOMPARE(lvoName("layers.library", -30), std::string("LVO-30"));
        QCOMPARE(shortLibraryName("exec.library"), std::string_view("exec"));
        QCOMPARE(shortLibraryName("timer.device"), std::string_view("timer.device"));
        QCOMPARE(shortLibraryName(".library"), std::string_view(".library"));
    }

    void codeNamerNamesByMeasuredExtentsNeverByANeighbour() {
        CodeModule exec;
        exec.kind = CodeModuleKind::Library;
        exec.name = "exec.library";
        exec.base = 0x676;
        exec.lvos = {{-198, 0xF81000}, {-210, 0xF81100}, {-6000, 0xF82000}, {-552, 0x12340} /* patched into RAM */};
        exec.lvoEnds = {0xF81040, 0xF81180, 0xF82010, 0x12350};
        exec.start = 0x12340;
        exec.end = 0xF82010; // a hull wider than 256 KB: its functions' extents alone
        CodeModule gfx;
        gfx.kind = CodeModuleKind::Library;
        gfx.name = "graphics.library";
        gfx.base = 0x2000;
        gfx.lvos = {{-270, 0xE00100}, {-276, 0xF81100} /* shares FreeMem's code */};
        gfx.lvoEnds = {0xE00120, 0xF81180};
        gfx.start = 0xE00100;
        gfx.end = 0xF81180;
        CodeModule video;
        video.kind = CodeModuleKind::Resident;
        video.name = "amigavideo.hidd";
        video.base = 0xFD0000;
        video.start = 0xFD0000;
        video.end = 0xFE0000;
        CodeModule vblank;
        vblank.kind = CodeModuleKind::Interrupt;
        vblank.name = "VBlank server";
        vblank.base = 0x3000;
        vblank.start = 0xFD8000;
        vblank.end = 0xFD8040;
        CodeModule mathLib; // a library loaded from disk into RAM
        mathLib.kind = CodeModuleKind::Library;
        mathLib.name = "mathffp.library";
        mathLib.base = 0x40000;
        mathLib.lvos = {{-30, 0x3F000}, {-36, 0x3F100}};
        mathLib.lvoEnds = {0x3F020, 0x3F140};
        mathLib.start = 0x3F000;
        mathLib.end = 0x3F140;
        const CodeNamer n({exec, gfx, video, vblank, mathLib});
        QCOMPARE(n.name(0xF81000).label(), std::string("[Kick]exec/AllocMem"));
        QCOMPARE(n.name(0xF8103E).label(), std::string("[Kick]exec/AllocMem"));
        QCOMPARE(n.name(0xF8103E).functionStart, 0xF81000u);
        // Past AllocMem's measured end and below FreeMem: no function's, and no neighbour's.
        QCOMPARE(n.name(0xF81040).label(), std::string("[Kickstart]"));
        QCOMPARE(n.name(0xF81100).label(), std::string("[Kick]exec/FreeMem")); // exec's, read first
        QCOMPARE(n.name(0xF82004).label(), std::string("[Kick]exec/LVO-6000"));
        QCOMPARE(n.name(0xE00110).label(), std::string("[Kick]graphics/WaitTOF"));
        // In a resident module with no function there: the module alone.
        QCOMPARE(n.name(0xFDCE7E).label(), std::string("[Kick]amigavideo.hidd"));
        QCOMPARE(n.name(0xFDCE7E).function, std::string());
        // An interrupt server by its name.
        QCOMPARE(n.name(0xFD8010).label(), std::string("[Kick]VBlank server"));
        QVERIFY(n.name(0xFD8010).interrupt);
        // RAM: a library by the hull of its functions, with the function that holds it.
        QCOMPARE(n.name(0x3F104).label(), std::string("[Lib]mathffp/LVO-36"));
        QCOMPARE(n.name(0x3F030).label(), std::string("[Lib]mathffp.library"));
        QCOMPARE(n.name(0x12344).label(), std::string("[Lib]exec/OpenLibrary")); // SetFunction()ed into RAM
        QVERIFY(!n.name(0x50000).known()); // nobody's RAM
        QCOMPARE(n.name(0x50000).label(), std::string("[External]"));
        QCOMPARE(n.name(0xE80000).label(), std::string("[External]")); // between the ROMs
        // A snapshot without measured ends (an old capture's rom_symbols): first
        // instructions only.
        AmigaOsSnapshot s;
        AmigaOsLibrary lib;
        lib.name = "exec.library";
        lib.lvos = {{-198, 0x4EF9, 0xF81000}, {-528, 0x40C0, std::nullopt}};
        s.libraries = {lib};
        const CodeNamer old(codeModulesFromSnapshot(s));
        QCOMPARE(old.name(0xF81000).label(), std::string("[Kick]exec/AllocMem"));
        QCOMPARE(old.name(0xF81002).label(), std::string("[Kickstart]"));
    }

    void romSymbolsReadBack() {
        GuestImage g = standardImage();
        g.l(kDos + 0, kExec); // a problem to carry along
        const AmigaOsSnapshot s = readImage(g);
        const nlohmann::json j = romSymbolsJson(s);
        QCOMPARE(j["version"], 1);
        QCOMPARE(j["exec_base"], kExec);
        QCOMPARE(j["libraries"][0]["name"], "exec.library");
        QCOMPARE(j["libraries"][0]["lvos"][32],
                 nlohmann::json({{"lvo", -198}, {"target", 0xF80000 + 16 * 32}}));
        QCOMPARE(j["libraries"][0]["lvos"][87],
                 nlohmann::json({{"lvo", -528}, {"target", nullptr}, {"opcode", 0x40C0}}));
        QCOMPARE(j["residents"][1]["priority"], -5);
        QVERIFY(!j["problems"].empty());
        const nlohmann::json again =
            romSymbolsJson(romSymbolsFromJson(nlohmann::json::parse(j.dump())));
        QCOMPARE(again, j);

        const auto refused = [&](const std::function<void(nlohmann::json&)>& damage,
                                 const char* says) {
            nlohmann::json bad = j;
            damage(bad);
            try {
                romSymbolsFromJson(bad);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what()).find(says) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused([](nlohmann::json& b) { b["version"] = 2; }, "version 2"));
        QVERIFY(refused([](nlohmann::json& b) { b.erase("libraries"); }, "\"libraries\""));
        QVERIFY(refused([](nlohmann::json& b) { b["libraries"][0]["lvos"][0]["target"] = "x"; },
                        "target"));
        QVERIFY(refused([](nlohmann::json& b) { b["libraries"][0]["lvos"][0].erase("lvo"); },
                        "\"lvo\""));
        QVERIFY(refused([](nlohmann::json& b) { b["residents"][0]["version"] = 300; },
                        "version is out of range"));
        QVERIFY(
            refused([](nlohmann::json& b) { b["rom_ranges"] = 5; }, "rom_ranges is not an array"));
        QVERIFY(
            refused([](nlohmann::json& b) { b["exec_base"] = -1; }, "exec_base is out of range"));
        QVERIFY(refused([](nlohmann::json& b) { b = nlohmann::json::array(); }, "not an object"));
    }
};

QTEST_GUILESS_MAIN(TestAmigaOsReader)
#include "test_amigaos_reader.moc"
