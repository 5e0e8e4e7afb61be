#pragma once

// The window's way of answering a pane, for the pane tests: a pane's command goes to the
// emulator, and the reply crosses back to the test's thread through a Relay (ui/relay.h),
// as MainWindow's do.

#include "app/control/emulator.h"
#include "ui/relay.h"

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

    explicit PaneBridge(Emulator& emu) : emu_(emu), relay_(std::make_shared<Relay>()) { relay_->target = this; }
    ~PaneBridge() override { relay_->detach(); }
    Q_INVOKABLE void drainRelay() { relay_->drain(); }
    Send send() {
        return [this](const std::string& method, const nlohmann::json& params, Reply reply) {
            std::weak_ptr<Relay> box = relay_;
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
    std::shared_ptr<Relay> relay_;
};

} // namespace copperline::testing
