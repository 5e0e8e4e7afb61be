// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gdb/gdb_server.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>
#include <charconv>
#include <cstdio>

namespace copperline::gdb {

using nlohmann::json;

bool parseListenAddress(const std::string& text, std::string& host, std::uint16_t& port, std::string* error) {
    const auto colon = text.rfind(':');
    host = colon == std::string::npos ? std::string("127.0.0.1") : text.substr(0, colon);
    const std::string digits = colon == std::string::npos ? text : text.substr(colon + 1);
    unsigned value = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size() || value > 65535) {
        if (error) *error = "\"" + text + "\" is no [HOST:]PORT (a port is 0 to 65535; 0 takes any free one)";
        return false;
    }
    if (host.empty()) {
        if (error) *error = "\"" + text + "\" names no host before its ':'";
        return false;
    }
    if (QHostAddress(QString::fromStdString(host)).isNull() && host != "localhost") {
        if (error) *error = "\"" + host + "\" is no IP address (give one, e.g. 127.0.0.1 or 0.0.0.0)";
        return false;
    }
    port = std::uint16_t(value);
    return true;
}

GdbServer::GdbServer(Emulator& emulator, Options options, QObject* parent)
    : QObject(parent), emulator_(emulator), options_(options), mailbox_(std::make_shared<ThreadMailbox>(this)) {
    std::weak_ptr<ThreadMailbox> box = mailbox_;
    listenerId_ = emulator_.addListener([box, self = this](const std::string& method, const json& params) {
        std::string text;
        if (method == "event.stopped") {
            const std::string reason = params.value("reason", std::string());
            if (reason == "loadseg" || reason == "run_failed")
                if (auto b = box.lock()) b->post([self, params] { self->machineStopped(params); });
            return;
        }
        if (method == "event.serial" || method == "event.output") {
            text = params.value("text", std::string());
        } else if (method == "event.debug") {
            for (const json& item : params.value("items", json::array()))
                if (item.value("kind", std::string()) == "log" && !item.value("refused", false))
                    text += item.value("text", std::string()) + "\n";
        } else if (method == "event.log") {
            text = params.value("text", std::string()) + "\n";
        }
        if (text.empty()) return;
        const bool debugLines = method == "event.debug" || method == "event.log";
        if (auto b = box.lock()) b->post([self, text, debugLines] { self->programOutput(text, debugLines); });
    });
}

GdbServer::~GdbServer() {
    emulator_.removeListener(listenerId_);
    mailbox_->close();
    if (session_) emulator_.wantSerialEvents(false);
}

bool GdbServer::listen(const std::string& address, std::string* error) {
    std::uint16_t port = 0;
    if (!parseListenAddress(address, host_, port, error)) return false;
    server_ = new QTcpServer(this);
    const QHostAddress where = host_ == "localhost" ? QHostAddress(QHostAddress::LocalHost)
                                                    : QHostAddress(QString::fromStdString(host_));
    if (!server_->listen(where, port)) {
        if (error) *error = "cannot listen on " + address + ": " + server_->errorString().toStdString();
        return false;
    }
    connect(server_, &QTcpServer::newConnection, this, &GdbServer::accept);
    return true;
}

void GdbServer::listenWhenReady(const std::string& address, bool atEntry,
                                std::function<void(bool, const std::string&)> done) {
    address_ = address;
    listening_ = std::move(done);
    if (!atEntry) {
        listenNow();
        return;
    }
    waitingForEntry_ = true;
    // Paused (headless) it runs there; running (the window) it is on its way already.
    emulator_.submit("continue", json::object(), [](const CommandResult&) {});
}

void GdbServer::machineStopped(const json& stop) {
    if (!waitingForEntry_) return;
    waitingForEntry_ = false;
    if (stop.value("reason", std::string()) == "run_failed") {
        const json& d = stop.contains("detail") ? stop["detail"] : json::object();
        if (listening_)
            listening_(false, "copperline-gdb: the program did not start: " +
                                  d.value("message", d.value("error", d.dump())));
        return;
    }
    listenNow();
}

void GdbServer::listenNow() {
    std::string error;
    const bool ok = listen(address_, &error);
    if (!listening_) return;
    if (!ok) {
        listening_(false, "copperline-gdb: " + error);
        return;
    }
    listening_(true, "copperline-gdb: listening on " + host_ + ":" + std::to_string(port()) + " (" +
                         (options_.dialect == Dialect::Bartman ? "bartman" : "standard") + " dialect)");
}

std::uint16_t GdbServer::port() const {
    return server_ ? server_->serverPort() : 0;
}

void GdbServer::drainMailbox() {
    mailbox_->drain();
}

void GdbServer::accept() {
    while (QTcpSocket* socket = server_->nextPendingConnection()) {
        if (session_) {
            // One client at a time: a second is turned away, the first keeps its session.
            std::fprintf(stderr, "copperline-gdb: a second client (%s) turned away: one is connected\n",
                         socket->peerAddress().toString().toStdString().c_str());
            socket->setParent(this);
            socket->abort();
            socket->deleteLater();
            continue;
        }
        client_ = socket;
        socket->setParent(this);
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        const std::uint64_t generation = ++generation_;
        Port port;
        port.call = [this](const std::string& method, const json& params) {
            const CommandResult r = emulator_.call(method, params);
            if (!r.ok) throw CommandRefused(r.errorMessage);
            return r.result;
        };
        std::weak_ptr<ThreadMailbox> box = mailbox_;
        port.resume = [this, box, generation](const std::string& method, const json& params,
                                              std::function<void(const json&)> stopped) {
            emulator_.submit(method, params, [box, self = this, generation, stopped](const CommandResult& r) {
                json stop = r.ok ? r.result : json{{"error", r.errorMessage}};
                if (auto b = box.lock())
                    b->post([self, generation, stopped, stop = std::move(stop)] {
                        // A stop for a session that has ended goes nowhere.
                        if (self->generation_ == generation && self->session_) stopped(stop);
                    });
            });
        };
        QPointer<QTcpSocket> guarded = socket;
        session_ = std::make_unique<Session>(
            std::move(port),
            [guarded](const std::string& bytes) {
                if (guarded && guarded->state() == QAbstractSocket::ConnectedState)
                    guarded->write(bytes.data(), qint64(bytes.size()));
            },
            options_.dialect);
        // A client finds the machine stopped, as gdb expects of a target it attaches to.
        emulator_.call("pause");
        emulator_.wantSerialEvents(true);
        session_->start();
        std::fprintf(stderr, "copperline-gdb: client %s:%u connected\n",
                     socket->peerAddress().toString().toStdString().c_str(), unsigned(socket->peerPort()));
        connect(socket, &QTcpSocket::readyRead, this, &GdbServer::readClient);
        connect(
            socket, &QTcpSocket::disconnected, this,
            [this, generation] {
                if (generation_ == generation && session_) endSession("disconnected");
            },
            Qt::QueuedConnection);
        if (socket->bytesAvailable()) readClient();
    }
}

void GdbServer::readClient() {
    if (!client_ || !session_) return;
    while (client_ && session_ && client_->bytesAvailable() > 0) {
        const QByteArray bytes = client_->read(64 * 1024);
        session_->receive(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        if (session_ && session_->ended()) {
            const bool kill = session_->killed();
            endSession(kill ? "killed" : "detached");
            if (kill && options_.quitOnKill) emulator_.submit("quit", json::object(), [](const CommandResult&) {});
            return;
        }
    }
}

void GdbServer::endSession(const char* why) {
    if (!session_) return;
    std::unique_ptr<Session> session = std::move(session_);
    ++generation_;
    session->finish();
    emulator_.wantSerialEvents(false);
    // Detached, the program runs on, as gdb's detach leaves a process; a client that
    // vanished leaves the machine as it was.
    if (std::string(why) == "detached") emulator_.submit("continue", json::object(), [](const CommandResult&) {});
    std::fprintf(stderr, "copperline-gdb: client %s\n", why);
    if (client_) {
        // The last reply (D's OK) goes out before the socket closes; the socket is freed once
        // it has.
        QTcpSocket* socket = client_;
        socket->flush();
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        socket->disconnectFromHost();
        if (socket->state() == QAbstractSocket::UnconnectedState) socket->deleteLater();
    }
    client_ = nullptr;
}

void GdbServer::programOutput(const std::string& text, bool debugLines) {
    if (session_) session_->output(text, debugLines);
}

} // namespace copperline::gdb
