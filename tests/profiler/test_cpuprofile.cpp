// SPDX-License-Identifier: GPL-3.0-or-later
// The .cpuprofile writer against a golden file, its reader, and the size report built on it:
// the bytes of every hunk add up exactly, unclaimed bytes are an explicit node, and the
// size-report command writes what it promises.

#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/cpuprofile.h"
#include "profiler/report/size_report.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace copperline;

namespace {

ProfileTree syntheticTree() {
    ProfileTree tree;
    const CallFrame main{"main", "/src/main.c", 9, 0};
    const CallFrame draw{"draw", "/src/draw.c", 41, 4};
    const CallFrame blit{"blit", "/src/draw.c", 80, -1};
    const CallFrame wait{"[Bus wait]", "", -1, -1};
    const std::vector<CallFrame> s1{main, draw, blit}, s2{main, draw}, s3{main, draw, blit, wait},
        s4{main};
    tree.addStack(s1, 300);
    tree.addStack(s2, 120);
    tree.addStack(s3, 45);
    tree.addStack(s4, 7);
    return tree;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

} // namespace

class TestCpuProfile : public QObject {
    Q_OBJECT

private slots:
    void writerMatchesGolden() {
        CpuProfileOptions options;
        options.startTime = 1000;
        options.annotation = {{"weight", "test"}};
        const auto written = cpuProfileJson(syntheticTree(), options);
        const QByteArray golden =
            readAll(COPPERLINE_SOURCE_DIR "/tests/profiler/golden/synthetic.cpuprofile");
        const auto expected = nlohmann::json::parse(golden.constData());
        if (written != expected) qWarning("written: %s", written.dump(2).c_str());
        QVERIFY(written == expected);
    }

    void readerReadsWhatTheWriterWrote() {
        const ProfileTree tree = syntheticTree();
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.cpuprofile").toStdString();
        writeCpuProfile(tree, path);
        const ProfileTree back = readCpuProfileFile(path);
        QCOMPARE(back.size(), tree.size());
        for (ProfileTree::NodeId id = 0; id < tree.size(); ++id) {
            QCOMPARE(back.node(id).frame, tree.node(id).frame);
            QCOMPARE(back.node(id).self, tree.node(id).self);
        }
        QCOMPARE(back.total(ProfileTree::kRoot), 472u);
    }

    void samplesKeepTheirOrder() {
        ProfileTree tree;
        const auto a = tree.child(ProfileTree::kRoot, {"a", "", -1, -1});
        const auto b = tree.child(a, {"b", "", -1, -1});
        tree.addSample(b, 5);
        tree.addSample(a, 3);
        tree.addSample(b, 2);
        const auto j = cpuProfileJson(tree);
        QCOMPARE(j["samples"], nlohmann::json({3, 2, 3, 1}));
        QCOMPARE(j["timeDeltas"], nlohmann::json({0, 5, 3, 2}));
        QCOMPARE(j["endTime"].get<int>(), 10);
        const ProfileTree back = readCpuProfile(j);
        QCOMPARE(back.samples().size(), std::size_t(3));
        QCOMPARE(back.node(b).self, 7u);
    }

    void malformedProfileIsRefused() {
        using nlohmann::json;
        QVERIFY_THROWS_EXCEPTION(MediaError, readCpuProfile(json::object()));
        QVERIFY_THROWS_EXCEPTION(MediaError, readCpuProfile(json{{"nodes", json::array()}}));
        QVERIFY_THROWS_EXCEPTION(
            MediaError,
            readCpuProfile(json::parse(R"({"nodes":[{"id":1,"callFrame":{},"children":[7]}]})")));
        QVERIFY_THROWS_EXCEPTION(
            MediaError,
            readCpuProfile(json::parse(R"({"nodes":[{"id":1,"callFrame":{},"children":[1]}]})")));
        QVERIFY_THROWS_EXCEPTION(
            MediaError,
            readCpuProfile(json::parse(
                R"({"nodes":[{"id":1,"callFrame":{}}],"samples":[1,1],"timeDeltas":[0]})")));
    }

    void sizeReportTotalsAddUp_data() {
        QTest::addColumn<QString>("program");
        QTest::addColumn<bool>("withElf");
        for (const bool elf : {true, false}) {
            const char* how = elf ? "with ELF" : "hunk only";
            QTest::addRow("C, %s", how) << QStringLiteral(GUEST_C) << elf;
            QTest::addRow("assembly, %s", how) << QStringLiteral(GUEST_ASM) << elf;
            QTest::addRow("roundtrip, %s", how) << QStringLiteral(GUEST_ROUNDTRIP) << elf;
        }
    }

    // The report's byte total is the sum of the hunk sizes, hunk by hunk, to the byte.
    void sizeReportTotalsAddUp() {
        QFETCH(QString, program);
        QFETCH(bool, withElf);
        DebugInfoOptions options;
        options.findSibling = withElf;
        const DebugInfo info = DebugInfo::load(program.toStdString(), options);
        const HunkFile hunks = loadHunkFile(program.toStdString());
        const SizeReport report = buildSizeReport(info);
        std::uint64_t sum = 0;
        for (const HunkSection& h : hunks.sections)
            sum += h.allocSize;
        QCOMPARE(report.totalBytes, sum);
        QCOMPARE(report.tree.total(ProfileTree::kRoot), sum);
        const auto& hunkNodes = report.tree.node(ProfileTree::kRoot).children;
        QCOMPARE(hunkNodes.size(), hunks.sections.size());
        for (std::size_t h = 0; h < hunkNodes.size(); ++h) {
            QCOMPARE(report.tree.total(hunkNodes[h]), std::uint64_t(hunks.sections[h].allocSize));
            QCOMPARE(report.tree.node(hunkNodes[h]).frame.functionName,
                     sizeReportHunkName(std::uint32_t(h), hunks.sections[h].kind));
            // hunk -> section -> functions
            QCOMPARE(report.tree.node(hunkNodes[h]).children.size(), std::size_t(1));
            const auto section = report.tree.node(hunkNodes[h]).children[0];
            QCOMPARE(report.tree.node(section).frame.functionName, info.hunks()[h].section);
            for (const auto fn : report.tree.node(section).children)
                QVERIFY(report.tree.node(fn).children.empty());
        }
        std::uint64_t entries = 0;
        for (const SizeEntry& e : report.entries)
            entries += e.bytes;
        QCOMPARE(entries, sum);
        QVERIFY(std::is_sorted(
            report.entries.begin(), report.entries.end(),
            [](const SizeEntry& a, const SizeEntry& b) { return a.bytes > b.bytes; }));
        // And the same after a trip through the file.
        QTemporaryDir dir;
        const std::string path = dir.filePath("s.cpuprofile").toStdString();
        writeCpuProfile(report.tree, path);
        QCOMPARE(readCpuProfileFile(path).total(ProfileTree::kRoot), sum);
    }

    // The padding before the aligned function and the longword round-up are claimed by no
    // function: they are an explicit node, not folded into a neighbour.
    void unclaimedBytesAreExplicit() {
        const DebugInfo info = DebugInfo::load(GUEST_C);
        const SizeReport report = buildSizeReport(info);
        const auto section =
            report.tree.node(report.tree.node(ProfileTree::kRoot).children[0]).children[0];
        std::uint64_t unattributed = 0, claimed = 0;
        for (const auto fn : report.tree.node(section).children) {
            const auto& n = report.tree.node(fn);
            if (n.frame.functionName == kUnattributed)
                unattributed = n.self;
            else
                claimed += n.self;
        }
        std::uint64_t ranges = 0;
        for (const ScopeRange& r : info.scopeRanges())
            if (r.hunk == 0) ranges += r.end - r.start;
        QCOMPARE(claimed, ranges);
        QCOMPARE(unattributed, info.hunks()[0].size - ranges);
        QVERIFY(unattributed >= 4); // at least the padding before aligned()
        QCOMPARE(report.unattributedBytes, unattributed);
    }

    // size-report beside a copy of the program: finds PROG.elf by itself, writes
    // PROG.size.cpuprofile, and ranks the largest function first.
    void sizeReportCommand() {
        QTemporaryDir dir;
        const QString prog = dir.filePath("prog");
        QVERIFY(QFile::copy(GUEST_C, prog));
        QVERIFY(QFile::copy(QStringLiteral(GUEST_C) + ".elf", prog + ".elf"));
        QProcess p;
        p.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl", {"size-report", prog});
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY2(out.contains("(debug information from " + prog + ".elf)"), qPrintable(out));
        const ProfileTree tree = readCpuProfileFile((prog + ".size.cpuprofile").toStdString());
        std::uint64_t sum = 0;
        for (const HunkSection& h : loadHunkFile(prog.toStdString()).sections)
            sum += h.allocSize;
        QCOMPARE(tree.total(ProfileTree::kRoot), sum);
        const SizeReport report = buildSizeReport(DebugInfo::load(prog.toStdString()));
        const QStringList lines = out.split('\n');
        QVERIFY(lines.size() > 3);
        QVERIFY2(lines[2].contains(QString::fromStdString(" " + report.entries[0].name + " ")),
                 qPrintable(out));
        QVERIFY2(lines[2].contains(QString::number(report.entries[0].bytes)), qPrintable(out));

        // Without a sibling ELF: the hunk symbols alone, and still every byte.
        const QString alone = dir.filePath("alone");
        QVERIFY(QFile::copy(GUEST_C, alone));
        p.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl", {"size-report", alone});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains("(hunk symbols only)"));
        QCOMPARE(readCpuProfileFile((alone + ".size.cpuprofile").toStdString())
                     .total(ProfileTree::kRoot),
                 sum);

        // --out, and a refusal with a message for an ELF that is not the program's.
        p.start(COPPERLINE_BINARY_DIR "/app/copperline-ctl",
                {"size-report", prog, "--elf", QStringLiteral(GUEST_ROUNDTRIP) + ".elf", "--out",
                 dir.filePath("x")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("does not belong to"));
        QVERIFY(!QFile::exists(dir.filePath("x")));
    }
};

QTEST_GUILESS_MAIN(TestCpuProfile)
#include "test_cpuprofile.moc"
