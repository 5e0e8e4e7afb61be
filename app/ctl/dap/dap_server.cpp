// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/dap/dap_server.h"

#include "app/ctl/commands.h"
#include "app/ctl/console_input.h"
#include "app/ctl/dap/dap_adapter.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unistd.h>

namespace copperline::dap {

namespace {

// Writes all of `bytes` to a blocking descriptor (stdout).
void writeAll(int fd, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; // the client is gone; stdin's end says so too
        done += std::size_t(n);
    }
}

int stdio(QCoreApplication& app) {
    const std::string dir = QCoreApplication::applicationDirPath().toStdString();
    const std::string self = QCoreApplication::applicationFilePath().toStdString();
    Session session([](const std::string& bytes) { writeAll(STDOUT_FILENO, bytes); },
                    [&app] { QTimer::singleShot(0, &app, [&app] { app.quit(); }); }, dir, self);
    ctl::StdinReader input([&session](std::string_view bytes) { session.feed(bytes); },
                           [&session] { session.clientGone(); });
    return app.exec();
}

int listen(QCoreApplication& app, const std::string& portText) {
    char* end = nullptr;
    const long port = std::strtol(portText.c_str(), &end, 10);
    if (portText.empty() || !end || *end || port < 0 || port > 65535)
        throw ctl::UsageError{"--dap-listen wants a port, 0 to 65535 (0: any free one), not '" +
                              portText + "'"};
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, quint16(port))) {
        std::fprintf(stderr, "copperline-ctl: cannot listen on 127.0.0.1:%ld: %s\n", port,
                     server.errorString().toLocal8Bit().constData());
        return 1;
    }
    std::fprintf(stderr, "copperline-ctl: Debug Adapter Protocol on 127.0.0.1:%u\n",
                 unsigned(server.serverPort()));
    std::fflush(stderr);
    const std::string dir = QCoreApplication::applicationDirPath().toStdString();
    const std::string self = QCoreApplication::applicationFilePath().toStdString();
    std::map<QTcpSocket*, std::unique_ptr<Session>> sessions;
    // A session that ended is destroyed from the event loop, never inside its own call.
    auto drop = [&sessions](QTcpSocket* socket) {
        QTimer::singleShot(0, socket, [&sessions, socket] {
            sessions.erase(socket);
            socket->disconnectFromHost();
            socket->deleteLater();
        });
    };
    QObject::connect(&server, &QTcpServer::newConnection, &app, [&] {
        while (QTcpSocket* socket = server.nextPendingConnection()) {
            auto session = std::make_unique<Session>(
                [socket](const std::string& bytes) {
                    socket->write(bytes.data(), qint64(bytes.size()));
                },
                [socket, drop] { drop(socket); }, dir, self);
            sessions[socket] = std::move(session);
            QObject::connect(socket, &QTcpSocket::readyRead, socket, [&sessions, socket] {
                const QByteArray b = socket->readAll();
                const auto it = sessions.find(socket);
                if (it != sessions.end())
                    it->second->feed(std::string_view(b.constData(), std::size_t(b.size())));
            });
            QObject::connect(socket, &QTcpSocket::disconnected, socket, [&sessions, socket] {
                const auto it = sessions.find(socket);
                if (it != sessions.end()) it->second->clientGone();
            });
        }
    });
    return app.exec();
}

} // namespace

bool isDapOption(const char* arg) {
    return !std::strcmp(arg, "--dap") || !std::strcmp(arg, "--dap-listen");
}

int serve(int argc, char** argv) {
    const std::string mode = argv[0];
    if (mode == "--dap" && argc != 1)
        throw ctl::UsageError{"--dap takes nothing after it (launch and attach arguments come "
                              "from the client)"};
    if (mode == "--dap-listen" && argc != 2) throw ctl::UsageError{"--dap-listen PORT"};
    // A client that goes away mid-write is an ended session, not a signal.
    std::signal(SIGPIPE, SIG_IGN);
    int appArgc = 1;
    char name[] = "copperline-ctl";
    char* appArgv[] = {name, nullptr};
    QCoreApplication app(appArgc, appArgv);
    return mode == "--dap" ? stdio(app) : listen(app, argv[1]);
}

} // namespace copperline::dap
