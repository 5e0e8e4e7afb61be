#include "app/profile_run.h"

#include "app/control/capture_options.h"
#include "app/control/command_bus.h"
#include "app/headless.h"
#include "emu/machine.h"

#include <QCommandLineParser>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <unistd.h>

namespace copperline {

namespace {
using nlohmann::json;
} // namespace

void addProfileOptions(QCommandLineParser& parser) {
    parser.addOptions({
        {"profile",
         "Headless: capture frames into the new folder DIR (docs/formats/profile-jsonl.md) and "
         "exit when "
         "the capture completes.",
         "DIR"},
        {"profile-frames", "With --profile: frames to capture (1-100000, default 500).", "N"},
        {"profile-after",
         "With --profile: start the capture after SECONDS emulated seconds (default: at power-on).",
         "SECONDS"},
        {"profile-options",
         "With --profile: profile.start's options as a JSON object, e.g. "
         "'{\"slots\": true, \"memory\": true, \"screenshots\": \"last\"}'.",
         "JSON"},
        {"traces",
         "The folder captures go to when no path is given (default "
         "$XDG_DATA_HOME/copperline/traces).",
         "DIR"},
    });
}

bool wantsProfile(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--profile") || !std::strncmp(argv[i], "--profile=", 10))
            return true;
    return false;
}

int runProfileFromCommandLine(const QCommandLineParser& parser, Machine& machine) {
    const auto usage = [](const std::string& message) {
        std::fprintf(stderr, "copperline: %s\n", message.c_str());
        return exit_status::Usage;
    };
    for (const char* flag : {"run", "control", "control-gui", "screenshot-after"})
        if (parser.isSet(flag))
            return usage(std::string("--profile cannot be combined with --") + flag);
    json params = json::object();
    if (parser.isSet("profile-options")) {
        try {
            params = json::parse(parser.value("profile-options").toStdString());
        } catch (const json::exception& e) {
            return usage(std::string("--profile-options: not JSON: ") + e.what());
        }
        if (!params.is_object())
            return usage("--profile-options: wants a JSON object of profile.start's options");
    }
    const std::string dir = parser.value("profile").toStdString();
    if (params.contains("path") && params["path"] != dir)
        return usage("--profile-options: path differs from --profile " + dir);
    params["path"] = dir;
    if (parser.isSet("profile-frames")) {
        bool ok = false;
        const qlonglong n = parser.value("profile-frames").toLongLong(&ok);
        if (!ok || n < 1 || n > CaptureOptions::kMaxFrames)
            return usage("--profile-frames: wants 1-100000, not '" +
                         parser.value("profile-frames").toStdString() + "'");
        if (params.contains("frames") && params["frames"] != n)
            return usage("--profile-options: frames differs from --profile-frames");
        params["frames"] = n;
    }
    double after = 0;
    if (parser.isSet("profile-after")) {
        bool ok = false;
        after = parser.value("profile-after").toDouble(&ok);
        if (!ok || after < 0 || after > 86400)
            return usage("--profile-after: wants emulated seconds, not '" +
                         parser.value("profile-after").toStdString() + "'");
    }
    ProfileOptions options;
    try {
        options =
            parseCaptureOptions(params, tracesFolder(parser.value("traces").toStdString()), "");
    } catch (const CommandError& e) {
        return usage("--profile: " + std::string(e.what()));
    }

    while (machine.emulatedSeconds() < after) {
        if (machine.halted()) {
            std::fprintf(stderr, "copperline: the CPU halted before the capture started\n");
            return exit_status::EmulatorError;
        }
        machine.runFrame();
    }
    ProfileSession session;
    try {
        session = startCapture(machine, options, nullptr, [](const std::string& warning) {
            std::fprintf(stderr, "\ncopperline: profile: %s\n", warning.c_str());
        });
    } catch (const CaptureError& e) {
        return usage(std::string("--profile: ") + e.what());
    }
    FrameCapture* capture = session.capture.get();
    const bool tty = ::isatty(2) == 1;
    const auto start = std::chrono::steady_clock::now();
    auto lastReport = start;
    const double emuStart = machine.emulatedSeconds();
    const auto report = [&](bool final) {
        const auto& s = capture->status();
        const double host =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double speed = host > 0 ? (machine.emulatedSeconds() - emuStart) / host : 0;
        std::fprintf(stderr, "\rcopperline: profile: %u/%u frames, %.1f MB, %.1fx real time%s",
                     s.framesWritten, s.framesLimit, double(s.bytesWritten) / 1e6, speed,
                     final ? "\n" : "   ");
        std::fflush(stderr);
    };
    while (capture->status().active()) {
        if (machine.halted()) {
            capture->finish();
            std::fprintf(
                stderr,
                "\ncopperline: the CPU halted during the capture; %s holds what was recorded\n",
                options.capture.path.c_str());
            return exit_status::EmulatorError;
        }
        machine.runFrame();
        if (tty) {
            const auto now = std::chrono::steady_clock::now();
            if (now - lastReport >= std::chrono::seconds(1)) {
                lastReport = now;
                report(false);
            }
        }
    }
    const json result = capture->finish();
    if (tty) report(true);
    if (capture->status().state == CaptureStatus::State::Failed) {
        std::fprintf(stderr, "copperline: profile: %s\n", capture->status().error.c_str());
        return exit_status::EmulatorError;
    }
    std::fprintf(stderr, "copperline: profile: %u frames in %s\n", capture->status().framesWritten,
                 options.capture.path.c_str());
    return exit_status::Ok;
}

} // namespace copperline
