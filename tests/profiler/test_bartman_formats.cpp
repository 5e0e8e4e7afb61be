// SPDX-License-Identifier: GPL-3.0-or-later
// Bartman's binary frame profile and the .amigaprofile JSON: the writers against their
// readers field by field, the byte layout at known offsets, an independent Node parser with
// the extension's offsets, the refusal of every wrong length and of truncated or randomly
// corrupted files, and the mapping of Copperline's chip-bus slots to DMA records.

#include "emu/chipset/custom_regs.h"
#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "profiler/report/amigaprofile.h"
#include "profiler/report/bartman_profile.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>
#include <map>
#include <random>

using namespace copperline;
using namespace copperline::bartman;

namespace {

constexpr unsigned kStride = kDmaHpos;

SlotRecord slot(BusOwner owner, std::uint8_t subtype = 0, std::uint32_t address = 0,
                std::uint16_t data = 0, std::uint16_t flags = 0, std::uint16_t reg = 0) {
    SlotRecord s;
    s.owner = owner;
    s.subtype = subtype;
    s.address = address;
    s.data = data;
    s.flags = flags;
    s.reg = reg;
    s.size = owner == BusOwner::Idle || owner == BusOwner::Refresh ? 0 : 2;
    return s;
}

SlotRecord cpuWrite(std::uint16_t reg, std::uint16_t value) {
    return slot(BusOwner::Cpu, 0, 0xDFF000u + reg, value, slot_flag::Write | slot_flag::Register,
                reg);
}

// A PAL frame with every owner: refresh, disk, audio, sprites, bitplanes, a Copper list with
// a MOVE, a WAIT, a refused MOVE and a jump, blits in line, fill and plain mode, CPU reads and
// writes of words and bytes, and idle clocks carrying the horizontal events.
std::vector<SlotRecord> syntheticSlots() {
    std::vector<SlotRecord> s(std::size_t(kDmaVpos) * kStride);
    for (unsigned v = 0; v < kDmaVpos; ++v) {
        const auto at = [&](unsigned h) -> SlotRecord& { return s[std::size_t(v) * kStride + h]; };
        for (unsigned h : {0x01u, 0x03u, 0x05u, 0xE2u})
            at(h) = slot(BusOwner::Refresh);
        if (v % 3 == 0)
            at(0x07) = slot(BusOwner::Disk, 0, 0x20000 + 2 * v, std::uint16_t(0x4489 + v),
                            slot_flag::Write | slot_flag::Register, reg::DSKDATR);
        else if (v % 3 == 1)
            at(0x07) = slot(BusOwner::Disk, 0, 0x21000 + 2 * v, std::uint16_t(0xAAAA ^ v),
                            slot_flag::Register, reg::DSKDAT);
        for (unsigned ch = 0; ch < 4; ++ch)
            at(0x09 + ch) = slot(BusOwner::Audio, std::uint8_t(ch), 0x30000 + 0x100 * ch + v,
                                 std::uint16_t(v * 3 + ch), slot_flag::Register,
                                 std::uint16_t(reg::AUD0DAT + 0x10 * ch));
        for (unsigned n = 0; n < 8; ++n)
            for (unsigned w = 0; w < 2; ++w)
                at(0x14 + 2 * n + w) =
                    slot(BusOwner::Sprite, std::uint8_t(n), 0x40000 + 0x80 * n + 2 * w,
                         std::uint16_t(n << 8 | w), slot_flag::Register,
                         std::uint16_t(reg::SPR0DATA + 8 * n + 2 * w));
        const bool display = v >= 0x2C && v < 0x12C;
        for (unsigned h = 0x42; h < 0xA0; ++h) {
            if (display && h % 2 == 0) {
                const unsigned p = (h / 2) % 6 + 1;
                at(h) = slot(BusOwner::Bitplane, std::uint8_t(p), 0x50000 + 0x2000 * p + h,
                             std::uint16_t(v ^ h), slot_flag::Register,
                             std::uint16_t(reg::BPL1DAT + 2 * (p - 1)));
                if (h % 8 == 0) at(h).flags |= slot_flag::CpuWaited;
            } else if (h % 4 == 1) {
                at(h) = slot(BusOwner::Cpu, 0, 0x1000 + 4 * h, std::uint16_t(0x4E71 + h));
            } else if (h % 4 == 3 && v % 2) {
                at(h) =
                    slot(BusOwner::Cpu, 0, 0x2000 + h, std::uint16_t(0x1200 + h), slot_flag::Write);
                at(h).size = 1;
            }
        }
        if (v == 10) {
            // MOVE $0F00,COLOR00 / WAIT / MOVE to $020 (refused) / MOVE to COPJMP2 / fetch.
            at(0xB0) = slot(BusOwner::Copper, 0, 0x800, 0x0180);
            at(0xB2) = slot(BusOwner::Copper, 0, 0x802, 0x0F00,
                            slot_flag::Register | slot_flag::Write, reg::COLOR00);
            at(0xB2).data = 0x0F00 | std::uint64_t(0x0F00) << 16;
            at(0xB4) = slot(BusOwner::Copper, 0, 0x804, 0x2C01);
            at(0xB6) = slot(BusOwner::Copper, 0, 0x806, 0xFFFE);
            at(0xB8) = slot(BusOwner::Copper, 0, 0x808, 0);
            at(0xBA) = slot(BusOwner::Copper, 0, 0x808, 0x0020);
            at(0xBC) = slot(BusOwner::Copper, 0, 0x80A, 0x1234);
            at(0xBE) = slot(BusOwner::Copper, 0, 0x80C, 0x008A);
            at(0xC0) = slot(BusOwner::Copper, 0, 0x80E, 0, slot_flag::Register | slot_flag::Write,
                            reg::COPJMP2);
            at(0xC6) = slot(BusOwner::Copper, 0, 0x900, 0x0181);
            at(0xC8) = slot(BusOwner::Copper, 0, 0x902, 0xFF00);
            at(0xE0) = slot(BusOwner::Copper);
            at(0xE0).size = 0;
        }
        if (v == 50)
            for (unsigned h = 0xB0; h < 0xB8; ++h)
                at(h) = slot(BusOwner::Blitter, std::uint8_t(h % 4), 0x60000 + 2 * h,
                             std::uint16_t(h), h % 4 == 3 ? slot_flag::Write : 0);
        if (v >= 100 && v < 103) {
            static constexpr std::uint16_t kCon1[] = {0x0001, 0x0008, 0x0000};
            at(0xA8) = cpuWrite(reg::BLTCON1, kCon1[v - 100]);
            at(0xAA) = cpuWrite(reg::BLTSIZE, 0x0041);
            for (unsigned h = 0xB0; h < 0xB8; ++h)
                at(h) = slot(BusOwner::Blitter, std::uint8_t(h % 4), 0x60000 + 2 * h,
                             std::uint16_t(h), h % 4 == 3 ? slot_flag::Write : 0);
        }
        // Events last: they mark whatever clock they fall on.
        if (v < 0x1A) at(0x01).events |= slot_event::VB;
        if (v >= 2 && v < 5) at(0x01).events |= slot_event::VS;
        if (v >= 0x2C && v < 0x12C) at(0x01).events |= slot_event::VDIW;
        at(0x03).events |= slot_event::LOF;
        at(0x0F).events |= slot_event::HBS;
        at(0x12).events |= slot_event::HSS;
        at(0x23).events |= slot_event::HSE;
        at(0x2E).events |= slot_event::HBE;
        at(0x40).events |= slot_event::HDIWS;
        at(0x38).events |= slot_event::DDFS;
        at(0xD0).events |= slot_event::DDFE;
        at(0xE0).events |= slot_event::HDIWE;
        for (SlotRecord& r : std::span(&at(0), kStride))
            r.ipl = std::uint8_t((v / 40) & 7);
    }
    return s;
}

ProfileTree syntheticTree(unsigned variant) {
    ProfileTree tree;
    const CallFrame main{"main", "/src/main.c", 9, 0};
    const CallFrame draw{"draw", "/src/draw.c", 41, 4};
    const CallFrame blit{"blit", "/src/draw.c", 80, -1};
    const auto m = tree.child(ProfileTree::kRoot, main);
    const auto d = tree.child(m, draw);
    const auto b = tree.child(d, blit);
    tree.addSample(m, 100 + variant);
    tree.addSample(d, 2000);
    tree.addSample(b, 30 + 7 * variant);
    tree.addSample(d, 44);
    return tree;
}

std::vector<ProfileSample> syntheticSamples(unsigned variant) {
    std::vector<ProfileSample> out;
    for (unsigned i = 0; i < 40 + variant; ++i) {
        ProfileSample s;
        if (i % 7 != 3) s.stack = {0x1000u + 6 * i, 0x2004u + i};
        if (i % 11 == 5) s.stack.push_back(kIrqPc);
        s.cycles = 4 + 2 * (i % 30);
        for (unsigned r = 0; r < kRegisterCount; ++r)
            s.registers[r] = 0x01000000u * r + i;
        out.push_back(s);
    }
    return out;
}

BartmanProfile syntheticProfile() {
    BartmanProfile p;
    p.sectionBases = {0x20000, 0x28000, 0x30000};
    p.systemStackLower = 0x7F000;
    p.systemStackUpper = 0x80000;
    p.stackLower = 0x6000;
    p.stackUpper = 0x7000;
    std::mt19937 rng(7);
    p.kickRom.resize(4096);
    for (auto& b : p.kickRom)
        b = std::uint8_t(rng());
    p.chipMem.resize(8192);
    for (auto& b : p.chipMem)
        b = std::uint8_t(rng());
    p.bogoMem.resize(1024);
    for (auto& b : p.bogoMem)
        b = std::uint8_t(rng());
    const auto records = syntheticSlots();
    for (unsigned i = 0; i < 2; ++i) {
        Frame f;
        f.chipsetFlags = chipset_flag::Full | (i ? chipset_flag::EcsAgnus : 0);
        for (unsigned r = 0; r < 256; ++r)
            f.customRegs[r] = std::uint16_t(0x1111 * i + 0x0102 * r);
        f.refPtr = 0x00ABCDEF + i;
        if (i == 1) {
            f.agaColors.resize(256);
            for (unsigned c = 0; c < 256; ++c)
                f.agaColors[c] = 0x80000000u * (c % 2) + 0x010203u * c;
        }
        f.dma = toBartmanDmaFrame(records, kStride, i ? 0x0010 : 0);
        if (i == 1) {
            // The fields Copperline never fills, so that the file's every byte is exercised.
            for (std::size_t k = 0; k < f.dma.size(); k += 97) {
                DmaRec& d = f.dma[k];
                d.datHi = std::uint32_t(k * 2654435761u);
                d.evt2 = std::uint32_t(k) | 0x80000000u;
                d.evtData = std::uint32_t(k * 31);
                d.evtDataSet = 1;
                d.intlev = std::int8_t(k % 8);
                d.ipl2 = -1;
                d.cfReg = std::uint16_t(k);
                d.cfDat = 0xBEEF;
                d.cfAddr = 0x1234;
                d.ciaReg = -int(k % 16);
                d.ciaMask = 0x7F;
                d.ciaRw = 1;
                d.ciaPhase = -2 - int(k % 3);
                d.ciaValue = 0xC0DE;
                d.end = 1;
                d.type = std::int16_t(k % 2 ? d.type : -1);
            }
        }
        Resource bitmap{0x50000,
                        40 * 256 * 5,
                        "title screen",
                        std::uint16_t(ResourceType::Bitmap),
                        resource_flag::Interleaved,
                        {320, 256, 5, 0}};
        Resource palette{0x5F000, 64,           "palette", std::uint16_t(ResourceType::Palette),
                         0,       {32, 0, 0, 0}};
        Resource copper{0x800, 0x200, "copper list", std::uint16_t(ResourceType::CopperList),
                        0,     {}};
        f.resources = {bitmap, palette};
        if (i == 1) f.resources.push_back(copper);
        const auto samples = syntheticSamples(i);
        f.profileArray = encodeProfileArray(samples);
        f.profileCycles = 142000 + i;
        f.idleCycles = 30000 + i;
        f.screenshot.resize(1000 + 3 * i);
        for (auto& b : f.screenshot)
            b = std::uint8_t(rng());
        f.screenshotType = i;
        p.frames.push_back(std::move(f));
    }
    return p;
}

// The MediaError message of f, or "" when it succeeds; any other exception fails the test.
std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const MediaError& e) {
        return e.what();
    }
    return "";
}

std::uint32_t le32At(const std::vector<std::uint8_t>& b, std::size_t at) {
    return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
           std::uint32_t(b[at + 3]) << 24;
}
void putLe32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        b[at + i] = std::uint8_t(v >> (8 * i));
}

// Offsets of the fields in a file written from syntheticProfile(): the header, then frame 0.
struct Layout {
    std::size_t customRegsLen, agaColorsLen, dmaLen, dmaCount, dmaRecords, resourceLen,
        resourceCount, resources, profileCount, screenshotSize, frame1;
};
Layout layoutOf(const BartmanProfile& p) {
    Layout l{};
    std::size_t at = 8 + 4 * p.sectionBases.size() + 16;
    at += 4 + p.kickRom.size() + 4 + p.chipMem.size() + 4 + p.bogoMem.size() + 8;
    const Frame& f = p.frames[0];
    l.customRegsLen = at;
    at += 4 + kCustomRegsSize;
    l.agaColorsLen = at;
    at += 4 + 4 * f.agaColors.size();
    l.dmaLen = at;
    l.dmaCount = at + 4;
    l.dmaRecords = at + 8;
    at += 8 + std::size_t(kDmaCount) * kDmaRecSize;
    l.resourceLen = at;
    l.resourceCount = at + 4;
    l.resources = at + 8;
    at += 8 + kResourceSize * f.resources.size();
    l.profileCount = at + 8;
    at += 12 + 4 * f.profileArray.size();
    l.screenshotSize = at;
    at += 8 + f.screenshot.size();
    l.frame1 = at;
    return l;
}

// The viewer's reading of a frame's samples: samples[i] ran for timeDeltas[i - 1].
std::map<std::string, std::uint64_t> viewerSelfTimes(const nlohmann::json& frame) {
    std::map<std::int64_t, std::string> names;
    for (const auto& n : frame["nodes"])
        names[n["id"].get<std::int64_t>()] = n["callFrame"]["functionName"].get<std::string>();
    std::map<std::string, std::uint64_t> self;
    const auto& ids = frame["samples"];
    const auto& deltas = frame["timeDeltas"];
    for (std::size_t i = 1; i < deltas.size(); ++i)
        self[names.at(ids[i].get<std::int64_t>())] += deltas[i - 1].get<std::uint64_t>();
    return self;
}

} // namespace

class TestBartmanFormats : public QObject {
    Q_OBJECT

private:
    BartmanProfile profile_ = syntheticProfile();
    std::vector<std::uint8_t> bytes_ = bartmanProfileBytes(profile_);

    static void compareProfiles(const BartmanProfile& a, const BartmanProfile& b) {
        QCOMPARE(a.sectionBases, b.sectionBases);
        QCOMPARE(a.systemStackLower, b.systemStackLower);
        QCOMPARE(a.systemStackUpper, b.systemStackUpper);
        QCOMPARE(a.stackLower, b.stackLower);
        QCOMPARE(a.stackUpper, b.stackUpper);
        QVERIFY(a.kickRom == b.kickRom);
        QVERIFY(a.chipMem == b.chipMem);
        QVERIFY(a.bogoMem == b.bogoMem);
        QCOMPARE(a.baseClock, b.baseClock);
        QCOMPARE(a.cpuCycleUnit, b.cpuCycleUnit);
        QCOMPARE(a.frames.size(), b.frames.size());
        for (std::size_t i = 0; i < a.frames.size(); ++i) {
            const Frame& x = a.frames[i];
            const Frame& y = b.frames[i];
            QCOMPARE(x.chipsetFlags, y.chipsetFlags);
            QVERIFY(x.customRegs == y.customRegs);
            QCOMPARE(x.refPtr, y.refPtr);
            QCOMPARE(x.agaColors, y.agaColors);
            QCOMPARE(x.dma.size(), y.dma.size());
            for (std::size_t k = 0; k < x.dma.size(); ++k)
                if (!(x.dma[k] == y.dma[k]))
                    QFAIL(qPrintable(QString("frame %1 DMA record %2 differs").arg(i).arg(k)));
            QCOMPARE(x.resources.size(), y.resources.size());
            for (std::size_t k = 0; k < x.resources.size(); ++k) {
                QCOMPARE(x.resources[k].name, y.resources[k].name);
                QVERIFY(x.resources[k] == y.resources[k]);
            }
            QCOMPARE(x.profileCycles, y.profileCycles);
            QCOMPARE(x.idleCycles, y.idleCycles);
            QCOMPARE(x.profileArray, y.profileArray);
            QVERIFY(x.screenshot == y.screenshot);
            QCOMPARE(x.screenshotType, y.screenshotType);
        }
        QVERIFY(a == b);
    }

private slots:
    // ---- the binary file ------------------------------------------------------------------

    void binaryRoundTrip() {
        const BartmanProfile back = readBartmanProfile(bytes_);
        compareProfiles(back, profile_);
        QCOMPARE(bartmanProfileBytes(back), bytes_);
    }

    void fileIsWrittenAtomicallyAndNotReplaced() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.bartman").toStdString();
        writeBartmanProfile(profile_, path);
        QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp")));
        compareProfiles(readBartmanProfileFile(path), profile_);
        const std::string refused = errorOf([&] { writeBartmanProfile(profile_, path); });
        QVERIFY2(refused.find("exists") != std::string::npos, refused.c_str());
        BartmanProfile one = profile_;
        one.frames.resize(1);
        writeBartmanProfile(one, path, true);
        QCOMPARE(readBartmanProfileFile(path).frames.size(), std::size_t(1));
    }

    void byteLayoutAndByteOrder() {
        const Layout l = layoutOf(profile_);
        QCOMPARE(le32At(bytes_, 0), 2u);       // numFrames
        QCOMPARE(le32At(bytes_, 4), 3u);       // sectionCount
        QCOMPARE(le32At(bytes_, 8), 0x20000u); // sectionBases[0]
        QCOMPARE(le32At(bytes_, l.customRegsLen), kCustomRegsSize);
        // chipsetFlags, custom registers and REFPTR are big-endian.
        const std::size_t regs = l.customRegsLen + 4;
        QCOMPARE(bytes_[regs + 2], std::uint8_t(0x01));
        QCOMPARE(bytes_[regs + 3], std::uint8_t(0x00));
        QCOMPARE(bytes_[regs + 4 + 2 * 3], std::uint8_t(0x03)); // customRegs[3] = $0306
        QCOMPARE(bytes_[regs + 4 + 2 * 3 + 1], std::uint8_t(0x06));
        QCOMPARE(bytes_[regs + 4 + 2 * 0xFF], std::uint8_t(0x00)); // customRegs[255] = $00FE
        QCOMPARE(bytes_[regs + 4 + 2 * 0xFF + 1], std::uint8_t(0xFE));
        QCOMPARE(bytes_[regs + 4 + 512 + 1], std::uint8_t(0xAB)); // refPtr $00ABCDEF
        QCOMPARE(le32At(bytes_, l.agaColorsLen), 0u);
        QCOMPARE(le32At(bytes_, l.dmaLen), kDmaRecSize);
        QCOMPARE(le32At(bytes_, l.dmaCount), kDmaCount);
        // A CPU word read on line 0 at hpos $45: reg at 0, dat at 2, addr at 12, type at 29.
        const std::size_t rec = l.dmaRecords + std::size_t(0x45) * kDmaRecSize;
        QCOMPARE(bytes_[rec + 0], std::uint8_t(0x02));
        QCOMPARE(bytes_[rec + 1], std::uint8_t(0x10));
        QCOMPARE(le32At(bytes_, rec + 2), 0x4E71u + 0x45);
        QCOMPARE(le32At(bytes_, rec + 12), 0x1000u + 4 * 0x45);
        QCOMPARE(bytes_[rec + 29], std::uint8_t(dma_type::Cpu));
        QCOMPARE(bytes_[rec + 31], std::uint8_t(dma_extra::CpuData));
        // An idle clock: reg $FFFF, addr $FFFFFFFF, cfReg $FFFF.
        const std::size_t idle = l.dmaRecords + std::size_t(0) * kDmaRecSize;
        QCOMPARE(bytes_[idle], std::uint8_t(0xFF));
        QCOMPARE(le32At(bytes_, idle + 12), 0xFFFFFFFFu);
        QCOMPARE(bytes_[idle + 36], std::uint8_t(0xFF));
        QCOMPARE(le32At(bytes_, l.resourceLen), kResourceSize);
        QCOMPARE(le32At(bytes_, l.resourceCount), 2u);
        QCOMPARE(le32At(bytes_, l.resources), 0x50000u);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(&bytes_[l.resources + 8])),
                 QByteArray("title screen"));
        QCOMPARE(bytes_[l.resources + 44], std::uint8_t(320 & 0xFF)); // bitmap width, LE
        QCOMPARE(bytes_[l.resources + 45], std::uint8_t(320 >> 8));
        QCOMPARE(le32At(bytes_, l.profileCount),
                 std::uint32_t(profile_.frames[0].profileArray.size()));
        QCOMPARE(le32At(bytes_, l.screenshotSize), 1000u);
        QCOMPARE(le32At(bytes_, l.screenshotSize + 4), 0u);
        QCOMPARE(le32At(bytes_, l.frame1), kCustomRegsSize);
    }

    void longResourceNamesAreCut() {
        BartmanProfile p = profile_;
        p.frames.resize(1);
        p.frames[0].resources[0].name = std::string(30, 'x') + "\xC3\xA9" + "yz"; // é at 30-31
        const BartmanProfile back = readBartmanProfile(bartmanProfileBytes(p));
        QCOMPARE(back.frames[0].resources[0].name, std::string(30, 'x'));
        p.frames[0].resources[0].name = std::string(40, 'n');
        QCOMPARE(readBartmanProfile(bartmanProfileBytes(p)).frames[0].resources[0].name,
                 std::string(31, 'n'));
    }

    void writerRefusesWhatTheViewerCannotRead() {
        BartmanProfile p = profile_;
        p.frames[1].dma.pop_back();
        std::string e = errorOf([&] { bartmanProfileBytes(p); });
        QVERIFY2(e.find("frame 1") != std::string::npos && e.find("71051") != std::string::npos,
                 e.c_str());
        p = profile_;
        p.frames[0].agaColors.resize(32);
        e = errorOf([&] { bartmanProfileBytes(p); });
        QVERIFY2(e.find("AGA") != std::string::npos, e.c_str());
        p.frames.clear();
        QVERIFY(!errorOf([&] { bartmanProfileBytes(p); }).empty());
    }

    void truncatedFilesAreRefused() {
        const Layout l = layoutOf(profile_);
        const std::vector<std::pair<std::size_t, const char*>> cuts = {
            {0, "numFrames"},
            {3, "numFrames"},
            {6, "sectionCount"},
            {10, "sectionBases"},
            {34, "stackUpper"},
            {40, "kickRom"},
            {l.customRegsLen + 2, "frame 0 customRegsLen"},
            {l.customRegsLen + 100, "frame 0 customRegs"},
            {l.dmaCount + 1, "frame 0 dmaCount"},
            {l.dmaRecords + 5000, "frame 0 dmaRecords"},
            {l.resources + 60, "frame 0 resources"},
            {l.profileCount + 10, "frame 0 profileArray"},
            {l.screenshotSize + 10, "frame 0 screenshot"},
            {l.frame1 + 1, "frame 1 customRegsLen"},
            {bytes_.size() - 1, "frame 1 screenshot"},
        };
        for (const auto& [size, field] : cuts) {
            const std::string e =
                errorOf([&] { readBartmanProfile(std::span(bytes_).first(size), "cut.bartman"); });
            QVERIFY2(e.find("truncated") != std::string::npos &&
                         e.find(field) != std::string::npos &&
                         e.find("cut.bartman") != std::string::npos &&
                         e.find("at offset") != std::string::npos,
                     qPrintable(QString("cut at %1: %2").arg(size).arg(e.c_str())));
        }
    }

    void wrongLengthsAreRefused() {
        const Layout l = layoutOf(profile_);
        struct Case {
            std::size_t at;
            std::uint32_t value;
            const char* expect;
        };
        const Case cases[] = {
            {l.dmaCount, kDmaCount - 1, "frame 0 dmaCount is 71050, want 71051"},
            {l.dmaCount, 256 * 1000, "frame 0 dmaCount is 256000"},
            {l.dmaLen, 60, "frame 0 dmaLen is 60, want 58"},
            {l.customRegsLen, 516, "frame 0 customRegsLen is 516, want 520"},
            {l.resourceLen, 50, "frame 0 resourceLen is 50, want 52"},
            {l.agaColorsLen, 512, "frame 0 agaColorsLen is 512, want 1024 or 0"},
            {l.frame1 + 4 + kCustomRegsSize + 4 + kAgaColorsSize + 4, 1, "frame 1 dmaCount is 1"},
            {0, 0, "numFrames is 0"},
            {0, 1, "bytes after the last frame"},
            {0, 3, "truncated: frame 2 customRegsLen"},
        };
        for (const Case& c : cases) {
            std::vector<std::uint8_t> b = bytes_;
            putLe32(b, c.at, c.value);
            const std::string e = errorOf([&] { readBartmanProfile(b, "bad.bartman"); });
            QVERIFY2(e.find(c.expect) != std::string::npos &&
                         e.find("at offset") != std::string::npos,
                     qPrintable(QString("want \"%1\", got \"%2\"").arg(c.expect).arg(e.c_str())));
        }
        // The offset named is the length field's own.
        std::vector<std::uint8_t> b = bytes_;
        putLe32(b, l.dmaCount, 5);
        const std::string e = errorOf([&] { readBartmanProfile(b); });
        QVERIFY2(e.find("at offset " + std::to_string(l.dmaCount) + ")") != std::string::npos,
                 e.c_str());
    }

    void randomCorruptionNeverCrashes() {
        const Layout l = layoutOf(profile_);
        // Length fields are where corruption matters most: aim half of the changes at them.
        const std::vector<std::size_t> fields = {0,
                                                 4,
                                                 36,
                                                 40 + 4096,
                                                 l.customRegsLen,
                                                 l.agaColorsLen,
                                                 l.dmaLen,
                                                 l.dmaCount,
                                                 l.resourceLen,
                                                 l.resourceCount,
                                                 l.profileCount,
                                                 l.screenshotSize,
                                                 l.frame1};
        std::mt19937 rng(20240601);
        std::vector<std::uint8_t> b = bytes_;
        unsigned refused = 0, accepted = 0;
        for (int it = 0; it < 400; ++it) {
            std::vector<std::pair<std::size_t, std::uint8_t>> changed;
            const int n = 1 + int(rng() % 8);
            for (int k = 0; k < n; ++k) {
                const std::size_t at =
                    rng() % 2 ? fields[rng() % fields.size()] + rng() % 4 : rng() % b.size();
                changed.push_back({at, b[at]});
                b[at] = rng() % 3 ? std::uint8_t(rng()) : std::uint8_t(0xFF);
            }
            const std::size_t size = rng() % 4 == 0 ? rng() % b.size() : b.size();
            try {
                const BartmanProfile p = readBartmanProfile(std::span(b).first(size));
                QVERIFY(!p.frames.empty());
                for (const Frame& f : p.frames)
                    QCOMPARE(f.dma.size(), std::size_t(kDmaCount));
                ++accepted;
            } catch (const MediaError&) {
                ++refused;
            }
            for (auto it2 = changed.rbegin(); it2 != changed.rend(); ++it2)
                b[it2->first] = it2->second;
        }
        QVERIFY(b == bytes_);
        QVERIFY(refused > 100);
        QVERIFY(accepted > 0); // changes inside memory or records leave a readable file
    }

    void independentNodeParserAgrees() {
        const QString node = QStandardPaths::findExecutable("node");
        if (node.isEmpty()) QSKIP("node is not installed");
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.bartman").toStdString();
        writeBartmanProfile(profile_, path);
        QProcess p;
        p.start(node, {COPPERLINE_SOURCE_DIR "/tests/profiler/bartman_profile_check.mjs",
                       QString::fromStdString(path)});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());

        QCOMPARE(j["numFrames"].get<std::size_t>(), profile_.frames.size());
        QCOMPARE(j["sectionBases"].get<std::vector<std::uint32_t>>(), profile_.sectionBases);
        QCOMPARE(j["stackUpper"].get<std::uint32_t>(), profile_.stackUpper);
        QCOMPARE(j["kickRomSize"].get<std::size_t>(), profile_.kickRom.size());
        QCOMPARE(j["chipMemSize"].get<std::size_t>(), profile_.chipMem.size());
        QCOMPARE(j["bogoMemSize"].get<std::size_t>(), profile_.bogoMem.size());
        QCOMPARE(j["baseClock"].get<std::uint32_t>(), kPalBaseClock);
        QCOMPARE(j["cpuCycleUnit"].get<std::uint32_t>(), 256u);
        QCOMPARE(j["trailingBytes"].get<int>(), 0);
        for (std::size_t i = 0; i < profile_.frames.size(); ++i) {
            const Frame& f = profile_.frames[i];
            const auto& jf = j["frames"][i];
            QCOMPARE(jf["customRegsLen"].get<std::uint32_t>(), kCustomRegsSize);
            QCOMPARE(jf["chipsetFlags"].get<std::uint32_t>(), f.chipsetFlags);
            std::uint64_t regSum = 0, agaSum = 0, profileSum = 0;
            for (auto r : f.customRegs)
                regSum += r;
            for (auto c : f.agaColors)
                agaSum += c;
            for (auto v : f.profileArray)
                profileSum += v;
            QCOMPARE(jf["customRegSum"].get<std::uint64_t>(), regSum);
            QCOMPARE(jf["refPtr"].get<std::uint32_t>(), f.refPtr);
            QCOMPARE(jf["agaColorsLen"].get<std::size_t>(), 4 * f.agaColors.size());
            QCOMPARE(jf["agaColorSum"].get<std::uint64_t>(), agaSum);
            QCOMPARE(jf["dmaLen"].get<std::uint32_t>(), kDmaRecSize);
            QCOMPARE(jf["dmaCount"].get<std::uint32_t>(), kDmaCount);

            std::map<std::string, std::int64_t> sums;
            std::map<std::string, int> types;
            int used = 0, eventsOnly = 0;
            for (const DmaRec& d : f.dma) {
                sums["reg"] += d.reg;
                sums["dat"] += d.dat;
                sums["datHi"] += d.datHi;
                sums["size"] += d.size;
                sums["addr"] += d.addr;
                sums["evt"] += d.evt;
                sums["evt2"] += d.evt2;
                sums["evtData"] += d.evtData;
                sums["evtDataSet"] += d.evtDataSet;
                sums["type"] += d.type;
                sums["extra"] += d.extra;
                sums["intlev"] += d.intlev;
                sums["ipl"] += d.ipl;
                sums["ipl2"] += d.ipl2;
                sums["cfReg"] += d.cfReg;
                sums["cfDat"] += d.cfDat;
                sums["cfAddr"] += d.cfAddr;
                sums["ciaReg"] += d.ciaReg;
                sums["ciaMask"] += d.ciaMask;
                sums["ciaRw"] += d.ciaRw;
                sums["ciaPhase"] += d.ciaPhase;
                sums["ciaValue"] += d.ciaValue;
                sums["end"] += d.end;
                if (d.reg != kNoReg) {
                    ++used;
                    ++types[std::to_string(d.type)];
                } else if (d.evt) {
                    ++eventsOnly;
                }
            }
            for (const auto& [name, sum] : sums)
                QVERIFY2(jf["dmaSums"][name].get<std::int64_t>() == sum,
                         qPrintable(QString("frame %1 %2: node %3, C++ %4")
                                        .arg(i)
                                        .arg(name.c_str())
                                        .arg(jf["dmaSums"][name].get<std::int64_t>())
                                        .arg(sum)));
            using TypeCounts = std::map<std::string, int>;
            QCOMPARE(jf["typeCounts"].get<TypeCounts>(), types);
            QCOMPARE(jf["usedRecords"].get<int>(), used);
            QCOMPARE(jf["eventOnlyRecords"].get<int>(), eventsOnly);
            QCOMPARE(jf["resourceLen"].get<std::uint32_t>(), kResourceSize);
            QCOMPARE(jf["resources"].size(), f.resources.size());
            for (std::size_t k = 0; k < f.resources.size(); ++k) {
                const auto& jr = jf["resources"][k];
                QCOMPARE(jr["name"].get<std::string>(), f.resources[k].name);
                QCOMPARE(jr["address"].get<std::uint32_t>(), f.resources[k].address);
                QCOMPARE(jr["type"].get<std::uint16_t>(), f.resources[k].type);
                QCOMPARE(jr["info"].get<std::vector<std::uint16_t>>(),
                         std::vector<std::uint16_t>(f.resources[k].info.begin(),
                                                    f.resources[k].info.end()));
            }
            QCOMPARE(jf["profileCycles"].get<std::uint32_t>(), f.profileCycles);
            QCOMPARE(jf["idleCycles"].get<std::uint32_t>(), f.idleCycles);
            QCOMPARE(jf["profileArrayLength"].get<std::size_t>(), f.profileArray.size());
            QCOMPARE(jf["profileArraySum"].get<std::uint64_t>(), profileSum);
            QCOMPARE(jf["screenshotSize"].get<std::size_t>(), f.screenshot.size());
            QCOMPARE(jf["screenshotType"].get<std::uint32_t>(), f.screenshotType);
        }
    }

    // ---- the profile array ----------------------------------------------------------------

    void profileArrayRoundTrip() {
        const auto samples = syntheticSamples(1);
        const auto array = encodeProfileArray(samples);
        QCOMPARE(decodeProfileArray(array), samples);
        // The first sample: two PCs, the marker, 17 registers.
        QCOMPARE(array[0], 0x1000u);
        QCOMPARE(array[2], 0xFFFFFFFFu - 4);
        QCOMPARE(array[3], 0u);
        QCOMPARE(array[3 + 16], 0x10000000u);

        ProfileSample longOne;
        longOne.stack = {0x400};
        longOne.cycles = 0x10000 + 5;
        const std::vector<ProfileSample> one{longOne};
        const auto split = decodeProfileArray(encodeProfileArray(one));
        QCOMPARE(split.size(), std::size_t(2));
        QCOMPARE(split[0].cycles, 0xFFFFu);
        QCOMPARE(split[1].cycles, 6u);
        QCOMPARE(split[1].stack, longOne.stack);

        ProfileSample bad;
        bad.stack = {0xFFFF0001};
        const std::vector<ProfileSample> badOne{bad};
        QVERIFY(!errorOf([&] { encodeProfileArray(badOne); }).empty());
        std::vector<std::uint32_t> cut(array.begin(), array.begin() + 10);
        QVERIFY(errorOf([&] { decodeProfileArray(cut); }).find("registers") != std::string::npos);
        const std::vector<std::uint32_t> dangling{0x100, 0x200};
        QVERIFY(errorOf([&] { decodeProfileArray(dangling); }).find("without a cycle") !=
                std::string::npos);
    }

    // ---- slot records ---------------------------------------------------------------------

    void slotsMapToDmaRecords() {
        const auto dma = toBartmanDmaFrame(syntheticSlots(), kStride, 0x0010);
        const auto at = [&](unsigned v, unsigned h) -> const DmaRec& {
            return dma[v * kDmaHpos + h];
        };

        // Refresh: the strobe on the line's first clock, by line; 0x1FE on the others.
        QCOMPARE(at(0, 0x01).type, dma_type::Refresh);
        QCOMPARE(at(0, 0x01).reg, std::uint16_t(reg::STREQU));
        QCOMPARE(at(12, 0x01).reg, std::uint16_t(reg::STRVBL));
        QCOMPARE(at(100, 0x01).reg, std::uint16_t(reg::STRHOR));
        QCOMPARE(at(100, 0x03).reg, std::uint16_t(0x1FE));
        QCOMPARE(at(100, 0xE2).extra, std::uint16_t(3));
        QCOMPARE(at(100, 0x01).dat, 0xFFFFu);
        // Events.
        QVERIFY(at(0, 0x01).evt & dma_event::VB);
        QVERIFY(at(3, 0x01).evt & dma_event::VS);
        QVERIFY(at(100, 0x01).evt & dma_event::VDIW);
        QVERIFY(!(at(100, 0x01).evt & dma_event::VB));
        QCOMPARE(at(100, 0x03).evt, dma_event::LOF);
        QCOMPARE(at(100, 0x0F).evt, dma_event::HBS);
        QCOMPARE(at(100, 0x0F).reg, kNoReg);
        QCOMPARE(at(100, 0x12).evt, dma_event::HSS);
        QCOMPARE(at(100, 0x23).evt, dma_event::HSE);
        QCOMPARE(at(100, 0x2E).evt, dma_event::HBE);
        QCOMPARE(at(100, 0x40).evt & dma_event::HDIWS, dma_event::HDIWS);
        QCOMPARE(at(100, 0xE0).evt, dma_event::HDIWE);
        QCOMPARE(at(100, 0x38).evt, dma_event::DdfStrt);
        QCOMPARE(at(100, 0xD0).evt, dma_event::DdfStop);
        // Disk: into memory (DSKDATR) and out of it (DSKDAT).
        QCOMPARE(at(3, 0x07).type, dma_type::Disk);
        QCOMPARE(at(3, 0x07).reg, std::uint16_t(reg::DSKDATR));
        QCOMPARE(at(3, 0x07).dat, 0x4489u + 3);
        QCOMPARE(at(3, 0x07).addr, 0x20006u);
        QCOMPARE(at(4, 0x07).reg, std::uint16_t(reg::DSKDAT));
        QCOMPARE(at(5, 0x07).reg, kNoReg);
        // Audio, sprites, bitplanes: the channel in extra, bitplanes from 0.
        QCOMPARE(at(7, 0x0B).type, dma_type::Audio);
        QCOMPARE(at(7, 0x0B).extra, std::uint16_t(2));
        QCOMPARE(at(7, 0x0B).reg, std::uint16_t(reg::AUD0DAT + 0x20));
        QCOMPARE(at(7, 0x0B).size, std::uint16_t(2));
        QCOMPARE(at(7, 0x0B).ipl, std::int8_t(0));
        QCOMPARE(at(7, 0x14 + 2 * 5 + 1).type, dma_type::Sprite);
        QCOMPARE(at(7, 0x14 + 2 * 5 + 1).extra, std::uint16_t(5));
        QCOMPARE(at(7, 0x14 + 2 * 5 + 1).reg, std::uint16_t(reg::SPR0DATA + 8 * 5 + 2));
        QCOMPARE(at(100, 0x44).type, dma_type::Bitplane);
        QCOMPARE(at(100, 0x44).extra, std::uint16_t((0x44 / 2) % 6));
        QCOMPARE(at(100, 0x44).reg, std::uint16_t(reg::BPL1DAT + 2 * ((0x44 / 2) % 6)));
        QCOMPARE(at(100, 0x44).dat, std::uint32_t(100 ^ 0x44));
        QCOMPARE(at(100, 0x44).ipl, std::int8_t(2));
        // CPU: 0x1000 | write 0x100 | bytes; a byte from its lane.
        QCOMPARE(at(0, 0x45).type, dma_type::Cpu);
        QCOMPARE(at(0, 0x45).reg, std::uint16_t(0x1002));
        QCOMPARE(at(0, 0x45).extra, dma_extra::CpuData);
        QCOMPARE(at(1, 0x47).reg, std::uint16_t(0x1101));
        QCOMPARE(at(1, 0x47).dat, std::uint32_t(0x47)); // odd address: the low byte
        QCOMPARE(at(1, 0x47).addr, 0x2047u);
        QCOMPARE(at(1, 0x4B).dat, std::uint32_t(0x4B));
        QCOMPARE(at(100, 0xA8).reg, std::uint16_t(0x1102));
        QCOMPARE(at(100, 0xA8).addr, 0xDFF042u);

        // The Copper's words.
        QCOMPARE(at(10, 0xB0).reg, std::uint16_t(reg::COPINS));
        QCOMPARE(at(10, 0xB0).extra, dma_extra::CopperInstruction);
        QCOMPARE(at(10, 0xB0).dat, 0x0180u);
        QCOMPARE(at(10, 0xB2).reg, std::uint16_t(reg::COLOR00));
        QCOMPARE(at(10, 0xB2).dat, 0x0F00u);
        QCOMPARE(at(10, 0xB4).reg, std::uint16_t(reg::COPINS));
        QCOMPARE(at(10, 0xB4).extra, dma_extra::CopperInstruction);
        QCOMPARE(at(10, 0xB6).reg, std::uint16_t(reg::COPINS));
        QCOMPARE(at(10, 0xB6).extra, dma_extra::CopperWait);
        QCOMPARE(at(10, 0xB8).reg, std::uint16_t(reg::NOOP));
        QCOMPARE(at(10, 0xB8).extra, dma_extra::CopperSpecial);
        QVERIFY(at(10, 0xB8).evt & dma_event::CopperWake);
        QCOMPARE(at(10, 0xBA).reg, std::uint16_t(reg::COPINS));
        QCOMPARE(at(10, 0xBC).reg, std::uint16_t(reg::NOOP)); // the refused MOVE
        QCOMPARE(at(10, 0xBC).extra, dma_extra::CopperInstruction);
        QCOMPARE(at(10, 0xBE).reg, std::uint16_t(reg::COPINS));
        QCOMPARE(at(10, 0xC0).reg, std::uint16_t(reg::COPJMP2));
        // After the jump the next fetch is an instruction again (0x0181 looks like a WAIT).
        QCOMPARE(at(10, 0xC6).reg, std::uint16_t(reg::COPINS));
        QCOMPARE(at(10, 0xC6).extra, dma_extra::CopperInstruction);
        QCOMPARE(at(10, 0xC8).extra, dma_extra::CopperWait);
        for (unsigned h = 0xB0; h <= 0xC8; h += 2)
            if (h < 0xC2 || h > 0xC4) QCOMPARE(at(10, h).type, dma_type::Copper);
        // The held clock: nobody gets it.
        QCOMPARE(at(10, 0xE0).reg, kNoReg);
        QVERIFY(at(10, 0xE0).evt & dma_event::NoOneGets);

        // Blitter: channel and mode in extra, D writes against BLTDDAT.
        QCOMPARE(at(50, 0xB0).type, dma_type::Blitter);
        QCOMPARE(at(50, 0xB0).reg, std::uint16_t(reg::BLTADAT));
        QCOMPARE(at(50, 0xB0).extra, std::uint16_t(0 | dma_extra::BlitterFill)); // BLTCON1 at start
        QCOMPARE(at(50, 0xB1).reg, std::uint16_t(reg::BLTBDAT));
        QCOMPARE(at(50, 0xB2).reg, std::uint16_t(reg::BLTCDAT));
        QCOMPARE(at(50, 0xB3).reg, std::uint16_t(reg::BLTDDAT));
        QCOMPARE(at(50, 0xB3).extra, std::uint16_t(3 | dma_extra::BlitterFill));
        QCOMPARE(at(100, 0xB3).extra, std::uint16_t(3 | dma_extra::BlitterLine));
        QCOMPARE(at(101, 0xB0).extra, std::uint16_t(0 | dma_extra::BlitterFill));
        QCOMPARE(at(102, 0xB2).extra, std::uint16_t(2));
        QCOMPARE(at(102, 0xB2).addr, 0x60000u + 2 * 0xB2);

        // Every owner is there.
        std::map<int, int> types;
        for (const DmaRec& d : dma)
            if (d.reg != kNoReg) ++types[d.type];
        for (int t = dma_type::Refresh; t <= dma_type::Disk; ++t)
            QVERIFY2(types[t] > 0, qPrintable(QString("no record of type %1").arg(t)));
        QCOMPARE(types[dma_type::Refresh], int(4 * kDmaVpos));
    }

    void singleSlotsMapWithoutContext() {
        SlotRecord fetch = slot(BusOwner::Cpu, 0, 0x400, 0x4E75);
        QCOMPARE(toBartmanDma(fetch).extra, dma_extra::CpuData);
        DmaContext code;
        code.cpuFetch = true;
        QCOMPARE(toBartmanDma(fetch, code).extra, dma_extra::CpuCode);
        SlotRecord byte = slot(BusOwner::Cpu, 0, 0x402, 0xAB00, slot_flag::Write);
        byte.size = 1;
        QCOMPARE(toBartmanDma(byte).dat, 0xABu); // even address: the high byte
        QCOMPARE(toBartmanDma(byte).reg, std::uint16_t(0x1101));
        const DmaRec idle = toBartmanDma(SlotRecord{});
        QCOMPARE(idle, DmaRec{});
        SlotRecord bpl = slot(BusOwner::Bitplane, 6, 0x100, 1); // no Register flag
        QCOMPARE(toBartmanDma(bpl).reg, std::uint16_t(reg::BPL1DAT + 10));
        QCOMPARE(toBartmanDma(bpl).extra, std::uint16_t(5));
    }

    void happeningsMapToEvents() {
        // The CPU's fetch flag, its interrupt mask and the events from outside Agnus.
        SlotRecord fetch = slot(BusOwner::Cpu, 0, 0x400, 0x4E75, slot_flag::Fetch);
        fetch.flags |= std::uint16_t(3u << slot_flag::IntMaskShift);
        QCOMPARE(toBartmanDma(fetch).extra, dma_extra::CpuCode);
        QCOMPARE(toBartmanDma(fetch).intlev, std::int8_t(3));
        SlotRecord idle;
        idle.events = slot_event::BlitIrq | slot_event::CpuIrq | slot_event::CiaAIrq | slot_event::CiaBIrq;
        idle.flags = std::uint16_t(7u << slot_flag::IntMaskShift);
        const DmaRec d = toBartmanDma(idle);
        QCOMPARE(d.evt, dma_event::BlitIrq | dma_event::CpuIrq | dma_event::CiaAIrq | dma_event::CiaBIrq);
        QCOMPARE(d.intlev, std::int8_t(7));
        QCOMPARE(d.reg, kNoReg);
        // INTREQ written by the CPU or the Copper; a read of INTREQR is no event.
        const SlotRecord cpuWrite = slot(BusOwner::Cpu, 0, 0xDFF09C, 0x0020, slot_flag::Write | slot_flag::Register, reg::INTREQ);
        QVERIFY(toBartmanDma(cpuWrite).evt & dma_event::IntReq);
        const SlotRecord copperMove = slot(BusOwner::Copper, 0, 0x10002, 0x8010, slot_flag::Write | slot_flag::Register, reg::INTREQ);
        QVERIFY(toBartmanDma(copperMove).evt & dma_event::IntReq);
        const SlotRecord read = slot(BusOwner::Cpu, 0, 0xDFF01E, 0x0020, slot_flag::Register, reg::INTREQR);
        QVERIFY(!(toBartmanDma(read).evt & dma_event::IntReq));
        // The CIA accesses land on their clocks; one beyond the frame's lines is dropped.
        std::vector<SlotRecord> frame(227 * 313);
        const CiaAt cia[] = {{10, 20, 1, 14, true, 0x0011}, {11, 30, 2, 8, false, 0x42FF}, {400, 1, 1, 0, false, 0}};
        const auto dma = toBartmanDmaFrame(frame, 227, 0, cia);
        const DmaRec& a = dma[10 * kDmaHpos + 20];
        QCOMPARE(a.ciaReg, 14);
        QCOMPARE(a.ciaMask, 1);
        QCOMPARE(a.ciaRw, std::int8_t(1));
        QCOMPARE(a.ciaPhase, -1);
        QCOMPARE(a.ciaValue, std::uint16_t(0x0011));
        QCOMPARE(dma[11 * kDmaHpos + 30].ciaMask, 2);
        QCOMPARE(dma[11 * kDmaHpos + 30].ciaValue, std::uint16_t(0x42FF));
        std::size_t withCia = 0;
        for (const DmaRec& r : dma) withCia += r.ciaMask != 0;
        QCOMPARE(withCia, std::size_t(2));
        // WinUAE's chipset mask, from a capture's chipset_flags (bit 0 AGA, bit 1 ECS Agnus,
        // the others video modes).
        QCOMPARE(chipsetFlagsFromCapture(0), 0x100u);
        QCOMPARE(chipsetFlagsFromCapture(1u << 2 | 1u << 4), 0x100u); // NTSC, long frame
        QCOMPARE(chipsetFlagsFromCapture(2), 0x101u);
        QCOMPARE(chipsetFlagsFromCapture(3), 0x107u);
    }

    void otherFrameShapesFit() {
        // An NTSC frame as Agnus keeps it (228 per line, 263 lines): the 228th clock and the
        // missing lines do not reach the file.
        std::vector<SlotRecord> ntsc(228 * 263);
        for (unsigned v = 0; v < 263; ++v)
            for (unsigned h = 0; h < 228; ++h)
                ntsc[v * 228 + h] = slot(BusOwner::Cpu, 0, v * 1000 + h, std::uint16_t(h));
        const auto dma = toBartmanDmaFrame(ntsc, 228);
        QCOMPARE(dma.size(), std::size_t(kDmaCount));
        QCOMPARE(dma[262 * kDmaHpos + 226].addr, 262u * 1000 + 226);
        QCOMPARE(dma[1 * kDmaHpos + 0].addr, 1000u); // not shifted by the dropped clock
        QCOMPARE(dma[263 * kDmaHpos].reg, kNoReg);
        QCOMPARE(dma.back(), DmaRec{});
        // Refresh on NTSC: a long line (LOL on its second refresh clock) puts STRLONG there,
        // a short line nothing; both carry the line's strobe first.
        for (unsigned v = 0; v < 263; ++v)
            for (const unsigned h : {0x01u, 0x03u, 0x05u}) {
                ntsc[v * 228 + h] = slot(BusOwner::Refresh);
                if (h == 0x03 && v % 2 == 0) ntsc[v * 228 + h].events = slot_event::LOL;
            }
        const auto refreshed = toBartmanDmaFrame(ntsc, 228);
        for (const unsigned v : {100u, 101u, 262u}) {
            QCOMPARE(refreshed[v * kDmaHpos + 0x01].reg, std::uint16_t(reg::STRHOR));
            QCOMPARE(refreshed[v * kDmaHpos + 0x03].reg, std::uint16_t(v % 2 == 0 ? reg::STRLONG : 0x1FE));
            QVERIFY(bool(refreshed[v * kDmaHpos + 0x03].evt & dma_event::LOL) == (v % 2 == 0));
            QCOMPARE(refreshed[v * kDmaHpos + 0x05].reg, std::uint16_t(0x1FE));
        }
        QVERIFY(!errorOf([&] { toBartmanDmaFrame(std::span(ntsc).first(1000), 228); }).empty());
        QVERIFY(!errorOf([&] { toBartmanDmaFrame(ntsc, 0); }).empty());
    }

    // ---- the JSON -------------------------------------------------------------------------

    void jsonRoundTrip() {
        AmigaProfileInput in = amigaProfileFromBartman(profile_);
        in.objdump = "00000000 <_start>:\n 400:\t4e75 rts\n";
        in.symbols = {{"_main", ".text", 0x10, 0x20000, 0x40}, {"_data", ".data", 0, 0x28000, 8}};
        in.sections = {{".text", 0x20000, 8}, {".data", 0x28000, 0x100}};
        for (unsigned i = 0; i < in.frames.size(); ++i) {
            AmigaProfileFrame& f = in.frames[i];
            f.tree = syntheticTree(i);
            f.startTime = 10 * i;
            f.uniqueCallFrames = {{{"main", "/src/main.c", 9}},
                                  {{"main", "/src/main.c", 12}, {"draw", "/src/draw.c", 41}}};
            f.callFrames = {0, 0, 1, 1};
            for (Resource& r : f.resources)
                r.info[3] = 0; // the padding word does not reach the JSON
        }
        const nlohmann::json j = amigaProfileJson(in);
        const std::string text = j.dump();
        const AmigaProfileInput back = readAmigaProfile(nlohmann::json::parse(text));

        QCOMPARE(back.frames.size(), in.frames.size());
        QVERIFY(back.chipMem == in.chipMem);
        QVERIFY(back.bogoMem == in.bogoMem);
        QCOMPARE(back.objdump, in.objdump);
        QCOMPARE(back.baseClock, in.baseClock);
        QCOMPARE(back.cpuCycleUnit, in.cpuCycleUnit);
        QCOMPARE(back.symbols, in.symbols);
        QCOMPARE(back.sections, in.sections);
        QCOMPARE(back.systemStackLower, in.systemStackLower);
        QCOMPARE(back.systemStackUpper, in.systemStackUpper);
        QCOMPARE(back.stackLower, in.stackLower);
        QCOMPARE(back.stackUpper, in.stackUpper);
        for (std::size_t i = 0; i < in.frames.size(); ++i) {
            const AmigaProfileFrame& x = in.frames[i];
            const AmigaProfileFrame& y = back.frames[i];
            QCOMPARE(y.startTime, x.startTime);
            QCOMPARE(y.tree.size(), x.tree.size());
            for (ProfileTree::NodeId n = 0; n < x.tree.size(); ++n) {
                QCOMPARE(y.tree.node(n).frame, x.tree.node(n).frame);
                QCOMPARE(y.tree.node(n).self, x.tree.node(n).self);
            }
            QCOMPARE(y.tree.samples().size(), x.tree.samples().size());
            QCOMPARE(y.chipsetFlags, x.chipsetFlags);
            QVERIFY(y.customRegs == x.customRegs);
            QCOMPARE(y.agaColors, x.agaColors);
            QCOMPARE(y.dma.size(), x.dma.size());
            for (std::size_t k = 0; k < x.dma.size(); ++k) {
                const DmaRec& a = x.dma[k];
                const DmaRec& b = y.dma[k];
                // What the JSON carries: all of a used clock's viewer fields, an unused one's
                // events.
                DmaRec want;
                want.evt = a.evt;
                if (a.reg != kNoReg) {
                    want.reg = a.reg;
                    want.dat = a.dat;
                    want.datHi = a.datHi;
                    want.size = a.size;
                    want.addr = a.addr;
                    want.type = a.type;
                    want.extra = a.extra;
                    want.intlev = a.intlev;
                }
                if (!(b == want))
                    QFAIL(qPrintable(QString("frame %1 DMA record %2").arg(i).arg(k)));
            }
            QCOMPARE(y.resources, x.resources);
            QCOMPARE(y.idleCycles, x.idleCycles);
            QCOMPARE(y.pcTrace, x.pcTrace);
            QCOMPARE(y.registerTrace, x.registerTrace);
            QCOMPARE(y.uniqueCallFrames, x.uniqueCallFrames);
            QCOMPARE(y.callFrames, x.callFrames);
            QVERIFY(y.screenshot == x.screenshot);
            QCOMPARE(y.screenshotType, x.screenshotType);
        }

        // As the viewer sees it: $base in the first frame only, the screenshot as a data URL,
        // each node's self time from its samples' deltas.
        QVERIFY(j[0].contains("$base"));
        QVERIFY(!j[1].contains("$base"));
        QVERIFY(j[0]["screenshot"].get<std::string>().rfind("data:image/jpg;base64,", 0) == 0);
        QVERIFY(j[1]["screenshot"].get<std::string>().rfind("data:image/png;base64,", 0) == 0);
        QCOMPARE(j[0]["$amiga"]["dmaRecords"][0], nlohmann::json::object());
        QCOMPARE(j[0]["$amiga"]["dmaRecords"][100 * kDmaHpos + 0x0F],
                 nlohmann::json({{"evt", dma_event::HBS}}));
        QCOMPARE(j[0]["$amiga"]["dmaRecords"][0x45].size(), std::size_t(9));
        QCOMPARE(j[0]["$amiga"]["pcTrace"].size(), 2 * in.frames[0].pcTrace.size());
        QCOMPARE(j[0]["$amiga"]["registerTrace"].size(), 17 * in.frames[0].pcTrace.size());
        QCOMPARE(j[0]["$amiga"]["gfxResources"][0]["bitmap"]["numPlanes"].get<int>(), 5);
        QCOMPARE(j[0]["$amiga"]["gfxResources"][1]["palette"]["numEntries"].get<int>(), 32);
        const auto self = viewerSelfTimes(j[1]);
        QCOMPARE(self.at("main"), std::uint64_t(101));
        QCOMPARE(self.at("draw"), std::uint64_t(2044));
        QCOMPARE(self.at("blit"), std::uint64_t(37));
        QCOMPARE(j[1]["samples"][0].get<int>(), 1); // the root first, as the viewer skips it

        // Through a file.
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.amigaprofile").toStdString();
        writeAmigaProfile(in, path);
        QCOMPARE(readAmigaProfileFile(path).frames[1].pcTrace, in.frames[1].pcTrace);
        QVERIFY(errorOf([&] { writeAmigaProfile(in, path); }).find("exists") != std::string::npos);
        writeAmigaProfile(in, path, true);
    }

    void fromBinaryAsTheExtensionDoes() {
        const AmigaProfileInput in = amigaProfileFromBartman(profile_);
        QCOMPARE(in.frames.size(), std::size_t(2));
        const auto samples = syntheticSamples(0);
        QCOMPARE(in.frames[0].pcTrace.size(), samples.size());
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const std::uint32_t pc = samples[i].stack.empty() ? 0xFFFFFFFFu : samples[i].stack[0];
            QCOMPARE(in.frames[0].pcTrace[i].pc, pc);
            QCOMPARE(in.frames[0].pcTrace[i].cycles, samples[i].cycles);
            QVERIFY(in.frames[0].registerTrace[i] == samples[i].registers);
        }
        QCOMPARE(in.frames[1].chipsetFlags, profile_.frames[1].chipsetFlags);
        QCOMPARE(in.frames[1].idleCycles, 30001u);
        QVERIFY(in.chipMem == profile_.chipMem);
        QCOMPARE(in.frames[0].tree.size(), std::size_t(1));
        // It is a valid profile as it is.
        QCOMPARE(readAmigaProfile(amigaProfileJson(in)).frames.size(), std::size_t(2));
    }

    void jsonRefusals() {
        AmigaProfileInput in = amigaProfileFromBartman(profile_);
        const nlohmann::json good = amigaProfileJson(in);
        struct Case {
            std::function<void(nlohmann::json&)> change;
            const char* expect;
        };
        const std::vector<Case> cases = {
            {[](nlohmann::json& j) { j[1].erase("$amiga"); }, "frame 1: no $amiga"},
            {[](nlohmann::json& j) { j[0].erase("$base"); }, "frame 0: no $base"},
            {[](nlohmann::json& j) { j = nlohmann::json::array(); }, "has no frames"},
            {[](nlohmann::json& j) { j = nlohmann::json::object(); }, "not an array"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["dmaRecords"].erase(5); },
             "frame 0.$amiga.dmaRecords: 71050 records"},
            {[](nlohmann::json& j) { j[1]["$amiga"]["customRegs"].push_back(0); },
             "frame 1.$amiga.customRegs: 257 registers"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["customRegs"][3] = 70000; },
             "customRegs[3]: 70000 is out of range"},
            {[](nlohmann::json& j) { j[0]["$amiga"].erase("idleCycles"); },
             "frame 0.$amiga: idleCycles is missing"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["pcTrace"].push_back(1); }, "odd length"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["registerTrace"].push_back(1); },
             "registerTrace"},
            {[](nlohmann::json& j) {
                 j[0]["$amiga"]["dmaRecords"][7] = {{"type", 2}};
             },
             "dmaRecords[7]: has type but no reg"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["dmaRecords"][0x45].erase("addr"); },
             "dmaRecords[69]: addr is missing"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["dmaRecords"][0x45]["dat"] = "x"; },
             "dmaRecords[69].dat: is not an integer"},
            {[](nlohmann::json& j) { j[0]["$base"]["chipMem"] = "!!!"; }, "chipMem: is not base64"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["gfxResources"][0].erase("bitmap"); },
             "gfxResources[0]: bitmap is missing"},
            {[](nlohmann::json& j) { j[1]["screenshot"] = "data:image/gif;base64,AAAA"; },
             "not JPEG or PNG"},
            {[](nlohmann::json& j) { j[0]["nodes"][0]["children"] = {99}; },
             "frame 0: cpuprofile: a child id names no node"},
            {[](nlohmann::json& j) { j[0]["$amiga"]["callFrames"] = {3}; }, "names call frame 3"},
            {[](nlohmann::json& j) {
                 j[0]["$base"]["sections"] = {{{"name", ".text"}, {"address", 0}, {"size", 8}}};
             },
             "callFrames: 0 entries, .text has 4 words"},
        };
        for (const Case& c : cases) {
            nlohmann::json j = good;
            c.change(j);
            const std::string e = errorOf([&] { readAmigaProfile(j); });
            QVERIFY2(e.find(c.expect) != std::string::npos,
                     qPrintable(QString("want \"%1\", got \"%2\"").arg(c.expect).arg(e.c_str())));
        }

        // The writer refuses what the viewer could not open.
        AmigaProfileInput w = in;
        w.frames[1].dma.resize(10);
        QVERIFY(errorOf([&] { amigaProfileJson(w); }).find("frame 1: 10 DMA records") !=
                std::string::npos);
        w = in;
        w.frames[0].registerTrace.pop_back();
        QVERIFY(errorOf([&] { amigaProfileJson(w); }).find("register sets") != std::string::npos);
        w = in;
        w.sections = {{".text", 0x20000, 64}};
        QVERIFY(errorOf([&] { amigaProfileJson(w); }).find(".text has 32 words") !=
                std::string::npos);
        w.frames.clear();
        QVERIFY(!errorOf([&] { amigaProfileJson(w); }).empty());
    }
};

QTEST_GUILESS_MAIN(TestBartmanFormats)
#include "test_bartman_formats.moc"
