// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/capture_dock.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <filesystem>

#include "emu/media/file_bytes.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/sample_report.h"
#include "profiler/report/system_report.h"
#include "profiler/sampling/system_sampler.h"

namespace copperline {

namespace {

constexpr int kPollMs = 500;
// profile.start's limits (the source document: 500 frames by default, at most 100,000).
constexpr int kDefaultFrames = 500, kMaxFrames = 100000;

QString bytesText(std::uint64_t n) {
    if (n < 10 * 1024) return QStringLiteral("%1 bytes").arg(n);
    if (n < 10 * 1024 * 1024) return QStringLiteral("%1 KiB").arg(double(n) / 1024, 0, 'f', 1);
    return QStringLiteral("%1 MiB").arg(double(n) / (1024 * 1024), 0, 'f', 1);
}

} // namespace

CaptureDock::CaptureDock(Send send, Opener opener, QWidget* parent)
    : QWidget(parent), send_(std::move(send)), opener_(std::move(opener)) {
    path_ = new QLineEdit(this);
    path_->setObjectName(QStringLiteral("capturePath"));
    path_->setPlaceholderText(tr("a new folder in the traces folder"));
    auto* browse = new QPushButton(tr("Choose..."), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Capture folder"));
        if (!dir.isEmpty()) path_->setText(dir);
    });
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(path_, 1);
    pathRow->addWidget(browse);

    frames_ = new QSpinBox(this);
    frames_->setObjectName(QStringLiteral("captureFrames"));
    frames_->setRange(1, kMaxFrames);
    frames_->setValue(kDefaultFrames);
    slots_ = new QCheckBox(tr("Full slot records (slots-*.bin)"), this);
    slots_->setObjectName(QStringLiteral("captureSlots"));
    memory_ = new QCheckBox(tr("Chip and slow RAM at the start"), this);
    memory_->setObjectName(QStringLiteral("captureMemory"));
    samples_ = new QCheckBox(tr("Precise CPU samples with call stacks (samples-*.bin)"), this);
    samples_->setObjectName(QStringLiteral("captureSamples"));
    registers_ = new QCheckBox(tr("with the registers of every sample"), this);
    registers_->setObjectName(QStringLiteral("captureRegisters"));
    connect(samples_, &QCheckBox::toggled, this, [this] { updateForm(); });
    sampler_ = new QCheckBox(tr("System sampler (sampler.bin) at"), this);
    sampler_->setObjectName(QStringLiteral("captureSampler"));
    sampler_->setToolTip(tr("Samples of the whole machine at exact emulated moments: task, context, "
                            "module and function"));
    samplerHz_ = new QSpinBox(this);
    samplerHz_->setObjectName(QStringLiteral("captureSamplerHz"));
    samplerHz_->setRange(1, int(maxSamplerHz(true)));
    samplerHz_->setValue(int(sampler_format::kDefaultHz));
    samplerHz_->setSuffix(tr(" Hz"));
    connect(sampler_, &QCheckBox::toggled, this, [this] { updateForm(); });
    auto* samplerRow = new QHBoxLayout;
    samplerRow->addWidget(sampler_);
    samplerRow->addWidget(samplerHz_);
    samplerRow->addStretch(1);
    pcSamples_ = new QCheckBox(tr("The PC at each frame's boundary (pc_samples)"), this);
    pcSamples_->setObjectName(QStringLiteral("capturePcSamples"));
    screenshots_ = new QComboBox(this);
    screenshots_->setObjectName(QStringLiteral("captureScreenshots"));
    screenshots_->addItems(
        {QStringLiteral("none"), QStringLiteral("last"), QStringLiteral("every")});
    trigger_ = new QComboBox(this);
    trigger_->setObjectName(QStringLiteral("captureTrigger"));
    trigger_->addItem(tr("at once"));
    trigger_->addItem(tr("at frame"));
    trigger_->addItem(tr("when busy CCK exceed"));
    triggerValue_ = new QLineEdit(this);
    triggerValue_->setObjectName(QStringLiteral("captureTriggerValue"));
    triggerValue_->setPlaceholderText(tr("frame number or colour clocks"));
    connect(trigger_, &QComboBox::currentIndexChanged, this, [this] { updateForm(); });
    auto* triggerRow = new QHBoxLayout;
    triggerRow->addWidget(trigger_);
    triggerRow->addWidget(triggerValue_, 1);
    // The flight recorder: nothing is written until a frame runs over.
    ring_ = new QCheckBox(tr("Keep the last"), this);
    ring_->setObjectName(QStringLiteral("captureRing"));
    ring_->setToolTip(tr("Hold only the latest frames in memory and write them, with the frame that "
                         "stopped it, when the condition below trips (or at Stop)"));
    ringFrames_ = new QSpinBox(this);
    ringFrames_->setObjectName(QStringLiteral("captureRingFrames"));
    ringFrames_->setRange(1, 10000);
    ringFrames_->setValue(50);
    ringFrames_->setSuffix(tr(" frames"));
    stopOn_ = new QComboBox(this);
    stopOn_->setObjectName(QStringLiteral("captureStopOn"));
    stopOn_->addItem(tr("stop when a frame's time exceeds"));
    stopOn_->addItem(tr("stop when a frame's busy time exceeds"));
    stopOn_->addItem(tr("stop at a breakpoint or watchpoint"));
    stopOnValue_ = new QLineEdit(this);
    stopOnValue_->setObjectName(QStringLiteral("captureStopOnValue"));
    stopOnValue_->setPlaceholderText(tr("colour clocks"));
    connect(ring_, &QCheckBox::toggled, this, [this] { updateForm(); });
    connect(stopOn_, &QComboBox::currentIndexChanged, this, [this] { updateForm(); });
    auto* ringRow = new QHBoxLayout;
    ringRow->addWidget(ring_);
    ringRow->addWidget(ringFrames_);
    ringRow->addWidget(stopOn_);
    ringRow->addWidget(stopOnValue_, 1);

    start_ = new QPushButton(tr("Start"), this);
    start_->setObjectName(QStringLiteral("captureStart"));
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName(QStringLiteral("captureStop"));
    open_ = new QPushButton(tr("Open folder"), this);
    open_->setObjectName(QStringLiteral("captureOpen"));
    connect(start_, &QPushButton::clicked, this, &CaptureDock::start);
    connect(stop_, &QPushButton::clicked, this, &CaptureDock::stop);
    connect(open_, &QPushButton::clicked, this, &CaptureDock::openFolder);
    report_ = new QPushButton(tr("CPU profile..."), this);
    report_->setObjectName(QStringLiteral("captureCpuProfile"));
    report_->setToolTip(tr("Write the samples as a .cpuprofile of the program that was profiled"));
    connect(report_, &QPushButton::clicked, this, &CaptureDock::makeCpuProfile);
    systemReport_ = new QPushButton(tr("System report"), this);
    systemReport_->setObjectName(QStringLiteral("captureSystemReport"));
    systemReport_->setToolTip(tr("Write the samples by task, context, module and function as folded "
                                 "stacks and a trace, and show the ranked table"));
    connect(systemReport_, &QPushButton::clicked, this, &CaptureDock::makeSystemReport);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(start_);
    buttons->addWidget(stop_);
    buttons->addWidget(open_);
    buttons->addWidget(report_);
    buttons->addWidget(systemReport_);
    buttons->addStretch(1);

    state_ = new QLabel(tr("idle"), this);
    state_->setObjectName(QStringLiteral("captureState"));
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("captureProgress"));
    progress_->setFormat(tr("%v of %m frames"));
    progress_->setRange(0, 1);
    progress_->setValue(0);
    detail_ = new QLabel(this);
    detail_->setWordWrap(true);
    detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("captureError"));
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet(QStringLiteral("color: #d04040"));

    auto* form = new QFormLayout;
    form->addRow(tr("Folder"), pathRow);
    form->addRow(tr("Frames"), frames_);
    form->addRow(QString(), slots_);
    form->addRow(QString(), memory_);
    form->addRow(QString(), samples_);
    form->addRow(QString(), registers_);
    form->addRow(QString(), samplerRow);
    form->addRow(QString(), pcSamples_);
    form->addRow(tr("Screenshots"), screenshots_);
    form->addRow(tr("Trigger"), triggerRow);
    form->addRow(tr("Flight recorder"), ringRow);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(state_);
    layout->addWidget(progress_);
    layout->addWidget(detail_);
    layout->addWidget(error_);
    layout->addStretch(1);

    timer_ = new QTimer(this);
    connect(timer_, &QTimer::timeout, this, [this] {
        if (isVisible() || active_) poll();
    });
    timer_->start(kPollMs);
    updateForm();
}

nlohmann::json CaptureDock::startParams() const {
    nlohmann::json p = {{"frames", frames_->value()},
                        {"slots", slots_->isChecked()},
                        {"memory", memory_->isChecked()},
                        {"screenshots", screenshots_->currentText().toStdString()}};
    if (samples_->isChecked()) {
        p["samples"] = true;
        if (registers_->isChecked()) p["registers"] = true;
    }
    if (sampler_->isChecked()) p["sampler"] = {{"hz", samplerHz_->value()}};
    if (pcSamples_->isChecked()) p["pc_samples"] = true;
    if (!path_->text().trimmed().isEmpty()) p["path"] = path_->text().trimmed().toStdString();
    // The value goes as typed: the command checks it and says what is wrong.
    const std::string value = triggerValue_->text().trimmed().toStdString();
    bool number = false;
    const qulonglong n = triggerValue_->text().trimmed().toULongLong(&number);
    const nlohmann::json v = number ? nlohmann::json(n) : nlohmann::json(value);
    if (trigger_->currentIndex() == 1) p["trigger"] = {{"frame", v}};
    if (trigger_->currentIndex() == 2) p["trigger"] = {{"busy_cck_over", v}};
    if (ring_->isChecked()) {
        // The flight recorder watches up to 100,000 frames (the frames box is the budget of
        // an ordinary capture).
        p.erase("frames");
        p["ring"] = ringFrames_->value();
        bool ok = false;
        const qulonglong c = stopOnValue_->text().trimmed().toULongLong(&ok);
        const nlohmann::json cv = ok ? nlohmann::json(c) : nlohmann::json(stopOnValue_->text().trimmed().toStdString());
        if (stopOn_->currentIndex() == 0) p["stop_on"] = {{"frame_cck_over", cv}};
        if (stopOn_->currentIndex() == 1) p["stop_on"] = {{"busy_cck_over", cv}};
        if (stopOn_->currentIndex() == 2) p["stop_on"] = {{"break", true}};
    }
    return p;
}

void CaptureDock::start() {
    error_->clear();
    send_("profile.start", startParams(), [this](bool ok, const nlohmann::json& r) {
        if (!ok) {
            showError(r);
            return;
        }
        folder_ = QString::fromStdString(r.value("path", std::string()));
        active_ = true;
        progress_->setRange(0, std::max(1, r.value("frames_limit", 1)));
        progress_->setValue(0);
        updateForm();
        poll();
    });
}

void CaptureDock::stop() {
    error_->clear();
    send_("profile.stop", nlohmann::json::object(), [this](bool ok, const nlohmann::json& r) {
        if (!ok) {
            showError(r);
            return;
        }
        showStatus(r);
        active_ = false;
        updateForm();
    });
}

void CaptureDock::openFolder() {
    if (!folder_.isEmpty() && opener_) opener_(folder_);
}

void CaptureDock::makeCpuProfile() {
    const QString program = QFileDialog::getOpenFileName(this, tr("The program that was profiled"));
    if (program.isEmpty()) return;
    bool ok = false;
    const QString result = writeCpuProfileFor(program, &ok);
    if (ok) {
        error_->clear();
        detail_->setText(detail_->text() + tr("\nwrote %1").arg(result));
    } else {
        error_->setText(result);
    }
}

QString CaptureDock::writeCpuProfileFor(const QString& program, bool* ok) {
    *ok = false;
    try {
        const DebugInfo info = DebugInfo::load(program.toStdString());
        const CaptureFiles capture = readCapture(folder_.toStdString());
        const SampleReport report = buildSampleReport(capture, info);
        // A name nothing has: PROG.cpuprofile, else PROG-2.cpuprofile, ...
        const std::filesystem::path base =
            std::filesystem::path(folder_.toStdString()) / std::filesystem::path(program.toStdString()).filename();
        std::string out = base.string() + ".cpuprofile";
        for (int n = 2; std::filesystem::exists(out); ++n) out = base.string() + "-" + std::to_string(n) + ".cpuprofile";
        writeCpuProfile(report.merged, out, sampleProfileOptions(report, program.toStdString()));
        *ok = true;
        QString text = QString::fromStdString(out);
        for (const std::string& w : report.warnings) text += tr(" (%1)").arg(QString::fromStdString(w));
        return text;
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

void CaptureDock::makeSystemReport() {
    bool ok = false;
    const QString result = writeSystemReport(&ok);
    if (ok) {
        error_->clear();
        detail_->setText(detail_->text() + QStringLiteral("\n") + result);
    } else {
        error_->setText(result);
    }
}

QString CaptureDock::writeSystemReport(bool* ok) {
    *ok = false;
    namespace fs = std::filesystem;
    try {
        const fs::path dir = folder_.toStdString();
        const bool statistical = fs::exists(dir / "sampler.bin");
        const SystemSampleFile file =
            statistical ? readSystemSamples((dir / "sampler.bin").string()) : preciseSystemSamples(dir.string());
        const SystemReport report = buildSystemReport(file, nullptr);
        // Names nothing has: sampler.folded, else sampler-2.folded, ...
        const std::string stem = statistical ? "sampler" : "samples";
        std::string suffix;
        for (int n = 2; fs::exists(dir / (stem + suffix + ".folded")) || fs::exists(dir / (stem + suffix + ".trace.json"));
             ++n)
            suffix = QStringLiteral("-%1").arg(n).toStdString();
        const fs::path folded = dir / (stem + suffix + ".folded"), trace = dir / (stem + suffix + ".trace.json");
        const std::string foldedBytes = foldedText(report), traceBytes = traceJson(report).dump() + "\n";
        writeFileBytes(folded.string(), {foldedBytes.begin(), foldedBytes.end()});
        writeFileBytes(trace.string(), {traceBytes.begin(), traceBytes.end()});
        *ok = true;
        return tr("wrote %1 and %2\n%3")
            .arg(QString::fromStdString(folded.string()), QString::fromStdString(trace.string()),
                 QString::fromStdString(tableText(report, 8)));
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

void CaptureDock::poll() {
    if (polling_) return;
    polling_ = true;
    send_("profile.status", nlohmann::json::object(), [this](bool ok, const nlohmann::json& r) {
        polling_ = false;
        if (ok)
            showStatus(r);
        else
            showError(r);
        emit statusChanged();
    });
}

void CaptureDock::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    poll();
}

void CaptureDock::showStatus(const nlohmann::json& s) {
    const std::string state =
        s.value("state", std::string(s.value("active", false) ? "recording" : "idle"));
    active_ = s.value("active", false);
    const std::string path = s.value("path", std::string());
    if (!path.empty()) folder_ = QString::fromStdString(path);
    const int limit = std::max(1, s.value("frames_limit", 1));
    const int written = s.value("frames_written", 0);
    progress_->setRange(0, limit);
    progress_->setValue(std::min(written, limit));
    QString text = QString::fromStdString(state);
    if (state == "armed") text += tr(": waiting for the trigger");
    if (s.value("triggered", false) && !s["triggered_at"].is_null())
        text +=
            tr(" (triggered at frame %1)").arg(QString::fromStdString(s["triggered_at"].dump()));
    if (s.contains("ring") && s["ring"].is_object()) {
        const nlohmann::json& r = s["ring"];
        if (r.value("stopped", nlohmann::json()).is_object())
            text += tr(" (the flight recorder stopped: %1)")
                        .arg(QString::fromStdString(r["stopped"].value("reason", std::string())));
        else
            text += tr(" (the flight recorder holds %1 of %2 frames, %3)")
                        .arg(r.value("frames_held", 0u))
                        .arg(r.value("frames", 0u))
                        .arg(bytesText(r.value("bytes_held", std::uint64_t(0))));
    }
    state_->setText(text);
    QString detail = tr("%1 of %2 frames, %3")
                         .arg(written)
                         .arg(limit)
                         .arg(bytesText(s.value("bytes_written", std::uint64_t(0))));
    sampled_ = s.contains("samples_total");
    if (sampled_) {
        detail += tr(", %1 samples").arg(s.value("samples_total", std::uint64_t(0)));
        if (const std::uint64_t dropped = s.value("samples_dropped", std::uint64_t(0)))
            detail += tr(" (%1 dropped: the buffer was full)").arg(dropped);
    }
    systemSampled_ = s.contains("sampler") && s["sampler"].is_object();
    if (systemSampled_)
        detail += tr(", %1 system samples at %2 Hz")
                      .arg(s["sampler"].value("samples", std::uint64_t(0)))
                      .arg(s["sampler"].value("hz", 0u));
    if (!folder_.isEmpty()) detail += tr("\nin %1").arg(folder_);
    detail_->setText(detail);
    if (s.contains("error") && s["error"].is_string())
        error_->setText(QString::fromStdString(s["error"].get<std::string>()));
    else if (state != "failed")
        error_->clear();
    updateForm();
}

void CaptureDock::showError(const nlohmann::json& e) {
    error_->setText(
        tr("%1 (error %2)")
            .arg(QString::fromStdString(e.value("message", std::string("command failed"))))
            .arg(e.value("code", 0)));
}

void CaptureDock::updateForm() {
    const bool triggered = trigger_->currentIndex() != 0;
    triggerValue_->setEnabled(triggered);
    for (QWidget* w :
         std::initializer_list<QWidget*>{path_, frames_, slots_, memory_, screenshots_, trigger_})
        w->setEnabled(!active_);
    triggerValue_->setEnabled(!active_ && triggered);
    ring_->setEnabled(!active_);
    for (QWidget* w : std::initializer_list<QWidget*>{ringFrames_, stopOn_})
        w->setEnabled(!active_ && ring_->isChecked());
    stopOnValue_->setEnabled(!active_ && ring_->isChecked() && stopOn_->currentIndex() != 2);
    registers_->setEnabled(!active_ && samples_->isChecked());
    sampler_->setEnabled(!active_);
    samplerHz_->setEnabled(!active_ && sampler_->isChecked());
    pcSamples_->setEnabled(!active_);
    systemReport_->setEnabled(!active_ && (systemSampled_ || sampled_) && !folder_.isEmpty());
    samples_->setEnabled(!active_);
    start_->setEnabled(!active_);
    stop_->setEnabled(active_);
    open_->setEnabled(!folder_.isEmpty());
    report_->setEnabled(!active_ && sampled_ && !folder_.isEmpty());
}

QString CaptureDock::stateText() const {
    return state_->text();
}
QString CaptureDock::progressText() const {
    return detail_->text();
}
QString CaptureDock::errorText() const {
    return error_->text();
}

} // namespace copperline
