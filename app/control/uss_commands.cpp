// SPDX-License-Identifier: GPL-3.0-or-later
// state.load_uss: a WinUAE/FS-UAE saved state (docs/formats/uss.md) loaded into the machine,
// with the ROMs the machine has (the state names its Kickstart by CRC-32). One of the state
// family (state_commands.cpp); a file of its own because it reads another emulator's files.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/media/file_bytes.h"
#include "emu/state/uss.h"

namespace copperline {

namespace {
using nlohmann::json;
namespace p = params;
} // namespace

void registerUssCommands(Emulator::Impl& e) {
    e.bus.add("state.load_uss",
              "Loads the WinUAE/FS-UAE saved state {path} (.uss) into the paused machine, whose ROMs must be "
              "those the state was saved with; the reply lists what the state does not restore. The first "
              "frame after it is a reconstruction.",
              {"path"}, [&e](const json& params) {
                  const std::string path = p::string(params, "path");
                  requirePaused(e, "state.load_uss", false);
                  std::vector<std::uint8_t> bytes;
                  try {
                      bytes = readFileBytes(path, uss::kMaxTotalBytes);
                  } catch (const std::exception& ex) {
                      fail(errc::HostIo, ex.what());
                  }
                  uss::State state;
                  try {
                      state = uss::readUss(bytes);
                  } catch (const std::exception& ex) {
                      fail(errc::CommandFailed, path + ": " + ex.what());
                  }
                  const Machine::Config before = e.machine->config();
                  const bool other = state.ntsc != before.ntsc || state.chipRam.size() != before.chipRamBytes ||
                                     state.slowRam.size() != before.slowRamBytes || before.fastRamBytes != 0;
                  if (other && e.capture && e.capture->status().active())
                      fail(errc::InvalidState, path + " was saved on another configuration; stop the capture "
                                                      "(profile.stop) before loading it");
                  uss::LoadResult loaded;
                  try {
                      loaded = uss::loadUss(*e.machine, state);
                  } catch (const std::exception& ex) {
                      fail(errc::CommandFailed, path + ": " + ex.what());
                  }
                  e.record->restart();
                  e.timelineMoved();
                  e.frameCommitted = false;
                  e.refreshFrameViews();
                  const Machine::Config& c = e.machine->config();
                  return json{{"path", path},
                              {"emulator", loaded.emulator},
                              {"pc", loaded.pc},
                              {"frame", e.machine->frame()},
                              {"hash", p::hex64(e.machine->stateHash())},
                              {"configuration",
                               {{"ntsc", c.ntsc},
                                {"chip_ram", c.chipRamBytes},
                                {"slow_ram", c.slowRamBytes},
                                {"fast_ram", c.fastRamBytes},
                                {"uaelib", c.uaelib}}},
                              {"reconfigured", !Machine::sameConfig(before, c)},
                              {"not_restored", loaded.notRestored},
                              {"ignored_chunks", loaded.ignoredChunks}};
              });
}

} // namespace copperline
