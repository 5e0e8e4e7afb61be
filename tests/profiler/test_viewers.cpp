// SPDX-License-Identifier: GPL-3.0-or-later
// Real viewers open what size-report writes:
// - speedscope (from npm, installed by scripts/setup.sh into build/npm) imports the
//   .cpuprofile in headless Chromium, with no error, and its sandwich view (functions ranked
//   by self weight) has the program's largest function on top with its byte count.
//   Chromium's --dump-dom gives the page after the import ran; no DevTools protocol is needed.
// - Chrome DevTools' own profile model (CPUProfileDataModel, from the chrome-devtools-frontend
//   package, bundled for Node by esbuild) reads the same file to the same weights, both from
//   the tree and from the sample timeline.
// A missing browser or package is a failure, not a skip: this is the proof that the format
// is right.

#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/size_report.h"
#include "tests/tools/viewer_checks.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace copperline;

class TestViewers : public QObject {
    Q_OBJECT

private slots:
    void devtoolsModelReadsTheSizeReport();
    void speedscopeImportsTheSizeReport() {
        QTemporaryDir dir;
        const QString profile = dir.filePath("guest.size.cpuprofile");
        QProcess ctl;
        ctl.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl",
                  {"size-report", GUEST_C, "--out", profile});
        QVERIFY(ctl.waitForFinished(60000));
        QVERIFY2(ctl.exitCode() == 0, ctl.readAllStandardError().constData());

        // The largest function, as the report ranks it.
        const SizeReport report = buildSizeReport(DebugInfo::load(GUEST_C));
        const SizeEntry* largest = nullptr;
        for (const SizeEntry& e : report.entries)
            if (e.name != kUnattributed) {
                largest = &e;
                break;
            }
        QVERIFY(largest);
        QVERIFY(largest->bytes > report.entries.back().bytes);

        const viewer_checks::Sandwich shown = viewer_checks::speedscopeSandwich(profile, "guest.size.cpuprofile");
        QVERIFY2(shown.error.isEmpty(), qPrintable(shown.error));
        QCOMPARE(shown.title, QString("guest.size.cpuprofile - speedscope"));
        QVERIFY(shown.rows.size() >= 5);
        QCOMPARE(shown.rows[0].name, QString::fromStdString(largest->name));
        // One byte is written as one microsecond.
        QVERIFY2(shown.rows[0].self.startsWith(QString::number(largest->bytes) + ".00µs"),
                 qPrintable(shown.rows[0].self));
        bool unattributed = false;
        for (const auto& r : shown.rows) unattributed |= r.name == QString::fromUtf8(kUnattributed);
        QVERIFY(unattributed);
    }
};

void TestViewers::devtoolsModelReadsTheSizeReport() {
    QTemporaryDir dir;
    const QString profile = dir.filePath("guest.size.cpuprofile");
    QProcess p;
    p.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl",
            {"size-report", GUEST_C, "--out", profile});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());

    QString error;
    const QJsonObject seen = viewer_checks::devtoolsModel(profile, error);
    QVERIFY2(error.isEmpty(), qPrintable(error));

    const SizeReport report = buildSizeReport(DebugInfo::load(GUEST_C));
    QCOMPARE(seen["total"].toInteger(), qint64(report.totalBytes));
    std::map<QString, qint64> bytes;
    for (const SizeEntry& e : report.entries)
        bytes[QString::fromStdString(e.name)] += qint64(e.bytes);
    for (const char* view : {"treeSelf", "timelineSelf"}) {
        const QJsonObject weights = seen[view].toObject();
        QCOMPARE(std::size_t(weights.size()), bytes.size());
        for (const auto& [name, n] : bytes)
            QVERIFY2(weights[name].toInteger() == n,
                     qPrintable(QString(view) + " " + name + ": " +
                                QString::number(weights[name].toInteger()) + " vs " +
                                QString::number(n)));
    }
}

QTEST_GUILESS_MAIN(TestViewers)
#include "test_viewers.moc"
