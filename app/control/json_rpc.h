// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// JSON-RPC 2.0 over lines (docs/control-protocol.md): one message per line, at most
// kMaxLineBytes. Plain C++ shared by the server and copperline-ctl.

#include "app/control/command_bus.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

namespace copperline::rpc {

inline constexpr std::size_t kMaxLineBytes = 4u << 20; // 4 MiB

// Splits a byte stream into lines. A line longer than the limit is dropped whole (up to
// its newline) and reported once, so one hostile line costs the peer an error reply and
// costs us no memory.
class LineFramer {
public:
    explicit LineFramer(std::size_t maxLine = kMaxLineBytes) : max_(maxLine) {}
    void feed(std::string_view bytes, const std::function<void(std::string_view line)>& onLine,
              const std::function<void()>& onOverlong);

private:
    std::size_t max_;
    std::string buffer_;
    bool discarding_ = false;
};

// A request that passed validation.
struct Request {
    nlohmann::json id; // number or string
    std::string method;
    nlohmann::json params; // always an object
};
// Or the error reply it earned (with the id when one could be read, else null).
struct Rejection {
    nlohmann::json id;
    int code = 0;
    std::string message;
};

std::variant<Request, Rejection> parseRequest(std::string_view line);

// One line each, newline included. Strings with invalid UTF-8 are repaired, never thrown on.
std::string resultLine(const nlohmann::json& id, const nlohmann::json& result);
std::string errorLine(const nlohmann::json& id, int code, const std::string& message);
std::string replyLine(const nlohmann::json& id, const CommandResult& result);
std::string notificationLine(const std::string& method, const nlohmann::json& params);
std::string requestLine(const nlohmann::json& id, const std::string& method,
                        const nlohmann::json& params);

// Dumps compactly, replacing invalid UTF-8 instead of throwing.
std::string dump(const nlohmann::json& j, int indent = -1);

} // namespace copperline::rpc
