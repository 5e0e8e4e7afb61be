// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/dap/dap_protocol.h"

#include "app/control/json_rpc.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

namespace copperline::dap {

using nlohmann::json;

namespace {

constexpr std::string_view kLengthHeader = "Content-Length:";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool sameName(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// Where "Content-Length:" starts in `buffer` from `from` on, spelt in any case as the header
// reader takes it (npos when it is not there).
std::size_t findLengthHeader(const std::string& buffer, std::size_t from) {
    if (buffer.size() < kLengthHeader.size()) return std::string::npos;
    for (std::size_t at = from; at + kLengthHeader.size() <= buffer.size(); ++at)
        if (sameName(std::string_view(buffer).substr(at, kLengthHeader.size()), kLengthHeader)) return at;
    return std::string::npos;
}

// What a person can read of bytes that were not what they should be.
std::string excerpt(std::string_view bytes) {
    std::string out;
    for (const char c : bytes.substr(0, 60))
        out += std::isprint(static_cast<unsigned char>(c)) ? c : '.';
    if (bytes.size() > 60) out += "...";
    return out;
}

} // namespace

std::variant<std::size_t, std::string> MessageReader::contentLength(std::string_view header) const {
    std::optional<std::size_t> length;
    while (!header.empty()) {
        const auto nl = header.find('\n');
        const std::string_view line = trim(header.substr(0, nl));
        header.remove_prefix(nl == std::string_view::npos ? header.size() : nl + 1);
        if (line.empty()) continue;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return "a header line that is not \"Name: value\": \"" + excerpt(line) + "\"";
        const std::string_view name = trim(line.substr(0, colon));
        const std::string_view value = trim(line.substr(colon + 1));
        if (!sameName(name, "Content-Length")) continue; // Content-Type and the like
        if (value.empty() || value.size() > 12 ||
            !std::all_of(value.begin(), value.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            return "Content-Length is not a number of bytes: \"" + excerpt(value) + "\"";
        std::size_t n = 0;
        for (const char c : value)
            n = n * 10 + std::size_t(c - '0');
        if (length && *length != n) return "two Content-Length headers that disagree";
        length = n;
    }
    if (!length) return std::string("a message header without Content-Length");
    return *length;
}

void MessageReader::feed(std::string_view bytes, const std::function<void(json)>& onMessage,
                         const std::function<void(const std::string&)>& onError) {
    buffer_.append(bytes);
    for (;;) {
        switch (state_) {
        case State::Header: {
            // Blank lines between messages are let pass.
            const auto first = buffer_.find_first_not_of("\r\n");
            buffer_.erase(0, first == std::string::npos ? buffer_.size() : first);
            const auto crlf = buffer_.find("\r\n\r\n");
            const auto lf = buffer_.find("\n\n");
            const std::size_t end = std::min(crlf, lf);
            if (end == std::string::npos || end > kMaxHeaderBytes) {
                // A block of kMaxHeaderBytes may still be ending: its empty line (up to
                // "\r\n\r\n") can have begun and not all be here yet.
                if (buffer_.size() < kMaxHeaderBytes + 4 && end == std::string::npos) return;
                onError("a message header of more than " + std::to_string(kMaxHeaderBytes >> 10) +
                        " KiB without the empty line that ends it: \"" + excerpt(buffer_) + "\"");
                buffer_.erase(0, 1);
                state_ = State::Resync;
                continue;
            }
            const std::size_t separator = end == crlf ? 4 : 2;
            const auto parsed = contentLength(std::string_view(buffer_).substr(0, end));
            if (const auto* error = std::get_if<std::string>(&parsed)) {
                onError(*error);
                // The next message starts at the next "Content-Length:" that is not a line of
                // this block: one glued to the end of garbage (a body shorter than its
                // length said leaves its rest before the next header), or one after it.
                std::size_t next = 1;
                for (;;) {
                    next = findLengthHeader(buffer_, next);
                    if (next == std::string::npos || next >= end || buffer_[next - 1] != '\n')
                        break;
                    ++next;
                }
                if (next == std::string::npos) {
                    buffer_.erase(0, end + separator);
                    state_ = State::Resync;
                } else {
                    buffer_.erase(0, next);
                }
                continue;
            }
            buffer_.erase(0, end + separator);
            length_ = std::get<std::size_t>(parsed);
            if (length_ > kMaxBodyBytes) {
                onError("Content-Length " + std::to_string(length_) + " is more than the " +
                        std::to_string(kMaxBodyBytes >> 20) +
                        " MiB a message may have; the message is refused unread");
                state_ = State::Resync;
                continue;
            }
            state_ = State::Body;
            continue;
        }
        case State::Body: {
            if (buffer_.size() < length_) return;
            const std::string_view body = std::string_view(buffer_).substr(0, length_);
            json message = json::parse(body.begin(), body.end(), nullptr, false);
            const std::string shown = message.is_discarded() ? excerpt(body) : std::string();
            buffer_.erase(0, length_);
            state_ = State::Header;
            if (message.is_discarded())
                onError("a message body of " + std::to_string(length_) +
                        " bytes that is not JSON (is its Content-Length right?): \"" + shown +
                        "\"");
            else
                onMessage(std::move(message));
            continue;
        }
        case State::Resync: {
            const auto at = findLengthHeader(buffer_, 0);
            if (at != std::string::npos) {
                buffer_.erase(0, at);
                state_ = State::Header;
                continue;
            }
            // Keep what could be the start of a header split across two reads.
            if (buffer_.size() >= kLengthHeader.size())
                buffer_.erase(0, buffer_.size() - (kLengthHeader.size() - 1));
            return;
        }
        }
    }
}

std::string frame(const json& message) {
    const std::string body = rpc::dump(message);
    return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::variant<Request, Refusal> parseRequest(const json& message) {
    if (!message.is_object()) return Refusal{-1, {}, "a message must be a JSON object"};
    Refusal refusal;
    // A seq past 2^63 - 1 is not read: as an int64 it would be another number.
    if (auto it = message.find("seq"); it != message.end() && it->is_number_integer() &&
                                       !(it->is_number_unsigned() &&
                                         it->get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
        refusal.seq = it->get<std::int64_t>();
    if (auto it = message.find("command"); it != message.end() && it->is_string())
        refusal.command = it->get<std::string>();
    const auto type = message.find("type");
    if (type == message.end() || !type->is_string()) {
        refusal.message = "a message needs a \"type\"";
        return refusal;
    }
    if (*type != "request") {
        refusal.message = "the adapter takes requests, not a message of type \"" +
                          type->get<std::string>() + "\"";
        return refusal;
    }
    if (refusal.seq < 0) {
        refusal.message = "a request needs a \"seq\", a number from 0 up";
        return refusal;
    }
    if (refusal.command.empty()) {
        refusal.message = "a request needs a \"command\"";
        return refusal;
    }
    json arguments = json::object();
    if (auto it = message.find("arguments"); it != message.end() && !it->is_null()) {
        if (!it->is_object()) {
            refusal.message = "\"arguments\" must be an object";
            return refusal;
        }
        arguments = *it;
    }
    return Request{refusal.seq, refusal.command, std::move(arguments)};
}

} // namespace copperline::dap
