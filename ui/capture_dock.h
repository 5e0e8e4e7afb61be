// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The capture pane (the Capture menu opens it): the options of profile.start (folder,
// frames, slots, memory, screenshots, a trigger), Start and Stop, the capture's progress
// as profile.status reports it (frames written of the budget, bytes, the trigger's state),
// a button that opens the capture's folder, and one that turns a capture with precise
// samples into a .cpuprofile of a program (the converter copperline-ctl profile-report
// uses) for VS Code, DevTools or speedscope; the system sampler at a rate, the frame-boundary
// PCs, and a button that writes the system report (folded stacks and a trace, with the
// ranked table shown in the pane) of a capture with the sampler or precise samples. Every action is a command on the bus, so
// a capture started here is the same as one started over the control socket, and an
// error the bus returns is shown as it came.

#include <QWidget>
#include <functional>
#include <nlohmann/json.hpp>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTimer;

namespace copperline {

class CaptureDock : public QWidget {
    Q_OBJECT
public:
    using Send =
        std::function<void(const std::string& method, const nlohmann::json& params,
                           std::function<void(bool ok, const nlohmann::json& result)> reply)>;
    // Opens a folder for the user (the window passes the desktop's file manager).
    using Opener = std::function<void(const QString& folder)>;

    CaptureDock(Send send, Opener opener, QWidget* parent = nullptr);

    // The profile.start parameters the form holds.
    nlohmann::json startParams() const;
    void start();
    void stop();
    void openFolder();
    // Asks for the profiled program and writes FOLDER/PROG.cpuprofile.
    void makeCpuProfile();
    // The same without asking: the .cpuprofile's path, or the error (with `ok` false).
    QString writeCpuProfileFor(const QString& program, bool* ok);
    // The system report of the capture shown (sampler.bin, else its precise samples):
    // writes FOLDER/sampler.folded and sampler.trace.json (samples.* from precise samples;
    // -2, -3, ... when taken) and returns what it wrote and the ranked table, or the error
    // (with `ok` false).
    QString writeSystemReport(bool* ok);
    void makeSystemReport();
    // Asks profile.status now (a timer does it twice a second while the pane is shown or a
    // capture runs).
    void poll();

    // What the pane shows, for tests.
    QString stateText() const;
    QString progressText() const;
    QString errorText() const;
    QString folder() const { return folder_; }
    bool active() const { return active_; }

    // The form's fields, for tests and the menu.
    QLineEdit* pathEdit() const { return path_; }
    QSpinBox* framesBox() const { return frames_; }
    QCheckBox* slotsBox() const { return slots_; }
    QCheckBox* memoryBox() const { return memory_; }
    QCheckBox* samplesBox() const { return samples_; }
    QCheckBox* registersBox() const { return registers_; }
    QCheckBox* samplerBox() const { return sampler_; }
    QSpinBox* samplerHzBox() const { return samplerHz_; }
    QCheckBox* pcSamplesBox() const { return pcSamples_; }
    QPushButton* systemReportButton() const { return systemReport_; }
    QPushButton* cpuProfileButton() const { return report_; }
    QComboBox* screenshotsBox() const { return screenshots_; }
    QComboBox* triggerBox() const { return trigger_; }
    QLineEdit* triggerValue() const { return triggerValue_; }
    // The flight recorder: keep the last N frames, stop when a frame exceeds a time (or at a
    // breakpoint).
    QCheckBox* ringBox() const { return ring_; }
    QSpinBox* ringFramesBox() const { return ringFrames_; }
    QComboBox* stopOnBox() const { return stopOn_; }
    QLineEdit* stopOnValue() const { return stopOnValue_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* stopButton() const { return stop_; }
    QPushButton* openButton() const { return open_; }

signals:
    // profile.status answered (ok or not).
    void statusChanged();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showStatus(const nlohmann::json& status);
    void showError(const nlohmann::json& error);
    void updateForm();

    Send send_;
    Opener opener_;
    QLineEdit* path_ = nullptr;
    QSpinBox* frames_ = nullptr;
    QCheckBox* slots_ = nullptr;
    QCheckBox* memory_ = nullptr;
    QCheckBox* samples_ = nullptr;
    QCheckBox* registers_ = nullptr;
    QPushButton* report_ = nullptr;
    bool sampled_ = false; // the capture shown has precise samples
    QCheckBox* sampler_ = nullptr;
    QSpinBox* samplerHz_ = nullptr;
    QCheckBox* pcSamples_ = nullptr;
    QCheckBox* ring_ = nullptr;
    QSpinBox* ringFrames_ = nullptr;
    QComboBox* stopOn_ = nullptr;
    QLineEdit* stopOnValue_ = nullptr;
    QPushButton* systemReport_ = nullptr;
    bool systemSampled_ = false; // the capture shown has the sampler's samples
    QComboBox* screenshots_ = nullptr;
    QComboBox* trigger_ = nullptr;
    QLineEdit* triggerValue_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* stop_ = nullptr;
    QPushButton* open_ = nullptr;
    QLabel* state_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* detail_ = nullptr;
    QLabel* error_ = nullptr;
    QTimer* timer_ = nullptr;
    QString folder_;
    bool active_ = false;
    bool polling_ = false;
};

} // namespace copperline
