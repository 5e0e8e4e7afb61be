// SPDX-License-Identifier: GPL-3.0-or-later
// The debug-info reader finds the function and source line of known addresses of a guest
// program through its ELF sibling's DWARF, at the addresses the ELF linked it to.

#include "profiler/debuginfo/debug_info.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

using namespace copperline;

namespace {

std::uint32_t symbolAddress(const QString& elf, const QString& name) {
    QProcess p;
    p.start(M68K_NM, {elf});
    p.waitForFinished();
    for (const QString& line : QString::fromUtf8(p.readAllStandardOutput()).split('\n')) {
        const auto parts = line.split(' ');
        if (parts.size() == 3 && parts[2] == name) return parts[0].toUInt(nullptr, 16);
    }
    qFatal("no symbol %s", qPrintable(name));
}

// The 1-based line of the source that defines `function`.
int definitionLine(const QString& function) {
    QFile f(COPPERLINE_SOURCE_DIR "/tests/guest/roundtrip.c");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read roundtrip.c");
    const QRegularExpression def("^\\S.*\\b" + function + "\\(int");
    int n = 0;
    while (!f.atEnd()) {
        ++n;
        if (def.match(QString::fromUtf8(f.readLine())).hasMatch()) return n;
    }
    qFatal("no definition of %s", qPrintable(function));
}

} // namespace

class TestDwarfLookup : public QObject {
    Q_OBJECT
    const QString elf = QStringLiteral(GUEST_ROUNDTRIP_ELF);
    const QString program = QStringLiteral(GUEST_ROUNDTRIP);

private slots:
    void findsFunctionAndLine_data() {
        QTest::addColumn<QString>("function");
        QTest::newRow("global") << "multiply";
        QTest::newRow("static") << "scale";
        QTest::newRow("divide") << "divide";
    }

    void findsFunctionAndLine() {
        QFETCH(QString, function);
        const DebugInfo info = DebugInfo::load(program.toStdString());
        QCOMPARE(QString::fromStdString(info.elfPath()), elf);
        const HunkBases bases(info, info.linkBases());
        const AddressInfo at = info.lookup(symbolAddress(elf, function), bases);
        QVERIFY(at.inProgram);
        const auto frames = info.frames(at);
        QCOMPARE(frames.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(frames[0].scope->name), function);
        QVERIFY(QString::fromStdString(info.fileName(frames[0].file))
                    .endsWith("tests/guest/roundtrip.c"));
        QCOMPARE(int(frames[0].line), definitionLine(function));
        QCOMPARE(int(info.function(at)->line), definitionLine(function));
    }

    void addressOutsideTheProgramIsUnknown() {
        const DebugInfo info = DebugInfo::load(program.toStdString());
        const AddressInfo at = info.lookup(0x00F00000, HunkBases(info, info.linkBases()));
        QVERIFY(!at.inProgram);
        QVERIFY(info.frames(at).empty());
        QCOMPARE(info.function(at), nullptr);
    }

    void unreadableFileIsAnError() {
        QVERIFY_THROWS_EXCEPTION(MediaError, DebugInfo::load("/nonexistent"));
        DebugInfoOptions options;
        options.elfPath = "/nonexistent.elf";
        QVERIFY_THROWS_EXCEPTION(MediaError, DebugInfo::load(program.toStdString(), options));
    }
};

QTEST_GUILESS_MAIN(TestDwarfLookup)
#include "test_dwarf_lookup.moc"
