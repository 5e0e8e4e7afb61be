// SPDX-License-Identifier: GPL-3.0-or-later
// The AmigaOS reader on the AROS ROM, booted headless: on the "Waiting for bootable media"
// screen (30 emulated seconds) and booted from a floppy into its shell, where dos.library
// has started too. The jump tables it reads are checked against the function tables in
// the ROM images themselves, found by scanning the ROM files for their RomTags here in the
// test, without the reader, so the reader is not compared with itself. Then the booted
// system's structures are damaged at random, and every read must still return.

#include "emu/machine.h"
#include "emu/media/ofs.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/code_namer.h"

#include <QtTest>
#include <algorithm>
#include <memory>
#include <random>

using namespace copperline;

namespace {

// ---- the ROM images, read directly -------------------------------------------------------

struct RomFiles {
    RomImage kick = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin");
    RomImage ext = loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin");

    const std::vector<std::uint8_t>* image(std::uint32_t a, std::uint32_t& offset) const {
        if (a >= 0xF80000 && a < 0x1000000) return offset = a - 0xF80000, &kick.bytes;
        if (a >= 0xE00000 && a < 0xE80000) return offset = a - 0xE00000, &ext.bytes;
        return nullptr;
    }
    bool inRom(std::uint32_t a) const {
        std::uint32_t o;
        return image(a, o) != nullptr;
    }
    std::uint8_t b(std::uint32_t a) const {
        std::uint32_t o = 0;
        const auto* img = image(a, o);
        return img && o < img->size() ? (*img)[o] : 0;
    }
    std::uint16_t w(std::uint32_t a) const { return std::uint16_t(b(a) << 8 | b(a + 1)); }
    std::uint32_t l(std::uint32_t a) const { return std::uint32_t(w(a)) << 16 | w(a + 2); }
    std::string str(std::uint32_t a) const {
        std::string s;
        while (b(a) && s.size() < 64)
            s += char(b(a++));
        return s;
    }

    // A RomTag (exec/resident.h) is $4AFC followed by a pointer to itself.
    std::uint32_t romTag(const std::string& name) const {
        for (std::uint32_t base : {0xF80000u, 0xE00000u})
            for (std::uint32_t a = base; a < base + 0x80000 - 26; a += 2)
                if (w(a) == 0x4AFC && l(a + 2) == a && str(l(a + 14)) == name) return a;
        return 0;
    }

    // The function table a library is made from, entry n for LVO -6(n+1), 0 for a vector
    // the ROM leaves empty. An RTF_AUTOINIT RomTag's rt_Init points to {data size,
    // function table, data init, init routine}, and the table is absolute pointers ending
    // with -1 (exec/resident.h, MakeLibrary). exec and dos start without RTF_AUTOINIT; their
    // tables are the same -1-terminated arrays, which AROS's build places in the 4 KiB
    // before the RomTag.
    std::vector<std::uint32_t> functionTable(std::uint32_t tag) const {
        std::uint32_t table = 0;
        if (b(tag + 10) & 0x80) {
            table = l(l(tag + 22) + 4);
        } else {
            for (std::uint32_t a = tag - 4; a > tag - 4096 && !table; a -= 2) {
                if (l(a) != 0xFFFFFFFF) continue;
                std::uint32_t start = a;
                while (inRom(l(start - 4)) || l(start - 4) == 0)
                    start -= 4;
                if ((a - start) / 4 >= 100) table = start;
            }
        }
        std::vector<std::uint32_t> out;
        if (!table) return out;
        for (std::uint32_t a = table; l(a) != 0xFFFFFFFF && out.size() < 1024; a += 4)
            out.push_back(l(a));
        return out;
    }
};

const RomFiles& romFiles() {
    static const RomFiles files;
    return files;
}

std::unique_ptr<Machine> arosMachine() {
    auto m = std::make_unique<Machine>();
    m->setRom(romFiles().kick);
    m->setExtRom(romFiles().ext);
    m->powerOn();
    return m;
}

const AmigaOsLibrary* find(const std::vector<AmigaOsLibrary>& list, const std::string& name) {
    for (const AmigaOsLibrary& l : list)
        if (l.name == name) return &l;
    return nullptr;
}

std::uint32_t spyLong(const Machine& m, std::uint32_t a) {
    return std::uint32_t(m.spyWord(a)) << 16 | m.spyWord(a + 2);
}

std::optional<std::uint32_t> target(const AmigaOsLibrary& lib, int lvo) {
    for (const AmigaOsLvo& e : lib.lvos)
        if (e.lvo == lvo) return e.target;
    return std::nullopt;
}

struct Agreement {
    int same = 0, differ = 0, empty = 0;
    std::vector<int> differing; // LVOs
};

// The live jump table against the ROM's function table, entry by entry.
Agreement compare(const AmigaOsLibrary& lib, const std::vector<std::uint32_t>& table) {
    Agreement a;
    for (std::size_t n = 0; n < table.size(); ++n) {
        if (table[n] == 0) {
            ++a.empty;
            continue;
        }
        const int lvo = -6 * int(n + 1);
        if (target(lib, lvo) == table[n]) {
            ++a.same;
        } else {
            ++a.differ;
            a.differing.push_back(lvo);
        }
    }
    return a;
}

// The stack fields against ExecBase and ThisTask read here with the machine's own reads.
void checkStackFields(const Machine& m, const AmigaOsSnapshot& s) {
    const std::uint32_t exec = spyLong(m, 4);
    const nlohmann::json j = stackFieldsJson(s);
    QCOMPARE(j["systemStackUpper"].get<std::uint32_t>(), spyLong(m, exec + 54));
    QCOMPARE(j["systemStackLower"].get<std::uint32_t>(), spyLong(m, exec + 58));
    const std::uint32_t thisTask = spyLong(m, exec + 276);
    if (s.thisTask) {
        QCOMPARE(s.thisTask->address, thisTask);
        QCOMPARE(j["stackLower"].get<std::uint32_t>(), spyLong(m, thisTask + 58));
        QCOMPARE(j["stackUpper"].get<std::uint32_t>(), spyLong(m, thisTask + 62));
    } else {
        QCOMPARE(j["stackLower"], 0);
        QCOMPARE(j["stackUpper"], 0);
        QVERIFY(std::any_of(s.problems.begin(), s.problems.end(),
                            [](const AmigaOsProblem& p) { return p.where == "ThisTask"; }));
    }
}

// A view of a machine's RAM copied out, which the test damages, and the ROMs.
class CopiedView final : public MemoryView {
public:
    explicit CopiedView(const Machine& m) {
        const MachineMemoryView live(m);
        for (const MemoryRange& r : live.ranges()) {
            ranges_.push_back(r);
            std::vector<std::uint8_t> bytes(r.end - r.start);
            for (std::uint32_t a = r.start; a < r.end; ++a)
                bytes[a - r.start] = *live.byte(a);
            data_.push_back(std::move(bytes));
        }
    }
    std::span<const MemoryRange> ranges() const override { return ranges_; }
    std::uint8_t* at(std::uint32_t a) {
        for (std::size_t i = 0; i < ranges_.size(); ++i)
            if (ranges_[i].isRam() && ranges_[i].contains(a, 1))
                return &data_[i][a - ranges_[i].start];
        return nullptr;
    }
    mutable std::uint64_t reads = 0;

private:
    std::uint8_t byteAt(std::uint32_t a) const override {
        ++reads;
        for (std::size_t i = 0; i < ranges_.size(); ++i)
            if (ranges_[i].contains(a, 1)) return data_[i][a - ranges_[i].start];
        return 0;
    }
    std::vector<MemoryRange> ranges_;
    std::vector<std::vector<std::uint8_t>> data_;
};

} // namespace

class TestAmigaOsAros : public QObject {
    Q_OBJECT
    std::unique_ptr<Machine> booted_;
    AmigaOsSnapshot bootedOs_;

private slots:
    void initTestCase() {
        // Booted from a floppy whose Startup-Sequence is empty: AROS starts dos.library
        // from its boot strap and stands in its shell.
        booted_ = arosMachine();
        ofs::Volume volume;
        volume.files.push_back({"S/Startup-Sequence", {}});
        booted_->insertDisk(0, ofs::writeVolume(volume));
        while (booted_->emulatedSeconds() < 60) {
            for (int i = 0; i < 50; ++i)
                booted_->runFrame();
            bootedOs_ = readAmigaOs(*booted_);
            if (find(bootedOs_.libraries, "dos.library")) break;
        }
        QVERIFY2(find(bootedOs_.libraries, "dos.library"), "dos.library did not start within 60 s");
        for (int i = 0; i < 100; ++i)
            booted_->runFrame();
        bootedOs_ = readAmigaOs(*booted_);
    }

    void waitingForBootableMedia() {
        auto m = arosMachine();
        while (m->emulatedSeconds() < 30)
            m->runFrame();
        const AmigaOsSnapshot s = readAmigaOs(*m);
        QVERIFY(s.exec);
        // ExecBase as the machine's own reads see it: the pointer at 4 and its complement.
        QCOMPARE(s.exec->base, spyLong(*m, 4));
        QCOMPARE(spyLong(*m, s.exec->base + 38), ~s.exec->base);
        QCOMPARE(int(s.romRanges.size()), 2);
        QCOMPARE(s.romRanges[0].name, std::string("extension"));
        QCOMPARE(s.romRanges[0].start, 0xE00000u);
        QCOMPARE(s.romRanges[1].name, std::string("kickstart"));
        QCOMPARE(s.romRanges[1].end, 0x1000000u);
        for (const char* name :
             {"exec.library", "graphics.library", "intuition.library", "utility.library"})
            QVERIFY2(find(s.libraries, name), name);
        // dos.library starts only when there is something to boot from.
        QVERIFY(!find(s.libraries, "dos.library"));
        QVERIFY(find(s.devices, "timer.device"));
        QVERIFY(find(s.devices, "trackdisk.device"));
        QVERIFY(find(s.resources, "cia"
                                  "a.resource"));
        // The A501 card's clock, which comes with slow RAM (emu/chipset/rtc.h): AROS finds it,
        // and allocates its base where FS-UAE 3.1.66's A500 (512K + 512K, the same ROM files,
        // its debugger's memory dump) has it: everything AROS allocates after it sits where
        // FS-UAE's does (docs/chipset.md, ham_mode).
        const AmigaOsLibrary* clock = find(s.resources, "battclock.resource");
        QVERIFY(clock);
        QCOMPARE(clock->base, 0xC21F34u);
        checkStackFields(*m, s);

        // exec's resident module is the RomTag the ROM scan finds, with its version.
        const std::uint32_t tag = romFiles().romTag("exec.library");
        QVERIFY(tag);
        const auto r =
            std::find_if(s.residents.begin(), s.residents.end(),
                         [](const AmigaOsResident& x) { return x.name == "exec.library"; });
        QVERIFY(r != s.residents.end());
        QCOMPARE(r->address, tag);
        QCOMPARE(r->version, romFiles().b(tag + 11));
        QCOMPARE(r->init, romFiles().l(tag + 22));
        QCOMPARE(find(s.libraries, "exec.library")->version, std::uint16_t(r->version));
        QVERIFY(s.residents.size() > 40);
    }

    // Without slow RAM there is no clock, and $DC0000 mirrors the custom registers, which
    // AROS's battclock.resource recognises: it does not start. (AROS needs 1M of chip RAM
    // when there is no slow RAM.)
    void noClockWithoutSlowRam() {
        Machine::Config c;
        c.chipRamBytes = 1u << 20;
        c.slowRamBytes = 0;
        Machine m(c);
        m.setRom(romFiles().kick);
        m.setExtRom(romFiles().ext);
        m.powerOn();
        while (m.emulatedSeconds() < 30)
            m.runFrame();
        const AmigaOsSnapshot s = readAmigaOs(m);
        QVERIFY(find(s.devices, "timer.device"));
        QVERIFY(!find(s.resources, "battclock.resource"));
    }

    void namesTheSystemLibrariesWithTheirLvoTargets() {
        const AmigaOsSnapshot& s = bootedOs_;
        QVERIFY(s.exec);
        for (const char* name :
             {"exec.library", "dos.library", "graphics.library", "intuition.library"}) {
            const AmigaOsLibrary* lib = find(s.libraries, name);
            QVERIFY2(lib, name);
            QVERIFY(lib->negSize > 900);
            QCOMPARE(int(lib->lvos.size()), lib->negSize / 6);
            QVERIFY(lib->lvos.front().target);
        }
        checkStackFields(*booted_, s);
        QCOMPARE(stackFieldsJson(readExecAndThisTask(MachineMemoryView(*booted_))),
                 stackFieldsJson(s));
        QVERIFY(std::any_of(s.waitingTasks.begin(), s.waitingTasks.end(),
                            [](const AmigaOsTask& t) { return t.name == "input.device"; }));
        QVERIFY(std::any_of(s.waitingTasks.begin(), s.waitingTasks.end(),
                            [](const AmigaOsTask& t) { return t.process; }));

        const nlohmann::json j = romSymbolsJson(s);
        QCOMPARE(j["exec_base"], s.exec->base);
        const auto& libs = j["libraries"];
        const auto exec = std::find_if(libs.begin(), libs.end(), [](const nlohmann::json& l) {
            return l["name"] == "exec.library";
        });
        QVERIFY(exec != libs.end());
        QCOMPARE((*exec)["lvos"][32]["lvo"], -198);
        QVERIFY((*exec)["lvos"][32]["target"].is_number());
        QCOMPARE(romSymbolsJson(romSymbolsFromJson(nlohmann::json::parse(j.dump()))), j);
    }

    void jumpTablesAgreeWithTheRomsFunctionTables() {
        const AmigaOsSnapshot& s = bootedOs_;
        const RomFiles& rom = romFiles();
        // graphics and intuition: RTF_AUTOINIT, and nothing has patched them at this point:
        // every vector the ROM fills is the live jump table's.
        for (const char* name : {"graphics.library", "intuition.library"}) {
            const std::vector<std::uint32_t> table = rom.functionTable(rom.romTag(name));
            QVERIFY2(table.size() > 140, name);
            const Agreement a = compare(*find(s.libraries, name), table);
            QVERIFY2(a.differ == 0, name);
            QVERIFY(a.same > 140);
        }
        const auto gfx = rom.functionTable(rom.romTag("graphics.library"));
        QCOMPARE(target(*find(s.libraries, "graphics.library"), -270), gfx[270 / 6 - 1]); // WaitTOF
        const auto intuition = rom.functionTable(rom.romTag("intuition.library"));
        QCOMPARE(target(*find(s.libraries, "intuition.library"), -204),
                 intuition[204 / 6 - 1]); // OpenWindow

        // exec and dos: AROS replaces some vectors after MakeFunctions (SetFunction: by the
        // time the shell runs, lddemon.resource has taken OpenLibrary and CloseLibrary), so
        // most agree, the central exec functions among them.
        const auto mostAgree = [&](const char* name, const std::vector<std::uint32_t>& table) {
            const Agreement a = compare(*find(s.libraries, name), table);
            return table.size() > 150 && a.same * 4 >= (a.same + a.differ) * 3;
        };
        const auto execTable = rom.functionTable(rom.romTag("exec.library"));
        const AmigaOsLibrary& exec = *find(s.libraries, "exec.library");
        QVERIFY(mostAgree("exec.library", execTable));
        for (int lvo :
             {-132 /* Forbid */, -198 /* AllocMem */, -210 /* FreeMem */, -294 /* FindTask */,
              -318 /* Wait */, -324 /* Signal */, -408 /* OldOpenLibrary */})
            QCOMPARE(target(exec, lvo), execTable[-lvo / 6 - 1]);

        const auto dosTable = rom.functionTable(rom.romTag("dos.library"));
        QVERIFY(mostAgree("dos.library", dosTable));
        const Agreement d = compare(*find(s.libraries, "dos.library"), dosTable);
        // AROS replaces dos's classic vectors (up to -222, Delay and its neighbours); the
        // functions AmigaDOS 2.0 added from -228 on all stand as the ROM made them.
        for (int lvo : d.differing)
            QVERIFY2(lvo >= -222, qPrintable(QString::number(lvo)));
        QVERIFY(d.differ > 0);

        // GetCC is MOVE SR,D0 in the table itself (exec/execbase.h: 68000 only), not a JMP.
        const auto getCC = std::find_if(exec.lvos.begin(), exec.lvos.end(),
                                        [](const AmigaOsLvo& x) { return x.lvo == -528; });
        QCOMPARE(getCC->opcode, booted_->spyWord(exec.base - 528));
        QVERIFY(getCC->opcode != 0x4EF9 && !getCC->target);
    }

    void namesRomAddresses() {
        const CodeNamer namer(readCodeModules(MachineMemoryView(*booted_), true));
        const RomFiles& rom = romFiles();
        const auto execTable = rom.functionTable(rom.romTag("exec.library"));
        const std::uint32_t allocMem = execTable[198 / 6 - 1];
        QCOMPARE(namer.name(allocMem).label(), std::string("[Kick]exec/AllocMem"));
        QCOMPARE(namer.name(allocMem + 2).label(), std::string("[Kick]exec/AllocMem"));
        QCOMPARE(namer.name(allocMem + 2).functionStart, allocMem);
        QCOMPARE(namer.name(execTable[294 / 6 - 1] + 8).label(), std::string("[Kick]exec/FindTask"));
        const auto gfx = rom.functionTable(rom.romTag("graphics.library"));
        QCOMPARE(namer.name(gfx[270 / 6 - 1]).label(), std::string("[Kick]graphics/WaitTOF"));
        const auto intuition = rom.functionTable(rom.romTag("intuition.library"));
        QCOMPARE(namer.name(intuition[204 / 6 - 1]).label(), std::string("[Kick]intuition/OpenWindow"));
        const auto dos = rom.functionTable(rom.romTag("dos.library"));
        QCOMPARE(namer.name(dos[1014 / 6 - 1]).label(), std::string("[Kick]dos/ScanVars"));
        QVERIFY(!namer.name(bootedOs_.exec->base).known()); // RAM that no module holds
        // Every address of the ROM that a resident module holds is named by it at least.
        for (const AmigaOsResident& r : bootedOs_.residents) {
            if (r.endSkip <= r.address || r.address < 0xF80000) continue;
            const CodeName n = namer.name(r.endSkip - 2);
            QVERIFY2(n.known() && n.module != "[Kickstart]", r.name.c_str());
        }
        // The same first instructions from profile.json's rom_symbols, read back.
        const CodeNamer fromJson(codeModulesFromSnapshot(romSymbolsFromJson(romSymbolsJson(bootedOs_))));
        QCOMPARE(fromJson.name(allocMem).label(), std::string("[Kick]exec/AllocMem"));
        // AROS's interrupt servers are read and named.
        std::size_t servers = 0;
        for (const CodeModule& m : namer.modules()) servers += m.kind == CodeModuleKind::Interrupt;
        QVERIFY(servers > 0);
    }

    void setFunctionShowsInTheJumpTable() {
        // What SetFunction() does to the vector: a new JMP address, written here directly.
        const std::uint32_t slot = bootedOs_.exec->base - 198 + 2;
        const std::uint32_t before = spyLong(*booted_, slot);
        const auto poke = [&](std::uint32_t v) {
            for (int k = 0; k < 4; ++k)
                booted_->pokeByte(slot + k, std::uint8_t(v >> (24 - 8 * k)));
        };
        poke(0x00C01234);
        const AmigaOsSnapshot s = readAmigaOs(*booted_);
        poke(before);
        QCOMPARE(target(*find(s.libraries, "exec.library"), -198),
                 std::optional<std::uint32_t>(0xC01234));
        QCOMPARE(target(*find(readAmigaOs(*booted_).libraries, "exec.library"), -198),
                 std::optional<std::uint32_t>(before));
    }

    void damagedArosMemoryNeverCrashes() {
        // Random values written over the booted system's own nodes, names and tables.
        CopiedView view(*booted_);
        std::vector<std::uint32_t> targets{bootedOs_.exec->base};
        for (const auto* list : {&bootedOs_.libraries, &bootedOs_.devices, &bootedOs_.resources})
            for (const AmigaOsLibrary& l : *list)
                targets.push_back(l.base);
        for (const auto* list : {&bootedOs_.readyTasks, &bootedOs_.waitingTasks})
            for (const AmigaOsTask& t : *list)
                targets.push_back(t.address);
        std::mt19937 rng(500);
        int withProblems = 0;
        for (int i = 0; i < 400; ++i) {
            std::vector<std::pair<std::uint8_t*, std::uint8_t>> saved;
            const int changes = 1 + int(rng() % 8);
            for (int k = 0; k < changes; ++k) {
                const std::uint32_t a = targets[rng() % targets.size()] + (rng() % 640) - 40;
                const std::uint32_t v =
                    rng() % 3 == 0 ? targets[rng() % targets.size()] : std::uint32_t(rng());
                for (int n = 0; n < 4; ++n)
                    if (std::uint8_t* p = view.at((a & ~1u) + n)) {
                        saved.emplace_back(p, *p);
                        *p = std::uint8_t(v >> (24 - 8 * n));
                    }
            }
            view.reads = 0;
            const AmigaOsSnapshot s = readAmigaOs(view);
            withProblems += !s.problems.empty();
            QVERIFY(view.reads < 2'000'000);
            QVERIFY(!romSymbolsJson(s).dump().empty());
            for (auto it = saved.rbegin(); it != saved.rend(); ++it)
                *it->first = it->second;
        }
        QVERIFY2(withProblems > 40, qPrintable(QString::number(withProblems)));
        // Undamaged again, it reads as before.
        QCOMPARE(romSymbolsJson(readAmigaOs(view)), romSymbolsJson(bootedOs_));
    }
};

QTEST_GUILESS_MAIN(TestAmigaOsAros)
#include "test_amigaos_aros.moc"
