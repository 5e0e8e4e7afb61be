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
        const QString speedscope =
            COPPERLINE_SOURCE_DIR "/build/npm/node_modules/speedscope/dist/release/index.html";
        QVERIFY2(QFileInfo::exists(speedscope),
                 "speedscope is not installed in build/npm: run scripts/setup.sh");
        const QString chromium = QStandardPaths::findExecutable("chromium");
        QVERIFY2(!chromium.isEmpty(), "chromium is not installed: run scripts/setup.sh");

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

        // speedscope's own way of opening a local file (its command-line launcher does the
        // same): a script that hands the file to the page as base64.
        QFile in(profile);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray loader = "speedscope.loadFileFromBase64(\"guest.size.cpuprofile\", \"" +
                                  in.readAll().toBase64() + "\")";
        QFile js(dir.filePath("load.js"));
        QVERIFY(js.open(QIODevice::WriteOnly));
        js.write(loader);
        js.close();

        const QString url =
            "file://" + speedscope + "#localProfilePath=" + js.fileName() + "&view=sandwich";
        QProcess browser;
        browser.start(chromium, {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                 "--no-first-run", "--disable-background-networking",
                                 "--disable-component-update", "--disable-sync",
                                 "--user-data-dir=" + dir.filePath("chromium-profile"),
                                 "--virtual-time-budget=10000", "--dump-dom", url});
        QVERIFY(browser.waitForFinished(120000));
        const QString dom = QString::fromUtf8(browser.readAllStandardOutput());
        QVERIFY2(browser.exitCode() == 0 && !dom.isEmpty(),
                 browser.readAllStandardError().constData());

        QVERIFY2(!dom.contains("Something went wrong"), "speedscope could not import the profile");
        QVERIFY2(dom.contains("<title>guest.size.cpuprofile - speedscope</title>"),
                 qPrintable(dom.left(2000)));
        // Rows of the sandwich table, in the order shown: total, self, then the name cell.
        static const QRegularExpression row(
            "<tr[^>]*><td[^>]*>([^<]*)<.*?<td[^>]*>([^<]*)<.*?</span>([^<]*)</td></tr>");
        QStringList names, selfs;
        for (auto it = row.globalMatch(dom); it.hasNext();) {
            const auto m = it.next();
            selfs << m.captured(2);
            names << m.captured(3);
        }
        QVERIFY2(names.size() >= 5, qPrintable(dom.right(4000)));
        QCOMPARE(names[0], QString::fromStdString(largest->name));
        // One byte is written as one microsecond.
        QVERIFY2(selfs[0].startsWith(QString::number(largest->bytes) + ".00µs"),
                 qPrintable(selfs[0]));
        QVERIFY(names.contains(QString::fromUtf8(kUnattributed)));
    }
};

void TestViewers::devtoolsModelReadsTheSizeReport() {
    const QString npm = COPPERLINE_SOURCE_DIR "/build/npm/node_modules";
    const QString esbuild = npm + "/esbuild/bin/esbuild";
    const QString model =
        npm + "/chrome-devtools-frontend/front_end/models/cpu_profile/cpu_profile.ts";
    QVERIFY2(
        QFileInfo::exists(esbuild) && QFileInfo::exists(model),
        "esbuild or chrome-devtools-frontend is not installed in build/npm: run scripts/setup.sh");
    const QString node = QStandardPaths::findExecutable("node");
    QVERIFY2(!node.isEmpty(), "node is not installed: run scripts/setup.sh");

    QTemporaryDir dir;
    const QString bundle = dir.filePath("cpu_profile.mjs");
    QProcess p;
    // bin/esbuild is the native binary or a script that finds it: either runs as it is.
    p.start(esbuild, {model, "--bundle", "--format=esm", "--platform=node", "--log-level=warning",
                      "--outfile=" + bundle});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());

    const QString profile = dir.filePath("guest.size.cpuprofile");
    p.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl",
            {"size-report", GUEST_C, "--out", profile});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());

    p.start(node, {COPPERLINE_SOURCE_DIR "/tests/profiler/devtools_check.mjs", bundle, profile});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QJsonObject seen = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QVERIFY(!seen.isEmpty());

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
