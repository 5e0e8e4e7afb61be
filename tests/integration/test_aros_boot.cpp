// SPDX-License-Identifier: GPL-3.0-or-later
// AROS boots to its "Waiting for bootable media" screen, and the picture is FS-UAE's,
// pixel for pixel, once our capture window is aligned with FS-UAE's.
//
// The alignment (docs/display.md): FS-UAE's "full" buffer is 752x572 with each line shown
// twice; our composed display is 908 pixels (4 per colour clock, 227 CCK) by 626 rows (2 per
// line, 313 lines). FS-UAE's window starts 184 of our pixels (46 CCK) from the left edge
// of the line and 52 rows (26 lines) from the top of the frame. It is 188 CCK wide, so its
// last 28 columns lie past the end of our 227-CCK line, where the beam has wrapped into the
// next line's horizontal blank: those columns must be black in FS-UAE's picture too.

#include "profiler/capture/png.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline;

namespace {
constexpr unsigned kFsUaeLeft = 184, kFsUaeTop = 52;
}

class TestArosBoot : public QObject {
    Q_OBJECT
private slots:
    void screenshotMatchesFsUae() {
        QTemporaryDir tmp;
        const QString shot = tmp.filePath("aros-40s.png");
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.setStandardOutputFile(tmp.filePath("serial.txt"));
        QStringList env = QProcess::systemEnvironment();
        env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
        p.setEnvironment(env);
        p.start(COPPERLINE_EXE, {"--factory", "--noaudio", "--screenshot-after", "40", shot});
        QVERIFY(p.waitForFinished(600000));
        QCOMPARE(p.exitCode(), 0);

        const Image ours = readPng(shot.toStdString());
        const Image ref = readPng(REFERENCE_DIR "/aros-a500-fsuae-32s.png");
        QCOMPARE(ours.width, 908u);
        QCOMPARE(ours.height, 626u);
        QVERIFY(ref.height + kFsUaeTop <= ours.height);
        long mismatches = 0;
        Image diff{ref.width, ref.height, std::vector<std::uint32_t>(ref.pixels.size())};
        for (unsigned y = 0; y < ref.height; ++y)
            for (unsigned x = 0; x < ref.width; ++x) {
                const unsigned ox = x + kFsUaeLeft;
                const std::uint32_t mine = ox < ours.width ? ours.at(ox, y + kFsUaeTop) : 0xFF000000u;
                const bool same = (mine & 0xFFFFFF) == (ref.at(x, y) & 0xFFFFFF);
                mismatches += !same;
                diff.pixels[std::size_t(y) * ref.width + x] = same ? (ref.at(x, y) & 0xFF3F3F3F) | 0xFF000000 : 0xFFFF0000;
            }
        if (mismatches) {
            const QString where = QDir::current().absoluteFilePath("aros-boot-diff.png");
            writePng(where.toStdString(), diff);
            QFAIL(qPrintable(QString("%1 pixels differ from FS-UAE's picture; see %2").arg(mismatches).arg(where)));
        }
        // The boot also logged over the serial port.
        QFile serial(tmp.filePath("serial.txt"));
        QVERIFY(serial.open(QIODevice::ReadOnly));
        QVERIFY(serial.readAll().contains("dosboot.resource"));
    }
};

QTEST_GUILESS_MAIN(TestArosBoot)
#include "test_aros_boot.moc"
