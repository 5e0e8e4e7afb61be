// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one command vocabulary: every action a person or a script can take is a named
// command that takes JSON parameters and returns a JSON result or a structured error.
// The desktop panes, the local-socket protocol, copperline-ctl and the tests all call
// commands through a CommandBus (DESIGN.md section 4).

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace copperline {

// Error codes: the JSON-RPC 2.0 standard ones, plus Copperline's own in -32000..-32099
// (the range JSON-RPC reserves for implementation-defined server errors).
namespace errc {
inline constexpr int ParseError = -32700;
inline constexpr int InvalidRequest = -32600;
inline constexpr int MethodNotFound = -32601;
inline constexpr int InvalidParams = -32602;
inline constexpr int InternalError = -32603;
inline constexpr int CommandFailed = -32000; // the command ran and could not do it
inline constexpr int ResumePending = -32002; // a resume already waits for the machine to stop
inline constexpr int InvalidState = -32003;  // not now: e.g. the machine must be paused first
inline constexpr int Unsupported = -32004;   // not in this mode
inline constexpr int HostIo = -32005;        // a host file could not be read or written
inline constexpr int HistoryExhausted = -32006; // further back than the record reaches
inline constexpr int NotFound = -32007;      // no such breakpoint, register or subscription
inline constexpr int LineTooLong = -32010;   // a protocol line passed the size limit
inline constexpr int ShuttingDown = -32011;  // the emulator stopped before it could answer
} // namespace errc

// Thrown by a command handler to fail with a specific code; the bus turns it into an
// error result. Nothing a handler throws ever leaves CommandBus::call.
class CommandError : public std::runtime_error {
public:
    CommandError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

// Fails the command in progress with `code` and `message`: the one way handlers say no.
[[noreturn]] inline void fail(int code, const std::string& message) {
    throw CommandError(code, message);
}

struct CommandResult {
    bool ok = false;
    nlohmann::json result; // when ok
    int errorCode = 0;     // when !ok
    std::string errorMessage;

    // The JSON-RPC shape: {"result": ...} or {"error": {"code": ..., "message": ...}}.
    nlohmann::json toJson() const;
};

// The first key of `params` (an object) that is not in `accepted`, as the message that
// refuses it: the key, the nearest accepted name when it looks like a misspelling of one,
// and every name `method` takes. Empty when every key is accepted.
std::string unknownParameterMessage(std::string_view method, const nlohmann::json& params,
                                    const std::vector<std::string>& accepted);

class CommandBus {
public:
    using Handler = std::function<nlohmann::json(const nlohmann::json& params)>;

    // Registers a command that takes the parameters named in `params` (in the order a
    // person reads them; `methods` lists them so). call() refuses any other key before the
    // handler runs, so a misspelt parameter is an error rather than a default silently
    // taken. A command whose keys depend on another parameter's value (break.add's kind)
    // declares them all and refuses the ones its variant does not take itself. A second
    // registration of the same name is a programming error and throws std::logic_error.
    void add(const std::string& name, const std::string& summary, std::vector<std::string> params,
             Handler handler);
    // Registers a command that takes no parameters at all.
    void add(const std::string& name, const std::string& summary, Handler handler);

    bool has(std::string_view name) const;
    std::vector<std::string> names() const;
    std::string summary(std::string_view name) const;
    // The parameters the command takes (empty for an unknown name).
    std::vector<std::string> params(std::string_view name) const;

    // Runs a command. Never throws: unknown names, unknown or bad parameters and handler
    // failures all come back as errors.
    CommandResult call(std::string_view name,
                       const nlohmann::json& params = nlohmann::json::object()) const;

private:
    struct Entry {
        std::string summary;
        std::vector<std::string> params;
        Handler handler;
    };
    std::map<std::string, Entry, std::less<>> commands_;
};

} // namespace copperline
