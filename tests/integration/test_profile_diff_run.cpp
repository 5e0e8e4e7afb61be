// SPDX-License-Identifier: GPL-3.0-or-later
// `copperline-ctl profile-diff` as a regression gate, on tests/guest/profile/steady.c built
// three ways and captured with `copperline --run PROG --profile DIR`:
// - A (steady) against B (steady_slower, whose draw_scene runs one more loop of known
//   cost): draw_scene comes first, and its self-time change is the added loop's cost from
//   the 68000's timing tables times the calls, within 0.5 % (it is exact), and equals the
//   change measured from each capture's own report (profile-report, not profile-diff).
// - A against steady_shifted (the same work, every function at another address): the
//   functions match by name, unchanged, and the thresholds that trip for B do not.
// - Thresholds set the exit status (1), name what tripped; JSON and markdown hold the
//   tables; .cpuprofile files compare too; bad input exits 2 naming what is wrong.

#include "profiler/report/cpuprofile.h"
#include "tests/tools/profile_tree.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

using namespace copperline;
using nlohmann::json;

namespace {

// steady.c's constants: the loop's turns, and draw_scene's calls (one a frame).
constexpr double kFrames = 40, kSlowerN = 500;
// The added loop: MOVE.L #imm,Dn 12 + n * SUBQ.L 8 + (n - 1) * BNE.S taken 10 + 8 not
// taken = 18n + 10 cycles, two cycles a colour clock.
constexpr double kAddedCck = kFrames * (18 * kSlowerN + 10) / 2;

struct Result {
    int status = -1;
    QByteArray out, err;
};

QProcessEnvironment environment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("COPPERLINE_ROM_DIR", COPPERLINE_ROM_DIR);
    return env;
}

Result finish(QProcess& p) {
    Result r;
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

Result ctl(const QStringList& args) {
    QProcess p;
    p.setProcessEnvironment(environment());
    p.start(COPPERLINE_CTL, args);
    return finish(p);
}

// The address of a symbol in an ELF, by m68k nm.
QString symbolAddress(const char* elf, const char* symbol) {
    QProcess p;
    p.start(M68K_NM, {elf});
    p.waitForFinished();
    for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
        const QList<QByteArray> f = line.simplified().split(' ');
        if (f.size() == 3 && f[2] == symbol) return QString::fromLatin1(f[0]);
    }
    return {};
}

const json* functionNamed(const json& diff, const std::string& name) {
    for (const json& f : diff["functions"])
        if (f["name"] == name) return &f;
    return nullptr;
}

} // namespace

class TestProfileDiffRun : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString a_, b_, same_, aProfile_, bProfile_;

    json diffJson(const QString& a, const QString& b, QStringList extra = {}) {
        const Result r = ctl(QStringList{"profile-diff", a, b, "--format", "json"} + extra);
        if (r.status != 0) qWarning("%s", r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        return j;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        a_ = tmp_.filePath("a");
        b_ = tmp_.filePath("b");
        same_ = tmp_.filePath("same");
        // The three captures run side by side.
        const std::vector<std::pair<QString, const char*>> runs = {
            {a_, GUEST_STEADY}, {b_, GUEST_STEADY_SLOWER}, {same_, GUEST_STEADY_SHIFTED}};
        std::vector<std::unique_ptr<QProcess>> procs;
        for (const auto& [dir, prog] : runs) {
            procs.push_back(std::make_unique<QProcess>());
            procs.back()->setProcessEnvironment(environment());
            procs.back()->start(COPPERLINE_EXE,
                                {"--factory", "--noaudio", "--fast", "0", "--run", prog, "--profile", dir});
        }
        for (auto& p : procs) {
            const Result r = finish(*p);
            QVERIFY2(r.status == 0, r.err.constData());
            QVERIFY2(r.err.contains("copperline: profile: "), r.err.constData());
        }
        // Each capture's own report, for the measure that does not go through profile-diff.
        aProfile_ = tmp_.filePath("a.cpuprofile");
        bProfile_ = tmp_.filePath("b.cpuprofile");
        for (const auto& [dir, prog, out] : {std::tuple{a_, GUEST_STEADY, aProfile_},
                                             std::tuple{b_, GUEST_STEADY_SLOWER, bProfile_}}) {
            const Result r = ctl({"profile-report", dir, "--program", prog, "--out", out});
            QVERIFY2(r.status == 0, r.err.constData());
        }
    }

    void theSlowedFunctionComesFirstWithItsCost() {
        const json d = diffJson(a_, b_);
        QVERIFY(d.is_object());
        const json& first = d["functions"][0];
        QCOMPARE(first["name"].get<std::string>(), std::string("draw_scene"));
        QCOMPARE(first["status"].get<std::string>(), std::string("changed"));
        QVERIFY(first["file"].get<std::string>().ends_with("steady.c"));
        // The timing tables' cost of the added loop, times the calls.
        const double change = first["self"]["change"].get<double>();
        qInfo("draw_scene self: %.0f -> %.0f CCK, change %.0f, expected %.0f from the 68000's timing tables",
              first["self"]["a"].get<double>(), first["self"]["b"].get<double>(), change, kAddedCck);
        QVERIFY2(std::fabs(change - kAddedCck) <= 0.005 * kAddedCck, qPrintable(QString::number(change)));
        // The same change from each capture's own report.
        const auto selfA = testing::selfByFunction(readCpuProfileFile(aProfile_.toStdString()));
        const auto selfB = testing::selfByFunction(readCpuProfileFile(bProfile_.toStdString()));
        QCOMPARE(first["self"]["a"].get<double>(), double(selfA.at("draw_scene")));
        QCOMPARE(first["self"]["b"].get<double>(), double(selfB.at("draw_scene")));
        // The other work is untouched; every row is sorted by the size of its self change.
        for (const char* same : {"update_world", "mix_audio"}) {
            const json* f = functionNamed(d, same);
            QVERIFY(f);
            QCOMPARE((*f)["self"]["change"].get<double>(), 0.0);
        }
        for (std::size_t i = 1; i < d["functions"].size(); ++i)
            QVERIFY(std::fabs(d["functions"][i - 1]["self"]["change"].get<double>()) >=
                    std::fabs(d["functions"][i]["self"]["change"].get<double>()));
        // Shares of each side's whole.
        QCOMPARE(first["self_share"]["b"].get<double>(),
                 first["self"]["b"].get<double>() / d["b"]["whole"].get<double>());

        // The text report lists it first too.
        const Result text = ctl({"profile-diff", a_, b_});
        QCOMPARE(text.status, 0);
        const QList<QByteArray> lines = text.out.split('\n');
        qsizetype header = -1;
        for (qsizetype i = 0; i < lines.size() && header < 0; ++i)
            if (lines[i].contains("self change")) header = i;
        QVERIFY2(header >= 0 && lines.size() > header + 1, text.out.constData());
        QVERIFY2(lines[header + 1].startsWith("draw_scene (steady.c)"), text.out.constData());
    }

    void frameTimeAndOwners() {
        const json d = diffJson(a_, b_, {"--budget", "37000"});
        const json& ft = d["frame_time"];
        QCOMPARE(ft["definition"].get<std::string>(), std::string("uaelib"));
        // 40 frames of the loop on each side (the start-up's and the return's frames left out).
        QCOMPARE(ft["a"]["frames"].get<int>(), int(kFrames) + 1);
        QCOMPARE(ft["b"]["frames"].get<int>(), int(kFrames) + 1);
        // Each frame's work grew by the loop, and by the bus waits of its fetches.
        const double perFrame = kAddedCck / kFrames;
        for (const char* m : {"median", "p95"}) {
            const double change = ft[m]["change"].get<double>();
            QVERIFY2(change >= perFrame && change < perFrame * 1.2, m);
        }
        QCOMPARE(ft["a"]["over_budget"].get<int>(), 1); // the return's frame
        QVERIFY(ft["b"]["over_budget"].get<int>() >= int(kFrames) - 1);
        // The bus owners: every one the capture records, the CPU's and bitplanes' among them.
        std::set<std::string> owners;
        double sumA = 0, sumB = 0;
        for (const json& o : d["owners"]) {
            owners.insert(o["owner"].get<std::string>());
            sumA += o["a"].get<double>();
            sumB += o["b"].get<double>();
        }
        for (const char* o : {"cpu", "blitter", "copper", "bitplane", "sprite", "disk", "audio", "refresh", "idle"})
            QVERIFY2(owners.count(o), o);
        // The owners share each frame: their means add up to the PAL frame.
        QCOMPARE(std::round(sumA), 71051.0);
        QCOMPARE(std::round(sumB), 71051.0);
    }

    void matchedByNameNotAddress() {
        // Every function of the shifted build is somewhere else...
        for (const char* f : {"draw_scene", "update_world", "mix_audio", "wait_frame"}) {
            const QString at = symbolAddress(GUEST_STEADY_ELF, f), shifted = symbolAddress(GUEST_STEADY_SHIFTED_ELF, f);
            QVERIFY2(!at.isEmpty() && !shifted.isEmpty(), f);
            QVERIFY2(at != shifted, f);
        }
        // ...and still the same function, with the same cost.
        // Each build reaches its loop at another moment of the display (its file, with its
        // debug information's paths, takes another time to load), and the poll that ends each
        // wait leaves the work at another clock of the DMA's slots: the instructions cost the
        // same (self time, exactly), the bus waits under them may differ by an access or two
        // a frame (4 CCK seen), never by work.
        const json d = diffJson(a_, same_);
        for (const char* f : {"draw_scene", "update_world", "mix_audio"}) {
            const json* row = functionNamed(d, f);
            QVERIFY2(row, f);
            QVERIFY2((*row)["status"] == "same" || (*row)["status"] == "changed", row->dump().c_str());
            QCOMPARE((*row)["self"]["change"].get<double>(), 0.0);
            QVERIFY2(std::fabs((*row)["total"]["change"].get<double>()) <= kFrames * 8, row->dump().c_str());
        }
        for (const json& row : d["functions"])
            if (row["file"].is_string() && row["file"].get<std::string>().ends_with("steady.c"))
                QVERIFY2(row["status"] != "added" && row["status"] != "removed", row.dump().c_str());
        // A frame's busy time, likewise, by the bus waits of an access or two.
        QVERIFY2(std::fabs(d["frame_time"]["median"]["change"].get<double>()) <= 8,
                 d["frame_time"].dump().c_str());
    }

    void thresholdsSetTheExitStatus() {
        for (const char* expr : {"function:draw_scene self>+5%", "function:draw_scene total>+5%",
                                 "p95_frame_cck>+2%", "median_frame_cck>+1%", "total_frame_cck>+1%"}) {
            const Result slower = ctl({"profile-diff", a_, b_, "--fail-if", expr});
            QVERIFY2(slower.status == 1, expr);
            QVERIFY2(slower.err.contains(QByteArray("tripped: ") + expr), slower.err.constData());
            const Result same = ctl({"profile-diff", a_, same_, "--fail-if", expr});
            QVERIFY2(same.status == 0, (QByteArray(expr) + ": " + same.out).constData());
        }
        // An absolute limit: the added cost is 4,505 CCK a frame.
        QCOMPARE(ctl({"profile-diff", a_, b_, "--fail-if", "median_frame_cck>+5000"}).status, 0);
        QCOMPARE(ctl({"profile-diff", a_, b_, "--fail-if", "median_frame_cck>+4000"}).status, 1);
        // Several: one tripping is enough; the others are reported as passing.
        const Result two = ctl({"profile-diff", a_, b_, "--fail-if", "function:update_world self>+1%", "--fail-if",
                                "function:draw_scene self>+20%"});
        QCOMPARE(two.status, 1);
        QVERIFY(two.out.contains("ok   function:update_world self>+1%"));
        QVERIFY(two.out.contains("FAIL function:draw_scene self>+20%"));
        // The JSON says which.
        const json d = diffJson(a_, same_, {"--fail-if", "owner:blitter>+3%", "--fail-if", "owner:cpu>+3%"});
        QCOMPARE(d["tripped"].get<bool>(), false);
        QCOMPARE(d["thresholds"].size(), 2u);
    }

    void markdownHoldsTheTables() {
        const Result r = ctl({"profile-diff", a_, b_, "--format", "markdown", "--fail-if", "p95_frame_cck>+2%"});
        QCOMPARE(r.status, 1);
        for (const char* s : {"### Functions", "| function | self A | self B | self change |", "| `draw_scene` (steady.c) |",
                              "### Bus owners", "| bitplane |", "### Frame time", "| p95 |",
                              "| `p95_frame_cck>+2%` |", "**FAIL**"})
            QVERIFY2(r.out.contains(s), s);
        // The function table's first row is draw_scene's.
        const qsizetype table = r.out.indexOf("| function |");
        const qsizetype firstRow = r.out.indexOf('\n', r.out.indexOf('\n', table) + 1) + 1;
        QVERIFY(r.out.mid(firstRow).startsWith("| `draw_scene`"));
    }

    void cpuprofilesCompareToo() {
        const json d = diffJson(aProfile_, bProfile_);
        QVERIFY(d.is_object());
        QCOMPARE(d["functions"][0]["name"].get<std::string>(), std::string("draw_scene"));
        QCOMPARE(d["functions"][0]["self"]["change"].get<double>(), kAddedCck);
        QVERIFY(d["frame_time"].is_null());
        QCOMPARE(d["a"]["weight"].get<std::string>(), std::string("cck"));
        // Frame metrics need frame records.
        const Result r = ctl({"profile-diff", aProfile_, bProfile_, "--fail-if", "p95_frame_cck>+2%"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("p95_frame_cck>+2%") && r.err.contains("frame records"), r.err.constData());
    }

    void badInputExitsTwo() {
        // A function neither side has.
        Result r = ctl({"profile-diff", a_, b_, "--fail-if", "function:no_such_fn self>+5%"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("no function 'no_such_fn'"), r.err.constData());
        // A malformed expression, named.
        r = ctl({"profile-diff", a_, b_, "--fail-if", "p95_frame_cck>>2%"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("\"p95_frame_cck>>2%\"") && r.err.contains("'>>' is not an operator"), r.err.constData());
        r = ctl({"profile-diff", a_, b_, "--fail-if", "p96_frame_cck>+2%"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("unknown metric 'p96_frame_cck'"), r.err.constData());
        r = ctl({"profile-diff", a_, b_, "--fail-if", "owner:copperlist>+2%"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("no bus owner 'copperlist'"), r.err.constData());
        // A capture that is not there, and one whose profile.jsonl is cut mid-line: the
        // reader's message.
        r = ctl({"profile-diff", a_, tmp_.filePath("nothing")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("nothing"), r.err.constData());
        const QString cut = tmp_.filePath("cut");
        QVERIFY(QDir().mkpath(cut));
        QVERIFY(QFile::copy(a_ + "/profile.json", cut + "/profile.json"));
        {
            std::ofstream out((cut + "/profile.jsonl").toStdString());
            out << "{\"frame\": 1, \"seq\":";
        }
        r = ctl({"profile-diff", a_, cut});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("profile.jsonl"), r.err.constData());
        // One capture is not a comparison.
        r = ctl({"profile-diff", a_});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("two captures"), r.err.constData());
        // The program of another build is refused, not named wrongly.
        r = ctl({"profile-diff", a_, b_, "--program-b", GUEST_STEADY_SHIFTED});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("is not the program profiled"), r.err.constData());
        // The output file is not overwritten without --force.
        const QString out = tmp_.filePath("diff.md");
        QVERIFY(QFile(out).open(QIODevice::WriteOnly));
        r = ctl({"profile-diff", a_, b_, "--out", out});
        QCOMPARE(r.status, 2);
        QCOMPARE(QFileInfo(out).size(), 0);
        QCOMPARE(ctl({"profile-diff", a_, b_, "--out", out, "--force", "--format", "markdown"}).status, 0);
        QVERIFY(QFileInfo(out).size() > 0);
    }
};

QTEST_GUILESS_MAIN(TestProfileDiffRun)
#include "test_profile_diff_run.moc"
