#include "ui/main_window.h"

#include "app/control/emulator.h"

#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>

namespace copperline {

MainWindow::MainWindow(Emulator& emulator, bool, QWidget* parent) : QMainWindow(parent), emulator_(emulator) {
    setWindowTitle(QStringLiteral("Copperline"));
    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Copperline"), this, &MainWindow::showAbout);
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

    auto* centre = new QLabel(tr("No machine is running."), this);
    centre->setAlignment(Qt::AlignCenter);
    setCentralWidget(centre);
    resize(960, 640);
}

void MainWindow::showAbout() {
    const auto version = emulator_.call("version");
    const QString text = version.ok
        ? QString::fromStdString(version.result.value("name", std::string()) + " " +
                                 version.result.value("version", std::string()))
        : tr("Copperline");
    QMessageBox::about(this, tr("About Copperline"),
                       text + tr("\nA cycle-accurate Amiga profiler and debugger."));
}

} // namespace copperline
