// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/slot_record.h"

namespace copperline {

const char* busOwnerName(BusOwner owner) {
    switch (owner) {
    case BusOwner::Idle: return "idle";
    case BusOwner::Refresh: return "refresh";
    case BusOwner::Disk: return "disk";
    case BusOwner::Audio: return "audio";
    case BusOwner::Sprite: return "sprite";
    case BusOwner::Bitplane: return "bitplane";
    case BusOwner::Copper: return "copper";
    case BusOwner::Blitter: return "blitter";
    case BusOwner::Cpu: return "cpu";
    }
    return "?";
}

} // namespace copperline
