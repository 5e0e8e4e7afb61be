// SPDX-License-Identifier: GPL-3.0-or-later
// Every one of the 65,536 opcode words, followed by sample extension words, is
// disassembled; the text of each legal word must assemble with
// `m68k-linux-gnu-as -m68000` back to exactly the same bytes, and each illegal
// word must come out as `.short` data. A second check compares legality with
// binutils' own 68000 disassembler. docs/disassembler.md explains both.

#include "emu/cpu/disasm/disasm.h"

#include <QDebug>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

using namespace copperline;

namespace {

#ifdef COPPERLINE_M68K_AS
const QString kAs = QStringLiteral(COPPERLINE_M68K_AS);
#else
const QString kAs;
#endif
#ifdef COPPERLINE_M68K_LD
const QString kLd = QStringLiteral(COPPERLINE_M68K_LD);
#else
const QString kLd;
#endif
#ifdef COPPERLINE_M68K_OBJCOPY
const QString kObjcopy = QStringLiteral(COPPERLINE_M68K_OBJCOPY);
#else
const QString kObjcopy;
#endif
#ifdef COPPERLINE_M68K_OBJDUMP
const QString kObjdump = QStringLiteral(COPPERLINE_M68K_OBJDUMP);
#else
const QString kObjdump;
#endif

constexpr std::uint32_t kWords = 0x10000;
// Each opcode word gets its own slot, larger than the longest instruction (10
// bytes), so the bytes of word n are at kBase + kSlot * n whatever the lengths.
constexpr std::uint32_t kSlot = 16;
// Far enough from 0 that a backward branch by 32 KiB still lands above it.
constexpr std::uint32_t kBase = 0x10000;

struct SampleSet {
    const char* what;
    std::array<std::uint16_t, 4> words;
    BranchTargets branchTargets;
    bool hexNumbers;
};

// The first word after the opcode serves as immediate, displacement, brief
// extension word, register mask, bit number or absolute address, depending on
// the instruction; later words serve the second operand.
const std::array<SampleSet, 9> kSampleSets = {{
    {"positive: d0.w+0x12 index, then a brief word gas cannot write",
     {0x0012, 0x3456, 0x789a, 0xbcde},
     BranchTargets::Absolute,
     true},
    {"negative: a0.w-2 index, sp.l index, abs.w 0xffff80fe",
     {0x80fe, 0xf800, 0x0001, 0x7ffe},
     BranchTargets::Absolute,
     true},
    {"extremes: d7.l-0x80 index, 0xffff, 0x8000",
     {0x7880, 0xffff, 0x8000, 0x00ff},
     BranchTargets::Absolute,
     true},
    {"zeros: zero displacements, empty MOVEM list, #0",
     {0x0000, 0x0000, 0x0000, 0x0000},
     BranchTargets::Absolute,
     true},
    {"byte 0xff, a2.l+0x7f index, -2",
     {0x00ff, 0xa87f, 0xffff, 0xfffe},
     BranchTargets::Absolute,
     true},
    {"byte -0x80, brief word with bits 8-10 set",
     {0xff80, 0x1234, 0x5678, 0x0004},
     BranchTargets::Absolute,
     true},
    {"limits: -0x8000 displacement, a0.w+0 index, one-register list",
     {0x8000, 0x7fff, 0x0000, 0x0001},
     BranchTargets::Absolute,
     true},
    {"#0x80 and #-0x81 long immediates, just outside MOVEQ",
     {0x0000, 0x0080, 0xffff, 0xff7f},
     BranchTargets::Absolute,
     true},
    {"negative set, relative branch targets, decimal numbers",
     {0x80fe, 0xf800, 0x0001, 0x7ffe},
     BranchTargets::Relative,
     false},
}};

struct Batch {
    QString name;
    QByteArray expected; // kWords slots
    std::vector<DisasmResult> results;
};

// Runs the commands side by side and returns each one's standard error;
// a command that fails to run or exits non-zero fails the test.
bool runAll(const QString& dir, const std::vector<QStringList>& commands,
            std::vector<QString>& errors) {
    std::vector<std::unique_ptr<QProcess>> processes;
    for (const QStringList& command : commands) {
        auto process = std::make_unique<QProcess>();
        process->setWorkingDirectory(dir);
        process->start(command.front(), command.mid(1));
        processes.push_back(std::move(process));
    }
    errors.clear();
    bool ok = true;
    for (std::size_t i = 0; i < processes.size(); ++i) {
        QProcess& process = *processes[i];
        const bool finished = process.waitForFinished(-1);
        errors.push_back(QString::fromLocal8Bit(process.readAllStandardError()));
        if (!finished || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
            qWarning().noquote() << commands[i].join(' ') << "failed:" << process.errorString()
                                 << errors.back().left(2000);
            ok = false;
        }
    }
    return ok;
}

QString hexBytes(const QByteArray& bytes) {
    return QString::fromLatin1(bytes.toHex(' '));
}

} // namespace

class TestDisasmRoundTrip : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void everyOpcodeAssemblesBack();
    void legalityMatchesObjdump();

private:
    QTemporaryDir dir_;
};

void TestDisasmRoundTrip::initTestCase() {
    if (kAs.isEmpty() || kLd.isEmpty() || kObjcopy.isEmpty() || kObjdump.isEmpty())
        QFAIL("m68k-linux-gnu binutils not found; scripts/setup.sh installs binutils-m68k-linux-gnu");
    QVERIFY(dir_.isValid());
}

void TestDisasmRoundTrip::everyOpcodeAssemblesBack() {
    QElapsedTimer timer;
    timer.start();

    std::vector<Batch> batches(kSampleSets.size());
    std::vector<QStringList> assemble, link, copy;
    for (std::size_t set = 0; set < kSampleSets.size(); ++set) {
        const SampleSet& sample = kSampleSets[set];
        Batch& batch = batches[set];
        batch.name = QStringLiteral("set%1").arg(set);
        batch.expected = QByteArray(kWords * kSlot, '\0');
        batch.results.reserve(kWords);
        DisasmOptions options;
        options.branchTargets = sample.branchTargets;
        options.hexNumbers = sample.hexNumbers;

        std::string source;
        source.reserve(kWords * 48);
        for (std::uint32_t op = 0; op < kWords; ++op) {
            const std::uint32_t pc = kBase + kSlot * op;
            const auto read = [&](std::uint32_t address) -> std::uint16_t {
                const std::uint32_t index = (address - pc) / 2;
                if (index == 0) return static_cast<std::uint16_t>(op);
                return index <= sample.words.size() ? sample.words[index - 1] : 0;
            };
            DisasmResult result = disassemble(pc, read, options);
            for (std::uint32_t at = 0; at < result.length && at < kSlot; at += 2) {
                const std::uint16_t word = read(pc + at);
                batch.expected[kSlot * op + at] = static_cast<char>(word >> 8);
                batch.expected[kSlot * op + at + 1] = static_cast<char>(word & 0xff);
            }
            // Line 2n+1 places the slot, line 2n+2 holds the instruction.
            char org[32];
            std::snprintf(org, sizeof org, "\t.org 0x%x\n\t", static_cast<unsigned>(pc));
            source += org;
            source += result.text;
            source += '\n';
            batch.results.push_back(std::move(result));
        }
        QFile file(dir_.filePath(batch.name + ".s"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(source.data(), static_cast<qint64>(source.size())),
                 static_cast<qint64>(source.size()));
        file.close();

        // -Z: keep going past a bad line, so that one report names every failure.
        assemble.push_back({kAs, "-m68000", "-Z", "-o", batch.name + ".o", batch.name + ".s"});
        // Linking at 0 resolves branches to absolute targets against the .org
        // placement; gas alone leaves them as relocations.
        link.push_back({kLd, "-Ttext=0", "-e", "0", "-o", batch.name + ".elf", batch.name + ".o"});
        copy.push_back({kObjcopy, "-O", "binary", batch.name + ".elf", batch.name + ".bin"});
    }
    const qint64 generated = timer.elapsed();

    std::vector<QString> asErrors, ignored;
    // gas exits non-zero when a line fails even with -Z; the messages say which.
    runAll(dir_.path(), assemble, asErrors);
    QVERIFY(runAll(dir_.path(), link, ignored));
    QVERIFY(runAll(dir_.path(), copy, ignored));
    const qint64 assembled = timer.elapsed();

    // Legality is a property of the opcode word alone: the same in every set.
    const std::vector<DisasmResult>& reference = batches[0].results;
    std::uint32_t legal = 0;
    for (const DisasmResult& r : reference)
        legal += r.valid ? 1 : 0;

    int failures = 0;
    const auto fail = [&failures](const QString& message) {
        if (++failures <= 40) qWarning().noquote() << message;
    };
    static const QRegularExpression gasMessage(
        QStringLiteral(R"(^[^:\n]*\.s:(\d+): (Error|Warning): (.*)$)"),
        QRegularExpression::MultilineOption);

    for (std::size_t set = 0; set < batches.size(); ++set) {
        const Batch& batch = batches[set];
        std::map<std::uint32_t, QString> gasSays;
        for (auto it = gasMessage.globalMatch(asErrors[set]); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            const std::uint32_t line = match.captured(1).toUInt();
            if (line >= 2) gasSays[(line - 2) / 2] += match.captured(0) + " ";
        }
        QFile file(dir_.filePath(batch.name + ".bin"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray image = file.readAll();

        std::uint32_t asData = 0;
        for (std::uint32_t op = 0; op < kWords; ++op) {
            const DisasmResult& r = batch.results[op];
            const QString text = QString::fromStdString(r.text);
            const QString where = QStringLiteral("%1 %2 `%3`")
                                      .arg(batch.name)
                                      .arg(op, 4, 16, QLatin1Char('0'))
                                      .arg(text);
            if (r.valid != reference[op].valid || r.length != reference[op].length)
                fail(where + " differs from set0 in legality or length");
            if (!r.valid) {
                char data[24];
                std::snprintf(data, sizeof data, ".short 0x%04x", static_cast<unsigned>(op));
                if (r.text != data || r.length != 2) fail(where + " is illegal but not data");
            } else {
                if (r.length < 2 || r.length > 10 || (r.length & 1))
                    fail(where + " has length " + QString::number(r.length));
                if (r.text.starts_with(".short")) ++asData;
            }
            if (text.contains('\n')) fail(where + " spans lines");
            if (const auto said = gasSays.find(op); said != gasSays.end())
                fail(where + " gas: " + said->second);
            const QByteArray want = batch.expected.mid(kSlot * op, kSlot);
            QByteArray got = image.mid(kBase + kSlot * op, kSlot);
            got.append(QByteArray(kSlot - got.size(), '\0'));
            if (got != want)
                fail(where + " assembles to " + hexBytes(got) + ", want " + hexBytes(want));
        }
        qInfo().noquote() << QStringLiteral("%1 (%2): %3 legal words, %4 of them written as data")
                                 .arg(batch.name, QString::fromLatin1(kSampleSets[set].what))
                                 .arg(legal)
                                 .arg(asData);
    }
    qInfo().noquote() << QStringLiteral("%1 instructions: %2 ms to disassemble, %3 ms to "
                                        "assemble, %4 ms in all")
                             .arg(kWords * batches.size())
                             .arg(generated)
                             .arg(assembled - generated)
                             .arg(timer.elapsed());
    QCOMPARE(failures, 0);
}

void TestDisasmRoundTrip::legalityMatchesObjdump() {
    // Each opcode alone, its extension words zero, then NOPs: whatever length
    // objdump gives an instruction, the zero words decode as 4-byte ORI.B and
    // the NOPs re-align it at the next slot.
    QByteArray image;
    image.reserve(kWords * kSlot);
    for (std::uint32_t op = 0; op < kWords; ++op) {
        const std::array<std::uint16_t, 8> words = {
            static_cast<std::uint16_t>(op), 0, 0, 0, 0, 0x4e71, 0x4e71, 0x4e71};
        for (const std::uint16_t word : words) {
            image.append(static_cast<char>(word >> 8));
            image.append(static_cast<char>(word & 0xff));
        }
    }
    QFile file(dir_.filePath("opcodes.bin"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(image), static_cast<qint64>(image.size()));
    file.close();

    QProcess objdump;
    objdump.setWorkingDirectory(dir_.path());
    objdump.start(kObjdump, {"-z", "-D", "-b", "binary", "-m", "m68k:68000", "opcodes.bin"});
    // QProcess drains the pipe while it waits, so the listing cannot block it.
    QVERIFY(objdump.waitForFinished(-1));
    QCOMPARE(objdump.exitStatus(), QProcess::NormalExit);
    QCOMPARE(objdump.exitCode(), 0);
    const QByteArray listing = objdump.readAllStandardOutput();

    // objdump's verdict at each slot start: an instruction, or `.short`.
    std::vector<int> objdumpLegal(kWords, -1);
    static const QRegularExpression line(QStringLiteral(R"(^\s*([0-9a-f]+):\t[0-9a-f ]+\t(\S+))"),
                                         QRegularExpression::MultilineOption);
    for (auto it = line.globalMatch(QString::fromLatin1(listing)); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        const std::uint32_t address = match.captured(1).toUInt(nullptr, 16);
        if (address % kSlot == 0 && address / kSlot < kWords)
            objdumpLegal[address / kSlot] = match.captured(2) == QLatin1String(".short") ? 0 : 1;
    }

    // Where binutils and the 68000 disagree; docs/disassembler.md gives the reasons.
    std::map<QString, int> explained;
    int failures = 0;
    std::uint32_t legal = 0;
    for (std::uint32_t op = 0; op < kWords; ++op) {
        const DisasmResult r = disassemble(0, [op](std::uint32_t address) -> std::uint16_t {
            return address == 0 ? static_cast<std::uint16_t>(op) : 0;
        });
        legal += r.valid ? 1 : 0;
        if (objdumpLegal[op] < 0) {
            if (++failures <= 20) qWarning("%04x: objdump lost step at this slot", op);
            continue;
        }
        if (static_cast<bool>(objdumpLegal[op]) == r.valid) continue;
        if (!r.valid && (op & 0xf000) == 0xf000)
            ++explained[QStringLiteral("line F: 68851/68881 coprocessor instructions")];
        else if (!r.valid && op == 0x4afd)
            ++explained[QStringLiteral("0x4afd: swbeg.l switch-table marker")];
        else if (!r.valid && (op & 0xf1f8) == 0x5108)
            ++explained[QStringLiteral("SUBQ.B #n,An")];
        else if (++failures <= 20)
            qWarning("%04x: objdump says %s, disassembler says %s (%s)", op,
                     objdumpLegal[op] ? "legal" : "illegal", r.valid ? "legal" : "illegal",
                     r.text.c_str());
    }
    qInfo("%u of %u opcode words are legal 68000 instructions", legal, kWords);
    for (const auto& [reason, count] : explained)
        qInfo().noquote() << QStringLiteral("objdump decodes %1 words we call illegal: %2")
                                 .arg(count)
                                 .arg(reason);
    QCOMPARE(failures, 0);
}

QTEST_GUILESS_MAIN(TestDisasmRoundTrip)
#include "tst_disasm_roundtrip.moc"
