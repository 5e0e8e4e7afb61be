// SPDX-License-Identifier: GPL-3.0-or-later
// The hunk reader and writer and elf2hunk, checked against what binutils says of the same
// ELF, plus the refusal of malformed files.

#include "app/elf2hunk/elf_to_hunk.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace copperline;

namespace {

QString run(const QString& program, const QStringList& args) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        qFatal("%s failed: %s", qPrintable(program), p.readAllStandardError().constData());
    return QString::fromUtf8(p.readAllStandardOutput());
}

struct ElfSection {
    QString name;
    std::uint32_t addr = 0;
    std::uint32_t size = 0;
    bool bss = false;
    bool code = false;
};

// Allocated sections as objdump -h lists them, in address order.
std::vector<ElfSection> elfSections(const QString& elf) {
    std::vector<ElfSection> out;
    const QStringList lines = run(M68K_OBJDUMP, {"-h", elf}).split('\n');
    static const QRegularExpression row(R"(^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+)");
    for (int i = 0; i < lines.size(); ++i) {
        auto m = row.match(lines[i]);
        if (!m.hasMatch() || i + 1 >= lines.size()) continue;
        const QString flags = lines[i + 1];
        if (!flags.contains("ALLOC")) continue;
        ElfSection s;
        s.name = m.captured(1);
        s.size = m.captured(2).toUInt(nullptr, 16);
        s.addr = m.captured(3).toUInt(nullptr, 16);
        s.bss = !flags.contains("LOAD");
        s.code = flags.contains("CODE");
        if (s.size) out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.addr < b.addr; });
    return out;
}

// The section an address belongs to; an address just past a section's end (an end marker)
// belongs to it only when no section starts there.
int sectionContaining(const std::vector<ElfSection>& sections, std::uint32_t addr) {
    for (std::size_t i = 0; i < sections.size(); ++i)
        if (addr >= sections[i].addr && addr < sections[i].addr + sections[i].size) return int(i);
    for (std::size_t i = 0; i < sections.size(); ++i)
        if (addr == sections[i].addr + sections[i].size) return int(i);
    return -1;
}

std::uint32_t be32(const std::vector<std::uint8_t>& b, std::size_t at) {
    return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 | std::uint32_t(b[at + 2]) << 8 | b[at + 3];
}

void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    b[at] = std::uint8_t(v >> 24);
    b[at + 1] = std::uint8_t(v >> 16);
    b[at + 2] = std::uint8_t(v >> 8);
    b[at + 3] = std::uint8_t(v);
}

// Expects readHunkFile to refuse the bytes with a message containing `needle`.
void expectRefused(const std::vector<std::uint8_t>& bytes, const char* needle) {
    try {
        readHunkFile(bytes, "test");
    } catch (const MediaError& e) {
        if (!QString::fromUtf8(e.what()).contains(QLatin1String(needle), Qt::CaseInsensitive))
            QFAIL(qPrintable(QString("refused, but the message '%1' does not mention '%2'").arg(e.what(), needle)));
        return;
    }
    QFAIL(qPrintable(QString("accepted a file that should be refused (%1)").arg(needle)));
}

} // namespace

class TestHunk : public QObject {
    Q_OBJECT

    QString hunkPath = QStringLiteral(GUEST_ROUNDTRIP);
    QString elfPath = hunkPath + ".elf";

private slots:
    void sectionsMatchTheElf() {
        const HunkFile file = loadHunkFile(hunkPath.toStdString());
        const auto sections = elfSections(elfPath);
        QCOMPARE(file.sections.size(), sections.size());
        QVERIFY(sections.size() >= 3);  // code, data and BSS
        for (std::size_t h = 0; h < sections.size(); ++h) {
            const auto& s = file.sections[h];
            QCOMPARE(s.allocSize, (sections[h].size + 3) & ~3u);
            QCOMPARE(s.kind, sections[h].bss ? HunkKind::Bss : sections[h].code ? HunkKind::Code : HunkKind::Data);
            if (sections[h].bss) continue;
            // The hunk's bytes, relocated to the ELF's own section addresses, are the ELF's bytes.
            QTemporaryDir tmp;
            const QString raw = tmp.filePath("section.bin");
            run(M68K_OBJCOPY, {"-O", "binary", "-j", sections[h].name, elfPath, raw});
            auto expected = readFileBytes(raw.toStdString());
            expected.resize(s.allocSize, 0);
            auto relocated = s.data;
            for (const auto& r : s.relocs) put32(relocated, r.offset, be32(relocated, r.offset) + sections[r.target].addr);
            QVERIFY2(relocated == expected, qPrintable("contents of " + sections[h].name));
        }
    }

    void relocationsMatchReadelf() {
        const HunkFile file = loadHunkFile(hunkPath.toStdString());
        const auto sections = elfSections(elfPath);
        // readelf -rW: "Offset Info Type Sym.Value Sym.Name + Addend" under "Relocation section '.rela.X'".
        std::set<std::tuple<int, std::uint32_t, int>> expected;
        QString current;
        static const QRegularExpression head(R"(Relocation section '\.rela(\S+)')");
        static const QRegularExpression row(R"(^([0-9a-f]{8})\s+[0-9a-f]+\s+R_68K_32\s+([0-9a-f]{8})\s)");
        for (const QString& line : run(M68K_READELF, {"-rW", elfPath}).split('\n')) {
            if (auto m = head.match(line); m.hasMatch()) current = m.captured(1);
            auto m = row.match(line);
            if (!m.hasMatch()) continue;
            int from = -1;
            for (std::size_t i = 0; i < sections.size(); ++i)
                if (sections[i].name == current) from = int(i);
            if (from < 0) continue;  // relocations of debug sections
            const std::uint32_t offset = m.captured(1).toUInt(nullptr, 16) - sections[from].addr;
            const int target = sectionContaining(sections, m.captured(2).toUInt(nullptr, 16));
            QVERIFY(target >= 0);
            expected.insert({from, offset, target});
        }
        std::set<std::tuple<int, std::uint32_t, int>> actual;
        for (std::size_t h = 0; h < file.sections.size(); ++h)
            for (const auto& r : file.sections[h].relocs) actual.insert({int(h), r.offset, int(r.target)});
        QVERIFY(!expected.empty());
        QCOMPARE(actual, expected);
        // The program has references from code to data, from data to code and to BSS.
        auto has = [&](int from, int to) {
            return std::any_of(actual.begin(), actual.end(), [&](auto& t) { return std::get<0>(t) == from && std::get<2>(t) == to; });
        };
        QVERIFY(has(0, 1));
        QVERIFY(has(1, 0));
        QVERIFY(has(1, 2));
    }

    void symbolsMatchNm() {
        const HunkFile file = loadHunkFile(hunkPath.toStdString());
        const auto sections = elfSections(elfPath);
        std::set<std::tuple<int, std::uint32_t, std::string>> expected, actual;
        static const QRegularExpression row(R"(^([0-9a-f]{8}) ([TtDdBbRr]) (\S+)$)");
        for (const QString& line : run(M68K_NM, {"-n", elfPath}).split('\n')) {
            auto m = row.match(line);
            if (!m.hasMatch() || m.captured(3).startsWith(".L")) continue;
            const std::uint32_t addr = m.captured(1).toUInt(nullptr, 16);
            const int h = sectionContaining(sections, addr);
            QVERIFY(h >= 0);
            expected.insert({h, addr - sections[h].addr, m.captured(3).toStdString()});
        }
        for (std::size_t h = 0; h < file.sections.size(); ++h)
            for (const auto& s : file.sections[h].symbols) actual.insert({int(h), s.offset, s.name});
        QCOMPARE(actual, expected);
        // The static function is there by name.
        QVERIFY(std::any_of(actual.begin(), actual.end(), [](auto& t) { return std::get<2>(t) == "scale"; }));
    }

    void lineBlocksCoverTheCode() {
        const HunkFile file = loadHunkFile(hunkPath.toStdString());
        const auto& code = file.sections[0];
        QVERIFY(!code.lineBlocks.empty());
        bool sawC = false, sawAsm = false;
        for (const auto& b : code.lineBlocks) {
            sawC |= QString::fromStdString(b.file).endsWith("roundtrip.c");
            sawAsm |= QString::fromStdString(b.file).endsWith("start.S");
            for (const auto& l : b.lines) QVERIFY(l.offset < code.allocSize);
        }
        QVERIFY(sawC);
        QVERIFY(sawAsm);
    }

    void rewriteIsByteIdentical() {
        const auto bytes = readFileBytes(hunkPath.toStdString());
        QVERIFY(writeHunkFile(readHunkFile(bytes)) == bytes);
    }

    // A symbol name of NULs reads as an empty name; written back, it must not become the
    // 0 that ends the symbol table (found by hunk_fuzzer).
    void emptySymbolNameSurvivesARewrite() {
        HunkFile file = readHunkFile(readFileBytes(hunkPath.toStdString()));
        file.sections[0].symbols.insert(file.sections[0].symbols.begin(), HunkSymbol{"", 4});
        const HunkFile again = readHunkFile(writeHunkFile(file), "rewrite");
        QCOMPARE(again.sections[0].symbols.size(), file.sections[0].symbols.size());
        QVERIFY(again == file);
    }

    void refusesMalformedFiles() {
        const auto good = readFileBytes(hunkPath.toStdString());
        // Every truncation is refused.
        for (std::size_t n = 0; n < good.size(); n += 4) {
            std::vector<std::uint8_t> cut(good.begin(), good.begin() + std::ptrdiff_t(n));
            expectRefused(cut, n == 0 ? "too short" : "");
        }
        expectRefused({good.begin(), good.end() - 4}, "truncated");

        auto magic = good;
        magic[3] = 0xF4;
        expectRefused(magic, "bad magic");

        // Header: table size 0, absurd table, first/last out of order.
        auto table = good;
        put32(table, 8, 0);
        expectRefused(table, "hunk table");
        put32(table, 8, 0x7FFFFFFF);
        expectRefused(table, "hunk table");

        // Absurd hunk size.
        auto size = good;
        put32(size, 20, 0x3FFFFFFF);
        expectRefused(size, "more than a 68000");

        // A relocation outside its hunk, and one naming a hunk that does not exist.
        const HunkFile parsed = readHunkFile(good);
        QVERIFY(!parsed.sections[0].relocs.empty());
        const std::size_t codeLongs = (parsed.sections[0].data.size()) / 4;
        const std::size_t relocAt = 5 * 4 + parsed.sections.size() * 4 + 8 + codeLongs * 4;  // after HUNK_CODE body
        QCOMPARE(be32(good, relocAt), hunk_id::Reloc32);
        auto badTarget = good;
        put32(badTarget, relocAt + 8, 99);
        expectRefused(badTarget, "targets hunk 99");
        auto badOffset = good;
        put32(badOffset, relocAt + 12, std::uint32_t(parsed.sections[0].data.size()));
        expectRefused(badOffset, "outside");
        auto hugeCount = good;
        put32(hugeCount, relocAt + 4, 0xFFFFFFF0);
        expectRefused(hugeCount, "truncated");


        // Object files and overlays.
        auto unit = good;
        put32(unit, 5 * 4 + parsed.sections.size() * 4, hunk_id::Unit);
        expectRefused(unit, "object file");
    }

    // What LoadSeg runs, built by hand: vbcc's _LinkerDB 32,766 bytes into a small data
    // hunk, and a cruncher's payload (not even whole longwords) after the last HUNK_END.
    // Both load, with a warning each; what LoadSeg refuses is still refused.
    void acceptsWhatLoadSegAccepts() {
        std::vector<std::uint8_t> f;
        auto w = [&](std::uint32_t v) {
            f.resize(f.size() + 4);
            put32(f, f.size() - 4, v);
        };
        // HUNK_HEADER: no resident libraries, two hunks 0..1, a code hunk of 2 longwords and
        // a data hunk of 1.
        for (std::uint32_t v : {hunk_id::Header, 0u, 2u, 0u, 1u, 2u, 1u})
            w(v);
        for (std::uint32_t v : {hunk_id::Code, 2u, 0x4E714E71u, 0x70004E75u, hunk_id::End})
            w(v);
        w(hunk_id::Data);
        w(1);
        w(0x12345678);
        w(hunk_id::Symbol);
        w(3); // "_LinkerDB" padded to three longwords
        const char name[12] = "_LinkerDB";
        f.insert(f.end(), name, name + 12);
        w(32766);
        w(0);
        w(hunk_id::End);
        const std::size_t hunksEnd = f.size();
        const char payload[] = "a cruncher's packed data"; // 25 bytes with the NUL
        f.insert(f.end(), payload, payload + sizeof payload);

        std::vector<std::string> warnings;
        HunkFile file;
        try {
            file = readHunkFile(f, "crunched", &warnings);
        } catch (const MediaError& e) {
            QFAIL(e.what());
        }
        QCOMPARE(file.sections.size(), std::size_t(2));
        QCOMPARE(file.sections[1].symbols.size(), std::size_t(1));
        QCOMPARE(file.sections[1].symbols[0].name, std::string("_LinkerDB"));
        QCOMPARE(file.sections[1].symbols[0].offset, 32766u);
        QCOMPARE(file.sections[0].data.size(), std::size_t(8));
        QCOMPARE(warnings.size(), std::size_t(2));
        QVERIFY2(QString::fromStdString(warnings[0]).contains("'_LinkerDB' has the value 32766"),
                 warnings[0].c_str());
        QVERIFY2(QString::fromStdString(warnings[1]).contains("25 bytes follow the last of the 2 hunks"),
                 warnings[1].c_str());
        // Without a place for warnings the same file reads the same.
        QCOMPARE(readHunkFile(f, "crunched"), file);

        // A hunk cut short is still refused, and so is a missing HUNK_END.
        expectRefused({f.begin(), f.begin() + std::ptrdiff_t(hunksEnd - 6)}, "truncated");
        expectRefused({f.begin(), f.begin() + std::ptrdiff_t(hunksEnd - 4)}, "no HUNK_END");
        // A header whose hunk range does not fit its table is refused, payload or not.
        auto range = f;
        put32(range, 16, 2); // last hunk 2 in a table of 2
        expectRefused(range, "hunk range");
    }

    void elf2hunkRefusesWhatItCannotConvert() {
        QTemporaryDir tmp;
        auto refuse = [&](const QString& path, const char* needle) {
            try {
                convertElfToHunk(path.toStdString());
            } catch (const MediaError& e) {
                QVERIFY2(QString(e.what()).contains(needle), e.what());
                return;
            }
            QFAIL(qPrintable("accepted " + path));
        };
        refuse(hunkPath, "not an ELF");
        refuse(tmp.filePath("missing.elf"), "cannot open");

        // An unlinked object, and an ELF linked without --emit-relocs.
        const QString src = tmp.filePath("p.s");
        QFile f(src);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(".section .text.start,\"ax\"\n.globl _start\n_start: lea data,%a0\n rts\n.data\ndata: .long 1\n");
        f.close();
        const QString obj = tmp.filePath("p.o");
        run(M68K_GCC, {"-m68000", "-c", src, "-o", obj});
        refuse(obj, "not a linked executable");
        const QString noRelocs = tmp.filePath("norelocs.elf");
        run(M68K_LD, {"-T", COPPERLINE_SOURCE_DIR "/cmake/guest.ld", "-o", noRelocs, obj});
        refuse(noRelocs, "--emit-relocs");

        // A PC-relative reference from code into the data hunk cannot be relocated.
        QFile g(src);
        QVERIFY(g.open(QIODevice::WriteOnly | QIODevice::Truncate));
        g.write(".section .text.start,\"ax\"\n.globl _start\n_start: lea data(%pc),%a0\n rts\n.data\ndata: .long 1\n");
        g.close();
        run(M68K_GCC, {"-m68000", "-c", src, "-o", obj});
        const QString pcrel = tmp.filePath("pcrel.elf");
        run(M68K_LD, {"-T", COPPERLINE_SOURCE_DIR "/cmake/guest.ld", "--emit-relocs", "-o", pcrel, obj});
        refuse(pcrel, "crosses hunks");
    }
};

QTEST_GUILESS_MAIN(TestHunk)
#include "test_hunk.moc"
