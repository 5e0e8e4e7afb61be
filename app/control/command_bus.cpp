#include "app/control/command_bus.h"

namespace copperline {

nlohmann::json CommandResult::toJson() const {
    if (ok) return {{"result", result}};
    return {{"error", {{"code", errorCode}, {"message", errorMessage}}}};
}

void CommandBus::add(const std::string& name, const std::string& summary, Handler handler) {
    if (name.empty() || !handler) throw std::logic_error("command needs a name and a handler");
    if (!commands_.emplace(name, Entry{summary, std::move(handler)}).second)
        throw std::logic_error("command registered twice: " + name);
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
