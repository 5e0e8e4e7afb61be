// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A copperline serving --control NAME for an integration test, and copperline-ctl calls to
// it: the test starts it with its own arguments, calls methods with JSON parameters, and
// reads the replies as JSON. Needs COPPERLINE_EXE, COPPERLINE_CTL and COPPERLINE_ROM_DIR.

#include "tests/tools/run_process.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QProcess>
#include <QStringList>
#include <QtTest>

namespace copperline::testing {

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
    ProcessResult call(const QString& method, const nlohmann::json& params = nullptr) {
        // A reply may take minutes under a sanitizer (AROS boots some twenty times slower).
        QStringList args = {"--socket", name_, "--timeout", "900", method};
        if (!params.is_null()) args << QString::fromStdString(params.dump());
        for (int attempt = 0;; ++attempt) {
            const ProcessResult r = runProcess(COPPERLINE_CTL, args, 960000);
            // The server may still be opening its socket.
            if (r.status == 0 || attempt >= 50 || !r.err.contains("listening")) return r;
            QTest::qWait(100);
        }
    }
    nlohmann::json json(const QString& method, const nlohmann::json& params = nullptr) {
        const ProcessResult r = call(method, params);
        if (r.status != 0) return {{"failed", (r.out + r.err).toStdString()}};
        return nlohmann::json::parse(r.out.toStdString());
    }
    QProcess& process() { return server_; }

private:
    QString name_;
    QProcess server_;
};

} // namespace copperline::testing
