// libdw finds the function and source line of known addresses in a guest ELF.

#include "profiler/debuginfo/dwarf_lookup.h"

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

private slots:
    void findsFunctionAndLine_data() {
        QTest::addColumn<QString>("function");
        QTest::newRow("global") << "multiply";
        QTest::newRow("static") << "scale";
        QTest::newRow("divide") << "divide";
    }

    void findsFunctionAndLine() {
        QFETCH(QString, function);
        const auto loc = lookupDwarfAddress(elf.toStdString(), symbolAddress(elf, function));
        QVERIFY(loc.has_value());
        QCOMPARE(QString::fromStdString(loc->function), function);
        QVERIFY(QString::fromStdString(loc->file).endsWith("tests/guest/roundtrip.c"));
        QCOMPARE(loc->line, definitionLine(function));
    }

    void addressOutsideAnyUnitIsUnknown() {
        QVERIFY(!lookupDwarfAddress(elf.toStdString(), 0x00F00000).has_value());
    }

    void unreadableFileIsAnError() {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, lookupDwarfAddress("/nonexistent.elf", 0));
    }
};

QTEST_GUILESS_MAIN(TestDwarfLookup)
#include "test_dwarf_lookup.moc"
