// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Debug Adapter Protocol's wire format: each message is a header block of
// "Name: value" lines (Content-Length the one that matters) ending in an empty line, then
// Content-Length bytes of UTF-8 JSON. Plain C++: the reader takes bytes in any pieces and
// never trusts the peer: a header that does not end within 8 KiB, a Content-Length that is
// not a number or asks for more than 16 MiB (refused before a byte of it is kept), a body
// that is not JSON, each earns one error and the reader looks for the next
// "Content-Length:" header, so the session goes on.

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

namespace copperline::dap {

inline constexpr std::size_t kMaxHeaderBytes = 8u << 10;
inline constexpr std::size_t kMaxBodyBytes = 16u << 20;

class MessageReader {
public:
    // onMessage gets every body that is JSON; onError says what was wrong with the rest.
    void feed(std::string_view bytes, const std::function<void(nlohmann::json)>& onMessage,
              const std::function<void(const std::string&)>& onError);

    // Bytes held now (a header in progress, or a body up to its length): for tests.
    std::size_t buffered() const { return buffer_.size(); }

private:
    enum class State { Header, Body, Resync };
    // Parses the header block (without its empty line): the body's length, or an error.
    std::variant<std::size_t, std::string> contentLength(std::string_view header) const;

    State state_ = State::Header;
    std::string buffer_;
    std::size_t length_ = 0;
};

// A message as it goes on the wire: "Content-Length: N\r\n\r\n" and the JSON. Strings that
// are not UTF-8 are repaired, never thrown on.
std::string frame(const nlohmann::json& message);

// A request that is well formed: {"type": "request", "seq", "command", "arguments"?}.
struct Request {
    std::int64_t seq = 0;
    std::string command;
    nlohmann::json arguments; // always an object
};
// Or why not, with the seq when one could be read (else -1), so that a reply can name it.
struct Refusal {
    std::int64_t seq = -1;
    std::string command;
    std::string message;
};
// Responses and events from a client are not requests; they are refused too.
std::variant<Request, Refusal> parseRequest(const nlohmann::json& message);

} // namespace copperline::dap
