// SPDX-License-Identifier: GPL-3.0-or-later
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
#include <vector>

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

// Which client the session speaks to: gdb as its manual has it, or the gdb Bartman's
// VS Code extension runs against its WinUAE (docs/gdb.md, "The bartman dialect").
enum class Dialect { Standard, Bartman };

class Session {
public:
    Session(Port port, std::function<void(const std::string& bytes)> send, Dialect dialect = Dialect::Standard);

    // The client is there: the session sets what it keeps while connected (catches of the
    // exceptions a program's faults raise, reported as signals).
    void start();
    // The client is gone (detached, killed or disconnected): everything the session set on
    // the engine is removed.
    void finish();
    // The program's output (serial; `debugLines`: its KPrintF lines, which the bartman
    // dialect marks "DBG: "): `O` packets while the machine runs for the client, kept (up to
    // 64 KiB) until the next resume otherwise.
    void output(std::string_view text, bool debugLines = false);

    // Bytes from the client, in any pieces.
    void receive(std::string_view bytes);
    // Whether a resume is waiting for its stop.
    bool running() const { return running_; }
    bool noAck() const { return noAck_; }
    // The client asked to detach or kill.
    bool ended() const { return ended_; }
    // It asked to kill (`k`, `vKill`).
    bool killed() const { return killed_; }

    // The stop reply for a stop event ("T05swbreak:;", "T05watch:1234;", "T02" ...).
    static std::string stopReply(const nlohmann::json& stop, Dialect dialect = Dialect::Standard);
    // The signal a caught exception vector reports (SIGBUS, SIGILL, SIGFPE or SIGTRAP).
    static int exceptionSignal(unsigned vector);

private:
    void packet(const std::string& payload);
    std::string answer(const std::string& payload);
    void reply(const std::string& payload);
    void startResume(const std::string& method, const nlohmann::json& params);
    std::string memoryRead(std::string_view args);
    std::string memoryWrite(std::string_view args, bool binary);
    std::string breakpoint(std::string_view args, bool insert);
    std::string query(const std::string& payload);
    // qRcmd: a monitor command's reply (its output, hex), or a resume it started.
    std::string monitor(const std::string& command);
    std::string bartmanMonitor(const std::vector<std::string>& words);
    void profileFrame(const std::string& folder, const std::string& out, unsigned frame, unsigned frames);
    void sendOutput(std::string_view text);
    void resumeContinue();
    std::string vCont(std::string_view actions);

    Port port_;
    std::function<void(const std::string&)> send_;
    Dialect dialect_;
    PacketReader reader_;
    bool noAck_ = false, running_ = false, ended_ = false, killed_ = false, interrupted_ = false;
    bool resumed_ = false; // the packet being answered started a resume
    bool romExit_ = false; // bartman: Z0,ffffffff set, continues run until the pc leaves the ROM
    std::string lastReply_; // framed, for a `-`
    std::string lastStop_ = "S05";
    std::map<std::string, int> breakpoints_; // "type,addr,kind" -> the engine's id
    std::vector<int> catches_;                // the engine's ids of the session's catches
    std::string heldOutput_;                  // output while stopped, for the next resume
    std::string entryState_;                  // bartman: the machine at attach, for `monitor reset`
};

} // namespace copperline::gdb
