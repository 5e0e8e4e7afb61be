// SPDX-License-Identifier: GPL-3.0-or-later
// copper.list (docs/control-protocol.md): a Copper list read out of chip RAM and decoded as
// the Copper would run it, with where the Copper stands in it this frame. The words are
// read as the Copper's DMA reads them (chip RAM, never the ROM overlay the CPU sees at
// $000000), without touching the bus; nothing here changes the machine.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/chipset/custom_regs.h"

#include <algorithm>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

constexpr std::uint64_t kMaxInstructions = 256;
// The Copper's pointers hold 21 bits (COPxLCH keeps 5): the most chip RAM an Agnus drives.
constexpr std::uint32_t kCopperSpace = 0x200000;

// The model's own state (copper.h), and what it means to a person.
const char* phaseName(Copper::State s) {
    switch (s) {
    case Copper::State::Idle: return "idle";
    case Copper::State::Fetch1: return "fetch1";
    case Copper::State::Fetch2: return "fetch2";
    case Copper::State::Wait: return "wait";
    case Copper::State::Skip: return "skip";
    case Copper::State::Wakeup: return "wakeup";
    case Copper::State::Jump1: return "jump1";
    case Copper::State::Jump2: return "jump2";
    case Copper::State::Halted: return "halted";
    case Copper::State::Restart: return "restart";
    }
    return "idle";
}
const char* stateName(Copper::State s) {
    switch (s) {
    case Copper::State::Idle: return "idle";
    case Copper::State::Fetch1:
    case Copper::State::Fetch2: return "fetching";
    case Copper::State::Wait: return "waiting";
    case Copper::State::Skip: return "skipping";
    case Copper::State::Wakeup: return "waking";
    case Copper::State::Jump1:
    case Copper::State::Jump2: return "jumping";
    case Copper::State::Halted: return "halted";
    case Copper::State::Restart: return "waiting_for_dma";
    }
    return "idle";
}

// The instruction the Copper is carrying out, or fetches next: the one a debugger marks.
// Its pc runs ahead of the instruction by the words fetched so far.
std::optional<std::uint32_t> currentInstruction(const Copper& c) {
    const std::uint32_t pc = c.pc();
    switch (c.state()) {
    case Copper::State::Idle: return std::nullopt;
    case Copper::State::Fetch1: return pc;
    case Copper::State::Fetch2: return pc - 2;
    case Copper::State::Wait:
    case Copper::State::Skip:
    case Copper::State::Wakeup:
    case Copper::State::Halted: return pc - 4;
    case Copper::State::Jump1:
    case Copper::State::Jump2: return c.jumpTarget();
    case Copper::State::Restart: return c.cop1lc();
    }
    return std::nullopt;
}

// Where the list the Copper runs now begins: the stretch it is in (its frame trace), the
// target of a jump under way, else COP1LC, where every frame starts.
std::uint32_t currentListStart(const Copper& c) {
    const auto& t = c.frameTrace();
    if (c.state() == Copper::State::Jump1 || c.state() == Copper::State::Jump2)
        return c.jumpTarget();
    if (c.state() == Copper::State::Restart) return c.cop1lc();
    if (t.known && t.runCount && !t.overflow) return t.runs[t.runCount - 1].start;
    return c.cop1lc();
}

} // namespace

void registerCopperCommands(Emulator::Impl& e) {
    e.bus.add(
        "copper.list",
        "A Copper list decoded: {list: 1|2|\"current\"} (default) or {addr}, at most {max} "
        "(1 to 256) instructions, with where the Copper stands in it this frame.",
        {"list", "addr", "max"}, [&e](const json& params) {
            const Copper& c = e.machine->copper();
            // Every parameter is read before anything is.
            const bool hasList = params.contains("list") && !params["list"].is_null();
            const auto addrParam = p::optionalNumber(params, "addr", 0xFFFFFF);
            if (hasList && addrParam)
                fail(errc::InvalidParams, "copper.list: give list or addr, not both");
            int list = 0; // 0: the current one
            if (hasList) {
                const json& l = params["list"];
                if (l.is_string() && l.get<std::string>() == "current")
                    list = 0;
                else if (l.is_number_integer() &&
                         (l.get<std::int64_t>() == 1 || l.get<std::int64_t>() == 2))
                    list = int(l.get<std::int64_t>());
                else
                    fail(errc::InvalidParams,
                         "list: expected 1, 2 or \"current\", not " + l.dump());
            }
            if (addrParam && (*addrParam & 1))
                fail(errc::InvalidParams, "addr: Copper instructions sit at even addresses");
            if (addrParam && *addrParam >= kCopperSpace)
                fail(errc::InvalidParams, "addr: the Copper reads chip RAM, $000000-$1FFFFF");
            const auto max = p::optionalNumber(params, "max", ~0ull).value_or(kMaxInstructions);
            if (max < 1 || max > kMaxInstructions)
                fail(errc::InvalidParams,
                     "max: from 1 to 256 instructions, not " + std::to_string(max));

            std::uint32_t start = 0;
            json listJson = nullptr;
            if (addrParam) {
                start = std::uint32_t(*addrParam);
            } else if (list == 1) {
                start = c.cop1lc();
            } else if (list == 2) {
                start = c.cop2lc();
            } else {
                start = currentListStart(c);
            }
            if (!addrParam) {
                if (list)
                    listJson = list;
                else if (start == c.cop1lc())
                    listJson = 1;
                else if (start == c.cop2lc())
                    listJson = 2;
            }

            const ChipRam& ram = e.machine->chipRam();
            const Copper::FrameTrace& trace = c.frameTrace();
            const auto current = currentInstruction(c);
            const auto fetched = [&trace](std::uint32_t a) {
                for (unsigned i = 0; i < trace.runCount; ++i)
                    if (a >= trace.runs[i].start && a + 4 <= trace.runs[i].end) return true;
                return false;
            };
            const auto skipped = [&trace](std::uint32_t a) {
                return std::find(trace.skipped.begin(), trace.skipped.begin() + trace.skippedCount,
                                 a) != trace.skipped.begin() + trace.skippedCount;
            };

            json instructions = json::array();
            const char* end = "max";
            std::uint32_t a = start;
            for (std::uint64_t n = 0; n < max; ++n, a = (a + 4) % kCopperSpace) {
                const std::uint16_t w1 = ram.readWord(a), w2 = ram.readWord(a + 2);
                json ins = {{"addr", a}, {"words", {w1, w2}}};
                bool last = false;
                if (!(w1 & 1)) {
                    const std::uint16_t r = w1 & 0x1FE;
                    const char* name = reg::name(r);
                    ins["op"] = "move";
                    ins["reg"] = r;
                    ins["reg_name"] = name ? json(name) : json(nullptr);
                    ins["value"] = w2;
                    // A MOVE to a protected register halts the Copper (COPCON's danger bit
                    // as it stands now); it runs nothing after it this frame.
                    const bool halts = !c.mayWrite(r);
                    ins["halts"] = halts;
                    if (halts) {
                        end = "halt";
                        last = true;
                    } else if (r == reg::COPJMP1 || r == reg::COPJMP2) {
                        // The strobe sends the Copper to the other list: what follows here
                        // is not what it runs next.
                        const int to = r == reg::COPJMP1 ? 1 : 2;
                        ins["jump"] = {{"list", to}, {"addr", to == 1 ? c.cop1lc() : c.cop2lc()}};
                        end = "jump";
                        last = true;
                    }
                    if (!reg::fields(r).empty()) ins["fields"] = registerFieldsJson(r, w2);
                } else {
                    // WAIT and SKIP: VP and HP in the first word; the second holds BFD, the
                    // vertical compare's mask (VP7 is always compared) and the horizontal one.
                    ins["op"] = (w2 & 1) ? "skip" : "wait";
                    ins["vpos"] = w1 >> 8;
                    ins["hpos"] = w1 & 0xFE;
                    ins["vmask"] = ((w2 >> 8) & 0x7F) | 0x80;
                    ins["hmask"] = w2 & 0xFE;
                    ins["bfd"] = (w2 & 0x8000) != 0;
                    if (w1 == 0xFFFF && w2 == 0xFFFE) {
                        // Line 255's last position can never be reached with every bit
                        // compared: the end every list carries.
                        ins["end"] = true;
                        end = "wait_ffff";
                        last = true;
                    }
                }
                const bool here = current && *current == a;
                ins["current"] = here;
                ins["skipped"] = trace.known && skipped(a);
                ins["executed"] = trace.known && !here && fetched(a) && !ins["skipped"].get<bool>();
                instructions.push_back(std::move(ins));
                if (last) break;
            }

            const Machine& m = *e.machine;
            const std::uint16_t dmacon = e.machine->agnus().dmacon();
            json runs = json::array();
            for (unsigned i = 0; i < trace.runCount; ++i)
                runs.push_back({{"start", trace.runs[i].start}, {"end", trace.runs[i].end}});
            json copper = {
                {"pc", c.pc()},
                {"state", stateName(c.state())},
                {"phase", phaseName(c.state())},
                {"current", current ? json(*current) : json(nullptr)},
                {"dma", (dmacon & dmacon::DMAEN) && (dmacon & dmacon::COPEN)},
                {"danger", c.danger()},
                {"executed_known", trace.known},
                {"executed_this_frame", trace.known ? json(trace.fetched) : json(nullptr)},
                {"runs", runs},
                {"trace_complete", trace.known && !trace.overflow},
                {"frame", m.frame()},
                {"vpos", e.machine->agnus().vpos()},
                {"hpos", e.machine->agnus().hpos()}};
            if (c.state() == Copper::State::Jump1 || c.state() == Copper::State::Jump2)
                copper["jump_target"] = c.jumpTarget();
            return json{{"addr", start},
                        {"list", listJson},
                        {"cop1lc", c.cop1lc()},
                        {"cop2lc", c.cop2lc()},
                        {"instructions", instructions},
                        {"end", end},
                        {"copper", copper}};
        });
}

} // namespace copperline
