// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/command_bus.h"

#include <algorithm>

namespace copperline {

nlohmann::json CommandResult::toJson() const {
    if (ok) return {{"result", result}};
    return {{"error", {{"code", errorCode}, {"message", errorMessage}}}};
}

namespace {

// Edits (insertions, deletions, substitutions, swaps of neighbours) between two short
// names: how far a typed key is from a real one.
std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

} // namespace

std::string unknownParameterMessage(std::string_view method, const nlohmann::json& params,
                                    const std::vector<std::string>& accepted) {
    if (!params.is_object()) return {};
    for (const auto& [key, value] : params.items()) {
        if (std::find(accepted.begin(), accepted.end(), key) != accepted.end()) continue;
        std::string out = std::string(method) + ": unknown parameter \"" + key + "\"";
        // A key one or two edits from a real name (two only for longer names) is most
        // likely that name misspelt.
        const std::string* nearest = nullptr;
        std::size_t best = 0;
        for (const auto& a : accepted) {
            const std::size_t d = editDistance(key, a);
            if ((!nearest || d < best) && d <= (std::min(key.size(), a.size()) > 4 ? 2u : 1u)) {
                nearest = &a;
                best = d;
            }
        }
        // Or a name cut short or spelt out ("length" for "len").
        for (const auto& a : accepted)
            if (!nearest && std::min(key.size(), a.size()) >= 3 &&
                (key.starts_with(a) || a.starts_with(key)))
                nearest = &a;
        if (nearest) out += " (did you mean \"" + *nearest + "\"?)";
        if (accepted.empty()) return out + "; it takes no parameters";
        out += "; it takes ";
        for (std::size_t i = 0; i < accepted.size(); ++i)
            out += (i ? ", " : "") + accepted[i];
        return out;
    }
    return {};
}

void CommandBus::add(const std::string& name, const std::string& summary,
                     std::vector<std::string> params, Handler handler) {
    if (name.empty() || !handler) throw std::logic_error("command needs a name and a handler");
    for (std::size_t i = 0; i < params.size(); ++i)
        if (params[i].empty() || std::find(params.begin(), params.begin() + std::ptrdiff_t(i),
                                           params[i]) != params.begin() + std::ptrdiff_t(i))
            throw std::logic_error("command " + name + ": an empty or repeated parameter name");
    if (!commands_.emplace(name, Entry{summary, std::move(params), std::move(handler)}).second)
        throw std::logic_error("command registered twice: " + name);
}

void CommandBus::add(const std::string& name, const std::string& summary, Handler handler) {
    add(name, summary, {}, std::move(handler));
}

std::vector<std::string> CommandBus::params(std::string_view name) const {
    auto it = commands_.find(name);
    return it == commands_.end() ? std::vector<std::string>() : it->second.params;
}

bool CommandBus::has(std::string_view name) const {
    return commands_.find(name) != commands_.end();
}

std::vector<std::string> CommandBus::names() const {
    std::vector<std::string> out;
    out.reserve(commands_.size());
    for (const auto& [name, entry] : commands_)
        out.push_back(name);
    return out;
}

std::string CommandBus::summary(std::string_view name) const {
    auto it = commands_.find(name);
    return it == commands_.end() ? std::string() : it->second.summary;
}

CommandResult CommandBus::call(std::string_view name, const nlohmann::json& params) const {
    CommandResult out;
    auto it = commands_.find(name);
    if (it == commands_.end()) {
        out.errorCode = errc::MethodNotFound;
        out.errorMessage = "unknown method: " + std::string(name);
        return out;
    }
    if (!params.is_object() && !params.is_null()) {
        out.errorCode = errc::InvalidParams;
        out.errorMessage = "params must be an object";
        return out;
    }
    // Before the handler runs, so that no command can take a misspelt key for an absent one.
    if (std::string refused = unknownParameterMessage(name, params, it->second.params);
        !refused.empty()) {
        out.errorCode = errc::InvalidParams;
        out.errorMessage = std::move(refused);
        return out;
    }
    try {
        out.result = it->second.handler(params.is_null() ? nlohmann::json::object() : params);
        out.ok = true;
    } catch (const CommandError& e) {
        out.errorCode = e.code();
        out.errorMessage = e.what();
    } catch (const nlohmann::json::exception& e) {
        // A parameter of the wrong type or a missing key surfaces as a json exception.
        out.errorCode = errc::InvalidParams;
        out.errorMessage = std::string("invalid params: ") + e.what();
    } catch (const std::exception& e) {
        out.errorCode = errc::InternalError;
        out.errorMessage = e.what();
    } catch (...) {
        out.errorCode = errc::InternalError;
        out.errorMessage = "unknown failure";
    }
    if (!out.ok) out.result = nullptr;
    return out;
}

} // namespace copperline
