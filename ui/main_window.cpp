#include "ui/main_window.h"

#include "app/control/emulator.h"
#include "ui/capture_dock.h"
#include "ui/coverage_pane.h"
#include "ui/cpu_pane.h"
#include "ui/display_widget.h"
#include "ui/frame_analyzer.h"
#include "ui/relay.h"
#include "ui/timeline_strip.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
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
constexpr int kSettingsVersion = 1;

} // namespace

MainWindow::MainWindow(Emulator& emulator, bool factory, QWidget* parent)
    : QMainWindow(parent), emulator_(emulator), relay_(std::make_shared<Relay>()) {
    relay_->target = this;
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
    buildDocks();
    buildRecord();

    frameLabel_ = new QLabel(this);
    beamLabel_ = new QLabel(this);
    speedLabel_ = new QLabel(this);
    backLabel_ = new QLabel(this);
    for (QLabel* l : {frameLabel_, beamLabel_, speedLabel_, backLabel_}) {
        l->setMinimumWidth(
            fontMetrics().horizontalAdvance(QStringLiteral("speed 00.00x real time")));
        statusBar()->addPermanentWidget(l);
    }

    resize(1440, 900);
    // The analyzer's grid at two pixels per colour clock, one per line, with its strip.
    resizeDocks({findChild<QDockWidget*>(QStringLiteral("analyzerDock"))}, {560}, Qt::Horizontal);
    resizeDocks({findChild<QDockWidget*>(QStringLiteral("cpuDock"))}, {230}, Qt::Vertical);
    if (!factory) {
        QSettings settings;
        if (settings.value("window/version").toInt() == kSettingsVersion) {
            restoreGeometry(settings.value("window/geometry").toByteArray());
            restoreState(settings.value("window/state").toByteArray(), kSettingsVersion);
        }
    }

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
    for (QDockWidget* d : findChildren<QDockWidget*>())
        d->disconnect(this);
    relay_->detach();
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

    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    help->addAction(tr("&About Copperline"), this, &MainWindow::showAbout);
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

QAction* MainWindow::action(const QString& name) const {
    return findChild<QAction*>(name);
}

void MainWindow::command(const std::string& method, const nlohmann::json& params, Reply reply) {
    std::weak_ptr<Relay> box = relay_;
    emulator_.submit(
        method, params, [box, reply = std::move(reply), this, method](const CommandResult& r) {
            auto relay = box.lock();
            if (!relay) return;
            const bool ok = r.ok;
            nlohmann::json payload =
                ok ? r.result : nlohmann::json{{"code", r.errorCode}, {"message", r.errorMessage}};
            relay->post([this, ok, payload = std::move(payload), reply, method] {
                if (!ok && payload.value("code", 0) != errc::ShuttingDown) showError(payload);
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
    if (analyzer_->isVisible() || !analyzer_->grid()) analyzer_->setGrid(s->grid);
    cpu_->setSnapshot(*s);
    frameLabel_->setText(tr("frame %1").arg(s->frame));
    beamLabel_->setText(tr("beam %1,%2").arg(s->vpos).arg(s->hpos));
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
           speedLabel_->text() + QStringLiteral("  ") + backLabel_->text();
}

void MainWindow::showError(const nlohmann::json& error) {
    statusBar()->showMessage(
        QString::fromStdString(error.value("message", std::string("command failed"))), 5000);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/version", kSettingsVersion);
    settings.setValue("window/geometry", saveGeometry());
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
