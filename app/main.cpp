// copperline: the emulator, as a desktop debugger or headless.

#include "app/control/command_bus.h"
#include "app/version.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Copperline"));
    QApplication::setOrganizationName(QStringLiteral("Copperline"));
    QApplication::setApplicationVersion(QString::fromLatin1(copperline::kVersion));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Copperline: a cycle-accurate Amiga profiler and debugger."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.process(app);

    copperline::CommandBus bus;
    bus.add("version", "The emulator's name and version.", [](const nlohmann::json&) {
        return nlohmann::json{{"name", "Copperline"}, {"version", copperline::kVersion}};
    });

    copperline::MainWindow window(bus);
    window.show();
    return app.exec();
}
