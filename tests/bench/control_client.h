// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The benchmarks' client of a copperline's control socket: one JSON-RPC call at a time,
// waiting for its reply (notifications passed over). Header-only; Qt Network.

#include "app/control/json_rpc.h"

#include <QFile>
#include <QLocalSocket>
#include <QProcess>
#include <QStringList>
#include <QThread>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace copperline::bench {

class ControlClient {
public:
    // `name` prefixes what a failed call prints.
    explicit ControlClient(std::string name) : name_(std::move(name)) {}

    bool connect(const std::string& path) {
        socket_.connectToServer(QString::fromStdString(path));
        return socket_.waitForConnected(5000);
    }
    // The reply line of one call; nullopt (and a line on stderr) when it failed or no
    // reply came within timeoutMs.
    std::optional<QByteArray> callLine(const std::string& method, const nlohmann::json& params, int timeoutMs) {
        const std::string line = rpc::requestLine(++id_, method, params);
        socket_.write(line.data(), qint64(line.size()));
        for (;;) {
            while (!socket_.canReadLine())
                if (!socket_.waitForReadyRead(timeoutMs)) {
                    std::fprintf(stderr, "%s: %s: no reply\n", name_.c_str(), method.c_str());
                    return std::nullopt;
                }
            const QByteArray reply = socket_.readLine();
            if (!reply.contains("\"id\"")) continue; // a notification
            if (reply.contains("\"error\"")) {
                std::fprintf(stderr, "%s: %s failed: %s", name_.c_str(), method.c_str(), reply.constData());
                return std::nullopt;
            }
            return reply;
        }
    }
    // One call's result; a discarded json when it failed.
    nlohmann::json call(const std::string& method, const nlohmann::json& params = nlohmann::json::object(),
                        int timeoutMs = 300000) {
        const auto line = callLine(method, params, timeoutMs);
        if (!line) return nlohmann::json::value_t::discarded;
        const nlohmann::json reply = nlohmann::json::parse(line->toStdString(), nullptr, false);
        if (!reply.is_object() || !reply.contains("result")) return nlohmann::json::value_t::discarded;
        return reply["result"];
    }

private:
    std::string name_;
    QLocalSocket socket_;
    std::int64_t id_ = 0;
};

// Starts `exe --factory --noaudio --control NAME --control-info INFO` plus `extra` as the
// benchmarks run it (ROMs from COPPERLINE_ROM_DIR, else `romDir`; its output dropped, its
// errors passed on) and returns the socket's path, or an empty string (and a line on
// stderr naming `who`) when it did not start within ten seconds.
inline std::string startControlled(QProcess& emulator, const QString& exe, const QString& name, const QString& info,
                                   const QStringList& extra, const char* romDir, const char* who) {
    QStringList env = QProcess::systemEnvironment();
    if (!qEnvironmentVariableIsSet("COPPERLINE_ROM_DIR")) env << QStringLiteral("COPPERLINE_ROM_DIR=") + romDir;
    emulator.setEnvironment(env);
    emulator.setStandardOutputFile(QProcess::nullDevice());
    emulator.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    emulator.start(exe, QStringList{"--factory", "--noaudio", "--control", name, "--control-info", info} + extra);
    for (int i = 0; i < 400 && !QFile::exists(info); ++i)
        QThread::msleep(25);
    QFile f(info);
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "%s: %s did not start\n", who, qPrintable(exe));
        return {};
    }
    return nlohmann::json::parse(f.readAll().constData(), nullptr, false).value("socket", "");
}

} // namespace copperline::bench
