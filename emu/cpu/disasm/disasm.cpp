// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/cpu/disasm/disasm.h"
#include "emu/hex.h"

#include <array>
#include <cstdio>
#include <initializer_list>
#include <string_view>

// Encodings and the addressing modes each instruction allows follow the
// M68000 Family Programmer's Reference Manual (M68000PM/AD rev. 1), section 4
// and table 2-4, restricted to what the MC68000 itself decodes. Where GNU as
// would pick a different encoding for the obvious text, the instruction is
// written as `.short` data with the instruction in a comment; those places are
// marked "gas:" below and listed in docs/disassembler.md.

namespace copperline {
namespace {

// Effective-address modes as bits, so that each instruction can say which
// modes the 68000 accepts for it.
enum EaBit : std::uint16_t {
    kDn = 1u << 0,
    kAn = 1u << 1,
    kInd = 1u << 2,
    kPost = 1u << 3,
    kPre = 1u << 4,
    kDisp = 1u << 5,
    kIndex = 1u << 6,
    kAbsW = 1u << 7,
    kAbsL = 1u << 8,
    kPcDisp = 1u << 9,
    kPcIndex = 1u << 10,
    kImm = 1u << 11,
};

// The categories of the manual's table 2-4.
constexpr std::uint16_t kAll = 0xfff;
constexpr std::uint16_t kData = kAll & ~kAn;
constexpr std::uint16_t kControl = kInd | kDisp | kIndex | kAbsW | kAbsL | kPcDisp | kPcIndex;
constexpr std::uint16_t kAlterable =
    kDn | kAn | kInd | kPost | kPre | kDisp | kIndex | kAbsW | kAbsL;
constexpr std::uint16_t kDataAlterable = kAlterable & ~kAn;
constexpr std::uint16_t kMemoryAlterable = kDataAlterable & ~kDn;
constexpr std::uint16_t kControlAlterable = kControl & kAlterable;

bool allowed(unsigned mode, unsigned reg, std::uint16_t modes) {
    unsigned bit = 0;
    if (mode < 7)
        bit = 1u << mode;
    else if (reg <= 4)
        bit = 1u << (7 + reg);
    // Mode 7 with registers 5-7 is no mode on any 68000: bit stays 0.
    return (bit & modes) != 0;
}

enum class Size { Byte, Word, Long };

const char* suffix(Size size) {
    switch (size) {
    case Size::Byte: return ".b";
    case Size::Word: return ".w";
    case Size::Long: return ".l";
    }
    return "";
}

// Condition codes in encoding order (manual table 3-19).
constexpr std::array<const char*, 16> kConditions = {
    "t", "f", "hi", "ls", "cc", "cs", "ne", "eq", "vc", "vs", "pl", "mi", "ge", "lt", "gt", "le"};

constexpr std::array<const char*, 4> kBitOps = {"btst", "bchg", "bclr", "bset"};

// Joins text. The parts of a braced list are evaluated left to right, which
// matters: formatting an operand reads its extension words, and operands must
// read them in instruction order.
std::string cat(std::initializer_list<std::string_view> parts) {
    std::size_t length = 0;
    for (const std::string_view part : parts)
        length += part.size();
    std::string text;
    text.reserve(length);
    for (const std::string_view part : parts)
        text.append(part);
    return text;
}

std::string dataReg(unsigned reg) {
    return cat({"%d", std::to_string(reg & 7)});
}

// gas knows a7 as %sp, and so do 68000 programmers.
std::string addrReg(unsigned reg) {
    return (reg & 7) == 7 ? std::string("%sp") : cat({"%a", std::to_string(reg & 7)});
}

class Decoder {
public:
    Decoder(std::uint32_t pc, const DisasmWordReader& readWord, const DisasmOptions& options)
        : pc_(pc), readWord_(readWord), options_(options) {}

    DisasmResult run();

private:
    std::uint16_t next();
    std::uint32_t nextAddress() const { return pc_ + 2 * count_; }

    std::string number(std::uint32_t value) const;
    std::string signedNumber(std::int32_t value) const;
    std::string displacement16(std::int16_t value) const;
    std::string relative(std::int32_t offset) const;
    std::string branchTarget(std::uint32_t target);
    std::string immediate(Size size);
    std::string ea(unsigned mode, unsigned reg, Size size);
    std::string briefExtension(std::string_view base);
    std::string registerList(std::uint16_t mask, bool predecrement) const;

    bool line0(std::uint16_t op);
    bool move(std::uint16_t op);
    bool line4(std::uint16_t op);
    bool line4Misc(std::uint16_t op);
    bool line5(std::uint16_t op);
    bool line6(std::uint16_t op);
    bool line7(std::uint16_t op);
    bool line8(std::uint16_t op);
    bool addSub(std::uint16_t op, std::string_view name);
    bool lineB(std::uint16_t op);
    bool lineC(std::uint16_t op);
    bool lineE(std::uint16_t op);

    bool emit(std::string text, Flow flow = Flow::Next) {
        text_ = std::move(text);
        flow_ = flow;
        return true;
    }
    void setTarget(std::uint32_t target) {
        hasTarget_ = true;
        target_ = target;
    }

    std::uint32_t pc_;
    const DisasmWordReader& readWord_;
    const DisasmOptions& options_;
    std::array<std::uint16_t, 5> words_{};
    unsigned count_ = 0;
    std::string text_;
    Flow flow_ = Flow::Next;
    bool hasTarget_ = false;
    std::uint32_t target_ = 0;
    // False when gas would assemble the text to other bytes than these.
    bool exact_ = true;
};

std::uint16_t Decoder::next() {
    const std::uint16_t word = readWord_(nextAddress());
    // No 68000 instruction is longer than five words (MOVE.L #imm,(xxx).L),
    // so the decoder never asks for a sixth.
    if (count_ < words_.size()) words_[count_] = word;
    ++count_;
    return word;
}

std::string Decoder::number(std::uint32_t value) const {
    // Digits below ten read the same in both bases; leave off the prefix.
    if (value < 10 || !options_.hexNumbers) return std::to_string(value);
    return hex(value);
}

std::string Decoder::signedNumber(std::int32_t value) const {
    if (value < 0) return cat({"-", number(0u - static_cast<std::uint32_t>(value))});
    return number(static_cast<std::uint32_t>(value));
}

std::string Decoder::displacement16(std::int16_t value) const {
    // gas: a zero displacement without a size is folded into (An), dropping the
    // extension word; `0.w` keeps it.
    if (value == 0) return "0.w";
    return signedNumber(value);
}

std::string Decoder::relative(std::int32_t offset) const {
    if (offset < 0) return cat({".-", number(0u - static_cast<std::uint32_t>(offset))});
    return cat({".+", number(static_cast<std::uint32_t>(offset))});
}

std::string Decoder::branchTarget(std::uint32_t target) {
    setTarget(target);
    if (options_.branchTargets == BranchTargets::Relative)
        return relative(static_cast<std::int32_t>(target - pc_));
    return hex(target);
}

std::string Decoder::immediate(Size size) {
    switch (size) {
    case Size::Byte: {
        // The 68000 uses the low byte of the word. gas writes the 16-bit value of
        // the expression, so 0x00nn is `#0xnn` and 0xffnn (nn >= 0x80) is `#-n`;
        // any other high byte cannot be written.
        const std::uint16_t word = next();
        const std::uint32_t low = word & 0xff;
        if ((word >> 8) == 0xff && low >= 0x80)
            return cat({"#", signedNumber(static_cast<std::int8_t>(low))});
        if ((word >> 8) != 0) exact_ = false;
        return cat({"#", number(low)});
    }
    case Size::Word: return cat({"#", number(next())});
    case Size::Long: {
        const std::uint32_t high = next();
        const std::uint32_t low = next();
        return cat({"#", number(high << 16 | low)});
    }
    }
    return {};
}

std::string Decoder::briefExtension(std::string_view base) {
    const std::uint16_t word = next();
    // Bits 8-10 (scale, and full format on the 68020) are ignored by the 68000;
    // gas always writes them as zero.
    if (word & 0x0700) exact_ = false;
    const unsigned reg = (word >> 12) & 7;
    return cat({"(", signedNumber(static_cast<std::int8_t>(word & 0xff)), ",", base, ",",
                (word & 0x8000) ? addrReg(reg) : dataReg(reg), (word & 0x0800) ? ".l)" : ".w)"});
}

std::string Decoder::ea(unsigned mode, unsigned reg, Size size) {
    switch (mode) {
    case 0: return dataReg(reg);
    case 1: return addrReg(reg);
    case 2: return cat({"(", addrReg(reg), ")"});
    case 3: return cat({"(", addrReg(reg), ")+"});
    case 4: return cat({"-(", addrReg(reg), ")"});
    case 5:
        return cat(
            {"(", displacement16(static_cast<std::int16_t>(next())), ",", addrReg(reg), ")"});
    case 6: return briefExtension(addrReg(reg));
    default: break;
    }
    switch (reg) {
    case 0: {
        // The word is sign-extended; show the address the 68000 uses.
        const auto address = static_cast<std::uint32_t>(static_cast<std::int16_t>(next()));
        return cat({"(", hex(address), ").w"});
    }
    case 1: {
        const std::uint32_t high = next();
        const std::uint32_t low = next();
        return cat({"(", hex(high << 16 | low), ").l"});
    }
    case 2: {
        // gas takes a constant displacement from the PC literally; the address
        // it reaches goes to the result's target.
        const std::uint32_t base = nextAddress();
        const auto disp = static_cast<std::int16_t>(next());
        setTarget(base + static_cast<std::uint32_t>(std::int32_t{disp}));
        return cat({"(", displacement16(disp), ",%pc)"});
    }
    case 3: return briefExtension("%pc");
    case 4: return immediate(size);
    default: return {};
    }
}

std::string Decoder::registerList(std::uint16_t mask, bool predecrement) const {
    // In the predecrement form bit 0 is a7 and bit 15 is d0 (manual, MOVEM).
    if (predecrement) {
        std::uint16_t reversed = 0;
        for (unsigned bit = 0; bit < 16; ++bit)
            if (mask & (1u << bit)) reversed |= static_cast<std::uint16_t>(1u << (15 - bit));
        mask = reversed;
    }
    // gas: `#0` is the only way to write an empty list.
    if (mask == 0) return "#0";
    std::string text;
    for (unsigned group = 0; group < 2; ++group) {
        const auto name = [group](unsigned r) { return group ? addrReg(r) : dataReg(r); };
        unsigned reg = 0;
        while (reg < 8) {
            if (!(mask & (1u << (group * 8 + reg)))) {
                ++reg;
                continue;
            }
            unsigned last = reg;
            while (last + 1 < 8 && (mask & (1u << (group * 8 + last + 1))))
                ++last;
            if (!text.empty()) text += '/';
            text += name(reg);
            if (last != reg) {
                text += '-';
                text += name(last);
            }
            reg = last + 1;
        }
    }
    return text;
}

// 0000: immediate arithmetic, bit operations, MOVEP.
bool Decoder::line0(std::uint16_t op) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    if (op & 0x0100) {
        const unsigned dn = (op >> 9) & 7;
        if (mode == 1) {
            const unsigned opmode = (op >> 6) & 7;
            const char* name = (opmode & 1) ? "movep.l " : "movep.w ";
            const std::string memory =
                cat({"(", signedNumber(static_cast<std::int16_t>(next())), ",", addrReg(reg), ")"});
            if (opmode & 2) return emit(cat({name, dataReg(dn), ",", memory}));
            return emit(cat({name, memory, ",", dataReg(dn)}));
        }
        const unsigned type = (op >> 6) & 3;
        // BTST Dn,<ea> only reads, so PC-relative and immediate operands are fine.
        if (!allowed(mode, reg, type == 0 ? kData : kDataAlterable)) return false;
        return emit(cat({kBitOps[type], mode == 0 ? ".l " : ".b ", dataReg(dn), ",",
                         ea(mode, reg, Size::Byte)}));
    }
    const unsigned kind = (op >> 9) & 7;
    const unsigned sizeBits = (op >> 6) & 3;
    if (kind == 4) {
        if (!allowed(mode, reg, sizeBits == 0 ? kData & ~kImm : kDataAlterable)) return false;
        const std::uint16_t bit = next();
        // The manual has bits 8-15 zero; gas takes bit numbers 0-255 only.
        if (bit & 0xff00) exact_ = false;
        return emit(cat({kBitOps[sizeBits], mode == 0 ? ".l #" : ".b #", number(bit & 0xff), ",",
                         ea(mode, reg, Size::Byte)}));
    }
    static constexpr std::array<const char*, 8> kImmediate = {"ori",   "andi", "subi", "addi",
                                                              nullptr, "eori", "cmpi", nullptr};
    const char* name = kImmediate[kind];
    if (!name || sizeBits == 3) return false;
    const auto size = static_cast<Size>(sizeBits);
    if (mode == 7 && reg == 4) {
        // With #imm as destination ORI, ANDI and EORI reach CCR (byte) or SR (word).
        if (kind == 2 || kind == 3 || kind == 6 || size == Size::Long) return false;
        return emit(cat(
            {name, suffix(size), " ", immediate(size), ",", size == Size::Byte ? "%ccr" : "%sr"}));
    }
    if (!allowed(mode, reg, kDataAlterable)) return false;
    return emit(cat({name, suffix(size), " ", immediate(size), ",", ea(mode, reg, size)}));
}

// 0001-0011: MOVE and MOVEA.
bool Decoder::move(std::uint16_t op) {
    static constexpr std::array<Size, 4> kSizes = {Size::Byte, Size::Byte, Size::Long, Size::Word};
    const Size size = kSizes[(op >> 12) & 3];
    const unsigned srcMode = (op >> 3) & 7;
    const unsigned srcReg = op & 7;
    const unsigned dstMode = (op >> 6) & 7;
    const unsigned dstReg = (op >> 9) & 7;
    if (!allowed(srcMode, srcReg, size == Size::Byte ? kData : kAll)) return false;
    if (dstMode == 1) {
        if (size == Size::Byte) return false;
        return emit(
            cat({"movea", suffix(size), " ", ea(srcMode, srcReg, size), ",", addrReg(dstReg)}));
    }
    if (!allowed(dstMode, dstReg, kDataAlterable)) return false;
    const std::string source = ea(srcMode, srcReg, size);
    // gas: `move.l #n,%dN` with n in -128..127 becomes MOVEQ.
    if (size == Size::Long && dstMode == 0 && srcMode == 7 && srcReg == 4) {
        const std::uint32_t value = static_cast<std::uint32_t>(words_[1]) << 16 | words_[2];
        if (value + 0x80 < 0x100) exact_ = false;
    }
    return emit(cat({"move", suffix(size), " ", source, ",", ea(dstMode, dstReg, size)}));
}

// 0100: miscellaneous.
bool Decoder::line4(std::uint16_t op) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    if (op & 0x0100) {
        const unsigned rn = (op >> 9) & 7;
        switch ((op >> 6) & 3) {
        case 2: // CHK.W; CHK.L (size 0) is 68020.
            if (!allowed(mode, reg, kData)) return false;
            return emit(cat({"chk.w ", ea(mode, reg, Size::Word), ",", dataReg(rn)}));
        case 3:
            if (!allowed(mode, reg, kControl)) return false;
            return emit(cat({"lea ", ea(mode, reg, Size::Long), ",", addrReg(rn)}));
        default: return false;
        }
    }
    const unsigned sizeBits = (op >> 6) & 3;
    const auto size = static_cast<Size>(sizeBits < 3 ? sizeBits : 1);
    switch ((op >> 8) & 0xf) {
    case 0x0:
        if (!allowed(mode, reg, kDataAlterable)) return false;
        if (sizeBits == 3) return emit(cat({"move.w %sr,", ea(mode, reg, Size::Word)}));
        return emit(cat({"negx", suffix(size), " ", ea(mode, reg, size)}));
    case 0x2: // size 3 is MOVE from CCR, a 68010 instruction.
        if (sizeBits == 3 || !allowed(mode, reg, kDataAlterable)) return false;
        return emit(cat({"clr", suffix(size), " ", ea(mode, reg, size)}));
    case 0x4:
    case 0x6: {
        const bool toCcr = (op & 0x0200) == 0;
        if (sizeBits == 3) {
            if (!allowed(mode, reg, kData)) return false;
            return emit(cat({"move.w ", ea(mode, reg, Size::Word), toCcr ? ",%ccr" : ",%sr"}));
        }
        if (!allowed(mode, reg, kDataAlterable)) return false;
        return emit(cat({toCcr ? "neg" : "not", suffix(size), " ", ea(mode, reg, size)}));
    }
    case 0x8:
        if (sizeBits == 0) {
            // Mode 1 is LINK.L, a 68020 instruction.
            if (!allowed(mode, reg, kDataAlterable)) return false;
            return emit(cat({"nbcd ", ea(mode, reg, Size::Byte)}));
        }
        if (sizeBits == 1) {
            // Mode 1 is BKPT, a 68010 instruction.
            if (mode == 0) return emit(cat({"swap ", dataReg(reg)}));
            if (!allowed(mode, reg, kControl)) return false;
            return emit(cat({"pea ", ea(mode, reg, Size::Long)}));
        }
        if (mode == 0) return emit(cat({sizeBits == 2 ? "ext.w " : "ext.l ", dataReg(reg)}));
        if (!allowed(mode, reg, kControlAlterable | kPre)) return false;
        return emit(cat({sizeBits == 2 ? "movem.w " : "movem.l ", registerList(next(), mode == 4),
                         ",", ea(mode, reg, Size::Word)}));
    case 0xa:
        if (sizeBits == 3) {
            if (op == 0x4afc) return emit("illegal", Flow::Trap);
            if (!allowed(mode, reg, kDataAlterable)) return false;
            return emit(cat({"tas ", ea(mode, reg, Size::Byte)}));
        }
        // TST of An, PC-relative and immediate operands came with the 68020.
        if (!allowed(mode, reg, kDataAlterable)) return false;
        return emit(cat({"tst", suffix(size), " ", ea(mode, reg, size)}));
    case 0xc: {
        // Sizes 0 and 1 are the 68020's MULx.L and DIVx.L.
        if (sizeBits < 2 || !allowed(mode, reg, kControl | kPost)) return false;
        // The mask word comes first, though the list is written last.
        const std::uint16_t mask = next();
        return emit(cat({sizeBits == 2 ? "movem.w " : "movem.l ", ea(mode, reg, Size::Word), ",",
                         registerList(mask, false)}));
    }
    case 0xe: return line4Misc(op);
    default: return false;
    }
}

// 0100 1110 01xx xxxx: TRAP to RTR; and JSR, JMP.
bool Decoder::line4Misc(std::uint16_t op) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    const unsigned kind = (op >> 6) & 3;
    if (kind == 2 || kind == 3) {
        if (!allowed(mode, reg, kControl)) return false;
        const bool call = kind == 2;
        const std::string operand = ea(mode, reg, Size::Long);
        if (mode == 7 && reg == 0)
            setTarget(static_cast<std::uint32_t>(static_cast<std::int16_t>(words_[1])));
        else if (mode == 7 && reg == 1)
            setTarget(static_cast<std::uint32_t>(words_[1]) << 16 | words_[2]);
        return emit(cat({call ? "jsr " : "jmp ", operand}), call ? Flow::Call : Flow::Jump);
    }
    if (kind != 1) return false;
    switch (mode) {
    case 0:
    case 1: return emit(cat({"trap #", number(op & 0xf)}), Flow::Trap);
    case 2:
        return emit(
            cat({"link.w ", addrReg(reg), ",#", signedNumber(static_cast<std::int16_t>(next()))}));
    case 3: return emit(cat({"unlk ", addrReg(reg)}));
    case 4: return emit(cat({"move.l ", addrReg(reg), ",%usp"}));
    case 5: return emit(cat({"move.l %usp,", addrReg(reg)}));
    case 6:
        switch (reg) {
        case 0: return emit("reset", Flow::Stop);
        case 1: return emit("nop");
        case 2: return emit(cat({"stop #", number(next())}), Flow::Stop);
        case 3: return emit("rte", Flow::Return);
        case 5: return emit("rts", Flow::Return);
        case 6: return emit("trapv");
        case 7: return emit("rtr", Flow::Return);
        default: return false; // 4 is RTD, a 68010 instruction
        }
    default: return false; // MOVEC, 68010
    }
}

// 0101: ADDQ, SUBQ, Scc, DBcc.
bool Decoder::line5(std::uint16_t op) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    const unsigned sizeBits = (op >> 6) & 3;
    const unsigned cond = (op >> 8) & 0xf;
    if (sizeBits == 3) {
        if (mode == 1) {
            const std::uint32_t base = nextAddress();
            const auto disp = static_cast<std::int16_t>(next());
            const std::uint32_t target = base + static_cast<std::uint32_t>(std::int32_t{disp});
            setTarget(target);
            // gas: a constant DBcc target is dropped without a word (tc-m68k.c
            // emits a fixup only when the operand holds a symbol), so DBcc is
            // always written relative to `.`.
            return emit(cat({cond == 1 ? "dbra" : "db", cond == 1 ? "" : kConditions[cond], " ",
                             dataReg(reg), ",", relative(static_cast<std::int32_t>(target - pc_))}),
                        Flow::Branch);
        }
        // Scc on PC-relative and immediate operands is TRAPcc on the 68020.
        if (!allowed(mode, reg, kDataAlterable)) return false;
        return emit(cat({"s", kConditions[cond], " ", ea(mode, reg, Size::Byte)}));
    }
    const auto size = static_cast<Size>(sizeBits);
    // Byte size with An is not an instruction (manual, ADDQ and SUBQ).
    if (!allowed(mode, reg, size == Size::Byte ? kDataAlterable : kAlterable)) return false;
    const unsigned data = (op >> 9) & 7;
    return emit(cat({(op & 0x0100) ? "subq" : "addq", suffix(size), " #",
                     std::to_string(data == 0 ? 8 : data), ",", ea(mode, reg, size)}));
}

// 0110: BRA, BSR, Bcc.
bool Decoder::line6(std::uint16_t op) {
    const unsigned cond = (op >> 8) & 0xf;
    std::int32_t disp = static_cast<std::int8_t>(op & 0xff);
    const char* size = ".s ";
    if ((op & 0xff) == 0) {
        disp = static_cast<std::int16_t>(next());
        size = ".w ";
    } else if ((op & 0xff) == 0xff) {
        // On the 68000 this is a short branch by -1, to an odd address; gas
        // takes 0xff for the 68020's 32-bit form and refuses it.
        exact_ = false;
    }
    const std::string target = branchTarget(pc_ + 2 + static_cast<std::uint32_t>(disp));
    const Flow flow = cond == 0 ? Flow::Jump : cond == 1 ? Flow::Call : Flow::Branch;
    return emit(cat({cond == 0   ? "bra"
                     : cond == 1 ? "bsr"
                                 : cat({"b", kConditions[cond]}),
                     size, target}),
                flow);
}

// 0111: MOVEQ.
bool Decoder::line7(std::uint16_t op) {
    if (op & 0x0100) return false;
    return emit(cat({"moveq #", signedNumber(static_cast<std::int8_t>(op & 0xff)), ",",
                     dataReg((op >> 9) & 7)}));
}

// 1000: OR, DIVU, DIVS, SBCD.
bool Decoder::line8(std::uint16_t op) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    const unsigned rn = (op >> 9) & 7;
    const unsigned opmode = (op >> 6) & 7;
    if (opmode == 3 || opmode == 7) {
        if (!allowed(mode, reg, kData)) return false;
        return emit(cat(
            {opmode == 3 ? "divu.w " : "divs.w ", ea(mode, reg, Size::Word), ",", dataReg(rn)}));
    }
    const auto size = static_cast<Size>(opmode & 3);
    if (opmode < 3) {
        if (!allowed(mode, reg, kData)) return false;
        // gas: `or.s #n,%dN` is assembled as ORI.
        if (mode == 7 && reg == 4) exact_ = false;
        return emit(cat({"or", suffix(size), " ", ea(mode, reg, size), ",", dataReg(rn)}));
    }
    if (mode < 2) {
        // Opmodes 5 and 6 are the 68020's PACK and UNPK.
        if (opmode != 4) return false;
        if (mode == 0) return emit(cat({"sbcd ", dataReg(reg), ",", dataReg(rn)}));
        return emit(cat({"sbcd -(", addrReg(reg), "),-(", addrReg(rn), ")"}));
    }
    if (!allowed(mode, reg, kMemoryAlterable)) return false;
    return emit(cat({"or", suffix(size), " ", dataReg(rn), ",", ea(mode, reg, size)}));
}

// 1001 and 1101: SUB, SUBA, SUBX and ADD, ADDA, ADDX.
bool Decoder::addSub(std::uint16_t op, std::string_view name) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    const unsigned rn = (op >> 9) & 7;
    const unsigned opmode = (op >> 6) & 7;
    if (opmode == 3 || opmode == 7) {
        if (!allowed(mode, reg, kAll)) return false;
        const Size size = opmode == 3 ? Size::Word : Size::Long;
        return emit(cat({name, "a", suffix(size), " ", ea(mode, reg, size), ",", addrReg(rn)}));
    }
    const auto size = static_cast<Size>(opmode & 3);
    if (opmode < 3) {
        if (!allowed(mode, reg, size == Size::Byte ? kData : kAll)) return false;
        // gas: `add.s #n,%dN` is assembled as ADDQ or ADDI.
        if (mode == 7 && reg == 4) exact_ = false;
        return emit(cat({name, suffix(size), " ", ea(mode, reg, size), ",", dataReg(rn)}));
    }
    if (mode == 0) return emit(cat({name, "x", suffix(size), " ", dataReg(reg), ",", dataReg(rn)}));
    if (mode == 1)
        return emit(cat({name, "x", suffix(size), " -(", addrReg(reg), "),-(", addrReg(rn), ")"}));
    if (!allowed(mode, reg, kMemoryAlterable)) return false;
    return emit(cat({name, suffix(size), " ", dataReg(rn), ",", ea(mode, reg, size)}));
}

// 1011: CMP, CMPA, CMPM, EOR.
bool Decoder::lineB(std::uint16_t op) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    const unsigned rn = (op >> 9) & 7;
    const unsigned opmode = (op >> 6) & 7;
    if (opmode == 3 || opmode == 7) {
        if (!allowed(mode, reg, kAll)) return false;
        const Size size = opmode == 3 ? Size::Word : Size::Long;
        return emit(cat({"cmpa", suffix(size), " ", ea(mode, reg, size), ",", addrReg(rn)}));
    }
    const auto size = static_cast<Size>(opmode & 3);
    if (opmode < 3) {
        if (!allowed(mode, reg, size == Size::Byte ? kData : kAll)) return false;
        // gas: `cmp.s #n,%dN` is assembled as CMPI.
        if (mode == 7 && reg == 4) exact_ = false;
        return emit(cat({"cmp", suffix(size), " ", ea(mode, reg, size), ",", dataReg(rn)}));
    }
    if (mode == 1)
        return emit(cat({"cmpm", suffix(size), " (", addrReg(reg), ")+,(", addrReg(rn), ")+"}));
    if (!allowed(mode, reg, kDataAlterable)) return false;
    return emit(cat({"eor", suffix(size), " ", dataReg(rn), ",", ea(mode, reg, size)}));
}

// 1100: AND, MULU, MULS, ABCD, EXG.
bool Decoder::lineC(std::uint16_t op) {
    const unsigned mode = (op >> 3) & 7;
    const unsigned reg = op & 7;
    const unsigned rn = (op >> 9) & 7;
    const unsigned opmode = (op >> 6) & 7;
    if (opmode == 3 || opmode == 7) {
        if (!allowed(mode, reg, kData)) return false;
        return emit(cat(
            {opmode == 3 ? "mulu.w " : "muls.w ", ea(mode, reg, Size::Word), ",", dataReg(rn)}));
    }
    const auto size = static_cast<Size>(opmode & 3);
    if (opmode < 3) {
        if (!allowed(mode, reg, kData)) return false;
        // gas: `and.s #n,%dN` is assembled as ANDI.
        if (mode == 7 && reg == 4) exact_ = false;
        return emit(cat({"and", suffix(size), " ", ea(mode, reg, size), ",", dataReg(rn)}));
    }
    if (mode < 2) {
        switch (opmode << 1 | mode) {
        case 4 << 1 | 0: return emit(cat({"abcd ", dataReg(reg), ",", dataReg(rn)}));
        case 4 << 1 | 1: return emit(cat({"abcd -(", addrReg(reg), "),-(", addrReg(rn), ")"}));
        case 5 << 1 | 0: return emit(cat({"exg ", dataReg(rn), ",", dataReg(reg)}));
        case 5 << 1 | 1: return emit(cat({"exg ", addrReg(rn), ",", addrReg(reg)}));
        case 6 << 1 | 1: return emit(cat({"exg ", dataReg(rn), ",", addrReg(reg)}));
        default: return false;
        }
    }
    if (!allowed(mode, reg, kMemoryAlterable)) return false;
    return emit(cat({"and", suffix(size), " ", dataReg(rn), ",", ea(mode, reg, size)}));
}

// 1110: shifts and rotates.
bool Decoder::lineE(std::uint16_t op) {
    static constexpr std::array<const char*, 4> kShifts = {"as", "ls", "rox", "ro"};
    const char* direction = (op & 0x0100) ? "l" : "r";
    const unsigned sizeBits = (op >> 6) & 3;
    if (sizeBits == 3) {
        // Memory shifts move one bit of a word; bit 11 set is a 68020 bit-field op.
        const unsigned mode = (op >> 3) & 7;
        const unsigned reg = op & 7;
        if ((op & 0x0800) || !allowed(mode, reg, kMemoryAlterable)) return false;
        return emit(cat({kShifts[(op >> 9) & 3], direction, ".w ", ea(mode, reg, Size::Word)}));
    }
    const auto size = static_cast<Size>(sizeBits);
    const unsigned count = (op >> 9) & 7;
    const std::string source =
        (op & 0x0020) ? dataReg(count) : cat({"#", std::to_string(count == 0 ? 8 : count)});
    return emit(
        cat({kShifts[(op >> 3) & 3], direction, suffix(size), " ", source, ",", dataReg(op & 7)}));
}

DisasmResult Decoder::run() {
    const std::uint16_t op = next();
    bool legal = false;
    switch (op >> 12) {
    case 0x0: legal = line0(op); break;
    case 0x1:
    case 0x2:
    case 0x3: legal = move(op); break;
    case 0x4: legal = line4(op); break;
    case 0x5: legal = line5(op); break;
    case 0x6: legal = line6(op); break;
    case 0x7: legal = line7(op); break;
    case 0x8: legal = line8(op); break;
    case 0x9: legal = addSub(op, "sub"); break;
    case 0xb: legal = lineB(op); break;
    case 0xc: legal = lineC(op); break;
    case 0xd: legal = addSub(op, "add"); break;
    case 0xe: legal = lineE(op); break;
    default: break; // line A and line F trap on the 68000
    }

    DisasmResult result;
    result.address = pc_;
    char word[8];
    std::snprintf(word, sizeof word, "0x%04x", static_cast<unsigned>(op));
    if (!legal) {
        result.text = cat({".short ", word});
        return result;
    }
    result.valid = true;
    result.length = 2 * count_;
    result.flow = flow_;
    result.hasTarget = hasTarget_;
    result.target = target_;
    if (exact_) {
        result.text = std::move(text_);
        return result;
    }
    // The words as data keep the bytes; the comment (`|` in gas) keeps the meaning.
    result.text = cat({".short ", word});
    for (unsigned i = 1; i < count_; ++i) {
        std::snprintf(word, sizeof word, "0x%04x", static_cast<unsigned>(words_[i]));
        result.text += ',';
        result.text += word;
    }
    result.text += " | ";
    result.text += text_;
    return result;
}

} // namespace

DisasmResult disassemble(std::uint32_t pc, const DisasmWordReader& readWord,
                         const DisasmOptions& options) {
    return Decoder(pc, readWord, options).run();
}

DisasmResult disassemble(std::uint32_t pc, std::span<const std::uint8_t> bytes,
                         const DisasmOptions& options) {
    bool overrun = false;
    const DisasmWordReader read = [&](std::uint32_t address) -> std::uint16_t {
        const std::uint32_t offset = address - pc;
        if (offset + 2 > bytes.size()) {
            overrun = true;
            return 0;
        }
        return static_cast<std::uint16_t>(bytes[offset] << 8 | bytes[offset + 1]);
    };
    DisasmResult result = Decoder(pc, read, options).run();
    if (!overrun) return result;
    // Not enough bytes for the whole instruction: show its first word as data
    // rather than guess at the rest.
    DisasmResult data;
    data.address = pc;
    if (bytes.size() < 2) {
        data.length = 0;
        return data;
    }
    char text[24];
    std::snprintf(text, sizeof text, ".short 0x%04x",
                  static_cast<unsigned>(bytes[0] << 8 | bytes[1]));
    data.text = text;
    return data;
}

std::vector<DisasmResult> disassembleRange(std::uint32_t pc, std::uint32_t count,
                                           const DisasmWordReader& readWord,
                                           const DisasmOptions& options) {
    std::vector<DisasmResult> lines;
    lines.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        lines.push_back(disassemble(pc, readWord, options));
        pc += lines.back().length;
    }
    return lines;
}

} // namespace copperline
