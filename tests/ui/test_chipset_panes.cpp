// SPDX-License-Identifier: GPL-3.0-or-later
// The Copper, custom registers and memory panes offscreen, each against the command it
// shows, on the chipset debugger's bare-metal program (tests/guest/chipset/chipset_debug.s):
// the Copper list row by row with the Copper's place marked and a MOVE's bits named, list 2
// chosen; every register with its value and last writer (asked for once the pane is shown),
// filtered, its bits named; memory
// by address with its region named, a name refused, the bytes changed since the last stop
// marked, and a text found.

#include "tests/app/chipset_debug_fixture.h"
#include "ui/copper_pane.h"
#include "ui/custom_regs_pane.h"
#include "ui/memory_pane.h"
#include "tests/ui/pane_bridge.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

using namespace copperline;
using nlohmann::json;

namespace {

using testing::chipsetDebug;
using testing::chipsetDebugSymbols;

QString hex(std::uint32_t v, int digits) {
    return QStringLiteral("$%1").arg(v, digits, 16, QLatin1Char('0')).toUpper();
}

json call(Emulator& e, const std::string& method, const json& params = json::object()) {
    const CommandResult r = e.call(method, params);
    if (!r.ok) qWarning("%s: %s", method.c_str(), r.errorMessage.c_str());
    return r.ok ? r.result : json{{"error", r.errorCode}, {"message", r.errorMessage}};
}

using Bridge = copperline::testing::PaneBridge;

std::unique_ptr<Emulator> standingAt(unsigned vpos) {
    auto e = chipsetDebug();
    e->call("step_frame", {{"n", 3}});
    e->call("run_until", {{"vpos", vpos}, {"hpos", 0}});
    return e;
}

} // namespace

class TestChipsetPanes : public QObject {
    Q_OBJECT
private slots:
    void copperPaneShowsTheListAndTheCopper() {
        auto e = standingAt(0xA0);
        Bridge bridge(*e);
        CopperPane pane(bridge.send());
        pane.resize(800, 600);
        pane.show();
        QSignalSpy updated(&pane, &CopperPane::updated);
        pane.setSnapshot(*e->snapshot()); // a paused machine at a new place: it asks
        QTRY_COMPARE(updated.count(), 1);
        QVERIFY2(pane.errorText().isEmpty(), qPrintable(pane.errorText()));

        const json want = call(*e, "copper.list");
        const json& ins = want["instructions"];
        QTableWidget* t = pane.table();
        QCOMPARE(t->rowCount(), int(ins.size()));
        for (int row = 0; row < t->rowCount(); ++row) {
            const json& i = ins[std::size_t(row)];
            QCOMPARE(t->item(row, CopperPane::AddressColumn)->text(),
                     hex(i["addr"].get<std::uint32_t>(), 6));
            QCOMPARE(t->item(row, CopperPane::WordsColumn)->text(),
                     hex(i["words"][0].get<unsigned>(), 4) + QLatin1Char(' ') +
                         hex(i["words"][1].get<unsigned>(), 4));
            const QString mark = t->item(row, CopperPane::MarkColumn)->text();
            QCOMPARE(mark == QStringLiteral("▶"), i["current"].get<bool>());
            QCOMPARE(mark == QStringLiteral("✓"), i["executed"].get<bool>());
        }
        QCOMPARE(pane.copperRow(), 7);
        QCOMPARE(t->item(0, CopperPane::InstructionColumn)->text(),
                 QStringLiteral("MOVE #$0F00,COLOR00"));
        QCOMPARE(t->item(2, CopperPane::InstructionColumn)->text(), QStringLiteral("WAIT $40,$06"));
        QCOMPARE(t->item(3, CopperPane::InstructionColumn)->text(), QStringLiteral("SKIP $30,$00"));
        QCOMPARE(t->item(5, CopperPane::InstructionColumn)->text(),
                 QStringLiteral("WAIT $80,$20 hmask $00 +blitter"));
        QVERIFY(t->item(4, CopperPane::NoteColumn)->text().contains(QStringLiteral("SKIP")));
        QVERIFY(t->item(9, CopperPane::NoteColumn)->text().contains(QStringLiteral("end")));
        QVERIFY2(pane.statusText().contains(QStringLiteral("waiting at $03001C")),
                 qPrintable(pane.statusText()));
        QVERIFY2(pane.statusText().contains(QStringLiteral("8 instruction(s) fetched")),
                 qPrintable(pane.statusText()));

        // A click on the MOVE to BPLCON0 names its bits.
        pane.selectRow(1);
        const QString detail = pane.detailText();
        QVERIFY2(detail.contains(QStringLiteral("BPLCON0 ($100) <- $0200")), qPrintable(detail));
        QVERIFY2(detail.contains(QRegularExpression(QStringLiteral("COLOR\\s+= 1"))),
                 qPrintable(detail));
        QVERIFY2(detail.contains(QRegularExpression(QStringLiteral("HIRES\\s+= 0"))),
                 qPrintable(detail));
        QVERIFY2(detail.contains(QRegularExpression(QStringLiteral("BPU\\s+= 0"))),
                 qPrintable(detail));
        // And a WAIT's compare.
        pane.selectRow(5);
        QVERIFY2(pane.detailText().contains(QStringLiteral("horizontal mask $00")),
                 qPrintable(pane.detailText()));
        QVERIFY(pane.detailText().contains(QStringLiteral("BFD = 0")));

        // List 2: it halts the Copper on its second MOVE.
        pane.setList(CopperPane::List::Two);
        QTRY_COMPARE(updated.count(), 2);
        QCOMPARE(t->rowCount(), 2);
        QCOMPARE(pane.copperRow(), -1);
        QVERIFY(t->item(1, CopperPane::NoteColumn)->text().contains(QStringLiteral("halts")));
        QCOMPARE(t->item(1, CopperPane::InstructionColumn)->text(),
                 QStringLiteral("MOVE #$0041,BLTSIZE"));

        // The current list again, after the machine moved on: the Copper waits at the end.
        pane.setList(CopperPane::List::Current);
        QTRY_COMPARE(updated.count(), 3);
        QVERIFY(e->call("run_until", {{"vpos", 0xD0}, {"hpos", 0}}).ok);
        pane.setSnapshot(*e->snapshot());
        QTRY_COMPARE(updated.count(), 4);
        QCOMPARE(pane.copperRow(), 9);
        // The same snapshot again asks nothing.
        pane.setSnapshot(*e->snapshot());
        QTest::qWait(100);
        QCOMPARE(updated.count(), 4);
    }

    void customRegsPaneShowsValuesAndWriters() {
        const auto sym = chipsetDebugSymbols();
        auto e = standingAt(0xF0);
        Bridge bridge(*e);
        CustomRegsPane pane(bridge.send());
        pane.resize(800, 600);
        QSignalSpy updated(&pane, &CustomRegsPane::updated);
        // Hidden, a stop asks nothing (the writers replay the record); shown, it asks.
        pane.setSnapshot(*e->snapshot());
        QTest::qWait(100);
        QCOMPARE(updated.count(), 0);
        pane.show();
        QTRY_COMPARE(updated.count(), 1);
        QVERIFY2(pane.errorText().isEmpty(), qPrintable(pane.errorText()));

        const json want = call(*e, "custom.dump", {{"writers", true}});
        QCOMPARE(pane.table()->rowCount(), int(want["list"].size()));
        for (const json& r : want["list"]) {
            const QString name = QString::fromStdString(r["name"].get<std::string>());
            const int row = pane.rowOf(name);
            QVERIFY(row >= 0);
            QCOMPARE(pane.table()->item(row, CustomRegsPane::OffsetColumn)->text(),
                     hex(r["offset"].get<unsigned>(), 3));
            if (!r["value"].is_null())
                QVERIFY2(pane.valueText(name).startsWith(hex(r["value"].get<unsigned>(), 4)),
                         qPrintable(name));
        }
        QCOMPARE(pane.valueText(QStringLiteral("COLOR00")), QStringLiteral("$0555"));
        QVERIFY(pane.valueText(QStringLiteral("VPOSR")).endsWith(QStringLiteral("(read)")));
        QVERIFY2(pane.writerText(QStringLiteral("COLOR00"))
                     .startsWith(QStringLiteral("CPU at ") + hex(sym.at("cpu_color"), 6)),
                 qPrintable(pane.writerText(QStringLiteral("COLOR00"))));
        QVERIFY(pane.writerText(QStringLiteral("COLOR00")).contains(QStringLiteral("line $0E0")));
        QVERIFY2(pane.writerText(QStringLiteral("COLOR01"))
                     .startsWith(QStringLiteral("Copper MOVE at $030018")),
                 qPrintable(pane.writerText(QStringLiteral("COLOR01"))));
        QVERIFY(pane.writerText(QStringLiteral("BPLCON1")).isEmpty());

        // A register's bits.
        pane.selectRegister(QStringLiteral("BPLCON0"));
        QVERIFY2(pane.detailText().contains(QRegularExpression(QStringLiteral("COLOR\\s+= 1"))),
                 qPrintable(pane.detailText()));
        QVERIFY(pane.detailText().contains(QStringLiteral("Copper MOVE at $030004")));
        // The filter.
        pane.setFilter(QStringLiteral("color"));
        QVERIFY(!pane.table()->isRowHidden(pane.rowOf(QStringLiteral("COLOR31"))));
        QVERIFY(pane.table()->isRowHidden(pane.rowOf(QStringLiteral("DMACON"))));
        pane.setFilter({});
        QVERIFY(!pane.table()->isRowHidden(pane.rowOf(QStringLiteral("DMACON"))));

        // Without the writers the record is not replayed, and the column is empty.
        pane.setWritersWanted(false);
        QTRY_COMPARE(updated.count(), 2);
        QVERIFY(pane.writerText(QStringLiteral("COLOR00")).isEmpty());
        for (const json& r : pane.reply()["list"])
            QVERIFY(!r.contains("writer_outcome"));
    }

    void memoryPaneShowsRegionsChangesAndFinds() {
        const auto sym = chipsetDebugSymbols();
        auto e = standingAt(0xF0);
        Bridge bridge(*e);
        MemoryPane pane(bridge.send());
        pane.resize(900, 600);
        pane.show();
        QSignalSpy updated(&pane, &MemoryPane::updated);

        // The text the program copied to slow RAM.
        QVERIFY(pane.goTo(QStringLiteral("$C20000")));
        QTRY_COMPARE(updated.count(), 1);
        QVERIFY2(pane.rowText(0).startsWith(QStringLiteral("COPPERLINE-FINDS")),
                 qPrintable(pane.rowText(0)));
        QTRY_VERIFY2(pane.regionText().startsWith(QStringLiteral("slow (ram)")),
                     qPrintable(pane.regionText()));
        QCOMPARE(pane.byteText(0xC20000), QStringLiteral("43")); // 'C'
        // Chip RAM, and the custom registers.
        QVERIFY(pane.goTo(QStringLiteral("0x30000")));
        QTRY_COMPARE(updated.count(), 2);
        QVERIFY2(pane.regionText().startsWith(QStringLiteral("chip (ram)")),
                 qPrintable(pane.regionText()));
        QCOMPARE(pane.byteText(0x30000) + pane.byteText(0x30001), QStringLiteral("0180"));
        QVERIFY(pane.goTo(QStringLiteral("DFF000")));
        QTRY_COMPARE(updated.count(), 3);
        QVERIFY2(pane.regionText().startsWith(QStringLiteral("custom (io)")),
                 qPrintable(pane.regionText()));
        // A name that names nothing is refused, and the pane stays where it was.
        QVERIFY(pane.goTo(QStringLiteral("no_such_name")));
        QTRY_VERIFY(pane.errorText().contains(QStringLiteral("no_such_name")));
        QCOMPARE(pane.address(), 0xDFF000u);

        // The frame counter at $C20100: one frame on (past line $E0 once), its low byte has
        // changed.
        QVERIFY(pane.goTo(QStringLiteral("$C20100")));
        QTRY_COMPARE(updated.count(), 4);
        QVERIFY(pane.errorText().isEmpty());
        QVERIFY(pane.changedAddresses().isEmpty());
        QVERIFY(e->call("run_until", {{"vpos", 0xF0}, {"hpos", 0}}).ok);
        pane.setSnapshot(*e->snapshot());
        QTRY_COMPARE(updated.count(), 5);
        QCOMPARE(pane.changedAddresses(), QList<std::uint32_t>{0xC20103});
        const json counter = call(*e, "mem.read", {{"addr", 0xC20103}});
        QCOMPARE(pane.byteText(0xC20103),
                 QString::fromStdString(counter["data"].get<std::string>()).toUpper());
        QCOMPARE(pane.table()->item(0, 4)->background().color(), QColor(255, 170, 90));
        // A stop where nothing changed marks nothing.
        pane.stopped();
        QTRY_COMPARE(updated.count(), 6);
        QVERIFY(pane.changedAddresses().isEmpty());

        // Find: from the shown address on, then from the start of memory.
        QSignalSpy found(&pane, &MemoryPane::found);
        pane.find(QStringLiteral("COPPERLINE-FINDS-ME"));
        QTRY_COMPARE(found.count(), 1);
        QCOMPARE(found.at(0).at(0).toBool(), true);
        QCOMPARE(pane.address(), sym.at("find_text"));
        pane.find(QStringLiteral("COPPERLINE-FINDS-ME"));
        QTRY_COMPARE(found.count(), 2);
        QCOMPARE(pane.address(), 0xC20000u);
        pane.find(QStringLiteral("NOT-IN-MEMORY-AT-ALL"));
        QTRY_COMPARE(found.count(), 3);
        QCOMPARE(found.at(2).at(0).toBool(), false);
        QVERIFY(!pane.errorText().isEmpty());
    }
};

QTEST_MAIN(TestChipsetPanes)
#include "test_chipset_panes.moc"
