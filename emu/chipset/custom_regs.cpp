// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/chipset/custom_regs.h"

#include <array>
#include <cstdio>
#include <string>

namespace copperline::reg {

namespace {

// Built once: a name for every used word offset. Numbered families are expanded.
struct Names {
    std::array<std::string, kCount> table;

    void set(std::uint16_t offset, std::string n) { table[offset >> 1] = std::move(n); }

    Names() {
        static const struct { std::uint16_t offset; const char* name; } fixed[] = {
            {BLTDDAT, "BLTDDAT"}, {DMACONR, "DMACONR"}, {VPOSR, "VPOSR"}, {VHPOSR, "VHPOSR"},
            {DSKDATR, "DSKDATR"}, {JOY0DAT, "JOY0DAT"}, {JOY1DAT, "JOY1DAT"}, {CLXDAT, "CLXDAT"},
            {ADKCONR, "ADKCONR"}, {POT0DAT, "POT0DAT"}, {POT1DAT, "POT1DAT"}, {POTGOR, "POTGOR"},
            {SERDATR, "SERDATR"}, {DSKBYTR, "DSKBYTR"}, {INTENAR, "INTENAR"}, {INTREQR, "INTREQR"},
            {DSKPTH, "DSKPTH"}, {DSKPTL, "DSKPTL"}, {DSKLEN, "DSKLEN"}, {DSKDAT, "DSKDAT"},
            {REFPTR, "REFPTR"}, {VPOSW, "VPOSW"}, {VHPOSW, "VHPOSW"}, {COPCON, "COPCON"},
            {SERDAT, "SERDAT"}, {SERPER, "SERPER"}, {POTGO, "POTGO"}, {JOYTEST, "JOYTEST"},
            {STREQU, "STREQU"}, {STRVBL, "STRVBL"}, {STRHOR, "STRHOR"}, {STRLONG, "STRLONG"},
            {BLTCON0, "BLTCON0"}, {BLTCON1, "BLTCON1"}, {BLTAFWM, "BLTAFWM"}, {BLTALWM, "BLTALWM"},
            {BLTCPTH, "BLTCPTH"}, {BLTCPTL, "BLTCPTL"}, {BLTBPTH, "BLTBPTH"}, {BLTBPTL, "BLTBPTL"},
            {BLTAPTH, "BLTAPTH"}, {BLTAPTL, "BLTAPTL"}, {BLTDPTH, "BLTDPTH"}, {BLTDPTL, "BLTDPTL"},
            {BLTSIZE, "BLTSIZE"}, {BLTCMOD, "BLTCMOD"}, {BLTBMOD, "BLTBMOD"}, {BLTAMOD, "BLTAMOD"},
            {BLTDMOD, "BLTDMOD"}, {BLTCDAT, "BLTCDAT"}, {BLTBDAT, "BLTBDAT"}, {BLTADAT, "BLTADAT"},
            {DSKSYNC, "DSKSYNC"}, {COP1LCH, "COP1LCH"}, {COP1LCL, "COP1LCL"}, {COP2LCH, "COP2LCH"},
            {COP2LCL, "COP2LCL"}, {COPJMP1, "COPJMP1"}, {COPJMP2, "COPJMP2"}, {COPINS, "COPINS"},
            {DIWSTRT, "DIWSTRT"}, {DIWSTOP, "DIWSTOP"}, {DDFSTRT, "DDFSTRT"}, {DDFSTOP, "DDFSTOP"},
            {DMACON, "DMACON"}, {CLXCON, "CLXCON"}, {INTENA, "INTENA"}, {INTREQ, "INTREQ"},
            {ADKCON, "ADKCON"}, {BPLCON0, "BPLCON0"}, {BPLCON1, "BPLCON1"}, {BPLCON2, "BPLCON2"},
            {BPL1MOD, "BPL1MOD"}, {BPL2MOD, "BPL2MOD"}, {NOOP, "NO-OP"},
        };
        for (const auto& f : fixed) set(f.offset, f.name);
        static const char* audio[] = {"LCH", "LCL", "LEN", "PER", "VOL", "DAT"};
        for (int ch = 0; ch < 4; ++ch)
            for (int r = 0; r < 6; ++r)
                set(std::uint16_t(AUD0LCH + 0x10 * ch + 2 * r), "AUD" + std::to_string(ch) + audio[r]);
        for (int p = 0; p < 6; ++p) {
            set(std::uint16_t(BPL1PTH + 4 * p), "BPL" + std::to_string(p + 1) + "PTH");
            set(std::uint16_t(BPL1PTL + 4 * p), "BPL" + std::to_string(p + 1) + "PTL");
            set(std::uint16_t(BPL1DAT + 2 * p), "BPL" + std::to_string(p + 1) + "DAT");
        }
        static const char* sprite[] = {"POS", "CTL", "DATA", "DATB"};
        for (int s = 0; s < 8; ++s) {
            set(std::uint16_t(SPR0PTH + 4 * s), "SPR" + std::to_string(s) + "PTH");
            set(std::uint16_t(SPR0PTL + 4 * s), "SPR" + std::to_string(s) + "PTL");
            for (int r = 0; r < 4; ++r) set(std::uint16_t(SPR0POS + 8 * s + 2 * r), "SPR" + std::to_string(s) + sprite[r]);
        }
        for (int c = 0; c < 32; ++c) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "COLOR%02d", c);
            set(std::uint16_t(COLOR00 + 2 * c), buf);
        }
    }
};

const Names& names() {
    static const Names n;
    return n;
}

} // namespace

const char* name(std::uint16_t offset) {
    if (offset >= 2 * kCount || (offset & 1)) return nullptr;
    const std::string& n = names().table[offset >> 1];
    return n.empty() ? nullptr : n.c_str();
}

bool strobe(std::uint16_t offset) {
    switch (offset) {
    case COPJMP1:
    case COPJMP2:
    case STREQU:
    case STRVBL:
    case STRHOR:
    case STRLONG: return true;
    default: return false;
    }
}

namespace {

// The bits of appendix A's register summary, by the names the manual gives them.
// clang-format off
constexpr Field kBplcon0[] = {{"HIRES", 15, 1}, {"BPU", 12, 3}, {"HOMOD", 11, 1}, {"DBLPF", 10, 1},
                              {"COLOR", 9, 1}, {"GAUD", 8, 1}, {"LPEN", 3, 1}, {"LACE", 2, 1}, {"ERSY", 1, 1}};
constexpr Field kBplcon1[] = {{"PF2H", 4, 4}, {"PF1H", 0, 4}};
constexpr Field kBplcon2[] = {{"PF2PRI", 6, 1}, {"PF2P", 3, 3}, {"PF1P", 0, 3}};
constexpr Field kDmacon[] = {{"SET/CLR", 15, 1}, {"BBUSY", 14, 1}, {"BZERO", 13, 1}, {"BLTPRI", 10, 1},
                             {"DMAEN", 9, 1}, {"BPLEN", 8, 1}, {"COPEN", 7, 1}, {"BLTEN", 6, 1},
                             {"SPREN", 5, 1}, {"DSKEN", 4, 1}, {"AUD3EN", 3, 1}, {"AUD2EN", 2, 1},
                             {"AUD1EN", 1, 1}, {"AUD0EN", 0, 1}};
constexpr Field kInterrupts[] = {{"SET/CLR", 15, 1}, {"INTEN", 14, 1}, {"EXTER", 13, 1}, {"DSKSYN", 12, 1},
                                 {"RBF", 11, 1}, {"AUD3", 10, 1}, {"AUD2", 9, 1}, {"AUD1", 8, 1},
                                 {"AUD0", 7, 1}, {"BLIT", 6, 1}, {"VERTB", 5, 1}, {"COPER", 4, 1},
                                 {"PORTS", 3, 1}, {"SOFT", 2, 1}, {"DSKBLK", 1, 1}, {"TBE", 0, 1}};
constexpr Field kAdkcon[] = {{"SET/CLR", 15, 1}, {"PRECOMP", 13, 2}, {"MFMPREC", 12, 1}, {"UARTBRK", 11, 1},
                             {"WORDSYNC", 10, 1}, {"MSBSYNC", 9, 1}, {"FAST", 8, 1}, {"USE3PN", 7, 1},
                             {"USE2P3", 6, 1}, {"USE1P2", 5, 1}, {"USE0P1", 4, 1}, {"USE3VN", 3, 1},
                             {"USE2V3", 2, 1}, {"USE1V2", 1, 1}, {"USE0V1", 0, 1}};
constexpr Field kCopcon[] = {{"CDANG", 1, 1}};
constexpr Field kDiw[] = {{"V", 8, 8}, {"H", 0, 8}};
constexpr Field kBltcon0[] = {{"ASH", 12, 4}, {"USEA", 11, 1}, {"USEB", 10, 1}, {"USEC", 9, 1},
                              {"USED", 8, 1}, {"LF", 0, 8}};
constexpr Field kBltcon1[] = {{"BSH", 12, 4}, {"EFE", 4, 1}, {"IFE", 3, 1}, {"FCI", 2, 1}, {"DESC", 1, 1},
                              {"LINE", 0, 1}};
constexpr Field kBltsize[] = {{"H", 6, 10}, {"W", 0, 6}};
constexpr Field kVposr[] = {{"LOF", 15, 1}, {"ID", 8, 7}, {"V8", 0, 1}};
constexpr Field kVhposr[] = {{"V", 8, 8}, {"H", 0, 8}};
constexpr Field kJoydat[] = {{"Y", 8, 8}, {"X", 0, 8}};
constexpr Field kDsklen[] = {{"DMAEN", 15, 1}, {"WRITE", 14, 1}, {"LEN", 0, 14}};
constexpr Field kDskbytr[] = {{"DSKBYT", 15, 1}, {"DMAON", 14, 1}, {"DISKWRITE", 13, 1}, {"WORDEQUAL", 12, 1},
                              {"DATA", 0, 8}};
constexpr Field kSerper[] = {{"LONG", 15, 1}, {"RATE", 0, 15}};
constexpr Field kPotgo[] = {{"OUTRY", 15, 1}, {"DATRY", 14, 1}, {"OUTRX", 13, 1}, {"DATRX", 12, 1},
                            {"OUTLY", 11, 1}, {"DATLY", 10, 1}, {"OUTLX", 9, 1}, {"DATLX", 8, 1},
                            {"START", 0, 1}};
constexpr Field kClxcon[] = {{"ENSP7", 15, 1}, {"ENSP5", 14, 1}, {"ENSP3", 13, 1}, {"ENSP1", 12, 1},
                             {"ENBP", 6, 6}, {"MVBP", 0, 6}};
constexpr Field kSprpos[] = {{"SV", 8, 8}, {"SH", 0, 8}};
constexpr Field kSprctl[] = {{"EV", 8, 8}, {"ATT", 7, 1}, {"SV8", 2, 1}, {"EV8", 1, 1}, {"SH0", 0, 1}};
constexpr Field kAudvol[] = {{"VOL", 0, 7}};
constexpr Field kColor[] = {{"R", 8, 4}, {"G", 4, 4}, {"B", 0, 4}};
// clang-format on

} // namespace

std::span<const Field> fields(std::uint16_t o) {
    o &= 0x1FE;
    if (o >= COLOR00 && o < COLOR00 + 64) return kColor;
    if (o >= SPR0POS && o < SPR0POS + 64) {
        if ((o & 7) == 0) return kSprpos;
        if ((o & 7) == 2) return kSprctl;
        return {};
    }
    if (o >= AUD0LCH && o < AUD0LCH + 64 && (o & 0xF) == (AUD0VOL & 0xF)) return kAudvol;
    switch (o) {
    case BPLCON0: return kBplcon0;
    case BPLCON1: return kBplcon1;
    case BPLCON2: return kBplcon2;
    case DMACON: return kDmacon;
    case DMACONR: return std::span(kDmacon).subspan(1); // no SET/CLR in a read
    case INTENA:
    case INTREQ: return kInterrupts;
    case INTENAR:
    case INTREQR: return std::span(kInterrupts).subspan(1);
    case ADKCON: return kAdkcon;
    case ADKCONR: return std::span(kAdkcon).subspan(1);
    case COPCON: return kCopcon;
    case DIWSTRT:
    case DIWSTOP: return kDiw;
    case BLTCON0: return kBltcon0;
    case BLTCON1: return kBltcon1;
    case BLTSIZE: return kBltsize;
    case VPOSR: return kVposr;
    case VHPOSR: return kVhposr;
    case JOY0DAT:
    case JOY1DAT: return kJoydat;
    case DSKLEN: return kDsklen;
    case DSKBYTR: return kDskbytr;
    case SERPER: return kSerper;
    case POTGO: return kPotgo;
    case CLXCON: return kClxcon;
    default: return {};
    }
}

bool writable(std::uint16_t offset) { return offset >= 0x020 && offset < 2 * kCount && name(offset) != nullptr; }

} // namespace copperline::reg
