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

bool writable(std::uint16_t offset) { return offset >= 0x020 && offset < 2 * kCount && name(offset) != nullptr; }

} // namespace copperline::reg
