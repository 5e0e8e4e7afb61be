// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Opening a .cpuprofile in the viewers users have, for the tests that prove a converter's
// output right:
// - speedscope (from npm, installed by scripts/setup.sh into build/npm) imports it in
//   headless Chromium; its sandwich view (functions ranked by self weight) is read back
//   from Chromium's --dump-dom, so no DevTools protocol is needed;
// - Chrome DevTools' own profile model (CPUProfileDataModel, from the
//   chrome-devtools-frontend package, bundled for Node by esbuild) reads it through
//   tests/profiler/devtools_check.mjs.
// A missing browser or package is a failure, not a skip. Header-only: each test includes it.

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace viewer_checks {

struct SandwichRow {
    QString name, total, self;
};

struct Sandwich {
    QString error; // empty when speedscope imported the file
    QString title; // the page's <title>
    QList<SandwichRow> rows;
};

// speedscope's sandwich view of `profile`, shown under the name `name`.
inline Sandwich speedscopeSandwich(const QString& profile, const QString& name) {
    Sandwich out;
    const QString speedscope =
        COPPERLINE_SOURCE_DIR "/build/npm/node_modules/speedscope/dist/release/index.html";
    if (!QFileInfo::exists(speedscope)) {
        out.error = "speedscope is not installed in build/npm: run scripts/setup.sh";
        return out;
    }
    const QString chromium = QStandardPaths::findExecutable("chromium");
    if (chromium.isEmpty()) {
        out.error = "chromium is not installed: run scripts/setup.sh";
        return out;
    }
    QTemporaryDir dir;
    // speedscope's own way of opening a local file (its command-line launcher does the
    // same): a script that hands the file to the page as base64.
    QFile in(profile);
    if (!in.open(QIODevice::ReadOnly)) {
        out.error = "cannot read " + profile;
        return out;
    }
    QFile js(dir.filePath("load.js"));
    if (!js.open(QIODevice::WriteOnly)) {
        out.error = "cannot write the loader";
        return out;
    }
    js.write("speedscope.loadFileFromBase64(\"" + name.toUtf8() + "\", \"" + in.readAll().toBase64() + "\")");
    js.close();
    const QString url = "file://" + speedscope + "#localProfilePath=" + js.fileName() + "&view=sandwich";
    QProcess browser;
    browser.start(chromium, {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update", "--disable-sync",
                             "--user-data-dir=" + dir.filePath("chromium-profile"),
                             "--virtual-time-budget=10000", "--dump-dom", url});
    if (!browser.waitForFinished(180000)) {
        browser.kill();
        out.error = "chromium did not finish";
        return out;
    }
    const QString dom = QString::fromUtf8(browser.readAllStandardOutput());
    if (browser.exitCode() != 0 || dom.isEmpty()) {
        out.error = "chromium failed: " + QString::fromUtf8(browser.readAllStandardError());
        return out;
    }
    if (dom.contains("Something went wrong")) {
        out.error = "speedscope could not import the profile";
        return out;
    }
    static const QRegularExpression title("<title>([^<]*)</title>");
    if (const auto m = title.match(dom); m.hasMatch()) out.title = m.captured(1);
    // Rows of the sandwich table, in the order shown: total, self, then the name cell.
    static const QRegularExpression row("<tr[^>]*><td[^>]*>([^<]*)<.*?<td[^>]*>([^<]*)<.*?</span>([^<]*)</td></tr>");
    for (auto it = row.globalMatch(dom); it.hasNext();) {
        const auto m = it.next();
        out.rows.push_back({m.captured(3), m.captured(1), m.captured(2)});
    }
    if (out.rows.isEmpty()) out.error = "no sandwich rows in the page: " + dom.right(2000);
    return out;
}

// What DevTools' CPUProfileDataModel makes of `profile`: the JSON devtools_check.mjs
// prints (total, duration, treeSelf and timelineSelf by function, in microseconds,
// fractional). `error` says why there is none.
inline QJsonObject devtoolsModel(const QString& profile, QString& error) {
    const QString npm = COPPERLINE_SOURCE_DIR "/build/npm/node_modules";
    const QString esbuild = npm + "/esbuild/bin/esbuild";
    const QString model = npm + "/chrome-devtools-frontend/front_end/models/cpu_profile/cpu_profile.ts";
    if (!QFileInfo::exists(esbuild) || !QFileInfo::exists(model)) {
        error = "esbuild or chrome-devtools-frontend is not installed in build/npm: run scripts/setup.sh";
        return {};
    }
    const QString node = QStandardPaths::findExecutable("node");
    if (node.isEmpty()) {
        error = "node is not installed: run scripts/setup.sh";
        return {};
    }
    QTemporaryDir dir;
    const QString bundle = dir.filePath("cpu_profile.mjs");
    QProcess p;
    // bin/esbuild is the native binary or a script that finds it: either runs as it is.
    p.start(esbuild, {model, "--bundle", "--format=esm", "--platform=node", "--log-level=warning",
                      "--outfile=" + bundle});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        error = "esbuild failed: " + QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    p.start(node, {COPPERLINE_SOURCE_DIR "/tests/profiler/devtools_check.mjs", bundle, profile});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        error = "the DevTools model refused it: " + QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    const QJsonObject seen = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    if (seen.isEmpty()) error = "devtools_check.mjs printed nothing";
    return seen;
}

} // namespace viewer_checks
