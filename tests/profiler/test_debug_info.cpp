// SPDX-License-Identifier: GPL-3.0-or-later
// The debug-info reader checked against binutils on programs our toolchain built: function
// ranges against m68k-linux-gnu-nm, every code address's inline chain, file and line
// against m68k-linux-gnu-addr2line, and the executable's LINE blocks against the DWARF they
// were written from. Padding and addresses outside the program must come back unknown.

#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/debuginfo/debug_info.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace copperline;

namespace {

QString run(const QString& program, const QStringList& args, const QByteArray& input = {}) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted()) qFatal("cannot run %s", qPrintable(program));
    if (!input.isEmpty()) p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(120000);
    if (p.exitCode() != 0)
        qFatal("%s failed: %s", qPrintable(program), p.readAllStandardError().constData());
    return QString::fromUtf8(p.readAllStandardOutput());
}

struct NmSymbol {
    std::uint32_t address = 0;
    std::uint32_t size = 0;
    QChar type;
    QString name;
};

// Symbols with a size, from nm -S.
std::vector<NmSymbol> sizedSymbols(const QString& elf) {
    std::vector<NmSymbol> out;
    for (const QString& line : run(M68K_NM, {"-S", "-n", "--defined-only", elf}).split('\n')) {
        const auto parts = line.split(' ', Qt::SkipEmptyParts);
        if (parts.size() != 4) continue;
        out.push_back(
            {parts[0].toUInt(nullptr, 16), parts[1].toUInt(nullptr, 16), parts[2][0], parts[3]});
    }
    return out;
}

struct ElfSection {
    std::uint32_t address, offset, size;
};

// The link address, file offset and size of an ELF section, from readelf -S.
ElfSection section(const QString& elf, const QString& name) {
    const QRegularExpression re("\\]\\s+" + QRegularExpression::escape(name) +
                                "\\s+\\S+\\s+([0-9a-f]+)\\s+([0-9a-f]+)\\s+([0-9a-f]+)");
    const auto m = re.match(run(M68K_READELF, {"-S", "-W", elf}));
    if (!m.hasMatch()) qFatal("no section %s", qPrintable(name));
    return {m.captured(1).toUInt(nullptr, 16), m.captured(2).toUInt(nullptr, 16),
            m.captured(3).toUInt(nullptr, 16)};
}

struct OracleFrame {
    QString function; // "??" when addr2line knows none
    QString location; // "file:line", or "??:0" when there is no line
};

// addr2line -a -f -i for many addresses at once: the inline chain of each, innermost first.
std::map<std::uint32_t, std::vector<OracleFrame>>
addr2line(const QString& elf, const std::vector<std::uint32_t>& addrs) {
    QByteArray input;
    for (auto a : addrs)
        input += "0x" + QByteArray::number(a, 16) + "\n";
    const auto lines = run(M68K_ADDR2LINE, {"-a", "-f", "-i", "-e", elf}, input).split('\n');
    std::map<std::uint32_t, std::vector<OracleFrame>> out;
    std::uint32_t current = 0;
    static const QRegularExpression discriminator(" \\(discriminator \\d+\\)$");
    for (int i = 0; i < lines.size(); ++i) {
        if (lines[i].startsWith("0x")) {
            current = lines[i].toUInt(nullptr, 16);
            out[current];
        } else if (!lines[i].isEmpty() && i + 1 < lines.size()) {
            QString loc = lines[i + 1];
            loc.remove(discriminator);
            if (loc.startsWith("??:")) loc = "??:0";
            out[current].push_back({lines[i], loc});
            ++i;
        }
    }
    return out;
}

QString location(const DebugInfo& info, std::uint32_t file, std::uint32_t line) {
    if (file == kNoFile || line == 0) return "??:0";
    return QString::fromStdString(info.fileName(file)) + ":" + QString::number(line);
}

// The 1-based line of the first source line matching a pattern.
int sourceLine(const QString& source, const QString& pattern) {
    QFile f(source);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(source));
    const QRegularExpression re(pattern);
    int n = 0;
    while (!f.atEnd()) {
        ++n;
        if (re.match(QString::fromUtf8(f.readLine())).hasMatch()) return n;
    }
    qFatal("no line matches %s", qPrintable(pattern));
}

const QString kInliningSource = COPPERLINE_SOURCE_DIR "/tests/guest/debuginfo/inlining.c";

} // namespace

class TestDebugInfo : public QObject {
    Q_OBJECT

private slots:
    void functionRangesMatchNm_data() {
        QTest::addColumn<QString>("program");
        QTest::newRow("C -O2") << QStringLiteral(GUEST_C);
        QTest::newRow("assembly") << QStringLiteral(GUEST_ASM);
        QTest::newRow("roundtrip") << QStringLiteral(GUEST_ROUNDTRIP);
    }

    // Every sized symbol nm reports is one function or object of exactly that extent.
    void functionRangesMatchNm() {
        QFETCH(QString, program);
        const DebugInfo info = DebugInfo::load(program.toStdString());
        QVERIFY(info.hasDwarf());
        const HunkBases bases(info, info.linkBases());
        const auto symbols = sizedSymbols(program + ".elf");
        QVERIFY(symbols.size() >= 4);
        for (const NmSymbol& sym : symbols) {
            const AddressInfo at = info.lookup(sym.address, bases);
            QVERIFY2(at.inProgram, qPrintable(sym.name));
            bool found = false;
            for (const ScopeRange& r : info.scopeRanges())
                if (r.hunk == at.hunk && r.start == at.offset) {
                    found = true;
                    QVERIFY2(r.end - r.start == sym.size,
                             qPrintable(sym.name + ": " + QString::number(r.end - r.start) +
                                        " bytes, nm says " + QString::number(sym.size)));
                    // A static function stays static (nm: lower-case type).
                    const DebugScope& s = info.scopes()[r.scope];
                    QCOMPARE(s.external, sym.type.isUpper());
                    QVERIFY2(sym.name == QString::fromStdString(s.name) ||
                                 sym.name.startsWith(QString::fromStdString(s.name) + "."),
                             qPrintable(sym.name + " vs " + QString::fromStdString(s.name)));
                }
            QVERIFY2(found, qPrintable("no range starts at " + sym.name));
        }
    }

    void everyCodeAddressMatchesAddr2line_data() { functionRangesMatchNm_data(); }

    // For every instruction-aligned address of the code: the same chain of frames, each
    // with the same function and file:line, as addr2line -i. Where we know no function,
    // addr2line may still print the nearest symbol before it; that address must then lie
    // outside every sized symbol (padding), which the padding test checks separately.
    void everyCodeAddressMatchesAddr2line() {
        QFETCH(QString, program);
        const QString elf = program + ".elf";
        const DebugInfo info = DebugInfo::load(program.toStdString());
        const HunkBases bases(info, info.linkBases());
        const auto [text, textOffset, size] = section(elf, ".text");
        std::vector<std::uint32_t> addrs;
        for (std::uint32_t a = text; a < text + size; a += 2)
            addrs.push_back(a);
        const auto oracle = addr2line(elf, addrs);
        int inlinedSeen = 0;
        for (const std::uint32_t a : addrs) {
            const auto frames = info.frames(info.lookup(a, bases));
            const auto& expected = oracle.at(a);
            const QString where = "at 0x" + QString::number(a, 16);
            if (frames.empty()) {
                QCOMPARE(expected.size(), std::size_t(1));
                QVERIFY2(expected[0].location == "??:0",
                         qPrintable(where + ": addr2line knows " + expected[0].location));
                continue;
            }
            QVERIFY2(frames.size() == expected.size(),
                     qPrintable(where + ": " + QString::number(frames.size()) +
                                " frames, addr2line " + QString::number(expected.size())));
            if (frames.size() > 1) ++inlinedSeen;
            for (std::size_t i = 0; i < frames.size(); ++i) {
                QCOMPARE(location(info, frames[i].file, frames[i].line), expected[i].location);
                if (frames[i].scope)
                    QVERIFY2(QString::fromStdString(frames[i].scope->name) == expected[i].function,
                             qPrintable(where + ": " +
                                        QString::fromStdString(frames[i].scope->name) + " vs " +
                                        expected[i].function));
            }
        }
        if (program == QStringLiteral(GUEST_C)) QVERIFY(inlinedSeen > 0);
    }

    // square is inlined into sumSquares, which is inlined into aligned: an address of the
    // multiply reports all three, innermost first, with the call lines of the source.
    void inlinedCallSiteReportsItsChain() {
        const DebugInfo info = DebugInfo::load(GUEST_C);
        const int squareLine = sourceLine(kInliningSource, "static inline int square");
        const int callSquare = sourceLine(kInliningSource, "int s = square\\(a\\)");
        const int callSumSquares = sourceLine(kInliningSource, "return sumSquares\\(x, x \\+ 1\\)");
        bool found = false;
        for (const ScopeRange& r : info.scopeRanges()) {
            if (info.scopes()[r.scope].name != "aligned") continue;
            for (std::uint32_t off = r.start; off < r.end && !found; off += 2) {
                const AddressInfo at = info.lookup(r.hunk, off);
                const auto frames = info.frames(at);
                if (frames.size() != 3 || frames[2].line != std::uint32_t(callSumSquares) ||
                    frames[1].line != std::uint32_t(callSquare))
                    continue;
                found = true;
                QCOMPARE(frames[0].scope->name, std::string("square"));
                QCOMPARE(int(frames[0].scope->line), squareLine);
                QVERIFY(frames[0].inlined);
                QCOMPARE(frames[1].scope->name, std::string("sumSquares"));
                QVERIFY(frames[1].inlined);
                QCOMPARE(frames[2].scope->name, std::string("aligned"));
                QVERIFY(!frames[2].inlined);
                QCOMPARE(QString::fromStdString(info.fileName(frames[1].file)), kInliningSource);
                QCOMPARE(info.function(at)->name, std::string("aligned"));
            }
        }
        QVERIFY2(found, "no address of aligned() has the square <- sumSquares <- aligned chain");
    }

    void staticFunctionIsNamed() {
        const DebugInfo info = DebugInfo::load(GUEST_C);
        std::map<std::string, const DebugScope*> byName;
        for (const ScopeRange& r : info.scopeRanges())
            byName[info.scopes()[r.scope].name] = &info.scopes()[r.scope];
        for (const char* name : {"mix", "accumulate"}) {
            QVERIFY2(byName.count(name), name);
            QVERIFY(!byName[name]->external);
            QCOMPARE(QString::fromStdString(info.fileName(byName[name]->file)), kInliningSource);
            QCOMPARE(int(byName[name]->line),
                     sourceLine(kInliningSource, QString("static NOINLINE int ") + name + "\\("));
        }
        QVERIFY(byName.count("largest") && byName["largest"]->external);
        // File-static data too.
        QVERIFY(byName.count("state") && !byName["state"]->external);
        QCOMPARE(byName["state"]->kind, ScopeKind::Object);
        // The assembly's file-local function, from the assembler's DWARF.
        const DebugInfo asmInfo = DebugInfo::load(GUEST_ASM);
        bool sawLocal = false;
        for (const ScopeRange& r : asmInfo.scopeRanges())
            if (asmInfo.scopes()[r.scope].name == "asm_aligned")
                sawLocal = !asmInfo.scopes()[r.scope].external;
        QVERIFY(sawLocal);
    }

    void paddingIsUnknown_data() {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::newRow("C, before an aligned function") << QStringLiteral(GUEST_C) << "largest"
                                                       << "aligned";
        QTest::newRow("assembly, .balign") << QStringLiteral(GUEST_ASM) << "asm_count"
                                           << "asm_aligned";
    }

    // The bytes between the end of one function and the start of the next aligned one
    // belong to neither: no function is named for them.
    void paddingIsUnknown() {
        QFETCH(QString, program);
        QFETCH(QString, before);
        QFETCH(QString, after);
        const DebugInfo info = DebugInfo::load(program.toStdString());
        const HunkBases bases(info, info.linkBases());
        std::uint32_t gapStart = 0, gapEnd = 0;
        for (const NmSymbol& s : sizedSymbols(program + ".elf")) {
            if (s.name == before) gapStart = s.address + s.size;
            if (s.name == after) gapEnd = s.address;
        }
        QVERIFY2(gapStart < gapEnd, "the test program has no padding where expected");
        for (std::uint32_t a = gapStart; a < gapEnd; ++a) {
            const AddressInfo at = info.lookup(a, bases);
            QVERIFY(at.inProgram);
            QCOMPARE(at.scope, -1);
            QCOMPARE(info.function(at), nullptr);
            for (const InlineFrame& f : info.frames(at))
                QCOMPARE(f.scope, nullptr);
        }
        QVERIFY(info.function(info.lookup(gapStart - 2, bases)) != nullptr);
        QCOMPARE(QString::fromStdString(info.function(info.lookup(gapEnd, bases))->name), after);
        // The round-up of the last hunk to a longword is padding too.
        const auto [text, textOffset, size] = section(program + ".elf", ".text");
        if (size % 4) QCOMPARE(info.lookup(0, size).scope, -1);
    }

    // Relocated anywhere, the hunks answer at their new addresses, and every address outside
    // them (another module, the ROM, free memory) is outside the program.
    void relocationAndOtherModules() {
        const DebugInfo info = DebugInfo::load(GUEST_C);
        QCOMPARE(info.hunks().size(), std::size_t(3));
        const HunkBases bases(info, {0x00200000, 0x00C00000, 0x00040000});
        std::uint32_t largest = 0;
        for (const NmSymbol& s : sizedSymbols(QStringLiteral(GUEST_C) + ".elf"))
            if (s.name == "largest") largest = s.address;
        const auto [text, textOffset, size] = section(QStringLiteral(GUEST_C) + ".elf", ".text");
        const AddressInfo at = info.lookup(0x00200000 + (largest - text), bases);
        QVERIFY(at.inProgram);
        QCOMPARE(at.hunk, 0u);
        QCOMPARE(info.function(at)->name, std::string("largest"));
        QCOMPARE(info.function(info.lookup(0x00C00000, bases))->name, std::string("table"));
        QCOMPARE(info.function(info.lookup(0x00040000, bases))->name, std::string("state"));
        for (std::uint32_t outside :
             {0u, 0x1000u, largest, 0x001FFFFEu, 0x00200000u + info.hunks()[0].size, 0x00BFFFFCu,
              0x00C00000u + info.hunks()[1].size, 0x00F80000u, 0xFFFFFFFFu}) {
            const AddressInfo o = info.lookup(outside, bases);
            QVERIFY2(!o.inProgram, qPrintable(QString::number(outside, 16)));
            QCOMPARE(o.scope, -1);
            QCOMPARE(o.line, -1);
            QVERIFY(info.frames(o).empty());
        }
        QVERIFY_THROWS_EXCEPTION(DebugInfoError, HunkBases(info, {0x1000}));
    }

    void lineBlocksReadBackAsTheDwarf_data() { functionRangesMatchNm_data(); }

    // elf2hunk wrote the DWARF line table into LINE blocks; read without the ELF they give
    // the same rows: each run starts at the same address with the same file and line.
    void lineBlocksReadBackAsTheDwarf() {
        QFETCH(QString, program);
        const DebugInfo dwarf = DebugInfo::load(program.toStdString());
        DebugInfoOptions alone;
        alone.findSibling = false;
        const DebugInfo blocks = DebugInfo::load(program.toStdString(), alone);
        QVERIFY(blocks.elfPath().empty());
        QVERIFY(!blocks.hasDwarf());
        QVERIFY(dwarf.lineTable().size() > 4);
        QCOMPARE(blocks.lineTable().size(), dwarf.lineTable().size());
        for (std::size_t i = 0; i < dwarf.lineTable().size(); ++i) {
            const LineRange& d = dwarf.lineTable()[i];
            const LineRange& b = blocks.lineTable()[i];
            QCOMPARE(b.hunk, d.hunk);
            QCOMPARE(b.start, d.start);
            QCOMPARE(b.line, d.line);
            QCOMPARE(blocks.fileName(b.file), dwarf.fileName(d.file));
            // Only where the DWARF sequence ends before the next run starts may the block's
            // run reach further (a LINE block has no end-of-sequence row).
            if (i + 1 < dwarf.lineTable().size() && dwarf.lineTable()[i + 1].start == d.end)
                QCOMPARE(b.end, d.end);
            else
                QVERIFY(b.end >= d.end);
        }
        // And without the ELF, the hunk symbols still name every function at its start.
        for (const ScopeRange& r : dwarf.scopeRanges()) {
            const DebugScope& s = dwarf.scopes()[r.scope];
            if (s.kind == ScopeKind::Object) continue;
            const DebugScope* f = blocks.function(blocks.lookup(r.hunk, r.start));
            QVERIFY2(f, s.name.c_str());
            QVERIFY2(f->name == s.name || f->name.starts_with(s.name + "."),
                     (f->name + " vs " + s.name).c_str());
            QCOMPARE(f->source, ScopeSource::HunkSymbol);
        }
    }

    // Coverage's view: every line with code, and the ranges of one line.
    void lineTableForCoverage() {
        const DebugInfo info = DebugInfo::load(GUEST_C);
        std::uint32_t file = kNoFile;
        for (std::uint32_t i = 0; i < info.files().size(); ++i)
            if (QString::fromStdString(info.files()[i]) == kInliningSource) file = i;
        QVERIFY(file != kNoFile);
        const auto lines = info.linesWithCode(file);
        const int best =
            sourceLine(kInliningSource, "if \\(values\\[i\\] > best\\) best = values\\[i\\];");
        QVERIFY(std::find(lines.begin(), lines.end(), std::uint32_t(best)) != lines.end());
        QVERIFY(std::is_sorted(lines.begin(), lines.end()));
        // A comment line has no code.
        QVERIFY(std::find(lines.begin(), lines.end(), 1u) == lines.end());
        const auto ranges = info.rangesOfLine(file, std::uint32_t(best));
        QVERIFY(!ranges.empty());
        for (const LineRange& r : ranges)
            for (std::uint32_t off = r.start; off < r.end; ++off)
                QCOMPARE(info.lineTable()[info.lookup(r.hunk, off).line].line, std::uint32_t(best));
        // The table is sorted and its runs do not overlap.
        for (std::size_t i = 1; i < info.lineTable().size(); ++i) {
            const LineRange& a = info.lineTable()[i - 1];
            const LineRange& b = info.lineTable()[i];
            QVERIFY(a.hunk < b.hunk || (a.hunk == b.hunk && a.end <= b.start));
        }
    }

    void sourceMapRewritesPaths() {
        DebugInfoOptions options;
        options.sourceMap.addSpec(COPPERLINE_SOURCE_DIR "/tests=/src/t");
        options.sourceMap.addSpec(COPPERLINE_SOURCE_DIR "=/src");
        const DebugInfo info = DebugInfo::load(GUEST_C, options);
        bool sawInlining = false, sawRuntime = false;
        for (const std::string& f : info.files()) {
            QVERIFY2(!QString::fromStdString(f).startsWith(COPPERLINE_SOURCE_DIR), f.c_str());
            sawInlining |= f == "/src/t/guest/debuginfo/inlining.c";
            sawRuntime |= f.starts_with("/src/resources/guest/runtime/");
        }
        QVERIFY(sawInlining);
        QVERIFY(sawRuntime);

        SourceMap map;
        map.addSpec("/build/src=/home/me/src");
        QCOMPARE(map.apply("/build/src/a.c"), std::string("/home/me/src/a.c"));
        QCOMPARE(map.apply("/build/srcfoo/a.c"), std::string("/build/srcfoo/a.c"));
        QCOMPARE(map.apply("/elsewhere/a.c"), std::string("/elsewhere/a.c"));
        QVERIFY_THROWS_EXCEPTION(DebugInfoError, map.addSpec("no-equals-sign"));
        QVERIFY_THROWS_EXCEPTION(DebugInfoError, map.addSpec("=/to"));
    }

    // An ELF that is not the executable's sibling is refused, and the message says why.
    void mismatchedElfIsRefused() {
        auto refusal = [](const char* program, const QString& elf) -> QString {
            DebugInfoOptions options;
            options.elfPath = elf.toStdString();
            try {
                DebugInfo::load(program, options);
            } catch (const DebugInfoError& e) {
                return QString::fromUtf8(e.what());
            }
            return {};
        };
        // Another program's ELF: different sizes.
        QString message = refusal(GUEST_C, QStringLiteral(GUEST_ROUNDTRIP) + ".elf");
        QVERIFY2(message.contains("does not belong to") && message.contains("hunk 0"),
                 qPrintable(message));

        // The same layout but other contents: one instruction changed after the hunk was written.
        QTemporaryDir dir;
        const QString patched = dir.filePath("patched.elf");
        auto bytes = readFileBytes(QStringLiteral(GUEST_C ".elf").toStdString());
        const auto [text, textOffset, size] = section(QStringLiteral(GUEST_C) + ".elf", ".text");
        QVERIFY(size > 0x40);
        bytes[textOffset] ^= 0xFF; // the JSR opcode of _start, not a relocated word
        writeFileBytes(patched.toStdString(), bytes);
        message = refusal(GUEST_C, patched);
        QVERIFY2(message.contains("differs from ELF section .text"), qPrintable(message));

        // An ELF with a section fewer than the executable has hunks (no BSS).
        message = refusal(GUEST_C, QStringLiteral(GUEST_ASM) + ".elf");
        QVERIFY2(message.contains("2 loaded section(s), the executable 3 hunk(s)"),
                 qPrintable(message));
    }

    // Another converter may keep the ELF's section-header order rather than address order:
    // with .data moved below .text, the hunks (text, data, BSS) still find their sections.
    void hunksInSectionHeaderOrderAreMatched() {
        QTemporaryDir dir;
        const QString moved = dir.filePath("moved.elf");
        run(M68K_OBJCOPY,
            {"--change-section-address", ".data=0x100", QStringLiteral(GUEST_C) + ".elf", moved});
        DebugInfoOptions options;
        options.elfPath = moved.toStdString();
        const DebugInfo info = DebugInfo::load(GUEST_C, options);
        QCOMPARE(info.hunks()[0].section, std::string(".text"));
        QCOMPARE(info.hunks()[1].section, std::string(".data"));
        QCOMPARE(*info.hunks()[1].linkAddress, 0x100u);
        const HunkBases bases(info, info.linkBases());
        QCOMPARE(info.function(info.lookup(0x100, bases))->name, std::string("table"));
        QCOMPARE(info.lookup(0x100, bases).hunk, 1u);
        for (const ScopeRange& r : info.scopeRanges())
            if (info.scopes()[r.scope].name == "largest") QCOMPARE(r.hunk, 0u);
    }

    void malformedElfIsRefused() {
        QTemporaryDir dir;
        auto refusal = [&](const std::vector<std::uint8_t>& elf) -> QString {
            const QString path = dir.filePath("bad.elf");
            writeFileBytes(path.toStdString(), elf);
            DebugInfoOptions options;
            options.elfPath = path.toStdString();
            try {
                DebugInfo::load(GUEST_C, options);
            } catch (const MediaError& e) {
                return QString::fromUtf8(e.what());
            }
            return {};
        };
        const auto good = readFileBytes(QStringLiteral(GUEST_C ".elf").toStdString());
        QString m = refusal({'h', 'e', 'l', 'l', 'o'});
        QVERIFY2(m.contains("not an ELF"), qPrintable(m));
        m = refusal(std::vector<std::uint8_t>(good.begin(), good.begin() + 40));
        QVERIFY2(!m.isEmpty(), "a truncated ELF header is accepted");
        m = refusal(readFileBytes("/proc/self/exe"));
        QVERIFY2(m.contains("not a 32-bit big-endian m68k ELF"), qPrintable(m));

        // Garbage in place of .debug_info, and a line table that ends mid-header.
        const QString garbage = dir.filePath("garbage.bin");
        writeFileBytes(garbage.toStdString(), std::vector<std::uint8_t>(64, 0xFF));
        const QString badInfo = dir.filePath("badinfo.elf");
        run(M68K_OBJCOPY, {"--update-section", ".debug_info=" + garbage,
                           QStringLiteral(GUEST_C) + ".elf", badInfo});
        DebugInfoOptions options;
        options.elfPath = badInfo.toStdString();
        try {
            DebugInfo::load(GUEST_C, options);
            QFAIL("corrupt .debug_info accepted");
        } catch (const DebugInfoError& e) {
            QVERIFY2(QString(e.what()).contains("corrupt DWARF"), e.what());
        }
        const QString shortLine = dir.filePath("short.bin");
        writeFileBytes(shortLine.toStdString(), {0x00, 0x00, 0x01, 0x00, 0x00, 0x05});
        const QString badLine = dir.filePath("badline.elf");
        run(M68K_OBJCOPY, {"--update-section", ".debug_line=" + shortLine,
                           QStringLiteral(GUEST_C) + ".elf", badLine});
        options.elfPath = badLine.toStdString();
        try {
            DebugInfo::load(GUEST_C, options);
            QFAIL("corrupt .debug_line accepted");
        } catch (const DebugInfoError& e) {
            QVERIFY2(QString(e.what()).contains("corrupt DWARF"), e.what());
        }
    }

    // A hand-written program as vasm leaves it: hunk symbols and LINE blocks, two files in
    // one code hunk, no ELF. Rows run to the next row of the hunk, whichever file it is in.
    // vbcc's _LinkerDB lies 32,766 bytes into its small data hunk, past the end of this
    // 16-byte one: the program loads, the symbol claims no byte, "table" keeps its bytes.
    void symbolPastItsHunk() {
        HunkFile file;
        HunkSection code;
        code.kind = HunkKind::Code;
        code.allocSize = 8;
        code.data.assign(8, 0x4E);
        code.symbols = {{"start", 0}};
        HunkSection data;
        data.kind = HunkKind::Data;
        data.allocSize = 16;
        data.data.assign(16, 0);
        data.symbols = {{"table", 0}, {"_LinkerDB", 32766}};
        file.sections = {code, data};
        const DebugInfo info = DebugInfo::fromBytes(writeHunkFile(file), "prog", {}, "");
        const DebugScope* table = info.function(info.lookup(1, 0x0C));
        QVERIFY(table);
        QCOMPARE(table->name, std::string("table"));
        for (const DebugScope& scope : info.scopes())
            QVERIFY(scope.name != "_LinkerDB");
    }

    void lineBlocksAndSymbolsAlone() {
        HunkFile file;
        HunkSection code;
        code.kind = HunkKind::Code;
        code.allocSize = 64;
        code.data.assign(64, 0x4E);
        code.symbols = {{"start", 0}, {"loop", 0x10}, {"done", 0x30}};
        code.lineBlocks = {
            {"/build/src/prog.s", {{5, 0}, {6, 4}, {8, 0x10}, {9, 0x14}, {12, 0x30}}},
            {"/build/src/macros.i", {{3, 0x20}, {4, 0x24}}}};
        HunkSection data;
        data.kind = HunkKind::Data;
        data.allocSize = 16;
        data.data.assign(16, 0);
        data.symbols = {{"table", 0}};
        HunkSection bss;
        bss.kind = HunkKind::Bss;
        bss.allocSize = 400;
        file.sections = {code, data, bss};
        const auto bytes = writeHunkFile(file);
        SourceMap map;
        map.addSpec("/build/src=/home/me/src");
        const DebugInfo info = DebugInfo::fromBytes(bytes, "prog", {}, "", map);
        QVERIFY(!info.hasDwarf());
        auto at = [&](std::uint32_t hunk, std::uint32_t off) {
            const AddressInfo a = info.lookup(hunk, off);
            const DebugScope* f = info.function(a);
            return QString("%1 %2").arg(f ? QString::fromStdString(f->name) : "??",
                                        a.line < 0 ? "??:0"
                                                   : location(info, info.lineTable()[a.line].file,
                                                              info.lineTable()[a.line].line));
        };
        QCOMPARE(at(0, 0x06), QString("start /home/me/src/prog.s:6"));
        QCOMPARE(at(0, 0x10), QString("loop /home/me/src/prog.s:8"));
        QCOMPARE(at(0, 0x22), QString("loop /home/me/src/macros.i:3"));
        QCOMPARE(at(0, 0x2E), QString("loop /home/me/src/macros.i:4"));
        QCOMPARE(at(0, 0x3E), QString("done /home/me/src/prog.s:12"));
        QCOMPARE(at(1, 0x0C), QString("table ??:0"));
        QCOMPARE(at(2, 0x10), QString("?? ??:0"));
        QVERIFY(!info.lookup(0, 64).inProgram);
        // Functions take the line of their first instruction.
        QCOMPARE(info.function(info.lookup(0, 0x10))->line, 8u);
        // Packed from 0, longword aligned, without an ELF.
        QCOMPARE(info.linkBases(), (std::vector<std::uint32_t>{0, 64, 80}));
    }

    // The test programs exercise both line-table versions Debian's toolchain writes: 3 for
    // compiled C, 5 for assembly.
    void programsCoverDwarfVersions() {
        const QString c =
            run(M68K_READELF, {"--debug-dump=rawline", QStringLiteral(GUEST_C) + ".elf"});
        const QString info =
            run(M68K_READELF, {"--debug-dump=info", QStringLiteral(GUEST_C) + ".elf"});
        QVERIFY(c.contains(QRegularExpression("DWARF Version:\\s+3")));
        QVERIFY(c.contains(QRegularExpression("DWARF Version:\\s+5")));
        QVERIFY(info.contains(QRegularExpression("Version:\\s+5")));
    }

    // A stale or garbage PROG.elf beside the program: a warning, and the hunk symbols serve.
    // The same ELF named with --elf is still refused.
    void staleSiblingElfFallsBackToHunkSymbols() {
        QTemporaryDir dir;
        const QString prog = dir.filePath("prog");
        QVERIFY(QFile::copy(GUEST_C, prog));
        for (const QString& elf : {QStringLiteral(GUEST_ROUNDTRIP) + ".elf", QString()}) {
            QFile::remove(prog + ".elf");
            if (elf.isEmpty())
                writeFileBytes((prog + ".elf").toStdString(), std::vector<std::uint8_t>(64, 0xFF));
            else
                QVERIFY(QFile::copy(elf, prog + ".elf"));
            const DebugInfo info = DebugInfo::load(prog.toStdString());
            QVERIFY(!info.hasDwarf());
            QVERIFY(info.elfPath().empty());
            QCOMPARE(info.warnings().size(), std::size_t(1));
            QVERIFY2(QString::fromStdString(info.warnings()[0]).contains("using the hunk symbols alone"),
                     info.warnings()[0].c_str());
            bool named = false;
            for (const DebugScope& scope : info.scopes())
                named = named || scope.name == "largest";
            QVERIFY(named);

            QProcess p;
            p.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl", {"symbolize", prog, "0"});
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 0);
            QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("warning:"));
            QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains("hunk 0"));

            DebugInfoOptions named_;
            named_.elfPath = (prog + ".elf").toStdString();
            QVERIFY_THROWS_EXCEPTION(DebugInfoError, DebugInfo::load(prog.toStdString(), named_));
        }
    }

    // The symbolizer command prints what the reader knows.
    void symbolizeCommand() {
        const QString ctl = COPPERLINE_BINARY_DIR "/app/copperline-ctl";
        std::uint32_t largest = 0;
        for (const NmSymbol& s : sizedSymbols(QStringLiteral(GUEST_C) + ".elf"))
            if (s.name == "largest") largest = s.address;
        const QString out =
            run(ctl, {"symbolize", GUEST_C, "--source-map", COPPERLINE_SOURCE_DIR "=/src",
                      "0x" + QString::number(largest, 16), "$F80000"});
        const QStringList lines = out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[0].contains("hunk 0 (.text)"), qPrintable(out));
        QVERIFY2(lines[1].contains(QRegularExpression(
                     "^    largest at /src/tests/guest/debuginfo/inlining.c:\\d+$")),
                 qPrintable(out));
        QVERIFY2(lines[2].contains("0x00f80000: unknown (outside the program)"), qPrintable(out));
        // With bases, the same function answers at its relocated address.
        const QString moved = run(ctl, {"symbolize", GUEST_C, "--bases", "0x20000,0x30000,0x40000",
                                        "0x" + QString::number(0x20000 + largest - 0x1000, 16)});
        QVERIFY2(moved.contains("    largest at"), qPrintable(moved));
    }
};

QTEST_GUILESS_MAIN(TestDebugInfo)
#include "test_debug_info.moc"
