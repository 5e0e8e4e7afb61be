// SPDX-License-Identifier: GPL-3.0-or-later
// Debug information from the toolchains Amiga developers use, read from their real outputs
// (tests/data/README.md): Bartman's template (m68k-amiga-elf-gcc, his elf2hunk and the ELF
// beside the executable), bebbo's amiga-gcc (stabs after the last hunk), vasm -linedebug
// and vbcc (LINE blocks; vbcc's small-data hunk), SAS/C (LINE blocks with a byte in the
// line words' top 8 bits); and our own program laid out as Bartman's elf2hunk lays it out.
// Every expected line and offset below was read from the program's own source and from
// binutils' objdump of the ELF, or from the LINE blocks' own rows.

#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/debuginfo/debug_info.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace copperline;

namespace {

const std::string kData = COPPERLINE_SOURCE_DIR "/tests/data/";

// The function (outermost frame) and the innermost frame's line at hunk:offset.
struct Answer {
    std::string function;
    std::string file; // the file's name alone
    std::uint32_t line = 0;
    bool external = true;
};
Answer at(const DebugInfo& info, std::uint32_t hunk, std::uint32_t offset) {
    Answer a;
    const AddressInfo where = info.lookup(hunk, offset);
    if (const DebugScope* f = info.function(where)) {
        a.function = f->name;
        a.external = f->external;
    }
    const auto frames = info.frames(where);
    if (!frames.empty() && frames.front().file != kNoFile) {
        a.file = std::filesystem::path(info.fileName(frames.front().file)).filename().string();
        a.line = frames.front().line;
    }
    return a;
}

std::string copyTo(const QTemporaryDir& dir, const std::string& from, const std::string& name) {
    const std::string to = dir.filePath(QString::fromStdString(name)).toStdString();
    std::filesystem::copy_file(from, to);
    return to;
}

} // namespace

class TestToolchains : public QObject {
    Q_OBJECT
private slots:
    void bartmansTemplateFindsItsElfAndPairsDespiteThePadding() {
        // a.mingw.exe beside a.mingw.elf: found by replacing the extension; his elf2hunk made
        // every hunk one longword longer than its section when the section fills whole
        // longwords (.text 1960 bytes, hunk 0 1964), which the pairing takes.
        const DebugInfo info = DebugInfo::load(kData + "bartman-template/a.mingw.exe");
        QVERIFY(info.warnings().empty());
        QCOMPARE(std::filesystem::path(info.elfPath()).filename().string(), std::string("a.mingw.elf"));
        QVERIFY(info.hasDwarf());
        QCOMPARE(info.hunks().size(), std::size_t(3));
        QCOMPARE(info.hunks()[0].size, 1964u);
        QCOMPARE(info.hunks()[0].section, std::string(".text"));
        QCOMPARE(info.hunks()[1].section, std::string(".rodata"));
        QCOMPARE(info.hunks()[2].kind, HunkKind::Bss);
        // main.c:87, LoadView(0) in TakeSystem, inlined into main: JSR -222(A6) at $1A6.
        const Answer load = at(info, 0, 0x1A6);
        QCOMPARE(load.function, std::string("main"));
        QCOMPARE(load.file, std::string("main.c"));
        QCOMPARE(load.line, 87u);
        // The path a Windows build recorded, with one kind of slash.
        const AddressInfo where = info.lookup(0, 0x1A6);
        QCOMPARE(info.fileName(info.frames(where).front().file),
                 std::string("C:/Users/bwodok/Documents/Visual_Studio_Code/amiga-debug/template/main.c"));
        QCOMPARE(at(info, 0, 0x3B4).function, std::string("WaitVbl"));
        // A file-static function (static in main.c).
        const Answer handler = at(info, 0, 0x3FA);
        QCOMPARE(handler.function, std::string("interruptHandler"));
        QVERIFY(!handler.external);
        // The padding longword names nothing.
        QCOMPARE(info.lookup(0, 0x7A8).scope, -1);
        QVERIFY(info.lookup(0, 0x7A8).inProgram);
    }

    void bartmansHunkSymbolsCarryTheirSizes() {
        // Without the ELF: his elf2hunk names each symbol "NAME@SIZE".
        DebugInfoOptions noElf;
        noElf.findSibling = false;
        const DebugInfo info = DebugInfo::load(kData + "bartman-template/a.mingw.exe", noElf);
        QVERIFY(info.elfPath().empty());
        QCOMPARE(at(info, 0, 0x74).function, std::string("main"));
        QCOMPARE(at(info, 0, 0x3B2).function, std::string("main")); // main@340: to $3B4
        QCOMPARE(at(info, 0, 0x3B4).function, std::string("WaitVbl"));
        for (const DebugScope& s : info.scopes()) QVERIFY2(s.name.find('@') == std::string::npos, s.name.c_str());
        // __mulsi3 has no size (@0): it reaches to the next symbol.
        QCOMPARE(at(info, 0, 0x6BC).function, std::string("__mulsi3"));
    }

    void aPairThatDoesNotBelongIsRefusedWithWhatDiffers() {
        QTemporaryDir tmp;
        const std::string exe = copyTo(tmp, kData + "bartman-template/a.mingw.exe", "a.mingw.exe");
        std::vector<std::uint8_t> elf = readFileBytes(kData + "bartman-template/a.mingw.elf");
        // .text lies at file offset $2000 (readelf -S); its word at offset 2 is MOVEM's mask.
        elf[0x2002] ^= 0xFF;
        const std::string stale = tmp.filePath("a.mingw.elf").toStdString();
        writeFileBytes(stale, elf);
        DebugInfoOptions named;
        named.elfPath = stale;
        try {
            (void)DebugInfo::load(exe, named);
            QFAIL("a stale ELF was paired");
        } catch (const DebugInfoError& e) {
            QVERIFY2(std::string(e.what()).find("hunk 0 differs from ELF section .text at offset 0x2") !=
                         std::string::npos,
                     e.what());
        }
        // Found beside the program, it is passed over with a warning: the hunk symbols serve.
        const DebugInfo beside = DebugInfo::load(exe);
        QVERIFY(beside.elfPath().empty());
        QCOMPARE(beside.warnings().size(), std::size_t(1));
        QVERIFY2(beside.warnings()[0].find("using the hunk symbols alone") != std::string::npos,
                 beside.warnings()[0].c_str());
        QCOMPARE(at(beside, 0, 0x1A6).function, std::string("main"));
        // Another program's ELF: its sections are not the hunks.
        named.elfPath = std::string(GUEST_C) + ".elf";
        try {
            (void)DebugInfo::load(exe, named);
            QFAIL("another program's ELF was paired");
        } catch (const DebugInfoError& e) {
            QVERIFY2(std::string(e.what()).find("does not belong to") != std::string::npos, e.what());
        }
    }

    void ourProgramInBartmansLayoutReadsAsInOurs() {
        // The same ELF converted both ways: every address of every hunk says the same.
        const DebugInfo ours = DebugInfo::load(GUEST_C);
        const DebugInfo his = DebugInfo::load(GUEST_C_BARTMAN);
        QCOMPARE(std::filesystem::path(his.elfPath()).filename().string(),
                 std::string("guest_debuginfo_c_bartman.elf"));
        QCOMPARE(his.hunks().size(), ours.hunks().size());
        const HunkFile hunks = loadHunkFile(GUEST_C_BARTMAN);
        for (std::uint32_t h = 0; h < ours.hunks().size(); ++h) {
            // (size + 4) / 4 longwords: one more than ours whenever ours is whole longwords.
            QVERIFY(his.hunks()[h].size == ours.hunks()[h].size || his.hunks()[h].size == ours.hunks()[h].size + 4);
            QVERIFY(hunks.sections[h].lineBlocks.empty());
            for (std::uint32_t o = 0; o < ours.hunks()[h].size; o += 2) {
                const Answer a = at(ours, h, o), b = at(his, h, o);
                QCOMPARE(b.function, a.function);
                QCOMPARE(b.line, a.line);
                QCOMPARE(b.file, a.file);
            }
        }
        // Its hunk symbols alone name what the ELF's symbols name, sized.
        DebugInfoOptions noElf;
        noElf.findSibling = false;
        const DebugInfo symbols = DebugInfo::load(GUEST_C_BARTMAN, noElf);
        bool anySized = false;
        for (const DebugScope& s : symbols.scopes()) {
            QVERIFY2(s.name.find('@') == std::string::npos, s.name.c_str());
            anySized = anySized || s.name == "guest_main";
        }
        QVERIFY(anySized);
    }

    void elf2hunkRefusesNothingItAcceptedBefore() {
        // --bartman changes the layout, not what is converted: the same relocations and code.
        QTemporaryDir tmp;
        const QString out = tmp.filePath("x.exe");
        QProcess p;
        p.start(ELF2HUNK_EXE, {QString(GUEST_C) + ".elf", "-o", out, "--bartman"});
        QVERIFY(p.waitForFinished());
        QCOMPARE(p.exitCode(), 0);
        const HunkFile his = loadHunkFile(out.toStdString()), ours = loadHunkFile(GUEST_C);
        for (std::size_t h = 0; h < ours.sections.size(); ++h) {
            QCOMPARE(his.sections[h].relocs, ours.sections[h].relocs);
            QCOMPARE(his.sections[h].kind, ours.sections[h].kind);
            for (std::size_t i = 0; i < ours.sections[h].data.size(); ++i)
                QCOMPARE(his.sections[h].data[i], ours.sections[h].data[i]);
        }
    }

    void vasmLineDebug() {
        // gencop: vasm -Fhunkexe -linedebug, one CODE hunk whose last 16 bytes are a BSS tail.
        const DebugInfo info = DebugInfo::load(kData + "vscode-amiga-assembly/gencop");
        QVERIFY(info.elfPath().empty());
        QCOMPARE(info.hunks().size(), std::size_t(1));
        QCOMPARE(info.hunks()[0].size, 0x1A0u);
        QCOMPARE(at(info, 0, 0x0).line, 32u);   // move.l 4.w,a6
        QCOMPARE(at(info, 0, 0x1A).line, 41u);  // move.l d0,copper_list
        QCOMPARE(at(info, 0, 0x17A).line, 186u); // bne.s .l
        QCOMPARE(at(info, 0, 0x0).file, std::string("gencop.s"));
        QCOMPARE(at(info, 0, 0x0).function, std::string("init")); // named: no [entry]
        QCOMPARE(at(info, 0, 0x19C).function, std::string("copper_list")); // in the BSS tail
    }

    void vbccLineDebugAndSmallData() {
        // hello-vbcc: vbcc with vasm and vlink, -g. _main's LINE block starts at its base
        // ($3D4); mul_by_ten.s has a hunk and a block of its own; _LinkerDB lies past the
        // small-data hunk's end and names no byte.
        const DebugInfo info = DebugInfo::load(kData + "vscode-amiga-assembly/hello-vbcc");
        QCOMPARE(at(info, 0, 0x3D4).function, std::string("_main"));
        QCOMPARE(at(info, 0, 0x3D4).file, std::string("hello.c"));
        QCOMPARE(at(info, 0, 0x3D4).line, 1u); // vbcc's prologue row
        QCOMPARE(at(info, 0, 0x3D8).line, 8u);  // for (i = 0; ...
        QCOMPARE(at(info, 0, 0x3E0).line, 9u);  // printf(...)
        QCOMPARE(at(info, 1, 0x0).file, std::string("mul_by_ten.s"));
        QCOMPARE(at(info, 1, 0x0).line, 6u);
        QCOMPARE(at(info, 1, 0x4).line, 7u);
        for (const DebugScope& s : info.scopes()) QVERIFY(s.name != "_LinkerDB" && s.name != "_SDA_BASE_");
        // Its startup code has no symbol at the first byte, where AmigaDOS starts it.
        QCOMPARE(at(info, 0, 0x0).function, std::string(kEntryScope));
        QCOMPARE(at(info, 0, 0x2A6).function, std::string(kEntryScope));
        QCOMPARE(at(info, 0, 0x2A8).function, std::string("___exit"));
        QCOMPARE(at(info, 2, 0xC).function, std::string("_SysBase"));

        // The same program stripped of every name and line: nothing names its code, not even
        // its entry (a profile of it must say it is blind there).
        HunkFile stripped = loadHunkFile(kData + "vscode-amiga-assembly/hello-vbcc");
        for (HunkSection& h : stripped.sections) {
            h.symbols.clear();
            h.lineBlocks.clear();
        }
        const DebugInfo bare = DebugInfo::fromBytes(writeHunkFile(stripped), "stripped", {}, {});
        QCOMPARE(bare.lookup(0, 0).scope, -1);
        QCOMPARE(bare.lookup(0, 0x3D4).scope, -1);

        const DebugInfo amitools = DebugInfo::load(kData + "amitools/dos_stdout_vc_dbg");
        QCOMPARE(at(amitools, 0, 0x3D4).function, std::string("_main"));
        QCOMPARE(at(amitools, 0, 0x3DC).line, 9u);  // char msg[] = ...
        QCOMPARE(at(amitools, 0, 0x43C).line, 12u); // PutStr(msg)
        QCOMPARE(at(amitools, 0, 0x44C).line, 15u); // WriteChars: the later of two rows there
        QCOMPARE(at(amitools, 0, 0x45E).line, 17u); // return 0
        QCOMPARE(at(amitools, 0, 0x3D4).file, std::string("dos_stdout.c"));
    }

    void bebbosGccStabs() {
        // bebbo's amiga-gcc 6.5, -g: stabs in a HUNK_DEBUG after the last hunk. main is
        // $C8-$140 (its N_FUN and the size entry after it), its lines the N_SLINE rows.
        const HunkFile hunks = loadHunkFile(kData + "amitools/dos_stdout_gcc_dbg");
        QCOMPARE(hunks.sections.size(), std::size_t(3));
        QCOMPARE(hunks.trailingDebug.size(), std::size_t(1));
        const DebugInfo info = DebugInfo::load(kData + "amitools/dos_stdout_gcc_dbg");
        const Answer main = at(info, 0, 0xC8);
        QCOMPARE(main.function, std::string("main"));
        QVERIFY(main.external);
        QCOMPARE(main.file, std::string("dos_stdout.c"));
        QCOMPARE(main.line, 8u);                    // char msg[] = ...
        QCOMPARE(at(info, 0, 0xD0).line, 9u);      // (the string's copy)
        QCOMPARE(at(info, 0, 0xF4).line, 12u);     // PutStr(msg)
        QCOMPARE(at(info, 0, 0x110).line, 15u);    // WriteChars(...)
        QCOMPARE(at(info, 0, 0x136).line, 17u);    // return 0
        QCOMPARE(at(info, 0, 0x13E).line, 18u);    // }
        QCOMPARE(at(info, 0, 0x13E).function, std::string("main"));
        QVERIFY(at(info, 0, 0x140).function != "main"); // the function's size ends it
        QCOMPARE(at(info, 0, 0x140).line, 0u);          // libnix, built without -g
        const AddressInfo w = info.lookup(0, 0xC8);
        QCOMPARE(info.fileName(info.frames(w).front().file),
                 std::string("/Users/chris/projects/amitools/test/src/dos_stdout.c"));
        // Its declaration: "main:F1" with desc 7.
        QCOMPARE(info.function(w)->line, 7u);
        // The startup code's hunk symbols still name what the stabs do not.
        QCOMPARE(at(info, 0, 0x0).function, std::string("_start"));
        // A written copy reads back the same (the writer keeps the trailing block).
        QCOMPARE(readHunkFile(writeHunkFile(hunks)), hunks);
    }

    void corruptStabsAreRefusedByName() {
        std::vector<std::uint8_t> bytes = readFileBytes(kData + "amitools/dos_stdout_gcc_dbg");
        const HunkFile hunks = readHunkFile(bytes);
        HunkFile broken = hunks;
        // A string table larger than the block.
        auto& block = broken.trailingDebug[0];
        block[8] = 0x7F;
        try {
            (void)DebugInfo::fromBytes(writeHunkFile(broken), "broken", {}, {});
            QFAIL("corrupt stabs were read");
        } catch (const DebugInfoError& e) {
            QVERIFY2(std::string(e.what()).find("corrupt stabs") != std::string::npos, e.what());
        }
        // A name offset past the strings.
        broken = hunks;
        broken.trailingDebug[0][12] = 0x7F;
        try {
            (void)DebugInfo::fromBytes(writeHunkFile(broken), "broken", {}, {});
            QFAIL("a string past the table was read");
        } catch (const DebugInfoError& e) {
            QVERIFY2(std::string(e.what()).find("names string") != std::string::npos, e.what());
        }
    }

    void sasCLineWordsTopByte() {
        // SAS/C keeps the bytes of call arguments still on the stack in the line word's top
        // byte ($0C00001B is line 27); the line is the rest.
        const DebugInfo info = DebugInfo::load(kData + "amitools/dos_findarg_sc_dbg");
        std::uint32_t highest = 0;
        for (const LineRange& r : info.lineTable()) highest = std::max(highest, r.line);
        QVERIFY2(highest < 100, qPrintable(QString::number(highest)));
        QCOMPARE(at(info, 0, 0x2A0).line, 4u);
        QCOMPARE(at(info, 0, 0x2A0).file, std::string("dos_findarg.c"));
        QCOMPARE(at(info, 0, 0x33A).line, 31u); // raw $2C00001F
        QCOMPARE(at(info, 0, 0x2F6).function, std::string("_main"));
    }
};

QTEST_GUILESS_MAIN(TestToolchains)
#include "test_toolchains.moc"
