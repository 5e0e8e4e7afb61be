// The main window opens offscreen and its About box asks the command bus for the version.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "ui/main_window.h"

#include <QMenuBar>
#include <QtTest>

using namespace copperline;

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void opensWithMenus() {
        auto machine = std::make_unique<Machine>();
        machine->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
        machine->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
        machine->powerOn();
        Emulator emu(std::move(machine), {});
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.windowTitle(), QStringLiteral("Copperline"));
        QStringList menus;
        for (QAction* a : w.menuBar()->actions()) menus << a->text();
        QVERIFY(menus.contains("&File"));
        QVERIFY(menus.contains("&Help"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
