// copperline: the emulator, as a desktop debugger or headless.

#include "app/control/control_server.h"
#include "app/control/emulator.h"
#include "app/control/socket_path.h"
#include "app/headless.h"
#include "app/profile_run.h"
#include "app/run_program.h"
#include "app/version.h"
#include "emu/machine.h"
#include "emu/media/byte_reader.h"
#include "emu/media/rom.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <cstring>
#include <memory>

namespace {

// Options that mean "no window": decided before any Qt application object exists, so a
// headless run needs no display.
bool wantsHeadless(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (!std::strcmp(a, "--headless") || !std::strcmp(a, "--screenshot-after") || !std::strcmp(a, "--seconds") ||
            !std::strcmp(a, "--control"))
            return true;
        // Help and version need no window either, and must work where there is no display.
        if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h") || !std::strcmp(a, "--help-all") ||
            !std::strcmp(a, "--version") || !std::strcmp(a, "-v"))
            return true;
    }
    return false;
}

FILE* serialFile = nullptr;

} // namespace

int main(int argc, char** argv) {
    const bool headless =
        wantsHeadless(argc, argv) || copperline::wantsRun(argc, argv) || copperline::wantsProfile(argc, argv);
    std::unique_ptr<QCoreApplication> app =
        headless ? std::make_unique<QCoreApplication>(argc, argv) : std::make_unique<QApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("Copperline"));
    QCoreApplication::setOrganizationName(QStringLiteral("Copperline"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(copperline::kVersion));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Copperline: a cycle-accurate Amiga profiler and debugger."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption romOpt("rom", "Kickstart ROM image (default: the AROS ROM set-up extracted).", "FILE");
    const QCommandLineOption extOpt("ext-rom", "Extension ROM at $E00000 (default: AROS's, with the default ROM).", "FILE");
    const QCommandLineOption ntscOpt("ntsc", "An NTSC machine (default PAL).");
    const QCommandLineOption factoryOpt("factory", "Ignore saved settings; use the factory defaults.");
    const QCommandLineOption noAudioOpt("noaudio", "No sound output.");
    const QCommandLineOption headlessOpt("headless", "Run without a window, unpaced.");
    const QCommandLineOption shotOpt("screenshot-after",
                                     "Headless: after SECONDS emulated seconds write the display to FILE.png "
                                     "(repeatable; give SECONDS and FILE as two arguments).",
                                     "SECONDS");
    const QCommandLineOption secondsOpt("seconds", "Headless: run this many emulated seconds.", "SECONDS");
    const QCommandLineOption serialOpt("serial-out", "Where the serial port's output goes: a file, or - for stdout "
                                                     "(default: stdout when headless, nowhere in the window).",
                                       "FILE");
    const QCommandLineOption speedOpt("speed", "Headless: report emulated seconds per host second at the end.");
    const QCommandLineOption controlOpt("control",
                                        "Headless, controlled over the local socket NAME (docs/control-protocol.md): "
                                        "starts paused, unpaced, and runs until the quit method.",
                                        "NAME");
    const QCommandLineOption controlGuiOpt("control-gui", "Open the window and serve the control socket NAME too.",
                                           "NAME");
    const QCommandLineOption controlInfoOpt("control-info",
                                            "Write the control socket's path and protocol version to FILE (0600).",
                                            "FILE");
    const QCommandLineOption shotOverlayOpt(
        "screenshot-overlay",
        "Headless: draw the guest's debug overlay (uaelib) into the screenshots.");
    const QCommandLineOption guestFilesOpt(
        "guest-files",
        "The folder uaelib's debug_load and debug_save may use (without it they "
        "fail for the guest; docs/guest-api.md).",
        "DIR");
    const QCommandLineOption budgetOpt(
        "record-budget",
        "Bytes the record of the past may hold, in MiB (default 256, or "
        "COPPERLINE_DBG_RR_BUDGET_MB; at least 1).",
        "MIB");
    parser.addOptions({romOpt, extOpt, ntscOpt, factoryOpt, noAudioOpt, headlessOpt, shotOpt,
                       secondsOpt, serialOpt, speedOpt, controlOpt, controlGuiOpt, controlInfoOpt,
                       shotOverlayOpt, guestFilesOpt, budgetOpt});
    copperline::addRunOptions(parser);
    copperline::addProfileOptions(parser);
    parser.addPositionalArgument("FILE.png", "screenshot files, one after each --screenshot-after SECONDS");
    parser.process(*app);

    // The record's budget: the flag, else the variable users of the Rust Copperline know.
    std::size_t recordBudgetMiB = 256;
    {
        QString text = parser.value(budgetOpt);
        const char* what = "--record-budget";
        if (!parser.isSet(budgetOpt) && qEnvironmentVariableIsSet("COPPERLINE_DBG_RR_BUDGET_MB")) {
            text = qEnvironmentVariable("COPPERLINE_DBG_RR_BUDGET_MB");
            what = "COPPERLINE_DBG_RR_BUDGET_MB";
        }
        if (!text.isEmpty()) {
            bool ok = false;
            const qulonglong v = text.toULongLong(&ok);
            if (!ok || v < 1 || v > 1024 * 1024) {
                std::fprintf(stderr, "copperline: %s: expected MiB from 1 to 1048576, not '%s'\n",
                             what, text.toLocal8Bit().constData());
                return copperline::exit_status::Usage;
            }
            recordBudgetMiB = std::size_t(v);
        }
    }

    copperline::Machine::Config config;
    config.ntsc = parser.isSet(ntscOpt);
    auto machine = std::make_unique<copperline::Machine>(config);
    try {
        const std::string romPath = parser.isSet(romOpt) ? parser.value(romOpt).toStdString() : copperline::defaultRomPath();
        machine->setRom(copperline::loadRom(romPath));
        if (parser.isSet(extOpt)) machine->setExtRom(copperline::loadRom(parser.value(extOpt).toStdString()));
        else if (!parser.isSet(romOpt)) machine->setExtRom(copperline::loadRom(copperline::defaultExtRomPath()));
    } catch (const copperline::MediaError& e) {
        std::fprintf(stderr, "copperline: ROM: %s\n", e.what());
        if (!parser.isSet(romOpt))
            std::fprintf(stderr, "copperline: run scripts/setup.sh to extract the AROS ROM, or give --rom FILE\n");
        return copperline::exit_status::Usage;
    }

    if (parser.isSet(guestFilesOpt)) {
        const std::string error =
            machine->guestApi().files().setFolder(parser.value(guestFilesOpt).toStdString());
        if (!error.empty()) {
            std::fprintf(stderr, "copperline: --guest-files: %s\n", error.c_str());
            return copperline::exit_status::Usage;
        }
    }

    const QString serial = parser.value(serialOpt);
    // --run keeps stdout for the program's output.
    if (serial == "-" || (serial.isEmpty() && headless && !parser.isSet("run"))) {
        serialFile = stdout;
    } else if (!serial.isEmpty()) {
        serialFile = std::fopen(serial.toLocal8Bit().constData(), "wb");
        if (!serialFile) {
            std::fprintf(stderr, "copperline: cannot write %s\n", serial.toLocal8Bit().constData());
            return copperline::exit_status::Usage;
        }
    }
    machine->powerOn();
    copperline::MediaSession media;
    if (const int rc = copperline::applyFloppyOptions(parser, *machine, media)) return rc;

    const bool controlled = parser.isSet(controlOpt);
    if (headless && !controlled) {
        if (serialFile)
            machine->setSerialSink([](std::uint8_t b) {
                std::fputc(b, serialFile);
                if (b == '\n') std::fflush(serialFile);
            });
        if (parser.isSet("run")) return copperline::runFromCommandLine(parser, *machine, media, parser.isSet(speedOpt));
        if (parser.isSet("profile")) return copperline::runProfileFromCommandLine(parser, *machine);
        copperline::HeadlessOptions opts;
        const QStringList times = parser.values(shotOpt);
        const QStringList files = parser.positionalArguments();
        if (times.size() != files.size()) {
            std::fprintf(stderr, "copperline: each --screenshot-after SECONDS needs a FILE.png after it\n");
            return copperline::exit_status::Usage;
        }
        for (int i = 0; i < times.size(); ++i) {
            bool ok = false;
            const double s = times[i].toDouble(&ok);
            if (!ok || s < 0) {
                std::fprintf(stderr, "copperline: --screenshot-after wants seconds, not '%s'\n", qPrintable(times[i]));
                return copperline::exit_status::Usage;
            }
            opts.screenshots.push_back({s, files[i].toStdString()});
        }
        if (parser.isSet(secondsOpt)) opts.runSeconds = parser.value(secondsOpt).toDouble();
        opts.printSpeed = parser.isSet(speedOpt);
        opts.screenshotOverlay = parser.isSet(shotOverlayOpt);
        int rc = copperline::runHeadless(*machine, opts);
        if (const int m = copperline::finishFloppies(*machine, media); m && !rc) rc = m;
        if (serialFile && serialFile != stdout) std::fclose(serialFile);
        return rc;
    }

    // The emulator thread owns the machine from here on; everything else sends commands.
    copperline::Emulator::Options eo;
    eo.paced = !headless;
    eo.startRunning = !headless;
    eo.pictures = !headless;
    eo.serialOut = serialFile;
    eo.tracesDir = parser.value("traces").toStdString();
    eo.recordBudgetBytes = recordBudgetMiB << 20;
    copperline::Emulator emulator(std::move(machine), eo);
    emulator.setQuitHandler([] { QMetaObject::invokeMethod(QCoreApplication::instance(), &QCoreApplication::quit, Qt::QueuedConnection); });

    std::unique_ptr<copperline::ControlServer> server;
    const QString controlName = controlled ? parser.value(controlOpt) : parser.value(controlGuiOpt);
    if (!controlName.isEmpty()) {
        server = std::make_unique<copperline::ControlServer>(emulator);
        std::string error;
        if (!server->listen(controlName.toStdString(), &error)) {
            std::fprintf(stderr, "copperline: control: %s\n", error.c_str());
            return copperline::exit_status::Usage;
        }
        if (parser.isSet(controlInfoOpt)) {
            try {
                copperline::writeControlInfo(parser.value(controlInfoOpt).toStdString(), server->socketPath(),
                                             controlName.toStdString());
            } catch (const copperline::ControlPathError& e) {
                std::fprintf(stderr, "copperline: control: %s\n", e.what());
                return copperline::exit_status::Usage;
            }
        }
        std::fprintf(stderr, "copperline-control: socket=%s proto=%d\n", server->socketPath().c_str(),
                     copperline::kControlProtocolVersion);
    } else if (parser.isSet(controlInfoOpt)) {
        std::fprintf(stderr, "copperline: --control-info needs --control or --control-gui\n");
        return copperline::exit_status::Usage;
    }

    emulator.start();
    int rc = 0;
    if (headless) {
        rc = app->exec();
    } else {
        copperline::MainWindow window(emulator, parser.isSet(factoryOpt));
        window.show();
        rc = app->exec();
    }
    // The emulator thread stops first, answering what it still holds (ShuttingDown); then
    // the server delivers those answers and writes everything out before its sockets close.
    emulator.stop();
    if (server) server->finish();
    server.reset();
    if (serialFile && serialFile != stdout) std::fclose(serialFile);
    return rc;
}
