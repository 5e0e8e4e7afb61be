// SPDX-License-Identifier: GPL-3.0-or-later
// uaelib at $F0FF60 (emu/uaelib.h): a bare-metal program calls it exactly as Bartman's
// gcc8_c_support does, and the test checks what arrived: the log line, the idle clocks
// against the beam positions the program read itself, the resources, the overlay, the
// host files inside the folder and the refusals outside it, and the garbage the calls
// must refuse without harm. A program that never calls uaelib sees the same machine.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/uaelib.h"
#endif

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <memory>

using namespace copperline;

namespace {

constexpr std::uint32_t kResults = 0x7F100;
enum Result {
    R_WORD = 0,
    R_BEAM_IDLE = 1,
    R_BEAM_BUSY = 2,
    R_LOG = 3,
    R_REG_BITMAP = 4,
    R_REG_PALETTE,
    R_REG_COPPER,
    R_UNREG_COPPER,
    R_CLEAR,
    R_RECT,
    R_FILLED,
    R_TEXT,
    R_LOAD_SIZE,
    R_SAVE,
    R_SAVE_AGAIN,
    R_SAVE_ESCAPE,
    R_SAVE_ABSOLUTE,
    R_SAVE_EXISTING,
    R_LOAD_LINK,
    R_LOG_GARBAGE,
    R_LOG_UNTERMINATED,
    R_REG_GARBAGE,
    R_REG_UNTERMINATED,
    R_UNKNOWN_FN,
    R_UNKNOWN_CMD,
    R_TEXT_UNTERMINATED,
    R_STILL_RUNNING,
    R_TRACED_LOG,
    R_TRACES,
    R_DONE = 31
};

std::uint32_t result(const Machine& m, int r) {
    const std::uint32_t a = kResults + 4 * std::uint32_t(r);
    return std::uint32_t(m.spyWord(a)) << 16 | m.spyWord(a + 2);
}

// Runs the program until it says it is done, then one more frame so that the frame it
// finished in is committed.
void runProgram(Machine& m) {
    for (int f = 0; f < 100 && result(m, R_DONE) != 0x600DF00D; ++f)
        m.runFrame();
    QCOMPARE(result(m, R_DONE), 0x600DF00Du);
    m.runFrame();
}

// A beam position as the program read it (VPOSR bit 0 << 16 | VHPOSR) in colour clocks
// from the frame's start.
std::uint64_t beamCck(std::uint32_t b) {
    const std::uint32_t v = (b >> 16 & 1) << 8 | (b >> 8 & 0xFF);
    return std::uint64_t(v) * 227 + (b & 0xFF);
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), qint64(bytes.size()));
}

std::unique_ptr<Machine> arosMachine(bool uaelib) {
    Machine::Config c;
    c.uaelib = uaelib;
    auto m = std::make_unique<Machine>(c);
    m->setRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin"));
    m->setExtRom(loadRom(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin"));
    m->powerOn();
    return m;
}

} // namespace

class TestUaelib : public QObject {
    Q_OBJECT
private slots:
    void gcc8CallingSequence() {
        QTemporaryDir outer;
        QVERIFY(outer.isValid());
        const QString dir = outer.filePath("files");
        QVERIFY(QDir().mkpath(dir));
        QByteArray input;
        for (int i = 0; i < 300; ++i)
            input.append(char(i * 7 + 3));
        writeAll(dir + "/input.bin", input);
        writeAll(outer.filePath("secret.bin"), "outside the folder");
        QVERIFY(QFile::link(outer.filePath("secret.bin"), dir + "/link.bin"));
        const bool tmpEscapeExisted = QFile::exists("/tmp/escape.bin");

        Machine m;
        QCOMPARE(m.guestApi().files().setFolder(dir.toStdString()), std::string());
        m.bootBareMetal(readFileBytes(GUEST_UAELIB_CALLS));
        runProgram(m);
        const GuestApi& api = m.guestApi();

        // What the program read at $F0FF60, and what a debugger reads there.
        QCOMPARE(result(m, R_WORD), 0xA00Eu);
        QCOMPARE(m.spyWord(uaelib::kEntry), std::uint16_t(0xA00E));

        // The log line, as the guest wrote it.
        QCOMPARE(result(m, R_LOG), 1u);
        const auto& log = api.log();
        QVERIFY(std::any_of(log.begin(), log.end(), [](const GuestApi::LogMessage& l) {
            return !l.refused && l.text == "uaelib_calls: hello from bare metal";
        }));

        // Idle: exactly one frame holds idle time, and it is what the beam says the program
        // spent between its two calls, within a line.
        QVERIFY(api.idleMarkersSeen());
        QVERIFY(!api.idle());
        const std::uint64_t measured =
            beamCck(result(m, R_BEAM_BUSY)) - beamCck(result(m, R_BEAM_IDLE));
        QVERIFY2(measured > 100 * 227, qPrintable(QString::number(measured)));
        int idleFrames = 0;
        std::uint64_t idle = 0;
        for (const auto& f : api.idleHistory()) {
            QVERIFY(f.idleCck <= f.lengthCck);
            if (f.idleCck) ++idleFrames, idle = f.idleCck;
        }
        QCOMPARE(idleFrames, 1);
        QVERIFY2(idle >= measured && idle - measured < 227,
                 qPrintable(QString("idle %1, beam %2").arg(idle).arg(measured)));

        // The resources: the copper list was registered and unregistered again.
        for (int r : {R_REG_BITMAP, R_REG_PALETTE, R_REG_COPPER, R_UNREG_COPPER})
            QCOMPARE(result(m, r), 1u);
        QCOMPARE(api.resources().size(), std::size_t(2));
        const auto& bm = api.resources()[0];
        QCOMPARE(bm.kind, GuestApi::ResourceKind::Bitmap);
        QCOMPARE(bm.name, std::string("ship"));
        QCOMPARE(bm.size, 1280u);
        QCOMPARE(bm.width, std::uint16_t(320));
        QCOMPARE(bm.height, std::uint16_t(16));
        QCOMPARE(bm.depth, std::uint16_t(2));
        QCOMPARE(bm.bytesPerRow, std::uint16_t(40));
        QCOMPARE(bm.flags, std::uint16_t(GuestApi::Interleaved));
        QVERIFY(bm.address >= 0x1000 && bm.address < 0x60000);
        const auto& pal = api.resources()[1];
        QCOMPARE(pal.kind, GuestApi::ResourceKind::Palette);
        QCOMPARE(pal.name, std::string("ship colours"));
        QCOMPARE(pal.entries, std::uint16_t(4));
        QCOMPARE(pal.size, 8u);
        QCOMPARE(m.spyWord(pal.address + 2), std::uint16_t(0xF00)); // the palette's colour 1

        // The overlay the committed frame shows.
        for (int r : {R_CLEAR, R_RECT, R_FILLED, R_TEXT})
            QCOMPARE(result(m, r), 1u);
        using K = OverlayShape::Kind;
        const OverlayShapes want = {{K::Rect, 10, 20, 100, 50, 0xFF0000, {}},
                                    {K::FilledRect, -5, 500, 40, 575, 0x00FF00, {}},
                                    {K::Text, 16, 32, 16, 32, 0xFFFFFF, "SCORE 42"}};
        QCOMPARE(api.committedOverlay(), want);

        // Host files: in the folder, yes; outside it, over a file the guest did not
        // create, or through a link, no.
        QCOMPARE(result(m, R_LOAD_SIZE), 300u);
        for (int i = 0; i < 300; ++i)
            QCOMPARE(char(m.spyByte(0x60000 + std::uint32_t(i))), input[i]);
        QCOMPARE(result(m, R_SAVE), 1u);
        QCOMPARE(result(m, R_SAVE_AGAIN), 1u); // its own file: replaced
        const QByteArray palBytes("\x00\x00\x0F\x00\x00\xF0\x00\x0F", 8);
        QCOMPARE(readAll(dir + "/output.bin"), palBytes);
        QCOMPARE(result(m, R_SAVE_ESCAPE), 0u);
        QVERIFY(!QFile::exists(outer.filePath("escape.bin")));
        QCOMPARE(result(m, R_SAVE_ABSOLUTE), 0u);
        QCOMPARE(QFile::exists("/tmp/escape.bin"), tmpEscapeExisted);
        QCOMPARE(result(m, R_SAVE_EXISTING), 0u);
        QCOMPARE(readAll(dir + "/input.bin"), input);
        QCOMPARE(result(m, R_LOAD_LINK), 0u);

        // Garbage is refused, each with a line in the log, and the program runs on.
        for (int r : {R_LOG_GARBAGE, R_LOG_UNTERMINATED, R_REG_GARBAGE, R_REG_UNTERMINATED,
                      R_UNKNOWN_FN, R_UNKNOWN_CMD, R_TEXT_UNTERMINATED})
            QCOMPARE(result(m, r), 0u);
        QCOMPARE(result(m, R_STILL_RUNNING), 1u);
        const auto refusals =
            std::count_if(log.begin(), log.end(), [](const auto& l) { return l.refused; });
        QCOMPARE(refusals, 12); // 4 file calls refused, 7 garbage calls, one function 82 option
        const auto says = [&](const char* text) {
            return std::any_of(log.begin(), log.end(), [&](const auto& l) {
                return l.refused && l.text.find(text) != std::string::npos;
            });
        };
        QVERIFY(says("has no NUL"));
        QVERIFY(says("function 99 is not provided"));
        QVERIFY(says("has no command 42"));
        QVERIFY(says("not created by this guest"));
        QVERIFY(says("symbolic link"));
        QVERIFY(says("is not terminated within its 32 bytes"));
        QVERIFY(!m.halted());

        // Function 82 as Bartman's warpmode() calls it: warp on and off reach the host (the
        // window's Warp follows them), the cycle-exact switches are accepted, anything else
        // answers 5 and is reported once however often it is asked.
        const auto config = [&](int c) {
            const std::uint32_t a = 0x7F180 + 4 * std::uint32_t(c);
            return std::uint32_t(m.spyWord(a)) << 16 | m.spyWord(a + 2);
        };
        QCOMPARE(config(15), 0x600DF00Du);
        QCOMPARE(config(0), 0u);  // cpu_speed max
        QCOMPARE(config(7), 0u);  // the output buffer's first byte: an empty answer
        QCOMPARE(config(1), 0u);  // cpu_speed real
        QCOMPARE(config(2), 0u);  // warp true
        QCOMPARE(config(3), 0u);  // warp false
        QCOMPARE(config(4), 0u);  // blitter_cycle_exact true
        QCOMPARE(config(5), 5u);  // cpu_model 68020
        QCOMPARE(config(6), 5u);  // and again
        QCOMPARE(config(8), 0u); // cpu_speed max again
        QCOMPARE(api.warpRequests(), 5u);
        QVERIFY(api.guestWarp()); // the last word was "cpu_speed max"
        QCOMPARE(std::count_if(log.begin(), log.end(),
                               [](const auto& l) { return l.text.find("cpu_model 68020") != std::string::npos; }),
                 1);
        QCOMPARE(api.refusalCounts().at("uaelib: function 82 refused: the option 'cpu_model 68020' is not provided "
                                        "(warp, cpu_speed max|real and the cycle-exact switches are)"),
                 2u);

        // With a trace exception pending at $F0FF60 the handler runs first and the call
        // happens once, when it returns there: traced are the JSR, the RTS and the ANDI.
        QCOMPARE(result(m, R_TRACED_LOG), 1u);
        QCOMPARE(result(m, R_TRACES), 3u);
        QCOMPARE(std::count_if(log.begin(), log.end(),
                               [](const auto& l) { return l.text == "uaelib_calls: traced"; }),
                 1);

        // The state carries the resources and the overlay.
        const auto state = m.saveState();
        Machine other;
        other.bootBareMetal(readFileBytes(GUEST_UAELIB_CALLS));
        other.loadState(state);
        QCOMPARE(other.stateHash(), m.stateHash());
        QCOMPARE(other.guestApi().resources().size(), std::size_t(2));
        QCOMPARE(other.guestApi().overlay(), want);
        QCOMPARE(other.guestApi().resources()[0].name, std::string("ship"));
    }

    void filesFailWithoutAFolder() {
        Machine m;
        m.bootBareMetal(readFileBytes(GUEST_UAELIB_CALLS));
        runProgram(m);
        QCOMPARE(result(m, R_LOAD_SIZE), 0u);
        QCOMPARE(result(m, R_SAVE), 0u);
        QCOMPARE(result(m, R_SAVE_AGAIN), 0u);
        const auto& log = m.guestApi().log();
        QVERIFY(std::any_of(log.begin(), log.end(), [](const auto& l) {
            return l.refused && l.text.find("no guest files folder") != std::string::npos;
        }));
    }

    void namesThatLeaveTheFolderAreRefused() {
        for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", ".hidden", "a//b", "a\\b",
                                "x y", "0123456789012345678901234567890123"})
            QVERIFY2(!GuestFiles::checkName(bad).empty(), bad);
        for (const char* good : {"a.bin", "level-1/map_2.dat", "A"})
            QCOMPARE(GuestFiles::checkName(good), std::string());
    }

    // A program that never calls uaelib sees the same machine: AROS boots to the same
    // state, frame by frame, with uaelib decoded and with $F0FF60 left undecoded.
    void arosBootIsTheSameMachine() {
        auto with = arosMachine(true), without = arosMachine(false);
        QCOMPARE(with->spyWord(uaelib::kEntry), std::uint16_t(0xA00E));
        QCOMPARE(without->spyWord(uaelib::kEntry), std::uint16_t(0xFFFF));
        for (int f = 1; f <= 300; ++f) {
            with->runFrame();
            without->runFrame();
            if (f % 10 == 0) QCOMPARE(with->stateHash(), without->stateHash());
        }
        QVERIFY(with->guestApi().log().empty());
        QVERIFY(!with->guestApi().idleMarkersSeen());
    }
};

QTEST_GUILESS_MAIN(TestUaelib)
#include "test_uaelib.moc"
