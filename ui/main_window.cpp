// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/main_window.h"

#include "app/control/emulator.h"
#include "ui/capture_dock.h"
#include "ui/copper_pane.h"
#include "ui/coverage_pane.h"
#include "ui/cpu_pane.h"
#include "ui/custom_regs_pane.h"
#include "ui/display_widget.h"
#include "ui/frame_analyzer.h"
#include "ui/memory_pane.h"
#include "app/control/mailbox.h"
#include "ui/source_pane.h"
#include "ui/stack_pane.h"
#include "ui/strip_pane.h"
#include "ui/vars_pane.h"
#include "ui/timeline_strip.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QDateTimeEdit>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

namespace copperline {

namespace {

// The panes follow the emulator at the display's own rate, PAL's 50 Hz.
constexpr int kRefreshMs = 20;
constexpr int kSettingsVersion = 2; // 2: the right-hand docks run the full height
// The size the window prefers: the display at about twice the picture's size beside the
// Frame Analyzer's grid at two pixels per colour clock, the registers below.
constexpr QSize kPreferredSize(1440, 900);
// What the window manager's frame and title bar take around the window, which Qt knows
// only once the window is shown.
constexpr QSize kFrameAllowance(16, 48);

QString hexDigits(std::uint64_t v, int digits) {
    return QStringLiteral("%1").arg(v, digits, 16, QLatin1Char('0')).toUpper();
}

} // namespace

MainWindow::MainWindow(Emulator& emulator, bool factory, QWidget* parent)
    : QMainWindow(parent), emulator_(emulator), relay_(std::make_shared<ThreadMailbox>(this)) {
    setWindowTitle(QStringLiteral("Copperline"));
    setObjectName(QStringLiteral("MainWindow"));

    auto* centre = new QWidget(this);
    auto* column = new QVBoxLayout(centre);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    display_ = new DisplayWidget(centre);
    timeline_ = new TimelineStrip(centre);
    column->addWidget(display_, 1);
    column->addWidget(timeline_);
    setCentralWidget(centre);
    buildActions();
    // The right-hand docks (the Frame Analyzer and its tabs) run the window's full height,
    // so that the owner grid shows most of a frame; the registers, the call stack and the
    // variables sit under the display.
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    buildDocks();
    buildRecord();
    buildLineSteps();

    frameLabel_ = new QLabel(this);
    beamLabel_ = new QLabel(this);
    pcLabel_ = new QLabel(this);
    speedLabel_ = new QLabel(this);
    backLabel_ = new QLabel(this);
    for (QLabel* l : {frameLabel_, beamLabel_, pcLabel_, speedLabel_, backLabel_}) {
        l->setMinimumWidth(
            fontMetrics().horizontalAdvance(QStringLiteral("speed 00.00x real time")));
        statusBar()->addPermanentWidget(l);
    }

    dialogs_.openPath = [this](const QString& title, const QString& filter) {
        return QFileDialog::getOpenFileName(this, title, QString(), filter);
    };
    // The overwrite question is ours (confirmOverwrite), so that it can be replaced too.
    dialogs_.savePath = [this](const QString& title, const QString& filter) {
        return QFileDialog::getSaveFileName(this, title, QString(), filter, nullptr,
                                            QFileDialog::DontConfirmOverwrite);
    };
    dialogs_.askText = [this](const QString& title, const QString& label) -> std::optional<QString> {
        bool ok = false;
        const QString text = QInputDialog::getText(this, title, label, QLineEdit::Normal, QString(), &ok);
        if (!ok) return std::nullopt;
        return text;
    };
    dialogs_.confirmOverwrite = [this](const QString& path) {
        return QMessageBox::question(this, tr("Replace the file?"),
                                     tr("%1 exists. Write over it?").arg(path)) == QMessageBox::Yes;
    };
    placeOnScreen(factory);

    timer_ = new QTimer(this);
    timer_->setTimerType(Qt::PreciseTimer);
    connect(timer_, &QTimer::timeout, this, &MainWindow::refresh);
    timer_->start(kRefreshMs);
    refresh();
}

MainWindow::~MainWindow() {
    // The children outlive this body: no dock or timer may call back into a half-destroyed
    // window (a dock hiding as it is deleted would send frame.record).
    timer_->stop();
    if (logListener_) emulator_.removeListener(logListener_);
    for (QDockWidget* d : findChildren<QDockWidget*>())
        d->disconnect(this);
    relay_->close();
}

QSize MainWindow::fittedSize(const QSize& available) {
    return kPreferredSize.boundedTo(available - kFrameAllowance);
}

void MainWindow::placeOnScreen(bool factory) {
    // The screen the window opens on: the one it belongs to (the primary screen, unless
    // the platform says otherwise).
    const QRect room = screen() ? screen()->availableGeometry() : QRect(QPoint(), kPreferredSize);
    const QSize size = fittedSize(room.size()).expandedTo(minimumSizeHint());
    const auto fitted = [&] {
        resize(size);
        move(room.left() + std::max(0, (room.width() - size.width() - kFrameAllowance.width()) / 2),
             room.top() +
                 std::max(0, (room.height() - size.height() - kFrameAllowance.height()) / 2));
    };
    fitted();
    // The analyzer's grid at two pixels per colour clock, one per line, with its strip, and
    // the registers below the display, in proportion on a smaller screen.
    resizeDocks({findChild<QDockWidget*>(QStringLiteral("analyzerDock"))},
                {std::min(560, size.width() * 2 / 5)}, Qt::Horizontal);
    resizeDocks({findChild<QDockWidget*>(QStringLiteral("cpuDock"))},
                {std::min(230, size.height() / 4)}, Qt::Vertical);
    if (factory) return;
    QSettings settings;
    if (settings.value("window/version").toInt() != kSettingsVersion) return;
    restoreState(settings.value("window/state").toByteArray(), kSettingsVersion);
    // A saved size from a larger screen (or one Qt would have to cut down to place) is
    // not restored: the window opens at the size that fits this one.
    const QSize saved = settings.value("window/size").toSize();
    const QSize fits = room.size() - kFrameAllowance;
    if (!saved.isValid() || saved.width() > fits.width() || saved.height() > fits.height()) return;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    const QRect placed = normalGeometry().isValid() ? normalGeometry() : geometry();
    if (placed.size() != saved || !room.intersects(placed)) fitted();
}

void MainWindow::buildActions() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* machine = menuBar()->addMenu(tr("&Machine"));
    auto* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    // The guest's debug overlay (uaelib), drawn over the display, never into it.
    auto* overlay = view->addAction(tr("&Debug overlay"));
    overlay->setObjectName(QStringLiteral("debugOverlayAction"));
    overlay->setCheckable(true);
    overlay->setChecked(true);
    connect(overlay, &QAction::toggled, display_, &DisplayWidget::setOverlayVisible);
    // The visible area by default, as a monitor frames it; the whole raster on request.
    auto* raster = view->addAction(tr("&Whole raster"));
    raster->setObjectName(QStringLiteral("wholeRasterAction"));
    raster->setCheckable(true);
    raster->setChecked(false);
    connect(raster, &QAction::toggled, display_, [this](bool on) { display_->setWholeRaster(on); });
    view->addSeparator();
    auto* capture = menuBar()->addMenu(tr("&Capture"));
    capture->setObjectName(QStringLiteral("captureMenu"));
    auto* help = menuBar()->addMenu(tr("&Help"));

    auto* bar = addToolBar(tr("Run control"));
    bar->setObjectName(QStringLiteral("runToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

    auto add = [&](const QString& name, const QString& text, QStyle::StandardPixmap icon,
                   const QKeySequence& key, std::function<void()> what) {
        auto* a = new QAction(style()->standardIcon(icon), text, this);
        a->setObjectName(name);
        a->setShortcut(key);
        connect(a, &QAction::triggered, this, std::move(what));
        machine->addAction(a);
        bar->addAction(a);
        return a;
    };
    add("run", tr("&Run"), QStyle::SP_MediaPlay, Qt::Key_F5, [this] {
        command("continue", {{"wait", false}});
    });
    add("pause", tr("&Pause"), QStyle::SP_MediaPause, Qt::Key_F6, [this] { command("pause"); });
    add("step", tr("&Step"), QStyle::SP_ArrowRight, Qt::Key_F7, [this] {
        command("step", {{"n", 1}});
    });
    // A call (BSR, JSR, TRAP, line A/F) as one step, and the rest of the routine.
    add("step_over", tr("Step &over"), QStyle::SP_ArrowDown, Qt::Key_F10,
        [this] { command("step_over"); });
    add("step_out", tr("Step o&ut"), QStyle::SP_ArrowUp, QKeySequence(Qt::SHIFT | Qt::Key_F11),
        [this] { command("step_out"); });
    add("frame", tr("&Frame step"), QStyle::SP_MediaSkipForward, Qt::Key_F8, [this] {
        command("step_frame", {{"n", 1}});
    });
    add("reset", tr("Rese&t"), QStyle::SP_BrowserReload, QKeySequence(Qt::CTRL | Qt::Key_R),
        [this] {
            command("machine.reset", {{"kind", "cold"}});
        });
    auto* warm = new QAction(tr("&Warm reset"), this);
    warm->setObjectName(QStringLiteral("warmReset"));
    connect(warm, &QAction::triggered, this, [this] {
        command("machine.reset", {{"kind", "warm"}});
    });
    machine->addAction(warm);
    buildMemoryMenu(machine);
    buildClockAction(machine);

    buildFileMenu(file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    help->addAction(tr("&About Copperline"), this, &MainWindow::showAbout);
}

// ---- the machine's memory ----------------------------------------------------------------------

void MainWindow::buildMemoryMenu(QMenu* machine) {
    // Chip, slow and fast RAM as the command line offers them (--chip, --slow, --fast); a
    // choice power-cycles the machine (machine.memory). The checks follow the machine.
    machine->addSeparator();
    auto* memory = machine->addMenu(tr("&Memory"));
    memory->setObjectName(QStringLiteral("memoryMenu"));
    constexpr std::uint32_t K = 1024;
    const struct {
        const char* key;
        QString title;
        std::vector<std::pair<std::uint32_t, QString>> sizes;
    } kinds[] = {
        {"chip", tr("&Chip RAM"), {{512 * K, "512K"}, {1024 * K, "1M"}, {2048 * K, "2M"}}},
        {"slow", tr("&Slow RAM"), {{0, tr("none")}, {512 * K, "512K"}, {1024 * K, "1M"}, {1536 * K, "1.5M"}}},
        {"fast", tr("&Fast RAM"),
         {{0, tr("none")}, {512 * K, "512K"}, {1024 * K, "1M"}, {2048 * K, "2M"}, {4096 * K, "4M"}, {8192 * K, "8M"}}},
    };
    for (const auto& kind : kinds) {
        auto* sub = memory->addMenu(kind.title);
        auto* group = new QActionGroup(sub);
        for (const auto& [bytes, label] : kind.sizes) {
            auto* a = sub->addAction(label);
            a->setObjectName(QStringLiteral("memory_%1_%2").arg(kind.key).arg(bytes));
            a->setCheckable(true);
            a->setData(QVariant::fromValue(bytes));
            group->addAction(a);
            const std::string key = kind.key;
            connect(a, &QAction::triggered, this, [this, key, bytes] {
                command("machine.memory", {{key, bytes}}, [this](bool ok, const nlohmann::json& r) {
                    if (!ok) return;
                    showMemory(r);
                    if (r.value("power_cycled", false))
                        statusBar()->showMessage(tr("The machine has new memory and was powered on again"), 5000);
                });
            });
        }
    }
    // Ticked as the machine is when the menu opens (a program opened meanwhile may have
    // given it --run's memory).
    connect(memory, &QMenu::aboutToShow, this, [this] {
        command("machine.memory", {}, [this](bool ok, const nlohmann::json& r) {
            if (ok) showMemory(r);
        });
    });
}

void MainWindow::showMemory(const nlohmann::json& sizes) {
    for (const char* key : {"chip", "slow", "fast"}) {
        const std::uint32_t bytes = sizes.value(key, 0u);
        const QString prefix = QStringLiteral("memory_%1_").arg(QLatin1String(key));
        for (QAction* a : findChildren<QAction*>())
            if (a->objectName().startsWith(prefix)) a->setChecked(a->data().toUInt() == bytes);
    }
}

// ---- the clock -------------------------------------------------------------------------------

void MainWindow::buildClockAction(QMenu* machine) {
    // The A501's clock (rtc.get, rtc.set): what AmigaOS reads at boot and counts from.
    auto* clock = machine->addAction(tr("&Clock..."));
    clock->setObjectName(QStringLiteral("clockAction"));
    connect(clock, &QAction::triggered, this, [this] {
        command("rtc.get", {}, [this](bool ok, const nlohmann::json& r) {
            if (!ok) return;
            if (!r.value("present", false)) {
                statusBar()->showMessage(
                    tr("This machine has no clock: the A501 card brings it with slow RAM (Machine > Memory)"), 8000);
                return;
            }
            showClockDialog(r);
        });
    });
}

void MainWindow::showClockDialog(const nlohmann::json& clock) {
    auto* dialog = findChild<QDialog*>(QStringLiteral("clockDialog"));
    if (!dialog) {
        dialog = new QDialog(this);
        dialog->setObjectName(QStringLiteral("clockDialog"));
        dialog->setWindowTitle(tr("The machine's clock"));
        auto* form = new QFormLayout(dialog);
        auto* time = new QDateTimeEdit(dialog);
        time->setObjectName(QStringLiteral("clockTime"));
        time->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        time->setTimeSpec(Qt::UTC); // a wall time as the chip counts it, no zone
        time->setMinimumDateTime(QDateTime(QDate(1978, 1, 1), QTime(0, 0), Qt::UTC));
        time->setMaximumDateTime(QDateTime(QDate(2077, 12, 31), QTime(23, 59, 59), Qt::UTC));
        auto* now = new QPushButton(tr("&Now"), dialog);
        now->setObjectName(QStringLiteral("clockNow"));
        connect(now, &QPushButton::clicked, time, [time] {
            const QDateTime local = QDateTime::currentDateTime();
            time->setDateTime(QDateTime(local.date(), local.time(), Qt::UTC));
        });
        auto* row = new QHBoxLayout;
        row->addWidget(time, 1);
        row->addWidget(now);
        form->addRow(tr("Shows:"), row);
        auto* frozen = new QCheckBox(tr("Stands still (otherwise it counts emulated seconds)"), dialog);
        frozen->setObjectName(QStringLiteral("clockFrozen"));
        form->addRow(frozen);
        auto* note = new QLabel(tr("AmigaOS reads the clock when it boots; a program reads it through "
                                   "battclock.resource."),
                                dialog);
        note->setWordWrap(true);
        form->addRow(note);
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
        form->addRow(buttons);
        connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
        connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, time, frozen] {
            const QString text = time->dateTime().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss"));
            command("rtc.set", {{"time", text.toStdString()}, {"frozen", frozen->isChecked()}},
                    [this](bool ok, const nlohmann::json& r) {
                        if (ok)
                            statusBar()->showMessage(
                                tr("The clock shows %1").arg(QString::fromStdString(r.value("time", ""))), 5000);
                    });
            dialog->accept();
        });
    }
    auto* time = dialog->findChild<QDateTimeEdit*>(QStringLiteral("clockTime"));
    const QDateTime shown = QDateTime::fromString(QString::fromStdString(clock.value("time", "")), Qt::ISODate);
    time->setDateTime(QDateTime(shown.date(), shown.time(), Qt::UTC));
    dialog->findChild<QCheckBox*>(QStringLiteral("clockFrozen"))->setChecked(clock.value("frozen", false));
    dialog->show();
    dialog->raise();
}

// ---- the File menu ---------------------------------------------------------------------------

void MainWindow::buildFileMenu(QMenu* file) {
    file->setObjectName(QStringLiteral("fileMenu"));
    const auto add = [&](QMenu* menu, const QString& name, const QString& text,
                         const QKeySequence& key, std::function<void()> what) {
        auto* a = menu->addAction(text);
        a->setObjectName(name);
        if (!key.isEmpty()) a->setShortcut(key);
        connect(a, &QAction::triggered, this, std::move(what));
        return a;
    };
    add(file, QStringLiteral("openProgramAction"), tr("&Open program..."), QKeySequence::Open,
        [this] { openProgram(false); });
    add(file, QStringLiteral("debugProgramAction"), tr("Open program to &debug..."),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), [this] { openProgram(true); });
    file->addSeparator();
    auto* drives = file->addMenu(tr("Dis&k drives"));
    drives->setObjectName(QStringLiteral("drivesMenu"));
    for (int n = 0; n < 4; ++n) {
        add(drives, QStringLiteral("insertDisk%1").arg(n), tr("&Insert disk in DF%1...").arg(n), {},
            [this, n] { insertDisk(n); });
        eject_[n] = add(drives, QStringLiteral("ejectDisk%1").arg(n), tr("&Eject DF%1").arg(n), {},
                        [this, n] {
                            command("media.floppy.eject", {{"drive", n}});
                        });
    }
    drives->addSeparator();
    writeback_ = drives->addAction(tr("&Write the guest's changes back to inserted disks"));
    writeback_->setObjectName(QStringLiteral("writebackAction"));
    writeback_->setCheckable(true);
    // The drives' state is asked for as the menu opens.
    connect(drives, &QMenu::aboutToShow, this, &MainWindow::updateDriveActions);
    // Names for code that is no executable (a boot block, code a loader places): its ELF
    // and where its lowest section lies (symbols.load).
    add(file, QStringLiteral("loadSymbolsAction"), tr("Load s&ymbols..."), QKeySequence(), [this] {
        const QString path = dialogs_.openPath(tr("Load symbols for code that is no executable"),
                                               tr("ELF files (*.elf);;All files (*)"));
        if (path.isEmpty()) return;
        const auto base = dialogs_.askText(tr("Where the code lies"),
                                           tr("Address of its lowest section ($40000, 0x40000; empty: "
                                              "the ELF's own addresses):"));
        if (!base) return;
        nlohmann::json params = {{"path", QFileInfo(path).absoluteFilePath().toStdString()}};
        if (!base->trimmed().isEmpty()) params["base"] = base->trimmed().toStdString();
        command("symbols.load", params, [this](bool ok, const nlohmann::json& r) {
            if (!ok) return;
            statusBar()->showMessage(tr("symbols: %1 functions and %2 lines from %3")
                                         .arg(r.value("functions", 0))
                                         .arg(r.value("lines", 0))
                                         .arg(QString::fromStdString(r.value("path", std::string()))),
                                     8000);
        });
    });
    file->addSeparator();
    add(file, QStringLiteral("saveStateAction"), tr("&Save state..."),
        QKeySequence(Qt::CTRL | Qt::Key_S), [this] {
            writeChosenFile("state.save", tr("Save the machine's state"), tr("States (*.clstate)"));
        });
    add(file, QStringLiteral("loadStateAction"), tr("&Load state..."),
        QKeySequence(Qt::CTRL | Qt::Key_L), [this] { loadMachineState(); });
    add(file, QStringLiteral("loadUssAction"), tr("Load &WinUAE state..."), QKeySequence(),
        [this] { loadUssState(); });
    add(file, QStringLiteral("screenshotAction"), tr("Screens&hot..."),
        QKeySequence(Qt::CTRL | Qt::Key_P), [this] {
            writeChosenFile("capture.screenshot", tr("Save a screenshot"),
                            tr("PNG pictures (*.png)"));
        });
    file->addSeparator();
    // Warp: unpaced while on. It also turns on by itself while an opened program boots,
    // so the action follows warp.get rather than only its own clicks.
    warp_ = file->addAction(tr("&Warp"));
    warp_->setObjectName(QStringLiteral("warpAction"));
    warp_->setCheckable(true);
    warp_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
    connect(warp_, &QAction::triggered, this, [this](bool on) {
        command("warp.set", {{"on", on}}, [this](bool ok, const nlohmann::json& w) {
            if (ok) warp_->setChecked(w.value("on", false));
        });
    });
}

void MainWindow::openProgram(bool stopAtEntry) {
    const QString path =
        dialogs_.openPath(stopAtEntry ? tr("Open a program to debug") : tr("Open a program"),
                          tr("AmigaOS programs (*)"));
    if (path.isEmpty()) return;
    // As --run does: a run disk, a power cycle and a warp until the program loads; the
    // machine runs there (and, to debug, stops at the program's first instruction).
    command("run.program",
            {{"path", QFileInfo(path).absoluteFilePath().toStdString()}, {"stop", stopAtEntry}},
            [this](bool ok, const nlohmann::json&) {
                if (!ok) return;
                command("continue", {{"wait", false}});
                pollWarp();
            });
}

void MainWindow::insertDisk(int drive) {
    const QString path = dialogs_.openPath(tr("Insert a disk in DF%1").arg(drive),
                                           tr("Amiga disk images (*.adf);;All files (*)"));
    if (path.isEmpty()) return;
    command("media.floppy.insert", {{"drive", drive},
                                    {"path", QFileInfo(path).absoluteFilePath().toStdString()},
                                    {"writeback", writeback_->isChecked()}});
}

void MainWindow::updateDriveActions() {
    command("media.floppy.query", {}, [this](bool ok, const nlohmann::json& q) {
        if (!ok) return;
        for (const auto& d : q.value("drives", nlohmann::json::array())) {
            const int n = d.value("drive", -1);
            if (n < 0 || n > 3) continue;
            const bool disk = d.value("disk", !d["path"].is_null());
            eject_[n]->setEnabled(disk);
            eject_[n]->setText(
                disk && d["path"].is_string()
                    ? tr("&Eject DF%1 (%2)")
                          .arg(n)
                          .arg(QFileInfo(QString::fromStdString(d["path"].get<std::string>()))
                                   .fileName())
                    : tr("&Eject DF%1").arg(n));
        }
    });
}

void MainWindow::writeChosenFile(const std::string& method, const QString& title,
                                 const QString& filter) {
    QString path = dialogs_.savePath(title, filter);
    if (path.isEmpty()) return;
    path = QFileInfo(path).absoluteFilePath();
    // Nothing is written over without the user's say (the commands refuse it otherwise).
    const bool exists = QFileInfo::exists(path);
    if (exists && !dialogs_.confirmOverwrite(path)) return;
    command(method, {{"path", path.toStdString()}, {"overwrite", exists}},
            [this](bool ok, const nlohmann::json& r) {
                if (ok)
                    statusBar()->showMessage(
                        tr("wrote %1").arg(QString::fromStdString(r.value("path", std::string()))),
                        5000);
            });
}

void MainWindow::loadMachineState() {
    const QString path =
        dialogs_.openPath(tr("Load a state"), tr("States (*.clstate);;All files (*)"));
    if (path.isEmpty()) return;
    // A state loads into a paused machine; the pause goes first.
    command("pause");
    command("state.load", {{"path", QFileInfo(path).absoluteFilePath().toStdString()}});
}

void MainWindow::loadUssState() {
    const QString path = dialogs_.openPath(tr("Load a WinUAE or FS-UAE state"),
                                           tr("WinUAE states (*.uss *.USS);;All files (*)"));
    if (path.isEmpty()) return;
    // The state names its Kickstart by CRC: the machine's ROMs must be those it was saved with.
    command("pause");
    command("state.load_uss", {{"path", QFileInfo(path).absoluteFilePath().toStdString()}},
            [this](bool ok, const nlohmann::json& r) {
                if (ok)
                    statusBar()->showMessage(
                        tr("loaded a state of %1; its first frame is a reconstruction")
                            .arg(QString::fromStdString(r.value("emulator", std::string()))),
                        8000);
            });
}

void MainWindow::pollWarp() {
    if (warpAsked_) return;
    warpAsked_ = true;
    command("warp.get", {}, [this](bool ok, const nlohmann::json& w) {
        warpAsked_ = false;
        if (ok) warp_->setChecked(w.value("on", false));
    });
}

void MainWindow::buildDocks() {
    auto* view = menuBar()->findChild<QMenu*>(QStringLiteral("viewMenu"));

    const auto send = [this](const std::string& method, const nlohmann::json& params,
                             std::function<void(bool, const nlohmann::json&)> r) {
        command(method, params, std::move(r));
    };
    cpu_ = new CpuPane(send, this);
    auto* cpuDock = new QDockWidget(tr("Registers and disassembly"), this);
    cpuDock->setObjectName(QStringLiteral("cpuDock"));
    cpuDock->setWidget(cpu_);
    addDockWidget(Qt::BottomDockWidgetArea, cpuDock);
    view->addAction(cpuDock->toggleViewAction());

    analyzer_ = new FrameAnalyzer(send, this);
    auto* analyzerDock = new QDockWidget(tr("Frame Analyzer"), this);
    analyzerDock->setObjectName(QStringLiteral("analyzerDock"));
    analyzerDock->setWidget(analyzer_);
    addDockWidget(Qt::RightDockWidgetArea, analyzerDock);
    view->addAction(analyzerDock->toggleViewAction());
    // Full slot records cost the emulator a little: keep them only while someone looks.
    connect(analyzerDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        command("frame.record", {{"on", visible}});
    });
    // A stalled instruction clicked in the analyzer shows in the disassembly.
    connect(analyzer_, &FrameAnalyzer::pcActivated, this, [this, cpuDock](std::uint32_t pc) {
        cpuDock->show();
        cpuDock->raise();
        cpu_->showAddress(pc);
    });
    buildCaptureDock();

    coverage_ = new CoveragePane(send, this);
    auto* coverageDock = new QDockWidget(tr("Coverage"), this);
    coverageDock->setObjectName(QStringLiteral("coverageDock"));
    coverageDock->setWidget(coverage_);
    addDockWidget(Qt::RightDockWidgetArea, coverageDock);
    coverageDock->hide();
    view->addAction(coverageDock->toggleViewAction());
    // A source line clicked in the coverage pane shows its code in the disassembly.
    connect(coverage_, &CoveragePane::addressActivated, this, [this, cpuDock](std::uint32_t address) {
        cpuDock->show();
        cpuDock->raise();
        cpu_->showAddress(address);
    });

    // The profile strip, beside the Frame Analyzer (docs/profile-strip.md).
    strip_ = new StripPane(send, this);
    auto* stripDock = new QDockWidget(tr("Profile strip"), this);
    stripDock->setObjectName(QStringLiteral("stripDock"));
    stripDock->setWidget(strip_);
    addDockWidget(Qt::RightDockWidgetArea, stripDock);
    tabifyDockWidget(findChild<QDockWidget*>(QStringLiteral("analyzerDock")), stripDock);
    findChild<QDockWidget*>(QStringLiteral("analyzerDock"))->raise();
    view->addAction(stripDock->toggleViewAction());
    connect(strip_, &StripPane::addressActivated, this, [this, cpuDock](std::uint32_t address) {
        cpuDock->show();
        cpuDock->raise();
        cpu_->showAddress(address);
    });
    // Its bars follow the machine four times a second while it shows.
    auto* stripTimer = new QTimer(this);
    connect(stripTimer, &QTimer::timeout, this, [this] {
        if (strip_->isVisible()) strip_->refresh();
    });
    stripTimer->start(250);
    connect(stripDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible) strip_->refresh();
    });
    buildDebuggerDocks();
}

void MainWindow::buildDebuggerDocks() {
    auto* view = menuBar()->findChild<QMenu*>(QStringLiteral("viewMenu"));
    const auto send = [this](const std::string& method, const nlohmann::json& params,
                             std::function<void(bool, const nlohmann::json&)> r) {
        command(method, params, std::move(r));
    };
    // The source panes say their own failures (a question that meets a running machine).
    const auto quiet = [this](const std::string& method, const nlohmann::json& params,
                              std::function<void(bool, const nlohmann::json&)> r) {
        paneCommand(method, params, std::move(r));
    };
    const auto dock = [this, view](QWidget* pane, const QString& title, const QString& name,
                                   Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(pane);
        addDockWidget(area, d);
        view->addAction(d->toggleViewAction());
        return d;
    };
    view->addSeparator();
    // The source beside the display, where the Frame Analyzer is (a tab of its own); the
    // call stack and the variables under the display, beside the registers, as tabs.
    source_ = new SourcePane(quiet, this);
    auto* sourceDock = dock(source_, tr("Source"), QStringLiteral("sourceDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(findChild<QDockWidget*>(QStringLiteral("analyzerDock")), sourceDock);
    findChild<QDockWidget*>(QStringLiteral("analyzerDock"))->raise();
    stack_ = new StackPane(quiet, this);
    auto* stackDock = dock(stack_, tr("Call stack"), QStringLiteral("stackDock"), Qt::BottomDockWidgetArea);
    vars_ = new VarsPane(quiet, this);
    auto* varsDock = dock(vars_, tr("Variables and watch"), QStringLiteral("varsDock"), Qt::BottomDockWidgetArea);
    auto* cpuDock = findChild<QDockWidget*>(QStringLiteral("cpuDock"));
    // Under the display (the Frame Analyzer has the right-hand side to the bottom): the
    // registers, then the call stack and the variables as tabs of one dock area.
    splitDockWidget(cpuDock, stackDock, Qt::Horizontal);
    tabifyDockWidget(stackDock, varsDock);
    stackDock->raise();
    source_->setAsk([this](const QString& title, const QString& label) { return dialogs_.askText(title, label); });
    // Log points' messages, from the emulator's thread to the Source pane's log and the
    // status bar.
    std::weak_ptr<ThreadMailbox> box = relay_;
    logListener_ = emulator_.addListener([box, this](const std::string& method, const nlohmann::json& params) {
        if (method != "event.log") return;
        auto relay = box.lock();
        if (!relay) return;
        const QString text = QStringLiteral("[%1] %2")
                                 .arg(params.value("id", 0))
                                 .arg(QString::fromStdString(params.value("text", std::string())));
        relay->post([this, text] {
            source_->appendLog(text);
            statusBar()->showMessage(tr("Log point %1").arg(text), 5000);
        });
    });
    // A frame chosen in the call stack: its line, and its variables.
    connect(stack_, &StackPane::frameSelected, this, [this](int index, const QString& file, int line) {
        source_->showFrame(index, file, line);
        vars_->setFrame(index);
    });

    // The chipset's panes, hidden until asked for (View), then tabs beside the display
    // with the Frame Analyzer's (a tab group of hidden docks alone would claim its height
    // when the window first shows).
    view->addSeparator();
    copper_ = new CopperPane(send, this);
    auto* copperDock = dock(copper_, tr("Copper"), QStringLiteral("copperDock"), Qt::RightDockWidgetArea);
    custom_ = new CustomRegsPane(send, this);
    auto* customDock =
        dock(custom_, tr("Custom registers"), QStringLiteral("customDock"), Qt::RightDockWidgetArea);
    memory_ = new MemoryPane(send, this);
    auto* memoryDock = dock(memory_, tr("Memory"), QStringLiteral("memoryDock"), Qt::RightDockWidgetArea);
    for (QDockWidget* d : {copperDock, customDock, memoryDock}) {
        tabifyDockWidget(findChild<QDockWidget*>(QStringLiteral("analyzerDock")), d);
        d->hide();
        // Shown from the View menu: in front of its tab group.
        connect(d->toggleViewAction(), &QAction::triggered, d, [d](bool on) {
            if (on) d->raise();
        });
    }
    findChild<QDockWidget*>(QStringLiteral("analyzerDock"))->raise();
    // The Copper pane asks only while it shows; shown, it catches up.
    connect(copperDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible) copper_->refresh();
    });
}

void MainWindow::buildLineSteps() {
    auto* machine = menuBar()->actions().at(1)->menu();
    machine->addSeparator();
    auto* bar = addToolBar(tr("Source steps"));
    bar->setObjectName(QStringLiteral("sourceToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    const auto showSource = [this] {
        auto* d = findChild<QDockWidget*>(QStringLiteral("sourceDock"));
        d->show();
        d->raise();
    };
    const auto add = [&](const char* name, const QString& text, const QString& tip,
                         const QKeySequence& key, bool reverse) {
        auto* a = new QAction(text, this);
        a->setObjectName(QString::fromLatin1(name));
        a->setShortcut(key);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
        a->setStatusTip(tip);
        const std::string method = name;
        connect(a, &QAction::triggered, this, [this, method, reverse, showSource] {
            showSource();
            // The reverse verbs want a paused machine; a pause queued first gives them one.
            if (reverse) command("pause");
            command(method);
        });
        machine->addAction(a);
        bar->addAction(a);
        return a;
    };
    add("step_line", tr("Step line"),
        tr("Run to the next source line, into a call that has lines"), Qt::Key_F11, false);
    add("next_line", tr("Next line"),
        tr("Run to the next source line of this routine, calls run through"),
        QKeySequence(Qt::CTRL | Qt::Key_F10), false);
    // The routine's rest: step_out, as on the run toolbar.
    bar->addAction(action(QStringLiteral("step_out")));
    add("reverse_step_line", tr("< Step line"),
        tr("Back to the start of the source line run before this one, into a routine that has lines"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F11), true);
    add("reverse_next_line", tr("< Next line"),
        tr("Back to the start of this routine's source line run before this one, calls passed over"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F10), true);
}

void MainWindow::buildCaptureDock() {
    auto* menu = menuBar()->findChild<QMenu*>(QStringLiteral("captureMenu"));
    capture_ = new CaptureDock(
        [this](const std::string& method, const nlohmann::json& params,
               std::function<void(bool, const nlohmann::json&)> r) {
            command(method, params, std::move(r));
        },
        [](const QString& folder) { QDesktopServices::openUrl(QUrl::fromLocalFile(folder)); },
        this);
    auto* dock = new QDockWidget(tr("Capture"), this);
    dock->setObjectName(QStringLiteral("captureDock"));
    dock->setWidget(capture_);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide();
    auto* start = menu->addAction(tr("&Start capture"), this, [this, dock] {
        dock->show();
        dock->raise();
        capture_->start();
    });
    start->setObjectName(QStringLiteral("captureStartAction"));
    auto* stop = menu->addAction(tr("S&top capture"), this, [this] { capture_->stop(); });
    stop->setObjectName(QStringLiteral("captureStopAction"));
    auto* open =
        menu->addAction(tr("&Open capture folder"), this, [this] { capture_->openFolder(); });
    open->setObjectName(QStringLiteral("captureOpenAction"));
    menu->addSeparator();
    menu->addAction(dock->toggleViewAction());
    connect(capture_, &CaptureDock::statusChanged, this, [this, start, stop, open] {
        start->setEnabled(!capture_->active());
        stop->setEnabled(capture_->active());
        open->setEnabled(!capture_->folder().isEmpty());
    });
}

void MainWindow::drainMailbox() {
    relay_->drain();
}

QAction* MainWindow::action(const QString& name) const {
    return findChild<QAction*>(name);
}

void MainWindow::command(const std::string& method, const nlohmann::json& params, Reply reply) {
    dispatch(method, params, std::move(reply), true);
}

void MainWindow::paneCommand(const std::string& method, const nlohmann::json& params, Reply reply) {
    dispatch(method, params, std::move(reply), false);
}

void MainWindow::dispatch(const std::string& method, const nlohmann::json& params, Reply reply,
                          bool reportErrors) {
    emit sent(QString::fromStdString(method), QString::fromStdString(params.dump()));
    std::weak_ptr<ThreadMailbox> box = relay_;
    emulator_.submit(
        method, params,
        [box, reply = std::move(reply), this, method, reportErrors](const CommandResult& r) {
            auto relay = box.lock();
            if (!relay) return;
            const bool ok = r.ok;
            nlohmann::json payload =
                ok ? r.result : nlohmann::json{{"code", r.errorCode}, {"message", r.errorMessage}};
            relay->post([this, ok, payload = std::move(payload), reply, method, reportErrors] {
                if (!ok && reportErrors && payload.value("code", 0) != errc::ShuttingDown)
                    showError(payload);
                if (reply) reply(ok, payload);
                refresh();
                emit replied(QString::fromStdString(method), ok);
            });
        });
}

void MainWindow::refresh() {
    const auto s = emulator_.snapshot();
    if (!s || s->serial == shownSerial_) return;
    shownSerial_ = s->serial;
    display_->setPicture(s->picture);
    display_->setOverlay(s->overlay);
    if (analyzer_->isVisible() || !analyzer_->grid())
        analyzer_->setFrames(s->previousGrid, s->grid, s->progressGrid);
    cpu_->setSnapshot(*s);
    // The debugger's panes ask their questions at a stop (a paused snapshot at a new place).
    source_->setSnapshot(*s);
    stack_->setSnapshot(*s);
    vars_->setSnapshot(*s);
    custom_->setSnapshot(*s);
    memory_->setSnapshot(*s);
    if (copper_->isVisible()) copper_->setSnapshot(*s);
    frameLabel_->setText(tr("frame %1").arg(s->frame));
    // Lines and clocks in hex, as the hardware manuals and the Frame Analyzer give them.
    beamLabel_->setText(tr("beam $%1,$%2").arg(hexDigits(s->vpos, 3), hexDigits(s->hpos, 2)));
    pcLabel_->setText(tr("pc $%1").arg(hexDigits(s->regs.pc, 8)));
    speedLabel_->setText(s->running ? tr("speed %1x real time").arg(s->speed, 0, 'f', 2)
                                    : tr("paused"));
    pollTimeline();
}

// ---- the record of the past -----------------------------------------------------------------

void MainWindow::buildRecord() {
    auto* machine = menuBar()->actions().at(1)->menu();
    auto* bar = findChild<QToolBar*>(QStringLiteral("runToolBar"));
    bar->addSeparator();
    const auto add = [&](const QString& name, const QString& text, const QKeySequence& key,
                         std::function<void()> what) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        a->setShortcut(key);
        connect(a, &QAction::triggered, this, std::move(what));
        machine->addAction(a);
        bar->addAction(a);
    };
    // The reverse verbs want a paused machine; a pause queued first gives them one.
    add("back_step", tr("< Step"), QKeySequence(Qt::SHIFT | Qt::Key_F7), [this] {
        command("pause");
        command("reverse_step", {{"n", 1}});
    });
    add("back_frame", tr("< Frame"), QKeySequence(Qt::SHIFT | Qt::Key_F8), [this] {
        command("pause");
        command("reverse_frame", {{"n", 1}});
    });
    add("back_run", tr("< Run"), QKeySequence(Qt::SHIFT | Qt::Key_F5), [this] {
        command("pause");
        command("reverse_continue");
    });
    add("now", tr("Now"), QKeySequence(Qt::SHIFT | Qt::Key_F6), [this] {
        command("pause");
        command("timeline.status", {}, [this](bool ok, const nlohmann::json& s) {
            if (ok) command("timeline.seek", {{"cck", s["newest"].value("cck", 0ull)}});
        });
    });
    connect(timeline_, &TimelineStrip::scrubbed, this, &MainWindow::seekTo);
    connect(display_, &DisplayWidget::keyChanged, this, [this](int code, bool down) {
        command("input.key", {{"rawkey", code}, {"action", down ? "press" : "release"}});
    });
    connect(display_, &DisplayWidget::mouseMoved, this, [this](int dx, int dy) {
        command("input.mouse", {{"dx", dx}, {"dy", dy}});
    });
    connect(display_, &DisplayWidget::mouseButton, this, [this](int b, bool down) {
        static constexpr const char* names[] = {"left", "right", "middle"};
        command("input.mouse", {{names[b], down}});
    });
}

void MainWindow::pollTimeline() {
    // Five times a second is enough for a strip and a label.
    if (timelineAsked_ || (timelinePolled_.isValid() && timelinePolled_.elapsed() < 200)) return;
    timelinePolled_.start();
    pollWarp();
    timelineAsked_ = true;
    command("timeline.status", {}, [this](bool ok, const nlohmann::json& s) {
        timelineAsked_ = false;
        if (!ok) return;
        timeline_->setSpan(s["oldest"].value("cck", 0ull), s["newest"].value("cck", 0ull),
                           s["here"].value("cck", 0ull));
        const double back = s.value("seconds_back", 0.0);
        backLabel_->setText(back > 0 ? tr("%1 s back").arg(back, 0, 'f', 2) : tr("now"));
    });
}

void MainWindow::seekTo(std::uint64_t cck) {
    // A drag asks faster than the machine stands: only the latest target waits its turn.
    scrubTo_ = cck;
    if (seeking_) return;
    seeking_ = true;
    const std::uint64_t target = *scrubTo_;
    scrubTo_.reset();
    command("pause");
    command("timeline.seek", {{"cck", target}}, [this](bool, const nlohmann::json&) {
        seeking_ = false;
        if (scrubTo_) seekTo(*scrubTo_);
    });
}

QString MainWindow::statusText() const {
    return frameLabel_->text() + QStringLiteral("  ") + beamLabel_->text() + QStringLiteral("  ") +
           pcLabel_->text() + QStringLiteral("  ") + speedLabel_->text() + QStringLiteral("  ") +
           backLabel_->text();
}

void MainWindow::showError(const nlohmann::json& error) {
    statusBar()->showMessage(
        QString::fromStdString(error.value("message", std::string("command failed"))), 5000);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/version", kSettingsVersion);
    settings.setValue("window/geometry", saveGeometry());
    // The size alone too, to tell whether the geometry fits the screen of the next start.
    settings.setValue("window/size",
                      (isMaximized() || isFullScreen() ? normalGeometry() : geometry()).size());
    settings.setValue("window/state", saveState(kSettingsVersion));
    QMainWindow::closeEvent(event);
}

void MainWindow::showAbout() {
    command("version", {}, [this](bool ok, const nlohmann::json& v) {
        const QString text = ok ? QString::fromStdString(v.value("name", std::string()) + " " +
                                                         v.value("version", std::string()))
                                : tr("Copperline");
        QMessageBox::about(this, tr("About Copperline"),
                           text + tr("\nA cycle-accurate Amiga profiler and debugger."));
    });
}

} // namespace copperline
