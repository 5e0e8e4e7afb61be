// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The disk image files behind the drives: which file each drive's disk came from and
// whether the guest's writes go back to it (--floppyN-writeback, media.floppy.insert's
// "writeback"). One rule for every way a session ends or a disk leaves its drive: a disk
// the guest changed is written back when asked, and otherwise the user is told that the
// file is unchanged. README.md ("Floppy disks") and docs/floppy.md describe it.

#include <string>

namespace copperline {

class Machine;

struct FloppyFile {
    std::string path;       // empty: the disk is not a file of the user's (or no disk)
    bool writeback = false; // the guest's writes go back to the file
};

// Writes drive n's disk back to f.path if the guest changed it and f.writeback is set.
// Returns what to tell the user (empty when there is nothing to say): that the file was
// written, or that the guest's writes were left out of it. Throws MediaError when the
// file cannot be written (the disk in the drive is kept).
std::string writeBackFloppy(Machine& machine, unsigned n, const FloppyFile& f);

} // namespace copperline
