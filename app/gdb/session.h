#pragma once

// One gdb client's conversation in the standard dialect (docs/gdb.md): packets read with
// PacketReader become commands of the debugger's one vocabulary (regs.get, mem.read,
// break.add, continue, reverse_step, ...), and their answers become replies. The session
// holds no debugging logic of its own: what a breakpoint or a reverse step does is the
// engine's. It knows nothing of sockets: bytes go in through receive(), out through `send`.

#include "app/gdb/rsp_packet.h"

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace copperline::gdb {

// A command the engine refused: its message.
struct CommandRefused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Port {
    // A command answered at once: its result; throws CommandRefused.
    std::function<nlohmann::json(const std::string& method, const nlohmann::json& params)> call;
    // A resume (continue, step, reverse_step, reverse_continue): `stopped` receives the stop
    // event once the machine stops (or an object with "error" when it was refused).
    std::function<void(const std::string& method, const nlohmann::json& params,
                       std::function<void(const nlohmann::json& stop)> stopped)>
        resume;
};

class Session {
public:
    Session(Port port, std::function<void(const std::string& bytes)> send);

    // Bytes from the client, in any pieces.
    void receive(std::string_view bytes);
    // Whether a resume is waiting for its stop.
    bool running() const { return running_; }
    bool noAck() const { return noAck_; }
    // The client asked to detach or kill.
    bool ended() const { return ended_; }

    // The stop reply for a stop event ("T05swbreak:;", "T05watch:1234;", "T02" ...).
    static std::string stopReply(const nlohmann::json& stop);

private:
    void packet(const std::string& payload);
    std::string answer(const std::string& payload);
    void reply(const std::string& payload);
    void startResume(const std::string& method, const nlohmann::json& params);
    std::string memoryRead(std::string_view args);
    std::string memoryWrite(std::string_view args, bool binary);
    std::string breakpoint(std::string_view args, bool insert);
    std::string query(const std::string& payload);

    Port port_;
    std::function<void(const std::string&)> send_;
    PacketReader reader_;
    bool noAck_ = false, running_ = false, ended_ = false, interrupted_ = false;
    bool resumed_ = false; // the packet being answered started a resume
    std::string lastReply_; // framed, for a `-`
    std::string lastStop_ = "S05";
    std::map<std::string, int> breakpoints_; // "type,addr,kind" -> the engine's id
};

} // namespace copperline::gdb
