// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/dap/dap_adapter.h"

#include "app/control/json_rpc.h"
#include "app/ctl/commands.h"
#include "app/ctl/console_input.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace copperline::dap {

using nlohmann::json;

namespace {

constexpr int kCpuThread = 1;
constexpr int kCopperThread = 2;
// The Copper's one frame; CPU frames are numbered from 1 (stack.frames' index + 1).
constexpr int kCopperFrame = 1000000;
constexpr std::size_t kMaxRead = 1u << 20; // mem.read's bound

// The exception filters: the vectors each catches (break.add {kind: "catch"}).
struct ExceptionFilter {
    const char* id;
    const char* label;
    const char* description;
    std::vector<unsigned> vectors;
    bool byDefault;
};

const std::vector<ExceptionFilter>& exceptionFilters() {
    static const std::vector<ExceptionFilter> filters = [] {
        std::vector<unsigned> traps;
        for (unsigned v = 32; v < 48; ++v)
            traps.push_back(v);
        return std::vector<ExceptionFilter>{
            {"address-error",
             "Address error",
             "a word or longword access at an odd address (vector 3)",
             {3},
             true},
            {"illegal",
             "Illegal instruction",
             "an opcode the 68000 does not have (vector 4)",
             {4},
             true},
            {"zero-divide", "Division by zero", "DIVU or DIVS by zero (vector 5)", {5}, true},
            {"privilege",
             "Privilege violation",
             "a supervisor instruction in user mode (vector 8)",
             {8},
             false},
            {"trap", "TRAP #0-15", "a TRAP instruction (vectors 32-47)", traps, false},
            {"bus-error", "Bus error", "a bus error (vector 2)", {2}, false},
            {"chk", "CHK", "CHK out of bounds (vector 6)", {6}, false},
            {"trapv", "TRAPV", "TRAPV with overflow set (vector 7)", {7}, false},
            {"line-a", "Line A", "an $Axxx opcode (vector 10)", {10}, false},
            {"line-f", "Line F", "an $Fxxx opcode (vector 11)", {11}, false},
        };
    }();
    return filters;
}

// The vectors break.add {kind: "catch"} takes: what an instruction raises.
bool catchable(unsigned v) {
    return (v >= 2 && v <= 8) || v == 10 || v == 11 || (v >= 32 && v < 48);
}

std::string hex(std::uint64_t v, int digits = 8) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(v));
    return buf;
}

std::string dollar(std::uint64_t v, int digits) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "$%0*llX", digits, static_cast<unsigned long long>(v));
    return buf;
}

// "0x1F", "$1F" or decimal (copperline-ctl's reading of an address); nothing for anything
// else.
std::optional<std::uint64_t> number(std::string s) {
    while (!s.empty() && s.front() == ' ')
        s.erase(0, 1);
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    try {
        return ctl::parseAddress(s, "number");
    } catch (const ctl::UsageError&) {
        return std::nullopt;
    }
}

// A request's memoryReference, an address. Throws ArgumentError.
std::uint64_t memoryReference(const json& arguments) {
    const std::string ref = stringArgument(arguments, "memoryReference");
    const auto address = number(ref);
    if (!address) throw ArgumentError("memoryReference: \"" + ref + "\" is no address");
    return *address;
}

std::string basename(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

// A DAP breakpoint's condition, hit count and log message as break.add's cond, ignore and
// log. A hit count is the hit to stop at first ("5", ">=5") or the hits to pass over
// (">5"); gdb's ignore count, which is what the engine keeps, has no "==" or "%".
std::string conditions(const json& bp, json& params) {
    if (const std::string c = stringArgument(bp, "condition"); !c.empty()) params["cond"] = c;
    if (std::string h = stringArgument(bp, "hitCondition"); !h.empty()) {
        h.erase(std::remove(h.begin(), h.end(), ' '), h.end());
        std::int64_t pass = -1;
        if (h.starts_with(">=")) {
            if (auto n = number(h.substr(2)); n && *n >= 1) pass = std::int64_t(*n) - 1;
        } else if (h.starts_with(">")) {
            if (auto n = number(h.substr(1))) pass = std::int64_t(*n);
        } else if (auto n = number(h); n && *n >= 1) {
            pass = std::int64_t(*n) - 1;
        }
        if (pass < 0 || pass > 0x7FFFFFFF)
            return "hitCondition: \"" + h +
                   "\" is not a hit count (N or >=N: stop at the Nth hit and after; >N: pass "
                   "over N hits)";
        params["ignore"] = pass;
    }
    if (const std::string l = stringArgument(bp, "logMessage"); !l.empty()) params["log"] = l;
    return {};
}

// The C expression of a child, from its parent's and the name vars.get gives it: a member
// ("x"), an element ("[2]") or what a pointer points at ("*p").
std::string childExpression(const std::string& parent, const std::string& name) {
    if (parent.empty()) return name;
    if (name.starts_with("*")) return "*" + parent;
    const std::string p = parent.starts_with("*") ? "(" + parent + ")" : parent;
    return name.starts_with("[") ? p + name : p + "." + name;
}

std::string copperInstruction(const json& i) {
    const std::string op = i.value("op", std::string());
    const json words = i.value("words", json::array());
    if (op == "move") {
        const json reg = i.value("reg_name", json());
        return "MOVE #" + dollar(i.value("value", 0u), 4) + "," +
               (reg.is_string() ? reg.get<std::string>() : dollar(i.value("reg", 0u), 3));
    }
    if (op == "wait" || op == "skip") {
        if (i.value("end", false)) return "WAIT $FFFF,$FFFE (end of the list)";
        return (op == "wait" ? "WAIT " : "SKIP ") + dollar(i.value("vpos", 0u), 2) + "," +
               dollar(i.value("hpos", 0u), 2);
    }
    return op;
}

} // namespace

Session::Session(Writer write, std::function<void()> ended, std::string ctlDirectory,
                 std::string ctlPath)
    : write_(std::move(write)), ended_(std::move(ended)), ctlDirectory_(std::move(ctlDirectory)),
      ctlPath_(std::move(ctlPath)) {
    handlers_ = {
        {"initialize", &Session::initialize},
        {"launch", &Session::launch},
        {"attach", &Session::attach},
        {"configurationDone", &Session::configurationDone},
        {"setBreakpoints", &Session::setBreakpoints},
        {"setFunctionBreakpoints", &Session::setFunctionBreakpoints},
        {"setInstructionBreakpoints", &Session::setInstructionBreakpoints},
        {"dataBreakpointInfo", &Session::dataBreakpointInfo},
        {"setDataBreakpoints", &Session::setDataBreakpoints},
        {"setExceptionBreakpoints", &Session::setExceptionBreakpoints},
        {"breakpointLocations", &Session::breakpointLocations},
        {"threads", &Session::threads},
        {"stackTrace", &Session::stackTrace},
        {"scopes", &Session::scopes},
        {"variables", &Session::variables},
        {"setVariable", &Session::setVariable},
        {"evaluate", &Session::evaluate},
        {"continue", &Session::continueRequest},
        {"next", &Session::next},
        {"stepIn", &Session::stepIn},
        {"stepOut", &Session::stepOut},
        {"stepBack", &Session::stepBack},
        {"reverseContinue", &Session::reverseContinue},
        {"pause", &Session::pause},
        {"disassemble", &Session::disassemble},
        {"readMemory", &Session::readMemory},
        {"writeMemory", &Session::writeMemory},
        {"loadedSources", &Session::loadedSources},
        {"exceptionInfo", &Session::exceptionInfo},
        {"terminate", &Session::terminate},
        {"disconnect", &Session::disconnect},
        {"copperline/profile", &Session::profile},
        {"copperline/coverage", &Session::coverage},
        {"copperline/strip", &Session::strip},
    };
}

Session::~Session() {
    // The link and the process go first, so that none of their callbacks reaches a half
    // destroyed session.
    link_.reset();
    report_.reset();
    emulator_.reset();
}

// ---- messages ----------------------------------------------------------------------------

void Session::feed(std::string_view bytes) {
    reader_.feed(
        bytes, [this](json msg) { message(std::move(msg)); },
        [this](const std::string& what) { protocolError(what); });
}

void Session::message(json msg) {
    if (options_.trace) trace("<- " + rpc::dump(msg));
    auto parsed = parseRequest(msg);
    if (const auto* refusal = std::get_if<Refusal>(&parsed)) {
        if (refusal->seq < 0) {
            protocolError(refusal->message);
            return;
        }
        send({{"type", "response"},
              {"request_seq", refusal->seq},
              {"command", refusal->command},
              {"success", false},
              {"message", refusal->message}});
        return;
    }
    dispatch(std::get<Request>(parsed));
}

void Session::dispatch(const Request& r) {
    const auto handler = handlers_.find(r.command);
    if (handler == handlers_.end()) {
        fail(r, "unknown request \"" + r.command + "\"");
        return;
    }
    static const std::set<std::string> withoutEngine = {"initialize", "launch", "attach",
                                                        "disconnect"};
    if (!withoutEngine.contains(r.command) && !(link_ && link_->isOpen())) {
        if (starting_) {
            queued_.push_back(r);
            return;
        }
        fail(r, r.command + ": no emulator (send launch or attach first, or it has ended)");
        return;
    }
    try {
        (this->*handler->second)(r);
    } catch (const std::exception& e) {
        fail(r, r.command + ": " + e.what());
    }
}

void Session::protocolError(const std::string& what) {
    std::fprintf(stderr, "copperline-ctl --dap: %s\n", what.c_str());
    std::fflush(stderr);
    output("stderr", "copperline-ctl --dap: " + what + "\n");
}

void Session::send(json msg) {
    msg["seq"] = seq_++;
    if (options_.trace) trace("-> " + rpc::dump(msg));
    write_(frame(msg));
}

void Session::respond(const Request& r, json body) {
    json msg = {
        {"type", "response"}, {"request_seq", r.seq}, {"command", r.command}, {"success", true}};
    if (!body.is_null() && !body.empty()) msg["body"] = std::move(body);
    send(std::move(msg));
}

void Session::fail(const Request& r, const std::string& message) {
    send({{"type", "response"},
          {"request_seq", r.seq},
          {"command", r.command},
          {"success", false},
          {"message", message}});
}

void Session::event(const std::string& name, json body) {
    json msg = {{"type", "event"}, {"event", name}};
    if (!body.is_null() && !body.empty()) msg["body"] = std::move(body);
    send(std::move(msg));
}

void Session::output(const std::string& category, const std::string& text, json extra) {
    if (text.empty()) return;
    json body = std::move(extra);
    body["category"] = category;
    body["output"] = text;
    event("output", std::move(body));
}

void Session::trace(const std::string& line) {
    std::fprintf(stderr, "dap %s\n", line.c_str());
    std::fflush(stderr);
}

// ---- the engine --------------------------------------------------------------------------

void Session::call(const std::string& method, const json& params, ControlLink::OnReply reply) {
    if (!link_) {
        reply(Reply::failure(errc::ShuttingDown, "the emulator is not connected"));
        return;
    }
    link_->call(method, params, [this, method, reply = std::move(reply)](const Reply& r) {
        // Nothing a reply holds may end the session: a value of an unexpected shape is a
        // message, never an exception through the event loop.
        try {
            reply(r);
        } catch (const std::exception& e) {
            protocolError("the reply to " + method + " could not be used: " + e.what());
        }
    });
}

void Session::batch(std::vector<std::pair<std::string, json>> calls,
                    std::function<void(std::vector<Reply>)> done) {
    if (calls.empty()) {
        done({});
        return;
    }
    auto replies = std::make_shared<std::vector<Reply>>(calls.size());
    auto left = std::make_shared<std::size_t>(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i)
        call(calls[i].first, calls[i].second, [replies, left, i, done](const Reply& r) {
            (*replies)[i] = r;
            if (--*left == 0) done(std::move(*replies));
        });
}

void Session::connect(const std::string& socket, const Request& r) {
    link_ = std::make_unique<ControlLink>();
    if (options_.trace)
        link_->tracer = [this](const std::string& line, bool sent) {
            trace(std::string(sent ? "ctl -> " : "ctl <- ") + line);
        };
    link_->onNotification = [this](const std::string& method, const json& params) {
        try {
            notified(method, params);
        } catch (const std::exception& e) {
            protocolError(method + " could not be used: " + e.what());
        }
    };
    link_->onClosed = [this] { linkClosed(); };
    link_->open(socket, [this, r, socket](const std::string& error) {
        if (!error.empty()) {
            starting_ = false;
            fail(r, "cannot connect to the control socket " + socket + ": " + error);
            queued_.clear();
            return;
        }
        connected(r);
    });
}

void Session::connected(const Request& r) {
    const json events = {"event.stopped", "event.serial", "event.debug", "event.log",
                         "event.profile", "event.output"};
    call("events.subscribe", {{"events", events}}, [this, r](const Reply& reply) {
        starting_ = false;
        if (!reply.ok) {
            fail(r, "events.subscribe: " + reply.message);
            queued_.clear();
            return;
        }
        respond(r);
        event("initialized");
        auto queued = std::move(queued_);
        queued_.clear();
        for (const Request& q : queued)
            dispatch(q);
    });
}

void Session::notified(const std::string& method, const json& params) {
    if (method == "event.stopped") {
        // A resume of ours replies with its stop after this notification: that reply shows
        // it, once.
        if (waitingResumes_ == 0) stopped(params);
    } else if (method == "event.serial") {
        // A launched machine's serial port carries AROS's boot log until the program loads:
        // the program's own output starts there.
        if (entered_ || loadPending_ || !emulator_)
            output("stdout", params.value("text", std::string()));
    } else if (method == "event.output") {
        // What the program writes to its output (dos.library Write).
        output("stdout", params.value("text", std::string()));
    } else if (method == "event.debug") {
        for (const json& item : params.value("items", json::array())) {
            if (item.value("kind", std::string()) != "log") continue;
            const std::string text = item.value("text", std::string());
            output("console",
                   (item.value("refused", false) ? "uaelib refused: " : "") + text + "\n");
        }
    } else if (method == "event.log") {
        json where = json::object();
        const auto it = placed_.find(params.value("id", 0));
        if (it != placed_.end() && it->second.kind == Placed::Kind::Line)
            where["source"] = {{"name", basename(it->second.path)}, {"path", it->second.path}};
        output("console", params.value("text", std::string()) + "\n", std::move(where));
    } else if (method == "event.profile") {
        if (profiling_ && waitingResumes_ == 0) finishProfile(*profiling_);
    }
}

void Session::linkClosed() {
    if (disconnecting_) return;
    output("console", "copperline-ctl --dap: the emulator closed the control connection\n");
    // A launched emulator is ending: its exit status is the session's last word.
    if (emulator_ && emulator_->running()) {
        emulator_->finish(5000);
        return;
    }
    terminated();
}

void Session::emulatorExited(int code) {
    if (disconnecting_) return;
    event("exited", {{"exitCode", code}});
    terminated();
}

void Session::terminated() {
    if (terminatedSent_) return;
    terminatedSent_ = true;
    event("terminated");
}

void Session::end() {
    if (ended_flag_) return;
    ended_flag_ = true;
    if (ended_) ended_();
}

void Session::clientGone() {
    disconnecting_ = true;
    if (emulator_ && emulator_->running()) {
        if (link_ && link_->isOpen()) {
            link_->call("quit", json::object(), nullptr);
            link_->flush();
        }
        emulator_->finish(10000);
    }
    end();
}

// ---- stops and resumes -------------------------------------------------------------------

void Session::machineMoved() {
    containers_.clear();
    shown_.clear();
}

void Session::stopped(const json& stop) {
    machineMoved();
    lastStop_ = stop;
    const std::string reason = stop.value("reason", std::string());
    const json detail = stop.value("detail", json::object());
    if (reason == "loadseg") {
        programLoaded();
        return;
    }
    if (reason == "run_failed") {
        std::string text = detail.value("message", std::string("the program could not be run"));
        if (detail.contains("hint") && detail["hint"].is_string())
            text += " (" + detail["hint"].get<std::string>() + ")";
        output("important", text + "\n");
        terminated();
        return;
    }
    json body = {{"threadId", kCpuThread}, {"allThreadsStopped", true}};
    std::string dapReason = "pause", description;
    std::vector<int> ids;
    if (detail.contains("ids") && detail["ids"].is_array()) {
        for (const json& id : detail["ids"])
            if (id.is_number_integer()) ids.push_back(id.get<int>());
    } else if (detail.contains("id") && detail["id"].is_number_integer()) {
        ids.push_back(detail["id"].get<int>());
    }
    const auto kindOf = [this](int id) {
        const auto it = placed_.find(id);
        return it == placed_.end() ? Placed::Kind::Line : it->second.kind;
    };
    if (reason == "breakpoint" || (reason == "reverse" && detail.value("kind", "") == "pc")) {
        dapReason = "breakpoint";
        if (!ids.empty() && kindOf(ids.front()) == Placed::Kind::Function)
            dapReason = "function breakpoint";
        if (!ids.empty() && kindOf(ids.front()) == Placed::Kind::Instruction)
            dapReason = "instruction breakpoint";
        if (detail.contains("condition_error"))
            description = "the condition could not be evaluated: " +
                          detail["condition_error"].get<std::string>();
    } else if (reason == "watchpoint" || reason == "watchpoint_scope" ||
               (reason == "reverse" && detail.value("kind", "") == "watch")) {
        dapReason = "data breakpoint";
        if (reason == "watchpoint_scope") {
            description = detail.value("message", std::string());
        } else if (detail.contains("expr")) {
            description = detail.value("expr", std::string()) + ": " +
                          detail.value("old", std::string()) + " -> " +
                          detail.value("new", std::string());
        } else {
            description = detail.value("access", std::string("access")) + " of " +
                          hex(detail.value("address", 0u), 6) + " by the instruction at " +
                          hex(detail.value("instruction_pc", 0u), 6);
        }
    } else if (reason == "catch") {
        dapReason = "exception";
        description = detail.value("name", std::string("exception"));
        body["text"] = description + " raised by the instruction at " +
                       hex(detail.value("instruction_pc", 0u), 6);
    } else if (reason == "double_fault") {
        dapReason = "exception";
        description = "the CPU halted (a double bus fault)";
    } else if (reason == "step" || reason == "target" || reason == "reverse") {
        dapReason = "step";
        if (detail.value("reached_oldest", false))
            description = "the oldest point the record of the past holds";
    } else if (reason == "budget") {
        dapReason = "step";
        description = "the step gave up at its bound";
    } else if (reason == "seek" || reason == "strip") {
        dapReason = "goto";
    } else if (reason != "pause") {
        description = reason;
    }
    body["reason"] = dapReason;
    if (!description.empty()) body["description"] = description;
    if (!ids.empty() && reason != "catch") body["hitBreakpointIds"] = ids;
    event("stopped", std::move(body));
}

void Session::programLoaded() {
    refreshBreakpoints();
    if (!configured_) {
        loadPending_ = true;
        return;
    }
    enterProgram();
}

void Session::enterProgram() {
    const bool first = !entered_;
    entered_ = true;
    if (first && options_.stopOnEntry && !options_.noDebug) {
        event("stopped", {{"reason", "entry"},
                          {"description", "at the program's first instruction"},
                          {"threadId", kCpuThread},
                          {"allThreadsStopped", true}});
        return;
    }
    call("continue", {{"wait", false}}, [this](const Reply& r) {
        if (!r.ok) output("stderr", "continue: " + r.message + "\n");
    });
}

void Session::resume(const Request& r) {
    machineMoved();
    call("continue", {{"wait", false}}, [this, r](const Reply& reply) {
        if (refused(r, reply)) return;
        respond(r, {{"allThreadsContinued", true}});
    });
}

void Session::runWaited(const std::string& method, const json& params,
                        std::function<void(const Reply&)> after) {
    machineMoved();
    ++waitingResumes_;
    call(method, params, [this, after = std::move(after)](const Reply& reply) {
        --waitingResumes_;
        after(reply);
        if (reply.ok) stopped(reply.result);
    });
}

void Session::resumeWaited(const Request& r, const std::string& method, const json& params) {
    runWaited(method, params, [this, r](const Reply& reply) {
        if (reply.ok)
            respond(r);
        else
            fail(r, reply.message);
    });
}

void Session::refreshBreakpoints() {
    call("break.list", json::object(), [this](const Reply& reply) {
        if (!reply.ok) return;
        for (const json& b : reply.result.value("breakpoints", json::array())) {
            const auto it = placed_.find(b.value("id", 0));
            if (it == placed_.end() || (it->second.kind != Placed::Kind::Line &&
                                        it->second.kind != Placed::Kind::Function))
                continue;
            Reply one;
            one.ok = true;
            one.result = b;
            event("breakpoint", {{"reason", "changed"}, {"breakpoint", breakpointBody(one)}});
        }
    });
}

void Session::replaceBreakpoints(std::vector<int>& ids, std::vector<json> adds, Placed placed,
                                 std::function<void(std::vector<Reply>)> done) {
    std::vector<std::pair<std::string, json>> calls;
    for (const int id : ids) {
        calls.emplace_back("break.remove", json{{"id", id}});
        placed_.erase(id);
    }
    ids.clear();
    const std::size_t removals = calls.size();
    // An add refused before it is sent ({"refused": why}) keeps its place in the answer.
    std::vector<std::optional<Reply>> answers(adds.size());
    std::vector<std::size_t> sent;
    for (std::size_t i = 0; i < adds.size(); ++i) {
        if (options_.noDebug)
            adds[i] = {{"refused", "noDebug: the program runs without breakpoints"}};
        if (adds[i].contains("refused")) {
            answers[i] = Reply::failure(errc::InvalidParams, adds[i]["refused"].get<std::string>());
            continue;
        }
        sent.push_back(i);
        calls.emplace_back("break.add", adds[i]);
    }
    std::vector<int>* slot = &ids;
    batch(std::move(calls), [this, removals, sent, answers = std::move(answers), slot, placed,
                             done = std::move(done)](std::vector<Reply> replies) mutable {
        for (std::size_t k = 0; k < sent.size(); ++k) {
            const Reply& r = replies[removals + k];
            answers[sent[k]] = r;
            if (r.ok && r.result.contains("id")) {
                const int id = r.result["id"].get<int>();
                slot->push_back(id);
                placed_[id] = placed;
            }
        }
        std::vector<Reply> out;
        for (auto& a : answers)
            out.push_back(a ? *a : Reply::failure(errc::InternalError, "no answer"));
        done(std::move(out));
    });
}

bool Session::refused(const Request& r, const Reply& reply) {
    if (reply.ok) return false;
    fail(r, reply.message);
    return true;
}

std::function<void(std::vector<Reply>)> Session::breakpointsAnswer(const Request& r) {
    return [this, r](std::vector<Reply> replies) {
        json out = json::array();
        for (const Reply& reply : replies)
            out.push_back(breakpointBody(reply));
        respond(r, {{"breakpoints", out}});
    };
}

// ---- shaping -----------------------------------------------------------------------------

std::string Session::toLocal(const std::string& debugPath) const {
    for (const auto& [from, to] : options_.sourceMap)
        if (debugPath.starts_with(from)) return to + debugPath.substr(from.size());
    return debugPath;
}

std::string Session::toDebug(const std::string& localPath) const {
    for (const auto& [from, to] : options_.sourceMap)
        if (localPath.starts_with(to)) return from + localPath.substr(to.size());
    return localPath;
}

json Session::sourceOf(const std::string& debugPath) const {
    const std::string local = toLocal(debugPath);
    return {{"name", basename(local)}, {"path", local}};
}

json Session::breakpointBody(const Reply& reply) const {
    if (!reply.ok) return {{"verified", false}, {"message", reply.message}};
    const json& b = reply.result;
    json out = {{"id", b.value("id", 0)}, {"verified", b.value("verified", true)}};
    if (b.contains("actual_line") && b["actual_line"].is_number_integer())
        out["line"] = lineOut(b["actual_line"].get<int>());
    if (b.contains("actual_file") && b["actual_file"].is_string())
        out["source"] = sourceOf(b["actual_file"].get<std::string>());
    if (b.contains("pending") && b["pending"].is_string()) {
        out["verified"] = false;
        out["message"] = b["pending"];
    }
    if (b.value("kind", std::string()) == "pc" && b.contains("addr"))
        out["instructionReference"] = hex(b["addr"].get<std::uint64_t>());
    if (b.value("kind", std::string()) == "catch") out["message"] = b.value("name", std::string());
    return out;
}

void Session::opens(const json& v, int frame, const std::string& expression, json& out) {
    const int ref = v.value("ref", 0);
    if (ref <= 0) return;
    Container c;
    c.engineRef = ref;
    c.frame = frame;
    c.evaluateName = expression;
    out["variablesReference"] = container(std::move(c));
    if (v.contains("indexed"))
        out["indexedVariables"] = v["indexed"];
    else if (v.contains("children"))
        out["namedVariables"] = v["children"];
}

int Session::container(Container c) {
    containers_.push_back(std::move(c));
    return int(containers_.size());
}

json Session::variable(const json& v, int containerRef, const Container& parent) {
    const std::string name = v.value("name", std::string());
    json out = {{"name", name},
                {"value", v.value("value", std::string())},
                {"type", v.value("type", std::string())},
                {"variablesReference", 0}};
    const std::string expr =
        parent.registerScope ? "$" + name : childExpression(parent.evaluateName, name);
    if (!expr.empty()) out["evaluateName"] = expr;
    Shown shown{expr, parent.frame, std::nullopt};
    if (v.contains("address") && v["address"].is_number_unsigned()) {
        shown.address = std::uint32_t(v["address"].get<std::uint64_t>());
        out["memoryReference"] = hex(*shown.address);
    }
    opens(v, parent.frame, expr, out);
    shown_[{containerRef, name}] = std::move(shown);
    return out;
}

// ---- requests: the session ---------------------------------------------------------------

void Session::initialize(const Request& r) {
    const json& a = r.arguments;
    linesStartAt1_ = a.value("linesStartAt1", true);
    columnsStartAt1_ = a.value("columnsStartAt1", true);
    invalidatedEvents_ = a.value("supportsInvalidatedEvent", false);
    memoryEvents_ = a.value("supportsMemoryEvent", false);
    json filters = json::array();
    for (const ExceptionFilter& f : exceptionFilters())
        filters.push_back({{"filter", f.id},
                           {"label", f.label},
                           {"description", f.description},
                           {"default", f.byDefault}});
    respond(r, {{"supportsConfigurationDoneRequest", true},
                {"supportsFunctionBreakpoints", true},
                {"supportsConditionalBreakpoints", true},
                {"supportsHitConditionalBreakpoints", true},
                {"supportsLogPoints", true},
                {"supportsEvaluateForHovers", true},
                {"exceptionBreakpointFilters", filters},
                {"supportsStepBack", true},
                {"supportsSetVariable", true},
                {"supportsDataBreakpoints", true},
                {"supportsDataBreakpointBytes", true},
                {"supportsInstructionBreakpoints", true},
                {"supportsReadMemoryRequest", true},
                {"supportsWriteMemoryRequest", true},
                {"supportsDisassembleRequest", true},
                {"supportsSteppingGranularity", true},
                {"supportsLoadedSourcesRequest", true},
                {"supportsBreakpointLocationsRequest", true},
                {"supportsExceptionInfoRequest", true},
                {"supportsTerminateRequest", true},
                {"supportTerminateDebuggee", true},
                {"supportSuspendDebuggee", true},
                {"supportsDelayedStackTraceLoading", true},
                {"supportsValueFormattingOptions", false},
                {"supportsRestartRequest", false}});
}

void Session::launch(const Request& r) {
    if (link_ || starting_ || emulator_) {
        fail(r, "launch: this session has an emulator already");
        return;
    }
    LaunchArguments l;
    try {
        l = parseLaunch(r.arguments, ctlDirectory_);
    } catch (const ArgumentError& e) {
        fail(r, std::string("launch: ") + e.what());
        return;
    }
    options_ = l.session;
    for (const std::string& note : options_.notes)
        output("console", note + "\n");
    emulator_ = std::make_unique<LaunchedEmulator>();
    emulator_->onOutput = [this](const std::string& stream, const std::string& text) {
        output(stream == "stdout" ? "stdout" : "console", text);
    };
    emulator_->onExited = [this](int code) { emulatorExited(code); };
    starting_ = true;
    emulator_->start(
        l, [this, r](const std::string& socket) { connect(socket, r); },
        [this, r](const std::string& why) {
            starting_ = false;
            queued_.clear();
            fail(r, "launch: " + why);
        });
}

void Session::attach(const Request& r) {
    if (link_ || starting_ || emulator_) {
        fail(r, "attach: this session has an emulator already");
        return;
    }
    std::string socket;
    try {
        options_ = parseSessionOptions(r.arguments);
        socket = attachSocket(r.arguments);
    } catch (const ArgumentError& e) {
        fail(r, std::string("attach: ") + e.what());
        return;
    }
    starting_ = true;
    connect(socket, r);
}

void Session::configurationDone(const Request& r) {
    configured_ = true;
    respond(r);
    if (!emulator_) {
        // Attached: show where the machine stands when it stands still.
        call("status", json::object(), [this](const Reply& s) {
            if (s.ok && s.result.value("state", std::string()) == "paused")
                stopped({{"reason", "pause"}, {"pc", s.result.value("pc", 0u)}});
        });
        refreshBreakpoints();
        return;
    }
    if (loadPending_) {
        loadPending_ = false;
        enterProgram();
        return;
    }
    // Launched: a headless machine waits paused at power-on for the first continue, which
    // runs to the program's load (reason loadseg); a windowed one runs there by itself.
    call("status", json::object(), [this](const Reply& s) {
        if (!s.ok || s.result.value("state", std::string()) != "paused" || entered_) return;
        call("segments.list", json::object(), [this](const Reply& seg) {
            if (entered_) return;
            if (seg.ok && seg.result.contains("run") && seg.result["run"].is_object()) {
                programLoaded();
                return;
            }
            call("continue", {{"wait", false}}, [this](const Reply& c) {
                if (!c.ok) output("stderr", "continue: " + c.message + "\n");
            });
        });
    });
}

void Session::terminate(const Request& r) {
    if (!emulator_) {
        // Attached: the emulator is not this session's to end; the session ends.
        respond(r);
        terminated();
        return;
    }
    call("quit", json::object(), [this, r](const Reply&) { respond(r); });
}

void Session::disconnect(const Request& r) {
    disconnecting_ = true;
    const bool quit = r.arguments.value("terminateDebuggee", emulator_ != nullptr);
    const bool suspend = r.arguments.value("suspendDebuggee", false);
    auto finish = [this, r] {
        respond(r);
        end();
    };
    if (!link_ || !link_->isOpen()) {
        if (emulator_) emulator_->finish(3000);
        finish();
        return;
    }
    if (quit) {
        call("quit", json::object(), [this, finish](const Reply&) {
            if (emulator_) emulator_->finish(10000);
            finish();
        });
        return;
    }
    // Detach: this session's breakpoints go, and a paused machine runs on unless asked not.
    std::vector<std::pair<std::string, json>> calls;
    for (const auto& [id, p] : placed_)
        calls.emplace_back("break.remove", json{{"id", id}});
    calls.emplace_back("events.unsubscribe", json::object());
    calls.emplace_back("status", json::object());
    batch(std::move(calls), [this, suspend, finish](std::vector<Reply> replies) {
        const Reply& status = replies.back();
        if (!suspend && status.ok && status.result.value("state", std::string()) == "paused") {
            call("continue", {{"wait", false}}, [finish](const Reply&) { finish(); });
            return;
        }
        finish();
    });
}

// ---- requests: breakpoints ---------------------------------------------------------------

void Session::setBreakpoints(const Request& r) {
    const json source = r.arguments.value("source", json::object());
    const std::string path = stringArgument(source, "path");
    if (path.empty()) {
        fail(r, "setBreakpoints: source.path is required (sources without a path have no lines "
                "here)");
        return;
    }
    json wanted = r.arguments.value("breakpoints", json::array());
    if (wanted.empty() && r.arguments.contains("lines"))
        for (const json& line : r.arguments["lines"])
            wanted.push_back({{"line", line}});
    std::vector<json> adds;
    std::vector<int> lines;
    for (const json& bp : wanted) {
        const int line = int(integerArgument(bp, "line", 0));
        lines.push_back(line);
        json add = {
            {"kind", "line"}, {"file", toDebug(path)}, {"line", lineIn(line)}, {"pending", true}};
        const std::string refused = conditions(bp, add);
        adds.push_back(refused.empty() ? add : json{{"refused", refused}});
    }
    replaceBreakpoints(lineBreakpoints_[path], std::move(adds), {Placed::Kind::Line, path},
                       [this, r, lines, path](std::vector<Reply> replies) {
                           json out = json::array();
                           for (std::size_t i = 0; i < replies.size(); ++i) {
                               json b = breakpointBody(replies[i]);
                               if (!b.contains("line")) b["line"] = lines[i];
                               if (!b.contains("source"))
                                   b["source"] = {{"name", basename(path)}, {"path", path}};
                               out.push_back(std::move(b));
                           }
                           respond(r, {{"breakpoints", out}});
                       });
}

void Session::setFunctionBreakpoints(const Request& r) {
    std::vector<json> adds;
    for (const json& bp : r.arguments.value("breakpoints", json::array())) {
        json add = {{"kind", "function"}, {"name", stringArgument(bp, "name")}, {"pending", true}};
        const std::string refused = conditions(bp, add);
        adds.push_back(refused.empty() ? add : json{{"refused", refused}});
    }
    replaceBreakpoints(functionBreakpoints_, std::move(adds), {Placed::Kind::Function, {}},
                       breakpointsAnswer(r));
}

void Session::setInstructionBreakpoints(const Request& r) {
    std::vector<json> adds;
    for (const json& bp : r.arguments.value("breakpoints", json::array())) {
        const std::string ref = stringArgument(bp, "instructionReference");
        const auto addr = number(ref);
        if (!addr) {
            adds.push_back({{"refused", "instructionReference: \"" + ref + "\" is no address"}});
            continue;
        }
        json add = {{"kind", "pc"},
                    {"addr", *addr + std::uint64_t(integerArgument(bp, "offset", 0))}};
        const std::string refused = conditions(bp, add);
        adds.push_back(refused.empty() ? add : json{{"refused", refused}});
    }
    replaceBreakpoints(instructionBreakpoints_, std::move(adds), {Placed::Kind::Instruction, {}},
                       breakpointsAnswer(r));
}

// A data breakpoint's id says what to watch: "expr:FRAME:EXPRESSION" (a C expression,
// watched for changes of its value) or "addr:ADDRESS:LENGTH" (bytes, watched for accesses).
void Session::dataBreakpointInfo(const Request& r) {
    const json& a = r.arguments;
    const std::string name = stringArgument(a, "name");
    const json accessTypes = {"write", "read", "readWrite"};
    auto none = [this, r](const std::string& why) {
        respond(r, {{"dataId", nullptr}, {"description", why}});
    };
    if (const int ref = int(integerArgument(a, "variablesReference", 0)); ref > 0) {
        const auto it = shown_.find({ref, name});
        if (it == shown_.end()) {
            none(name + ": not a variable shown since the machine last moved");
            return;
        }
        if (!it->second.address) {
            none(name + " is not in memory (a register, optimized out or computed)");
            return;
        }
        respond(r, {{"dataId",
                     "expr:" + std::to_string(it->second.frame) + ":" + it->second.evaluateName},
                    {"description", it->second.evaluateName},
                    {"accessTypes", accessTypes},
                    {"canPersist", false}});
        return;
    }
    const auto address = number(name);
    if (a.value("asAddress", false) || address) {
        if (!address) {
            none(name + " is no address");
            return;
        }
        const std::int64_t bytes = integerArgument(a, "bytes", 1);
        const std::string id = "addr:" + hex(*address) + ":" + std::to_string(bytes);
        respond(r, {{"dataId", id},
                    {"description", std::to_string(bytes) + " byte(s) at " + hex(*address, 6)},
                    {"accessTypes", accessTypes},
                    {"canPersist", true}});
        return;
    }
    const int frameId = int(integerArgument(a, "frameId", 1));
    const int frame = frameId >= 1 && frameId < kCopperFrame ? frameId - 1 : 0;
    call("eval", {{"frame", frame}, {"expr", name}},
         [this, r, name, frame, accessTypes, none](const Reply& reply) {
             if (!reply.ok) {
                 none(reply.message);
                 return;
             }
             if (!reply.result.contains("address")) {
                 none(name + " is not in memory (a register, optimized out or computed)");
                 return;
             }
             respond(r, {{"dataId", "expr:" + std::to_string(frame) + ":" + name},
                         {"description", name},
                         {"accessTypes", accessTypes},
                         {"canPersist", false}});
         });
}

void Session::setDataBreakpoints(const Request& r) {
    std::vector<json> adds;
    for (const json& bp : r.arguments.value("breakpoints", json::array())) {
        const std::string id = stringArgument(bp, "dataId");
        const std::string type = stringArgument(bp, "accessType");
        json add = {{"kind", "watch"},
                    {"access", type == "read"        ? "read"
                               : type == "readWrite" ? "access"
                                                     : "write"}};
        const auto first = id.find(':');
        const auto second = first == std::string::npos ? first : id.find(':', first + 1);
        const std::string scheme = id.substr(0, first);
        if (second == std::string::npos || (scheme != "expr" && scheme != "addr")) {
            adds.push_back(
                {{"refused", "dataId: \"" + id + "\" is not one dataBreakpointInfo gave"}});
            continue;
        }
        const std::string one = id.substr(first + 1, second - first - 1);
        const std::string two = id.substr(second + 1);
        if (scheme == "expr") {
            add["frame"] = number(one).value_or(0);
            add["expr"] = two;
        } else {
            add["addr"] = number(one).value_or(0);
            add["len"] = number(two).value_or(1);
        }
        std::string refused = conditions(bp, add);
        if (add.contains("log")) refused = "logMessage: a data breakpoint cannot log";
        adds.push_back(refused.empty() ? add : json{{"refused", refused}});
    }
    replaceBreakpoints(dataBreakpoints_, std::move(adds), {Placed::Kind::Data, {}},
                       breakpointsAnswer(r));
}

void Session::setExceptionBreakpoints(const Request& r) {
    // Each filter's vectors, in the order of the request's filters.
    std::vector<std::vector<unsigned>> groups;
    std::vector<std::string> unknown;
    json filters = r.arguments.value("filters", json::array());
    for (const json& o : r.arguments.value("filterOptions", json::array()))
        filters.push_back(o.value("filterId", std::string()));
    for (const json& f : filters) {
        const std::string id = f.is_string() ? f.get<std::string>() : std::string();
        std::vector<unsigned> vectors;
        if (id == "all") { // uae-dap's one filter: the vectors of exceptionMask
            for (unsigned v = 0; v < 32; ++v)
                if ((options_.exceptionMask >> v) & 1u) vectors.push_back(v);
        } else {
            for (const ExceptionFilter& known : exceptionFilters())
                if (id == known.id) vectors = known.vectors;
        }
        std::erase_if(vectors, [](unsigned v) { return !catchable(v); });
        if (vectors.empty()) unknown.push_back(id);
        groups.push_back(std::move(vectors));
    }
    std::vector<json> adds;
    std::vector<std::size_t> sizes;
    for (const auto& g : groups) {
        sizes.push_back(g.size());
        for (const unsigned v : g)
            adds.push_back({{"kind", "catch"}, {"vector", v}, {"outside_rom", true}});
    }
    replaceBreakpoints(catches_, std::move(adds), {Placed::Kind::Catch, {}},
                       [this, r, sizes](std::vector<Reply> replies) {
                           json out = json::array();
                           std::size_t k = 0;
                           for (const std::size_t n : sizes) {
                               json b = {{"verified", n > 0}};
                               if (n == 0) b["message"] = "no exception this filter names";
                               for (std::size_t i = 0; i < n; ++i, ++k)
                                   if (!replies[k].ok) {
                                       b = {{"verified", false}, {"message", replies[k].message}};
                                   }
                               out.push_back(std::move(b));
                           }
                           respond(r, {{"breakpoints", out}});
                       });
}

void Session::breakpointLocations(const Request& r) {
    const std::string path = stringArgument(r.arguments.value("source", json::object()), "path");
    const int line = lineIn(int(integerArgument(r.arguments, "line", 0)));
    const int endLine = lineIn(int(integerArgument(r.arguments, "endLine", lineOut(line))));
    call("source.lines", {{"file", toDebug(path)}}, [this, r, line, endLine](const Reply& reply) {
        json out = json::array();
        if (reply.ok)
            for (const json& l : reply.result.value("lines", json::array())) {
                const int n = l.value("line", 0);
                if (n >= line && n <= endLine) out.push_back({{"line", lineOut(n)}});
            }
        respond(r, {{"breakpoints", out}});
    });
}

// ---- requests: where the machine stands --------------------------------------------------

void Session::threads(const Request& r) {
    call("copper.list", {{"max", 1}}, [this, r](const Reply& reply) {
        std::string copper = "Copper";
        if (reply.ok && reply.result.contains("copper")) {
            const json& c = reply.result["copper"];
            copper += ": " + c.value("state", std::string("?")) + " at " +
                      dollar(c.value("pc", 0u), 6) + ", line " + dollar(c.value("vpos", 0u), 2);
        }
        respond(r, {{"threads", json::array({{{"id", kCpuThread}, {"name", "CPU"}},
                                             {{"id", kCopperThread}, {"name", copper}}})}});
    });
}

void Session::copperStack(const Request& r) {
    call("copper.list", {{"max", 1}}, [this, r](const Reply& reply) {
        if (refused(r, reply)) return;
        const json c = reply.result.value("copper", json::object());
        const std::string state = c.value("state", std::string("?"));
        const json current = c.value("current", json());
        if (!current.is_number_unsigned()) {
            respond(r, {{"stackFrames", json::array({{{"id", kCopperFrame},
                                                      {"name", "Copper " + state},
                                                      {"line", 0},
                                                      {"column", 0}}})},
                        {"totalFrames", 1}});
            return;
        }
        const std::uint64_t at = current.get<std::uint64_t>();
        call("copper.list", {{"addr", at}, {"max", 1}}, [this, r, state, at](const Reply& one) {
            std::string name = "Copper " + state;
            if (one.ok && !one.result.value("instructions", json::array()).empty())
                name = copperInstruction(one.result["instructions"][0]) + " (" + state + ")";
            respond(r, {{"stackFrames", json::array({{{"id", kCopperFrame},
                                                      {"name", name},
                                                      {"line", 0},
                                                      {"column", 0},
                                                      {"instructionPointerReference", hex(at)}}})},
                        {"totalFrames", 1}});
        });
    });
}

void Session::stackTrace(const Request& r) {
    if (integerArgument(r.arguments, "threadId", kCpuThread) == kCopperThread) {
        copperStack(r);
        return;
    }
    const std::int64_t start =
        std::max<std::int64_t>(0, integerArgument(r.arguments, "startFrame", 0));
    std::int64_t levels = integerArgument(r.arguments, "levels", 0);
    if (levels <= 0) levels = 64;
    call("stack.frames", {{"start", start}, {"count", std::min<std::int64_t>(levels, 256)}},
         [this, r](const Reply& reply) {
             if (refused(r, reply)) return;
             json frames = json::array();
             for (const json& f : reply.result.value("frames", json::array())) {
                 std::string name = f.value("function", std::string("?"));
                 if (f.value("inlined", false)) name += " [inlined]";
                 json frame = {{"id", f.value("index", 0) + 1},
                               {"name", name},
                               {"line", 0},
                               {"column", 0},
                               {"instructionPointerReference", hex(f.value("pc", 0u))}};
                 if (f.contains("file") && f["file"].is_string()) {
                     frame["source"] = sourceOf(f["file"].get<std::string>());
                     frame["line"] = lineOut(f.value("line", 1));
                     frame["column"] = columnsStartAt1_ ? std::max(1, f.value("column", 1))
                                                        : std::max(0, f.value("column", 1) - 1);
                 } else {
                     frame["presentationHint"] = "subtle";
                 }
                 if (f.contains("module") && f["module"].is_string())
                     frame["moduleId"] = f["module"];
                 frames.push_back(std::move(frame));
             }
             respond(r, {{"stackFrames", frames},
                         {"totalFrames", reply.result.value("total", frames.size())}});
         });
}

void Session::scopes(const Request& r) {
    const int frameId = int(integerArgument(r.arguments, "frameId", 1));
    auto custom = [this] {
        Container c;
        c.kind = Container::Kind::Custom;
        return json{{"name", "Custom registers"},
                    {"variablesReference", container(std::move(c))},
                    {"expensive", true}};
    };
    if (frameId == kCopperFrame) {
        respond(r, {{"scopes", json::array({custom()})}});
        return;
    }
    const int frame = std::max(0, frameId - 1);
    call("vars.scopes", {{"frame", frame}}, [this, r, frame, custom](const Reply& reply) {
        json out = json::array();
        bool registers = false;
        for (const json& s :
             reply.ok ? reply.result.value("scopes", json::array()) : json::array()) {
            const std::string name = s.value("name", std::string());
            const int ref = s.value("ref", 0);
            json scope = {{"name", name == "Parameters" ? "Arguments" : name},
                          {"expensive", name == "Globals"}};
            if (name == "Locals") scope["presentationHint"] = "locals";
            if (name == "Parameters") scope["presentationHint"] = "arguments";
            if (name == "Registers") {
                registers = true;
                scope["presentationHint"] = "registers";
                if (frame == 0) { // the registers as regs.get gives them, writable
                    Container c;
                    c.kind = Container::Kind::Registers;
                    scope["variablesReference"] = container(std::move(c));
                    out.push_back(std::move(scope));
                    continue;
                }
            }
            if (ref <= 0) continue;
            Container c;
            c.engineRef = ref;
            c.frame = frame;
            c.registerScope = name == "Registers";
            scope["variablesReference"] = container(std::move(c));
            out.push_back(std::move(scope));
        }
        if (!registers && frame == 0) {
            Container c;
            c.kind = Container::Kind::Registers;
            out.push_back({{"name", "Registers"},
                           {"presentationHint", "registers"},
                           {"variablesReference", container(std::move(c))},
                           {"expensive", false}});
        }
        out.push_back(custom());
        respond(r, {{"scopes", out}});
    });
}

void Session::variables(const Request& r) {
    const int ref = int(integerArgument(r.arguments, "variablesReference", 0));
    if (ref <= 0 || std::size_t(ref) > containers_.size()) {
        fail(r, "variablesReference " + std::to_string(ref) +
                    " names nothing (references last until the machine moves)");
        return;
    }
    const Container c = containers_[std::size_t(ref) - 1];
    switch (c.kind) {
    case Container::Kind::Engine: {
        std::int64_t count = integerArgument(r.arguments, "count", 0);
        if (count <= 0) count = 1000;
        call("vars.get",
             {{"ref", c.engineRef},
              {"start", std::max<std::int64_t>(0, integerArgument(r.arguments, "start", 0))},
              {"count", count}},
             [this, r, ref, c](const Reply& reply) {
                 if (refused(r, reply)) return;
                 json out = json::array();
                 for (const json& v : reply.result.value("variables", json::array()))
                     out.push_back(variable(v, ref, c));
                 respond(r, {{"variables", out}});
             });
        return;
    }
    case Container::Kind::Registers:
        call("regs.get", json::object(), [this, r, ref](const Reply& reply) {
            if (refused(r, reply)) return;
            json out = json::array();
            static const char* const names[] = {"d0", "d1", "d2", "d3", "d4",  "d5", "d6",
                                                "d7", "a0", "a1", "a2", "a3",  "a4", "a5",
                                                "a6", "a7", "pc", "sr", "usp", "ssp"};
            for (const char* name : names) {
                if (!reply.result.contains(name)) continue;
                const std::uint64_t value = reply.result[name].get<std::uint64_t>();
                const bool sr = std::string(name) == "sr";
                json v = {{"name", name},
                          {"value", hex(value, sr ? 4 : 8)},
                          {"type", sr ? "unsigned short" : "unsigned long"},
                          {"variablesReference", 0}};
                if (name[0] == 'a' || !std::strcmp(name, "pc") || !std::strcmp(name, "usp") ||
                    !std::strcmp(name, "ssp"))
                    v["memoryReference"] = hex(value);
                if (std::strcmp(name, "usp") && std::strcmp(name, "ssp"))
                    v["evaluateName"] = std::string("$") + name;
                shown_[{ref, name}] = {std::string("$") + name, 0, std::nullopt};
                out.push_back(std::move(v));
            }
            respond(r, {{"variables", out}});
        });
        return;
    case Container::Kind::Custom:
        call("custom.dump", json::object(), [this, r](const Reply& reply) {
            if (refused(r, reply)) return;
            json out = json::array();
            for (const json& reg : reply.result.value("list", json::array())) {
                const json value = reg.value("value", json());
                const bool readable = reg.value("readable", false);
                std::string type = dollar(0xDFF000u + reg.value("offset", 0u), 6);
                type += reg.value("strobe", false) ? " strobe" : readable ? " read" : " written";
                json v = {{"name", reg.value("name", std::string())},
                          {"value", value.is_number_unsigned()
                                        ? dollar(value.get<std::uint64_t>(), 4)
                                        : std::string("- (never written)")},
                          {"type", type},
                          {"variablesReference", 0}};
                const json fields = reg.value("fields", json::array());
                if (!fields.empty() && value.is_number_unsigned()) {
                    Container f;
                    f.kind = Container::Kind::CustomFields;
                    f.values = fields;
                    v["variablesReference"] = container(std::move(f));
                    v["namedVariables"] = fields.size();
                }
                out.push_back(std::move(v));
            }
            respond(r, {{"variables", out}});
        });
        return;
    case Container::Kind::CustomFields:
    case Container::Kind::Values: {
        json out = json::array();
        for (const json& f : c.values) {
            const unsigned shift = f.value("shift", 0u), width = f.value("width", 1u);
            out.push_back({{"name", f.value("name", std::string())},
                           {"value", std::to_string(f.value("value", 0u))},
                           {"type", width == 1 ? "bit " + std::to_string(shift)
                                               : "bits " + std::to_string(shift + width - 1) + "-" +
                                                     std::to_string(shift)},
                           {"variablesReference", 0}});
        }
        respond(r, {{"variables", out}});
        return;
    }
    }
}

void Session::setVariable(const Request& r) {
    const int ref = int(integerArgument(r.arguments, "variablesReference", 0));
    const std::string name = stringArgument(r.arguments, "name");
    const std::string value = stringArgument(r.arguments, "value");
    if (ref <= 0 || std::size_t(ref) > containers_.size()) {
        fail(r, "variablesReference " + std::to_string(ref) + " names nothing any more");
        return;
    }
    const Container c = containers_[std::size_t(ref) - 1];
    // What was shown may read differently now: the client asks again.
    auto changed = [this] {
        machineMoved();
        if (invalidatedEvents_)
            event("invalidated", {{"areas", json::array({"variables"})}, {"threadId", kCpuThread}});
    };
    if (c.kind == Container::Kind::Registers) {
        json v = value;
        // A negative number is the register's two's complement.
        if (value.starts_with("-"))
            if (const auto n = number(value.substr(1)))
                v = std::uint64_t(std::uint32_t(-std::int64_t(*n)));
        call("regs.set", {{"reg", name}, {"value", v}},
             [this, r, name, changed](const Reply& reply) {
                 if (refused(r, reply)) return;
                 const std::uint64_t now = reply.result.value(name, 0u);
                 respond(r, {{"value", hex(now, name == "sr" ? 4 : 8)}});
                 changed();
             });
        return;
    }
    if (c.kind != Container::Kind::Engine) {
        fail(r, "the custom registers are shown as the chips hold them; write them from the "
                "program or with !mem.write");
        return;
    }
    call("vars.set", {{"ref", c.engineRef}, {"name", name}, {"value", value}},
         [this, r, changed](const Reply& reply) {
             if (refused(r, reply)) return;
             respond(r, {{"value", reply.result.value("value", std::string())},
                         {"type", reply.result.value("type", std::string())}});
             changed();
         });
}

void Session::evaluate(const Request& r) {
    const std::string expression = stringArgument(r.arguments, "expression");
    const int frameId = int(integerArgument(r.arguments, "frameId", 1));
    const int frame = frameId >= 1 && frameId < kCopperFrame ? frameId - 1 : 0;
    if (expression.starts_with("!")) {
        // A command of the control protocol as it is: "!method {json}".
        const ctl::MethodLine line = ctl::parseMethodLine(std::string_view(expression).substr(1));
        if (!line.error.empty() || line.method.empty()) {
            fail(r, line.error.empty() ? "!method {json}: which method? (!methods lists them)"
                                       : "!" + line.error);
            return;
        }
        call(line.method, line.params, [this, r](const Reply& reply) {
            if (!reply.ok) {
                fail(r, reply.message + " (" + std::to_string(reply.code) + ")");
                return;
            }
            respond(r, {{"result", rpc::dump(reply.result, 2)}, {"variablesReference", 0}});
        });
        return;
    }
    call("eval", {{"frame", frame}, {"expr", expression}},
         [this, r, frame, expression](const Reply& reply) {
             if (refused(r, reply)) return;
             const json& v = reply.result;
             json body = {{"result", v.value("value", std::string())},
                          {"type", v.value("type", std::string())},
                          {"variablesReference", 0}};
             if (v.contains("address") && v["address"].is_number_unsigned())
                 body["memoryReference"] = hex(v["address"].get<std::uint64_t>());
             opens(v, frame, expression, body);
             respond(r, std::move(body));
         });
}

// ---- requests: running -------------------------------------------------------------------

void Session::continueRequest(const Request& r) {
    resume(r);
}

static bool byInstruction(const Request& r) {
    return r.arguments.value("granularity", std::string()) == "instruction";
}

void Session::next(const Request& r) {
    resumeWaited(r, byInstruction(r) ? "step_over" : "next_line");
}

void Session::stepIn(const Request& r) {
    resumeWaited(r, byInstruction(r) ? "step" : "step_line");
}

void Session::stepOut(const Request& r) {
    resumeWaited(r, "step_out");
}

void Session::stepBack(const Request& r) {
    resumeWaited(r, byInstruction(r) ? "reverse_step" : "reverse_next_line");
}

void Session::reverseContinue(const Request& r) {
    resumeWaited(r, "reverse_continue");
}

void Session::pause(const Request& r) {
    call("pause", json::object(), [this, r](const Reply& reply) {
        if (refused(r, reply)) return;
        respond(r);
        // A run's stop came as event.stopped (or comes with the resume's reply); a machine
        // that was paused already sends none, and the client is told where it stands.
        if (reply.result.value("detail", json::object()).value("already_paused", false) &&
            waitingResumes_ == 0)
            stopped(reply.result);
    });
}

// ---- requests: memory and code -----------------------------------------------------------

void Session::disassembleFrom(std::uint32_t from, int count,
                              std::function<void(const Reply&, std::vector<json>)> done,
                              std::vector<json> sofar) {
    const int chunk = std::min(count, 256);
    call("disasm", {{"addr", from}, {"count", chunk}},
         [this, from, count, chunk, done = std::move(done),
          sofar = std::move(sofar)](const Reply& reply) mutable {
             if (!reply.ok) {
                 done(reply, std::move(sofar));
                 return;
             }
             std::uint32_t next = from;
             for (const json& i : reply.result.value("instructions", json::array())) {
                 sofar.push_back(i);
                 next = std::uint32_t(i.value("addr", 0u) + std::max(2u, i.value("length", 2u)));
             }
             if (count - chunk <= 0 || next == from) {
                 done(reply, std::move(sofar));
                 return;
             }
             disassembleFrom(next, count - chunk, std::move(done), std::move(sofar));
         });
}

void Session::disassemble(const Request& r) {
    const std::uint64_t base = memoryReference(r.arguments);
    const std::int64_t at = std::int64_t(base) + integerArgument(r.arguments, "offset", 0);
    const std::int64_t skip = integerArgument(r.arguments, "instructionOffset", 0);
    const std::int64_t count = integerArgument(r.arguments, "instructionCount", 0);
    if (count <= 0 || count > 4096 || skip < -4096 || skip > 4096 || at < 0 || at > 0xFFFFFFFF) {
        fail(r, "disassemble: instructionCount 1 to 4096, instructionOffset -4096 to 4096");
        return;
    }
    // Forward from `at` the engine decodes; the instructions before it are found by decoding
    // from far enough back (a 68000 instruction is 2 to 10 bytes) and keeping those that end
    // exactly on `at`. Where no decoding lands there, the places before it show as unknown.
    const std::int64_t back = std::max<std::int64_t>(0, -skip);
    const int ahead = int(std::max<std::int64_t>(0, skip + count));
    auto after = [this, r, at, skip, count, ahead](std::vector<json> before) {
        if (ahead == 0) {
            finishDisassembly(r, at, skip, count, std::move(before), {});
            return;
        }
        disassembleFrom(std::uint32_t(at), ahead,
                        [this, r, at, skip, count, before = std::move(before)](
                            const Reply& reply, std::vector<json> got) mutable {
                            if (got.empty() && !reply.ok) {
                                fail(r, reply.message);
                                return;
                            }
                            finishDisassembly(r, at, skip, count, std::move(before),
                                              std::move(got));
                        });
    };
    if (back == 0) {
        after({});
        return;
    }
    const std::int64_t from = std::max<std::int64_t>(0, (at - back * 10) & ~std::int64_t(1));
    disassembleFrom(std::uint32_t(from), int(std::min<std::int64_t>(back * 5, 8192)),
                    [at, after](const Reply&, std::vector<json> got) {
                        std::vector<json> before;
                        for (const json& i : got) {
                            if (std::int64_t(i.value("addr", 0u)) >= at) break;
                            before.push_back(i);
                        }
                        const bool lands = !before.empty() &&
                                           std::int64_t(before.back().value("addr", 0u) +
                                                        before.back().value("length", 2u)) == at;
                        if (!lands) before.clear();
                        after(std::move(before));
                    });
}

void Session::finishDisassembly(const Request& r, std::int64_t at, std::int64_t skip,
                                std::int64_t count, std::vector<json> before,
                                std::vector<json> got) {
    auto shape = [](const json& i) {
        std::string text = i.value("text", std::string());
        if (i.contains("target_symbol") && i["target_symbol"].is_string())
            text += "  ; " + i["target_symbol"].get<std::string>();
        json d = {{"address", hex(i.value("addr", 0u))},
                  {"instructionBytes", i.value("bytes", std::string())},
                  {"instruction", text}};
        if (i.contains("symbol") && i.value("symbol_offset", 1) == 0) d["symbol"] = i["symbol"];
        if (!i.value("valid", true)) d["presentationHint"] = "invalid";
        return d;
    };
    auto unknown = [](std::int64_t addr) {
        return json{{"address", hex(std::uint64_t(std::max<std::int64_t>(0, addr)))},
                    {"instruction", "??"},
                    {"presentationHint", "invalid"}};
    };
    json out = json::array();
    for (std::int64_t n = 0; n < count; ++n) {
        const std::int64_t p = skip + n; // in instructions from `at`
        if (p < 0) {
            const std::int64_t k = std::int64_t(before.size()) + p;
            out.push_back(k >= 0 ? shape(before[std::size_t(k)]) : unknown(at + p * 2));
        } else if (p < std::int64_t(got.size())) {
            out.push_back(shape(got[std::size_t(p)]));
        } else {
            const json& last = got.empty() ? json() : got.back();
            const std::int64_t end =
                got.empty() ? at : std::int64_t(last.value("addr", 0u) + last.value("length", 2u));
            out.push_back(unknown(end + (p - std::int64_t(got.size())) * 2));
        }
    }
    respond(r, {{"instructions", out}});
}

void Session::readMemory(const Request& r) {
    const std::uint64_t base = memoryReference(r.arguments);
    const std::uint64_t addr = base + std::uint64_t(integerArgument(r.arguments, "offset", 0));
    const std::int64_t asked = integerArgument(r.arguments, "count", 0);
    if (asked <= 0) {
        respond(r, {{"address", hex(addr)}, {"data", ""}});
        return;
    }
    const std::size_t len = std::min<std::size_t>(std::size_t(asked), kMaxRead);
    call("mem.read", {{"addr", addr}, {"len", len}, {"encoding", "base64"}},
         [this, r, addr, asked, len](const Reply& reply) {
             if (refused(r, reply)) return;
             json body = {{"address", hex(addr)}, {"data", reply.result.value("data", "")}};
             if (std::size_t(asked) > len) body["unreadableBytes"] = std::size_t(asked) - len;
             respond(r, std::move(body));
         });
}

void Session::writeMemory(const Request& r) {
    const std::string ref = stringArgument(r.arguments, "memoryReference");
    const std::uint64_t base = memoryReference(r.arguments);
    const std::uint64_t addr = base + std::uint64_t(integerArgument(r.arguments, "offset", 0));
    call("mem.write",
         {{"addr", addr}, {"data", stringArgument(r.arguments, "data")}, {"encoding", "base64"}},
         [this, r, ref, addr, base](const Reply& reply) {
             if (refused(r, reply)) return;
             const std::uint64_t written = reply.result.value("written", 0u);
             respond(r, {{"bytesWritten", written}});
             if (memoryEvents_)
                 event("memory",
                       {{"memoryReference", ref}, {"offset", addr - base}, {"count", written}});
             machineMoved();
             if (invalidatedEvents_)
                 event("invalidated",
                       {{"areas", json::array({"variables"})}, {"threadId", kCpuThread}});
         });
}

void Session::loadedSources(const Request& r) {
    call("source.files", json::object(), [this, r](const Reply& reply) {
        json out = json::array();
        std::set<std::string> seen;
        if (reply.ok)
            for (const json& p : reply.result.value("programs", json::array()))
                for (const json& f : p.value("files", json::array()))
                    if (f.is_string() && seen.insert(f.get<std::string>()).second)
                        out.push_back(sourceOf(f.get<std::string>()));
        respond(r, {{"sources", out}});
    });
}

void Session::exceptionInfo(const Request& r) {
    if (lastStop_.value("reason", std::string()) != "catch") {
        fail(r, "exceptionInfo: the machine did not stop for an exception");
        return;
    }
    const json d = lastStop_.value("detail", json::object());
    const std::string name = d.value("name", std::string("exception"));
    std::string text =
        name + " raised by the instruction at " + hex(d.value("instruction_pc", 0u), 6);
    const json where = d.value("where", json());
    if (where.is_object() && where.contains("function"))
        text += " in " + where.value("function", std::string());
    if (where.is_object() && where.contains("line"))
        text += " (" + basename(where.value("file", std::string())) + ":" +
                std::to_string(where.value("line", 0)) + ")";
    text += "; its handler is at " + hex(d.value("handler", 0u), 6);
    respond(
        r, {{"exceptionId", name},
            {"description", text},
            {"breakMode", "always"},
            {"details",
             {{"message", text}, {"typeName", "vector " + std::to_string(d.value("vector", 0))}}}});
}

// ---- requests: Copperline's own ----------------------------------------------------------

void Session::profile(const Request& r) {
    if (profiling_) {
        fail(r, "copperline/profile: a capture of this session is still running");
        return;
    }
    const std::int64_t frames = integerArgument(r.arguments, "frames", 100);
    if (frames < 1 || frames > 100000) {
        fail(r, "frames: 1 to 100,000");
        return;
    }
    json start = {{"frames", frames}, {"samples", true}};
    if (std::string out = stringArgument(r.arguments, "out"); !out.empty()) {
        std::error_code ec;
        const auto abs = std::filesystem::absolute(out, ec);
        start["path"] = (ec ? std::filesystem::path(out) : abs).lexically_normal().string();
    }
    call("status", json::object(), [this, r, start, frames](const Reply& s) {
        const bool paused = s.ok && s.result.value("state", std::string()) == "paused";
        call("profile.start", start, [this, r, paused, frames](const Reply& started) {
            if (!started.ok) {
                fail(r, "profile.start: " + started.message);
                return;
            }
            profiling_ = r;
            // A paused machine runs the capture's frames and stops after them; a running one
            // goes on, and the capture's end (event.profile) finishes the request.
            if (paused)
                runWaited("step_frame", {{"n", frames}},
                          [this, r](const Reply&) { finishProfile(r); });
        });
    });
}

void Session::finishProfile(Request r) {
    if (!profiling_) return;
    profiling_.reset();
    call("profile.stop", json::object(), [this, r](const Reply& reply) {
        if (!reply.ok) {
            fail(r, "profile.stop: " + reply.message);
            return;
        }
        profileReport(r, reply.result);
    });
}

void Session::profileReport(const Request& r, json status) {
    const std::string path = status.value("path", std::string());
    json body = {{"path", path},
                 {"frames_written", status.value("frames_written", 0)},
                 {"summary", status.value("summary", json())},
                 {"cpuprofile", nullptr}};
    if (options_.program.empty()) {
        body["note"] = "no program to name the samples with: give \"program\" to attach, then "
                       "copperline-ctl profile-report " +
                       path + " --program PROG";
        respond(r, std::move(body));
        return;
    }
    const std::string out = path + "/" + basename(options_.program) + ".cpuprofile";
    report_ = std::make_unique<QProcess>();
    QProcess* p = report_.get();
    QObject::connect(
        p, &QProcess::finished, p, [this, r, body, out, p](int code, QProcess::ExitStatus) mutable {
            const std::string said = p->readAllStandardOutput().toStdString();
            const std::string err = p->readAllStandardError().toStdString();
            if (code != 0) {
                fail(r, "copperline-ctl profile-report: " + (err.empty() ? said : err));
                return;
            }
            body["cpuprofile"] = out;
            body["report"] = said;
            respond(r, std::move(body));
        });
    QObject::connect(p, &QProcess::errorOccurred, p, [this, r, p](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            fail(r, "cannot start " + ctlPath_ + ": " + p->errorString().toStdString());
    });
    p->start(QString::fromStdString(ctlPath_),
             {"profile-report", QString::fromStdString(path), "--program",
              QString::fromStdString(options_.program), "--out", QString::fromStdString(out)});
}

void Session::coverage(const Request& r) {
    const json& a = r.arguments;
    json params = json::object();
    std::string method = "coverage.status";
    if (a.contains("file")) {
        params["file"] = toDebug(stringArgument(a, "file"));
        method = "coverage.lines";
        if (a.contains("line")) {
            params["line"] = lineIn(int(integerArgument(a, "line", 0)));
            method = "coverage.addresses";
        }
    } else if (a.contains("program")) {
        method = "coverage.open";
        for (const char* key : {"program", "elf", "path", "source_map"})
            if (a.contains(key)) params[key] = a[key];
    }
    call(method, params, [this, r](const Reply& reply) {
        if (refused(r, reply)) return;
        respond(r, reply.result.is_object() ? reply.result : json{{"result", reply.result}});
    });
}

void Session::strip(const Request& r) {
    const json& a = r.arguments;
    json spec = json::object();
    for (const char* key : {"start", "mode", "end"})
        if (a.contains(key)) spec[key] = a[key];
    auto answer = [this, r](const Reply& reply) {
        if (refused(r, reply)) return;
        respond(r, reply.result);
    };
    if (!spec.empty()) {
        call("strip.set", spec, [this, r](const Reply& set) {
            if (refused(r, set)) return;
            call("strip.bars", json::object(), [this, r, set](const Reply& bars) {
                if (refused(r, bars)) return;
                respond(r, {{"spec", set.result},
                            {"bars", bars.result.value("bars", json::array())},
                            {"summary", bars.result.value("summary", json())}});
            });
        });
        return;
    }
    if (a.contains("bar") && a.value("select", false)) {
        runWaited("strip.select", {{"bar", a["bar"]}}, answer);
        return;
    }
    if (a.contains("bar") || a.value("tree", false)) {
        json params = json::object();
        if (a.contains("bar")) params["bar"] = a["bar"];
        call("strip.tree", params, answer);
        return;
    }
    call("strip.bars", json::object(), answer);
}

} // namespace copperline::dap
