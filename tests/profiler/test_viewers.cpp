// Real viewers open what size-report writes: speedscope (from npm, installed by
// scripts/setup.sh into build/npm) imports the .cpuprofile in headless Chromium, with no
// error, and its sandwich view (functions ranked by self weight) has the program's largest
// function on top with its byte count. Chromium's --dump-dom gives the page after the import
// ran; no DevTools protocol is needed. A missing browser or speedscope is a failure, not a
// skip: this is the proof that the format is right.

#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/size_report.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline;

class TestViewers : public QObject {
    Q_OBJECT

private slots:
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

QTEST_GUILESS_MAIN(TestViewers)
#include "test_viewers.moc"
