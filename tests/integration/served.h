#pragma once

// A copperline serving --control NAME for an integration test, and copperline-ctl calls to
// it: the test starts it with its own arguments, calls methods with JSON parameters, and
// reads the replies as JSON. Needs COPPERLINE_EXE, COPPERLINE_CTL and COPPERLINE_ROM_DIR.

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QProcess>
#include <QStringList>
#include <QtTest>

namespace copperline::testing {

struct CtlResult {
    int status = -1;
    QByteArray out, err;
};

inline CtlResult runCtl(const QStringList& args) {
    QProcess p;
    QStringList env = QProcess::systemEnvironment();
    env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
    p.setEnvironment(env);
    p.start(COPPERLINE_CTL, args);
    CtlResult r;
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// A copperline serving --control NAME with `args`, and copperline-ctl calls to it.
class Served {
public:
    explicit Served(const QString& tag, const QStringList& args)
        : name_(QStringLiteral("run-%1-%2").arg(tag).arg(QCoreApplication::applicationPid())) {
        QStringList env = QProcess::systemEnvironment();
        env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
        server_.setEnvironment(env);
        server_.start(COPPERLINE_EXE, QStringList{"--factory", "--noaudio", "--control", name_} + args);
    }
    ~Served() {
        if (server_.state() != QProcess::NotRunning) {
            server_.kill();
            server_.waitForFinished();
        }
    }
    bool started() { return server_.waitForStarted(); }
    CtlResult call(const QString& method, const nlohmann::json& params = nullptr) {
        // A reply may take minutes under a sanitizer (AROS boots some twenty times slower).
        QStringList args = {"--socket", name_, "--timeout", "900", method};
        if (!params.is_null()) args << QString::fromStdString(params.dump());
        for (int attempt = 0;; ++attempt) {
            const CtlResult r = runCtl(args);
            // The server may still be opening its socket.
            if (r.status == 0 || attempt >= 50 || !r.err.contains("listening")) return r;
            QTest::qWait(100);
        }
    }
    nlohmann::json json(const QString& method, const nlohmann::json& params = nullptr) {
        const CtlResult r = call(method, params);
        if (r.status != 0) return {{"failed", (r.out + r.err).toStdString()}};
        return nlohmann::json::parse(r.out.toStdString());
    }
    QProcess& process() { return server_; }

private:
    QString name_;
    QProcess server_;
};

} // namespace copperline::testing
