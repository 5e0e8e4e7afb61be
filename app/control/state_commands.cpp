// SPDX-License-Identifier: GPL-3.0-or-later
// The state family: state.hash, state.save, state.load, state.info
// (docs/control-protocol.md). Handlers run on the emulator thread and check every
// parameter before they change anything; a failed load leaves the machine as it was.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/state/state_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

constexpr std::uint64_t kMaxStateBytes = 64ull << 20; // state files are ~1.1 MiB today

std::vector<std::uint8_t> readFile(const std::string& path, std::uint64_t limit) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) fail(errc::HostIo, path + ": " + ec.message());
    if (size > limit)
        fail(errc::HostIo,
             path + ": " + std::to_string(size) + " bytes is too large for a state file");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(errc::HostIo, path + ": cannot open");
    std::vector<std::uint8_t> bytes(size);
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size));
    if (!in) fail(errc::HostIo, path + ": read failed");
    return bytes;
}

// Written beside the target and renamed, so a failure never leaves half a file.
void writeFileAtomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) fail(errc::HostIo, path + ": cannot write");
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        out.close();
        if (!out) {
            std::remove(tmp.c_str());
            fail(errc::HostIo, path + ": write failed");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        fail(errc::HostIo, path + ": " + ec.message());
    }
}

std::uint64_t le(const std::vector<std::uint8_t>& b, std::size_t at, unsigned n) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i)
        v |= std::uint64_t(b[at + i]) << (8 * i);
    return v;
}

std::string configText(const state_file::Header& h) {
    std::string s = std::string(h.ntsc ? "NTSC" : "PAL") + ", " + std::to_string(h.chipRamBytes / 1024) + "K chip, " +
                    std::to_string(h.slowRamBytes / 1024) + "K slow";
    if (h.fastRamBytes) s += ", " + std::to_string(h.fastRamBytes / 1024) + "K fast";
    return s + " RAM";
}

json configJson(const Machine::Config& c) {
    return {{"ntsc", c.ntsc},
            {"chip_ram", c.chipRamBytes},
            {"slow_ram", c.slowRamBytes},
            {"fast_ram", c.fastRamBytes},
            {"uaelib", c.uaelib}};
}

} // namespace

void registerStateCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    // ---- state ---------------------------------------------------------------------------
    bus.add(
        "state.hash", "The hash of the whole machine state (equal hashes: equal machines).",
        [&e](const json&) {
            return json{{"hash", p::hex64(e.machine->stateHash())}, {"frame", e.machine->frame()}};
        });
    bus.add("state.save", "Saves the machine to {path} ({overwrite}).", {"path", "overwrite"},
            [&e](const json& p) {
                const std::string path = p::outputPath(p, "path");
                const auto bytes = e.machine->saveState();
                writeFileAtomically(path, bytes);
                return json{{"path", path},
                            {"bytes", bytes.size()},
                            {"frame", e.machine->frame()},
                            {"hash", p::hex64(e.machine->stateHash())}};
            });
    bus.add("state.load",
            "Loads the machine from {path}, taking on the configuration it was saved with; the "
            "machine must be paused.",
            {"path"}, [&e](const json& p) {
                const std::string path = p::string(p, "path");
                requirePaused(e, "state.load", false);
                const auto bytes = readFile(path, kMaxStateBytes);
                const Machine::Config before = e.machine->config();
                try {
                    const state_file::Header h = state_file::read(bytes);
                    const bool other = h.ntsc != before.ntsc || h.chipRamBytes != before.chipRamBytes ||
                                       h.slowRamBytes != before.slowRamBytes ||
                                       h.fastRamBytes != before.fastRamBytes || h.uaelib != before.uaelib;
                    // A capture's files are laid out for one machine.
                    if (other && e.capture && e.capture->status().active())
                        fail(errc::InvalidState, path + " was saved on another configuration (" +
                                                     configText(h) +
                                                     "); stop the capture (profile.stop) before loading it");
                    e.machine->loadState(bytes);
                } catch (const CommandError&) {
                    throw;
                } catch (const std::exception& ex) {
                    fail(errc::CommandFailed, path + ": " + ex.what());
                }
                const bool reconfigured = !Machine::sameConfig(before, e.machine->config());
                e.record->restart();
                e.timelineMoved();
                // What the window, the Frame Analyzer and capture.screenshot show is the
                // loaded machine's last frame, which the file carries, from this reply on.
                e.frameCommitted = false;
                e.refreshFrameViews();
                return json{{"path", path},
                            {"frame", e.machine->frame()},
                            {"hash", p::hex64(e.machine->stateHash())},
                            {"configuration", configJson(e.machine->config())},
                            {"reconfigured", reconfigured}};
            });
    bus.add("state.info",
            "Describes the state file {path}: its configuration, whether it is intact and "
            "whether this machine can load it.",
            {"path"}, [&e](const json& p) {
                const std::string path = p::string(p, "path");
                const auto bytes = readFile(path, kMaxStateBytes);
                // The configuration sits at the same offsets in every version.
                if (bytes.size() < state_file::kConfigBytes ||
                    std::string(bytes.begin(), bytes.begin() + 4) != "CLST")
                    fail(errc::CommandFailed, path + ": not a Copperline state file");
                json out = {{"path", path},
                            {"bytes", bytes.size()},
                            {"version", le(bytes, 4, 4)},
                            {"ntsc", bytes[8] != 0},
                            {"chip_ram", le(bytes, 9, 4)},
                            {"slow_ram", le(bytes, 13, 4)}};
                try {
                    const state_file::Header h = state_file::read(bytes);
                    out["fast_ram"] = h.fastRamBytes;
                    out["uaelib"] = h.uaelib;
                    out["intact"] = true;
                } catch (const StateError& ex) {
                    // Damaged, truncated or of another version: what the header says is
                    // not to be trusted, and no machine loads it.
                    out["intact"] = false;
                    out["problem"] = ex.what();
                }
                const Machine& m = *e.machine;
                const bool sameRoms = le(bytes, 17, 8) == m.romHash() && le(bytes, 25, 8) == m.extRomHash();
                // Loadable: intact and saved with these ROMs (state.load takes on its
                // configuration). Compatible: this very configuration too, nothing to change.
                out["loadable"] = out["intact"].get<bool>() && sameRoms;
                out["compatible"] =
                    out["loadable"].get<bool>() && (bytes[8] != 0) == m.config().ntsc &&
                    le(bytes, 9, 4) == m.config().chipRamBytes &&
                    le(bytes, 13, 4) == m.config().slowRamBytes && out.value("fast_ram", 0u) == m.config().fastRamBytes &&
                    out.value("uaelib", false) == m.config().uaelib;
                return out;
            });
}

} // namespace copperline
