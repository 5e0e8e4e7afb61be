// SPDX-License-Identifier: GPL-3.0-or-later
// The coverage pane in the window, offscreen: a capture that counts ("coverage": true on a
// bare-metal program whose hunks lie at their link addresses) shows live, then its finished
// coverage.bin (frame_load.S: assembly with line information): the pane's gutter holds the counts the lcov converter writes to the .info
// file, the never-executed lines are marked, and a click on a line shows its code in the
// disassembly.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "profiler/coverage/coverage_file.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/lcov.h"
#include "profiler/report/lcov_reader.h"
#include "ui/coverage_pane.h"
#include "ui/cpu_pane.h"
#include "ui/main_window.h"
#include "tests/ui/frame_load_fixture.h"

#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline;
using nlohmann::json;

namespace {

using copperline::testing::frameLoad;
using copperline::testing::windowOptions;

} // namespace

class TestCoveragePane : public QObject {
    Q_OBJECT
private slots:
    void showsTheCountsAndFindsTheCode() {
        Emulator emu(frameLoad(), windowOptions());
        emu.start();
        MainWindow w(emu, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CoveragePane* pane = w.coveragePane();
        pane->parentWidget()->show(); // its dock

        // The bare-metal image holds the hunks where the ELF linked them.
        const DebugInfo info = DebugInfo::load(HW_FRAME_LOAD_HUNK);
        const std::vector<std::uint32_t> bases = info.linkBases();
        json hex = json::array();
        for (const std::uint32_t b : bases) hex.push_back("0x" + QString::number(b, 16).toStdString());
        QTemporaryDir dir;
        const std::string path = dir.filePath("cov").toStdString();
        const auto started = emu.call("profile.start", {{"path", path}, {"frames", 50}, {"coverage", true},
                                                        {"relocation_bases", hex},
                                                        {"code_ranges", {{{"base", hex[0]}, {"size", info.hunks()[0].size}}}}});
        QVERIFY2(started.ok, started.errorMessage.c_str());
        QVERIFY(emu.call("step_frame", {{"n", 3}}).ok);

        // Live: the pane follows the counting capture.
        pane->open(HW_FRAME_LOAD_HUNK);
        QTRY_VERIFY(!pane->files().isEmpty());
        QTRY_VERIFY(!pane->currentFile().isEmpty());
        QVERIFY2(pane->headerText().contains("instruction(s) retired"), qPrintable(pane->headerText()));
        QVERIFY(emu.call("profile.stop").ok);

        // Finished: coverage.bin, and the .info the converter makes of it.
        const std::string bin = path + "/coverage.bin";
        const CoverageData data = readCoverageBin(bin);
        CoverageData placed = data;
        placed.relocationBases = bases;
        const LcovReport report = buildLcov(placed, info, HW_FRAME_LOAD_HUNK);
        const LcovData expected = parseLcov(report.text);
        pane->open(HW_FRAME_LOAD_HUNK, QString::fromStdString(bin));
        QTRY_VERIFY(pane->headerText().contains(QString::fromStdString(lcovHeader(report.summary)).split('\n')[1].mid(2)));
        std::uint32_t hitLine = 0;
        int compared = 0;
        for (const LcovFile& f : expected.files) {
            pane->showFile(QString::fromStdString(f.path));
            QTRY_COMPARE(pane->currentFile(), QString::fromStdString(f.path));
            QTRY_VERIFY(pane->lineCount(f.lines.begin()->first) >= 0);
            for (const auto& [line, count] : f.lines) {
                QCOMPARE(pane->lineCount(line), std::int64_t(count));
                ++compared;
                if (count && !hitLine) hitLine = line;
            }
            QCOMPARE(pane->functionTable()->rowCount(), int(f.functions.size()));
        }
        QVERIFY(compared > 10);
        QVERIFY(hitLine > 0);

        // A click on a counted line shows the line's first address.
        const LcovFile* c = &expected.files.front();
        pane->showFile(QString::fromStdString(c->path));
        QTRY_COMPARE(pane->currentFile(), QString::fromStdString(c->path));
        const auto where = emu.call("coverage.addresses", {{"file", c->path}, {"line", hitLine}});
        QVERIFY(where.ok && !where.result["ranges"].empty());
        const std::uint32_t address = where.result["ranges"][0]["start"].get<std::uint32_t>();
        QSignalSpy spy(pane, &CoveragePane::addressActivated);
        pane->activateLine(hitLine);
        QTRY_COMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toUInt(), address);
        QTRY_VERIFY2(w.cpuPane()->disassemblyText().contains(QStringLiteral("* %1").arg(address, 6, 16, QLatin1Char('0'))),
                     qPrintable(w.cpuPane()->disassemblyText()));
        // The gutter marks a line with code never executed with gcov's #####.
        bool unexecuted = false;
        for (const LcovFile& f : expected.files)
            for (const auto& [line, count] : f.lines) unexecuted |= count == 0;
        if (unexecuted) {
            for (const LcovFile& f : expected.files)
                for (const auto& [line, count] : f.lines)
                    if (!count) {
                        pane->showFile(QString::fromStdString(f.path));
                        QTRY_COMPARE(pane->currentFile(), QString::fromStdString(f.path));
                        QTRY_VERIFY(pane->sourceText().contains(QStringLiteral("#####%1 |").arg(line, 6)));
                        goto checked;
                    }
        }
    checked:;
        // docs/images/coverage-pane.png is this pane, grabbed under Xvfb with
        // COPPERLINE_PANE_SHOT=PATH set (README shows it).
        if (const QByteArray shot = qgetenv("COPPERLINE_PANE_SHOT"); !shot.isEmpty()) {
            pane->showFile(QString::fromStdString(c->path));
            QTRY_COMPARE(pane->currentFile(), QString::fromStdString(c->path));
            pane->setParent(nullptr);
            pane->resize(860, 720);
            pane->show();
            QVERIFY(QTest::qWaitForWindowExposed(pane));
            QTest::qWait(200);
            QVERIFY(pane->grab().save(QString::fromLocal8Bit(shot)));
            pane->setParent(&w); // the window deletes it
        }
        // A file that is not coverage is refused with a message.
        pane->open(HW_FRAME_LOAD_HUNK, QString::fromStdString(path + "/profile.jsonl"));
        QTRY_VERIFY(!pane->errorText().isEmpty());
    }
};

QTEST_MAIN(TestCoveragePane)
#include "test_coverage_pane.moc"
