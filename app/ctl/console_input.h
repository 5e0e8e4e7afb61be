// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What copperline-ctl reads from a person: standard input on the Qt event loop, and
// "METHOD {json}" lines. The REPL (client.cpp) reads both; the Debug Adapter reads its
// messages from stdin and takes "!METHOD {json}" in the Debug Console.

#include <QSocketNotifier>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace copperline::ctl {

// Calls onBytes with what stdin holds as it comes, and onEnd once when it ends.
class StdinReader {
public:
    StdinReader(std::function<void(std::string_view)> onBytes, std::function<void()> onEnd);

private:
    QSocketNotifier notifier_;
};

// "METHOD" or "METHOD {json}", blanks around it let pass.
struct MethodLine {
    std::string method; // empty for a blank line or a comment ("#...")
    nlohmann::json params = nlohmann::json::object();
    std::string error; // why the parameters are not a JSON object
};
MethodLine parseMethodLine(std::string_view text);

} // namespace copperline::ctl
