// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The GDB stub's server (copperline --gdb, --gdb-gui; docs/gdb.md): a TCP listener that
// takes one client at a time and gives it a Session on the emulator. Commands go to the
// emulator thread and back (Emulator::call); a resume's stop comes back through the
// mailbox; the program's serial and debug output reaches the client as `O` packets. A
// second client is turned away while the first is connected. It lives on the thread that
// runs the Qt event loop.

#include "app/control/emulator.h"
#include "app/control/mailbox.h"
#include "app/gdb/session.h"

#include <QObject>
#include <QPointer>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

class QTcpServer;
class QTcpSocket;

namespace copperline::gdb {

// "[HOST:]PORT": a port alone is 127.0.0.1's. False, with the reason, when it is no such thing.
bool parseListenAddress(const std::string& text, std::string& host, std::uint16_t& port, std::string* error);

class GdbServer : public QObject {
    Q_OBJECT
public:
    struct Options {
        Dialect dialect = Dialect::Standard;
        // `k` ends Copperline (copperline --gdb); otherwise the client is detached and the
        // machine stays paused (the window's --gdb-gui).
        bool quitOnKill = true;
    };

    GdbServer(Emulator& emulator, Options options, QObject* parent = nullptr);
    ~GdbServer() override;

    // Listens on [HOST:]PORT (port 0: any free one). False, saying why, when it cannot.
    bool listen(const std::string& address, std::string* error);
    // Listens on `address` now, or, when `atEntry`, once the machine stands at the --run
    // program's first instruction (it is set running there). `done` hears whether it
    // listens, with the line to print ("copperline-gdb: listening on 127.0.0.1:2345").
    void listenWhenReady(const std::string& address, bool atEntry,
                         std::function<void(bool ok, const std::string& message)> done);
    std::uint16_t port() const;

    Q_INVOKABLE void drainMailbox();

private:
    void accept();
    void readClient();
    void endSession(const char* why);
    void programOutput(const std::string& text, bool debugLines);
    void machineStopped(const nlohmann::json& stop);
    void listenNow();

    Emulator& emulator_;
    Options options_;
    QTcpServer* server_ = nullptr;
    std::string host_;
    QPointer<QTcpSocket> client_;
    std::unique_ptr<Session> session_;
    std::uint64_t generation_ = 0; // raised with every session: a stop for an older one is dropped
    std::shared_ptr<ThreadMailbox> mailbox_;
    int listenerId_ = 0;
    std::string address_;
    bool waitingForEntry_ = false;
    std::function<void(bool, const std::string&)> listening_;
};

} // namespace copperline::gdb
