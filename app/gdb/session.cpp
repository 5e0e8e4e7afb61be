#include "app/gdb/session.h"

#include "app/gdb/registers.h"

#include <charconv>
#include <optional>

namespace copperline::gdb {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxMemory = 0x4000; // bytes an m/M/X packet moves at most

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

Session::Session(Port port, std::function<void(const std::string&)> send)
    : port_(std::move(port)), send_(std::move(send)) {}

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
    port_.resume(method, params, [this](const json& stop) {
        running_ = false;
        if (stop.contains("error")) {
            reply("E01");
            return;
        }
        json event = stop;
        if (interrupted_ && event.value("reason", std::string()) == "pause") event["interrupted"] = true;
        lastStop_ = stopReply(event);
        reply(lastStop_);
    });
}

std::string Session::stopReply(const json& stop) {
    const std::string reason = stop.value("reason", std::string());
    if (reason == "pause") return stop.value("interrupted", false) ? "T02" : "T05";
    if (reason == "breakpoint") return "T05swbreak:;";
    if (reason == "watchpoint") {
        const json& d = stop.contains("detail") ? stop["detail"] : json::object();
        const std::string access = d.value("access", std::string("write"));
        const std::string kind = access == "read" ? "rwatch" : access == "access" ? "awatch" : "watch";
        return "T05" + kind + ":" + hex8(d.value("address", 0u)) + ";";
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
        case '?': return lastStop_;
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
        case 'c': startResume("continue", json::object()); return {};
        case 's': startResume("step", json::object()); return {};
        case 'b':
            if (p == "bs") startResume("reverse_step", json::object());
            else if (p == "bc") startResume("reverse_continue", json::object());
            else return {};
            return {};
        case 'H': return "OK"; // one thread: any thread is it
        case 'T': return "OK"; // thread 1 is alive
        case 'D': ended_ = true; return "OK";
        case 'k': ended_ = true; return {};
        case 'v':
            if (p == "vCont?") return "vCont;c;C;s;S";
            if (p.rfind("vCont;", 0) == 0) {
                const char action = p.size() > 6 ? p[6] : 0;
                if (action == 'c' || action == 'C') startResume("continue", json::object());
                else if (action == 's' || action == 'S') startResume("step", json::object());
                else return "E01";
                return {};
            }
            if (p == "vMustReplyEmpty") return {};
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
    if (p.rfind("qSupported", 0) == 0)
        return "PacketSize=" + hex8(std::uint32_t(reader_.maxPayload())) +
               ";QStartNoAckMode+;qXfer:features:read+;swbreak+;hwbreak+;ReverseStep+;ReverseContinue+;vContSupported+";
    if (p == "QStartNoAckMode") return "OK";
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
        // The --run program as loaded: its first hunk (the code) and the next two.
        try {
            const json seg = port_.call("segments.list", json::object());
            if (seg.contains("run")) {
                const json& bases = seg["run"]["relocation_bases"];
                if (!bases.empty()) {
                    const auto hex = [](const json& v) { return v.get<std::string>().substr(2); };
                    std::string out = "TextSeg=" + hex(bases[0]);
                    if (bases.size() > 1) out += ";DataSeg=" + hex(bases[1]);
                    return out;
                }
            }
        } catch (const CommandRefused&) {
        }
        return {};
    }
    return {};
}

} // namespace copperline::gdb
