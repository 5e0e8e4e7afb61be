// SPDX-License-Identifier: GPL-3.0-or-later
// copperline: the emulator, as a desktop debugger or headless.

#include "app/control/control_server.h"
#include "app/control/emulator.h"
#include "app/control/socket_path.h"
#include "app/coverage_run.h"
#include "app/gdb/gdb_server.h"
#include "app/headless.h"
#include "app/profile_run.h"
#include "app/run_program.h"
#include "app/version.h"
#include "emu/machine.h"
#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "emu/state/uss.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSocketNotifier>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

namespace {

// What a positional argument already on disk is, so that a screenshot never replaces a
// user's disk or program: "" for anything else.
std::string userFileKind(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray head = f.read(4);
    if (head == QByteArray("\0\0\x03\xF3", 4)) return "program"; // HUNK_HEADER (hunk.h)
    const QString lower = path.toLower();
    if (lower.endsWith(".adf") || f.size() == copperline::adf::kImageBytes ||
        f.size() == copperline::adf::kHdImageBytes)
        return "disk";
    return {};
}

bool parseSeconds(const QString& text, double& out) {
    bool ok = false;
    const double s = text.toDouble(&ok);
    if (!ok || !std::isfinite(s) || s < 0) return false;
    out = s;
    return true;
}

// Checks what QCommandLineParser cannot: numbers, the screenshot files and what each
// positional argument is. Returns 0 or the exit status, having said why on stderr.
int checkArguments(const QCommandLineParser& parser, const QCommandLineOption& shotOpt,
                   const QCommandLineOption& secondsOpt, const QCommandLineOption& forceOpt,
                   copperline::HeadlessOptions& opts) {
    using copperline::exit_status::Usage;
    if (parser.isSet(secondsOpt) && !parseSeconds(parser.value(secondsOpt), opts.runSeconds)) {
        std::fprintf(
            stderr,
            "copperline: --seconds wants a number of emulated seconds (0 or more), not '%s'\n",
            qPrintable(parser.value(secondsOpt)));
        return Usage;
    }
    const QStringList times = parser.values(shotOpt);
    const QStringList files = parser.positionalArguments();
    for (const QString& file : files) {
        const std::string kind = userFileKind(file);
        const QString native = QDir::toNativeSeparators(file);
        if (kind == "disk") {
            std::fprintf(
                stderr,
                "copperline: %s is a disk image; to insert it, type: copperline --floppy0 %s "
                "(screenshots go to FILE.png after --screenshot-after SECONDS)\n",
                qPrintable(native), qPrintable(native));
            return Usage;
        }
        if (kind == "program") {
            std::fprintf(
                stderr,
                "copperline: %s is an AmigaOS program; to run it, type: copperline --run %s "
                "(screenshots go to FILE.png after --screenshot-after SECONDS)\n",
                qPrintable(native), qPrintable(native));
            return Usage;
        }
    }
    if (times.size() != files.size()) {
        std::fprintf(stderr,
                     "copperline: each --screenshot-after SECONDS needs a FILE.png after it "
                     "(e.g. --screenshot-after 40 boot.png)\n");
        return Usage;
    }
    for (int i = 0; i < times.size(); ++i) {
        double s = 0;
        if (!parseSeconds(times[i], s)) {
            std::fprintf(stderr,
                         "copperline: --screenshot-after wants seconds (0 or more), not '%s'\n",
                         qPrintable(times[i]));
            return Usage;
        }
        if (QFileInfo::exists(files[i]) && !parser.isSet(forceOpt)) {
            std::fprintf(stderr, "copperline: %s exists; --force writes over it\n",
                         qPrintable(QDir::toNativeSeparators(files[i])));
            return Usage;
        }
        opts.screenshots.push_back({s, files[i].toStdString()});
    }
    return 0;
}

FILE* serialFile = nullptr;

// --gdb, --gdb-gui and --gdb-dialect: one stub, at an address that is one, and no other
// controller beside it.
int checkGdbOptions(const QCommandLineParser& parser, const QCommandLineOption& gdbOpt,
                    const QCommandLineOption& gdbGuiOpt, const QCommandLineOption& dialectOpt) {
    const bool gdb = parser.isSet(gdbOpt), gui = parser.isSet(gdbGuiOpt);
    if (gdb && gui) {
        std::fprintf(stderr, "copperline: give --gdb (headless) or --gdb-gui (the window), not both\n");
        return copperline::exit_status::Usage;
    }
    if (!gdb && !gui) {
        if (parser.isSet(dialectOpt)) {
            std::fprintf(stderr, "copperline: --gdb-dialect goes with --gdb or --gdb-gui\n");
            return copperline::exit_status::Usage;
        }
        return 0;
    }
    if (parser.isSet("control") || parser.isSet("control-gui") || parser.isSet("headless")) {
        std::fprintf(stderr, "copperline: --%s serves gdb; it does not combine with --%s\n", gdb ? "gdb" : "gdb-gui",
                     parser.isSet("control") ? "control" : parser.isSet("control-gui") ? "control-gui" : "headless");
        return copperline::exit_status::Usage;
    }
    const QString dialect = parser.value(dialectOpt);
    if (parser.isSet(dialectOpt) && dialect != "standard" && dialect != "bartman") {
        std::fprintf(stderr, "copperline: --gdb-dialect wants standard or bartman, not '%s'\n", qPrintable(dialect));
        return copperline::exit_status::Usage;
    }
    std::string host, error;
    std::uint16_t port = 0;
    if (!copperline::gdb::parseListenAddress((gdb ? parser.value(gdbOpt) : parser.value(gdbGuiOpt)).toStdString(),
                                             host, port, &error)) {
        std::fprintf(stderr, "copperline: --%s: %s\n", gdb ? "gdb" : "gdb-gui", error.c_str());
        return copperline::exit_status::Usage;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Copperline: a cycle-accurate Amiga profiler and debugger."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption romOpt(
        "rom",
        "Kickstart ROM image (default: the free AROS ROM from Debian's fs-uae package, extracted "
        "once into $XDG_DATA_HOME/copperline/roms; COPPERLINE_ROM_DIR names another folder).",
        "FILE");
    const QCommandLineOption extOpt(
        "ext-rom", "Extension ROM at $E00000 (default: AROS's, with the default ROM).", "FILE");
    const QCommandLineOption ntscOpt("ntsc", "An NTSC machine (default PAL).");
    const QCommandLineOption chipOpt(
        "chip",
        "Chip RAM: 512K (the default, an A500's Agnus 8371), 1M or 2M (these fit the ECS Agnus "
        "8372, which addresses 1 or 2 MB for the CPU and every DMA channel).",
        "SIZE");
    const QCommandLineOption slowOpt(
        "slow",
        "Slow RAM at $C00000: 0, 512K, 1M or 1.5M (default 512K; 1.5M with --run, so that a "
        "program has room to load and run).",
        "SIZE");
    const QCommandLineOption fastOpt(
        "fast",
        "Zorro II fast RAM on an AutoConfig board: 0 (the default), 64K, 128K, 256K, 512K, 1M, "
        "2M, 4M or 8M. The ROM configures it (usually at $200000); the CPU never waits for it.",
        "SIZE");
    const QCommandLineOption rtcTimeOpt(
        "rtc-time",
        "The time the A501's clock (fitted with slow RAM) shows at power-on: now (the host's local "
        "time), seconds since 1970, or YYYY-MM-DD[THH:MM[:SS]] (default 2000-01-01T00:00:00, so "
        "that runs repeat exactly). It then counts emulated seconds.",
        "TIME");
    const QCommandLineOption rtcFrozenOpt("rtc-frozen", "The clock does not advance: it always shows --rtc-time.");
    const QCommandLineOption factoryOpt("factory",
                                        "Ignore saved settings; use the factory defaults.");
    const QCommandLineOption noAudioOpt("noaudio", "No sound output.");
    const QCommandLineOption headlessOpt("headless", "Run without a window, unpaced.");
    const QCommandLineOption shotOpt(
        "screenshot-after",
        "Headless: after SECONDS emulated seconds write the display to FILE.png "
        "(repeatable; give SECONDS and FILE as two arguments).",
        "SECONDS");
    const QCommandLineOption secondsOpt("seconds", "Headless: run this many emulated seconds.",
                                        "SECONDS");
    const QCommandLineOption serialOpt(
        "serial-out",
        "Where the serial port's output goes: a file, or - for stdout "
        "(default: stdout when headless, nowhere in the window).",
        "FILE");
    const QCommandLineOption speedOpt(
        "speed", "Headless: report emulated seconds per host second at the end.");
    const QCommandLineOption controlOpt(
        "control",
        "Headless, controlled over the local socket NAME (docs/control-protocol.md): "
        "starts paused, unpaced, and runs until the quit method.",
        "NAME");
    const QCommandLineOption controlGuiOpt(
        "control-gui", "Open the window and serve the control socket NAME too.", "NAME");
    const QCommandLineOption controlInfoOpt(
        "control-info", "Write the control socket's path and protocol version to FILE (0600).",
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
    const QCommandLineOption forceOpt(
        "force", "Write over files that exist (the --screenshot-after FILE.png).");
    const QCommandLineOption symbolsOpt(
        "symbols",
        "Debug information for code that is no AmigaOS executable (a boot block, code a loader "
        "places): an ELF, its lowest section at BASE ($40000, 0x40000 or decimal; without @BASE, "
        "at its link addresses). It names that code in the window, symbols.resolve, the strip and "
        "--profile's capture. Repeatable.",
        "ELF@BASE");
    const QCommandLineOption gdbOpt(
        "gdb",
        "Headless, a GDB remote stub on [HOST:]PORT (a port alone: 127.0.0.1; docs/gdb.md): stopped at "
        "reset, or with --run PROG at its first instruction, when it starts listening.",
        "[HOST:]PORT");
    const QCommandLineOption gdbGuiOpt("gdb-gui", "Open the window and serve a GDB remote stub on [HOST:]PORT too; "
                                                  "the machine pauses when gdb attaches.",
                                       "[HOST:]PORT");
    const QCommandLineOption gdbDialectOpt(
        "gdb-dialect",
        "standard (gdb-multiarch, the default) or bartman (the gdb of Bartman's VS Code extension, which "
        "connects to 127.0.0.1:2345).",
        "DIALECT");
    const QCommandLineOption loadUssOpt(
        "load-uss",
        "Start from a WinUAE/FS-UAE saved state (.uss; docs/formats/uss.md) made with the same Kickstart "
        "(--rom, checked by CRC-32). Its first frame is a reconstruction; what the state does not restore "
        "(drives, input, the clock) is listed on stderr.",
        "FILE");
    parser.addOptions({loadUssOpt});
    parser.addOptions({romOpt, extOpt, ntscOpt, chipOpt, slowOpt, fastOpt, rtcTimeOpt, rtcFrozenOpt, factoryOpt, noAudioOpt, headlessOpt, shotOpt,
                       secondsOpt, serialOpt, speedOpt, controlOpt, controlGuiOpt, controlInfoOpt,
                       shotOverlayOpt, guestFilesOpt, budgetOpt, forceOpt, symbolsOpt, gdbOpt, gdbGuiOpt,
                       gdbDialectOpt});
    copperline::addRunOptions(parser);
    copperline::addProfileOptions(parser);
    copperline::addCoverageOptions(parser);
    parser.addPositionalArgument("FILE.png",
                                 "screenshot files, one after each --screenshot-after SECONDS");

    // Every argument is parsed and checked before a Qt application exists: a mistake is a
    // message and exit status 2 (README.md), even where there is no display to open.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "copperline: %s (copperline --help lists the options)\n",
                     qPrintable(parser.errorText()));
        return copperline::exit_status::Usage;
    }
    const bool helpOrVersion =
        parser.isSet("help") || parser.isSet("help-all") || parser.isSet("version");
    copperline::HeadlessOptions opts;
    opts.printSpeed = parser.isSet(speedOpt);
    opts.screenshotOverlay = parser.isSet(shotOverlayOpt);
    if (!helpOrVersion) {
        if (const int rc = checkArguments(parser, shotOpt, secondsOpt, forceOpt, opts)) return rc;
        if (const int rc = copperline::checkCoverageOptions(parser)) return rc;
        if (parser.isSet(controlInfoOpt) && !parser.isSet(controlOpt) &&
            !parser.isSet(controlGuiOpt)) {
            std::fprintf(stderr, "copperline: --control-info needs --control or --control-gui\n");
            return copperline::exit_status::Usage;
        }
        if (const int rc = checkGdbOptions(parser, gdbOpt, gdbGuiOpt, gdbDialectOpt)) return rc;
        if (parser.isSet(loadUssOpt) && (parser.isSet("run") || parser.isSet("profile"))) {
            std::fprintf(stderr, "copperline: --load-uss starts from a saved machine; it does not combine with --%s\n",
                         parser.isSet("run") ? "run" : "profile");
            return copperline::exit_status::Usage;
        }
    }
    // --symbols: read and placed now, so that a mistake is a message before anything runs.
    std::vector<copperline::LoadedSymbols> symbols;
    if (!helpOrVersion && parser.isSet(symbolsOpt)) {
        if (parser.isSet("run") && !parser.isSet(controlGuiOpt) && !parser.isSet(controlOpt)) {
            std::fprintf(stderr, "copperline: --symbols names code that is no AmigaOS executable; --run's program is "
                                 "named from its own debug information (PROG.elf beside it)\n");
            return copperline::exit_status::Usage;
        }
        if (!parser.isSet("profile") && (parser.isSet(shotOpt) || parser.isSet(secondsOpt))) {
            std::fprintf(stderr, "copperline: --symbols names code for the window, the control socket and --profile; "
                                 "a --screenshot-after or --seconds run has no use for it\n");
            return copperline::exit_status::Usage;
        }
        for (const QString& v : parser.values(symbolsOpt)) {
            try {
                symbols.push_back(copperline::loadSymbols(copperline::parseSymbolsSpec(v.toStdString())));
            } catch (const copperline::MediaError& e) {
                std::fprintf(stderr, "copperline: --symbols: %s\n", e.what());
                return copperline::exit_status::Usage;
            }
        }
    }
    // The record's budget: the flag, else the variable users of the Rust Copperline know.
    std::size_t recordBudgetMiB = 256;
    if (!helpOrVersion) {
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
    // Options that mean "no window": help and version too, so they work without a display.
    const bool headless = helpOrVersion || parser.isSet(headlessOpt) || parser.isSet(shotOpt) ||
                          parser.isSet(secondsOpt) || parser.isSet(controlOpt) || parser.isSet(gdbOpt) ||
                          (parser.isSet("run") && !parser.isSet(controlGuiOpt) && !parser.isSet(gdbGuiOpt)) ||
                          parser.isSet("profile");

    std::unique_ptr<copperline::Machine> machine;
    if (!helpOrVersion) {
        copperline::Machine::Config config;
        config.ntsc = parser.isSet(ntscOpt);
        // --run's machine has the most slow RAM an A500 takes (a trapdoor board and a
        // $C00000 expansion): AROS on 512K chip + 512K slow leaves a program too little.
        // And 8 MB of Zorro II fast RAM (the most the Zorro II space holds): AROS keeps its own
        // allocations there, so that a program of hundreds of kilobytes loads and can
        // allocate megabytes; --fast 0 gives the machine without it.
        if (parser.isSet("run")) {
            config.slowRamBytes = copperline::Emulator::kRunSlowRamBytes;
            config.fastRamBytes = copperline::Emulator::kRunFastRamBytes;
        }
        if (parser.isSet(chipOpt)) {
            const QString v = parser.value(chipOpt).toUpper();
            static const std::pair<const char*, std::uint32_t> sizes[] = {
                {"512K", 512u << 10}, {"1M", 1u << 20}, {"1024K", 1u << 20}, {"2M", 2u << 20}, {"2048K", 2u << 20}};
            bool found = false;
            for (const auto& [name, bytes] : sizes)
                if (v == name) {
                    config.chipRamBytes = bytes;
                    found = true;
                }
            if (!found) {
                std::fprintf(stderr,
                             "copperline: --chip wants 512K, 1M or 2M (more than 512K means an ECS Agnus), "
                             "not '%s'\n",
                             qPrintable(parser.value(chipOpt)));
                return copperline::exit_status::Usage;
            }
        }
        if (parser.isSet(slowOpt)) {
            const QString v = parser.value(slowOpt).toUpper();
            static const std::pair<const char*, std::uint32_t> sizes[] = {
                {"0", 0}, {"512K", 512u << 10}, {"1M", 1024u << 10}, {"1024K", 1024u << 10},
                {"1.5M", 1536u << 10}, {"1536K", 1536u << 10}};
            bool found = false;
            for (const auto& [name, bytes] : sizes)
                if (v == name) {
                    config.slowRamBytes = bytes;
                    found = true;
                }
            if (!found) {
                std::fprintf(stderr, "copperline: --slow wants 0, 512K, 1M or 1.5M, not '%s'\n",
                             qPrintable(parser.value(slowOpt)));
                return copperline::exit_status::Usage;
            }
        }
        if (parser.isSet(fastOpt)) {
            const QString v = parser.value(fastOpt).toUpper();
            bool found = false;
            if (v == "0") {
                config.fastRamBytes = 0;
                found = true;
            }
            for (std::uint32_t kb = 64; kb <= 8192 && !found; kb *= 2) {
                const QString name = kb < 1024 ? QStringLiteral("%1K").arg(kb) : QStringLiteral("%1M").arg(kb / 1024);
                if (v == name || v == QStringLiteral("%1K").arg(kb)) {
                    config.fastRamBytes = kb << 10;
                    found = true;
                }
            }
            if (!found) {
                std::fprintf(stderr,
                             "copperline: --fast wants 0, 64K, 128K, 256K, 512K, 1M, 2M, 4M or 8M (a Zorro II "
                             "board's sizes), not '%s'\n",
                             qPrintable(parser.value(fastOpt)));
                return copperline::exit_status::Usage;
            }
        }
        if (parser.isSet(rtcTimeOpt)) {
            std::string error;
            const std::optional<copperline::RtcTime> t =
                copperline::RtcTime::parse(parser.value(rtcTimeOpt).toStdString(), error);
            if (!t) {
                std::fprintf(stderr, "copperline: --rtc-time: %s\n", error.c_str());
                return copperline::exit_status::Usage;
            }
            config.rtcTime = *t;
        }
        config.rtcFrozen = parser.isSet(rtcFrozenOpt);
        machine = std::make_unique<copperline::Machine>(config);
        try {
            // The default: the AROS ROM pair, found (or extracted from fs-uae) as rom.h says.
            std::string romDir;
            if (!parser.isSet(romOpt)) {
                const copperline::RomFolder found = copperline::findRomDir(copperline::romSearchFromEnvironment());
                if (!found.extracted.empty())
                    std::fprintf(stderr, "copperline: extracted the AROS ROM from %s into %s\n",
                                 found.extracted.c_str(), found.dir.c_str());
                romDir = found.dir;
            }
            const std::string romPath = parser.isSet(romOpt) ? parser.value(romOpt).toStdString()
                                                             : romDir + "/" + copperline::kArosRomName;
            const copperline::RomImage rom = copperline::loadRom(romPath);
            if (copperline::isExtensionRom(rom))
                throw copperline::MediaError(
                    romPath + " is an extension ROM; give the main ROM as --rom FILE and this "
                              "one as --ext-rom FILE");
            machine->setRom(rom);
            if (parser.isSet(extOpt)) {
                machine->setExtRom(copperline::loadRom(parser.value(extOpt).toStdString()));
            } else if (!parser.isSet(romOpt)) {
                machine->setExtRom(copperline::loadRom(romDir + "/" + copperline::kArosExtRomName));
            } else if (copperline::needsExtensionRom(rom)) {
                // Without it AROS shows a black screen and nothing says why.
                throw copperline::MediaError(
                    romPath + " (" + rom.description +
                    ") does not boot without its extension ROM: add --ext-rom FILE "
                    "(AROS's is aros-amiga-m68k-ext.bin, beside the main ROM)");
            }
        } catch (const copperline::MediaError& e) {
            std::fprintf(stderr, "copperline: ROM: %s\n", e.what());
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
    }

    // A signal ends the session as quitting does: the disks go back to their files.
    copperline::installTerminationHandlers();
    std::unique_ptr<QCoreApplication> app = headless
                                                ? std::make_unique<QCoreApplication>(argc, argv)
                                                : std::make_unique<QApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("Copperline"));
    QCoreApplication::setOrganizationName(QStringLiteral("Copperline"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(copperline::kVersion));
    parser.process(*app); // --help and --version print and exit here

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
    if (parser.isSet(loadUssOpt)) {
        const std::string path = parser.value(loadUssOpt).toStdString();
        try {
            const auto bytes = copperline::readFileBytes(path, copperline::uss::kMaxTotalBytes);
            const copperline::uss::LoadResult loaded = copperline::uss::loadUss(*machine, bytes);
            std::fprintf(stderr, "copperline: %s: a state of %s, the CPU at $%06X; not restored:\n", path.c_str(),
                         loaded.emulator.c_str(), unsigned(loaded.pc));
            for (const std::string& item : loaded.notRestored) std::fprintf(stderr, "  - %s\n", item.c_str());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "copperline: --load-uss: %s: %s\n", path.c_str(), e.what());
            return copperline::exit_status::Usage;
        }
    }

    const bool gdbServed = parser.isSet(gdbOpt) || parser.isSet(gdbGuiOpt);
    const bool controlled = parser.isSet(controlOpt) || parser.isSet(gdbOpt);
    const bool served = controlled || parser.isSet(controlGuiOpt) || gdbServed;
    if (served && (parser.isSet(shotOpt) || parser.isSet(secondsOpt) || parser.isSet("profile"))) {
        std::fprintf(stderr, "copperline: --%s runs a headless session of its own; under --control, "
                             "--control-gui, --gdb or --gdb-gui the client takes screenshots (capture.screenshot), runs "
                             "(continue, step_frame) and captures (profile.start, monitor profile)\n",
                     parser.isSet(shotOpt) ? "screenshot-after" : parser.isSet(secondsOpt) ? "seconds" : "profile");
        return copperline::exit_status::Usage;
    }
    if (served && parser.isSet("run"))
        if (const int rc = copperline::stageControlledRun(parser, *machine, media)) return rc;
    if (headless && !controlled) {
        if (serialFile)
            machine->setSerialSink([](std::uint8_t b) {
                std::fputc(b, serialFile);
                if (b == '\n') std::fflush(serialFile);
            });
        if (parser.isSet("run"))
            return copperline::runFromCommandLine(parser, *machine, opts, media, parser.isSet(speedOpt));
        if (parser.isSet("profile")) return copperline::runProfileFromCommandLine(parser, *machine, symbols);
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
    eo.memoryChosen = parser.isSet("run") || parser.isSet(chipOpt) || parser.isSet("slow") || parser.isSet("fast");
    if (served && parser.isSet("run")) eo.runProgram = parser.value("run").toStdString();
    for (unsigned n = 0; n < 4; ++n) eo.floppies[n] = {media.paths[n], media.writeback[n]};
    eo.buildRunDisk = copperline::runDiskBuilder();
    eo.symbols = std::move(symbols);
    copperline::Emulator emulator(std::move(machine), eo);
    // By name: the queued event is made and freed inside Qt (app/control/mailbox.h says why).
    emulator.setQuitHandler([] { QMetaObject::invokeMethod(QCoreApplication::instance(), "quit", Qt::QueuedConnection); });

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
                copperline::writeControlInfo(parser.value(controlInfoOpt).toStdString(),
                                             server->socketPath(), controlName.toStdString());
            } catch (const copperline::ControlPathError& e) {
                std::fprintf(stderr, "copperline: control: %s\n", e.what());
                return copperline::exit_status::Usage;
            }
        }
        std::fprintf(stderr, "copperline-control: socket=%s proto=%d\n",
                     server->socketPath().c_str(), copperline::kControlProtocolVersion);
    }

    std::unique_ptr<copperline::gdb::GdbServer> gdbServer;
    if (gdbServed) {
        copperline::gdb::GdbServer::Options go;
        go.dialect = parser.value(gdbDialectOpt) == "bartman" ? copperline::gdb::Dialect::Bartman
                                                               : copperline::gdb::Dialect::Standard;
        // The window's stub leaves the machine to its user when gdb kills; headless, kill ends it.
        go.quitOnKill = parser.isSet(gdbOpt) && go.dialect == copperline::gdb::Dialect::Standard;
        gdbServer = std::make_unique<copperline::gdb::GdbServer>(emulator, go);
        const std::string address = (parser.isSet(gdbOpt) ? parser.value(gdbOpt) : parser.value(gdbGuiOpt)).toStdString();
        // With --run, gdb finds the program at its first instruction: the stub listens once the
        // machine stands there (gdb retries its connection meanwhile).
        gdbServer->listenWhenReady(address, parser.isSet("run"), [](bool ok, const std::string& message) {
            std::fprintf(stderr, "%s\n", message.c_str());
            if (!ok) QCoreApplication::exit(copperline::exit_status::Usage);
        });
    }

    QSocketNotifier terminated(copperline::terminationPipe(), QSocketNotifier::Read);
    QObject::connect(&terminated, &QSocketNotifier::activated, app.get(), [] {
        std::fprintf(stderr, "copperline: stopped by signal %d\n", copperline::terminationSignal());
        QCoreApplication::quit();
    });
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
    gdbServer.reset();
    if (server) server->finish();
    server.reset();
    if (serialFile && serialFile != stdout) std::fclose(serialFile);
    if (const int sig = copperline::terminationSignal(); sig && !rc) rc = 128 + sig;
    return rc;
}
