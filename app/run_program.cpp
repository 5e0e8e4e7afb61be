#include "app/run_program.h"

#include "app/headless.h"
#include "emu/machine.h"
#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "emu/media/ofs.h"

#include <QCommandLineParser>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

namespace copperline {

#ifdef COPPERLINE_HAVE_RUNNER
extern const std::uint8_t kRunnerProgram[];
extern const std::size_t kRunnerProgramSize;
#endif

namespace {

constexpr std::uint32_t kLvoWrite = 48; // dos.library Write(): _LVOWrite = -48
constexpr const char* kRunnerName = "CopperlineRun";

// A name AmigaDOS can hold for the program on the disk.
std::string diskName(const std::string& path) {
    std::string n = std::filesystem::path(path).filename().string();
    bool ok = !n.empty() && n.size() <= ofs::kMaxNameLength && n != kRunnerName && n != "S";
    for (unsigned char c : n)
        if (c == ':' || c == '/' || c == '"' || c < 0x21 || c > 0x7E) ok = false;
    return ok ? n : "program";
}

// Exceptions that mean the program (or the system under it) has crashed.
bool isCrash(unsigned vector) {
    switch (vector) {
    case m68k::kVectorBusError:
    case m68k::kVectorAddressError:
    case m68k::kVectorIllegal:
    case m68k::kVectorZeroDivide:
    case m68k::kVectorLineA:
    case m68k::kVectorLineF: return true;
    default: return false;
    }
}

class RunObserver : public m68k::Observer {
public:
    RunObserver(Machine& m, RunReport& r) : machine_(m), report_(r) {}

    void beforeInstruction(const m68k::InstructionInfo& info,
                           const m68k::Registers& regs) override {
        if (info.pc != writeVector_ || regs.d[1] != output_) return;
        // Write(d1 file, d2 buffer, d3 length) to the program's output: mirror the bytes.
        const std::int32_t length = std::int32_t(regs.d[3]);
        if (length <= 0) return;
        const std::uint32_t n = std::min<std::uint32_t>(std::uint32_t(length), 1u << 20);
        std::string bytes(n, '\0');
        for (std::uint32_t i = 0; i < n; ++i)
            bytes[i] = char(machine_.spyByte((regs.d[2] + i) & 0xFFFFFF));
        std::fwrite(bytes.data(), 1, bytes.size(), stdout);
        std::fflush(stdout);
        report_.output += bytes;
    }

    void exceptionTaken(const m68k::ExceptionInfo& e) override {
        if (isCrash(e.vector) && !crash_) crash_ = e;
    }

    void watch(std::uint32_t dosBase, std::uint32_t output) {
        writeVector_ = (dosBase - kLvoWrite) & 0xFFFFFF;
        output_ = output;
    }
    const std::optional<m68k::ExceptionInfo>& crash() const { return crash_; }

private:
    Machine& machine_;
    RunReport& report_;
    std::uint32_t writeVector_ = 0xFFFFFFFF, output_ = 0;
    std::optional<m68k::ExceptionInfo> crash_;
};

std::string where(std::uint32_t pc, const RunReport& r, const HunkFile& hunks) {
    char buf[96];
    for (std::size_t i = 0; i < r.hunkBases.size() && i < hunks.sections.size(); ++i) {
        const std::uint32_t base = r.hunkBases[i];
        if (pc >= base && pc < base + hunks.sections[i].allocSize) {
            std::snprintf(buf, sizeof buf, "$%06X (hunk %zu + $%X)", pc, i, pc - base);
            return buf;
        }
    }
    std::snprintf(buf, sizeof buf, "$%06X (outside the program)", pc);
    return buf;
}

} // namespace

RunReport runProgram(Machine& machine, const RunOptions& o) {
    RunReport report;
    const auto hostStart = std::chrono::steady_clock::now();
    auto hostNow = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - hostStart).count();
    };

#ifndef COPPERLINE_HAVE_RUNNER
    std::fprintf(stderr, "copperline: --run needs the 68000 guest toolchain at build time "
                         "(COPPERLINE_BUILD_GUEST)\n");
    report.status = exit_status::Usage;
    return report;
#else
    HunkFile hunks;
    std::vector<std::uint8_t> bytes;
    ofs::Volume volume;
    const std::string name = diskName(o.program);
    try {
        bytes = readFileBytes(o.program, adf::kImageBytes);
        hunks = readHunkFile(bytes, o.program);
        std::string args = o.args;
        for (auto& c : args)
            if (c == '\n' || c == '\r') c = ' ';
        volume.name = "CopperlineRun";
        volume.files.push_back({name, bytes});
        volume.files.push_back(
            {kRunnerName, {kRunnerProgram, kRunnerProgram + kRunnerProgramSize}});
        const std::string script =
            std::string(":") + kRunnerName + " \":" + name + "\" " + args + "\n";
        volume.files.push_back({"S/Startup-Sequence", {script.begin(), script.end()}});
        machine.connectDrive(o.drive, true);
        machine.insertDisk(o.drive, ofs::writeVolume(volume));
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline: --run: %s\n", e.what());
        report.status = exit_status::Usage;
        return report;
    }

    RunObserver observer(machine, report);
    machine.guestApi().setLogSink([](const GuestApi::LogMessage& m) {
        // A refused uaelib call is the host's line, the rest the guest's own.
        std::fprintf(stderr, m.refused ? "copperline: %s\n" : "copperline: guest: %s\n",
                     m.text.c_str());
    });
    enum class Phase { Booting, Loaded, LoadFailed, Exited } phase = Phase::Booting;
    std::uint32_t dosBase = 0, output = 0, ioErr = 0, rc = 0;
    machine.guestApi().setRunHandler([&](const GuestApi::RunMessage& m) {
        switch (m.event) {
        case GuestApi::RunEvent::Started:
            dosBase = m.a;
            output = m.b;
            break;
        case GuestApi::RunEvent::Loaded: {
            // The segment list: BPTRs to [next BPTR][hunk data...] (AmigaDOS manual,
            // LoadSeg); each hunk's first byte follows its link.
            std::uint32_t bptr = m.a;
            for (std::size_t i = 0; bptr && i < hunks.sections.size(); ++i) {
                const std::uint32_t addr = (bptr << 2) & 0xFFFFFF;
                report.hunkBases.push_back(addr + 4);
                bptr = std::uint32_t(machine.spyWord(addr)) << 16 | machine.spyWord(addr + 2);
            }
            report.loadedAt = machine.emulatedSeconds();
            report.hostBootSeconds = hostNow();
            observer.watch(dosBase, output);
            machine.attachCpuObserver(&observer, m68k::kHookBefore | m68k::kHookException);
            phase = Phase::Loaded;
            break;
        }
        case GuestApi::RunEvent::LoadFailed:
            ioErr = m.a;
            phase = Phase::LoadFailed;
            break;
        case GuestApi::RunEvent::Exited:
            rc = m.a;
            machine.detachCpuObserver(&observer);
            phase = Phase::Exited;
            break;
        }
    });

    auto finish = [&](int status) {
        machine.detachCpuObserver(&observer);
        machine.guestApi().setRunHandler({});
        machine.guestApi().setLogSink({});
        report.status = status;
        report.endedAt = machine.emulatedSeconds();
        report.hostRunSeconds = hostNow() - report.hostBootSeconds;
        return report;
    };

    while (true) {
        if (phase == Phase::Exited) break;
        if (const auto& crash = observer.crash()) {
            std::fprintf(stderr,
                         "copperline: %s crashed: %s at %s, %.2f emulated s after it was loaded\n"
                         "copperline: the exception frame holds PC %s and SR $%04X\n",
                         name.c_str(), m68k::vectorName(crash->vector),
                         where(crash->pushedPc, report, hunks).c_str(),
                         machine.emulatedSeconds() - report.loadedAt,
                         where(crash->pushedPc, report, hunks).c_str(), crash->pushedSr);
            return finish(run_status::Crashed);
        }
        if (machine.halted()) {
            std::fprintf(stderr,
                         "copperline: the CPU halted (double bus fault) at PC $%06X after %.2f s\n",
                         machine.cpu().registers().pc, machine.emulatedSeconds());
            return finish(run_status::EmulatorError);
        }
        if (phase == Phase::LoadFailed) {
            std::fprintf(stderr,
                         "copperline: AmigaDOS could not load %s (LoadSeg failed, IoErr %u)\n",
                         name.c_str(), ioErr);
            return finish(run_status::NeverLoaded);
        }
        if (phase == Phase::Booting && machine.emulatedSeconds() >= o.loadTimeout) {
            std::fprintf(stderr, "copperline: %s was not loaded within %.0f emulated seconds\n",
                         name.c_str(), o.loadTimeout);
            return finish(run_status::NeverLoaded);
        }
        if (phase == Phase::Loaded && o.timeout > 0 &&
            machine.emulatedSeconds() - report.loadedAt >= o.timeout) {
            std::fprintf(stderr, "copperline: %s did not return within %g emulated seconds\n",
                         name.c_str(), o.timeout);
            return finish(run_status::Timeout);
        }
        machine.runFrame();
    }
    finish(int(rc & 0xFF));
    if (o.verbose) {
        for (std::size_t i = 0; i < report.hunkBases.size(); ++i)
            std::fprintf(stderr, "copperline: hunk %zu at $%06X\n", i, report.hunkBases[i]);
        std::fprintf(stderr, "copperline: %s returned %d\n", name.c_str(), std::int32_t(rc));
        static const char* const kinds[] = {"removed", "bitmap", "palette", "copper list"};
        for (const auto& r : machine.guestApi().resources())
            std::fprintf(stderr, "copperline: resource %s '%s' at $%06X, %u bytes\n",
                         kinds[unsigned(r.kind) & 3], r.name.c_str(), r.address, r.size);
        if (machine.guestApi().idleMarkersSeen())
            std::fprintf(stderr, "copperline: the guest marked idle time\n");
    }
    if (o.printSpeed || o.verbose)
        std::fprintf(stderr,
                     "copperline: loaded after %.2f emulated s (%.2f host s); returned after %.2f "
                     "emulated s "
                     "(%.2f host s)\n",
                     report.loadedAt, report.hostBootSeconds, report.endedAt - report.loadedAt,
                     report.hostRunSeconds);
    return report;
#endif
}

// ---- command line ------------------------------------------------------------------------

void addRunOptions(QCommandLineParser& parser) {
    parser.addOption(
        {"run",
         "Headless: boot the ROM, run the AmigaOS program PROG, mirror its output to stdout and "
         "exit with its return code.",
         "PROG"});
    parser.addOption({"run-args", "The argument line for --run's program.", "ARGS"});
    parser.addOption(
        {"timeout",
         "--run: give up when the program has not returned SECONDS emulated seconds after "
         "it was loaded (exit status 124).",
         "SECONDS"});
    parser.addOption(
        {"load-timeout",
         "--run: give up when the program is not loaded SECONDS emulated seconds after "
         "power-on (default 60; exit status 126).",
         "SECONDS"});
    parser.addOption({"run-verbose",
                      "--run: report where each hunk was loaded, the return code and the timing."});
    for (int n = 0; n < 4; ++n) {
        const QString df = QString("floppy%1").arg(n);
        parser.addOption(
            {df,
             QString("Insert an ADF image in DF%1 (DF1-DF3 are connected when used). Writes stay "
                     "in memory unless --%2-writeback.")
                 .arg(n)
                 .arg(df),
             "FILE.adf"});
        parser.addOption({df + "-writeback",
                          QString("Write the changes made to DF%1's disk back to its file at the "
                                  "end of the run.")
                              .arg(n)});
    }
}

bool wantsRun(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--run")) return true;
    return false;
}

int applyFloppyOptions(const QCommandLineParser& parser, Machine& machine, MediaSession& session) {
    for (unsigned n = 0; n < 4; ++n) {
        const QString df = QString("floppy%1").arg(n);
        if (parser.isSet(df + "-writeback") && !parser.isSet(df)) {
            std::fprintf(stderr, "copperline: --%s-writeback needs --%s FILE.adf\n", qPrintable(df),
                         qPrintable(df));
            return exit_status::Usage;
        }
        if (!parser.isSet(df)) continue;
        try {
            const std::string path = parser.value(df).toStdString();
            AdfImage image = loadAdf(path);
            session.paths[n] = path;
            session.writeback[n] = parser.isSet(df + "-writeback");
            machine.connectDrive(n, true);
            machine.insertDisk(n, std::move(image));
        } catch (const MediaError& e) {
            std::fprintf(stderr, "copperline: --%s: %s\n", qPrintable(df), e.what());
            return exit_status::Usage;
        }
    }
    return 0;
}

int finishFloppies(Machine& machine, const MediaSession& session) {
    machine.floppy().flushAll();
    for (unsigned n = 0; n < 4; ++n) {
        const FloppyDrive& d = machine.floppy().drive(n);
        if (session.paths[n].empty() || !d.hasDisk() || !d.modified()) continue;
        if (!session.writeback[n]) {
            std::fprintf(stderr,
                         "copperline: DF%u: the guest wrote to the disk; %s is unchanged "
                         "(--floppy%u-writeback "
                         "keeps the changes)\n",
                         n, session.paths[n].c_str(), n);
            continue;
        }
        try {
            saveAdf(session.paths[n], d.disk());
        } catch (const MediaError& e) {
            std::fprintf(stderr, "copperline: DF%u: %s\n", n, e.what());
            return run_status::EmulatorError;
        }
    }
    return 0;
}

int runFromCommandLine(const QCommandLineParser& parser, Machine& machine,
                       const MediaSession& session, bool printSpeed) {
    RunOptions o;
    o.program = parser.value("run").toStdString();
    o.args = parser.value("run-args").toStdString();
    o.verbose = parser.isSet("run-verbose");
    o.printSpeed = printSpeed;
    // The user's own disk boots from DF0; ours waits in DF1.
    o.drive = session.paths[0].empty() ? 0 : 1;
    for (const char* opt : {"timeout", "load-timeout"}) {
        if (!parser.isSet(opt)) continue;
        bool ok = false;
        const double s = parser.value(opt).toDouble(&ok);
        if (!ok || s <= 0) {
            std::fprintf(stderr, "copperline: --%s wants a positive number of seconds, not '%s'\n",
                         opt, qPrintable(parser.value(opt)));
            return exit_status::Usage;
        }
        (std::strcmp(opt, "timeout") ? o.loadTimeout : o.timeout) = s;
    }
    const RunReport r = runProgram(machine, o);
    const int media = finishFloppies(machine, session);
    return media ? media : r.status;
}

} // namespace copperline
