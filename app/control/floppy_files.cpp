// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/floppy_files.h"

#include "emu/machine.h"
#include "emu/media/adf.h"

namespace copperline {

std::string writeBackFloppy(Machine& machine, unsigned n, const FloppyFile& f) {
    // The image with what the drive still holds in its track buffer, taken without
    // changing the drive: writing back is no event of the emulated machine's.
    const FloppyDrive& d = machine.floppy().drive(n);
    if (f.path.empty() || !d.changedByGuest()) return {};
    const std::string df = "DF" + std::to_string(n);
    if (!f.writeback)
        return df + ": the guest wrote to the disk; " + f.path + " is unchanged (--floppy" +
               std::to_string(n) + "-writeback, or media.floppy.insert's \"writeback\", keeps the changes)";
    saveAdf(f.path, d.contents());
    return df + ": wrote the guest's changes to " + f.path;
}

} // namespace copperline
