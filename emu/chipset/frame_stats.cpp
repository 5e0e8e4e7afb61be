// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/frame_stats.h"

namespace copperline {

const char* cpuAccessKindName(CpuAccessKind kind) {
    switch (kind) {
    case CpuAccessKind::Fetch: return "fetch";
    case CpuAccessKind::Read: return "read";
    case CpuAccessKind::Write: return "write";
    }
    return "unknown";
}

} // namespace copperline
