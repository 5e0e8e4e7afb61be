// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-amigaosbench [SECONDS]: the cost of the AmigaOS reader on the AROS ROM. Boots
// AROS from a floppy whose Startup-Sequence is empty (so that dos.library starts too) for
// SECONDS emulated seconds (default 20), then times readAmigaOs (the whole system, as a
// capture reads it at its end), readExecAndThisTask (the running task, as a sampler would)
// and RomNamer::name. Prints microseconds per call, the best of five batches.

#include "emu/machine.h"
#include "emu/media/byte_reader.h"
#include "emu/media/ofs.h"
#include "emu/media/rom.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/amigaos/code_namer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

using namespace copperline;

namespace {

double bestMicroseconds(int calls, const std::function<void()>& call) {
    double best = 1e30;
    for (int batch = 0; batch < 5; ++batch) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            call();
        const std::chrono::duration<double, std::micro> d = std::chrono::steady_clock::now() - t0;
        best = std::min(best, d.count() / calls);
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 20.0;
    Machine m;
    try {
        m.setRom(loadRom(defaultRomPath()));
        m.setExtRom(loadRom(defaultExtRomPath()));
    } catch (const MediaError& e) {
        std::fprintf(stderr, "copperline-amigaosbench: %s\n", e.what());
        return 2;
    }
    m.powerOn();
    ofs::Volume volume;
    volume.files.push_back({"S/Startup-Sequence", {}});
    m.insertDisk(0, ofs::writeVolume(volume));
    while (m.emulatedSeconds() < seconds)
        m.runFrame();

    const MachineMemoryView view(m);
    const AmigaOsSnapshot os = readAmigaOs(view);
    std::size_t lvos = 0;
    for (const auto* list : {&os.libraries, &os.devices})
        for (const AmigaOsLibrary& l : *list)
            lvos += l.lvos.size();
    std::printf(
        "AROS at %.0f emulated seconds: %zu libraries, %zu devices, %zu resources, %zu tasks, "
        "%zu residents, %zu jump table entries, %zu problems\n",
        seconds, os.libraries.size(), os.devices.size(), os.resources.size(),
        os.readyTasks.size() + os.waitingTasks.size() + (os.thisTask ? 1 : 0), os.residents.size(),
        lvos, os.problems.size());

    std::size_t sink = 0;
    const double whole = bestMicroseconds(50, [&] { sink += readAmigaOs(view).libraries.size(); });
    const double task =
        bestMicroseconds(20000, [&] { sink += readExecAndThisTask(view).thisTask.has_value(); });
    const double json = bestMicroseconds(50, [&] { sink += romSymbolsJson(os).dump().size(); });
    const double modules = bestMicroseconds(5, [&] { sink += readCodeModules(view, true).size(); });
    const CodeNamer namer(readCodeModules(view, true));
    std::uint32_t a = 0xF80000;
    const double name = bestMicroseconds(200000, [&] {
        a = 0xF80000 + (a * 1103515245u + 12345u) % 0x80000;
        sink += namer.name(a & ~1u).known();
    });
    std::printf("readAmigaOs            %9.2f us\n", whole);
    std::printf("readExecAndThisTask    %9.2f us\n", task);
    std::printf("romSymbolsJson + dump  %9.2f us (%zu bytes)\n", json,
                romSymbolsJson(os).dump().size());
    std::printf("readCodeModules        %9.2f us\n", modules);
    std::printf("CodeNamer::name        %9.3f us\n", name);
    return sink == 0 ? 1 : 0;
}
