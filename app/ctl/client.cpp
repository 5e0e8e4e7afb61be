// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/client.h"

#include "app/control/json_rpc.h"
#include "app/control/socket_path.h"
#include "app/ctl/commands.h"
#include "app/ctl/console_input.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLocalSocket>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <iostream>
#include <string>
#include <unistd.h>

namespace copperline::ctl {

namespace {

using nlohmann::json;

constexpr int kExitRpcError = 1;
constexpr int kExitUnreachable = 3;

struct ClientOptions {
    std::string socketPath;
    std::string target; // what the user named: the socket NAME or the --info FILE
    bool repl = false;
    // Addresses and registers as "$00FC0F2A" strings (for a person) or the protocol's
    // numbers (for a script): --hex, --raw, or by default hex only on a terminal.
    bool hex = false;
    double timeout = 0; // seconds; 0 waits as long as the call takes (a continue may take long)
    std::string method;
    json params = json::object();
};

ClientOptions parse(int argc, char** argv) {
    ClientOptions o;
    o.hex = ::isatty(STDOUT_FILENO);
    std::string info, name;
    int i = 0;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* what) -> std::string {
            if (i + 1 >= argc) throw UsageError{std::string(what) + " needs a value"};
            return argv[++i];
        };
        if (a == "--info")
            info = value("--info");
        else if (a == "--socket")
            name = value("--socket");
        else if (a == "--repl")
            o.repl = true;
        else if (a == "--hex")
            o.hex = true;
        else if (a == "--raw")
            o.hex = false;
        else if (a == "--timeout") {
            const std::string t = value("--timeout");
            char* end = nullptr;
            o.timeout = std::strtod(t.c_str(), &end);
            if (!end || *end || o.timeout <= 0)
                throw UsageError{"--timeout wants seconds, not '" + t + "'"};
        } else if (a.starts_with("--"))
            throw UsageError{"unknown option " + a};
        else
            break;
    }
    if (!info.empty() && !name.empty()) throw UsageError{"give --info or --socket, not both"};
    if (!o.repl) {
        if (i >= argc) throw UsageError{"which METHOD?"};
        o.method = argv[i++];
        if (i < argc) {
            o.params = json::parse(argv[i], nullptr, false);
            if (o.params.is_discarded() || !o.params.is_object())
                throw UsageError{std::string("parameters must be a JSON object, not '") + argv[i] +
                                 "'"};
            ++i;
        }
        if (i < argc) throw UsageError{std::string("unexpected argument '") + argv[i] + "'"};
    } else if (i < argc) {
        throw UsageError{"--repl takes no METHOD"};
    }
    try {
        if (!info.empty()) {
            o.target = "the socket in " + info;
            o.socketPath = readControlInfo(info);
        } else {
            if (name.empty()) name = "copperline";
            o.target = name;
            o.socketPath = controlSocketPath(name);
        }
    } catch (const ControlPathError& e) {
        throw UsageError{e.what()};
    }
    return o;
}

bool connectTo(QLocalSocket& socket, const ClientOptions& o) {
    socket.connectToServer(QString::fromStdString(o.socketPath));
    if (socket.waitForConnected(5000)) return true;
    const auto error = socket.error();
    if (error == QLocalSocket::ServerNotFoundError ||
        error == QLocalSocket::ConnectionRefusedError) {
        // Qt says "Invalid name" or "Connection refused": say what it means and what to do.
        const bool named = !o.target.starts_with("the socket in ");
        std::fprintf(
            stderr,
            "copperline-ctl: no Copperline is listening on %s (%s); start one with: copperline "
            "--control %s\n",
            o.target.c_str(), o.socketPath.c_str(), named ? o.target.c_str() : "NAME");
        return false;
    }
    std::fprintf(stderr, "copperline-ctl: cannot reach %s: %s\n", o.socketPath.c_str(),
                 socket.errorString().toLocal8Bit().constData());
    return false;
}

// The parameters that name host files, which the server opens from its own working folder:
// a relative one is made absolute here, against the folder the user typed it in.
void absolutePaths(const std::string& method, json& params) {
    static const char* const methods[] = {"capture.screenshot", "state.save", "state.load",
                                          "state.info", "profile.start"};
    if (std::find(std::begin(methods), std::end(methods), method) == std::end(methods)) return;
    auto it = params.find("path");
    if (it == params.end() || !it->is_string() || it->get<std::string>().empty()) return;
    std::error_code ec;
    const auto path = std::filesystem::absolute(it->get<std::string>(), ec);
    if (!ec) *it = path.lexically_normal().string();
}

// The fields a person reads as addresses or register contents, whatever method gave them.
// The protocol keeps them numbers; only what copperline-ctl prints changes.
int hexDigitsOf(const std::string& key) {
    static const char* const addresses[] = {"pc",     "addr", "address",  "instruction_pc",
                                            "target", "usp",  "ssp",      "seglist",
                                            "base",   "task", "start_pc", "entry",
                                            "copper_addr", "cop1lc", "cop2lc", "jump_target"};
    if (std::find_if(std::begin(addresses), std::end(addresses),
                     [&](const char* k) { return key == k; }) != std::end(addresses))
        return 8;
    if (key.size() == 2 && (key[0] == 'a' || key[0] == 'd') && key[1] >= '0' && key[1] <= '7')
        return 8;
    if (key == "sr") return 4;
    return 0;
}

json withHex(const json& j) {
    if (j.is_array()) {
        json out = json::array();
        for (const json& e : j)
            out.push_back(withHex(e));
        return out;
    }
    if (!j.is_object()) return j;
    json out = json::object();
    for (const auto& [key, value] : j.items()) {
        const int digits = hexDigitsOf(key);
        if (digits && value.is_number_unsigned() && value.get<std::uint64_t>() <= 0xFFFFFFFFu) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "$%0*llX", digits,
                          static_cast<unsigned long long>(value.get<std::uint64_t>()));
            out[key] = buf;
        } else {
            out[key] = withHex(value);
        }
    }
    return out;
}

// A reply or notification as it prints: hex for a person, the line as it came for a
// script.
std::string printable(std::string_view line, bool hex) {
    if (!hex) return std::string(line);
    const json msg = json::parse(line, nullptr, false);
    if (msg.is_discarded()) return std::string(line);
    return rpc::dump(withHex(msg));
}

int oneCall(const ClientOptions& o) {
    QLocalSocket socket;
    if (!connectTo(socket, o)) return kExitUnreachable;
    json params = o.params;
    absolutePaths(o.method, params);
    const std::string line = rpc::requestLine(1, o.method, params);
    socket.write(line.data(), qint64(line.size()));
    socket.flush();
    QElapsedTimer clock;
    clock.start();
    rpc::LineFramer framer(256u << 20); // replies (mem.read of 1 MiB) can be long
    int rc = -1;
    while (rc < 0) {
        int wait = 1000;
        if (o.timeout > 0) {
            const qint64 left = qint64(o.timeout * 1000) - clock.elapsed();
            if (left <= 0) {
                std::fprintf(stderr, "copperline-ctl: no reply to %s within %g s\n",
                             o.method.c_str(), o.timeout);
                return kExitUnreachable;
            }
            wait = int(std::min<qint64>(left, 1000));
        }
        if (!socket.waitForReadyRead(wait)) {
            if (socket.state() != QLocalSocket::ConnectedState) {
                std::fprintf(stderr, "copperline-ctl: the emulator closed the connection\n");
                return kExitUnreachable;
            }
            continue;
        }
        const QByteArray bytes = socket.readAll();
        framer.feed(
            std::string_view(bytes.constData(), std::size_t(bytes.size())),
            [&](std::string_view text) {
                if (rc >= 0) return;
                const json msg = json::parse(text, nullptr, false);
                if (msg.is_discarded() || !msg.is_object() || !msg.contains("id"))
                    return; // notifications
                if (msg.contains("error")) {
                    std::fprintf(stderr, "%s\n", rpc::dump(msg["error"], 2).c_str());
                    rc = kExitRpcError;
                } else {
                    const json result = msg.value("result", json());
                    std::printf("%s\n", rpc::dump(o.hex ? withHex(result) : result, 2).c_str());
                    rc = 0;
                }
            },
            [] {});
    }
    std::fflush(stdout);
    return rc;
}

// The REPL: stdin lines become requests, sent one at a time: each waits for the reply to
// the one before, as a person typing would (after `continue`, `regs.get` must see the
// machine stopped). Replies and notifications print as they come.
int repl(const ClientOptions& o, QCoreApplication& app) {
    QLocalSocket socket;
    if (!connectTo(socket, o)) return kExitUnreachable;
    rpc::LineFramer in(rpc::kMaxLineBytes), out(256u << 20);
    std::int64_t nextId = 1;
    int outstanding = 0;
    std::deque<std::string> waiting; // request lines not yet sent
    bool inputDone = false;
    int rc = 0;
    auto finishIfDone = [&] {
        if (inputDone && outstanding == 0 && waiting.empty()) app.quit();
    };
    auto sendNext = [&] {
        if (outstanding > 0 || waiting.empty()) return;
        const std::string req = std::move(waiting.front());
        waiting.pop_front();
        socket.write(req.data(), qint64(req.size()));
        ++outstanding;
    };
    QObject::connect(&socket, &QLocalSocket::readyRead, &app, [&] {
        const QByteArray bytes = socket.readAll();
        out.feed(
            std::string_view(bytes.constData(), std::size_t(bytes.size())),
            [&](std::string_view text) {
                std::printf("%s\n", printable(text, o.hex).c_str());
                std::fflush(stdout);
                const json msg = json::parse(text, nullptr, false);
                if (!msg.is_discarded() && msg.is_object() && msg.contains("id") &&
                    outstanding > 0) {
                    --outstanding;
                    if (msg.contains("error")) rc = kExitRpcError;
                }
            },
            [] {});
        sendNext();
        finishIfDone();
    });
    QObject::connect(&socket, &QLocalSocket::disconnected, &app, [&] {
        std::fprintf(stderr, "copperline-ctl: the emulator closed the connection\n");
        rc = kExitUnreachable;
        app.quit();
    });
    StdinReader input(
        [&](std::string_view bytes) {
            in.feed(
                bytes,
                [&](std::string_view text) {
                    MethodLine line = parseMethodLine(text);
                    if (!line.error.empty()) {
                        std::fprintf(stderr, "copperline-ctl: %s\n", line.error.c_str());
                        return;
                    }
                    if (line.method.empty()) return;
                    absolutePaths(line.method, line.params);
                    waiting.push_back(rpc::requestLine(nextId++, line.method, line.params));
                    sendNext();
                },
                [] { std::fprintf(stderr, "copperline-ctl: input line too long\n"); });
        },
        [&] {
            inputDone = true;
            finishIfDone();
        });
    app.exec();
    // The socket says goodbye as it is destroyed; that is not the emulator leaving.
    socket.disconnect(&app);
    return rc;
}

} // namespace

bool isClientOption(const char* arg) {
    return !std::strcmp(arg, "--info") || !std::strcmp(arg, "--socket") ||
           !std::strcmp(arg, "--repl") || !std::strcmp(arg, "--timeout") ||
           !std::strcmp(arg, "--hex") || !std::strcmp(arg, "--raw");
}

int controlClient(int argc, char** argv) {
    const ClientOptions o = parse(argc, argv);
    int appArgc = 1;
    char name[] = "copperline-ctl";
    char* appArgv[] = {name, nullptr};
    QCoreApplication app(appArgc, appArgv);
    return o.repl ? repl(o, app) : oneCall(o);
}

} // namespace copperline::ctl
