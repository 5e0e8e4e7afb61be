// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Running one of our executables from a test and keeping what it said: its exit status
// (-1 when it crashed or did not finish in time), stdout and stderr. Header-only.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace copperline::testing {

struct ProcessResult {
    int status = -1;
    QByteArray out, err;
};

inline ProcessResult runProcess(const QString& exe, const QStringList& args, int timeoutMs = 600000) {
    QProcess p;
    p.start(exe, args);
    ProcessResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace copperline::testing
