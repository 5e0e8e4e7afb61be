// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The chipset debugger's bare-metal guest (tests/guest/chipset/chipset_debug.s) for the
// tests that drive it: its symbols from the ELF (m68k nm), an emulator running it, and a
// command call that gives the result or the error as JSON. Needs CHIPSET_DEBUG_BIN,
// CHIPSET_DEBUG_ELF and M68K_NM.

#include "app/control/emulator.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"

#include <QProcess>
#include <QtTest>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace copperline::testing {

inline std::map<std::string, std::uint32_t> chipsetDebugSymbols() {
    QProcess nm;
    nm.start(M68K_NM, {"--defined-only", CHIPSET_DEBUG_ELF});
    nm.waitForFinished();
    std::map<std::string, std::uint32_t> out;
    for (const QByteArray& line : nm.readAllStandardOutput().split('\n')) {
        const auto f = line.simplified().split(' ');
        if (f.size() == 3) out[f[2].toStdString()] = f[0].toUInt(nullptr, 16);
    }
    return out;
}

inline std::unique_ptr<Emulator> chipsetDebug(const Emulator::Options& options = {}) {
    auto m = std::make_unique<Machine>();
    m->bootBareMetal(readFileBytes(CHIPSET_DEBUG_BIN));
    auto e = std::make_unique<Emulator>(std::move(m), options);
    e->start();
    return e;
}

// The list chipset_debug.s builds at $30000: each instruction's two words.
inline const std::vector<std::array<std::uint16_t, 2>>& chipsetDebugList1() {
    static const std::vector<std::array<std::uint16_t, 2>> list = {
        {0x0180, 0x0F00}, {0x0100, 0x0200}, {0x4007, 0xFFFE}, {0x3001, 0xFFFF}, {0x0180, 0x0FFF},
        {0x8021, 0x7F00}, {0x0182, 0x00F0}, {0xC051, 0xFFFE}, {0x0180, 0x000F}, {0xFFFF, 0xFFFE}};
    return list;
}

} // namespace copperline::testing
