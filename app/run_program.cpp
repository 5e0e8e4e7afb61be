// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/run_program.h"

#include "app/coverage_run.h"
#include "app/headless.h"
#include "app/profile_run.h"
#include "app/control/floppy_files.h"
#include "app/control/run_report.h"
#include "emu/machine.h"
#include "emu/media/adf.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/hunk.h"
#include "emu/media/ofs.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"
#include "profiler/debuginfo/debug_info.h"

#include <QCommandLineParser>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
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
// The file of --run-then's command lines beside PROG, and what the loader reads of it
// (resources/guest/run/runner.c).
constexpr const char* kThenName = "Run-Then";
constexpr std::size_t kMaxThenBytes = 4095;

// Whether AmigaDOS can hold the name for a file of the run disk's root (printable ASCII,
// no space, ':', '/' or '"', which the shell's command line would split or misread).
bool validDiskName(const std::string& n) {
    if (n.empty() || n.size() > ofs::kMaxNameLength) return false;
    for (unsigned char c : n)
        if (c == ':' || c == '/' || c == '"' || c < 0x21 || c > 0x7E) return false;
    return true;
}

// AmigaDOS compares names without regard to (ASCII) case.
bool sameDiskName(const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower((unsigned char)x) == std::tolower((unsigned char)y);
           });
}

// The names the run disk holds besides PROG and the --run-file files.
bool reservedDiskName(const std::string& n) {
    return sameDiskName(n, kRunnerName) || sameDiskName(n, "S") || sameDiskName(n, kThenName);
}

// A name AmigaDOS can hold for the program on the disk.
std::string diskName(const std::string& path) {
    std::string n = std::filesystem::path(path).filename().string();
    return validDiskName(n) && !reservedDiskName(n) ? n : "program";
}

// --run-file: each file for the disk's root under its own name, which must be one AmigaDOS
// can hold and no other file's of the disk (`program` is PROG's name there).
std::vector<ofs::File> readRunFiles(const std::vector<std::string>& paths, const std::string& program) {
    std::vector<std::pair<std::string, std::string>> taken = {
        {program, "the program (--run)"},
        {kRunnerName, "the loader"},
        {"S", "the directory of S/Startup-Sequence"},
        {kThenName, "the file of the --run-then lines"}};
    std::vector<ofs::File> files;
    for (const std::string& path : paths) {
        const std::string n = std::filesystem::path(path).filename().string();
        if (!validDiskName(n))
            throw MediaError(path + ": AmigaDOS cannot hold the name '" + n +
                             "' (1 to " + std::to_string(ofs::kMaxNameLength) +
                             " printable characters, no space, ':', '/' or '\"')");
        for (const auto& [other, what] : taken)
            if (sameDiskName(n, other))
                throw MediaError(path + ": the name '" + n + "' is taken on the run disk by " +
                                 what + (n == other ? "" : " ('" + other + "'; AmigaDOS ignores case)"));
        files.push_back({n, readFileBytes(path, adf::kImageBytes)});
        taken.emplace_back(n, "--run-file " + path);
    }
    return files;
}

// Exceptions that mean the program (or the system under it) has crashed, wherever the CPU
// took them.
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

// Exceptions that are a crash when the program's own code takes them: the system uses a
// privilege violation itself (exec's Supervisor() on a 68000 raises one on purpose), so
// only the program's instructions count.
bool isProgramFault(unsigned vector) {
    return vector == m68k::kVectorChk || vector == m68k::kVectorTrapv ||
           vector == m68k::kVectorPrivilege ||
           (vector >= m68k::kVectorTrap0 && vector < m68k::kVectorTrap0 + 16);
}

// exec's structures, as the Amiga ROM Kernel Reference Manual's exec/execbase.h and
// exec/tasks.h lay them out: ExecBase->ThisTask and Task->tc_TrapCode.
constexpr std::uint32_t kExecThisTask = 276;
constexpr std::uint32_t kTaskTrapCode = 50;

std::string exceptionName(unsigned vector) {
    if (vector >= m68k::kVectorTrap0 && vector < m68k::kVectorTrap0 + 16)
        return "TRAP #" + std::to_string(vector - m68k::kVectorTrap0);
    return m68k::vectorName(vector);
}

class RunObserver : public m68k::Observer {
public:
    struct Crash {
        m68k::ExceptionInfo exception;
        std::uint32_t instructionPc = 0; // the instruction that was running when it was taken
    };

    RunObserver(Machine& m, RunReport& r) : machine_(m), report_(r) {}

    void beforeInstruction(const m68k::InstructionInfo& info,
                           const m68k::Registers& regs) override {
        lastPc_ = info.pc;
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
        if (crash_) return;
        const bool ours = inProgram(lastPc_);
        if (!isCrash(e.vector) && !(ours && isProgramFault(e.vector))) return;
        if (handled(e)) return;
        crash_ = Crash{e, lastPc_};
    }

    // Called when LoadSeg has returned: the program's hunks, and the trap handler its task
    // had before the program ran (exec's default, which only raises an alert).
    void watch(std::uint32_t dosBase, std::uint32_t output, const std::vector<std::uint32_t>& bases,
               const HunkFile& hunks) {
        writeVector_ = (dosBase - kLvoWrite) & 0xFFFFFF;
        output_ = output;
        spans_.clear();
        for (std::size_t i = 0; i < bases.size() && i < hunks.sections.size(); ++i)
            spans_.push_back({bases[i], hunks.sections[i].allocSize});
        task_ = thisTask();
        defaultTrapCode_ = task_ ? spyLong(task_ + kTaskTrapCode) : 0;
    }
    const std::optional<Crash>& crash() const { return crash_; }
    // PROG returned and its hunks are freed: nothing there is its code any more.
    void forgetProgram() { spans_.clear(); }

private:
    bool inProgram(std::uint32_t address) const {
        for (const auto& [base, size] : spans_)
            if (address >= base && address - base < size) return true;
        return false;
    }
    std::uint32_t spyLong(std::uint32_t address) const {
        return std::uint32_t(machine_.spyWord(address & 0xFFFFFF)) << 16 |
               machine_.spyWord((address + 2) & 0xFFFFFF);
    }
    std::uint32_t thisTask() const { return spyLong(spyLong(4) + kExecThisTask); }
    // The program handles an exception when it put its own code in the vector table, or set
    // its task's tc_TrapCode, which exec calls for the processor traps a task takes.
    bool handled(const m68k::ExceptionInfo& e) const {
        if (inProgram(e.handler)) return true;
        const std::uint32_t task = thisTask();
        return task && task == task_ && spyLong(task + kTaskTrapCode) != defaultTrapCode_;
    }

    Machine& machine_;
    RunReport& report_;
    std::uint32_t writeVector_ = 0xFFFFFFFF, output_ = 0;
    std::uint32_t lastPc_ = 0, task_ = 0, defaultTrapCode_ = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> spans_; // (base, size) of each hunk
    std::optional<Crash> crash_;
};

// Where each hunk of a segment list starts (amigaos.h, readSegList).
std::vector<std::uint32_t> segmentBases(const Machine& machine, std::uint32_t bptr, unsigned maxSegments) {
    std::vector<std::uint32_t> bases;
    for (const AmigaOsSegment& s : readSegList(MachineMemoryView(machine), bptr, maxSegments))
        bases.push_back(s.base);
    return bases;
}

// An address as a person reads it: the hunk and offset, and the function and line the
// program's debug information gives (its hunk symbols and LINE blocks, or the PROG.elf
// beside it).
std::string where(std::uint32_t pc, const RunReport& r, const HunkFile& hunks,
                  const DebugInfo* info) {
    char buf[96];
    for (std::size_t i = 0; i < r.hunkBases.size() && i < hunks.sections.size(); ++i) {
        const std::uint32_t base = r.hunkBases[i];
        if (pc >= base && pc < base + hunks.sections[i].allocSize) {
            std::snprintf(buf, sizeof buf, "$%06X (hunk %zu + $%X)", pc, i, pc - base);
            std::string s = buf;
            if (!info) return s;
            const auto frames = info->frames(info->lookup(std::uint32_t(i), pc - base));
            if (frames.empty()) return s;
            const InlineFrame& f = frames.front();
            if (f.scope) s += " in " + f.scope->name;
            if (f.file != kNoFile && f.line)
                s += " at " + std::filesystem::path(info->fileName(f.file)).filename().string() +
                     ":" + std::to_string(f.line);
            return s;
        }
    }
    std::snprintf(buf, sizeof buf, "$%06X (outside the program)", pc);
    return buf;
}

} // namespace

#ifdef COPPERLINE_HAVE_RUNNER
// The run disk: PROG, the loader, S/Startup-Sequence that runs it, Run-Then and the
// --run-file files, inserted in o.drive. Returns 0, or the exit status with the message
// printed.
AdfImage makeRunDisk(const RunOptions& o, HunkFile& hunks, std::vector<std::string>* warnings) {
    std::vector<std::uint8_t> bytes;
    ofs::Volume volume;
    const std::string name = diskName(o.program);
    std::vector<ofs::File> runFiles;
    try {
        runFiles = readRunFiles(o.files, name);
    } catch (const MediaError& e) {
        throw MediaError(std::string("--run-file ") + e.what());
    }
    bytes = readFileBytes(o.program, adf::kImageBytes);
    hunks = readHunkFile(bytes, o.program, warnings);
    std::string args = o.args;
    for (auto& c : args)
        if (c == '\n' || c == '\r') c = ' ';
    volume.name = "CopperlineRun";
    volume.files.push_back({name, bytes});
    volume.files.push_back({kRunnerName, {kRunnerProgram, kRunnerProgram + kRunnerProgramSize}});
    const std::string script = std::string(":") + kRunnerName + " \":" + name + "\" " + args + "\n";
    volume.files.push_back({"S/Startup-Sequence", {script.begin(), script.end()}});
    if (!o.then.empty()) {
        std::string lines;
        for (std::string line : o.then) {
            for (auto& c : line)
                if (c == '\n' || c == '\r') c = ' ';
            lines += line + "\n";
        }
        if (lines.size() > kMaxThenBytes)
            throw MediaError("--run-then: the command lines come to " + std::to_string(lines.size()) +
                             " bytes; the loader reads at most " + std::to_string(kMaxThenBytes));
        volume.files.push_back({kThenName, {lines.begin(), lines.end()}});
    }
    std::size_t runFileBytes = 0;
    for (ofs::File& f : runFiles) {
        runFileBytes += f.data.size();
        volume.files.push_back(std::move(f));
    }
    try {
        return ofs::writeVolume(volume);
    } catch (const MediaError& e) {
        if (o.files.empty()) throw;
        throw MediaError(std::string(e.what()) + ": the " + std::to_string(o.files.size()) +
                         " --run-file file(s) come to " + std::to_string(runFileBytes) + " bytes, beside " +
                         name + "'s " + std::to_string(bytes.size()) + " and the loader's " +
                         std::to_string(kRunnerProgramSize));
    }
}

int stageRunDisk(Machine& machine, const RunOptions& o, HunkFile& hunks) {
    try {
        std::vector<std::string> warnings;
        AdfImage image = makeRunDisk(o, hunks, &warnings);
        if (o.verbose)
            for (const std::string& w : warnings)
                std::fprintf(stderr, "copperline: --run: %s: %s\n", o.program.c_str(), w.c_str());
        machine.connectDrive(o.drive, true);
        machine.insertDisk(o.drive, std::move(image));
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline: --run: %s\n", e.what());
        return exit_status::Usage;
    }
    return 0;
}
#endif

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
    const std::string name = diskName(o.program);
    if (const int staged = stageRunDisk(machine, o, hunks)) {
        report.status = staged;
        return report;
    }

    // Debug information names the place of a crash; a program without it still runs.
    std::optional<DebugInfo> debugInfo;
    try {
        debugInfo = DebugInfo::load(o.program);
    } catch (const MediaError& e) {
        if (o.verbose)
            std::fprintf(stderr, "copperline: --run: no debug information: %s\n", e.what());
    }
    const DebugInfo* info = debugInfo ? &*debugInfo : nullptr;

    RunObserver observer(machine, report);
    machine.guestApi().setLogSink([](const GuestApi::LogMessage& m) {
        // A refused uaelib call is the host's line, the rest the guest's own.
        std::fprintf(stderr, m.refused ? "copperline: %s\n" : "copperline: guest: %s\n",
                     m.text.c_str());
    });
    // The program's warp (uaelib "cpu_speed max", Bartman's warpmode(1)): a headless run is
    // unpaced already; said once.
    bool warpNoted = false;
    machine.guestApi().setWarpHandler([&warpNoted](bool on, const std::string& how) {
        if (warpNoted) return;
        warpNoted = true;
        std::fprintf(stderr, "copperline: uaelib: the program asks for warp %s (%s): a headless run is unpaced already\n",
                     on ? "on" : "off", how.c_str());
    });
    // Then: PROG returned and the loader runs the --run-then lines.
    enum class Phase { Booting, Loaded, LoadFailed, Then, Exited } phase = Phase::Booting;
    std::uint32_t dosBase = 0, output = 0, ioErr = 0, rc = 0, runError = 0;
    // What exec had free when the loader last failed (RunEvent::Memory).
    FreeMemory freeMemory;
    machine.guestApi().setRunHandler([&](const GuestApi::RunMessage& m) {
        switch (m.event) {
        case GuestApi::RunEvent::Memory:
            freeMemory = {m.a, m.b};
            break;
        case GuestApi::RunEvent::Started:
            dosBase = m.a;
            output = m.b;
            break;
        case GuestApi::RunEvent::Loaded: {
            // The segment list LoadSeg returned: each hunk's first byte follows its link.
            report.hunkBases = segmentBases(machine, m.a, unsigned(hunks.sections.size()));
            report.loadedAt = machine.emulatedSeconds();
            report.hostBootSeconds = hostNow();
            observer.watch(dosBase, output, report.hunkBases, hunks);
            machine.attachCpuObserver(&observer, m68k::kHookBefore | m68k::kHookException);
            phase = Phase::Loaded;
            break;
        }
        case GuestApi::RunEvent::LoadFailed:
            if (phase == Phase::Then) {
                std::fprintf(stderr,
                             "copperline: --run-then: AmigaDOS could not load the command of line "
                             "%u (IoErr %u)\n",
                             m.b, m.a);
                break;
            }
            ioErr = m.a;
            phase = Phase::LoadFailed;
            break;
        case GuestApi::RunEvent::Exited:
            rc = m.a;
            runError = m.b;
            report.returnedAt = machine.emulatedSeconds();
            if (o.onReturn) o.onReturn();
            if (o.then.empty()) {
                machine.detachCpuObserver(&observer);
                phase = Phase::Exited;
            } else {
                // The output of the commands after it is mirrored too; crashes still end the run.
                observer.forgetProgram();
                phase = Phase::Then;
            }
            break;
        case GuestApi::RunEvent::ThenLoaded: {
            std::vector<std::uint32_t> bases = segmentBases(machine, m.a, 256);
            if (o.verbose)
                for (std::size_t i = 0; i < bases.size(); ++i)
                    std::fprintf(stderr, "copperline: --run-then line %u: hunk %zu at $%06X\n",
                                 m.b + 1, i, bases[i]);
            report.thenHunkBases.push_back(std::move(bases));
            break;
        }
        case GuestApi::RunEvent::Finished:
            if (phase == Phase::Then) {
                machine.detachCpuObserver(&observer);
                phase = Phase::Exited;
            }
            break;
        }
    });

    auto finish = [&](int status) {
        machine.detachCpuObserver(&observer);
        machine.guestApi().setRunHandler({});
        machine.guestApi().setLogSink({});
        machine.guestApi().setWarpHandler({});
        for (const auto& [what, count] : machine.guestApi().refusalCounts())
            if (count > 1)
                std::fprintf(stderr, "copperline: %s (%llu times)\n", what.c_str(),
                             static_cast<unsigned long long>(count));
        report.status = status;
        report.endedAt = machine.emulatedSeconds();
        report.hostRunSeconds = hostNow() - report.hostBootSeconds;
        return report;
    };

    bool started = false, ended = false;
    std::size_t nextShot = 0;
    while (true) {
        if (phase == Phase::Exited) break;
        if (phase == Phase::Then && started && o.onEnd && !ended) {
            // The program's end for a capture: the frame it returned in, complete, before the
            // commands after it run on.
            machine.runFrame();
            o.onEnd(true);
            ended = true;
            continue;
        }
        if (phase == Phase::Loaded && !started && o.onStart && !report.hunkBases.empty()) {
            // Stand on the program's first instruction (hunk 0, offset 0): RunCommand reaches
            // it a few hundred instructions after LoadSeg returned.
            const std::uint64_t limit = machine.frame() + 50;
            const std::uint32_t entry = report.hunkBases[0];
            while (phase == Phase::Loaded && ((machine.cpu().pc() - 4) & 0xFFFFFF) != entry &&
                   !observer.crash() && !machine.halted() && machine.frame() < limit)
                machine.stepInstruction();
            started = true;
            if (phase == Phase::Loaded && ((machine.cpu().pc() - 4) & 0xFFFFFF) == entry) {
                const std::string error = o.onStart(report.hunkBases);
                if (!error.empty()) {
                    std::fprintf(stderr, "copperline: %s\n", error.c_str());
                    return finish(run_status::EmulatorError);
                }
            }
            continue;
        }
        if (const auto& crash = observer.crash()) {
            const m68k::ExceptionInfo& e = crash->exception;
            // After PROG returned its hunks are freed: an address there is not its code.
            const bool then = phase == Phase::Then;
            const std::string who = then ? "a --run-then command" : name;
            const std::string at = then ? where(crash->instructionPc, RunReport{}, hunks, nullptr)
                                        : where(crash->instructionPc, report, hunks, info);
            if (then)
                std::fprintf(stderr, "copperline: %s returned %d\n", name.c_str(), std::int32_t(rc));
            std::fprintf(stderr,
                         "copperline: %s crashed: %s at %s, %.2f emulated s after %s was loaded\n"
                         "copperline: the exception frame holds PC $%06X and SR $%04X\n",
                         who.c_str(), exceptionName(e.vector).c_str(), at.c_str(),
                         machine.emulatedSeconds() - report.loadedAt, name.c_str(),
                         e.pushedPc & 0xFFFFFF, e.pushedSr);
            return finish(run_status::Crashed);
        }
        if (machine.halted()) {
            std::fprintf(stderr,
                         "copperline: the CPU halted (double bus fault) at PC $%06X after %.2f s\n",
                         machine.cpu().registers().pc, machine.emulatedSeconds());
            return finish(run_status::EmulatorError);
        }
        if (phase == Phase::LoadFailed && ioErr == kNoFreeStore) {
            std::fprintf(stderr, "copperline: %s\ncopperline: %s\n",
                         noMemoryToLoad(name, freeMemory, loadBytes(hunks), hunks.sections.size()).c_str(),
                         kMoreMemoryHint);
            return finish(run_status::NoMemory);
        }
        if (phase == Phase::LoadFailed) {
            std::fprintf(stderr,
                         "copperline: AmigaDOS could not load %s (LoadSeg failed, IoErr %u)\n",
                         name.c_str(), ioErr);
            return finish(run_status::NeverLoaded);
        }
        if (const int sig = terminationSignal()) {
            std::fprintf(stderr, "copperline: stopped by signal %d after %.2f emulated s\n", sig,
                         machine.emulatedSeconds());
            return finish(128 + sig);
        }
        if (phase == Phase::Booting && machine.emulatedSeconds() >= o.loadTimeout) {
            std::fprintf(stderr, "copperline: %s was not loaded within %.0f emulated seconds\n",
                         name.c_str(), o.loadTimeout);
            return finish(run_status::NeverLoaded);
        }
        if ((phase == Phase::Loaded || phase == Phase::Then) && o.timeout > 0 &&
            machine.emulatedSeconds() - report.loadedAt >= o.timeout) {
            std::fprintf(stderr, "copperline: %s did not return within %g emulated seconds%s\n",
                         name.c_str(), o.timeout,
                         o.timeout == kDefaultRunTimeout
                             ? " (the default --timeout; --timeout SECONDS raises it, --timeout 0 "
                               "turns it off)"
                             : "");
            return finish(run_status::Timeout);
        }
        if ((phase == Phase::Loaded || phase == Phase::Then) && started && o.captureState) {
            // A failed capture ends the run whatever else waits; a complete one when nothing
            // else needs the program's return.
            const RunOptions::CaptureState state = o.captureState();
            if (state == RunOptions::CaptureState::Failed) return finish(run_status::EmulatorError);
            if (state == RunOptions::CaptureState::Done && o.endWithCapture && nextShot == o.screenshots.size())
                return finish(0);
        }
        if (!o.screenshots.empty()) {
            while (nextShot < o.screenshots.size() && machine.emulatedSeconds() >= o.screenshots[nextShot].first) {
                if (!writeScreenshotNow(machine, o.screenshots[nextShot].second, o.screenshotOverlay))
                    return finish(run_status::EmulatorError);
                ++nextShot;
            }
            // The last picture bounds a program that does not return.
            if (nextShot == o.screenshots.size()) {
                if (phase == Phase::Booting) {
                    std::fprintf(stderr, "copperline: %s was not loaded by the last --screenshot-after (%g s)\n",
                                 name.c_str(), o.screenshots.back().first);
                    return finish(run_status::NeverLoaded);
                }
                if (o.verbose)
                    std::fprintf(stderr, "copperline: %s still running at the last --screenshot-after: the run ends\n",
                                 name.c_str());
                rc = 0;
                break;
            }
        }
        machine.runFrame();
    }
    if (started && o.onEnd && !ended) {
        // The frame the program returned in (or the run ended in), complete, so that a
        // capture records it.
        machine.runFrame();
        o.onEnd(phase == Phase::Then || phase == Phase::Exited);
    }
    if (rc == 0xFFFFFFFFu && runError == kNoFreeStore) {
        // RunCommand could not start PROG: no memory for its stack.
        std::fprintf(stderr, "copperline: %s\ncopperline: %s\n", noMemoryToRun(name, freeMemory).c_str(),
                     kMoreMemoryHint);
        finish(run_status::NoMemory);
        return report;
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
                     report.loadedAt, report.hostBootSeconds,
                     (report.returnedAt > 0 ? report.returnedAt : report.endedAt) - report.loadedAt,
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
         "it was loaded (default 60; 0: no limit; exit status 124).",
         "SECONDS"});
    parser.addOption(
        {"load-timeout",
         "--run: give up when the program is not loaded SECONDS emulated seconds after "
         "power-on (default 60; exit status 126).",
         "SECONDS"});
    parser.addOption(
        {"run-then",
         "--run: after the program returned, run the AmigaDOS command line CMD in the same shell "
         "(repeatable, in order; ':NAME' is a file of the run disk, PROG included). The run ends "
         "when the last has returned; the exit status stays the program's.",
         "CMD"});
    parser.addOption(
        {"run-file",
         "--run: put FILE on the run disk too, in its root under its own name, so that the "
         "program can open or LoadSeg ':NAME' (repeatable; a name taken on the disk is refused).",
         "FILE"});
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
    for (unsigned n = 0; n < 4; ++n) {
        try {
            const std::string said = writeBackFloppy(machine, n, {session.paths[n], session.writeback[n]});
            if (!said.empty() && !session.writeback[n]) std::fprintf(stderr, "copperline: %s\n", said.c_str());
        } catch (const MediaError& e) {
            std::fprintf(stderr, "copperline: DF%u: %s\n", n, e.what());
            return run_status::EmulatorError;
        }
    }
    return 0;
}

std::function<AdfImage(const Emulator::Options::RunDisk&)> runDiskBuilder() {
#ifndef COPPERLINE_HAVE_RUNNER
    return {};
#else
    return [](const Emulator::Options::RunDisk& request) {
        RunOptions o;
        o.program = request.program;
        o.args = request.args;
        o.files = request.files;
        HunkFile hunks;
        return makeRunDisk(o, hunks, nullptr);
    };
#endif
}

int stageControlledRun(const QCommandLineParser& parser, Machine& machine, const MediaSession& session) {
#ifndef COPPERLINE_HAVE_RUNNER
    (void)parser;
    (void)machine;
    (void)session;
    std::fprintf(stderr, "copperline: --run needs the 68000 guest toolchain at build time "
                         "(COPPERLINE_BUILD_GUEST)\n");
    return exit_status::Usage;
#else
    for (const char* headlessOnly : {"timeout", "load-timeout", "profile", "coverage", "run-verbose"})
        if (parser.isSet(headlessOnly)) {
            std::fprintf(stderr,
                         "copperline: --%s goes with a headless --run; under --control the client "
                         "runs the program (it stops at its first instruction, reason loadseg)\n",
                         headlessOnly);
            return exit_status::Usage;
        }
    RunOptions o;
    o.program = parser.value("run").toStdString();
    o.args = parser.value("run-args").toStdString();
    for (const QString& line : parser.values("run-then")) o.then.push_back(line.toStdString());
    for (const QString& file : parser.values("run-file")) o.files.push_back(file.toStdString());
    o.drive = session.paths[0].empty() ? 0 : 1;
    HunkFile hunks;
    return stageRunDisk(machine, o, hunks);
#endif
}

int runFromCommandLine(const QCommandLineParser& parser, Machine& machine, const HeadlessOptions& headless,
                       const MediaSession& session, bool printSpeed) {
    RunOptions o;
    for (const auto& shot : headless.screenshots) o.screenshots.emplace_back(shot.seconds, shot.path);
    std::stable_sort(o.screenshots.begin(), o.screenshots.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    o.screenshotOverlay = headless.screenshotOverlay;
    o.program = parser.value("run").toStdString();
    o.args = parser.value("run-args").toStdString();
    o.verbose = parser.isSet("run-verbose");
    for (const QString& line : parser.values("run-then")) o.then.push_back(line.toStdString());
    for (const QString& file : parser.values("run-file")) o.files.push_back(file.toStdString());
    o.printSpeed = printSpeed;
    // The user's own disk boots from DF0; ours waits in DF1.
    o.drive = session.paths[0].empty() ? 0 : 1;
    if (parser.isSet("timeout")) {
        bool ok = false;
        const double s = parser.value("timeout").toDouble(&ok);
        if (!ok || s < 0 || !std::isfinite(s)) {
            std::fprintf(stderr,
                         "copperline: --timeout wants a number of emulated seconds, not '%s' "
                         "(--timeout 0 runs "
                         "without a limit)\n",
                         qPrintable(parser.value("timeout")));
            return exit_status::Usage;
        }
        o.timeout = s;
    }
    if (parser.isSet("load-timeout")) {
        bool ok = false;
        const double s = parser.value("load-timeout").toDouble(&ok);
        if (!ok || s <= 0 || !std::isfinite(s)) {
            std::fprintf(
                stderr, "copperline: --load-timeout wants a positive number of seconds, not '%s'\n",
                qPrintable(parser.value("load-timeout")));
            return exit_status::Usage;
        }
        o.loadTimeout = s;
    }
    RunProfiler profiler;
    if (parser.isSet("profile"))
        if (const int rc = profiler.configure(parser, machine, o)) return rc;
    RunCoverage coverage;
    if (parser.isSet("coverage"))
        if (const int rc = coverage.configure(parser, machine, o)) return rc;
    const RunReport r = runProgram(machine, o);
    const int covered = coverage.finish(r);
    const int media = finishFloppies(machine, session);
    return media ? media : covered ? covered : r.status;
}

} // namespace copperline
