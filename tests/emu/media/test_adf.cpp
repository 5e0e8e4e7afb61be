// SPDX-License-Identifier: GPL-3.0-or-later
// ADF images: the exact size of a DD disk, refused with a clear message otherwise.

#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace copperline;

namespace {
QString refusal(const std::string& path) {
    try {
        loadAdf(path);
    } catch (const MediaError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}
} // namespace

class TestAdf : public QObject {
    Q_OBJECT
private slots:
    void loadsAndSavesADdImage() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("disk.adf").toStdString();
        std::vector<std::uint8_t> bytes(adf::kImageBytes);
        for (std::size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = std::uint8_t(i * 7);
        writeFileBytes(path, bytes);
        AdfImage img = loadAdf(path);
        QCOMPARE(img.bytes, bytes);
        QCOMPARE(img.track(1)[0], bytes[adf::kTrackBytes]);
        img.bytes[5] ^= 0xFF;
        saveAdf(path, img);
        QCOMPARE(readFileBytes(path), img.bytes);
    }

    void refusesATruncatedImage() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("short.adf").toStdString();
        writeFileBytes(path, std::vector<std::uint8_t>(adf::kImageBytes - 512 * 11));
        const QString why = refusal(path);
        QVERIFY(why.contains(QString::fromStdString(path)));
        QVERIFY(why.contains("not a double-density ADF image: 895488 bytes"));
        QVERIFY(why.contains("truncated after 1749 of 1760 sectors"));
    }

    void refusesOtherSizes() {
        QTemporaryDir tmp;
        const std::string empty = tmp.filePath("empty.adf").toStdString();
        writeFileBytes(empty, {});
        QVERIFY(refusal(empty).contains("the file is empty"));
        const std::string hd = tmp.filePath("hd.adf").toStdString();
        writeFileBytes(hd, std::vector<std::uint8_t>(adf::kHdImageBytes));
        QVERIFY(refusal(hd).contains("high-density image, which is not supported"));
        const std::string odd = tmp.filePath("odd.adf").toStdString();
        writeFileBytes(odd, std::vector<std::uint8_t>(adf::kImageBytes + 1));
        QVERIFY(refusal(odd).contains("901121 bytes"));
        QVERIFY(refusal(tmp.filePath("missing.adf").toStdString()).contains("no such file"));
        QVERIFY(refusal(tmp.path().toStdString()).contains("not a regular file"));
    }
};

QTEST_GUILESS_MAIN(TestAdf)
#include "test_adf.moc"
