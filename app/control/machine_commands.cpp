// SPDX-License-Identifier: GPL-3.0-or-later
// The machine commands of the one vocabulary (docs/control-protocol.md has a page for
// each). Every handler runs on the emulator thread. A handler checks all its parameters
// before it changes anything, so a failed command leaves the machine as it was.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "app/version.h"
#include "emu/cpu/disasm/disasm.h"
#include "emu/hex.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/memory_view.h"
#include "profiler/capture/overlay.h"
#include "profiler/capture/screenshot.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>

namespace copperline {

// What an address is, as symbols.resolve says it (symbol_commands.cpp).
std::function<nlohmann::json(std::uint32_t)> symbolResolver(Emulator::Impl& e);

namespace {

using nlohmann::json;
namespace p = params;

constexpr int kProtocolVersion = 1;
constexpr std::uint64_t kMaxReadBytes = 1u << 20;     // mem.read: 1 MiB per call
constexpr std::uint64_t kMaxSteps = 1'000'000;
constexpr std::uint64_t kMaxFrames = 1'000'000;
// step_over and step_out give up after this many instructions (the Rust Copperline's
// bound), or when the CPU waits in STOP this many frames after they began.
constexpr std::uint64_t kMaxStepOverInstructions = 5'000'000;
constexpr std::uint64_t kMaxStepOverFrames = 1500; // 30 PAL seconds

// step_over and step_out are a bounded step resume (Target::Steps, reason "budget") that
// this observer ends early: once the routine has returned it leaves the resume one step
// to go, which is the step it is watching, and names the stop "step". It is attached for
// the one resume and detached at its stop, whatever ended it (a breakpoint, a pause).
// Code in user mode runs on its task's own stack, so there a return counts only in the
// task that was running (exec's ThisTask) when the step began: another task's stack may
// lie anywhere. In supervisor mode there is one stack, and its depth says enough.
class ReturnWatch final : public m68k::Observer {
public:
    explicit ReturnWatch(Emulator::Impl& e) : e_(e) {}

    // step_over: the call at the pc returns to `next` with the stack pointer of the mode
    // it was made in back at `sp` (or above it, when the callee popped more).
    void armOver(std::uint32_t next, std::uint32_t sp, bool supervisor) {
        arm(Mode::Over, next, sp, supervisor);
    }
    // step_out: the first RTS, RTR or RTE, in the mode the routine runs in, that pops its
    // return address from `sp` or above: the current routine's return, not a callee's.
    void armOut(std::uint32_t sp, bool supervisor) { arm(Mode::Out, 0, sp, supervisor); }

    void disarm() {
        if (!armed_) return;
        armed_ = false;
        e_.machine->detachCpuObserver(this);
    }

    void beforeInstruction(const m68k::InstructionInfo& i, const m68k::Registers& r) override {
        if (!armed_ || mode_ != Mode::Out || bool(r.sr & 0x2000) != supervisor_) return;
        std::uint32_t popsFrom = 0;
        switch (i.opcode) {
        case 0x4E75: popsFrom = r.a[7]; break;     // RTS: the pc at (sp)
        case 0x4E77:                               // RTR: the ccr, then the pc
        case 0x4E73: popsFrom = r.a[7] + 2; break; // RTE: the sr, then the pc
        default: return;
        }
        if (popsFrom >= sp_ && inTask()) finish();
    }

    void instructionRetired(const m68k::RetireInfo&) override {
        if (!armed_ || mode_ != Mode::Over) return;
        const auto& cpu = e_.machine->cpu();
        if (cpu.instructionAddress() != next_) return;
        const auto r = cpu.registers();
        const bool supervisor = r.sr & 0x2000;
        if (supervisor != supervisor_ || r.a[7] < sp_) return; // a deeper call came back here
        if (inTask()) finish();
    }

private:
    enum class Mode { Over, Out };

    void arm(Mode mode, std::uint32_t next, std::uint32_t sp, bool supervisor) {
        mode_ = mode;
        next_ = next;
        sp_ = sp;
        supervisor_ = supervisor;
        task_.reset();
        if (!supervisor) {
            const ExecTaskFields exec = readExecTaskFields(MachineMemoryView(*e_.machine));
            if (exec.exec && exec.taskPlausible) task_ = exec.thisTask;
        }
        armed_ = true;
        e_.machine->attachCpuObserver(this, m68k::kHookBefore | m68k::kHookRetire);
    }

    // Whether the task the step began in runs (always, where exec cannot be read then).
    bool inTask() const {
        if (!task_) return true;
        const ExecTaskFields exec = readExecTaskFields(MachineMemoryView(*e_.machine));
        return exec.exec && exec.thisTask == *task_;
    }

    // The step under way is the resume's last.
    void finish() {
        if (e_.target.kind != Emulator::Impl::Target::Kind::Steps) return;
        e_.target.count = 1;
        e_.target.reason = "step";
    }

    Emulator::Impl& e_;
    bool armed_ = false;
    Mode mode_ = Mode::Over;
    std::uint32_t next_ = 0, sp_ = 0;
    bool supervisor_ = false;
    std::optional<std::uint32_t> task_; // ThisTask, for a step begun in user mode
};

// The instructions step_over runs as one: BSR, JSR, TRAP #n and the line A and line F
// words, whose handlers (an emulator's, a debugger's) return past them.
bool isCall(const DisasmResult& d, std::uint16_t opcode) {
    if (d.flow == Flow::Call) return true;
    if (d.flow != Flow::Trap) return false;
    return (opcode & 0xFFF0) == 0x4E40 || (opcode & 0xF000) == 0xA000 ||
           (opcode & 0xF000) == 0xF000;
}

// How far past a jump-table function's first instruction the disassembly still names it.
// The ROM's functions are known by their entries alone; code further on is more likely
// the ROM's own internals between them than the function (exec's are well under this).
constexpr std::uint32_t kRomFunctionReach = 0x1000;

// A symbol as the disassembly shows it: "exec.library/AllocMem" in ROM, the function's
// name in the --run program; nothing where the resolver knows no function. `offset` is
// from the function's start.
struct Named {
    std::string name;
    std::uint32_t offset = 0;
};
std::optional<Named> symbolName(const json& resolved) {
    if (!resolved["module"].is_string() || !resolved.contains("function")) return std::nullopt;
    Named n;
    if (resolved.contains("name")) {
        // System code, by the one naming every report uses ("[Kick]exec/AllocMem").
        n.name = resolved["name"].get<std::string>();
        // A jump table's slot is the JMP that leads to the function, not the function.
        if (resolved.value("jump_table", false)) n.name += " (jump table)";
        n.offset = resolved.value("offset", 0u);
        if (n.offset >= kRomFunctionReach) return std::nullopt;
    } else {
        if (!resolved.contains("function_offset")) return std::nullopt;
        n.name = resolved["function"].get<std::string>();
        n.offset = resolved["function_offset"].get<std::uint32_t>();
    }
    return n;
}

json regsJson(const CpuRegisters& r) {
    static constexpr const char* dn[8] = {"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"};
    static constexpr const char* an[8] = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"};
    json out = json::object();
    for (std::size_t i = 0; i < 8; ++i)
        out[dn[i]] = r.d[i];
    for (std::size_t i = 0; i < 8; ++i)
        out[an[i]] = r.a[i];
    out["usp"] = r.usp;
    out["ssp"] = r.ssp;
    out["pc"] = r.pc;
    out["sr"] = r.sr;
    return out;
}

} // namespace

void requirePaused(const Emulator::Impl& e, const char* what, bool resume) {
    if (resume && e.running && !e.stopWaiters.empty())
        fail(errc::ResumePending,
             std::string(what) + ": a resume already waits for the machine to stop");
    if (e.running)
        fail(errc::InvalidState, std::string(what) + ": the machine is running; pause it first");
}

// The debugger may write RAM only: chip RAM (and its mirrors) and slow RAM.
bool isRam(const Machine& m, std::uint32_t a) {
    a &= 0xFFFFFF;
    if (a < 0x200000) return true;
    if (const std::uint32_t fast = m.fastRamBase(); fast && a >= fast && a - fast < m.fastRam().size()) return true;
    return a >= 0xC00000 && a < 0xC00000 + m.config().slowRamBytes;
}

void registerMachineCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    // ---- session -------------------------------------------------------------------------
    bus.add("hello", "The protocol version and the emulator's name and version.", [](const json&) {
        return json{{"proto", kProtocolVersion}, {"emulator", "Copperline"}, {"version", kVersion}};
    });
    bus.add("version", "The emulator's name and version.", [](const json&) {
        return json{{"name", "Copperline"}, {"version", kVersion}};
    });
    bus.add("methods", "Every method with its one-line summary and the parameters it takes.",
            [&bus](const json&) {
                json out = json::array();
                for (const auto& n : bus.names())
                    out.push_back(
                        {{"name", n}, {"summary", bus.summary(n)}, {"params", bus.params(n)}});
                return json{{"methods", out}};
            });
    bus.add("ping", "Answers {} once the commands sent before it have run.",
            [](const json&) { return json::object(); });
    bus.add("status", "Running or paused, where the beam and the CPU are, and the speed.",
            [&e](const json&) { return e.status(); });
    bus.add("quit", "Ends the emulator after this reply.", [&e](const json&) {
        {
            std::lock_guard lock(e.queueMutex);
            if (!e.quitHandler) fail(errc::Unsupported, "quit: this session has no way to quit");
        }
        // The handler runs once the reply is on its way (Impl::execute).
        e.quitRequested = true;
        return json{{"quitting", true}};
    });

    // ---- execution -----------------------------------------------------------------------
    bus.add("pause", "Stops the machine; replies with the stop event (reason \"pause\").",
            [&e](const json&) {
                if (!e.running) {
                    json s = e.position();
                    s["reason"] = "pause";
                    s["detail"] = {{"already_paused", true}};
                    return s;
                }
                e.stopRun("pause");
                json s = e.position();
                s["reason"] = "pause";
                return s;
            });
    bus.add("continue", "Runs until a breakpoint, a pause or a quit; {wait:false} replies at once.",
            {"wait"}, [&e](const json& p) {
                const bool wait = p::boolean(p, "wait", true);
                if (e.machine->halted())
                    fail(errc::InvalidState, "continue: the CPU has halted; reset the machine");
                if (!e.running) {
                    e.resume({});
                } else if (wait) {
                    // One resume at a time: joining a step's or a run_until's stop would
                    // answer this continue with somebody else's target.
                    if (!e.stopWaiters.empty())
                        fail(errc::ResumePending,
                             "continue: a resume already waits for the machine to stop");
                    e.deferReply = true;
                }
                if (!wait) {
                    e.deferReply = false;
                    return e.status();
                }
                return json();
            });
    bus.add("step", "Runs n instructions (default 1, at most 1e6); replies with the stop event.",
            {"n"}, [&e](const json& p) {
                const auto n = p::optionalNumber(p, "n", kMaxSteps).value_or(1);
                if (n == 0) fail(errc::InvalidParams, "n: must be at least 1");
                requirePaused(e, "step");
                Emulator::Impl::Target t;
                t.kind = Emulator::Impl::Target::Kind::Steps;
                t.count = n;
                t.frame = e.machine->frame() + 2;
                t.reason = "step";
                e.resume(t);
                return json();
            });
    // step_over and step_out share one observer; the stop ends its watch.
    auto watch = std::make_shared<ReturnWatch>(e);
    {
        std::lock_guard lock(e.listenerMutex);
        e.listeners.emplace(e.nextListener++, [watch](const std::string& method, const json&) {
            if (method == "event.stopped") watch->disarm();
        });
    }
    // The bounded resume both run, reason "budget" unless the watch ends it first.
    const auto boundedStep = [&e]() {
        Emulator::Impl::Target t;
        t.kind = Emulator::Impl::Target::Kind::Steps;
        t.count = kMaxStepOverInstructions;
        t.frame = e.machine->frame() + kMaxStepOverFrames;
        t.reason = "budget";
        return t;
    };
    bus.add("step_over",
            "Steps one instruction, a call (BSR, JSR, TRAP, line A/F) as one: runs until the "
            "instruction after it at the same stack depth (at most 5e6 instructions); replies "
            "with the stop event.",
            [&e, watch, boundedStep](const json&) {
                requirePaused(e, "step_over");
                auto& cpu = e.machine->cpu();
                const std::uint32_t pc = cpu.instructionAddress();
                const Machine& m = *e.machine;
                const DisasmResult d =
                    disassemble(pc, [&m](std::uint32_t a) { return m.spyWord(a & 0xFFFFFF); });
                Emulator::Impl::Target t;
                if (cpu.stopped() || !isCall(d, m.spyWord(pc))) {
                    // Anything else is one step, as `step` takes it.
                    t.kind = Emulator::Impl::Target::Kind::Steps;
                    t.count = 1;
                    t.frame = e.machine->frame() + 2;
                    t.reason = "step";
                } else {
                    const auto r = cpu.registers();
                    t = boundedStep();
                    watch->armOver((pc + d.length) & 0xFFFFFF, r.a[7], r.sr & 0x2000);
                }
                e.resume(t);
                return json();
            });
    bus.add("step_out",
            "Runs until the current routine returns: the RTS, RTR or RTE that pops a return "
            "address at or above the stack pointer (at most 5e6 instructions); from an inlined "
            "call, until the pc leaves it. Replies with the stop event.",
            [&e, watch, boundedStep](const json& params) {
                requirePaused(e, "step_out");
                // From an inlined call: until the PC leaves it (its frame has no return).
                if (armInlineFinish(e, params)) return json();
                const auto r = e.machine->cpu().registers();
                watch->armOut(r.a[7], r.sr & 0x2000);
                e.resume(boundedStep());
                return json();
            });
    bus.add("step_frame",
            "Runs n frames (default 1); stops at the first instruction of the next frame.", {"n"},
            [&e](const json& p) {
                const auto n = p::optionalNumber(p, "n", kMaxFrames).value_or(1);
                if (n == 0) fail(errc::InvalidParams, "n: must be at least 1");
                requirePaused(e, "step_frame");
                Emulator::Impl::Target t;
                t.kind = Emulator::Impl::Target::Kind::Frame;
                t.frame = e.machine->frame() + n;
                t.reason = "step";
                e.resume(t);
                return json();
            });
    bus.add("run_until",
            "Runs until the pc, the frame, the beam position {vpos, hpos}, or a pc outside "
            "pc_outside {start, end} (end excluded); exactly one.",
            {"pc", "frame", "vpos", "hpos", "pc_outside"}, [&e](const json& p) {
                const auto pc = p::optionalNumber(p, "pc", 0xFFFFFF);
                const auto frame = p::optionalNumber(p, "frame", ~0ull);
                const auto vpos = p::optionalNumber(p, "vpos", 313);
                const auto hpos = p::optionalNumber(p, "hpos", 227);
                std::optional<std::pair<std::uint32_t, std::uint32_t>> outside;
                if (p.contains("pc_outside")) {
                    const json& r = p["pc_outside"];
                    if (!r.is_object())
                        fail(errc::InvalidParams, "pc_outside: expected {start, end}, the range the pc stays in");
                    const auto start = std::uint32_t(p::number(r, "start", 0x1000000));
                    const auto end = std::uint32_t(p::number(r, "end", 0x1000000));
                    if (end <= start) fail(errc::InvalidParams, "pc_outside: end must be above start");
                    outside.emplace(start, end);
                }
                if (int(pc.has_value()) + int(frame.has_value()) + int(vpos.has_value()) + int(outside.has_value()) !=
                    1)
                    fail(errc::InvalidParams,
                         "run_until: give exactly one of pc, frame, vpos (with hpos) or pc_outside");
                if (hpos && !vpos) fail(errc::InvalidParams, "run_until: hpos needs vpos");
                if (pc && (*pc & 1))
                    fail(errc::InvalidParams, "pc: instructions sit at even addresses");
                requirePaused(e, "run_until");
                using K = Emulator::Impl::Target::Kind;
                Emulator::Impl::Target t;
                t.reason = "target";
                if (pc) {
                    t.kind = K::Pc;
                    t.pc = std::uint32_t(*pc);
                } else if (outside) {
                    t.kind = K::PcOutside;
                    t.rangeStart = outside->first;
                    t.rangeEnd = outside->second;
                } else if (frame) {
                    if (*frame <= e.machine->frame()) {
                        json s = e.position();
                        s["reason"] = "target";
                        s["detail"] = {{"already_there", true}};
                        return s;
                    }
                    t.kind = K::Frame;
                    t.frame = *frame;
                } else {
                    t.kind = K::Beam;
                    t.beam = unsigned(*vpos) * 256 + unsigned(hpos.value_or(0));
                    const auto& a = e.machine->agnus();
                    const unsigned here = unsigned(a.vpos()) * 256 + a.hpos();
                    // The next time the beam gets there: this frame if it has not yet, else the
                    // next.
                    t.frame = e.machine->frame() + (here < t.beam ? 0 : 1);
                }
                e.resume(t);
                return json();
            });
    bus.add("machine.reset",
            "Resets the machine: {kind: \"warm\"} (the RESET line) or \"cold\" (power).", {"kind"},
            [&e](const json& p) {
                const std::string kind = p::optionalString(p, "kind").value_or("warm");
                if (kind == "warm") {
                    e.machine->reset();
                    // A reset starts a new record: the past before it is another timeline.
                    e.record->restart();
                } else if (kind == "cold") {
                    e.powerCycle();
                } else {
                    fail(errc::InvalidParams, "kind: expected \"warm\" or \"cold\"");
                }
                json s = e.status();
                s["reset"] = kind;
                return s;
            });

    bus.add("machine.memory",
            "The machine's memory in bytes: {chip, slow, fast} (any left out keeps its size); a "
            "change power-cycles the machine. Without parameters, the sizes as they are.",
            {"chip", "slow", "fast"}, [&e](const json& p) {
                Machine::Config c = e.machine->config();
                const auto size = [&p](const char* key, std::uint32_t now, std::initializer_list<std::uint32_t> allowed,
                                       const char* says) {
                    const auto v = p::optionalNumber(p, key, 16u << 20);
                    if (!v) return now;
                    for (const std::uint32_t a : allowed)
                        if (*v == a) return a;
                    fail(errc::InvalidParams, std::string(key) + ": " + says);
                };
                constexpr std::uint32_t K = 1024;
                c.chipRamBytes = size("chip", c.chipRamBytes, {512 * K, 1024 * K, 2048 * K},
                                      "chip RAM is 524288, 1048576 or 2097152 bytes (512K, 1M, 2M)");
                c.slowRamBytes = size("slow", c.slowRamBytes, {0, 512 * K, 1024 * K, 1536 * K},
                                      "slow RAM is 0, 524288, 1048576 or 1572864 bytes (up to 1.5M at $C00000)");
                c.fastRamBytes = size("fast", c.fastRamBytes,
                                      {0, 64 * K, 128 * K, 256 * K, 512 * K, 1024 * K, 2048 * K, 4096 * K, 8192 * K},
                                      "fast RAM is 0 or a power of two from 65536 to 8388608 bytes (a Zorro II board)");
                const bool change = !Machine::sameConfig(c, e.machine->config());
                if (!p.is_null() && !p.empty()) e.memoryChosen = true;
                if (change) {
                    e.machine->reconfigure(c);
                    e.powerCycle();
                }
                const Machine::Config& now = e.machine->config();
                return json{{"chip", now.chipRamBytes}, {"slow", now.slowRamBytes}, {"fast", now.fastRamBytes},
                            {"power_cycled", change}};
            });

    // ---- inspection ----------------------------------------------------------------------
    bus.add("regs.get", "The CPU's registers; pc is the address of the next instruction.",
            [&e](const json&) { return regsJson(e.registers()); });
    bus.add("regs.set",
            "Sets one register: {reg: \"d0\"..\"a7\", \"sp\", \"usp\", \"ssp\", \"pc\", \"sr\", "
            "\"ccr\", value}.",
            {"reg", "value"}, [&e](const json& p) {
                const std::string reg = p::string(p, "reg");
                const auto value = std::uint32_t(p::number(p, "value"));
                auto& cpu = e.machine->cpu();
                auto r = cpu.registers();
                const bool super = r.sr & 0x2000;
                std::uint32_t usp = super ? r.usp : r.a[7];
                std::uint32_t ssp = super ? r.a[7] : r.ssp;
                std::uint32_t pc = cpu.instructionAddress();
                std::uint16_t sr = r.sr;
                if (reg.size() == 2 && (reg[0] == 'd' || reg[0] == 'a') && reg[1] >= '0' &&
                    reg[1] <= '7') {
                    const unsigned i = unsigned(reg[1] - '0');
                    if (reg[0] == 'd')
                        r.d[i] = value;
                    else if (i < 7)
                        r.a[i] = value;
                    else
                        (super ? ssp : usp) = value;
                } else if (reg == "sp") {
                    (super ? ssp : usp) = value;
                } else if (reg == "usp") {
                    usp = value;
                } else if (reg == "ssp") {
                    ssp = value;
                } else if (reg == "pc") {
                    if (value & 1) fail(errc::InvalidParams, "value: the pc must be even");
                    pc = value & 0xFFFFFF;
                } else if (reg == "sr") {
                    if (value > 0xFFFF) fail(errc::InvalidParams, "value: sr is 16 bits");
                    sr = std::uint16_t(value & 0xA71F); // the 68000's implemented bits
                } else if (reg == "ccr") {
                    if (value > 0xFF) fail(errc::InvalidParams, "value: ccr is 8 bits");
                    sr = std::uint16_t((sr & 0xFF00) | (value & 0x1F));
                } else {
                    fail(errc::NotFound, "no register \"" + reg + "\"");
                }
                r.sr = sr;
                r.usp = usp;
                r.ssp = ssp;
                r.a[7] = (sr & 0x2000) ? ssp : usp;
                // The core's pc is its prefetch address: refill the queue from the instruction
                // address (a CPU waiting in STOP wakes and goes on after it).
                r.pc = pc + 4;
                r.ird = e.machine->spyWord(pc);
                r.irc = e.machine->spyWord(pc + 2);
                e.applyInput(MachineInput::setRegisters(r));
                return regsJson(e.registers());
            });
    bus.add("mem.read",
            "Reads {addr, len <= 1 MiB} without side effects, as hex (default) or base64.",
            {"addr", "len", "encoding"}, [&e](const json& p) {
                const auto addr = std::uint32_t(p::number(p, "addr", 0xFFFFFF));
                const auto len = p::optionalNumber(p, "len", kMaxReadBytes).value_or(1);
                const std::string encoding = p::optionalString(p, "encoding").value_or("hex");
                if (encoding != "hex" && encoding != "base64")
                    fail(errc::InvalidParams, "encoding: expected \"hex\" or \"base64\"");
                std::vector<std::uint8_t> bytes(len);
                std::size_t i = 0;
                const Machine& m = *e.machine;
                if (len && (addr & 1)) bytes[i++] = m.spyByte(addr);
                for (; i + 1 < len; i += 2) {
                    const std::uint16_t w = m.spyWord((addr + std::uint32_t(i)) & 0xFFFFFF);
                    bytes[i] = std::uint8_t(w >> 8);
                    bytes[i + 1] = std::uint8_t(w);
                }
                if (i < len) bytes[i] = m.spyByte((addr + std::uint32_t(i)) & 0xFFFFFF);
                return json{{"addr", addr},
                            {"len", len},
                            {"encoding", encoding},
                            {"data", p::encode(bytes, encoding)}};
            });
    bus.add("mem.write", "Writes {addr, data, encoding} to chip, slow or fast RAM; all or nothing.",
            {"addr", "data", "encoding"}, [&e](const json& p) {
                const auto addr = std::uint32_t(p::number(p, "addr", 0xFFFFFF));
                const std::string encoding = p::optionalString(p, "encoding").value_or("hex");
                const auto bytes = p::decode(p::string(p, "data"), encoding);
                if (bytes.size() > kMaxReadBytes)
                    fail(errc::InvalidParams, "data: at most 1 MiB per write");
                for (std::size_t i = 0; i < bytes.size(); ++i)
                    if (!isRam(*e.machine, addr + std::uint32_t(i))) {
                        char buf[64];
                        std::snprintf(buf, sizeof buf, "$%06X is not RAM; nothing was written",
                                      (addr + unsigned(i)) & 0xFFFFFF);
                        fail(errc::InvalidParams, buf);
                    }
                const auto written = bytes.size();
                e.applyInput(MachineInput::memory(addr, bytes));
                return json{{"addr", addr}, {"written", written}};
            });
    bus.add("disasm", "Disassembles {addr (default pc), count <= 256 (default 16)} instructions.",
            {"addr", "count"}, [&e](const json& p) {
                const auto addr = std::uint32_t(
                    p::optionalNumber(p, "addr", 0xFFFFFF).value_or(e.registers().pc));
                const auto count = std::uint32_t(p::optionalNumber(p, "count", 256).value_or(16));
                if (addr & 1) fail(errc::InvalidParams, "addr: instructions sit at even addresses");
                const Machine& m = *e.machine;
                const auto lines = disassembleRange(
                    addr, count, [&m](std::uint32_t a) { return m.spyWord(a & 0xFFFFFF); });
                const auto resolve = symbolResolver(e);
                json out = json::array();
                for (const auto& l : lines) {
                    std::vector<std::uint8_t> raw;
                    for (std::uint32_t i = 0; i < l.length; ++i)
                        raw.push_back(m.spyByte((l.address + i) & 0xFFFFFF));
                    json line = {{"addr", l.address},
                                 {"text", l.text},
                                 {"length", l.length},
                                 {"bytes", p::toHex(raw.data(), raw.size())},
                                 {"valid", l.valid}};
                    if (const auto n = symbolName(resolve(l.address))) {
                        line["symbol"] = n->name;
                        line["symbol_offset"] = n->offset;
                    }
                    if (l.hasTarget) {
                        line["target"] = l.target;
                        if (const auto n = symbolName(resolve(l.target)))
                            line["target_symbol"] =
                                n->offset ? n->name + "+" + hex(n->offset) : n->name;
                    }
                    out.push_back(std::move(line));
                }
                return json{{"instructions", out}};
            });
    bus.add("capture.screenshot",
            "Writes the last committed frame's display to {path} as PNG ({overwrite}); "
            "{overlays: [\"debug\"]} draws the guest's debug overlay over it.",
            {"path", "overwrite", "overlays"}, [&e](const json& p) {
                bool debugOverlay = false;
                if (const auto o = p.find("overlays"); o != p.end() && !o->is_null()) {
                    if (!o->is_array())
                        fail(errc::InvalidParams, "overlays: must be an array of names");
                    for (const auto& name : *o) {
                        if (name != "debug")
                            fail(errc::InvalidParams,
                                 "overlays: " + name.dump() +
                                     " is not provided (the one overlay is \"debug\")");
                        debugOverlay = true;
                    }
                }
                // The path last: every parameter is checked before the file system is asked.
                const std::string path = p::outputPath(p, "path");
                Image img = composeDisplay(*e.machine);
                if (debugOverlay) drawOverlay(img, e.machine->guestApi().committedOverlay());
                try {
                    writePng(path, img);
                } catch (const std::exception& ex) {
                    fail(errc::HostIo, ex.what());
                }
                return json{{"path", path},
                            {"width", img.width},
                            {"height", img.height},
                            {"frame", e.machine->lastField().frame}};
            });
}

} // namespace copperline
