// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The window's way of answering a pane, for the pane tests: a pane's command goes to the
// emulator, and the reply crosses back to the test's thread through a ThreadMailbox (app/control/mailbox.h),
// as MainWindow's do.

#include "app/control/emulator.h"
#include "app/control/mailbox.h"

#include <QObject>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace copperline::testing {

class PaneBridge : public QObject {
    Q_OBJECT
public:
    using Reply = std::function<void(bool, const nlohmann::json&)>;
    using Send = std::function<void(const std::string&, const nlohmann::json&, Reply)>;

    explicit PaneBridge(Emulator& emu) : emu_(emu), relay_(std::make_shared<ThreadMailbox>(this)) {}
    ~PaneBridge() override { relay_->close(); }
    Q_INVOKABLE void drainMailbox() { relay_->drain(); }
    Send send() {
        return [this](const std::string& method, const nlohmann::json& params, Reply reply) {
            std::weak_ptr<ThreadMailbox> box = relay_;
            emu_.submit(method, params, [box, reply](const CommandResult& r) {
                auto relay = box.lock();
                if (!relay) return;
                const bool ok = r.ok;
                nlohmann::json payload =
                    ok ? r.result : nlohmann::json{{"code", r.errorCode}, {"message", r.errorMessage}};
                relay->post([ok, payload, reply] {
                    if (reply) reply(ok, payload);
                });
            });
        };
    }

private:
    Emulator& emu_;
    std::shared_ptr<ThreadMailbox> relay_;
};

} // namespace copperline::testing
