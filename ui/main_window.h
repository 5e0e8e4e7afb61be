// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The desktop debugger's main window: the emulated display, a toolbar (run, pause, step,
// frame step, reset) and one of source line steps, a status bar (frame, beam position,
// speed), and docks for the registers and disassembly, the Frame Analyzer, the source
// debugger (Source, Call stack, Variables and Watch) and the chipset (Copper, custom
// registers, memory). Every action it takes is a
// command sent to the emulator thread; it reads the machine only through the snapshots
// that thread publishes, so it never touches chip state.

#include <QElapsedTimer>
#include <QMainWindow>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

class QLabel;
class QMenu;
class QTimer;

namespace copperline {

class Emulator;
class DisplayWidget;
class FrameAnalyzer;
class CpuPane;
class CaptureDock;
class CoveragePane;
class CopperPane;
class CustomRegsPane;
class MemoryPane;
class SourcePane;
class StackPane;
class VarsPane;
class StripPane;
class TimelineStrip;
class ThreadMailbox;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `factory` ignores the saved dock layout and window geometry.
    MainWindow(Emulator& emulator, bool factory, QWidget* parent = nullptr);
    ~MainWindow() override;

    using Reply = std::function<void(bool ok, const nlohmann::json& resultOrError)>;
    // Sends a command; the reply (result, or the error object) arrives on the UI thread.
    void command(const std::string& method, const nlohmann::json& params = nlohmann::json::object(),
                 Reply reply = {});

    // Pulls the latest snapshot into every pane now (a timer does it 50 times a second).
    void refresh();

    DisplayWidget* display() const { return display_; }
    FrameAnalyzer* analyzer() const { return analyzer_; }
    CaptureDock* captureDock() const { return capture_; }
    CoveragePane* coveragePane() const { return coverage_; }
    StripPane* stripPane() const { return strip_; }
    CpuPane* cpuPane() const { return cpu_; }
    TimelineStrip* timeline() const { return timeline_; }
    SourcePane* sourcePane() const { return source_; }
    StackPane* stackPane() const { return stack_; }
    VarsPane* varsPane() const { return vars_; }
    CopperPane* copperPane() const { return copper_; }
    CustomRegsPane* customRegsPane() const { return custom_; }
    MemoryPane* memoryPane() const { return memory_; }
    // The toolbar's actions by name: "run", "pause", "step", "step_over", "step_out",
    // "frame", "reset", the record's "back_step", "back_frame", "back_run", "now", and the
    // source line steps "step_line", "next_line", "reverse_step_line" and
    // "reverse_next_line" (each sends the command of its name; "step_out" serves as the
    // line steps' step out too: it runs to the caller, out of an inlined call as well).
    // The menus' actions have object names too: "openProgramAction",
    // "debugProgramAction", "insertDisk0".."insertDisk3", "ejectDisk0".."ejectDisk3",
    // "writebackAction", "saveStateAction", "loadStateAction", "screenshotAction",
    // "warpAction" (File), "wholeRasterAction", "debugOverlayAction" (View).
    QAction* action(const QString& name) const;
    QString statusText() const;
    // Runs the replies the emulator thread has queued (app/control/mailbox.h wakes it).
    Q_INVOKABLE void drainMailbox();

    // How the File menu asks for files. The defaults are Qt's file dialogs and a question
    // box; a test replaces them to drive the menu offscreen. openPath and savePath return
    // the chosen file, or an empty string when the user cancelled; confirmOverwrite says
    // whether an existing file may be written over.
    struct FileDialogs {
        std::function<QString(const QString& title, const QString& filter)> openPath;
        std::function<QString(const QString& title, const QString& filter)> savePath;
        std::function<bool(const QString& path)> confirmOverwrite;
        // A line of text (an address), or nullopt when the user cancelled.
        std::function<std::optional<QString>(const QString& title, const QString& label)> askText;
    };
    FileDialogs& fileDialogs() { return dialogs_; }

    // The size the window opens at on a screen with this much room (its available
    // geometry): the preferred 1440 x 900, made smaller to fit, frame included.
    static QSize fittedSize(const QSize& available);

signals:
    // A command this window sent has been answered (after any reply handler ran).
    void replied(const QString& method, bool ok);
    // A command is on its way, with its parameters as JSON text.
    void sent(const QString& method, const QString& params);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildActions();
    void buildMemoryMenu(QMenu* machine);
    void buildClockAction(QMenu* machine);
    void showClockDialog(const nlohmann::json& clock);
    void showMemory(const nlohmann::json& sizes);
    // The File menu: open a program, the disk drives, states, a screenshot, warp.
    void buildFileMenu(QMenu* file);
    void openProgram(bool stopAtEntry);
    void insertDisk(int drive);
    void loadMachineState();
    void loadUssState();
    // state.save or capture.screenshot to the file the user chose, written over only
    // when it exists and the user says so.
    void writeChosenFile(const std::string& method, const QString& title, const QString& filter);
    void updateDriveActions();
    void pollWarp();
    // Opens at the fitted size on the screen, or at the saved geometry where it fits.
    void placeOnScreen(bool factory);
    void buildDocks();
    void buildCaptureDock();
    // Source, Call stack, Variables and Watch, the line steps' toolbar, and the chipset's
    // Copper, custom registers and memory docks.
    void buildDebuggerDocks();
    void buildLineSteps();
    // As command(), but a failure is for the pane that asked to show, not the status bar
    // (a pane's questions fail whenever the machine runs on before they arrive).
    void paneCommand(const std::string& method, const nlohmann::json& params, Reply reply);
    void dispatch(const std::string& method, const nlohmann::json& params, Reply reply,
                  bool reportErrors);
    void showAbout();
    void showError(const nlohmann::json& error);
    // The record of the past: the strip, the status bar's "how far back", the reverse
    // actions and the display's input capture (timeline_strip.h, display_widget.h).
    void buildRecord();
    void pollTimeline();
    void seekTo(std::uint64_t cck);

    Emulator& emulator_;
    std::shared_ptr<ThreadMailbox> relay_;
    DisplayWidget* display_ = nullptr;
    FrameAnalyzer* analyzer_ = nullptr;
    CpuPane* cpu_ = nullptr;
    CaptureDock* capture_ = nullptr;
    CoveragePane* coverage_ = nullptr;
    StripPane* strip_ = nullptr;
    SourcePane* source_ = nullptr;
    int logListener_ = 0; // the emulator's listener for log points' messages
    StackPane* stack_ = nullptr;
    VarsPane* vars_ = nullptr;
    CopperPane* copper_ = nullptr;
    CustomRegsPane* custom_ = nullptr;
    MemoryPane* memory_ = nullptr;
    QLabel* frameLabel_ = nullptr;
    QLabel* beamLabel_ = nullptr;
    QLabel* speedLabel_ = nullptr;
    QLabel* backLabel_ = nullptr;
    QLabel* pcLabel_ = nullptr;
    FileDialogs dialogs_;
    QAction* warp_ = nullptr;
    QAction* writeback_ = nullptr;
    QAction* eject_[4] = {};
    bool warpAsked_ = false; // a warp.get is on its way
    TimelineStrip* timeline_ = nullptr;
    bool timelineAsked_ = false;           // a timeline.status is on its way
    bool seeking_ = false;                 // a scrub's timeline.seek is on its way
    std::optional<std::uint64_t> scrubTo_; // the latest scrub target not yet sent
    QElapsedTimer timelinePolled_;
    QTimer* timer_ = nullptr;
    std::uint64_t shownSerial_ = 0;
};

} // namespace copperline
