// SPDX-License-Identifier: GPL-3.0-or-later
// The unwind table built from programs our toolchain made: every row against binutils'
// own reading of the call-frame information (objdump --dwarf=frames-interp), the known
// shapes at a function's entry and after LINK A5, the rules the table cannot hold, the
// six-byte encoding read back, the refusals, a real table walked by the unwinder, and
// copperline-ctl unwind-table.

#include "emu/base64.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/debuginfo/unwind_table.h"
#include "profiler/sampling/unwinder.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace copperline;

namespace {

QString run(const QString& program, const QStringList& args) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted()) qFatal("cannot run %s", qPrintable(program));
    p.waitForFinished(120000);
    if (p.exitCode() != 0)
        qFatal("%s failed: %s", qPrintable(program), p.readAllStandardError().constData());
    return QString::fromUtf8(p.readAllStandardOutput());
}

struct CtlResult {
    int exitCode = -1;
    QString out, err;
};

CtlResult ctl(const QStringList& args) {
    QProcess p;
    p.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl", args);
    if (!p.waitForFinished(60000)) qFatal("copperline-ctl did not finish");
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

// What objdump makes of the call-frame information, as the table would hold it: the row
// for every two bytes an FDE covers (ELF addresses), and whether the table can express it.
struct OracleRow {
    UnwindRow row;
    bool expressible = true;
};

// One row of objdump's table: its address and the rule, given the columns' header.
std::pair<std::uint32_t, OracleRow> oracleRow(const QStringList& header, const QString& line) {
    static const QRegularExpression cfaRule("^r(\\d+)\\+(\\d+)$");
    static const QRegularExpression slot("^c([+-]\\d+)$");
    const QStringList cols = line.split(' ', Qt::SkipEmptyParts);
    const int a5Col = int(header.indexOf("r13"));
    const auto cfa = cfaRule.match(cols.value(int(header.indexOf("CFA"))));
    const auto ra = slot.match(cols.value(int(header.indexOf("ra"))));
    const QString a5 = a5Col < 0 ? "u" : cols.value(a5Col);
    const auto a5Slot = slot.match(a5);
    OracleRow r;
    if (!cfa.hasMatch() || !ra.hasMatch() || (!a5Slot.hasMatch() && a5 != "u")) {
        r.expressible = false;
    } else {
        r.row.cfaRegister = std::uint8_t(cfa.captured(1).toUInt());
        r.row.cfaOffset = cfa.captured(2).toInt();
        r.row.a5Offset = a5Slot.hasMatch() ? a5Slot.captured(1).toInt() : UnwindRow::kNotSaved;
        r.row.returnOffset = ra.captured(1).toInt();
        r.expressible = r.row.encodable();
    }
    if (!r.expressible) r.row = UnwindRow::defaultRow();
    return {cols.value(0).toUInt(nullptr, 16), r};
}

std::map<std::uint32_t, OracleRow> objdumpRows(const QString& elf) {
    const QStringList lines = run(M68K_OBJDUMP, {"--dwarf=frames-interp", elf}).split('\n');
    static const QRegularExpression cie("^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE");
    static const QRegularExpression fde("FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\\.\\.([0-9a-f]+)");
    std::map<std::uint32_t, OracleRow> initial; // each CIE's rule, by its offset
    std::map<std::uint32_t, OracleRow> out;
    for (int i = 0; i < lines.size(); ++i) {
        if (const auto m = cie.match(lines[i]); m.hasMatch()) {
            const QStringList header = lines.value(i + 1).split(' ', Qt::SkipEmptyParts);
            initial[m.captured(1).toUInt(nullptr, 16)] =
                oracleRow(header, lines.value(i + 2)).second;
            continue;
        }
        const auto m = fde.match(lines[i]);
        if (!m.hasMatch()) continue;
        const std::uint32_t start = m.captured(2).toUInt(nullptr, 16);
        const std::uint32_t end = m.captured(3).toUInt(nullptr, 16);
        // An FDE without instructions of its own is printed without rows: the CIE's holds.
        std::vector<std::pair<std::uint32_t, OracleRow>> rows{
            {start, initial.at(m.captured(1).toUInt(nullptr, 16))}};
        if (!lines.value(i + 1).trimmed().isEmpty()) {
            const QStringList header = lines[++i].split(' ', Qt::SkipEmptyParts);
            rows.clear();
            while (++i < lines.size() && !lines[i].trimmed().isEmpty())
                rows.push_back(oracleRow(header, lines[i]));
        }
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const std::uint32_t to = k + 1 < rows.size() ? rows[k + 1].first : end;
            for (std::uint32_t a = std::max(rows[k].first, start); a < to; a += 2)
                out[a] = rows[k].second;
        }
    }
    return out;
}

// The hunk-0 offset and size of a function, by name.
std::pair<std::uint32_t, std::uint32_t> function(const DebugInfo& info, const std::string& name) {
    for (const ScopeRange& r : info.scopeRanges())
        if (r.hunk == 0 && info.scopes()[r.scope].name == name) return {r.start, r.end - r.start};
    qFatal("no function %s", name.c_str());
}

std::uint16_t wordAt(const std::vector<std::uint8_t>& data, std::uint32_t offset) {
    return std::uint16_t(data[offset] << 8 | data[offset + 1]);
}

UnwindRow row(std::uint8_t reg, std::int32_t cfa, std::int32_t a5, std::int32_t ra) {
    UnwindRow r;
    r.cfaRegister = reg;
    r.cfaOffset = cfa;
    r.a5Offset = a5;
    r.returnOffset = ra;
    return r;
}

class Memory : public LongReader {
public:
    std::map<std::uint32_t, std::uint32_t> longs;
    bool readLong(std::uint32_t address, std::uint32_t& value) const override {
        const auto it = longs.find(address);
        if (it == longs.end()) return false;
        value = it->second;
        return true;
    }
};

template <typename F>
QString thrown(F&& f) {
    try {
        f();
    } catch (const DebugInfoError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestUnwindTable : public QObject {
    Q_OBJECT

private slots:
    void everyRowMatchesObjdump_data() {
        QTest::addColumn<QString>("program");
        QTest::newRow("C -O2") << QStringLiteral(GUEST_C);
        QTest::newRow("frames") << QStringLiteral(GUEST_FRAMES);
        QTest::newRow("large") << QStringLiteral(GUEST_LARGE);
    }

    // Each row is what objdump reads from the same FDEs, default rows stand where no FDE
    // reaches or the rule does not fit, and the counts say how many of each there are.
    void everyRowMatchesObjdump() {
        QFETCH(QString, program);
        const DebugInfo info = DebugInfo::load(program.toStdString());
        std::vector<std::string> warnings;
        UnwindStats stats;
        const UnwindTable table = buildUnwindTable(info, &warnings, &stats);
        QCOMPARE(table.textSize, info.hunks()[0].size);
        QCOMPARE(table.rows.size(), std::size_t((table.textSize + 1) / 2));
        const auto oracle = objdumpRows(program + ".elf");
        const std::uint32_t link = *info.hunks()[0].linkAddress;
        std::uint32_t described = 0, uncovered = 0, unusable = 0;
        for (std::uint32_t off = 0; off < table.textSize; off += 2) {
            const auto it = oracle.find(link + off);
            const UnwindRow expected =
                it == oracle.end() ? UnwindRow::defaultRow() : it->second.row;
            const UnwindRow& got = *table.at(off);
            QVERIFY2(
                got == expected,
                qPrintable(QString("at 0x%1: CFA r%2+%3 A5 %4 RA %5, objdump r%6+%7 A5 %8 RA %9")
                               .arg(link + off, 0, 16)
                               .arg(got.cfaRegister)
                               .arg(got.cfaOffset)
                               .arg(got.a5Offset)
                               .arg(got.returnOffset)
                               .arg(expected.cfaRegister)
                               .arg(expected.cfaOffset)
                               .arg(expected.a5Offset)
                               .arg(expected.returnOffset)));
            ++(it == oracle.end() ? uncovered : it->second.expressible ? described : unusable);
        }
        QVERIFY(described > 20);
        QVERIFY(uncovered > 0); // start.S and the runtime's assembly carry no CFI
        QCOMPARE(stats.describedRows, described);
        QCOMPARE(stats.uncoveredRows, uncovered);
        QCOMPARE(stats.unusableRows, unusable);
        if (unusable == 0) {
            QVERIFY(warnings.empty());
        } else {
            QCOMPARE(warnings.size(), std::size_t(1));
            QVERIFY2(
                QString::fromStdString(warnings[0])
                    .startsWith(program + ".elf: " + QString::number(unusable) + " locations have"),
                warnings[0].c_str());
        }
    }

    // gcc's functions: the entry row is JSR's (CFA = A7+4, return address at CFA-4), and
    // after the register saves the CFA has moved by what was pushed.
    void compiledFunctionEntries() {
        const DebugInfo info = DebugInfo::load(GUEST_C);
        const UnwindTable table = buildUnwindTable(info);
        int checked = 0;
        for (const ScopeRange& r : info.scopeRanges()) {
            const DebugScope& s = info.scopes()[r.scope];
            if (r.hunk != 0 || s.kind != ScopeKind::Function || s.source != ScopeSource::Dwarf)
                continue;
            QVERIFY2(*table.at(r.start) == row(15, 4, UnwindRow::kNotSaved, -4), s.name.c_str());
            ++checked;
        }
        QVERIFY(checked >= 5);
        // accumulate() begins with movem.l to the stack: somewhere inside it the CFA is
        // above A7+4 with the return address still at CFA-4.
        const auto [start, size] = function(info, "accumulate");
        bool moved = false;
        for (std::uint32_t off = start; off < start + size; off += 2) {
            QCOMPARE(table.at(off)->returnOffset, -4);
            QCOMPARE(table.at(off)->cfaRegister, std::uint8_t(15));
            moved = moved || table.at(off)->cfaOffset > 4;
        }
        QVERIFY(moved);
    }

    // The A5 frame: LINK A5 is four bytes; from the next instruction the CFA is A5+8 and A5
    // was saved at CFA-8, until UNLK (two bytes before RTS) hands the frame back to A7.
    void linkA5Frame() {
        const DebugInfo info = DebugInfo::load(GUEST_FRAMES);
        const HunkFile hunks = loadHunkFile(GUEST_FRAMES);
        UnwindStats stats;
        const UnwindTable table = buildUnwindTable(info, nullptr, &stats);
        const auto [start, size] = function(info, "guest_main");
        const auto& code = hunks.sections[0].data;
        QCOMPARE(wordAt(code, start), std::uint16_t(0x4E55));            // link.w a5,#
        QCOMPARE(wordAt(code, start + size - 4), std::uint16_t(0x4E5D)); // unlk a5
        QCOMPARE(wordAt(code, start + size - 2), std::uint16_t(0x4E75)); // rts
        QVERIFY(*table.at(start) == UnwindRow::defaultRow());
        for (std::uint32_t off = start + 4; off < start + size - 2; off += 2)
            QVERIFY2(*table.at(off) == row(13, 8, -8, -4), qPrintable(QString::number(off, 16)));
        QVERIFY(*table.at(start + size - 2) == UnwindRow::defaultRow());

        // The rules the table cannot hold: an A6 frame, a 5004-byte CFA offset, a return
        // address in A0. Their rows are the default, and counted: 2 + 4 + 2.
        const auto [a6, a6Size] = function(info, "frame_a6");
        QCOMPARE(wordAt(code, a6), std::uint16_t(0x4E56)); // link.w a6,#
        const auto [big, bigSize] = function(info, "big_frame");
        const auto [lost, lostSize] = function(info, "lost_return");
        for (std::uint32_t off : {a6 + 4, a6 + 6, big + 4, big + 10, lost + 2, lost + 4})
            QVERIFY2(*table.at(off) == UnwindRow::defaultRow(),
                     qPrintable(QString::number(off, 16)));
        QCOMPARE(stats.unusableRows, 8u);
        Q_UNUSED(a6Size);
        Q_UNUSED(bigSize);
        Q_UNUSED(lostSize);
    }

    // bytes() and parseUnwindTable agree, in both sizes the reader accepts.
    void roundTrip() {
        const DebugInfo info = DebugInfo::load(GUEST_FRAMES);
        const UnwindTable table = buildUnwindTable(info);
        const auto bytes = table.bytes();
        QCOMPARE(bytes.size(), std::size_t(6 * ((table.textSize + 1) / 2)));
        const UnwindTable back = parseUnwindTable(bytes, table.textSize);
        QCOMPARE(back.textSize, table.textSize);
        QVERIFY(back.rows == table.rows);
        // Row layout: guest_main's A5 row is ($D008, -8, -4), little-endian.
        const std::uint32_t at = 6 * ((function(info, "guest_main").first + 4) / 2);
        const std::vector<std::uint8_t> a5Row(bytes.begin() + at, bytes.begin() + at + 6);
        QVERIFY((a5Row == std::vector<std::uint8_t>{0x08, 0xD0, 0xF8, 0xFF, 0xFC, 0xFF}));
        // A default row is ($F004, -1, -4).
        const std::vector<std::uint8_t> first(bytes.begin(), bytes.begin() + 6);
        QVERIFY((first == std::vector<std::uint8_t>{0x04, 0xF0, 0xFF, 0xFF, 0xFC, 0xFF}));
        // Size 0 infers two bytes of text per row.
        const UnwindTable inferred = parseUnwindTable(bytes);
        QCOMPARE(inferred.textSize, std::uint32_t(2 * table.rows.size()));
        QVERIFY(inferred.rows == table.rows);
        // vscode-amiga-debug's shape: a row per byte, the second half default rows.
        std::vector<std::uint8_t> perByte = bytes;
        const std::uint8_t defaultRow[] = {0x04, 0xF0, 0xFF, 0xFF, 0xFC, 0xFF};
        while (perByte.size() < std::size_t(6) * table.textSize)
            perByte.insert(perByte.end(), std::begin(defaultRow), std::end(defaultRow));
        QCOMPARE(perByte.size(), std::size_t(6 * table.textSize));
        QVERIFY(parseUnwindTable(perByte, table.textSize).rows == table.rows);
    }

    void refusals() {
        const DebugInfo info = DebugInfo::load(GUEST_FRAMES);
        const UnwindTable table = buildUnwindTable(info);
        auto bytes = table.bytes();
        const std::uint32_t size = table.textSize;
        const QString rowsPerTwo = QString::number(6 * ((size + 1) / 2));
        const QString rowsPerByte = QString::number(6 * size);

        // A size that is neither: the message names both that would do.
        auto shorter = bytes;
        shorter.resize(shorter.size() - 6);
        QString e = thrown([&] { parseUnwindTable(shorter, size); });
        QVERIFY2(e.contains(rowsPerTwo) && e.contains(rowsPerByte), qPrintable(e));
        e = thrown([&] { parseUnwindTable(std::vector<std::uint8_t>(7), 0); });
        QVERIFY2(e.contains("six-byte rows"), qPrintable(e));
        QVERIFY(!thrown([&] { parseUnwindTable({}, 0); }).isEmpty());

        // A CFA register that is neither A5 nor A7 (A6 = 14), in the third row.
        bytes[13] = 0xE0;
        e = thrown([&] { parseUnwindTable(bytes, size); });
        QVERIFY2(e.contains("row 2") && e.contains("register 14"), qPrintable(e));

        // A hand-made row the encoding cannot hold.
        UnwindTable bad = table;
        bad.rows[1].cfaOffset = 4096;
        QVERIFY(thrown([&] { (void)bad.bytes(); }).contains("0x2"));

        // No ELF: the hunk executable alone has no call-frame information.
        DebugInfoOptions alone;
        alone.findSibling = false;
        const DebugInfo noElf = DebugInfo::load(GUEST_FRAMES, alone);
        e = thrown([&] { buildUnwindTable(noElf); });
        QVERIFY2(e.contains("no ELF"), qPrintable(e));

        // The ELF's bytes given directly: the same table from the right ones, a refusal
        // from another program's, whose text is not hunk 0's.
        const auto own = readFileBytes(GUEST_FRAMES ".elf");
        QVERIFY(buildUnwindTable(info, own).rows == table.rows);
        const auto others = readFileBytes(GUEST_C ".elf");
        e = thrown([&] { buildUnwindTable(info, others); });
        QVERIFY2(e.contains("has no code section of " + QString::number(size)), qPrintable(e));
        e = thrown([&] { buildUnwindTable(info, std::span<const std::uint8_t>()); });
        QVERIFY2(e.contains("not an ELF"), qPrintable(e));

        // An ELF whose .debug_frame was stripped.
        QTemporaryDir dir;
        const QString stripped = dir.filePath("stripped.elf");
        run(M68K_OBJCOPY,
            {"--remove-section=.debug_frame", QStringLiteral(GUEST_FRAMES) + ".elf", stripped});
        DebugInfoOptions withStripped;
        withStripped.elfPath = stripped.toStdString();
        const DebugInfo noCfi = DebugInfo::load(GUEST_FRAMES, withStripped);
        e = thrown([&] { buildUnwindTable(noCfi); });
        QVERIFY2(e.contains("no call-frame information") && e.contains(stripped), qPrintable(e));
    }

    // The real table walked over a hand-made stack: frame_a6's first instruction, called
    // from guest_main (A5 frame), called from _start, whose caller is nowhere.
    void unwindsThroughARealTable() {
        const DebugInfo info = DebugInfo::load(GUEST_FRAMES);
        const HunkFile hunks = loadHunkFile(GUEST_FRAMES);
        const auto& code = hunks.sections[0].data;
        const std::uint32_t base = 0x40000;
        const Unwinder unwinder(buildUnwindTable(info), base);
        const auto main = function(info, "guest_main").first;
        const auto a6 = function(info, "frame_a6").first;
        QCOMPARE(wordAt(code, 0), std::uint16_t(0x4EB9));        // _start: jsr guest_main
        QCOMPARE(wordAt(code, main + 4), std::uint16_t(0x4EB9)); // jsr frame_a6
        Memory mem;
        mem.longs[0x7000] = base + main + 10; // frame_a6's return address
        mem.longs[0x7100] = 0x7200;           // guest_main saved _start's A5
        mem.longs[0x7104] = base + 6;         // and returns after _start's JSR
        mem.longs[0x7108] = 0;                // _start was entered by the reset
        std::vector<std::uint32_t> stack;
        unwinder.unwind(base + a6, 0x7100, 0x7000, mem, stack);
        QCOMPARE(stack, (std::vector<std::uint32_t>{base + a6, base + main + 10, base + 6}));
    }

    // One libdw frame per change of rule, not per location: some 120 KB of code whose rules
    // change every few instructions is built well inside half a second per 100 KB (the
    // bound is loose, for a loaded machine).
    void buildsQuickly() {
        const DebugInfo info = DebugInfo::load(GUEST_LARGE);
        QVERIFY(info.hunks()[0].size > 100'000);
        QElapsedTimer timer;
        timer.start();
        UnwindStats stats;
        const UnwindTable table = buildUnwindTable(info, nullptr, &stats);
        const qint64 ms = timer.elapsed();
        qInfo("%u bytes of text in %lld ms", table.textSize, static_cast<long long>(ms));
        QVERIFY(stats.describedRows > table.rows.size() * 9 / 10);
        QVERIFY2(ms * 100'000 < 1000ll * table.textSize, qPrintable(QString::number(ms)));
    }

    // copperline-ctl unwind-table: the raw rows and their base64, no overwriting without
    // --force.
    void unwindTableCommand() {
        QTemporaryDir dir;
        const QString out = dir.filePath("frames.unwind");
        CtlResult r = ctl({"unwind-table", GUEST_FRAMES, "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const DebugInfo info = DebugInfo::load(GUEST_FRAMES);
        const UnwindTable table = buildUnwindTable(info);
        const auto bytes = table.bytes();
        QCOMPARE(readFileBytes(out.toStdString()), bytes);
        const auto text = readFileBytes((out + ".b64").toStdString());
        QCOMPARE(text.back(), std::uint8_t('\n'));
        QCOMPARE(fromBase64(std::string(text.begin(), text.end() - 1)), std::optional(bytes));
        QVERIFY2(r.out.startsWith(QString::number(table.rows.size()) + " rows for " +
                                  QString::number(table.textSize) + " bytes of text"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(" 8 inexpressible)"), qPrintable(r.out));
        QVERIFY2(r.out.contains(out) && r.out.contains(out + ".b64"), qPrintable(r.out));
        QCOMPARE(r.out.count('\n'), 1);
        QVERIFY2(r.err.contains("warning") && r.err.contains("8 locations"), qPrintable(r.err));

        // Both files are protected: an existing FILE.b64 alone stops it too.
        r = ctl({"unwind-table", GUEST_FRAMES, "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--force"), qPrintable(r.err));
        QVERIFY(QFile::remove(out));
        r = ctl({"unwind-table", GUEST_FRAMES, "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(!QFile::exists(out));
        r = ctl({"unwind-table", GUEST_FRAMES, "--out", out, "--force"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(readFileBytes(out.toStdString()), bytes);

        // --elf names the sibling; without --out, or without an ELF, it says what is missing.
        const QString other = dir.filePath("other.unwind");
        r = ctl(
            {"unwind-table", GUEST_C, "--elf", QStringLiteral(GUEST_C) + ".elf", "--out", other});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(readFileBytes(other.toStdString()),
                 buildUnwindTable(DebugInfo::load(GUEST_C)).bytes());
        r = ctl({"unwind-table", GUEST_FRAMES});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--out"), qPrintable(r.err));
        const QString prog = dir.filePath("alone");
        QVERIFY(QFile::copy(GUEST_FRAMES, prog));
        r = ctl({"unwind-table", prog, "--out", dir.filePath("alone.unwind")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no ELF"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("alone.unwind")));
    }
};

QTEST_GUILESS_MAIN(TestUnwindTable)
#include "test_unwind_table.moc"
