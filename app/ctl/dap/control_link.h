// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The adapter's connection to a running Copperline's control socket
// (docs/control-protocol.md): JSON-RPC requests, one line each, whose replies come back to
// the callback given with each call, and the notifications the connection subscribed to.
// Everything runs on the Qt event loop of the thread that owns the link.

#include "app/control/json_rpc.h"

#include <QLocalSocket>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace copperline::dap {

// A reply from the engine: its result, or the error it earned.
struct Reply {
    bool ok = false;
    nlohmann::json result;
    int code = 0;
    std::string message;

    static Reply from(const nlohmann::json& line);
    static Reply failure(int code, std::string message);
};

class ControlLink {
public:
    using OnReply = std::function<void(const Reply&)>;

    ControlLink();
    ~ControlLink();
    ControlLink(const ControlLink&) = delete;
    ControlLink& operator=(const ControlLink&) = delete;

    // Connects to the socket at `path`; `done` gets an empty string, or why it could not.
    void open(const std::string& path, std::function<void(const std::string& error)> done);
    bool isOpen() const { return socket_.state() == QLocalSocket::ConnectedState; }
    void close();
    // Writes what is queued now, for a last request before the process waits on something.
    void flush();

    // Sends one request. Every call is answered once: by the engine, or with -32011 when
    // the connection ends first.
    void call(const std::string& method, const nlohmann::json& params, OnReply onReply);

    // Notifications (`event.stopped`, `event.serial`, ...), and the connection's end.
    std::function<void(const std::string& method, const nlohmann::json& params)> onNotification;
    std::function<void()> onClosed;
    // With a tracer, every line sent and received is shown to it.
    std::function<void(const std::string& line, bool sent)> tracer;

private:
    void readable();
    void closed();

    QLocalSocket socket_;
    rpc::LineFramer framer_;
    std::int64_t nextId_ = 1;
    std::map<std::int64_t, OnReply> pending_;
    std::function<void(const std::string&)> opening_;
    bool closing_ = false;
};

} // namespace copperline::dap
