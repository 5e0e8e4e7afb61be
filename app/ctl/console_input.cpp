// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/console_input.h"

#include <cerrno>
#include <unistd.h>

namespace copperline::ctl {

StdinReader::StdinReader(std::function<void(std::string_view)> onBytes, std::function<void()> onEnd)
    : notifier_(STDIN_FILENO, QSocketNotifier::Read) {
    QObject::connect(&notifier_, &QSocketNotifier::activated, &notifier_,
                     [this, onBytes = std::move(onBytes), onEnd = std::move(onEnd)] {
                         char buf[65536];
                         const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
                         if (n < 0 && errno == EINTR) return;
                         if (n <= 0) {
                             notifier_.setEnabled(false);
                             onEnd();
                             return;
                         }
                         onBytes(std::string_view(buf, std::size_t(n)));
                     });
}

MethodLine parseMethodLine(std::string_view text) {
    MethodLine out;
    const auto start = text.find_first_not_of(" \t\r");
    if (start == std::string_view::npos || text[start] == '#') return out;
    text.remove_prefix(start);
    const auto space = text.find_first_of(" \t");
    out.method = std::string(text.substr(0, space));
    if (space == std::string_view::npos) return out;
    const std::string_view rest = text.substr(space + 1);
    if (rest.find_first_not_of(" \t\r") == std::string_view::npos) return out;
    out.params = nlohmann::json::parse(rest.begin(), rest.end(), nullptr, false);
    if (out.params.is_discarded() || !out.params.is_object()) {
        out.error = "parameters must be a JSON object: " + std::string(rest);
        out.params = nlohmann::json::object();
    }
    return out;
}

} // namespace copperline::ctl
