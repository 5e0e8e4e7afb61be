// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The profile strip's bare-metal guest (tests/guest/strip/strip_loop.s) for the tests that
// drive it: its symbols from the ELF (m68k nm), an emulator running it, a command call that
// gives the result or the error as JSON, and the check that a call tree's Total is Self and
// the children's everywhere. Needs STRIP_LOOP_BIN, STRIP_LOOP_ELF and M68K_NM.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QtTest>
#include <map>
#include <memory>
#include <string>

namespace copperline::testing {

inline std::map<std::string, std::uint32_t> stripLoopSymbols() {
    QProcess nm;
    nm.start(M68K_NM, {"--defined-only", STRIP_LOOP_ELF});
    nm.waitForFinished();
    std::map<std::string, std::uint32_t> out;
    for (const QByteArray& line : nm.readAllStandardOutput().split('\n')) {
        const auto f = line.simplified().split(' ');
        if (f.size() == 3) out[f[2].toStdString()] = f[0].toUInt(nullptr, 16);
    }
    return out;
}

inline std::unique_ptr<Emulator> stripLoop(const Emulator::Options& options = {}) {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(STRIP_LOOP_BIN));
    auto e = std::make_unique<Emulator>(std::move(m), options);
    e->start();
    return e;
}

// The result, or {error, message}.
inline nlohmann::json callJson(Emulator& e, const std::string& method,
                               const nlohmann::json& params = nlohmann::json::object()) {
    const CommandResult r = e.call(method, params);
    if (!r.ok) qWarning("%s: %s", method.c_str(), r.errorMessage.c_str());
    return r.ok ? r.result : nlohmann::json{{"error", r.errorCode}, {"message", r.errorMessage}};
}

} // namespace copperline::testing
