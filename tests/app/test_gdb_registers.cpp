// SPDX-License-Identifier: GPL-3.0-or-later
// The 68000's registers in the GDB remote protocol (app/gdb/registers.h): the `g`/`p` hex
// both ways, refusals of malformed data, and the target description as gdb-multiarch reads
// it (each name at its number, 4 bytes, 72 bytes in all: the `g` packet's layout).

#include "app/gdb/registers.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline::gdb;

class TestGdbRegisters : public QObject {
    Q_OBJECT
private slots:
    void bothWays() {
        CoreRegisters regs;
        for (int i = 0; i < kRegisterCount; ++i) regs.r[std::size_t(i)] = 0x01020304u * std::uint32_t(i + 1);
        regs.r[kSrRegister] = 0x2700;
        regs.r[kPcRegister] = 0x00fc00d2;
        const std::string g = encodeRegisters(regs);
        QCOMPARE(g.size(), std::size_t(kRegisterCount * 8));
        QCOMPARE(g.substr(0, 16), std::string("0102030402040608"));
        QCOMPARE(g.substr(16 * 8), std::string("0000270000fc00d2"));
        QCOMPARE(decodeRegisters(g).value().r, regs.r);
        QCOMPARE(encodeRegister(0xdeadbeef), std::string("deadbeef"));
        QCOMPARE(decodeRegister("DEADbeef").value(), 0xdeadbeefu);
        QCOMPARE(std::string(registerName(14)), std::string("fp"));
        QCOMPARE(std::string(registerName(17)), std::string("pc"));
        QVERIFY(registerName(18).empty() && registerName(-1).empty());
    }

    void refusesMalformedData() {
        QVERIFY(!decodeRegister("1234567"));
        QVERIFY(!decodeRegister("123456789"));
        QVERIFY(!decodeRegister("1234567g"));
        QVERIFY(!decodeRegisters(std::string(kRegisterCount * 8 - 2, '0')));
        QVERIFY(!decodeRegisters(std::string(kRegisterCount * 8, 'x')));
    }

    void gdbReadsTheDescription() {
        QTemporaryDir dir;
        const QString path = dir.filePath("target.xml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(targetDescription()));
        f.close();
        QProcess gdb;
        gdb.start(QStringLiteral(GDB_MULTIARCH), {"-batch", "-nx", "-ex", "set architecture m68k", "-ex",
                                                  "set tdesc filename " + path, "-ex", "maint print registers"});
        QVERIFY(gdb.waitForFinished(60000));
        const QString out = QString::fromUtf8(gdb.readAllStandardOutput() + gdb.readAllStandardError());
        QVERIFY2(!out.contains(QStringLiteral("rejected")), qPrintable(out));
        const QRegularExpression row(QStringLiteral("^ (\\w+)\\s+(\\d+)\\s+\\d+\\s+(\\d+)\\s+(\\d+)"),
                                     QRegularExpression::MultilineOption);
        int seen = 0;
        for (auto it = row.globalMatch(out); it.hasNext();) {
            const auto m = it.next();
            const int n = m.captured(2).toInt();
            if (n >= kRegisterCount) continue;
            QCOMPARE(m.captured(1).toStdString(), std::string(registerName(n)));
            QCOMPARE(m.captured(3).toInt(), n * 4); // its offset in the `g` packet
            QCOMPARE(m.captured(4).toInt(), 4);
            ++seen;
        }
        QCOMPARE(seen, kRegisterCount);
    }
};

QTEST_GUILESS_MAIN(TestGdbRegisters)
#include "test_gdb_registers.moc"
