// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/cpu/m68k.h"

namespace copperline::m68k {

const char* vectorName(unsigned vector) {
    switch (vector) {
    case kVectorResetSsp: return "reset SSP";
    case kVectorResetPc: return "reset PC";
    case kVectorBusError: return "bus error";
    case kVectorAddressError: return "address error";
    case kVectorIllegal: return "illegal instruction";
    case kVectorZeroDivide: return "zero divide";
    case kVectorChk: return "CHK";
    case kVectorTrapv: return "TRAPV";
    case kVectorPrivilege: return "privilege violation";
    case kVectorTrace: return "trace";
    case kVectorLineA: return "line 1010";
    case kVectorLineF: return "line 1111";
    case kVectorSpurious: return "spurious interrupt";
    default: break;
    }
    if (vector >= kVectorAutovector1 && vector < kVectorAutovector1 + 7) return "autovector";
    if (vector >= kVectorTrap0 && vector < kVectorTrap0 + 16) return "TRAP";
    if (vector >= 64) return "user interrupt";
    return "reserved";
}

} // namespace copperline::m68k
