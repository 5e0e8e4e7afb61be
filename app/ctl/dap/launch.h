// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Starting Copperline for a Debug Adapter session, and finding one to attach to.
//
// launch starts the `copperline` beside copperline-ctl (or `copperlinePath`) serving a
// control socket of a fresh name, with the program staged by --run:
//   headless:  copperline --control NAME --control-info FILE --noaudio --run PROG ...
//   otherwise: copperline --control-gui NAME --control-info FILE --run PROG ...
// and connects once the info file names the socket. attach takes `controlInfo` (the file
// --control-info wrote) or `socket` (a NAME given to --control or --control-gui).
// docs/dap.md lists every argument, and which of uae-dap's are taken and which ignored.

#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace copperline::dap {

// A launch or attach argument that cannot be used: the request fails with its message.
class ArgumentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reading one argument of a request: absent (or null) gives the fallback, a value of another
// type throws ArgumentError naming it.
std::string stringArgument(const nlohmann::json& arguments, const char* name);
bool flagArgument(const nlohmann::json& arguments, const char* name, bool fallback);
std::int64_t integerArgument(const nlohmann::json& arguments, const char* name,
                             std::int64_t fallback);

// What the session takes from launch and attach arguments besides the emulator's command
// line.
struct SessionOptions {
    bool stopOnEntry = false;
    bool noDebug = false;
    bool trace = false;
    // uae-dap's exceptionMask: bit N catches exception vector N, for the "all" filter.
    std::uint32_t exceptionMask = 0b1111111111100;
    // Source paths as the debug information names them (first) and as they are here.
    std::vector<std::pair<std::string, std::string>> sourceMap;
    std::string program; // the program on the host, for profile reports
    // Arguments taken but without effect here, each with why: said once as the session
    // starts.
    std::vector<std::string> notes;
};

struct LaunchArguments {
    SessionOptions session;
    std::string copperline;  // the binary
    QStringList commandLine; // its arguments, without the control flags
    bool headless = false;
    std::string cwd;
    int timeoutMs = 60000;
};

// Throws ArgumentError.
LaunchArguments parseLaunch(const nlohmann::json& arguments, const std::string& ctlDirectory);
SessionOptions parseSessionOptions(const nlohmann::json& arguments);
// The socket an attach names. Throws ArgumentError.
std::string attachSocket(const nlohmann::json& arguments);

// A Copperline this session started, until it ends.
class LaunchedEmulator {
public:
    LaunchedEmulator();
    ~LaunchedEmulator();
    LaunchedEmulator(const LaunchedEmulator&) = delete;
    LaunchedEmulator& operator=(const LaunchedEmulator&) = delete;

    // Starts it; `ready` gets the socket's path once the info file names it, `failed` why
    // it never did (the process could not start, ended, or took longer than the timeout).
    void start(const LaunchArguments& launch, std::function<void(const std::string& socket)> ready,
               std::function<void(const std::string& why)> failed);
    // What the process writes ("stdout" or "stderr" and the text), and its end.
    std::function<void(const std::string& stream, const std::string& text)> onOutput;
    std::function<void(int exitCode)> onExited;

    bool running() const { return process_.state() != QProcess::NotRunning; }
    // Waits up to `ms` for it to end by itself (after a `quit`), then kills it.
    void finish(int ms);
    std::string describe() const; // the command line, for messages

private:
    void poll();
    void fail(const std::string& why);

    QProcess process_;
    QTemporaryDir dir_;
    QTimer poll_;
    QString infoFile_;
    int waitedMs_ = 0;
    int timeoutMs_ = 0;
    std::string stderrTail_;
    std::function<void(const std::string&)> ready_, failed_;
};

} // namespace copperline::dap
