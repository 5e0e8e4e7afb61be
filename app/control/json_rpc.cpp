// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/json_rpc.h"

namespace copperline::rpc {

using nlohmann::json;

void LineFramer::feed(std::string_view bytes, const std::function<void(std::string_view)>& onLine,
                      const std::function<void()>& onOverlong) {
    while (!bytes.empty()) {
        const auto nl = bytes.find('\n');
        const std::string_view part = bytes.substr(0, nl);
        if (discarding_) {
            if (nl == std::string_view::npos) return;
            discarding_ = false;
        } else if (buffer_.size() + part.size() > max_) {
            buffer_.clear();
            buffer_.shrink_to_fit();
            onOverlong();
            if (nl == std::string_view::npos) {
                discarding_ = true;
                return;
            }
        } else if (nl == std::string_view::npos) {
            buffer_.append(part);
            return;
        } else if (buffer_.empty()) {
            onLine(part);
        } else {
            buffer_.append(part);
            const std::string line = std::move(buffer_);
            buffer_.clear();
            onLine(line);
        }
        bytes.remove_prefix(nl + 1);
    }
}

std::variant<Request, Rejection> parseRequest(std::string_view line) {
    json j = json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded())
        return Rejection{nullptr, errc::ParseError, "parse error: not a JSON text"};
    if (j.is_array())
        return Rejection{nullptr, errc::InvalidRequest, "batch requests are not supported"};
    if (!j.is_object())
        return Rejection{nullptr, errc::InvalidRequest, "a request is a JSON object"};
    json id = nullptr;
    if (auto it = j.find("id"); it != j.end()) {
        if (it->is_number_integer() || it->is_number_unsigned() || it->is_string())
            id = *it;
        else
            return Rejection{nullptr, errc::InvalidRequest, "id must be an integer or a string"};
    } else {
        return Rejection{nullptr, errc::InvalidRequest, "a request needs an id"};
    }
    if (auto it = j.find("jsonrpc"); it != j.end() && *it != "2.0")
        return Rejection{id, errc::InvalidRequest, "jsonrpc must be \"2.0\""};
    auto m = j.find("method");
    if (m == j.end() || !m->is_string())
        return Rejection{id, errc::InvalidRequest, "method must be a string"};
    json params = json::object();
    if (auto it = j.find("params"); it != j.end() && !it->is_null()) {
        if (!it->is_object()) return Rejection{id, errc::InvalidParams, "params must be an object"};
        params = std::move(*it);
    }
    return Request{std::move(id), m->get<std::string>(), std::move(params)};
}

std::string dump(const json& j, int indent) {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string resultLine(const json& id, const json& result) {
    return dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}) + "\n";
}

std::string errorLine(const json& id, int code, const std::string& message) {
    return dump(json{
               {"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}) +
           "\n";
}

std::string replyLine(const json& id, const CommandResult& r) {
    return r.ok ? resultLine(id, r.result) : errorLine(id, r.errorCode, r.errorMessage);
}

std::string notificationLine(const std::string& method, const json& params) {
    return dump(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}) + "\n";
}

std::string requestLine(const json& id, const std::string& method, const json& params) {
    return dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}) +
           "\n";
}

} // namespace copperline::rpc
