// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/dap/launch.h"

#include "app/control/socket_path.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <filesystem>

namespace copperline::dap {

using nlohmann::json;

namespace {

// A memory size as copperline takes it ("512K", "1.5M"); a bare number is passed as it is,
// for copperline to accept or refuse with its own message.
std::string size(const json& a, const char* name) {
    const auto it = a.find(name);
    if (it == a.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number_unsigned()) return std::to_string(it->get<std::uint64_t>());
    throw ArgumentError(std::string(name) + ": expected a size such as \"512K\" or \"1M\"");
}

std::vector<std::string> strings(const json& a, const char* name) {
    std::vector<std::string> out;
    const auto it = a.find(name);
    if (it == a.end() || it->is_null()) return out;
    if (it->is_string()) return {it->get<std::string>()};
    if (!it->is_array()) throw ArgumentError(std::string(name) + ": expected an array of strings");
    for (const json& e : *it) {
        if (!e.is_string())
            throw ArgumentError(std::string(name) + ": expected an array of strings");
        out.push_back(e.get<std::string>());
    }
    return out;
}

std::string absolute(const std::string& path, const std::string& base) {
    std::filesystem::path p(path);
    if (p.is_relative() && !base.empty()) p = std::filesystem::path(base) / p;
    std::error_code ec;
    const auto abs = std::filesystem::absolute(p, ec);
    return (ec ? p : abs).lexically_normal().string();
}

// An AmigaDOS argument line: words with a space or a quote go in double quotes, a quote
// inside one escaped as AmigaDOS escapes it (*").
std::string argumentLine(const std::vector<std::string>& words) {
    std::string line;
    for (const std::string& w : words) {
        if (!line.empty()) line += ' ';
        if (!w.empty() && w.find_first_of(" \t\"") == std::string::npos) {
            line += w;
            continue;
        }
        line += '"';
        for (const char c : w)
            line += c == '"' ? std::string("*\"") : std::string(1, c);
        line += '"';
    }
    return line;
}

// FS-UAE's memory options count KiB; copperline's sizes are "512K", "1M", "1.5M".
std::string fromKiB(const std::string& kib) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(kib.c_str(), &end, 10);
    if (!end || *end || kib.empty()) return kib;
    if (n == 0) return "0";
    if (n % 1024 == 0) return std::to_string(n / 1024) + "M";
    if (n > 1024 && n % 512 == 0) return std::to_string(n / 1024) + ".5M";
    return std::to_string(n) + "K";
}

// uae-dap's emulatorArgs are FS-UAE's (--key=value) or WinUAE's options. Those that say
// what copperline has an option for are taken; the rest are noted as ignored.
void takeEmulatorArgs(const std::vector<std::string>& args, QStringList& cmd,
                      std::vector<std::string>& notes) {
    static const std::map<std::string, std::string> sizes = {
        {"chip_memory", "--chip"}, {"slow_memory", "--slow"}, {"fast_memory", "--fast"}};
    static const std::map<std::string, std::string> files = {{"kickstart_file", "--rom"},
                                                             {"kickstart_ext_file", "--ext-rom"}};
    std::vector<std::string> ignored;
    for (const std::string& a : args) {
        const auto eq = a.find('=');
        const std::string key =
            a.starts_with("--") && eq != std::string::npos ? a.substr(2, eq - 2) : std::string();
        const std::string value = eq == std::string::npos ? std::string() : a.substr(eq + 1);
        if (auto s = sizes.find(key); s != sizes.end()) {
            cmd << QString::fromStdString(s->second) << QString::fromStdString(fromKiB(value));
        } else if (auto f = files.find(key); f != files.end()) {
            cmd << QString::fromStdString(f->second) << QString::fromStdString(value);
        } else {
            ignored.push_back(a);
        }
    }
    if (!ignored.empty()) {
        std::string list;
        for (const std::string& i : ignored)
            list += (list.empty() ? "" : " ") + i;
        notes.push_back("emulatorArgs: ignored " + list +
                        " (FS-UAE/WinUAE options; Copperline takes chip_memory, slow_memory, "
                        "fast_memory, kickstart_file and kickstart_ext_file from them, and its own "
                        "in emulatorOptions)");
    }
}

} // namespace

bool flagArgument(const json& a, const char* name, bool fallback) {
    const auto it = a.find(name);
    if (it == a.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw ArgumentError(std::string(name) + ": expected true or false");
    return it->get<bool>();
}

std::string stringArgument(const json& a, const char* name) {
    const auto it = a.find(name);
    if (it == a.end() || it->is_null()) return {};
    if (!it->is_string()) throw ArgumentError(std::string(name) + ": expected a string");
    return it->get<std::string>();
}

std::int64_t integerArgument(const json& a, const char* name, std::int64_t fallback) {
    const auto it = a.find(name);
    if (it == a.end() || it->is_null()) return fallback;
    if (!it->is_number_integer()) throw ArgumentError(std::string(name) + ": expected a number");
    return it->get<std::int64_t>();
}

SessionOptions parseSessionOptions(const json& a) {
    SessionOptions s;
    s.stopOnEntry = flagArgument(a, "stopOnEntry", false);
    s.noDebug = flagArgument(a, "noDebug", false);
    s.trace = flagArgument(a, "trace", false);
    if (auto it = a.find("exceptionMask"); it != a.end() && !it->is_null()) {
        if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 0xFFFFFFFFu)
            throw ArgumentError("exceptionMask: expected a number, bit N for exception vector N");
        s.exceptionMask = std::uint32_t(it->get<std::uint64_t>());
    }
    for (const char* key : {"sourceMap", "sourceFileMap"}) {
        const auto it = a.find(key);
        if (it == a.end() || it->is_null()) continue;
        if (!it->is_object())
            throw ArgumentError(std::string(key) +
                                ": expected an object {\"path in the debug information\": "
                                "\"path here\"}");
        for (const auto& [from, to] : it->items()) {
            if (!to.is_string() || from.empty())
                throw ArgumentError(std::string(key) + ": \"" + from + "\" must map to a path");
            s.sourceMap.emplace_back(from, to.get<std::string>());
        }
    }
    if (const std::string p = stringArgument(a, "program"); !p.empty())
        s.program = absolute(p, stringArgument(a, "cwd"));
    return s;
}

LaunchArguments parseLaunch(const json& a, const std::string& ctlDirectory) {
    if (!a.is_object()) throw ArgumentError("launch: the arguments must be an object");
    LaunchArguments l;
    l.session = parseSessionOptions(a);
    std::vector<std::string>& notes = l.session.notes;
    l.cwd = stringArgument(a, "cwd");
    if (l.session.program.empty())
        throw ArgumentError("program: the AmigaOS program to debug is required");
    if (!QFileInfo(QString::fromStdString(l.session.program)).isFile())
        throw ArgumentError("program: no file at " + l.session.program);
    l.headless = flagArgument(a, "headless", false);

    l.copperline = stringArgument(a, "copperlinePath");
    if (const std::string bin = stringArgument(a, "emulatorBin");
        !bin.empty() && l.copperline.empty()) {
        if (std::filesystem::path(bin).filename().string().starts_with("copperline"))
            l.copperline = bin;
        else
            notes.push_back("emulatorBin: ignored " + bin +
                            " (not a copperline binary; copperlinePath names one)");
    }
    if (l.copperline.empty()) l.copperline = ctlDirectory + "/copperline";
    l.copperline = absolute(l.copperline, l.cwd);

    QStringList& cmd = l.commandLine;
    cmd << "--run" << QString::fromStdString(l.session.program);
    if (const auto words = strings(a, "args"); !words.empty())
        cmd << "--run-args" << QString::fromStdString(argumentLine(words));
    for (const std::string& f : strings(a, "files"))
        cmd << "--run-file" << QString::fromStdString(absolute(f, l.cwd));
    if (const std::string rom = stringArgument(a, "rom"); !rom.empty())
        cmd << "--rom" << QString::fromStdString(absolute(rom, l.cwd));
    if (const std::string ext = stringArgument(a, "extRom"); !ext.empty())
        cmd << "--ext-rom" << QString::fromStdString(absolute(ext, l.cwd));
    for (const char* mem : {"chip", "slow", "fast"})
        if (const std::string s = size(a, mem); !s.empty())
            cmd << QString("--") + mem << QString::fromStdString(s);
    if (!l.headless && flagArgument(a, "noAudio", false)) cmd << "--noaudio";
    if (auto it = a.find("rtcTime"); it != a.end() && !it->is_null()) {
        // The clock's time at power-on: --rtc-time's forms, or seconds since 1970 as a number.
        if (it->is_number_integer())
            cmd << "--rtc-time" << QString::number(it->get<std::int64_t>());
        else if (it->is_string())
            cmd << "--rtc-time" << QString::fromStdString(it->get<std::string>());
        else
            throw ArgumentError("rtcTime: expected \"now\", \"YYYY-MM-DDTHH:MM:SS\" or seconds since 1970");
    }
    takeEmulatorArgs(strings(a, "emulatorArgs"), cmd, notes);
    for (const std::string& o : strings(a, "emulatorOptions"))
        cmd << QString::fromStdString(o);

    if (auto it = a.find("timeoutMs"); it != a.end() && !it->is_null()) {
        if (!it->is_number_unsigned() || it->get<std::uint64_t>() < 1 ||
            it->get<std::uint64_t>() > 3600000)
            throw ArgumentError("timeoutMs: expected milliseconds, 1 to 3,600,000");
        l.timeoutMs = int(it->get<std::uint64_t>());
    }
    static const std::map<std::string, std::string> elsewhere = {
        {"entryPoint", "the program stops at its first instruction (stopOnEntry)"},
        {"symbolFile", "the debug information is read from beside the program"},
        {"coverage", "coverage comes from a capture: copperline/coverage"}};
    for (const auto& [key, why] : elsewhere)
        if (a.contains(key)) notes.push_back(key + ": ignored (" + why + ")");
    for (const char* key : {"emulatorType", "remoteProgram", "serverName", "serverPort"})
        if (a.contains(key))
            notes.push_back(std::string(key) +
                            ": ignored (Copperline is the emulator: it stages the program on a "
                            "disk of its own and serves its control socket, not a GDB port)");
    return l;
}

std::string attachSocket(const json& a) {
    if (!a.is_object()) throw ArgumentError("attach: the arguments must be an object");
    const std::string info = stringArgument(a, "controlInfo");
    const std::string socket = stringArgument(a, "socket");
    if (!info.empty() && !socket.empty())
        throw ArgumentError("attach: give controlInfo or socket, not both");
    try {
        if (!info.empty()) return readControlInfo(absolute(info, stringArgument(a, "cwd")));
        if (!socket.empty())
            return socket.find('/') != std::string::npos ? socket : controlSocketPath(socket);
    } catch (const ControlPathError& e) {
        throw ArgumentError(e.what());
    }
    throw ArgumentError("attach: needs controlInfo (the file copperline --control-info wrote) or "
                        "socket (the NAME given to --control or --control-gui)");
}

LaunchedEmulator::LaunchedEmulator() {
    poll_.setInterval(50);
    QObject::connect(&poll_, &QTimer::timeout, &poll_, [this] { poll(); });
    QObject::connect(&process_, &QProcess::readyReadStandardOutput, &process_, [this] {
        const QByteArray b = process_.readAllStandardOutput();
        if (onOutput) onOutput("stdout", b.toStdString());
    });
    QObject::connect(&process_, &QProcess::readyReadStandardError, &process_, [this] {
        const std::string b = process_.readAllStandardError().toStdString();
        stderrTail_ += b;
        if (stderrTail_.size() > 4096) stderrTail_.erase(0, stderrTail_.size() - 4096);
        if (onOutput) onOutput("stderr", b);
    });
    QObject::connect(
        &process_, &QProcess::errorOccurred, &process_, [this](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart)
                fail("cannot start " + describe() + ": " + process_.errorString().toStdString());
        });
    QObject::connect(&process_, &QProcess::finished, &process_,
                     [this](int code, QProcess::ExitStatus status) {
                         if (ready_) {
                             std::string why = "copperline ended (exit " + std::to_string(code) +
                                               ") before it served its control socket";
                             if (!stderrTail_.empty()) why += ": " + stderrTail_;
                             while (!why.empty() && (why.back() == '\n' || why.back() == '\r'))
                                 why.pop_back();
                             fail(why);
                             return;
                         }
                         if (onExited) onExited(status == QProcess::NormalExit ? code : 128 + 9);
                     });
}

LaunchedEmulator::~LaunchedEmulator() {
    process_.disconnect();
    poll_.stop();
    if (process_.state() != QProcess::NotRunning) {
        process_.kill();
        process_.waitForFinished(5000);
    }
}

void LaunchedEmulator::start(const LaunchArguments& launch,
                             std::function<void(const std::string&)> ready,
                             std::function<void(const std::string&)> failed) {
    ready_ = std::move(ready);
    failed_ = std::move(failed);
    timeoutMs_ = launch.timeoutMs;
    if (!dir_.isValid()) {
        fail("cannot make a folder for the control info file");
        return;
    }
    static int sessions = 0;
    const QString name =
        QStringLiteral("dap-%1-%2").arg(QCoreApplication::applicationPid()).arg(++sessions);
    infoFile_ = dir_.filePath(QStringLiteral("control.json"));
    QStringList args;
    if (launch.headless)
        args << "--control" << name << "--control-info" << infoFile_ << "--noaudio";
    else
        args << "--control-gui" << name << "--control-info" << infoFile_;
    args << launch.commandLine;
    if (!launch.cwd.empty()) process_.setWorkingDirectory(QString::fromStdString(launch.cwd));
    process_.setProgram(QString::fromStdString(launch.copperline));
    process_.setArguments(args);
    process_.start();
    poll_.start();
}

void LaunchedEmulator::poll() {
    waitedMs_ += poll_.interval();
    if (QFileInfo(infoFile_).size() > 0) {
        try {
            const std::string socket = readControlInfo(infoFile_.toStdString());
            poll_.stop();
            failed_ = nullptr;
            if (auto ready = std::exchange(ready_, nullptr)) ready(socket);
            return;
        } catch (const ControlPathError&) {
            // Still being written: the next poll reads it whole.
        }
    }
    if (waitedMs_ >= timeoutMs_) {
        fail("copperline did not serve its control socket within " + std::to_string(timeoutMs_) +
             " ms (timeoutMs)");
        if (process_.state() != QProcess::NotRunning) process_.kill();
    }
}

void LaunchedEmulator::fail(const std::string& why) {
    poll_.stop();
    ready_ = nullptr;
    if (auto failed = std::exchange(failed_, nullptr)) failed(why);
}

void LaunchedEmulator::finish(int ms) {
    poll_.stop();
    if (process_.state() == QProcess::NotRunning) return;
    if (!process_.waitForFinished(ms)) {
        process_.kill();
        process_.waitForFinished(5000);
    }
}

std::string LaunchedEmulator::describe() const {
    std::string s = process_.program().toStdString();
    for (const QString& a : process_.arguments()) {
        s += ' ';
        s += a.toStdString();
    }
    return s;
}

} // namespace copperline::dap
