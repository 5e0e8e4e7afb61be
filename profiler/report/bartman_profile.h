// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Bartman's binary frame profile: the file WinUAE's gdbserver writes when vscode-amiga-debug
// asks it to profile one or more frames, and which the extension converts into the JSON its
// frame profiler opens (profiler/report/amigaprofile.h). The model mirrors the file field for
// field; docs/formats/bartman-profile.md gives the byte layout and what Copperline fills.
//
// Most numbers are little-endian (the file is the x86 memory image of WinUAE's structures);
// the chipset flags, the custom registers, the refresh pointer after them and the AGA colours
// are big-endian (they come from WinUAE's savestate writer). The reader checks every length
// field the way the extension's parser does and refuses what it would refuse.

#include "emu/chipset/slot_record.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace copperline {

namespace bartman {

// The DMA grid of one frame: every colour clock of a PAL frame, line by line. The format has
// this one shape: WinUAE writes an NTSC frame into it too (its 262 or 263 lines first, the
// rest unused, and no room for a long line's 228th clock), and so does Copperline.
inline constexpr unsigned kDmaHpos = 227;
inline constexpr unsigned kDmaVpos = 313;
inline constexpr std::uint32_t kDmaCount = kDmaHpos * kDmaVpos;

// Record sizes the extension insists on.
inline constexpr std::uint32_t kDmaRecSize = 58;
inline constexpr std::uint32_t kResourceSize = 52;
inline constexpr std::uint32_t kCustomRegsSize = 4 + 256 * 2 + 4; // flags, registers, REFPTR
inline constexpr std::uint32_t kAgaColorsSize = 256 * 4;
inline constexpr std::uint32_t kResourceNameSize = 32;

// WinUAE's clocks for a 7 MHz 68000: baseClock is the chipset clock times 8, and one CPU
// cycle is cpuCycleUnit of WinUAE's 512-per-colour-clock units.
inline constexpr std::uint32_t kPalBaseClock = 3546895u * 8;
inline constexpr std::uint32_t kNtscBaseClock = 3579545u * 8;
inline constexpr std::uint32_t kCpuCycleUnit68000 = 256;

// The profile array is a stream of samples: the PCs of the call stack (innermost first), then
// a marker 0xFFFFFFFF - cycles (so every value from kCyclesMarker up is a marker), then the
// CPU registers D0-D7, A0-A7, SR at that point.
inline constexpr std::uint32_t kCyclesMarker = 0xFFFF0000;
inline constexpr std::uint32_t kMaxSampleCycles = 0xFFFF;
inline constexpr unsigned kRegisterCount = 17;
// The PC the extension shows as "[IRQ]" (the CPU was processing an interrupt).
inline constexpr std::uint32_t kIrqPc = 0x7FFFFFFF;

// Chipset flags (WinUAE's chipset mask, with 0x100 always set by its writer).
namespace chipset_flag {
inline constexpr std::uint32_t EcsAgnus = 1;
inline constexpr std::uint32_t EcsDenise = 2;
inline constexpr std::uint32_t Aga = 4;
inline constexpr std::uint32_t Full = 0x100;
} // namespace chipset_flag

// DmaRec::type.
namespace dma_type {
inline constexpr std::int16_t None = 0;
inline constexpr std::int16_t Refresh = 1;
inline constexpr std::int16_t Cpu = 2;
inline constexpr std::int16_t Copper = 3;
inline constexpr std::int16_t Audio = 4;
inline constexpr std::int16_t Blitter = 5;
inline constexpr std::int16_t Bitplane = 6;
inline constexpr std::int16_t Sprite = 7;
inline constexpr std::int16_t Disk = 8;
inline constexpr std::int16_t Conflict = 9;
} // namespace dma_type

// DmaRec::extra: the channel for audio (0-3), bitplane (0-7), sprite (0-7) and refresh (slot
// 0-3); for the CPU, code or data; for the Copper, the kind of word; for the blitter, the
// channel (0-3 = A-D) plus the mode bits.
namespace dma_extra {
inline constexpr std::uint16_t CpuCode = 0;
inline constexpr std::uint16_t CpuData = 1;
inline constexpr std::uint16_t CopperInstruction = 0; // a MOVE's words, a WAIT/SKIP's first
inline constexpr std::uint16_t CopperWait = 1;        // the second word of a WAIT or SKIP
inline constexpr std::uint16_t CopperSpecial = 2;     // a clock held without moving data
inline constexpr std::uint16_t BlitterFill = 0x10;
inline constexpr std::uint16_t BlitterLine = 0x20;
} // namespace dma_extra

// DmaRec::reg for a CPU access: 0x1000, plus 0x100 for a write, plus the size in bytes.
namespace dma_cpu {
inline constexpr std::uint16_t Access = 0x1000;
inline constexpr std::uint16_t Write = 0x0100;
} // namespace dma_cpu

// DmaRec::reg of a clock nobody used.
inline constexpr std::uint16_t kNoReg = 0xFFFF;
inline constexpr std::uint32_t kNoAddr = 0xFFFFFFFF;

// DmaRec::evt bits.
namespace dma_event {
inline constexpr std::uint32_t BlitIrq = 1u << 0;
inline constexpr std::uint32_t BlitFinalD = 1u << 1;
inline constexpr std::uint32_t BlitStartFinish = 1u << 2;
inline constexpr std::uint32_t BplFetchUpdate = 1u << 3;
inline constexpr std::uint32_t CopperWake = 1u << 4;
inline constexpr std::uint32_t CpuIrq = 1u << 5;
inline constexpr std::uint32_t IntReq = 1u << 6;
inline constexpr std::uint32_t CopperWanted = 1u << 7;
inline constexpr std::uint32_t NoOneGets = 1u << 8;
inline constexpr std::uint32_t CpuBlitterSteal = 1u << 9;
inline constexpr std::uint32_t CpuBlitterStolen = 1u << 10;
inline constexpr std::uint32_t CopperSkip = 1u << 11;
inline constexpr std::uint32_t DdfStrt = 1u << 12;
inline constexpr std::uint32_t DdfStop = 1u << 13;
inline constexpr std::uint32_t DdfStop2 = 1u << 14;
inline constexpr std::uint32_t Special = 1u << 15;
inline constexpr std::uint32_t VB = 1u << 16;
inline constexpr std::uint32_t VS = 1u << 17;
inline constexpr std::uint32_t LOF = 1u << 18;
inline constexpr std::uint32_t LOL = 1u << 19;
inline constexpr std::uint32_t HBS = 1u << 20;
inline constexpr std::uint32_t HBE = 1u << 21;
inline constexpr std::uint32_t HDIWS = 1u << 22;
inline constexpr std::uint32_t HDIWE = 1u << 23;
inline constexpr std::uint32_t VDIW = 1u << 24;
inline constexpr std::uint32_t HSS = 1u << 25;
inline constexpr std::uint32_t HSE = 1u << 26;
inline constexpr std::uint32_t CiaAIrq = 1u << 27;
inline constexpr std::uint32_t CiaBIrq = 1u << 28;
inline constexpr std::uint32_t CpuStop = 1u << 29;
inline constexpr std::uint32_t CpuStopIpl = 1u << 30;
inline constexpr std::uint32_t CpuIns = 1u << 31;
} // namespace dma_event

// One colour clock: 58 packed little-endian bytes in the file. A clock nobody used has reg
// kNoReg; the defaults are those of a cleared record.
struct DmaRec {
    std::uint16_t reg = kNoReg;   // custom register offset, or a dma_cpu value for the CPU
    std::uint32_t dat = 0;        // the data moved (low 32 bits)
    std::uint32_t datHi = 0;      // its high 32 bits (64-bit AGA fetches)
    std::uint16_t size = 0;       // bytes in dat: 2, 4 or 8
    std::uint32_t addr = kNoAddr; // the address accessed
    std::uint32_t evt = 0;        // dma_event bits
    std::uint32_t evt2 = 0;       // WinUAE's second event word (IPL change and sample)
    std::uint32_t evtData = 0;
    std::int8_t evtDataSet = 0;
    std::int16_t type = dma_type::None;
    std::uint16_t extra = 0;
    std::int8_t intlev = 0;       // the CPU's interrupt mask (SR bits 10-8)
    std::int8_t ipl = 0;          // the interrupt level on the CPU's IPL pins
    std::int8_t ipl2 = 0;         // the level the CPU sampled
    std::uint16_t cfReg = kNoReg; // a second access that conflicted with this one
    std::uint16_t cfDat = 0;
    std::uint16_t cfAddr = 0;
    std::int32_t ciaReg = 0; // a CIA access in this clock
    std::int32_t ciaMask = 0;
    std::int8_t ciaRw = 0;
    std::int32_t ciaPhase = 0;
    std::uint16_t ciaValue = 0;
    std::int8_t end = 0; // WinUAE marks the clock after a line's last one
    bool operator==(const DmaRec&) const = default;
};

enum class ResourceType : std::uint16_t { Bitmap = 0, Palette = 1, CopperList = 2, Sprite = 3 };
namespace resource_flag {
inline constexpr std::uint16_t Interleaved = 1u << 0;
inline constexpr std::uint16_t Masked = 1u << 1;
inline constexpr std::uint16_t Ham = 1u << 2;
} // namespace resource_flag

// A graphics resource the program registered (a bitmap, palette, Copper list or sprite):
// 52 little-endian bytes in the file.
struct Resource {
    std::uint32_t address = 0;
    std::uint32_t size = 0;
    std::string name;        // at most 31 bytes reach the file (a NUL ends it)
    std::uint16_t type = 0;  // ResourceType
    std::uint16_t flags = 0; // resource_flag bits
    // The union after the flags as four words: a bitmap's width, height and number of planes;
    // a palette's number of entries in the first. The fourth is the structure's padding.
    std::array<std::uint16_t, 4> info{};
    bool operator==(const Resource&) const = default;
};

struct Frame {
    std::uint32_t chipsetFlags = chipset_flag::Full;
    std::array<std::uint16_t, 256> customRegs{}; // by offset / 2, as at the frame's start
    std::uint32_t refPtr = 0;                    // the refresh pointer, after the registers
    std::vector<std::uint32_t> agaColors;        // empty, or 256 colours 0x00RRGGBB
    std::vector<DmaRec> dma;                     // exactly kDmaCount, line by line
    std::vector<Resource> resources;
    std::uint32_t profileCycles = 0;         // CPU cycles the frame took
    std::uint32_t idleCycles = 0;            // of those, CPU cycles spent idle
    std::vector<std::uint32_t> profileArray; // samples (kCyclesMarker)
    std::vector<std::uint8_t> screenshot;    // an encoded image, or empty
    std::uint32_t screenshotType = 0;        // 0 JPEG, anything else PNG (WinUAE writes 1)
    bool operator==(const Frame&) const = default;
};

} // namespace bartman

struct BartmanProfile {
    using Frame = bartman::Frame;
    using DmaRec = bartman::DmaRec;
    using Resource = bartman::Resource;

    std::vector<std::uint32_t> sectionBases; // where each section of the program was loaded
    std::uint32_t systemStackLower = 0, systemStackUpper = 0;
    std::uint32_t stackLower = 0, stackUpper = 0;
    std::vector<std::uint8_t> kickRom; // 256 or 512 KiB
    std::vector<std::uint8_t> chipMem; // at $000000, as at the first frame's start
    std::vector<std::uint8_t> bogoMem; // at $C00000
    std::uint32_t baseClock = bartman::kPalBaseClock;
    std::uint32_t cpuCycleUnit = bartman::kCpuCycleUnit68000;
    std::vector<Frame> frames;
    bool operator==(const BartmanProfile&) const = default;
};

// The file's bytes. Throws MediaError when the model cannot be written as the extension
// reads it (no frames, a frame without exactly kDmaCount DMA records, AGA colours that are
// neither none nor 256). Resource names longer than 31 bytes are cut at a character boundary.
std::vector<std::uint8_t> bartmanProfileBytes(const BartmanProfile& profile);
// Writes the file atomically. An existing file is a MediaError unless `replace`.
void writeBartmanProfile(const BartmanProfile& profile, const std::string& path,
                         bool replace = false);

// Reads a file. Throws MediaError naming the field and its offset when a length is not the
// one the extension requires, when the file ends early, or when bytes follow the last frame.
BartmanProfile readBartmanProfile(std::span<const std::uint8_t> bytes,
                                  const std::string& name = "bartman profile");
BartmanProfile readBartmanProfileFile(const std::string& path);

// ---- the profile array ------------------------------------------------------------------

struct ProfileSample {
    std::vector<std::uint32_t> stack; // PCs, innermost first; empty when unknown
    std::uint32_t cycles = 0;
    std::array<std::uint32_t, bartman::kRegisterCount> registers{}; // D0-D7, A0-A7, SR
    bool operator==(const ProfileSample&) const = default;
};

// A sample longer than kMaxSampleCycles becomes several with the same stack and registers (a
// marker holds 16 bits of cycles). Throws MediaError for a PC that would read as a marker.
std::vector<std::uint32_t> encodeProfileArray(std::span<const ProfileSample> samples);
// Throws MediaError when the array ends inside a sample's registers or after PCs without a
// marker.
std::vector<ProfileSample> decodeProfileArray(std::span<const std::uint32_t> array);

// ---- Copperline's chip-bus slots as DMA records ------------------------------------------

namespace bartman {

// What a single slot record does not say but the frame around it does.
struct DmaContext {
    // Which word a Copper fetch that wrote no register was.
    enum class CopperWord : std::uint8_t {
        First,       // an instruction's first word (COPINS)
        WaitSecond,  // the second word of a WAIT or SKIP
        Wakeup,      // the clock a WAIT or SKIP holds when it wakes
        SkippedMove, // the second word of a MOVE that was skipped or refused
    };
    CopperWord copperWord = CopperWord::First;
    std::uint16_t blitterMode = 0;    // 0, dma_extra::BlitterFill or dma_extra::BlitterLine
    bool cpuFetch = false;            // a CPU read was an instruction fetch
    std::uint8_t refreshSlot = 0;     // which of the line's refresh clocks (0-3)
    std::uint16_t refreshReg = 0x1FE; // the strobe the refresh clock puts on the bus
};

// The DMA record for one colour clock. Docs/formats/bartman-profile.md lists, owner by owner,
// what is filled and what Copperline does not know.
DmaRec toBartmanDma(const SlotRecord& slot, const DmaContext& context = {});

// A whole frame of slot records (`stride` records per line, line by line, as Agnus keeps them
// or as a slots file holds them) as the kDmaCount records of the file: the Copper's words are
// told apart by following its instruction stream, the blitter's mode comes from BLTCON1 at each
// BLTSIZE write (`bltcon1` is its value at the frame's start), refresh clocks get their strobe
// (and an NTSC long line STRLONG on its second). Clocks beyond 227 per line (an NTSC long
// line's last) and lines beyond 313 are dropped; missing ones are idle. Throws
// MediaError when the records are not whole lines.
// `cia`: the frame's CPU accesses to the CIAs (a frame record's cia_accesses), in time
// order; each fills the CIA fields of its clock's record.
struct CiaAt {
    unsigned vpos = 0, hpos = 0;
    std::uint8_t chips = 0; // 1 CIA-A, 2 CIA-B, 3 both
    std::uint8_t reg = 0;   // 0-15
    bool write = false;
    std::uint16_t value = 0;
};
std::vector<DmaRec> toBartmanDmaFrame(std::span<const SlotRecord> slots, unsigned stride,
                                      std::uint16_t bltcon1 = 0, std::span<const CiaAt> cia = {});

// WinUAE's chipset mask for a capture's registers.chipset_flags (bit 0 AGA, bit 1 ECS
// Agnus), with 0x100 set as WinUAE's state writer sets it: OCS 0x100, ECS Agnus 0x101, AGA
// 0x107 (an AGA machine has the ECS bits too).
std::uint32_t chipsetFlagsFromCapture(unsigned captureFlags);

} // namespace bartman

} // namespace copperline
