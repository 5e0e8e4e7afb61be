// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/dap/control_link.h"

#include "app/control/command_bus.h"

#include <QObject>
#include <utility>

namespace copperline::dap {

using nlohmann::json;

namespace {

// Replies can be long (a mem.read of 1 MiB as hex, custom.dump with its writers).
constexpr std::size_t kMaxReplyBytes = 256u << 20;

} // namespace

Reply Reply::from(const json& line) {
    Reply r;
    if (auto it = line.find("error"); it != line.end() && it->is_object()) {
        r.code = it->value("code", 0);
        r.message = it->value("message", std::string("error"));
        return r;
    }
    r.ok = true;
    r.result = line.value("result", json());
    return r;
}

Reply Reply::failure(int code, std::string message) {
    Reply r;
    r.code = code;
    r.message = std::move(message);
    return r;
}

ControlLink::ControlLink() : framer_(kMaxReplyBytes) {
    QObject::connect(&socket_, &QLocalSocket::readyRead, &socket_, [this] { readable(); });
    QObject::connect(&socket_, &QLocalSocket::disconnected, &socket_, [this] { closed(); });
    QObject::connect(&socket_, &QLocalSocket::connected, &socket_, [this] {
        if (auto done = std::exchange(opening_, nullptr)) done({});
    });
    QObject::connect(&socket_, &QLocalSocket::errorOccurred, &socket_,
                     [this](QLocalSocket::LocalSocketError) {
                         if (auto done = std::exchange(opening_, nullptr))
                             done(socket_.errorString().toStdString());
                         else if (socket_.state() == QLocalSocket::UnconnectedState)
                             closed();
                     });
}

ControlLink::~ControlLink() {
    // Callbacks may hold the owner, which is going away: none of them is called now.
    closing_ = true;
    socket_.disconnect();
    pending_.clear();
    socket_.abort();
}

void ControlLink::open(const std::string& path, std::function<void(const std::string&)> done) {
    opening_ = std::move(done);
    socket_.connectToServer(QString::fromStdString(path));
}

void ControlLink::close() {
    socket_.disconnectFromServer();
}

void ControlLink::flush() {
    socket_.flush();
    if (socket_.bytesToWrite() > 0) socket_.waitForBytesWritten(1000);
}

void ControlLink::call(const std::string& method, const json& params, OnReply onReply) {
    if (!isOpen()) {
        if (onReply) onReply(Reply::failure(errc::ShuttingDown, "the emulator is not connected"));
        return;
    }
    const std::int64_t id = nextId_++;
    pending_[id] = std::move(onReply);
    const std::string line = rpc::requestLine(id, method, params);
    if (tracer) tracer(line.substr(0, line.size() - 1), true);
    socket_.write(line.data(), qint64(line.size()));
}

void ControlLink::readable() {
    const QByteArray bytes = socket_.readAll();
    framer_.feed(
        std::string_view(bytes.constData(), std::size_t(bytes.size())),
        [this](std::string_view text) {
            if (tracer) tracer(std::string(text), false);
            json msg = json::parse(text.begin(), text.end(), nullptr, false);
            if (msg.is_discarded() || !msg.is_object()) return;
            if (auto id = msg.find("id"); id != msg.end() && id->is_number_integer()) {
                const auto it = pending_.find(id->get<std::int64_t>());
                if (it == pending_.end()) return;
                OnReply reply = std::move(it->second);
                pending_.erase(it);
                if (reply) reply(Reply::from(msg));
                return;
            }
            if (auto method = msg.find("method"); method != msg.end() && method->is_string())
                if (onNotification)
                    onNotification(method->get<std::string>(), msg.value("params", json::object()));
        },
        [] {});
}

void ControlLink::closed() {
    if (closing_) return;
    closing_ = true;
    // Every call still waiting is answered, as the server answers what it holds as it ends.
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& [id, reply] : pending)
        if (reply) reply(Reply::failure(errc::ShuttingDown, "the emulator closed the connection"));
    if (onClosed) onClosed();
}

} // namespace copperline::dap
