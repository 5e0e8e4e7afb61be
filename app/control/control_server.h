// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The control server: a QLocalServer speaking JSON-RPC 2.0, one message per line
// (docs/control-protocol.md). It lives on the thread that runs the Qt event loop; every
// method but the connection's own (events.*) goes to the emulator thread as a command,
// and its reply comes back here to be written. Many clients may be connected at once.

#include "app/control/emulator.h"
#include "app/control/mailbox.h"

#include <QObject>
#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace copperline::rpc {
struct Request;
}

class QLocalServer;
class QLocalSocket;

namespace copperline {

class ControlServer : public QObject {
    Q_OBJECT
public:
    explicit ControlServer(Emulator& emulator, QObject* parent = nullptr);
    ~ControlServer() override;

    // Listens on the socket NAME in the private folder (socket_path.h). On failure returns
    // false and says why in `error`.
    bool listen(const std::string& name, std::string* error);
    std::string socketPath() const { return path_; }
    // The last thing before the program ends, after its event loop has returned and the
    // emulator thread has stopped (so every request it held has been answered, if only with
    // ShuttingDown): delivers those answers, answers every request still unread with
    // ShuttingDown, and writes it all out. From here on the server takes no more work.
    void finish();
    int connectionCount() const { return int(connections_.size()); }

    static constexpr int kMaxConnections = 64;
    // A client that stops reading loses notifications past this much unsent output, never
    // replies.
    static constexpr std::int64_t kMaxQueuedBytes = 16 << 20;

    // Runs what the emulator thread has queued for this thread (the mailbox wakes it).
    Q_INVOKABLE void drainMailbox();

private:
    struct Connection;

    void accept();
    void readFrom(std::uint64_t id);
    void handleLine(Connection& c, std::string_view line);
    void send(Connection& c, const std::string& line);
    void deliver(std::uint64_t id, const std::string& line);
    void notify(const std::string& method, const nlohmann::json& params);
    struct Holds {
        bool frame = false, serial = false;
    };
    void subscription(std::uint64_t id, const rpc::Request& request, Holds holds);
    nlohmann::json subscribe(Connection& c, const nlohmann::json& params);
    nlohmann::json unsubscribe(Connection& c, const nlohmann::json& params);
    void dropConnection(std::uint64_t id);

    Emulator& emulator_;
    QLocalServer* server_ = nullptr;
    std::string path_;
    std::map<std::uint64_t, std::unique_ptr<Connection>> connections_;
    std::uint64_t nextId_ = 1;
    std::shared_ptr<ThreadMailbox> mailbox_;
    int listenerId_ = 0;
    bool finishing_ = false;
};

} // namespace copperline
