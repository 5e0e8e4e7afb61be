// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One Debug Adapter Protocol session: a client's requests in, each translated into
// commands of the control protocol (docs/control-protocol.md) sent to a Copperline this
// session launched or attached to, and the replies and notifications translated back into
// responses and events. The adapter decides nothing a debugger decides: where a line
// breakpoint goes, where a step ends, what a variable holds is the engine's answer
// (docs/debugger.md); this file only shapes it for the protocol. docs/dap.md lists what
// maps to what.

#include "app/ctl/dap/control_link.h"
#include "app/ctl/dap/dap_protocol.h"
#include "app/ctl/dap/launch.h"

#include <QProcess>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace copperline::dap {

class Session {
public:
    using Writer = std::function<void(const std::string& bytes)>;

    // `write` sends framed bytes to the client; `ended` is called once the session is over
    // (after a disconnect, or the client going away), when the transport may close.
    // `ctlDirectory` is where the copperline binary is looked for, `ctlPath` copperline-ctl
    // itself (for profile-report).
    Session(Writer write, std::function<void()> ended, std::string ctlDirectory,
            std::string ctlPath);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Bytes from the client, in any pieces.
    void feed(std::string_view bytes);
    // The client went away without a disconnect: a launched Copperline is ended.
    void clientGone();

private:
    using Handler = void (Session::*)(const Request&);

    // What a variablesReference opens.
    struct Container {
        enum class Kind { Engine, Registers, Custom, CustomFields, Values };
        Kind kind = Kind::Engine;
        int engineRef = 0;
        int frame = 0;
        std::string evaluateName; // the C expression of the value it opens, for its children
        bool registerScope = false;
        nlohmann::json values; // CustomFields: the register's fields
    };
    // A variable shown, for data breakpoints and setVariable.
    struct Shown {
        std::string evaluateName;
        int frame = 0;
        std::optional<std::uint32_t> address;
    };
    // A breakpoint this session set, by the engine's id (which is also the DAP id).
    struct Placed {
        enum class Kind { Line, Function, Instruction, Data, Catch };
        Kind kind = Kind::Line;
        std::string path; // a line breakpoint's source, as the client named it
    };

    // Messages.
    void message(nlohmann::json msg);
    void dispatch(const Request& r);
    void protocolError(const std::string& what);
    void send(nlohmann::json msg);
    void respond(const Request& r, nlohmann::json body = nlohmann::json::object());
    void fail(const Request& r, const std::string& message);
    // Fails `r` with the engine's message when `reply` is an error; true when it did.
    bool refused(const Request& r, const Reply& reply);
    void event(const std::string& name, nlohmann::json body = nlohmann::json::object());
    void output(const std::string& category, const std::string& text,
                nlohmann::json extra = nlohmann::json::object());
    void trace(const std::string& line);

    // The engine.
    void call(const std::string& method, const nlohmann::json& params, ControlLink::OnReply reply);
    void batch(std::vector<std::pair<std::string, nlohmann::json>> calls,
               std::function<void(std::vector<Reply>)> done);
    void connect(const std::string& socket, const Request& r);
    void connected(const Request& r);
    void notified(const std::string& method, const nlohmann::json& params);
    void linkClosed();
    void emulatorExited(int code);
    void terminated();
    void end();

    // Stops and resumes.
    void stopped(const nlohmann::json& stop);
    void programLoaded();
    void enterProgram();
    void resume(const Request& r);
    // Sends a resume whose reply is its stop: `after` sees the reply, then the stop is shown.
    void runWaited(const std::string& method, const nlohmann::json& params,
                   std::function<void(const Reply&)> after);
    void resumeWaited(const Request& r, const std::string& method,
                      const nlohmann::json& params = nlohmann::json::object());
    void machineMoved();
    void refreshBreakpoints();
    // Answers a set*Breakpoints request with each breakpoint as the engine placed it.
    std::function<void(std::vector<Reply>)> breakpointsAnswer(const Request& r);
    void replaceBreakpoints(std::vector<int>& ids, std::vector<nlohmann::json> adds, Placed placed,
                            std::function<void(std::vector<Reply>)> done);

    // Shaping.
    nlohmann::json breakpointBody(const Reply& reply) const;
    nlohmann::json variable(const nlohmann::json& v, int containerRef, const Container& parent);
    int container(Container c);
    // A value the engine gives a ref (a struct, an array, a pointer): its reference in `out`,
    // with how many children it has.
    void opens(const nlohmann::json& value, int frame, const std::string& expression,
               nlohmann::json& out);
    std::string toLocal(const std::string& debugPath) const;
    std::string toDebug(const std::string& localPath) const;
    int lineOut(int line) const { return linesStartAt1_ ? line : line - 1; }
    int lineIn(int line) const { return linesStartAt1_ ? line : line + 1; }
    nlohmann::json sourceOf(const std::string& debugPath) const;

    // Requests.
    void initialize(const Request& r);
    void launch(const Request& r);
    void attach(const Request& r);
    void configurationDone(const Request& r);
    void setBreakpoints(const Request& r);
    void setFunctionBreakpoints(const Request& r);
    void setInstructionBreakpoints(const Request& r);
    void dataBreakpointInfo(const Request& r);
    void setDataBreakpoints(const Request& r);
    void setExceptionBreakpoints(const Request& r);
    void breakpointLocations(const Request& r);
    void threads(const Request& r);
    void stackTrace(const Request& r);
    void scopes(const Request& r);
    void variables(const Request& r);
    void setVariable(const Request& r);
    void evaluate(const Request& r);
    void continueRequest(const Request& r);
    void next(const Request& r);
    void stepIn(const Request& r);
    void stepOut(const Request& r);
    void stepBack(const Request& r);
    void reverseContinue(const Request& r);
    void pause(const Request& r);
    void disassemble(const Request& r);
    void readMemory(const Request& r);
    void writeMemory(const Request& r);
    void loadedSources(const Request& r);
    void exceptionInfo(const Request& r);
    void terminate(const Request& r);
    void disconnect(const Request& r);
    void profile(const Request& r);
    void coverage(const Request& r);
    void strip(const Request& r);

    void copperStack(const Request& r);
    void disassembleFrom(std::uint32_t from, int count,
                         std::function<void(const Reply&, std::vector<nlohmann::json>)> done,
                         std::vector<nlohmann::json> sofar = {});
    void finishDisassembly(const Request& r, std::int64_t at, std::int64_t skip, std::int64_t count,
                           std::vector<nlohmann::json> before, std::vector<nlohmann::json> got);
    void finishProfile(Request r);
    void profileReport(const Request& r, nlohmann::json status);

    Writer write_;
    std::function<void()> ended_;
    std::string ctlDirectory_, ctlPath_;
    MessageReader reader_;
    std::int64_t seq_ = 1;
    std::map<std::string, Handler> handlers_;

    // The client.
    bool linesStartAt1_ = true;
    bool columnsStartAt1_ = true;
    bool invalidatedEvents_ = false;
    bool memoryEvents_ = false;

    // The emulator.
    SessionOptions options_;
    std::unique_ptr<ControlLink> link_;
    std::unique_ptr<LaunchedEmulator> emulator_;
    bool starting_ = false;       // a launch or attach is under way
    std::vector<Request> queued_; // requests that came before the link was up
    bool configured_ = false;     // configurationDone came
    bool loadPending_ = false;    // the program loaded before configurationDone
    bool entered_ = false;        // the first load was handled
    int waitingResumes_ = 0;      // resumes whose reply will carry their stop
    nlohmann::json lastStop_;
    bool ended_flag_ = false;
    bool terminatedSent_ = false;
    bool disconnecting_ = false;

    // What the client holds until the machine moves.
    std::vector<Container> containers_;
    std::map<std::pair<int, std::string>, Shown> shown_;

    // Breakpoints by the request that set them.
    std::map<std::string, std::vector<int>> lineBreakpoints_;
    std::vector<int> functionBreakpoints_, instructionBreakpoints_, dataBreakpoints_, catches_;
    std::map<int, Placed> placed_;

    // copperline/profile, while its capture runs.
    std::optional<Request> profiling_;
    std::unique_ptr<QProcess> report_;
};

} // namespace copperline::dap
