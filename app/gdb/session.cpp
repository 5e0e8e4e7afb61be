// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gdb/session.h"

#include "app/gdb/registers.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <utility>
#include <optional>

namespace copperline::gdb {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxMemory = 0x4000; // bytes an m/M/X packet moves at most
constexpr std::uint32_t kRomStart = 0xF80000; // the Kickstart ROM: Z0,ffffffff runs until the pc is below it

std::optional<std::uint32_t> hexNumber(std::string_view text) {
    std::uint32_t v = 0;
    if (text.empty()) return std::nullopt;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v, 16);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

// "addr,len" (and what follows a ':' or ',' when asked for).
bool addressAndLength(std::string_view args, std::uint32_t& addr, std::uint32_t& len, std::string_view* rest,
                      char restSeparator) {
    std::string_view head = args;
    if (rest) {
        const auto at = args.find(restSeparator);
        if (at == std::string_view::npos) return false;
        head = args.substr(0, at);
        *rest = args.substr(at + 1);
    }
    const auto comma = head.find(',');
    if (comma == std::string_view::npos) return false;
    const auto a = hexNumber(head.substr(0, comma)), n = hexNumber(head.substr(comma + 1));
    if (!a || !n) return false;
    addr = *a;
    len = *n;
    return true;
}

std::string hex8(std::uint32_t v) {
    char buf[16];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
    return std::string(buf, r.ptr);
}

} // namespace

Session::Session(Port port, std::function<void(const std::string&)> send, Dialect dialect)
    : port_(std::move(port)), send_(std::move(send)), dialect_(dialect) {}

void Session::start() {
    // A program's faults stop it, as a signal stops a process under gdb; the ROM's own
    // (AROS probes the CPU with instructions a 68000 lacks) pass. Bartman's gdb knows three:
    // address error, illegal instruction and TRAP #7 (GCC's trap for undefined behaviour).
    const std::vector<unsigned> vectors = dialect_ == Dialect::Bartman ? std::vector<unsigned>{2, 3, 4, 39}
                                                                      : std::vector<unsigned>{2, 3, 4, 5, 6, 7, 8, 10, 11};
    for (const unsigned vector : vectors) {
        try {
            const json r = port_.call("break.add", json{{"kind", "catch"}, {"vector", vector}, {"outside_rom", true}});
            catches_.push_back(r.value("id", 0));
        } catch (const CommandRefused&) {
        }
    }
    if (dialect_ == Dialect::Bartman) {
        // Where `monitor reset` goes back to: the machine as gdb found it.
        const std::string path = (std::filesystem::temp_directory_path() /
                                  ("copperline-gdb-entry-" + std::to_string(::getpid()) + ".clstate"))
                                     .string();
        try {
            port_.call("state.save", json{{"path", path}, {"overwrite", true}});
            entryState_ = path;
        } catch (const CommandRefused&) {
        }
    }
}

void Session::finish() {
    if (!entryState_.empty()) {
        std::error_code ec;
        std::filesystem::remove(entryState_, ec);
        entryState_.clear();
    }
    const auto remove = [this](int id) {
        try {
            port_.call("break.remove", json{{"id", id}});
        } catch (const CommandRefused&) {
            // Gone already (break.clear from another client).
        }
    };
    for (const auto& [key, id] : breakpoints_) remove(id);
    for (const int id : catches_) remove(id);
    breakpoints_.clear();
    catches_.clear();
}

void Session::output(std::string_view text, bool debugLines) {
    std::string prefixed;
    if (debugLines && dialect_ == Dialect::Bartman) {
        // Each of the program's debug lines as Bartman's extension looks for them.
        std::size_t at = 0;
        while (at < text.size()) {
            const std::size_t end = text.find('\n', at);
            prefixed.append("DBG: ").append(text.substr(at, end == std::string_view::npos ? end : end + 1 - at));
            if (end == std::string_view::npos) break;
            at = end + 1;
        }
        text = prefixed;
    }
    if (running_) {
        sendOutput(text);
        return;
    }
    constexpr std::size_t kHeld = 64 * 1024;
    heldOutput_.append(text.substr(0, kHeld - std::min(kHeld, heldOutput_.size())));
}

void Session::sendOutput(std::string_view text) {
    // `O` and the text in hex, in packets the client takes.
    const std::size_t chunk = (reader_.maxPayload() - 1) / 2;
    for (std::size_t at = 0; at < text.size(); at += chunk) {
        const std::string_view part = text.substr(at, chunk);
        std::string payload(1, 'O');
        payload.append(toHex(std::vector<std::uint8_t>(part.begin(), part.end())));
        send_(framePacket(payload));
    }
}

int Session::exceptionSignal(unsigned vector) {
    constexpr int kSigIll = 4, kSigTrap = 5, kSigFpe = 8, kSigBus = 10;
    switch (vector) {
    case 2:
    case 3: return kSigBus;
    case 5:
    case 6:
    case 7: return kSigFpe;
    case 4:
    case 8:
    case 10:
    case 11: return kSigIll;
    default: return kSigTrap;
    }
}

void Session::receive(std::string_view bytes) {
    reader_.feed(bytes);
    while (auto e = reader_.next()) {
        using Kind = PacketReader::Event::Kind;
        switch (e->kind) {
        case Kind::Ack: break;
        case Kind::Nack:
            if (!noAck_ && !lastReply_.empty()) send_(lastReply_);
            break;
        case Kind::Bad:
            if (!noAck_) send_("-");
            break;
        case Kind::Interrupt:
            if (running_) {
                interrupted_ = true;
                try {
                    port_.call("pause", json::object());
                } catch (const CommandRefused&) {
                    // Stopped already: its stop reply is on its way.
                }
            }
            break;
        case Kind::Packet:
            if (!noAck_) send_("+");
            packet(e->payload);
            break;
        }
    }
}

void Session::reply(const std::string& payload) {
    lastReply_ = framePacket(payload);
    send_(lastReply_);
}

void Session::packet(const std::string& payload) {
    if (running_) {
        // While the machine runs only an interrupt is taken; gdb sends nothing else then.
        reply("E01");
        return;
    }
    resumed_ = false;
    const std::string answer_ = answer(payload);
    if (resumed_) return; // the stop reply comes (or came) when the machine stops
    if (payload == "k") return; // killed: gdb waits for no reply
    if (payload == "QStartNoAckMode") {
        reply(answer_);
        noAck_ = true;
        return;
    }
    reply(answer_);
}

void Session::startResume(const std::string& method, const json& params) {
    running_ = true;
    resumed_ = true;
    interrupted_ = false;
    if (!heldOutput_.empty()) sendOutput(std::exchange(heldOutput_, std::string()));
    port_.resume(method, params, [this](const json& stop) {
        running_ = false;
        if (stop.contains("error")) {
            reply("E01");
            return;
        }
        json event = stop;
        if (interrupted_ && event.value("reason", std::string()) == "pause") event["interrupted"] = true;
        lastStop_ = stopReply(event, dialect_);
        reply(lastStop_);
    });
}

std::string Session::stopReply(const json& stop, Dialect dialect) {
    const std::string reason = stop.value("reason", std::string());
    const json& detail = stop.contains("detail") && stop["detail"].is_object() ? stop["detail"] : json::object();
    if (dialect == Dialect::Bartman) {
        if (reason == "breakpoint") return "T05swbreak:;";
        if (reason == "watchpoint") {
            const std::uint32_t address = detail.value("address", 0u);
            if (address == 0) return "S0B"; // a NULL access
            const std::string access = detail.value("access", std::string("write"));
            char buf[40];
            std::snprintf(buf, sizeof buf, "T05%s:%08x;",
                          access == "read" ? "rwatch" : access == "access" ? "awatch" : "watch", unsigned(address));
            return buf;
        }
        if (reason == "catch") {
            const unsigned vector = detail.value("vector", 0u);
            return vector == 2 || vector == 3 ? "S0A" : vector == 4 ? "S04" : vector == 39 ? "S07" : "S05";
        }
        if (reason == "double_fault") return "S0A";
        return "S05";
    }
    if (reason == "catch") {
        char buf[8];
        std::snprintf(buf, sizeof buf, "T%02x", exceptionSignal(detail.value("vector", 0u)));
        return buf;
    }
    if (reason == "pause") return stop.value("interrupted", false) ? "T02" : "T05";
    if (reason == "breakpoint") return "T05swbreak:;";
    if (reason == "watchpoint") {
        const std::string access = detail.value("access", std::string("write"));
        std::string out = access == "read" ? "T05rwatch:" : access == "access" ? "T05awatch:" : "T05watch:";
        out.append(hex8(detail.value("address", 0u))).append(";");
        return out;
    }
    if (reason == "reverse" && stop.contains("detail") && stop["detail"].is_object() &&
        stop["detail"].value("reached_oldest", false))
        return "T05replaylog:begin;";
    if (reason == "double_fault") return "T0a"; // SIGBUS: the CPU halted
    return "T05";
}

std::string Session::answer(const std::string& p) {
    try {
        if (p.empty()) return {};
        switch (p[0]) {
        case '?': return dialect_ == Dialect::Bartman ? std::string("S05") : lastStop_;
        case 'g': {
            const json r = port_.call("regs.get", json::object());
            CoreRegisters regs;
            for (int i = 0; i < 8; ++i) {
                regs.r[std::size_t(i)] = r.value("d" + std::to_string(i), 0u);
                regs.r[std::size_t(8 + i)] = r.value("a" + std::to_string(i), 0u);
            }
            regs.r[kSrRegister] = r.value("sr", 0u);
            regs.r[kPcRegister] = r.value("pc", 0u);
            return encodeRegisters(regs);
        }
        case 'G': {
            const auto regs = decodeRegisters(std::string_view(p).substr(1));
            if (!regs) return "E01";
            // SR first: its S bit says which stack pointer A7 is.
            port_.call("regs.set", json{{"reg", "sr"}, {"value", regs->r[kSrRegister] & 0xFFFF}});
            for (int i = 0; i < 8; ++i) {
                port_.call("regs.set", json{{"reg", "d" + std::to_string(i)}, {"value", regs->r[std::size_t(i)]}});
                port_.call("regs.set", json{{"reg", "a" + std::to_string(i)}, {"value", regs->r[std::size_t(8 + i)]}});
            }
            port_.call("regs.set", json{{"reg", "pc"}, {"value", regs->r[kPcRegister]}});
            return "OK";
        }
        case 'p': {
            const auto n = hexNumber(std::string_view(p).substr(1));
            // Bartman's gdb asks for the FPU's registers too: none, unavailable.
            if (n && *n >= kRegisterCount && dialect_ == Dialect::Bartman) return "xxxxxxxx";
            if (!n || *n >= kRegisterCount) return "E01";
            const json r = port_.call("regs.get", json::object());
            const std::string name = *n < 8 ? "d" + std::to_string(*n)
                                     : *n < 16 ? "a" + std::to_string(*n - 8)
                                     : *n == kSrRegister ? std::string("sr") : std::string("pc");
            return encodeRegister(r.value(name, 0u));
        }
        case 'P': {
            const auto eq = p.find('=');
            if (eq == std::string::npos) return "E01";
            const auto n = hexNumber(std::string_view(p).substr(1, eq - 1));
            const auto v = decodeRegister(std::string_view(p).substr(eq + 1));
            if (!n || *n >= kRegisterCount || !v) return "E01";
            const std::string name = *n < 8 ? "d" + std::to_string(*n)
                                     : *n < 16 ? "a" + std::to_string(*n - 8)
                                     : *n == kSrRegister ? std::string("sr") : std::string("pc");
            port_.call("regs.set", json{{"reg", name}, {"value", *n == kSrRegister ? (*v & 0xFFFF) : *v}});
            return "OK";
        }
        case 'm': return memoryRead(std::string_view(p).substr(1));
        case 'M': return memoryWrite(std::string_view(p).substr(1), false);
        case 'X': return memoryWrite(std::string_view(p).substr(1), true);
        case 'Z': return breakpoint(std::string_view(p).substr(1), true);
        case 'z': return breakpoint(std::string_view(p).substr(1), false);
        case 'c': resumeContinue(); return {};
        case 's': startResume("step", json::object()); return {};
        case 'b':
            if (p == "bs") startResume("reverse_step", json::object());
            else if (p == "bc") startResume("reverse_continue", json::object());
            else return {};
            return {};
        case 'H': return "OK"; // one thread: any thread is it
        case 'T': return "OK"; // thread 1 is alive
        case 'D': ended_ = true; return "OK";
        case 'k': ended_ = killed_ = true; return {};
        case 'v':
            if (p == "vCont?") return "vCont;c;C;s;S;t;r";
            if (p.rfind("vCont;", 0) == 0) return vCont(std::string_view(p).substr(6));
            if (p == "vMustReplyEmpty") return {};
            if (p.rfind("vKill", 0) == 0) {
                ended_ = killed_ = true;
                return "OK";
            }
            return {};
        case 'q':
        case 'Q': return query(p);
        default: return {}; // not supported: the empty reply, as the protocol asks
        }
    } catch (const CommandRefused&) {
        return "E01";
    }
}

std::string Session::memoryRead(std::string_view args) {
    std::uint32_t addr = 0, len = 0;
    if (!addressAndLength(args, addr, len, nullptr, 0) || len > kMaxMemory) return "E01";
    if (len == 0) return {};
    const json r = port_.call("mem.read", json{{"addr", addr & 0xFFFFFF}, {"len", len}});
    return r.value("data", std::string());
}

std::string Session::memoryWrite(std::string_view args, bool binary) {
    std::uint32_t addr = 0, len = 0;
    std::string_view data;
    if (!addressAndLength(args, addr, len, &data, ':') || len > kMaxMemory) return "E01";
    std::string hex;
    if (binary) {
        if (data.size() != len) return "E01";
        std::vector<std::uint8_t> bytes(data.begin(), data.end());
        hex = toHex(bytes);
    } else {
        if (data.size() != std::size_t(len) * 2 || !fromHex(data)) return "E01";
        hex = std::string(data);
    }
    if (len == 0) return "OK";
    port_.call("mem.write", json{{"addr", addr & 0xFFFFFF}, {"data", hex}});
    return "OK";
}

std::string Session::breakpoint(std::string_view args, bool insert) {
    // "type,addr,kind": 0 a software breakpoint, 1 a hardware one, 2-4 write, read and
    // access watchpoints of `kind` bytes.
    if (args.size() < 3 || args[1] != ',') return "E01";
    const char type = args[0];
    std::uint32_t addr = 0, kind = 0;
    if (!addressAndLength(args.substr(2), addr, kind, nullptr, 0)) return "E01";
    if (type < '0' || type > '4') return {};
    if (type == '0' && addr == 0xFFFFFFFF && dialect_ == Dialect::Bartman) {
        // Not a breakpoint: the next continue runs until the pc leaves the ROM.
        romExit_ = insert;
        return "OK";
    }
    const std::string key = std::string(1, type) + "," + hex8(addr) + "," + hex8(kind);
    if (!insert) {
        const auto it = breakpoints_.find(key);
        if (it == breakpoints_.end()) return "E01";
        port_.call("break.remove", json{{"id", it->second}});
        breakpoints_.erase(it);
        return "OK";
    }
    if (breakpoints_.count(key)) return "OK";
    json params;
    if (type == '0' || type == '1') {
        params = {{"kind", "pc"}, {"addr", addr & 0xFFFFFF}};
    } else {
        if (kind == 0) return "E01";
        params = {{"kind", "watch"},
                  {"addr", addr & 0xFFFFFF},
                  {"len", kind},
                  {"access", type == '2' ? "write" : type == '3' ? "read" : "access"}};
    }
    const json r = port_.call("break.add", params);
    breakpoints_[key] = r.value("id", 0);
    return "OK";
}

std::string Session::query(const std::string& p) {
    if (p.rfind("qSupported", 0) == 0 && dialect_ == Dialect::Bartman)
        return "PacketSize=512;BreakpointCommands+;swbreak+;hwbreak+;QStartNoAckMode+;vContSupported+;";
    if (p == "qTStatus" && dialect_ == Dialect::Bartman) return "T0";
    if (p.rfind("qXfer:", 0) == 0 && dialect_ == Dialect::Bartman) return {};
    if (p.rfind("qSupported", 0) == 0)
        return "PacketSize=" + hex8(std::uint32_t(reader_.maxPayload())) +
               ";QStartNoAckMode+;qXfer:features:read+;swbreak+;hwbreak+;ReverseStep+;ReverseContinue+;vContSupported+";
    if (p == "QStartNoAckMode") return "OK";
    if (p.rfind("qRcmd,", 0) == 0) {
        const auto bytes = fromHex(std::string_view(p).substr(6));
        if (!bytes) return "E01";
        return monitor(std::string(bytes->begin(), bytes->end()));
    }
    if (p == "qAttached") return "1";
    if (p == "qC") return "QC1";
    if (p == "qfThreadInfo") return "m1";
    if (p == "qsThreadInfo") return "l";
    if (p.rfind("qXfer:features:read:target.xml:", 0) == 0) {
        std::uint32_t offset = 0, len = 0;
        if (!addressAndLength(std::string_view(p).substr(31), offset, len, nullptr, 0)) return "E01";
        const std::string xml = targetDescription();
        if (offset >= xml.size()) return "l";
        const std::string part = xml.substr(offset, len);
        return (offset + part.size() >= xml.size() ? "l" : "m") + part;
    }
    if (p == "qOffsets") {
        // The --run program as loaded: its first hunk (the code) and the next two; for
        // Bartman's gdb every hunk's base, 8 hex digits each, joined by ';'.
        try {
            const json seg = port_.call("segments.list", json::object());
            if (seg.contains("run")) {
                const json& bases = seg["run"]["relocation_bases"];
                if (dialect_ == Dialect::Bartman) {
                    if (bases.empty()) return "E01";
                    std::string out;
                    for (const json& b : bases) {
                        char buf[12];
                        std::snprintf(buf, sizeof buf, "%08x",
                                      unsigned(std::stoul(b.get<std::string>().substr(2), nullptr, 16)));
                        if (!out.empty()) out += ';';
                        out += buf;
                    }
                    return out;
                }
                // gdb moves the ELF it read by offsets: the code's (its hunk's base less the
                // address .text was linked at), and the data's; gdb gives .bss the data's
                // offset (monitor symbol-file places every section exactly).
                const json& hunks = seg["run"].value("hunks", json::array());
                const auto offsetOf = [&hunks](const std::string& section) -> std::optional<std::uint32_t> {
                    for (const json& h : hunks)
                        if (h.value("section", std::string()) == section && h.contains("link_address"))
                            return hexNumber(h["base"].get<std::string>().substr(2)).value_or(0) -
                                   hexNumber(h["link_address"].get<std::string>().substr(2)).value_or(0);
                    return std::nullopt;
                };
                if (const auto text = offsetOf(".text")) {
                    const std::uint32_t data = offsetOf(".data").value_or(offsetOf(".bss").value_or(*text));
                    return "Text=" + hex8(*text) + ";Data=" + hex8(data) + ";Bss=" + hex8(data);
                }
                if (!bases.empty()) {
                    const auto hex = [](const json& v) { return v.get<std::string>().substr(2); };
                    std::string out = "TextSeg=" + hex(bases[0]);
                    if (bases.size() > 1) out += ";DataSeg=" + hex(bases[1]);
                    return out;
                }
            }
        } catch (const CommandRefused&) {
        }
        return dialect_ == Dialect::Bartman ? "E01" : "";
    }
    return {};
}

void Session::resumeContinue() {
    if (romExit_)
        startResume("run_until", json{{"pc_outside", {{"start", kRomStart}, {"end", 0x1000000}}}});
    else
        startResume("continue", json::object());
}

std::string Session::vCont(std::string_view actions) {
    // Each action in turn, ":thread" dropped; the first this stub takes is the resume (one
    // thread: the others name the same). C and S pass a signal on: the program has none,
    // so they resume as c and s do.
    while (!actions.empty()) {
        const auto semi = actions.find(';');
        std::string_view action = actions.substr(0, semi);
        actions = semi == std::string_view::npos ? std::string_view() : actions.substr(semi + 1);
        action = action.substr(0, action.find(':'));
        if (action.empty()) continue;
        switch (action[0]) {
        case 'c':
        case 'C': resumeContinue(); return {};
        case 's':
        case 'S': startResume("step", json::object()); return {};
        case 'r': {
            // rSTART,END: run while the pc stays in [START, END) (gdb's range stepping).
            std::uint32_t start = 0, end = 0;
            if (!addressAndLength(action.substr(1), start, end, nullptr, 0) || end <= start) return "E01";
            startResume("run_until", json{{"pc_outside", {{"start", start & 0xFFFFFF}, {"end", end & 0x1FFFFFF}}}});
            return {};
        }
        default: break; // t (stop) and anything else: nothing to do for a stopped machine
        }
    }
    return "E01";
}

} // namespace copperline::gdb
