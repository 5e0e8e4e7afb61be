// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/bartman_profile.h"

#include "emu/chipset/custom_regs.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <algorithm>
#include <utility>

namespace copperline {

namespace {

using namespace bartman;

// Appends numbers in either byte order: the file mixes WinUAE's in-memory structures
// (little-endian) with its savestate encoding (big-endian).
class ByteWriter {
public:
    explicit ByteWriter(std::size_t reserve) { out_.reserve(reserve); }

    void le8(std::uint8_t v) { out_.push_back(v); }
    void le16(std::uint16_t v) {
        out_.push_back(std::uint8_t(v));
        out_.push_back(std::uint8_t(v >> 8));
    }
    void le32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i)
            out_.push_back(std::uint8_t(v >> (8 * i)));
    }
    void be16(std::uint16_t v) {
        out_.push_back(std::uint8_t(v >> 8));
        out_.push_back(std::uint8_t(v));
    }
    void be32(std::uint32_t v) {
        for (int i = 3; i >= 0; --i)
            out_.push_back(std::uint8_t(v >> (8 * i)));
    }
    void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
    // A length that must fit the file's 32-bit fields.
    void size32(std::size_t n, const char* what) {
        if (n > 0xFFFFFFFFu)
            throw MediaError(std::string("bartman profile: ") + what + " is larger than 4 GiB");
        le32(std::uint32_t(n));
    }
    std::vector<std::uint8_t> take() { return std::move(out_); }

private:
    std::vector<std::uint8_t> out_;
};

std::uint16_t getLe16(const std::uint8_t* p) {
    return std::uint16_t(p[0] | p[1] << 8);
}
std::uint32_t getLe32(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
           std::uint32_t(p[3]) << 24;
}
std::uint32_t getBe32(const std::uint8_t* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 |
           std::uint32_t(p[3]);
}

// Little-endian reads through ByteReader, which bounds-checks and names the field.
std::uint32_t le32(ByteReader& r, const std::string& field) {
    return getLe32(r.bytes(4, field.c_str()).data());
}

// The part of a name that fits the file's 32 bytes with its NUL, not splitting a UTF-8
// character.
std::string fitName(const std::string& name) {
    std::size_t n = std::min<std::size_t>(name.size(), kResourceNameSize - 1);
    if (n < name.size())
        while (n > 0 && (std::uint8_t(name[n]) & 0xC0) == 0x80)
            --n;
    n = std::min(n, name.find('\0'));
    return name.substr(0, n);
}

void putDmaRec(ByteWriter& w, const DmaRec& d) {
    w.le16(d.reg);
    w.le32(d.dat);
    w.le32(d.datHi);
    w.le16(d.size);
    w.le32(d.addr);
    w.le32(d.evt);
    w.le32(d.evt2);
    w.le32(d.evtData);
    w.le8(std::uint8_t(d.evtDataSet));
    w.le16(std::uint16_t(d.type));
    w.le16(d.extra);
    w.le8(std::uint8_t(d.intlev));
    w.le8(std::uint8_t(d.ipl));
    w.le8(std::uint8_t(d.ipl2));
    w.le16(d.cfReg);
    w.le16(d.cfDat);
    w.le16(d.cfAddr);
    w.le32(std::uint32_t(d.ciaReg));
    w.le32(std::uint32_t(d.ciaMask));
    w.le8(std::uint8_t(d.ciaRw));
    w.le32(std::uint32_t(d.ciaPhase));
    w.le16(d.ciaValue);
    w.le8(std::uint8_t(d.end));
}

DmaRec getDmaRec(const std::uint8_t* p) {
    DmaRec d;
    d.reg = getLe16(p + 0);
    d.dat = getLe32(p + 2);
    d.datHi = getLe32(p + 6);
    d.size = getLe16(p + 10);
    d.addr = getLe32(p + 12);
    d.evt = getLe32(p + 16);
    d.evt2 = getLe32(p + 20);
    d.evtData = getLe32(p + 24);
    d.evtDataSet = std::int8_t(p[28]);
    d.type = std::int16_t(getLe16(p + 29));
    d.extra = getLe16(p + 31);
    d.intlev = std::int8_t(p[33]);
    d.ipl = std::int8_t(p[34]);
    d.ipl2 = std::int8_t(p[35]);
    d.cfReg = getLe16(p + 36);
    d.cfDat = getLe16(p + 38);
    d.cfAddr = getLe16(p + 40);
    d.ciaReg = std::int32_t(getLe32(p + 42));
    d.ciaMask = std::int32_t(getLe32(p + 46));
    d.ciaRw = std::int8_t(p[50]);
    d.ciaPhase = std::int32_t(getLe32(p + 51));
    d.ciaValue = getLe16(p + 55);
    d.end = std::int8_t(p[57]);
    return d;
}

void putResource(ByteWriter& w, const Resource& res) {
    w.le32(res.address);
    w.le32(res.size);
    std::array<std::uint8_t, kResourceNameSize> name{};
    const std::string fitted = fitName(res.name);
    std::copy(fitted.begin(), fitted.end(), name.begin());
    w.bytes(name);
    w.le16(res.type);
    w.le16(res.flags);
    for (const std::uint16_t v : res.info)
        w.le16(v);
}

Resource getResource(const std::uint8_t* p) {
    Resource res;
    res.address = getLe32(p + 0);
    res.size = getLe32(p + 4);
    const char* name = reinterpret_cast<const char*>(p + 8);
    res.name.assign(name, std::find(name, name + kResourceNameSize, '\0'));
    res.type = getLe16(p + 40);
    res.flags = getLe16(p + 42);
    for (std::size_t i = 0; i < res.info.size(); ++i)
        res.info[i] = getLe16(p + 44 + 2 * i);
    return res;
}

} // namespace

// ---- file --------------------------------------------------------------------------------

std::vector<std::uint8_t> bartmanProfileBytes(const BartmanProfile& p) {
    if (p.frames.empty()) throw MediaError("bartman profile: no frames (the viewer needs one)");
    std::size_t reserve = 64 + p.kickRom.size() + p.chipMem.size() + p.bogoMem.size();
    for (const auto& f : p.frames)
        reserve += 600 + kAgaColorsSize + std::size_t(kDmaCount) * kDmaRecSize +
                   f.resources.size() * kResourceSize + 4 * f.profileArray.size() +
                   f.screenshot.size();
    ByteWriter w(reserve);

    w.size32(p.frames.size(), "the frame count");
    w.size32(p.sectionBases.size(), "the section count");
    for (const std::uint32_t b : p.sectionBases)
        w.le32(b);
    w.le32(p.systemStackLower);
    w.le32(p.systemStackUpper);
    w.le32(p.stackLower);
    w.le32(p.stackUpper);
    w.size32(p.kickRom.size(), "the Kickstart ROM");
    w.bytes(p.kickRom);
    w.size32(p.chipMem.size(), "chip memory");
    w.bytes(p.chipMem);
    w.size32(p.bogoMem.size(), "slow memory");
    w.bytes(p.bogoMem);
    w.le32(p.baseClock);
    w.le32(p.cpuCycleUnit);

    for (std::size_t i = 0; i < p.frames.size(); ++i) {
        const Frame& f = p.frames[i];
        const std::string frame = "bartman profile: frame " + std::to_string(i) + ": ";
        if (f.dma.size() != kDmaCount)
            throw MediaError(frame + std::to_string(f.dma.size()) +
                             " DMA records, the viewer needs " + std::to_string(kDmaCount) +
                             " (227 x 313)");
        if (!f.agaColors.empty() && f.agaColors.size() != 256)
            throw MediaError(frame + std::to_string(f.agaColors.size()) +
                             " AGA colours, the viewer takes none or 256");

        w.le32(kCustomRegsSize);
        w.be32(f.chipsetFlags);
        for (const std::uint16_t r : f.customRegs)
            w.be16(r);
        w.be32(f.refPtr);

        w.le32(f.agaColors.empty() ? 0 : kAgaColorsSize);
        for (const std::uint32_t c : f.agaColors)
            w.be32(c);

        w.le32(kDmaRecSize);
        w.le32(kDmaCount);
        for (const DmaRec& d : f.dma)
            putDmaRec(w, d);

        w.le32(kResourceSize);
        w.size32(f.resources.size(), "the resource count");
        for (const Resource& res : f.resources)
            putResource(w, res);

        w.le32(f.profileCycles);
        w.le32(f.idleCycles);
        w.size32(f.profileArray.size(), "the profile array");
        for (const std::uint32_t v : f.profileArray)
            w.le32(v);

        w.size32(f.screenshot.size(), "the screenshot");
        w.le32(f.screenshotType);
        w.bytes(f.screenshot);
    }
    return w.take();
}

void writeBartmanProfile(const BartmanProfile& profile, const std::string& path, bool replace) {
    if (!replace) refuseToReplace(path, "--force");
    writeFileBytes(path, bartmanProfileBytes(profile));
}

BartmanProfile readBartmanProfile(std::span<const std::uint8_t> bytes, const std::string& name) {
    ByteReader r(bytes, name);
    BartmanProfile p;

    // A length field, then that many bytes.
    const auto block = [&](const std::string& field) {
        const std::uint32_t n = le32(r, field + "Size");
        const auto b = r.bytes(n, field.c_str());
        return std::vector<std::uint8_t>(b.begin(), b.end());
    };
    // A count, then that many 32-bit little-endian values.
    const auto words = [&](const std::string& countField, const std::string& field) {
        const std::uint32_t n = le32(r, countField);
        const auto b = r.bytes(std::size_t(n) * 4, field.c_str());
        std::vector<std::uint32_t> out(n);
        for (std::size_t i = 0; i < n; ++i)
            out[i] = getLe32(b.data() + 4 * i);
        return out;
    };

    const std::size_t numFramesAt = r.offset();
    const std::uint32_t numFrames = le32(r, "numFrames");
    if (numFrames == 0) r.failAt(numFramesAt, "numFrames is 0 (the viewer needs a frame)");
    p.sectionBases = words("sectionCount", "sectionBases");
    p.systemStackLower = le32(r, "systemStackLower");
    p.systemStackUpper = le32(r, "systemStackUpper");
    p.stackLower = le32(r, "stackLower");
    p.stackUpper = le32(r, "stackUpper");
    p.kickRom = block("kickRom");
    p.chipMem = block("chipMem");
    p.bogoMem = block("bogoMem");
    p.baseClock = le32(r, "baseClock");
    p.cpuCycleUnit = le32(r, "cpuCycleUnit");

    for (std::uint32_t i = 0; i < numFrames; ++i) {
        const std::string fr = "frame " + std::to_string(i) + " ";
        Frame f;

        std::size_t at = r.offset();
        const std::uint32_t customRegsLen = le32(r, fr + "customRegsLen");
        if (customRegsLen != kCustomRegsSize)
            r.failAt(at, fr + "customRegsLen is " + std::to_string(customRegsLen) + ", want " +
                             std::to_string(kCustomRegsSize));
        const auto regs = r.bytes(kCustomRegsSize, (fr + "customRegs").c_str());
        f.chipsetFlags = getBe32(regs.data());
        for (std::size_t k = 0; k < 256; ++k)
            f.customRegs[k] = std::uint16_t(regs[4 + 2 * k] << 8 | regs[5 + 2 * k]);
        f.refPtr = getBe32(regs.data() + 4 + 512);

        at = r.offset();
        const std::uint32_t agaColorsLen = le32(r, fr + "agaColorsLen");
        if (agaColorsLen != 0 && agaColorsLen != kAgaColorsSize)
            r.failAt(at, fr + "agaColorsLen is " + std::to_string(agaColorsLen) + ", want " +
                             std::to_string(kAgaColorsSize) + " or 0");
        if (agaColorsLen) {
            const auto c = r.bytes(kAgaColorsSize, (fr + "agaColors").c_str());
            f.agaColors.resize(256);
            for (std::size_t k = 0; k < 256; ++k)
                f.agaColors[k] = getBe32(c.data() + 4 * k);
        }

        at = r.offset();
        const std::uint32_t dmaLen = le32(r, fr + "dmaLen");
        const std::uint32_t dmaCount = le32(r, fr + "dmaCount");
        if (dmaLen != kDmaRecSize)
            r.failAt(at, fr + "dmaLen is " + std::to_string(dmaLen) + ", want " +
                             std::to_string(kDmaRecSize));
        if (dmaCount != kDmaCount)
            r.failAt(at + 4, fr + "dmaCount is " + std::to_string(dmaCount) + ", want " +
                                 std::to_string(kDmaCount) + " (227 x 313)");
        const auto dma = r.bytes(std::size_t(kDmaCount) * kDmaRecSize, (fr + "dmaRecords").c_str());
        f.dma.resize(kDmaCount);
        for (std::size_t k = 0; k < kDmaCount; ++k)
            f.dma[k] = getDmaRec(dma.data() + k * kDmaRecSize);

        at = r.offset();
        const std::uint32_t resourceLen = le32(r, fr + "resourceLen");
        const std::uint32_t resourceCount = le32(r, fr + "resourceCount");
        if (resourceLen != kResourceSize)
            r.failAt(at, fr + "resourceLen is " + std::to_string(resourceLen) + ", want " +
                             std::to_string(kResourceSize));
        const auto res =
            r.bytes(std::size_t(resourceCount) * kResourceSize, (fr + "resources").c_str());
        f.resources.reserve(resourceCount);
        for (std::size_t k = 0; k < resourceCount; ++k)
            f.resources.push_back(getResource(res.data() + k * kResourceSize));

        f.profileCycles = le32(r, fr + "profileCycles");
        f.idleCycles = le32(r, fr + "idleCycles");
        f.profileArray = words(fr + "profileCount", fr + "profileArray");

        const std::uint32_t screenshotSize = le32(r, fr + "screenshotSize");
        f.screenshotType = le32(r, fr + "screenshotType");
        const auto shot = r.bytes(screenshotSize, (fr + "screenshot").c_str());
        f.screenshot.assign(shot.begin(), shot.end());

        p.frames.push_back(std::move(f));
    }
    // The extension ignores what follows; a file we wrote has nothing there, so bytes after
    // the last frame mean a frame count or a length is wrong.
    if (!r.atEnd())
        r.fail(std::to_string(r.remaining()) + " bytes after the last frame (numFrames is " +
               std::to_string(numFrames) + ")");
    return p;
}

BartmanProfile readBartmanProfileFile(const std::string& path) {
    const auto bytes = readFileBytes(path, std::uint64_t(4) << 30);
    return readBartmanProfile(bytes, path);
}

// ---- profile array -----------------------------------------------------------------------

std::vector<std::uint32_t> encodeProfileArray(std::span<const ProfileSample> samples) {
    std::vector<std::uint32_t> out;
    for (const ProfileSample& s : samples) {
        for (const std::uint32_t pc : s.stack)
            if (pc >= kCyclesMarker)
                throw MediaError("profile array: PC " + std::to_string(pc) +
                                 " would read as a cycle count");
        std::uint32_t left = s.cycles;
        do {
            const std::uint32_t part = std::min(left, kMaxSampleCycles);
            out.insert(out.end(), s.stack.begin(), s.stack.end());
            out.push_back(0xFFFFFFFFu - part);
            out.insert(out.end(), s.registers.begin(), s.registers.end());
            left -= part;
        } while (left);
    }
    return out;
}

std::vector<ProfileSample> decodeProfileArray(std::span<const std::uint32_t> array) {
    std::vector<ProfileSample> out;
    ProfileSample s;
    for (std::size_t i = 0; i < array.size(); ++i) {
        if (array[i] < kCyclesMarker) {
            s.stack.push_back(array[i]);
            continue;
        }
        s.cycles = 0xFFFFFFFFu - array[i];
        if (array.size() - i - 1 < kRegisterCount)
            throw MediaError("profile array: sample " + std::to_string(out.size()) +
                             " ends inside its registers (at entry " + std::to_string(i) + ")");
        std::copy_n(array.begin() + std::ptrdiff_t(i + 1), kRegisterCount, s.registers.begin());
        i += kRegisterCount;
        out.push_back(std::move(s));
        s = ProfileSample{};
    }
    if (!s.stack.empty())
        throw MediaError("profile array: " + std::to_string(s.stack.size()) +
                         " PCs at the end without a cycle count");
    return out;
}

// ---- slot records ------------------------------------------------------------------------

namespace bartman {

namespace {

std::uint32_t dmaEvents(std::uint32_t e) {
    static constexpr std::pair<std::uint32_t, std::uint32_t> kMap[] = {
        {slot_event::VB, dma_event::VB},        {slot_event::VS, dma_event::VS},
        {slot_event::VDIW, dma_event::VDIW},    {slot_event::LOF, dma_event::LOF},
        {slot_event::LOL, dma_event::LOL},      {slot_event::HBS, dma_event::HBS},
        {slot_event::HBE, dma_event::HBE},      {slot_event::HSS, dma_event::HSS},
        {slot_event::HSE, dma_event::HSE},      {slot_event::HDIWS, dma_event::HDIWS},
        {slot_event::HDIWE, dma_event::HDIWE},  {slot_event::DDFS, dma_event::DdfStrt},
        {slot_event::DDFE, dma_event::DdfStop},  {slot_event::BlitIrq, dma_event::BlitIrq},
        {slot_event::CpuIrq, dma_event::CpuIrq},  {slot_event::CiaAIrq, dma_event::CiaAIrq},
        {slot_event::CiaBIrq, dma_event::CiaBIrq},
    };
    std::uint32_t out = 0;
    for (const auto& [from, to] : kMap)
        if (e & from) out |= to;
    return out;
}

std::uint16_t blitterMode(std::uint16_t bltcon1) {
    if (bltcon1 & 0x0001) return dma_extra::BlitterLine; // LINE
    if (bltcon1 & 0x0018) return dma_extra::BlitterFill; // IFE or EFE
    return 0;
}

} // namespace

DmaRec toBartmanDma(const SlotRecord& s, const DmaContext& c) {
    DmaRec d;
    d.ipl = std::int8_t(s.ipl);
    d.intlev = std::int8_t((s.flags & slot_flag::IntMask) >> slot_flag::IntMaskShift);
    d.evt = dmaEvents(s.events);
    const bool hasReg = s.flags & slot_flag::Register;
    const bool write = s.flags & slot_flag::Write;
    // INTREQ written, by the CPU or a Copper MOVE.
    if (hasReg && write && s.reg == reg::INTREQ) d.evt |= dma_event::IntReq;
    const auto transfer = [&](std::int16_t type, std::uint16_t reg, std::uint16_t extra) {
        d.type = type;
        d.reg = reg;
        d.extra = extra;
        d.dat = std::uint32_t(s.data & 0xFFFF);
        d.size = 2;
        d.addr = s.address;
    };

    switch (s.owner) {
    case BusOwner::Idle: break;
    case BusOwner::Refresh:
        // Refresh moves no data; WinUAE records the floating bus as $FFFF. Copperline does
        // not keep the refresh address.
        d.type = dma_type::Refresh;
        d.reg = c.refreshReg;
        d.extra = c.refreshSlot;
        d.dat = 0xFFFF;
        d.size = 2;
        break;
    case BusOwner::Disk:
        if (!s.size) break;
        transfer(dma_type::Disk, hasReg ? s.reg : std::uint16_t(write ? reg::DSKDATR : reg::DSKDAT),
                 0);
        break;
    case BusOwner::Audio:
        transfer(dma_type::Audio,
                 hasReg ? s.reg : std::uint16_t(reg::AUD0DAT + 0x10 * (s.subtype & 3)), s.subtype);
        break;
    case BusOwner::Sprite:
        transfer(dma_type::Sprite,
                 hasReg ? s.reg : std::uint16_t(reg::SPR0DATA + 8 * (s.subtype & 7)), s.subtype);
        break;
    case BusOwner::Bitplane: {
        // Copperline numbers planes from 1, the file from 0.
        const std::uint16_t plane = s.subtype ? std::uint16_t(s.subtype - 1) : 0;
        transfer(dma_type::Bitplane, hasReg ? s.reg : std::uint16_t(reg::BPL1DAT + 2 * plane),
                 plane);
        break;
    }
    case BusOwner::Copper:
        if (!s.size) {
            // The clock the Copper wanted and held so that nobody got it.
            d.evt |= dma_event::NoOneGets;
            break;
        }
        if (hasReg) {
            transfer(dma_type::Copper, s.reg, dma_extra::CopperInstruction);
            break;
        }
        switch (c.copperWord) {
        case DmaContext::CopperWord::First:
            transfer(dma_type::Copper, reg::COPINS, dma_extra::CopperInstruction);
            break;
        case DmaContext::CopperWord::WaitSecond:
            transfer(dma_type::Copper, reg::COPINS, dma_extra::CopperWait);
            break;
        case DmaContext::CopperWord::Wakeup:
            transfer(dma_type::Copper, reg::NOOP, dma_extra::CopperSpecial);
            d.dat = 0;
            d.evt |= dma_event::CopperWake;
            break;
        case DmaContext::CopperWord::SkippedMove:
            // Fetched but not written: no register changes.
            transfer(dma_type::Copper, reg::NOOP, dma_extra::CopperInstruction);
            break;
        }
        break;
    case BusOwner::Blitter: {
        // The D channel writes and is recorded against BLTDDAT ($000); A, B and C read into
        // their data registers.
        static constexpr std::uint16_t kRead[] = {reg::BLTADAT, reg::BLTBDAT, reg::BLTCDAT,
                                                  reg::BLTDDAT};
        const std::uint16_t channel = s.subtype & 3;
        transfer(dma_type::Blitter, write ? std::uint16_t(reg::BLTDDAT) : kRead[channel],
                 std::uint16_t(channel | c.blitterMode));
        break;
    }
    case BusOwner::Cpu: {
        const std::uint16_t bytes = s.size == 1 ? 1 : 2;
        transfer(dma_type::Cpu,
                 std::uint16_t(dma_cpu::Access | (write ? dma_cpu::Write : 0) | bytes),
                 write || !(c.cpuFetch || (s.flags & slot_flag::Fetch)) ? dma_extra::CpuData : dma_extra::CpuCode);
        // A byte travels on the half of the bus its address selects.
        if (bytes == 1) d.dat = s.address & 1 ? d.dat & 0xFF : d.dat >> 8;
        break;
    }
    }
    return d;
}

std::uint32_t chipsetFlagsFromCapture(unsigned captureFlags) {
    std::uint32_t mask = 0;
    if (captureFlags & 1) mask = chipset_flag::Aga | chipset_flag::EcsDenise | chipset_flag::EcsAgnus;
    else if (captureFlags & 2) mask = chipset_flag::EcsAgnus;
    return chipset_flag::Full | mask;
}

std::vector<DmaRec> toBartmanDmaFrame(std::span<const SlotRecord> slots, unsigned stride,
                                      std::uint16_t bltcon1, std::span<const CiaAt> cia) {
    if (stride == 0 || slots.size() % stride)
        throw MediaError("slot records: " + std::to_string(slots.size()) +
                         " records are not whole lines of " + std::to_string(stride));
    const std::size_t lines = slots.size() / stride;
    // Equalisation lines (STREQU) end at line 8 on PAL, 9 on NTSC (WinUAE's custom.h).
    const unsigned equEnd = lines > 290 ? 8 : 9;

    // Where the Copper is in its instruction stream: which word its next bus clock is.
    enum class Cop { Fetch1, Fetch2Move, Fetch2Wait, Wakeup } cop = Cop::Fetch1;
    std::uint16_t con1 = bltcon1;
    std::uint16_t mode = blitterMode(bltcon1);

    std::vector<DmaRec> out(kDmaCount);
    for (std::size_t v = 0; v < lines; ++v) {
        std::uint8_t refreshSlot = 0;
        for (std::size_t h = 0; h < stride; ++h) {
            const SlotRecord& s = slots[v * stride + h];
            const bool hasReg = s.flags & slot_flag::Register;
            DmaContext c;
            c.blitterMode = mode;
            if (s.owner == BusOwner::Refresh) {
                c.refreshSlot = refreshSlot;
                if (refreshSlot == 0)
                    c.refreshReg = !(s.events & slot_event::VB) ? reg::STRHOR
                                   : v < equEnd                 ? reg::STREQU
                                                                : reg::STRVBL;
                // An NTSC long line (228 clocks) puts STRLONG on the bus in its second
                // refresh clock, the one that carries the LOL event.
                else if (refreshSlot == 1 && (s.events & slot_event::LOL))
                    c.refreshReg = reg::STRLONG;
                ++refreshSlot;
            }
            if (s.owner == BusOwner::Copper && s.size) {
                if (hasReg) {
                    cop = Cop::Fetch1;
                } else {
                    switch (cop) {
                    case Cop::Fetch1:
                        c.copperWord = DmaContext::CopperWord::First;
                        cop = (s.data & 1) ? Cop::Fetch2Wait : Cop::Fetch2Move;
                        break;
                    case Cop::Fetch2Move:
                        c.copperWord = DmaContext::CopperWord::SkippedMove;
                        cop = Cop::Fetch1;
                        break;
                    case Cop::Fetch2Wait:
                        c.copperWord = DmaContext::CopperWord::WaitSecond;
                        cop = Cop::Wakeup;
                        break;
                    case Cop::Wakeup:
                        c.copperWord = DmaContext::CopperWord::Wakeup;
                        cop = Cop::Fetch1;
                        break;
                    }
                }
            }
            if (v < kDmaVpos && h < kDmaHpos) out[v * kDmaHpos + h] = toBartmanDma(s, c);

            // Register writes that change how later clocks read.
            if (hasReg && (s.flags & slot_flag::Write)) {
                std::uint16_t value = std::uint16_t(s.data & 0xFFFF);
                if (s.owner == BusOwner::Cpu && s.size == 1) {
                    const std::uint16_t b = s.address & 1 ? value & 0xFF : value >> 8;
                    value = std::uint16_t(b * 0x0101);
                }
                switch (s.reg) {
                case reg::BLTCON1: con1 = value; break;
                case reg::BLTSIZE: mode = blitterMode(con1); break;
                case reg::COPJMP1:
                case reg::COPJMP2: cop = Cop::Fetch1; break;
                default: break;
                }
            }
        }
    }
    for (const CiaAt& a : cia) {
        if (a.vpos >= kDmaVpos || a.hpos >= kDmaHpos || a.vpos >= lines || a.hpos >= stride) continue;
        DmaRec& d = out[a.vpos * kDmaHpos + a.hpos];
        d.ciaReg = a.reg;
        d.ciaMask = a.chips;
        d.ciaRw = a.write ? 1 : 0;
        d.ciaPhase = -1; // an access (WinUAE's E-clock phase marks are not recorded)
        d.ciaValue = a.value;
    }
    return out;
}

} // namespace bartman

} // namespace copperline
