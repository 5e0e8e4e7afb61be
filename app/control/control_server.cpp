// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/control_server.h"

#include "app/control/json_rpc.h"
#include "app/control/mailbox.h"
#include "app/control/params.h"
#include "app/control/socket_path.h"

#include <QCoreApplication>
#include <QLocalServer>
#include <QLocalSocket>
#include <QPointer>
#include <deque>
#include <functional>
#include <mutex>
#include <sys/stat.h>
#include <vector>

namespace copperline {

using nlohmann::json;

namespace {

const std::set<std::string> kEvents = {"event.frame", "event.stopped", "event.serial", "event.profile",
                                       "event.debug", "event.log",  "event.output"};

} // namespace

struct ControlServer::Connection {
    std::uint64_t id = 0;
    QPointer<QLocalSocket> socket;
    rpc::LineFramer framer;
    std::set<std::string> events;
    std::uint64_t frameInterval = 1;
    std::uint64_t dropped = 0;
};

ControlServer::ControlServer(Emulator& emulator, QObject* parent)
    : QObject(parent), emulator_(emulator), mailbox_(std::make_shared<ThreadMailbox>(this)) {
    std::weak_ptr<ThreadMailbox> box = mailbox_;
    listenerId_ = emulator_.addListener([box, self = this](const std::string& method, const json& params) {
        if (auto b = box.lock()) b->post([self, method, params] { self->notify(method, params); });
    });
}

ControlServer::~ControlServer() {
    emulator_.removeListener(listenerId_);
    mailbox_->close();
    for (auto& [id, c] : connections_) {
        for (const auto& e : c->events) {
            if (e == "event.frame") emulator_.wantFrameEvents(false);
            if (e == "event.serial") emulator_.wantSerialEvents(false);
        }
        if (c->socket) {
            c->socket->disconnect(this);
            c->socket->abort();
        }
    }
    connections_.clear();
    if (server_) server_->close();
}

bool ControlServer::listen(const std::string& name, std::string* error) {
    try {
        path_ = controlSocketPath(name);
    } catch (const ControlPathError& e) {
        if (error) *error = e.what();
        return false;
    }
    const QString qpath = QString::fromStdString(path_);
    {
        // A live server already answers there: do not steal its socket. A dead one's file
        // is removed so that listen can take the name.
        QLocalSocket probe;
        probe.connectToServer(qpath);
        if (probe.waitForConnected(200)) {
            if (error) *error = path_ + ": another Copperline is listening there";
            return false;
        }
        QLocalServer::removeServer(qpath);
    }
    server_ = new QLocalServer(this);
    server_->setSocketOptions(QLocalServer::UserAccessOption);
    server_->setMaxPendingConnections(kMaxConnections);
    if (!server_->listen(qpath)) {
        if (error) *error = path_ + ": " + server_->errorString().toStdString();
        return false;
    }
    // Owner only, whatever Qt and the umask made of it (the folder is 0700 too).
    ::chmod(path_.c_str(), 0600);
    connect(server_, &QLocalServer::newConnection, this, &ControlServer::accept);
    return true;
}

void ControlServer::drainMailbox() {
    mailbox_->drain();
}

void ControlServer::finish() {
    finishing_ = true;
    // The replies the emulator thread posted here once the event loop had stopped.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    mailbox_->drain();
    std::vector<std::uint64_t> ids;
    for (const auto& [id, c] : connections_)
        ids.push_back(id);
    for (const std::uint64_t id : ids) {
        auto it = connections_.find(id);
        if (it == connections_.end() || !it->second->socket) continue;
        QLocalSocket* s = it->second->socket;
        // What a client sent but nobody has read yet is answered too (handleLine, finishing).
        if (s->state() == QLocalSocket::ConnectedState) s->waitForReadyRead(0);
        readFrom(id);
    }
    for (auto& [id, c] : connections_)
        if (c->socket && c->socket->state() == QLocalSocket::ConnectedState)
            c->socket->waitForBytesWritten(1000);
}

void ControlServer::accept() {
    while (QLocalSocket* s = server_->nextPendingConnection()) {
        if (int(connections_.size()) >= kMaxConnections) {
            const std::string line =
                rpc::errorLine(nullptr, errc::InvalidRequest, "too many connections");
            s->write(line.data(), qint64(line.size()));
            s->disconnectFromServer();
            connect(s, &QLocalSocket::disconnected, s, &QObject::deleteLater);
            continue;
        }
        auto c = std::make_unique<Connection>();
        c->id = nextId_++;
        c->socket = s;
        const std::uint64_t id = c->id;
        connect(s, &QLocalSocket::readyRead, this, [this, id] { readFrom(id); });
        // Queued: a socket may report its end from inside a write, while its connection is in use.
        connect(
            s, &QLocalSocket::disconnected, this, [this, id] { dropConnection(id); },
            Qt::QueuedConnection);
        connect(
            s, &QLocalSocket::errorOccurred, this,
            [this, id](QLocalSocket::LocalSocketError e) {
                if (e == QLocalSocket::PeerClosedError) dropConnection(id);
            },
            Qt::QueuedConnection);
        connections_.emplace(id, std::move(c));
        // Data may have arrived with the connection itself.
        if (s->bytesAvailable()) readFrom(id);
    }
}

void ControlServer::dropConnection(std::uint64_t id) {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    for (const auto& e : it->second->events) {
        if (e == "event.frame") emulator_.wantFrameEvents(false);
        if (e == "event.serial") emulator_.wantSerialEvents(false);
    }
    if (QLocalSocket* s = it->second->socket) {
        s->disconnect(this);
        s->deleteLater();
    }
    connections_.erase(it);
}

void ControlServer::readFrom(std::uint64_t id) {
    auto it = connections_.find(id);
    if (it == connections_.end() || !it->second->socket) return;
    Connection& c = *it->second;
    char buf[65536];
    while (c.socket && c.socket->bytesAvailable() > 0) {
        const qint64 n = c.socket->read(buf, sizeof buf);
        if (n <= 0) break;
        c.framer.feed(
            std::string_view(buf, std::size_t(n)),
            [&](std::string_view line) { handleLine(c, line); },
            [&] {
                send(c, rpc::errorLine(nullptr, errc::LineTooLong,
                                       "line longer than 4 MiB; it was dropped up to its newline"));
            });
        // handleLine never erases connections, so `c` stays valid in this loop.
    }
}

void ControlServer::handleLine(Connection& c, std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return; // blank lines are skipped
    auto parsed = rpc::parseRequest(line);
    if (auto* r = std::get_if<rpc::Rejection>(&parsed)) {
        send(c, rpc::errorLine(r->id, r->code, r->message));
        return;
    }
    auto& req = std::get<rpc::Request>(parsed);
    if (finishing_) {
        send(c, rpc::errorLine(req.id, errc::ShuttingDown, "the emulator is shutting down"));
        return;
    }
    const std::uint64_t id = c.id;
    std::weak_ptr<ThreadMailbox> box = mailbox_;
    // The connection's own methods: its subscriptions. They take effect in the emulator's
    // order of things: a `ping` goes through the command queue first, so a subscription
    // sent after a command sees that command's events, and one sent before it sees them all.
    if (req.method == "events.subscribe" || req.method == "events.unsubscribe" ||
        req.method == "events.list") {
        // The rule every command on the bus follows: a key the method does not take is refused.
        const std::vector<std::string> takes =
            req.method == "events.subscribe" ? std::vector<std::string>{"events", "frame_interval"}
            : req.method == "events.unsubscribe" ? std::vector<std::string>{"events"}
                                                 : std::vector<std::string>{};
        if (std::string refused = unknownParameterMessage(req.method, req.params, takes);
            !refused.empty()) {
            send(c, rpc::errorLine(req.id, errc::InvalidParams, refused));
            return;
        }
        // Events made between the ping and the subscription's arrival here must exist to be
        // delivered: hold the emulator's interest until then.
        Holds holds;
        if (req.method == "events.subscribe")
            if (auto e = req.params.find("events"); e != req.params.end() && e->is_array())
                for (const auto& n : *e) {
                    holds.frame = holds.frame || n == "event.frame";
                    holds.serial = holds.serial || n == "event.serial";
                }
        if (holds.frame) emulator_.wantFrameEvents(true);
        if (holds.serial) emulator_.wantSerialEvents(true);
        emulator_.submit("ping", json::object(), [box, self = this, id, req, holds](const CommandResult&) {
            if (auto b = box.lock()) b->post([self, id, req, holds] { self->subscription(id, req, holds); });
        });
        return;
    }
    emulator_.submit(req.method, std::move(req.params),
                     [box, self = this, id, rid = req.id](const CommandResult& r) {
                         std::string reply = rpc::replyLine(rid, r);
                         if (auto b = box.lock())
                             b->post([self, id, reply = std::move(reply)] { self->deliver(id, reply); });
                     });
}

void ControlServer::subscription(std::uint64_t id, const rpc::Request& req, Holds holds) {
    // The subscription (if any) now holds its own interest.
    struct Release {
        Emulator& e;
        Holds h;
        ~Release() {
            if (h.frame) e.wantFrameEvents(false);
            if (h.serial) e.wantSerialEvents(false);
        }
    } release{emulator_, holds};
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    Connection& c = *it->second;
    try {
        json result = req.method == "events.subscribe" ? subscribe(c, req.params)
                      : req.method == "events.unsubscribe"
                          ? unsubscribe(c, req.params)
                          : json{{"events", c.events}, {"frame_interval", c.frameInterval}};
        send(c, rpc::resultLine(req.id, result));
    } catch (const CommandError& e) {
        send(c, rpc::errorLine(req.id, e.code(), e.what()));
    }
}

json ControlServer::subscribe(Connection& c, const json& p) {
    auto it = p.find("events");
    if (it == p.end() || !it->is_array())
        throw CommandError(errc::InvalidParams, "events: expected an array of names");
    std::set<std::string> names;
    for (const auto& n : *it) {
        if (!n.is_string() || !kEvents.count(n.get<std::string>()))
            throw CommandError(errc::InvalidParams,
                               "events: known events are event.frame, event.stopped, event.serial, "
                               "event.profile, event.debug, event.log, event.output");
        names.insert(n.get<std::string>());
    }
    const auto interval = params::optionalNumber(p, "frame_interval", 1'000'000);
    if (interval && *interval == 0)
        throw CommandError(errc::InvalidParams, "frame_interval: 1 to 1000000");
    if (interval) c.frameInterval = *interval;
    for (const auto& n : names) {
        if (!c.events.insert(n).second) continue;
        if (n == "event.frame") emulator_.wantFrameEvents(true);
        if (n == "event.serial") emulator_.wantSerialEvents(true);
    }
    return json{{"events", c.events}, {"frame_interval", c.frameInterval}};
}

json ControlServer::unsubscribe(Connection& c, const json& p) {
    std::set<std::string> names = c.events;
    if (auto it = p.find("events"); it != p.end()) {
        if (!it->is_array())
            throw CommandError(errc::InvalidParams, "events: expected an array of names");
        names.clear();
        for (const auto& n : *it) {
            if (!n.is_string())
                throw CommandError(errc::InvalidParams, "events: expected an array of names");
            names.insert(n.get<std::string>());
        }
    }
    for (const auto& n : names) {
        if (!c.events.erase(n)) continue;
        if (n == "event.frame") emulator_.wantFrameEvents(false);
        if (n == "event.serial") emulator_.wantSerialEvents(false);
    }
    return json{{"events", c.events}};
}

void ControlServer::send(Connection& c, const std::string& line) {
    if (!c.socket || c.socket->state() != QLocalSocket::ConnectedState) return;
    c.socket->write(line.data(), qint64(line.size()));
}

void ControlServer::deliver(std::uint64_t id, const std::string& line) {
    auto it = connections_.find(id);
    if (it != connections_.end()) send(*it->second, line);
}

void ControlServer::notify(const std::string& method, const json& params) {
    for (auto& [id, c] : connections_) {
        if (!c->events.count(method) || !c->socket) continue;
        if (method == "event.frame" && c->frameInterval > 1 &&
            params.value("frame", std::uint64_t(0)) % c->frameInterval != 0)
            continue;
        if (c->socket->bytesToWrite() > kMaxQueuedBytes) {
            ++c->dropped;
            continue;
        }
        json p = params;
        p["dropped_notifications"] = c->dropped;
        send(*c, rpc::notificationLine(method, p));
    }
}

} // namespace copperline
