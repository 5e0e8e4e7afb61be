// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A headless `copperline --control` for the control tests, and copperline-ctl calls to it.

#include <QElapsedTimer>
#include <QFile>
#include <QLocalSocket>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <string>

namespace copperline::testing {

struct CtlReply {
    int exitCode = -1;
    nlohmann::json json; // the printed result, or the error object
    QByteArray out, err;
};

class ControlEmulator {
public:
    // Starts the emulator with a fresh socket name and waits for its info file.
    bool start(const QString& name, const QStringList& extra = {}) {
        info_ = dir_.filePath("control.json");
        QStringList env = QProcess::systemEnvironment();
        env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
        process_.setEnvironment(env);
        process_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process_.setStandardOutputFile(dir_.filePath("serial.txt"));
        process_.start(COPPERLINE_EXE,
                       QStringList{"--factory", "--noaudio", "--control", name, "--control-info", info_} + extra);
        if (!process_.waitForStarted(10000)) return false;
        for (int i = 0; i < 200 && !QFile::exists(info_); ++i)
            QTest::qWait(50);
        return QFile::exists(info_);
    }

    CtlReply ctl(const QString& method, const nlohmann::json& params = nullptr) {
        QStringList args{"--info", info_, method};
        if (!params.is_null()) args << QString::fromStdString(params.dump());
        QProcess p;
        p.start(COPPERLINE_CTL_EXE, args);
        CtlReply r;
        if (!p.waitForFinished(300000)) {
            p.kill();
            return r;
        }
        r.exitCode = p.exitCode();
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        const QByteArray& text = r.exitCode == 0 ? r.out : r.err;
        r.json = nlohmann::json::parse(text.constData(), nullptr, false);
        return r;
    }

    // A call that must succeed; returns its result.
    nlohmann::json ok(const QString& method, const nlohmann::json& params = nullptr) {
        const CtlReply r = ctl(method, params);
        if (r.exitCode != 0 || r.json.is_discarded()) {
            qWarning("%s failed (exit %d): %s %s", qPrintable(method), r.exitCode,
                     r.out.constData(), r.err.constData());
            return nlohmann::json();
        }
        return r.json;
    }

    bool quit() {
        ctl("quit");
        if (!process_.waitForFinished(20000)) {
            process_.kill();
            return false;
        }
        return process_.exitStatus() == QProcess::NormalExit && process_.exitCode() == 0;
    }

    QProcess& process() { return process_; }
    QString infoFile() const { return info_; }
    QString path(const QString& name) const { return dir_.filePath(name); }
    std::string socketPath() const {
        QFile f(info_);
        if (!f.open(QIODevice::ReadOnly)) return {};
        const auto j = nlohmann::json::parse(f.readAll().constData(), nullptr, false);
        return j.is_object() ? j.value("socket", std::string()) : std::string();
    }

    ~ControlEmulator() {
        if (process_.state() != QProcess::NotRunning) {
            process_.kill();
            process_.waitForFinished(5000);
        }
    }

private:
    QTemporaryDir dir_;
    QString info_;
    QProcess process_;
};

// A raw connection that reads replies line by line.
class Raw {
public:
    explicit Raw(const std::string& path) { socket_.connectToServer(QString::fromStdString(path)); }
    bool connected() {
        return socket_.state() == QLocalSocket::ConnectedState || socket_.waitForConnected(5000);
    }
    void send(const QByteArray& bytes) {
        socket_.write(bytes);
        socket_.flush();
    }
    // The next line, or a discarded json when none comes within the timeout.
    nlohmann::json next(int timeoutMs = 10000) {
        QElapsedTimer t;
        t.start();
        while (!socket_.canReadLine()) {
            if (t.elapsed() > timeoutMs) return nlohmann::json::value_t::discarded;
            // Keep our own output moving while we wait, for the large writes.
            socket_.waitForBytesWritten(10);
            socket_.waitForReadyRead(50);
        }
        const QByteArray line = socket_.readLine();
        return nlohmann::json::parse(line.constData(), nullptr, false);
    }
    // The reply whose id is `id`, skipping error replies to earlier lines (id null).
    nlohmann::json replyTo(const nlohmann::json& id, int timeoutMs = 20000) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs) {
            nlohmann::json j = next(timeoutMs);
            if (j.is_discarded()) break;
            if (j.is_object() && j.value("id", nlohmann::json()) == id) return j;
        }
        return nlohmann::json::value_t::discarded;
    }
    QLocalSocket& socket() { return socket_; }

private:
    QLocalSocket socket_;
};

// The error code of a reply; 0 when it is no error reply.
inline int errorCode(const nlohmann::json& reply) {
    if (!reply.is_object() || !reply.contains("error")) return 0;
    return reply["error"].value("code", 0);
}

inline QString uniqueName(const char* base) {
    return QStringLiteral("%1-%2").arg(base).arg(QCoreApplication::applicationPid());
}

} // namespace copperline::testing
