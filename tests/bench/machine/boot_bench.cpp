// copperline-bootbench [SECONDS]: emulated seconds per host second for a headless AROS
// boot (default 20 emulated seconds), run three times: with Agnus recording nothing, with
// the owner of every colour clock (the default), with full 24-byte slot records, and with
// the owners and the blit trace (the DMA words of every blit, for previews).
// Prints one line per mode; each is the best of three runs.

#include "emu/machine.h"
#include "emu/media/byte_reader.h"
#include "emu/media/rom.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace copperline;

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 20.0;
    RomImage rom, ext;
    try {
        rom = loadRom(defaultRomPath());
        ext = loadRom(defaultExtRomPath());
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline-bootbench: %s\n", e.what());
        return 2;
    }
    struct Mode {
        const char* name;
        bool owners, slots, blitTrace;
    };
    const Mode modes[] = {{"recording off", false, false, false},
                          {"owner recording", true, false, false},
                          {"full 24-byte records", true, true, false},
                          {"owners + blit trace", true, false, true}};
    std::printf("AROS boot, %.0f emulated seconds, PAL A500 (best of 3)\n", seconds);
    for (const Mode& mode : modes) {
        double best = 0;
        for (int run = 0; run < 3; ++run) {
            Machine m;
            m.setRom(rom);
            m.setExtRom(ext);
            m.powerOn();
            m.agnus().setRecordOwners(mode.owners);
            m.agnus().setRecordSlots(mode.slots);
            m.blitTrace().setEnabled(mode.blitTrace);
            const auto start = std::chrono::steady_clock::now();
            while (m.emulatedSeconds() < seconds) m.runFrame();
            const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            best = std::max(best, m.emulatedSeconds() / host);
        }
        std::printf("  %-22s %6.2fx real time (%.2f emulated s per host s)\n", mode.name, best, best);
    }
    return 0;
}
