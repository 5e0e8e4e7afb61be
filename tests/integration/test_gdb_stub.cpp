// SPDX-License-Identifier: GPL-3.0-or-later
// The GDB stub as gdb-multiarch (Debian) uses it: `copperline --gdb` with --run, gdb in
// batch mode loading the program's ELF, relocated by qOffsets, then breakpoints, a backtrace
// with names and lines, locals, memory, a watchpoint that fires, a step back and a
// reverse-continue through the record, monitor commands, detach and kill; a program's fault
// reported as the signal gdb names; its serial output shown by gdb; a second client turned
// away and hostile bytes answered while Copperline runs on.

#include "profiler/debuginfo/debug_info.h"
#include "profiler/report/bartman_profile.h"
#include "tests/tools/run_process.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

using copperline::testing::ProcessResult;
using copperline::testing::runProcess;

namespace {

// The line of the source that carries the marker "@name".
int markerLine(const char* name) {
    QFile f(DEBUGGER_SOURCE);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    int n = 0;
    const QByteArray marker = QByteArray("/* @") + name + " */";
    while (!f.atEnd()) {
        ++n;
        if (f.readLine().contains(marker)) return n;
    }
    return -1;
}

// copperline --gdb on a free port, with --run PROG; the port once it listens.
struct Stub {
    QProcess process;
    QByteArray err;
    int port = 0;

    explicit Stub(const QString& program, const QStringList& more = {}) {
        QStringList env = QProcess::systemEnvironment();
        env << "COPPERLINE_ROM_DIR=" COPPERLINE_ROM_DIR;
        process.setEnvironment(env);
        process.start(COPPERLINE_EXE, QStringList{"--factory", "--noaudio", "--gdb", "127.0.0.1:0", "--run", program} +
                                          more);
    }
    ~Stub() {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished();
        }
    }
    // Waits for "listening on 127.0.0.1:PORT" (the program at its first instruction).
    bool listening(int timeoutMs = 600000) {
        QElapsedTimer t;
        t.start();
        const QRegularExpression re("listening on 127\\.0\\.0\\.1:(\\d+)");
        while (t.elapsed() < timeoutMs) {
            process.waitForReadyRead(200);
            err += process.readAllStandardError();
            const auto m = re.match(QString::fromUtf8(err));
            if (m.hasMatch()) {
                port = m.captured(1).toInt();
                return true;
            }
            if (process.state() == QProcess::NotRunning) return false;
        }
        return false;
    }
};

// gdb-multiarch in batch mode: the commands, one per line, after loading `elf` and
// connecting to the port.
ProcessResult gdb(const QString& elf, int port, const QStringList& commands) {
    QStringList args = {"-nx", "-batch", "-ex", "set pagination off", "-ex", "set confirm off", "-ex", "set width 0",
                        "-ex", "set tcp connect-timeout 120", "-ex", "set remotetimeout 60"};
    if (!elf.isEmpty()) args << "-ex" << "file " + elf;
    args << "-ex" << QString("target remote 127.0.0.1:%1").arg(port);
    // qOffsets moves the ELF's sections together; the hunks lie apart: the stub's own
    // add-symbol-file command places each section where its hunk is (docs/gdb.md).
    if (!elf.isEmpty())
        args << "-ex"
             << "python gdb.execute('symbol-file'); gdb.execute(gdb.execute('monitor symbol-file', "
                "to_string=True).strip())";
    for (const QString& c : commands) args << "-ex" << c;
    return runProcess(GDB_MULTIARCH, args, 900000);
}

QString text(const ProcessResult& r) {
    return QString::fromUtf8(r.out + r.err);
}

// A client speaking the wire itself: packets framed here, independently of the stub's code.
struct Wire {
    QTcpSocket socket;
    QByteArray in;
    QString output; // what O packets carried, decoded
    bool acks = true;

    static QByteArray frame(const QByteArray& payload) {
        unsigned sum = 0;
        for (const char c : payload) sum += static_cast<unsigned char>(c);
        return "$" + payload + "#" + QByteArray::number(sum & 0xFF, 16).rightJustified(2, '0');
    }
    void send(const QByteArray& payload) {
        socket.write(payload == "\\x03" ? QByteArray("\x03") : frame(payload));
        socket.flush();
    }
    // The next packet that is not an O packet (those go to `output`), or null after waitMs.
    std::optional<QByteArray> next(int waitMs) {
        QElapsedTimer t;
        t.start();
        for (;;) {
            while (!in.isEmpty() && (in[0] == '+' || in[0] == '-')) in.remove(0, 1);
            const int hash = in.indexOf('#');
            if (in.startsWith('$') && hash > 0 && in.size() >= hash + 3) {
                const QByteArray payload = in.mid(1, hash - 1);
                in.remove(0, hash + 3);
                if (acks) socket.write("+");
                if (payload.startsWith('O') && payload != "OK") {
                    output += QString::fromLatin1(QByteArray::fromHex(payload.mid(1)));
                    continue;
                }
                return payload;
            }
            const int left = waitMs - int(t.elapsed());
            if (left <= 0) return std::nullopt;
            if (socket.waitForReadyRead(std::min(left, 200))) in += socket.readAll();
        }
    }
};

} // namespace

class TestGdbStub : public QObject {
    Q_OBJECT

private slots:
    // The whole of a gdb session on the -O0 debugger program.
    void gdbMultiarchSession() {
        const int tick = markerLine("walk_tick"), walkTotal = markerLine("walk_total"),
                  mainWalk = markerLine("main_walk"), mainResults = markerLine("main_results"),
                  mainWord = markerLine("main_word");
        QVERIFY(tick > 0 && walkTotal > 0 && mainWalk > 0 && mainResults > 0 && mainWord > 0);
        Stub stub(GUEST_DEBUGGER_O0);
        QVERIFY2(stub.listening(), stub.err.constData());
        QTemporaryDir dir;
        const QString capture = dir.path() + "/capture";
        const ProcessResult r = gdb(GUEST_DEBUGGER_O0_ELF, stub.port,
                                    {"break main", "continue", "break walk", "continue", "bt",
                                     QString("break dbg.c:%1").arg(tick), "continue",
                                     "info locals", "frame 1", "x/16xb &word", "delete", "watch results[0]", "continue",
                                     "p/x $pc", "reverse-stepi", "p/x $pc", "info line *$pc", "break walk",
                                     "reverse-continue", "bt 1", "monitor profile 2 " + capture, "monitor status",
                                     "monitor last-writer 0x400", "detach"});
        const QString out = text(r);
        QVERIFY2(r.status == 0, qPrintable(out));
        // main's breakpoint: its first line after the prologue.
        QVERIFY2(out.contains(QRegularExpression(QString("Breakpoint 1, main \\(\\) at \\S*dbg\\.c:%1").arg(mainWord))),
                 qPrintable(out));
        // A breakpoint on a function, and where it is: the function's first line after its
        // prologue, called from main's line.
        QVERIFY2(out.contains(QRegularExpression(QString("Breakpoint 2, walk \\(head=0x[0-9a-f]+ <items>\\) at "
                                                         "\\S*dbg\\.c:%1")
                                                     .arg(walkTotal))),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QString("#1  0x[0-9a-f]+ in main \\(\\) at \\S*dbg\\.c:%1").arg(mainWalk))),
                 qPrintable(out));
        // A line's breakpoint, and the locals there: after the first item, total is
        // area(items[0]) = 41.
        QVERIFY2(out.contains(QRegularExpression(QString("Breakpoint 3, walk .* at \\S*dbg\\.c:%1").arg(tick))),
                 qPrintable(out));
        QVERIFY2(out.contains("total = 41"), qPrintable(out));
        // Memory: word.l = 0x11223344, big-endian.
        QVERIFY2(out.contains(QRegularExpression("0x[0-9a-f]+:\\s+0x11\\s+0x22\\s+0x33\\s+0x44")), qPrintable(out));
        // A watchpoint that fires, with the values gdb read.
        QVERIFY2(out.contains(QRegularExpression("atchpoint 4: results\\[0\\]\\s+Old value = 0\\s+New value = 403")),
                 qPrintable(out));
        // One instruction back: the instruction that wrote results[0], on its line.
        const QRegularExpression pcs("\\$\\d+ = 0x([0-9a-f]+)");
        auto it = pcs.globalMatch(out);
        QVERIFY(it.hasNext());
        const quint32 afterWrite = it.next().captured(1).toUInt(nullptr, 16);
        QVERIFY(it.hasNext());
        const quint32 writer = it.next().captured(1).toUInt(nullptr, 16);
        QVERIFY2(writer < afterWrite && afterWrite - writer <= 10, qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QString("Line %1 of \"\\S*dbg\\.c\"").arg(mainResults))),
                 qPrintable(out));
        // reverse-continue goes back to the latest hit of a breakpoint: walk's entry.
        QVERIFY2(out.contains(QRegularExpression(QString("Breakpoint 5, walk \\(head=.*\\) at \\S*dbg\\.c:%1")
                                                     .arg(walkTotal))),
                 qPrintable(out));
        // monitor commands: a capture of two frames, the status, the record's last writer.
        QVERIFY2(out.contains("captured 2 of 2 frames in " + capture), qPrintable(out));
        QVERIFY(QFile::exists(capture + "/profile.json"));
        QVERIFY2(out.contains(QRegularExpression("paused at pc \\$[0-9A-F]{6}, frame \\d+")), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression("\\$000400: (\\$[0-9A-F]{2} -> \\$[0-9A-F]{2} by the instruction at|no "
                                                 "CPU write since|the write is older)")),
                 qPrintable(out));
        QVERIFY2(out.contains("Detaching from program") || out.contains("detached"), qPrintable(out));
        QVERIFY(stub.process.state() == QProcess::Running);

        // Detached, the program ran on; a new gdb attaches (the machine stops for it) and
        // kills: Copperline ends.
        const ProcessResult k = gdb({}, stub.port, {"p/x $pc", "kill"});
        QVERIFY2(text(k).contains(QRegularExpression("\\$1 = 0x[0-9a-f]+")), qPrintable(text(k)));
        QVERIFY2(stub.process.waitForFinished(60000), stub.err.constData());
        QCOMPARE(stub.process.exitCode(), 0);
    }

    // A program's address error stops it before the faulting instruction, as SIGBUS.
    void faultIsASignal() {
        Stub stub(GUEST_CRASH);
        QVERIFY2(stub.listening(), stub.err.constData());
        const ProcessResult r = gdb(GUEST_CRASH_ELF, stub.port, {"continue", "p/x $pc", "x/i $pc", "kill"});
        const QString out = text(r);
        QVERIFY2(out.contains("Program received signal SIGBUS"), qPrintable(out));
        // Standing on the read of the odd address, in main.
        QVERIFY2(out.contains(QRegularExpression("in main \\(\\)|main \\(\\) at")), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression("=> 0x[0-9a-f]+ <main(\\+\\d+)?>:\\s+movew? 0x1001")), qPrintable(out));
    }

    // The program's KPrintF output and what it writes to its output (Bartman's template)
    // reach gdb's console as O packets while it runs, before the breakpoint after them.
    void outputReachesGdb() {
        QFile source(BARTMAN_TEMPLATE_SOURCE);
        QVERIFY(source.open(QIODevice::ReadOnly));
        int line = 0, writeLine = 0;
        while (!source.atEnd() && !writeLine) {
            ++line;
            if (source.readLine().contains("Delay(50);")) writeLine = line; // the line after its Write()
        }
        QVERIFY(writeLine > 0);
        Stub stub(BARTMAN_TEMPLATE);
        QVERIFY2(stub.listening(), stub.err.constData());
        const ProcessResult r =
            gdb(BARTMAN_TEMPLATE_ELF, stub.port, {QString("break main.c:%1").arg(writeLine), "continue", "kill"});
        const QString out = text(r);
        QVERIFY2(out.contains("Hello debugger from Amiga!"), qPrintable(out)); // KPrintF
        QVERIFY2(out.contains("Hello console!"), qPrintable(out));             // Write(Output(), ...)
        QVERIFY2(out.contains(QRegularExpression("Breakpoint 1(\\.\\d+)?, main \\(\\)")), qPrintable(out));
    }

    // The exchange Bartman's extension has with WinUAE's gdbserver, packet for packet
    // (tests/data/bartman-gdb/exchange.txt), on his template program; its monitor profile
    // writes the binary profile the extension reads.
    void bartmanExchange() {
        const copperline::DebugInfo info = copperline::DebugInfo::load(BARTMAN_TEMPLATE);
        const auto mains = info.functionsNamed("main");
        QVERIFY(!mains.empty());
        const auto mainEntry = info.entryOf(mains.front());
        QVERIFY(mainEntry.has_value());
        QTemporaryDir dir;
        const QString unwind = dir.path() + "/a.unwind", out = dir.path() + "/a.profile";
        QCOMPARE(runProcess(COPPERLINE_CTL_EXE, {"unwind-table", BARTMAN_TEMPLATE, "--out", unwind}).status, 0);

        Stub stub(BARTMAN_TEMPLATE, {"--gdb-dialect", "bartman"});
        QVERIFY2(stub.listening(), stub.err.constData());
        Wire wire;
        wire.socket.connectToHost("127.0.0.1", quint16(stub.port));
        QVERIFY(wire.socket.waitForConnected(10000));

        QFile exchange(BARTMAN_EXCHANGE);
        QVERIFY(exchange.open(QIODevice::ReadOnly));
        std::map<QString, QString> vars = {{"unwind", unwind}, {"out", out}};
        std::vector<quint32> bases;
        int lineNo = 0;
        const auto fill = [&vars](QString t) {
            for (const auto& [k, v] : vars) t.replace("{" + k + "}", v);
            const QRegularExpression hex("\\{hex:([^}]*)\\}");
            for (auto m = hex.match(t); m.hasMatch(); m = hex.match(t))
                t.replace(m.capturedStart(), m.capturedLength(), QString::fromLatin1(m.captured(1).toLatin1().toHex()));
            return t;
        };
        while (!exchange.atEnd()) {
            ++lineNo;
            const QString line = QString::fromUtf8(exchange.readLine()).chopped(1);
            if (line.isEmpty() || line.startsWith('#')) continue;
            const qsizetype tab = line.indexOf('\t');
            QVERIFY2(tab > 0, qPrintable(QString("exchange line %1 has no tab").arg(lineNo)));
            // {hex:...} holds other {names}: those are filled in first.
            QString packet = line.left(tab);
            for (const auto& [k, v] : vars) packet.replace("{" + k + "}", v);
            packet = fill(packet);
            const QString expected = fill(line.mid(tab + 1));
            const QString where = QString("line %1: %2").arg(lineNo).arg(packet.left(60));
            wire.send(packet.toLatin1());
            if (expected.startsWith("running DBG: ")) {
                const QString want = "DBG: " + expected.mid(13);
                QElapsedTimer t;
                t.start();
                std::optional<QByteArray> stop;
                while (!wire.output.contains(want) && t.elapsed() < 60000 && !stop) stop = wire.next(500);
                QVERIFY2(!stop, qPrintable(where + " stopped: " + QString::fromLatin1(*stop)));
                QVERIFY2(wire.output.contains(want), qPrintable(where + " output: " + wire.output));
                continue;
            }
            QString want = expected;
            if (expected.startsWith("O ")) {
                const qsizetype then = expected.indexOf(" then ");
                const QString o = expected.mid(2, then - 2).replace("\\n", "\n");
                want = expected.mid(then + 6);
                const auto got = wire.next(600000);
                QVERIFY2(got.has_value(), qPrintable(where));
                QVERIFY2(wire.output.contains(o), qPrintable(where + " output: " + wire.output));
                QCOMPARE(QString::fromLatin1(*got), want);
                continue;
            }
            const auto got = wire.next(120000);
            QVERIFY2(got.has_value(), qPrintable(where + " no reply"));
            const QString reply = QString::fromLatin1(*got);
            if (want.size() > 1 && want.startsWith('/') && want.endsWith('/')) {
                const QRegularExpression re("^" + want.mid(1, want.size() - 2) + "$");
                QVERIFY2(re.match(reply).hasMatch(), qPrintable(where + " got " + reply + " want " + want));
            } else {
                QVERIFY2(reply == want, qPrintable(where + " got " + reply + " want " + want));
            }
            if (packet == "QStartNoAckMode") wire.acks = false;
            if (packet == "qOffsets") {
                for (const QString& b : reply.split(';')) bases.push_back(b.toUInt(nullptr, 16));
                QCOMPARE(bases.size(), info.hunks().size());
                vars["text"] = QString("%1").arg(bases[0], 8, 16, QChar('0'));
                vars["main"] = QString("%1").arg(bases[mainEntry->first] + mainEntry->second, 8, 16, QChar('0'));
            }
        }
        // monitor profile wrote the binary profile: one frame, the program's hunks as its
        // sections, every sample of the frame; our reader and the extension's offsets agree.
        const copperline::BartmanProfile profile = copperline::readBartmanProfileFile(out.toStdString());
        QCOMPARE(profile.frames.size(), std::size_t(1));
        QCOMPARE(profile.sectionBases, bases);
        const ProcessResult node = runProcess("node", {BARTMAN_PROFILE_CHECK, out});
        QVERIFY2(node.status == 0, node.err.constData());
        QVERIFY(node.out.contains("\"numFrames\":1"));
    }

    // One client at a time; bytes that are no packets, a bad checksum, an overlong packet and
    // a client that leaves mid-conversation: answers, and Copperline serves the next client.
    void hostileClients() {
        Stub stub(BARTMAN_TEMPLATE); // a program that runs until it is stopped
        QVERIFY2(stub.listening(), stub.err.constData());
        QTcpSocket first;
        first.connectToHost("127.0.0.1", quint16(stub.port));
        QVERIFY(first.waitForConnected(10000));
        // Sends bytes; what came back once a reply packet (or a lone '-') is complete.
        const auto exchange = [&first](const QByteArray& bytes, int waitMs = 3000) {
            first.write(bytes);
            first.flush();
            QByteArray got;
            QElapsedTimer t;
            t.start();
            while (t.elapsed() < waitMs) {
                if (first.waitForReadyRead(100)) got += first.readAll();
                if (got == "-" || (got.contains('$') && got.size() >= 3 && got[got.size() - 3] == '#')) break;
            }
            return got;
        };
        QCOMPARE(exchange("$g#00", 1500), QByteArray("-")); // a wrong checksum: asked again
        QVERIFY(exchange(Wire::frame("qC")).contains(Wire::frame("QC1")));
        // 64 KiB without an end: refused past the stub's packet size, then a good packet answers.
        first.write(QByteArray("$") + QByteArray(64 * 1024, 'm'));
        QVERIFY(exchange(Wire::frame("qC"), 3000).contains(Wire::frame("QC1")));
        QVERIFY(exchange(Wire::frame("m0,ffffffff")).contains(Wire::frame("E01"))); // a huge length
        QVERIFY(exchange(Wire::frame("G0011")).contains(Wire::frame("E01")));      // registers cut short
        QVERIFY(exchange("$Zx,1,2#00", 1500).startsWith("-"));
        // A second client is turned away; the first keeps its session.
        QTcpSocket second;
        second.connectToHost("127.0.0.1", quint16(stub.port));
        QVERIFY(second.waitForConnected(10000));
        QVERIFY(second.waitForDisconnected(10000) || second.state() == QAbstractSocket::UnconnectedState);
        QVERIFY(exchange(Wire::frame("qC")).contains(Wire::frame("QC1")));
        // Ctrl-C while the machine runs: the stop reply says SIGINT.
        first.write(Wire::frame("c"));
        first.flush();
        QTest::qWait(300);
        QVERIFY(exchange("\x03", 10000).contains(Wire::frame("T02")));
        // Leaves while the machine runs.
        first.write("$c#63");
        first.flush();
        first.waitForBytesWritten(1000);
        first.abort();
        QTest::qWait(500);
        QVERIFY(stub.process.state() == QProcess::Running);
        // The next client is served.
        const ProcessResult r = gdb({}, stub.port, {"p/x $pc", "kill"});
        QVERIFY2(text(r).contains(QRegularExpression("\\$1 = 0x[0-9a-f]+")), qPrintable(text(r)));
        QVERIFY(stub.process.waitForFinished(60000));
    }
};

QTEST_GUILESS_MAIN(TestGdbStub)
#include "test_gdb_stub.moc"
