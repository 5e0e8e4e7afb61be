// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/machine.h"

#include "emu/chipset/custom_regs.h"
#include "emu/state/archive.h"
#include "emu/state/state_file.h"
#include "emu/uaelib.h"

#include <algorithm>
#include <cstring>

#include <zlib.h>

namespace copperline {

void CpuBus::resetAsserted(std::uint64_t, std::uint64_t to) {
    machine->syncTo(to);
    machine->resetLine();
}

Machine::Machine(const Config& config)
    : config_(config), chip_(config.chipRamBytes), slow_(config.slowRamBytes, 0), fast_(config.fastRamBytes, 0),
      floppy_(paula_), blitter_(chip_),
      agnus_(chip_, denise_, paula_, blitter_, copper_), bus_{this}, cpu_(bus_) {
    paula_.attachFloppy(&floppy_);
    guestApi_.setMemoryReader([this](std::uint32_t a) { return spyByte(a); });
    guestApi_.setMemoryWriter([this](std::uint32_t a, std::uint8_t v) { pokeByte(a, v); });
    floppy_.drive(0).setConnected(true);
    agnus_.setListener(this);
    agnus_.setFrameStats(&frameStats_[0]);
    agnus_.setBlitTrace(&blitTrace_);
    std::fill(std::begin(map_), std::end(map_), Region::Unmapped);
    for (unsigned p = 0x00; p <= 0x1F; ++p) map_[p] = Region::Chip;
    for (unsigned p = 0xA0; p <= 0xBF; ++p) map_[p] = Region::Cia;
    for (unsigned p = 0xD8; p <= 0xDF; ++p) map_[p] = Region::Custom;
    for (unsigned p = 0xF8; p <= 0xFF; ++p) map_[p] = Region::Rom;
    applyConfig();
}

bool Machine::sameConfig(const Config& a, const Config& b) {
    return a.ntsc == b.ntsc && a.chipRamBytes == b.chipRamBytes && a.slowRamBytes == b.slowRamBytes &&
           a.fastRamBytes == b.fastRamBytes && a.uaelib == b.uaelib;
}

void Machine::applyConfig() {
    const Config& c = config_;
    // More than 512K of chip RAM needs the ECS Agnus, which drives more address lines.
    agnus_.configure({c.ntsc, c.chipRamBytes > (512u << 10)});
    // NTSC fields have 263 lines at most, and long lines of 228 colour clocks.
    denise_.setGeometry(c.ntsc ? 263 : Denise::kPalLines, c.ntsc ? 228 : Denise::kPalLineCck);
    guestApi_.setRam(c.chipRamBytes, c.slowRamBytes);
    floppy_.configure(c.ntsc);
    for (unsigned p = 0xC0; p < 0xD8; ++p) map_[p] = Region::Unmapped;
    for (unsigned p = 0; p < (c.slowRamBytes >> 16); ++p) map_[0xC0 + p] = Region::Slow;
    // The A501 card brings its clock with its RAM; without it $DC0000 mirrors the custom
    // registers, as the rest of $D80000-$DFFFFF does (AmigaOS tells the two apart so).
    map_[0xDC] = hasRtc() ? Region::Rtc : Region::Custom;
    rtc_.setCckPerSecond(std::uint32_t(c.ntsc ? kNtscCckHz : kPalCckHz));
    remapExpansion();
}

void Machine::reconfigure(const Config& config) {
    config_ = config;
    chip_.resize(config.chipRamBytes);
    slow_.assign(config.slowRamBytes, 0);
    fast_.assign(config.fastRamBytes, 0);
    zorro_ = ZorroBoard{};
    applyConfig();
}

Machine::Machine() : Machine(Config{}) {}

// ---- Zorro II fast RAM ---------------------------------------------------------------------
//
// One AutoConfig board (the Hardware Reference Manual's AutoConfig appendix): until it is
// given a base it answers in $E80000-$E8FFFF with its configuration, one register byte per
// four addresses, its high nibble in D15-D12 of the word at the register's address and its
// low nibble at the address + 2, every register but er_Type ones' complemented. The ROM's
// expansion code writes A19-A16 of the base to $4A, then A23-A20 to $48, which configures
// it; a write to $4C shuts it up (it stays off the bus).

namespace {

// er_Type's size code for a Zorro II board of `bytes` (8M is 0).
std::uint8_t zorroSizeCode(std::uint32_t bytes) {
    switch (bytes) {
    case 64u << 10: return 1;
    case 128u << 10: return 2;
    case 256u << 10: return 3;
    case 512u << 10: return 4;
    case 1u << 20: return 5;
    case 2u << 20: return 6;
    case 4u << 20: return 7;
    default: return 0; // 8M
    }
}

constexpr std::uint16_t kZorroManufacturer = 2011; // the number set aside for experimenters
constexpr std::uint8_t kZorroProduct = 1;
constexpr std::uint32_t kZorroSerial = 0x434C4652; // "CLFR"

} // namespace

static bool validZorroBase(std::uint32_t base, std::uint32_t size) {
    if (base & 0xFFFF) return false;
    return (base >= 0x200000 && base + size <= 0xA00000) || (base >= 0xE90000 && base + size <= 0xF00000);
}

bool Machine::validFastRamSize(std::uint32_t bytes) {
    return bytes == 0 || (bytes >= (64u << 10) && bytes <= (8u << 20) && (bytes & (bytes - 1)) == 0);
}

void Machine::remapExpansion() {
    for (unsigned p = 0x20; p <= 0x9F; ++p) map_[p] = Region::Unmapped;
    for (unsigned p = 0xE8; p <= 0xEF; ++p) map_[p] = Region::Unmapped;
    guestApi_.setFastRam(zorro_.configured ? zorro_.base : 0, zorro_.configured ? std::uint32_t(fast_.size()) : 0);
    if (fast_.empty()) return;
    if (zorro_.configured) {
        const unsigned first = zorro_.base >> 16, pages = unsigned(fast_.size() >> 16);
        for (unsigned p = first; p < first + pages; ++p) map_[p] = Region::Fast;
    } else if (!zorro_.shutUp) {
        map_[0xE8] = Region::Autoconfig;
    }
}

std::uint16_t Machine::autoconfigWord(std::uint32_t a) const {
    const unsigned offset = a & 0x7E, reg = offset & ~3u;
    std::uint8_t b = 0;
    switch (reg) {
    case 0x00: b = std::uint8_t(0xC0 | 0x20 | zorroSizeCode(std::uint32_t(fast_.size()))); break; // Zorro II, to the free list
    case 0x04: b = kZorroProduct; break;
    case 0x08: b = 0x80; break; // er_Flags: ERFF_MEMSPACE, for the 8 MB memory space
    case 0x10: b = std::uint8_t(kZorroManufacturer >> 8); break;
    case 0x14: b = std::uint8_t(kZorroManufacturer); break;
    case 0x18: b = std::uint8_t(kZorroSerial >> 24); break;
    case 0x1C: b = std::uint8_t(kZorroSerial >> 16); break;
    case 0x20: b = std::uint8_t(kZorroSerial >> 8); break;
    case 0x24: b = std::uint8_t(kZorroSerial); break;
    default: break;
    }
    std::uint8_t nibble = (offset & 2) ? (b & 0xF) : (b >> 4);
    if (reg != 0x00 && reg < 0x40) nibble ^= 0xF;
    return std::uint16_t(nibble << 12 | 0x0FFF);
}

void Machine::autoconfigWrite(std::uint32_t a, std::uint8_t v) {
    switch (a & 0x7E) {
    case 0x4A: zorro_.lowNibble = v >> 4; break;
    case 0x48:
        zorro_.base = std::uint32_t(v >> 4) << 20 | std::uint32_t(zorro_.lowNibble) << 16;
        // A Zorro II board lies in the 8 MB space ($200000-$9FFFFF) or, under 512K, in
        // $E90000-$EFFFFF (where AROS puts small boards); elsewhere it stays unconfigured.
        if (validZorroBase(zorro_.base, std::uint32_t(fast_.size()))) zorro_.configured = true;
        remapExpansion();
        break;
    case 0x4C:
        zorro_.shutUp = true;
        remapExpansion();
        break;
    default: break;
    }
}

Machine::~Machine() = default;

namespace {
std::uint64_t fnv1a(const std::vector<std::uint8_t>& rom) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (auto b : rom) h = (h ^ b) * 0x100000001B3ull;
    return h;
}
} // namespace

void Machine::setRom(const RomImage& rom) {
    rom_ = rom.bytes;
    romHash_ = fnv1a(rom_);
}

void Machine::setExtRom(const RomImage& rom) {
    extRom_ = rom.bytes;
    extRomHash_ = fnv1a(extRom_);
    for (unsigned p = 0xE0; p <= 0xE7; ++p) map_[p] = Region::ExtRom;
}

double Machine::emulatedSeconds() const {
    return double(cpu_.cycles()) / (config_.ntsc ? kNtscCpuHz : kPalCpuHz);
}

void Machine::coldStart() {
    // Byte values, so that each is one memset.
    std::fill(chip_.data(), chip_.data() + chip_.size(), std::uint8_t{0});
    std::fill(slow_.begin(), slow_.end(), std::uint8_t{0});
    std::fill(fast_.begin(), fast_.end(), std::uint8_t{0});
    zorro_ = ZorroBoard{};
    remapExpansion();
    agnus_.reset();
    blitter_.powerOn();
    cpu_.setCycles(0);
    ciaA_.powerOn();
    ciaB_.powerOn();
    lastIpl_ = 0;
    lastIplAt_ = 0;
    floppy_.powerOn();
    guestApi_.reset();
    keyboard_.reset(0);
    rtc_.powerOn(config_.rtcTime, agnus_.cck());
    rtc_.setFrozen(config_.rtcFrozen, agnus_.cck());
    statsFrameEnded_ = false;
    beginFrameStats(agnus_.frame(), agnus_.cck(), true);
}

void Machine::powerOn() {
    // Build the new machine and take its state: only that makes sure nothing survives
    // from before (registers, counters, the latches no reset line clears), now and as the
    // chips gain state. A machine that never ran gets the same state either way.
    Machine fresh(config_);
    std::copy(std::begin(map_), std::end(map_), std::begin(fresh.map_));
    bool modified[FloppyController::kDrives] = {};
    for (unsigned n = 0; n < FloppyController::kDrives; ++n) {
        FloppyDrive& d = floppy_.drive(n);
        d.flush(); // the guest's last writes belong to the disk that goes into the new machine
        fresh.connectDrive(n, d.connected());
        if (d.hasDisk()) fresh.insertDisk(n, d.disk());
        modified[n] = d.hasDisk() && d.modified();
    }
    std::vector<std::uint8_t> snapshot;
    {
        // The ROMs are lent to the new machine for its reset (not copied: half a megabyte
        // each), and taken back whatever happens.
        struct Lent {
            std::vector<std::uint8_t>& ours;
            std::vector<std::uint8_t>& theirs;
            ~Lent() { ours = std::move(theirs); }
        };
        fresh.rom_ = std::move(rom_);
        const Lent rom{rom_, fresh.rom_};
        fresh.extRom_ = std::move(extRom_);
        const Lent extRom{extRom_, fresh.extRom_};
        fresh.romHash_ = romHash_;
        fresh.extRomHash_ = extRomHash_;
        fresh.coldStart();
        fresh.reset();
        snapshot = fresh.saveSnapshot(fresh.snapshotBuffer());
    }
    loadSnapshot(snapshot);
    for (unsigned n = 0; n < FloppyController::kDrives; ++n)
        floppy_.drive(n).setModified(modified[n]);
    // The outputs of a new machine too: no picture, no frame accounted yet, and the first
    // frame's accounting from its first clock, before the CPU's reset.
    fields_[0] = fields_[1] = VideoField{};
    lastFieldIndex_ = 0;
    frameStats_[0] = fresh.frameStats_[0];
    frameStats_[1] = fresh.frameStats_[1];
    frameStats_[2] = fresh.frameStats_[2];
    statsDeniedAtStart_ = agnus_.cpuDeniedTotal();
    blitTrace_.clear();
    agnus_.setCommitted(0, std::vector<std::uint8_t>(agnus_.committedOwners().size(), 0), {});
}

void Machine::resetLine() {
    // The RESET line reaches the CIAs and the custom chips' control registers; the beam
    // keeps running.
    ciaA_.reset();
    ciaB_.reset();
    paula_.reset();
    denise_.reset();
    blitter_.reset();
    copper_.reset();
    floppy_.reset();
    agnus_.writeCustom(reg::DMACON, 0x7FFF);
    agnus_.writeCustom(reg::BPLCON0, 0);
    ciaA_.advanceTo(cpu_.cycles());
    ciaB_.advanceTo(cpu_.cycles());
    updateDriveLines();
    // AutoConfig boards go back to $E80000 (their memory keeps its contents).
    zorro_ = ZorroBoard{};
    remapExpansion();
}

// ---- floppy drives -----------------------------------------------------------------------

void Machine::updateDriveLines() {
    if (floppy_.setControlLines(ciaB_.portBPins(), agnus_.cck())) ciaB_.flagPulse();
    // PA7/PA6 are the fire buttons (low while pressed), PA1/PA0 outputs; PA5-PA2 the drives.
    const std::uint8_t fire = std::uint8_t((portButtons_ & 0x01 ? 0x40 : 0) | (portButtons_ & 0x10 ? 0x80 : 0));
    ciaA_.setPortAInput(std::uint8_t((0xC3 & ~fire) | (floppy_.statusPins() & 0x3C)));
}

// ---- game ports ------------------------------------------------------------------------

namespace {
// POTGOR's pins (Paula::setPotInputs): port 0 right DATLY (pin 1), middle DATLX (pin 0);
// port 1 right DATRY (pin 3), middle DATRX (pin 2).
std::uint8_t potPins(std::uint8_t buttons) {
    return std::uint8_t((buttons & 0x02 ? 0x2 : 0) | (buttons & 0x04 ? 0x1 : 0) | (buttons & 0x20 ? 0x8 : 0) |
                        (buttons & 0x40 ? 0x4 : 0));
}
} // namespace

void Machine::setPortButtons(unsigned port, bool left, bool right, bool middle) {
    const unsigned shift = (port & 1) * 4;
    portButtons_ = std::uint8_t((portButtons_ & ~(0x7u << shift)) |
                                ((left ? 1u : 0u) | (right ? 2u : 0u) | (middle ? 4u : 0u)) << shift);
    paula_.setPotInputs(potPins(portButtons_));
    updateDriveLines();
}

void Machine::setJoystick(unsigned port, bool up, bool down, bool left, bool right) {
    const unsigned r = right, l = left;
    denise_.setJoyData(port, std::uint16_t(r << 1 | (unsigned(down) ^ r) | l << 9 | (unsigned(up) ^ l) << 8));
}

void Machine::connectDrive(unsigned n, bool on) {
    floppy_.drive(n).setConnected(on);
    updateDriveLines();
}

void Machine::insertDisk(unsigned n, AdfImage image) {
    floppy_.drive(n).insert(std::move(image));
    updateDriveLines();
}

void Machine::ejectDisk(unsigned n) {
    floppy_.drive(n).eject();
    updateDriveLines();
}

void Machine::reset() {
    resetLine();
    cpu_.reset();
}

void Machine::bootBareMetal(std::span<const std::uint8_t> program, std::uint32_t loadAddress, std::uint32_t stack) {
    coldStart();
    resetLine();
    ciaA_.poke(Cia::PRA, 0x00);
    ciaA_.poke(Cia::DDRA, 0x03);  // PA0 (OVL) and PA1 (LED) outputs, both low
    for (std::size_t i = 0; i < program.size(); ++i) chip_.writeByte(std::uint32_t(loadAddress + i), program[i]);
    const std::uint32_t vectors[2] = {stack, loadAddress};
    for (unsigned v = 0; v < 2; ++v)
        for (unsigned b = 0; b < 4; ++b) chip_.writeByte(4 * v + b, std::uint8_t(vectors[v] >> (24 - 8 * b)));
    cpu_.reset();
}

// ---- time ------------------------------------------------------------------------------

[[gnu::always_inline]] inline void Machine::syncCias(MasterClock t) {
    waitBound_ = 0;
    ciaA_.advanceTo(t);
    ciaB_.advanceTo(t);
    const bool a = ciaA_.irq(), b = ciaB_.irq();
    // A line that falls now: the slot records' CIA interrupt event.
    const std::uint32_t falls = (a && !paula_.ciaALine() ? slot_event::CiaAIrq : 0u) |
                                (b && !paula_.ciaBLine() ? slot_event::CiaBIrq : 0u);
    if (falls) [[unlikely]]
        agnus_.noteEvent(falls);
    paula_.setCiaLines(a, b, agnus_.cck());
}

inline void Machine::updateIpl() {
    if (paula_.ipl() != lastIpl_ || paula_.iplChangedAt() != lastIplAt_) {
        lastIpl_ = paula_.ipl();
        lastIplAt_ = paula_.iplChangedAt();
        cpu_.setIpl(lastIpl_, lastIplAt_ * kCyclesPerCck);
    }
}

inline void Machine::syncTo(MasterClock t) {
    agnus_.runTo(t / kCyclesPerCck);
    syncCias(t);
    updateIpl();
}

inline bool Machine::syncCanWait(MasterClock t) {
    // Agnus has only clocks that raise no interrupt to run up to t (Agnus::quietUntil):
    // the next catch-up runs them the same, and the CPU's interrupt level cannot change
    // meanwhile. Neither CIA can change before t (quietUntil) or asks for an interrupt, and
    // Paula holds both lines inactive already. While none of that moves, the answer for a
    // later t is a comparison with the bound it gives (waitBound_).
    if (t < waitBound_) return true;
    if (!(t / kCyclesPerCck <= agnus_.quietUntil() && t < ciaA_.quietUntil() && t < ciaB_.quietUntil() &&
          !ciaA_.irq() && !ciaB_.irq() && paula_.ciaLinesIdle()))
        return false;
    waitBound_ = std::min({(agnus_.quietUntil() + 1) * kCyclesPerCck, ciaA_.quietUntil(), ciaB_.quietUntil()});
    return true;
}

inline std::uint16_t Machine::romWord(std::uint32_t a, Region r) const {
    // Both ROMs start on a 512K boundary and mirror within it; no ROM reads as $FFFF.
    const std::vector<std::uint8_t>& rom = r == Region::Rom ? rom_ : extRom_;
    const std::uint32_t o = a & 0x7FFFE;
    return rom.empty() ? 0xFFFF : std::uint16_t(rom[o] << 8 | rom[o + 1]);
}

inline void Machine::syncOffBus(MasterClock t) {
    if (!syncsMayWait_ || !syncCanWait(t)) syncTo(t);
}

unsigned CpuBus::access(m68k::BusCycle& c) {
    // A read of a ROM, the most common access while the ROM's code runs: no wait, nothing
    // on the chip bus, the catch-up as syncOffBus has it (Machine::cpuAccess in full).
    Machine& m = *machine;
    if (c.op == m68k::BusOp::Read && !m.accessObserver_ && !m.accessProbe_) {
        const Machine::Region r = m.region(c.address);
        if (r == Machine::Region::Rom || r == Machine::Region::ExtRom) {
            m.syncOffBus(c.cycle);
            c.data = m.romWord(c.address, r);
            return 0;
        }
    }
    return m.cpuAccess(c);
}

namespace {
// What a step of the CPU was, for the per-frame accounting.
enum StepKind : unsigned { StepInstruction = 0, StepIrq = 1, StepStopped = 2 };

// A step's cycles in a frame's counters: the waits, and the rest by the step's kind.
void addStep(FrameStats& f, unsigned kind, std::uint64_t span, std::uint64_t waits) {
    f.cpuWaitCycles += waits;
    const std::uint64_t rest = span - waits;
    if (kind == StepInstruction) f.cpuInstructionCycles += rest;
    else if (kind == StepIrq) f.cpuIrqCycles += rest;
    else f.cpuStoppedCycles += rest;
}
} // namespace

inline unsigned Machine::stepStoppedClock() {
    // Nothing runs on the CPU: let the chipset move a colour clock at a time until an
    // interrupt can wake it.
    return stoppedClockTo((agnus_.cck() + 1) * kCyclesPerCck);
}

inline unsigned Machine::stoppedClockTo(MasterClock next) {
    const bool wasStopped = cpu_.stopped();
    syncTo(next);
    cpu_.runUntil(std::max<MasterClock>(next, cpu_.cycles()));
    // A step that woke the CPU is its interrupt entry: the core takes the interrupt in
    // the same step that sees it, with no STOP clocks before it.
    return wasStopped && !cpu_.stopped() && !cpu_.halted() ? StepIrq : StepStopped;
}

void Machine::stepInstruction() { step<true>(); }

template <bool Whole>
inline void Machine::step() {
    const MasterClock t0 = cpu_.cycles();
    const std::uint64_t denied0 = agnus_.cpuDeniedTotal();
    // At an instruction boundary the opcode came from pc - 4 (m68k_types.h, Registers).
    const std::uint32_t pc = (cpu_.pc() - 4) & 0xFFFFFF;
    if (stepObserver_ && !muted_) [[unlikely]]
        stepObserver_->stepStarting(CpuStepStart{pc, cpu_.a(5), cpu_.a(7), cpu_.sr(), cpu_.ird(),
                                                 cpu_.stopped() || cpu_.halted()});
    // (nextMoment_ is kNever without a moment observer: the sum never reaches it.)
    if (t0 + CpuMomentObserver::kMomentLead >= nextMoment_ && !muted_) [[unlikely]] {
        momentStart_ = CpuStepStart{pc, cpu_.a(5), cpu_.a(7), cpu_.sr(), cpu_.ird(),
                                    cpu_.stopped() || cpu_.halted()};
        momentStartAt_ = t0;
    }
    unsigned kind;
    // With slot records, the CPU's interrupt mask as the step starts (a capture's first
    // step, a loaded state) and as it ends.
    if (agnus_.recordingSlots()) [[unlikely]]
        agnus_.noteCpuMask(std::uint8_t(cpu_.interruptMask()));
    if (cpu_.stopped() || cpu_.halted()) {
        kind = stepStoppedClock();
        if (kind == StepIrq && agnus_.recordingSlots()) [[unlikely]]
            agnus_.noteEvent(slot_event::CpuIrq); // (the clock that woke it)
    } else {
        kind = cpu_.interruptNext() ? StepIrq : StepInstruction;
        if (kind == StepIrq && agnus_.recordingSlots()) [[unlikely]] {
            if constexpr (!Whole) syncTo(t0); // the clock the interrupt's processing starts in
            agnus_.noteEvent(slot_event::CpuIrq);
        }
        if ((cpu_.pc() & 0xFFFFFF) == uaelib::kEntry + 4 && !cpu_.exceptionPending() &&
            config_.uaelib) [[unlikely]] {
            if constexpr (!Whole) syncTo(t0); // the call reads the beam
            uaelibCall();
        }
        // Between two steps the machine is whole (caught up to the CPU) for whoever looks;
        // inside runFrame and runUntil nobody does, unless an observer is told of the step
        // or of a frame it ended. Only there may a catch-up wait for the next one.
        {
            struct MayWait {
                bool& flag;
                ~MayWait() { flag = false; }
            } mayWait{syncsMayWait_};
            syncsMayWait_ = !Whole;
            cpu_.step();
        }
        if (Whole || stepObserver_ || momentObserver_ || statsFrameEnded_ || !syncCanWait(cpu_.cycles()))
            syncTo(cpu_.cycles());
    }
    if (agnus_.recordingSlots()) [[unlikely]]
        agnus_.noteCpuMask(std::uint8_t(cpu_.interruptMask()));
    if (!stepObserver_ && !momentObserver_ && !statsFrameEnded_) [[likely]] {
        // accountStep with nobody to tell and no frame ended in the step.
        addStep(frameStats_[0], kind, cpu_.cycles() - t0, kCyclesPerCck * (agnus_.cpuDeniedTotal() - denied0));
        return;
    }
    accountStep(t0, denied0, kind, pc);
}

// ---- per-frame accounting (frame_stats.h) -------------------------------------------------

void Machine::beginFrameStats(std::uint64_t frame, std::uint64_t firstCck, bool partial) {
    FrameStats& f = frameStats_[0];
    f.frame = frame;
    f.firstCck = firstCck;
    f.lengthCck = 0;
    f.lines = 0;
    f.lineCck = agnus_.lineLength();
    f.partial = partial;
    f.cpuInstructionCycles = f.cpuWaitCycles = f.cpuIrqCycles = f.cpuStoppedCycles = 0;
    f.cpuWaitByOwner.fill(0);
    f.cpuWaitByKind.fill(0);
    f.stallPcs.clear();
    f.cpuWaitGrid.assign(std::size_t(Agnus::kMaxLineCck) * Agnus::kMaxLines, 0);
    f.blits.clear();
    f.customAtStart = agnus_.writtenValues();
    f.customWrittenAtStart = agnus_.writtenBits();
    statsDeniedAtStart_ = agnus_.cpuDeniedTotal();
}

void Machine::accountStep(MasterClock t0, std::uint64_t denied0, unsigned kind, std::uint32_t pc) {
    const auto add = [kind](FrameStats& f, std::uint64_t span, std::uint64_t waits) { addStep(f, kind, span, waits); };
    const MasterClock t1 = cpu_.cycles();
    const std::uint64_t denied1 = agnus_.cpuDeniedTotal();
    CpuStep step;
    if (kind == StepIrq && momentObserver_ && !muted_) [[unlikely]]
        momentObserver_->interruptEntered(cpu_.lastInterruptLevel(), cpu_.a(7));
    const bool moment = t1 > nextMoment_ && !muted_;
    if ((stepObserver_ || moment) && !muted_) [[unlikely]] {
        step.kind = kind == StepInstruction ? CpuStep::Kind::Instruction
                    : kind == StepIrq       ? CpuStep::Kind::Interrupt
                                            : CpuStep::Kind::Stopped;
        step.pc = pc;
        step.start = t0;
        step.end = t1;
        step.waitCycles = kCyclesPerCck * (denied1 - denied0);
        if (kind == StepIrq) {
            step.irqLevel = std::uint8_t(cpu_.lastInterruptLevel());
            step.irqVector = std::uint8_t(cpu_.lastInterruptVector());
        }
    }
    if (!statsFrameEnded_) {
        add(frameStats_[0], t1 - t0, kCyclesPerCck * (denied1 - denied0));
        if (stepObserver_ && !muted_) [[unlikely]]
            stepObserver_->stepDone(step);
        if (moment) [[unlikely]]
            tellMoment(step, t0);
        return;
    }
    // A frame ended inside this step: the part before its last clock belongs to it. The
    // boundary lies inside the step (the CPU never trails Agnus at a step's start, and
    // Agnus never passes the CPU's clock by more than the step).
    statsFrameEnded_ = false;
    FrameStats& done = frameStats_[1];
    const MasterClock boundary = std::clamp<MasterClock>((done.firstCck + done.lengthCck) * kCyclesPerCck, t0, t1);
    add(done, boundary - t0, kCyclesPerCck * (statsBoundaryDenied_ - denied0));
    add(frameStats_[0], t1 - boundary, kCyclesPerCck * (denied1 - statsBoundaryDenied_));
    if (stepObserver_ && !muted_) [[unlikely]] {
        step.boundary = boundary;
        step.waitCyclesBeforeBoundary = kCyclesPerCck * (statsBoundaryDenied_ - denied0);
        stepObserver_->stepDone(step);
    }
    if (moment) [[unlikely]] {
        step.boundary = boundary;
        step.waitCyclesBeforeBoundary = kCyclesPerCck * (statsBoundaryDenied_ - denied0);
        tellMoment(step, t0);
    }
    if (muted_ || frameObservers_.empty()) return;
    // A copy: an observer may detach itself when told (a capture that reached its budget).
    const std::vector<FrameObserver*> observers = frameObservers_;
    for (FrameObserver* o : observers) o->frameCompleted(done);
}

void Machine::tellMoment(const CpuStep& step, MasterClock t0) {
    const bool known = momentStartAt_ == t0;
    if (!known)
        momentStart_ = CpuStepStart{step.pc, cpu_.a(5), cpu_.a(7), cpu_.sr(), cpu_.ird(),
                                    cpu_.stopped() || cpu_.halted()};
    nextMoment_ = momentObserver_->momentReached(momentStart_, known, step);
}

void Machine::attachFrameObserver(FrameObserver* observer) {
    if (std::find(frameObservers_.begin(), frameObservers_.end(), observer) == frameObservers_.end())
        frameObservers_.push_back(observer);
}

void Machine::detachFrameObserver(FrameObserver* observer) {
    frameObservers_.erase(std::remove(frameObservers_.begin(), frameObservers_.end(), observer),
                          frameObservers_.end());
}

void Machine::setObserversMuted(bool muted) {
    if (muted == muted_) return;
    muted_ = muted;
    if (muted) cpu_.setObserver(nullptr, 0);
    else cpu_.setObserver(cpuObservers_.empty() ? nullptr : &cpuObservers_, cpuObservers_.hooks());
}

void Machine::uaelibCall() {
    auto r = cpu_.registers();
    r.d[0] = guestApi_.uaelibCall(r.a[7], agnus_.cck(), agnus_.frame());
    cpu_.setRegisters(r);
}

void Machine::runFrame() {
    const std::uint64_t target = agnus_.frame() + 1;
    waitBound_ = 0;
    while (agnus_.frame() < target) {
        if (cpu_.stopped()) [[unlikely]]
            runStoppedSteps(CpuMomentObserver::kNever, target - 1);
        if (agnus_.frame() < target) step<false>();
    }
    syncTo(cpu_.cycles());
}

void Machine::runUntil(MasterClock until) {
    waitBound_ = 0;
    while (cpu_.cycles() < until) {
        if (cpu_.stopped()) [[unlikely]]
            runStoppedSteps(until, agnus_.frame());
        if (cpu_.cycles() < until) step<false>();
    }
    syncTo(cpu_.cycles());
}

std::uint64_t Machine::sleepEnd(MasterClock t0, MasterClock until) const {
    // Each stopped clock c (CPU cycles kCyclesPerCck * c up to the next clock's) syncs the
    // CIAs and the interrupt level at its end. A run of them changes nothing but the
    // clocks while: the CPU sleeps
    // through every level it can see (asleep), no CIA can change before the clock's end
    // (quietUntil), the line does not end (the line's last clock pulses the TOD counters,
    // the keyboard and the drives' index and may end a frame), and no step of them
    // reaches `until` or the next moment. Returns the first clock after the run, or 0.
    const std::uint64_t c0 = agnus_.cck();
    if (!cpu_.asleep() || t0 != c0 * kCyclesPerCck) return 0;
    std::uint64_t end = c0 + (agnus_.lineLength() - 1 - agnus_.hpos());
    for (const Cia* cia : {&ciaA_, &ciaB_}) {
        const MasterClock w = cia->quietUntil();
        if (w == 0) return 0;
        end = std::min<std::uint64_t>(end, (w - 1) / kCyclesPerCck + 1);
    }
    end = std::min<std::uint64_t>(end, (until - 1) / kCyclesPerCck + 1);
    if (nextMoment_ != CpuMomentObserver::kNever)
        end = std::min<std::uint64_t>(
            {end, (nextMoment_ - CpuMomentObserver::kMomentLead - 1) / kCyclesPerCck + 1,
             nextMoment_ / kCyclesPerCck});
    return end;
}

void Machine::stepStopped(MasterClock until) {
    const MasterClock t0 = cpu_.cycles();
    if (cpu_.stopped()) runStoppedSteps(until, agnus_.frame());
    if (cpu_.cycles() == t0) stepInstruction();
}

void Machine::runStoppedSteps(MasterClock until, std::uint64_t frame) {
    // What stepInstruction does for a step of STOP, and what accountStep makes of it when
    // no observer is told of steps and no frame ends in it: the clocks are stopped clocks.
    while (cpu_.stopped() && !cpu_.halted() && !stepObserver_ && agnus_.frame() == frame) {
        MasterClock t0 = cpu_.cycles();
        if (t0 >= until || t0 + CpuMomentObserver::kMomentLead >= nextMoment_) return;
        const std::uint64_t denied0 = agnus_.cpuDeniedTotal();
        const std::uint32_t pc = (cpu_.pc() - 4) & 0xFFFFFF;
        unsigned kind;
        if (const std::uint64_t end = sleepEnd(t0, until); end > agnus_.cck() + 1) {
            // The chipset runs on alone; only the clock that changed an interrupt request
            // (or the stretch's last) is taken as a step of its own.
            agnus_.runToInterruptChange(end);
            const MasterClock last = (agnus_.cck() - 1) * kCyclesPerCck;
            if (last > t0) {
                cpu_.runUntil(last);
                addStep(frameStats_[0], StepStopped, last - t0, 0);
                t0 = last;
            }
            kind = stoppedClockTo(agnus_.cck() * kCyclesPerCck);
        } else {
            kind = stepStoppedClock();
        }
        const MasterClock t1 = cpu_.cycles();
        if (kind != StepStopped || statsFrameEnded_ || t1 > nextMoment_) {
            // The step woke the CPU (its interrupt entry), ended a frame or reached a
            // moment: the whole bookkeeping.
            accountStep(t0, denied0, kind, pc);
            return;
        }
        addStep(frameStats_[0], kind, t1 - t0, kCyclesPerCck * (agnus_.cpuDeniedTotal() - denied0));
    }
}

void Machine::hsync(std::uint64_t cck) {
    ciaB_.todPulse();
    keyboard_.update(cck, ciaA_);
    // The selected drive's index pulse reaches CIA-B's /FLAG (HRM appendix E), and its
    // status lines move with time too (/RDY once the motor is at speed).
    updateDriveLines();
}
void Machine::vsync(std::uint64_t) { ciaA_.todPulse(); }
void Machine::frameCommitted(std::uint64_t frame) {
    // Keep the finished field before Denise starts drawing over it.
    const unsigned index = denise_.longFrame() ? 0 : 1;
    VideoField& f = fields_[index];
    f.width = denise_.width();
    f.lines = agnus_.committedLines();
    f.longFrame = denise_.longFrame();
    f.interlaced = denise_.interlaced();
    f.frame = frame;
    // Denise hands over the buffer she drew in and draws the next field in the one this
    // field held; rows past her height, if any, are black.
    denise_.exchangePicture(f.pixels, f.lines);
    if (f.lines > denise_.height()) f.pixels.resize(std::size_t(f.width) * f.lines, 0xFF000000u);
    lastFieldIndex_ = index;
    // Close the frame's accounting (its CPU counters are completed at the end of the step
    // in progress, accountStep) and open the next frame's.
    {
        FrameStats& stats = frameStats_[0];
        stats.lengthCck = std::uint32_t(agnus_.cck() - stats.firstCck);
        stats.lines = agnus_.committedLines();
        std::sort(stats.stallPcs.begin(), stats.stallPcs.end(),
                  [](const StallPc& x, const StallPc& y) {
                      return x.waitCck != y.waitCck ? x.waitCck > y.waitCck : x.pc < y.pc;
                  });
        // The last completed frame's becomes the one before; that one's buffers the next
        // frame's (beginFrameStats clears them).
        std::swap(frameStats_[1], frameStats_[2]);
        std::swap(frameStats_[0], frameStats_[1]);
        if (statsHistoryGap_) {
            statsHistoryGap_ = false;
            frameStats_[2].lines = 0; // not this timeline's frame before: unknown
        }
        statsBoundaryDenied_ = agnus_.cpuDeniedTotal();
        statsFrameEnded_ = true;
        beginFrameStats(agnus_.frame() + 1, agnus_.cck(), false);
    }
    guestApi_.frameCommitted(frame, agnus_.cck());
    if (onFrame_) onFrame_(frame);
}

// ---- the CPU's bus -------------------------------------------------------------------------

std::uint16_t Machine::readMemoryWord(std::uint32_t a, Region r) const {
    a &= 0xFFFFFE;
    switch (r) {
    case Region::Chip:
        if (overlay() && a < 0x80000)
            return rom_.empty() ? 0xFFFF : std::uint16_t(rom_[a] << 8 | rom_[a + 1]);
        return chip_.readWord(a);
    case Region::Slow: {
        const std::uint32_t o = (a - 0xC00000) % std::uint32_t(slow_.size());
        return std::uint16_t(slow_[o] << 8 | slow_[o + 1]);
    }
    case Region::Rom:
    case Region::ExtRom: return romWord(a, r);
    case Region::Fast: {
        const std::uint32_t o = a - zorro_.base;
        return std::uint16_t(fast_[o] << 8 | fast_[o + 1]);
    }
    case Region::Autoconfig: return autoconfigWord(a);
    default: return 0xFFFF;
    }
}

unsigned Machine::cpuAccess(m68k::BusCycle& c) {
    const MasterClock t = c.cycle;
    const std::uint32_t a = c.address & 0xFFFFFF;
    const bool write = c.op == m68k::BusOp::Write;

    if (c.op == m68k::BusOp::InterruptAcknowledge) {
        // Nothing on the A500 asserts VPA for an acknowledge: the 68000 reads the vector
        // number from $FFFFF0 + 2 x level as an ordinary 4-clock cycle and the ROM answers
        // it like any read (WinUAE newcpu.cpp iack_cycle; vAmiga/Moira: 4 clocks). The
        // ROM's last words are the autovector numbers ($0018-$001F in Kickstart, AROS has
        // $0018-$001E). A machine with no ROM (the bare-metal harness) answers as that
        // tail would.
        syncTo(t);
        c.data = rom_.empty() ? std::uint16_t(0x18 + ((a >> 1) & 7))
                              : std::uint16_t(readMemoryWord(a, Region::Rom) & 0xFF);
        return 0;
    }

    if (accessObserver_ || accessProbe_) [[unlikely]] {
        if (accessObserver_ && !muted_) accessObserver_->cpuAccess(c);
        if (accessProbe_) accessProbe_->cpuAccess(c);
    }
    const Region r = region(a);
    switch (r) {
    case Region::Chip:
    case Region::Slow:
    case Region::Custom:
    case Region::Rtc: {
        // The access waits for a colour clock Agnus gives the CPU (the clock chip too: it
        // sits on the chip bus's side of the A501's buffers, WinUAE memory.cpp
        // fill_ce_banks gives $D00000-$DFFFFF the chip bus's timing).
        const std::uint64_t at = (t + 1) / kCyclesPerCck;
        // What a denied clock is charged to: the access's kind and the instruction running.
        const CpuAccessKind kind = (write || c.op == m68k::BusOp::TestAndSet) ? CpuAccessKind::Write
                                   : (c.fc == m68k::FunctionCode::UserProgram ||
                                      c.fc == m68k::FunctionCode::SupervisorProgram)
                                       ? CpuAccessKind::Fetch
                                       : CpuAccessKind::Read;
        if (agnus_.recordingSlots())
            agnus_.noteCpuAccess(a, write, c.data, (c.upper && c.lower) ? 2 : 1, r == Region::Custom ? int(a & 0x1FE) : -1,
                                 kind == CpuAccessKind::Fetch);
        const std::uint64_t granted = agnus_.cpuAcquire(at, kind, cpu_.executingAddress());
        syncCias(granted * kCyclesPerCck);
        const unsigned waits = unsigned(granted * kCyclesPerCck - t);
        if (r == Region::Custom) {
            if (write) {
                // Custom registers take words; a byte write puts the byte on both halves.
                const std::uint16_t v = (c.upper && c.lower)
                                            ? c.data
                                            : std::uint16_t((c.upper ? c.data >> 8 : c.data & 0xFF) * 0x0101);
                agnus_.writeCustom(std::uint16_t(a & 0x1FE), v);
            } else {
                c.data = agnus_.readCustom(std::uint16_t(a & 0x1FE));
            }
        } else if (r == Region::Rtc) {
            // Four data lines on the low byte: the odd addresses of each longword.
            if (write) {
                if (c.lower) rtc_.write((a >> 2) & 15, std::uint8_t(c.data), granted);
            } else {
                c.data = rtc_.read((a >> 2) & 15, granted); // the upper byte's lines float: 0
            }
        } else if (c.op == m68k::BusOp::TestAndSet) {
            // The read-modify-write: Agnus holds the slot, the byte is read and written.
            std::uint8_t* p = r == Region::Chip ? chip_.data() + (a & chip_.mask())
                                                : slow_.data() + ((a - 0xC00000) % slow_.size());
            c.data = std::uint16_t(*p << ((a & 1) ? 0 : 8));
            *p |= 0x80;
            agnus_.amendCpuWrite(std::uint16_t(*p * 0x0101)); // so a slot replay sees the write
        } else if (write) {
            std::uint8_t* p = r == Region::Chip ? chip_.data() + (a & chip_.mask() & ~1u)
                                                : slow_.data() + ((a - 0xC00000) % slow_.size() & ~std::size_t(1));
            if (c.upper) p[0] = std::uint8_t(c.data >> 8);
            if (c.lower) p[1] = std::uint8_t(c.data);
        } else {
            // (Chip RAM without the overlay, the most common read, as readMemoryWord reads it.)
            c.data = r == Region::Chip && !overlay() ? chip_.readWord(a) : readMemoryWord(a, r);
        }
        updateIpl();
        return waits;
    }
    case Region::Cia: {
        // VPA cycle: the transfer waits for the next E-clock period and takes all of it
        // (10 clocks), so an access costs 10 to 19 clocks by phase (ocs-timing-facts 5).
        syncTo(t);
        const MasterClock e = (t + kCyclesPerEClock - 1) / kCyclesPerEClock * kCyclesPerEClock;
        syncCias(e);
        const std::uint8_t regNo = (a >> 8) & 0xF;
        const bool selA = !(a & 0x1000), selB = !(a & 0x2000);
        if (write) {
            const std::uint8_t b = (c.upper && c.lower) ? std::uint8_t(c.data) : std::uint8_t(c.upper ? c.data >> 8 : c.data);
            const std::uint8_t hi = (c.upper && c.lower) ? std::uint8_t(c.data >> 8) : b;
            if (selA) ciaA_.poke(regNo, b);   // CIA-A sits on D7-D0
            if (selB) ciaB_.poke(regNo, hi);  // CIA-B on D15-D8
            updateDriveLines();
        } else {
            const std::uint8_t lo = selA ? ciaA_.peek(regNo) : 0xFF;
            const std::uint8_t hi = selB ? ciaB_.peek(regNo) : 0xFF;
            c.data = std::uint16_t(hi << 8 | lo);
        }
        if (agnus_.recordingSlots() && (selA || selB)) [[unlikely]]
            agnus_.noteCiaAccess(std::uint8_t((selA ? 1 : 0) | (selB ? 2 : 0)), regNo, write, c.data);
        syncCias(e);
        updateIpl();
        return unsigned(e + kCyclesPerEClock - t) - 4;
    }
    case Region::Fast: {
        // Off the chip bus: the CPU's own four-clock cycle, no wait.
        syncOffBus(t);
        std::uint8_t* p = fast_.data() + ((a - zorro_.base) & ~1u);
        if (c.op == m68k::BusOp::TestAndSet) {
            std::uint8_t& b = p[a & 1];
            c.data = std::uint16_t(b << ((a & 1) ? 0 : 8));
            b |= 0x80;
        } else if (write) {
            if (c.upper) p[0] = std::uint8_t(c.data >> 8);
            if (c.lower) p[1] = std::uint8_t(c.data);
        } else {
            c.data = std::uint16_t(p[0] << 8 | p[1]);
        }
        return 0;
    }
    case Region::Rom:
    case Region::ExtRom:
        // Off the chip bus: no wait; writes go nowhere.
        syncOffBus(t);
        if (!write) c.data = readMemoryWord(a, r);
        return 0;
    case Region::Autoconfig:
        syncTo(t);
        if (write) {
            if (c.upper) autoconfigWrite(a, std::uint8_t(c.data >> 8));
        } else {
            c.data = autoconfigWord(a);
        }
        return 0;
    default:
        syncTo(t);
        if (uaelib::decodes(a) && config_.uaelib) [[unlikely]] {
            // uaelib's entry (emu/uaelib.h): read-only, no wait, like other undecoded space.
            if (!write)
                c.data = uaelib::word(a, c.fc == m68k::FunctionCode::UserProgram ||
                                             c.fc == m68k::FunctionCode::SupervisorProgram);
            return 0;
        }
        if (GuestApi::decodes(a)) [[unlikely]] {
            // The host-call window (emu/guest_api.h): no wait, like other undecoded space.
            if (write) guestApi_.write(a, c.data, c.upper, c.lower, agnus_.cck(), agnus_.frame());
            else c.data = guestApi_.read(a);
            return 0;
        }
        if (!write) c.data = readMemoryWord(a, r);
        return 0;
    }
}

// ---- debugger access -------------------------------------------------------------------

std::vector<MemoryRegion> Machine::memoryMap() const {
    std::vector<MemoryRegion> out;
    const auto add = [&out](const char* name, std::uint32_t start, std::uint32_t end, const char* kind) {
        if (start < end) out.push_back({name, start, end, kind});
    };
    // The decoder works in 64 KiB pages (map_): each run of pages of one kind is a region,
    // with the parts that repeat another named as mirrors.
    for (unsigned p = 0; p < 256;) {
        const Region r = map_[p];
        unsigned q = p + 1;
        while (q < 256 && map_[q] == r) ++q;
        const std::uint32_t start = p << 16, end = q << 16;
        switch (r) {
        case Region::Chip: {
            // The fitted chip RAM, then its repeats up to $1FFFFF.
            const std::uint32_t fitted = std::min(end, start + config_.chipRamBytes);
            add("chip", start, fitted, "ram");
            add("chip mirror", fitted, end, "mirror");
            break;
        }
        case Region::Cia: add("cia", start, end, "io"); break;
        case Region::Slow: add("slow", start, end, "ram"); break;
        case Region::Custom:
            // The registers at $DFF000, repeated every 512 bytes through the area (a run
            // that stops short of $DFF000, below the clock, is mirror alone).
            if (end <= 0xDFF000) {
                add("custom mirror", start, end, "mirror");
                break;
            }
            add("custom mirror", start, 0xDFF000, "mirror");
            add("custom", 0xDFF000, 0xDFF200, "io");
            add("custom mirror", 0xDFF200, end, "mirror");
            break;
        case Region::ExtRom: add("extended rom", start, end, "rom"); break;
        case Region::Rom: add("rom", start, end, "rom"); break;
        case Region::Autoconfig: add("autoconfig", start, end, "io"); break;
        case Region::Rtc: add("clock", start, end, "io"); break;
        case Region::Fast: add("fast", start, end, "ram"); break;
        case Region::Unmapped: break;
        }
        p = q;
    }
    // What answers inside undecoded space: uaelib's entry and the host-call window.
    if (config_.uaelib) add("uaelib", uaelib::kEntry, uaelib::kEntry + 4, "host");
    add("guest api", GuestApi::kBase, GuestApi::kBase + 0x100, "host");
    std::sort(out.begin(), out.end(), [](const MemoryRegion& a, const MemoryRegion& b) { return a.start < b.start; });
    return out;
}

std::uint16_t Machine::spyWord(std::uint32_t a) const {
    a &= 0xFFFFFE;
    const Region r = region(a);
    if (r == Region::Custom) return agnus_.spyCustom(std::uint16_t(a & 0x1FE));
    if (r == Region::Rtc) return std::uint16_t(rtc_.peek((a >> 2) & 15, agnus_.cck()));
    if (r == Region::Cia) {
        const std::uint8_t regNo = (a >> 8) & 0xF;
        const std::uint8_t lo = !(a & 0x1000) ? ciaA_.spy(regNo) : 0xFF;
        const std::uint8_t hi = !(a & 0x2000) ? ciaB_.spy(regNo) : 0xFF;
        return std::uint16_t(hi << 8 | lo);
    }
    if (r == Region::Unmapped && uaelib::decodes(a) && config_.uaelib)
        return uaelib::word(a, false);
    return readMemoryWord(a, r);
}

std::uint8_t Machine::spyByte(std::uint32_t a) const {
    const std::uint16_t w = spyWord(a);
    return (a & 1) ? std::uint8_t(w) : std::uint8_t(w >> 8);
}

void Machine::pokeByte(std::uint32_t a, std::uint8_t v) {
    a &= 0xFFFFFF;
    const Region r = region(a);
    if (r == Region::Chip) chip_.writeByte(a, v);
    else if (r == Region::Slow) slow_[(a - 0xC00000) % slow_.size()] = v;
    else if (r == Region::Fast) fast_[a - zorro_.base] = v;
}

// ---- another emulator's saved state ------------------------------------------------------

void Machine::advanceBeamTo(unsigned vpos, unsigned hpos) {
    // Two frames of the longest lines: the beam passes every position of a frame once.
    const std::uint64_t limit = agnus_.cck() + 2ull * Agnus::kMaxLines * Agnus::kMaxLineCck;
    MasterClock t = std::max<MasterClock>(cpu_.cycles(), agnus_.cck() * kCyclesPerCck);
    while (agnus_.vpos() != vpos || agnus_.hpos() != hpos) {
        if (agnus_.cck() > limit) throw StateError("the beam never reaches the state's position");
        t = (agnus_.cck() + 1) * kCyclesPerCck;
        syncTo(t);
    }
    cpu_.setCycles(agnus_.cck() * kCyclesPerCck);
    syncTo(cpu_.cycles());
}

void Machine::settleImported() {
    agnus_.flushDenise();
    syncCias(cpu_.cycles());
    updateDriveLines();
    paula_.setPotInputs(potPins(portButtons_));
    updateIpl();
    afterLoad();
    forgetPicture();
    frameStats_[1] = FrameStats{};
    frameStats_[1].partial = true;
    frameStats_[2] = FrameStats{};
}

// ---- state -----------------------------------------------------------------------------

void Machine::serialize(Archive& ar) {
    // Denise draws in runs behind the beam; the state holds her drawn up to it.
    agnus_.flushDenise();
    ar(chip_, slow_);
    // Fast RAM (state version 5): its size is configuration, checked by name.
    std::uint32_t fastBytes = std::uint32_t(fast_.size());
    ar(fastBytes);
    if (ar.loading() && fastBytes != fast_.size())
        throw StateError("the state was saved with " + std::to_string(fastBytes / 1024) +
                         "K of fast RAM; this machine has " + std::to_string(fast_.size() / 1024) + "K (--fast)");
    ar(fast_, zorro_.configured, zorro_.shutUp, zorro_.lowNibble, zorro_.base);
    if (ar.loading()) {
        if (zorro_.configured && !validZorroBase(zorro_.base, std::uint32_t(fast_.size())))
            throw StateError("state data places fast RAM at an impossible base");
        remapExpansion();
    }
    cpu_.serialize(ar);
    agnus_.serialize(ar);
    denise_.serialize(ar);
    paula_.serialize(ar);
    blitter_.serialize(ar);
    copper_.serialize(ar);
    ciaA_.serialize(ar);
    ciaB_.serialize(ar);
    keyboard_.serialize(ar);
    ar(lastIpl_, lastIplAt_);
    floppy_.serialize(ar);
    guestApi_.serialize(ar);
    ar(portButtons_);
    if (ar.loading()) paula_.setPotInputs(potPins(portButtons_));
    rtc_.serialize(ar); // state version 7
}

std::uint64_t Machine::stateHash() {
    Archive ar = Archive::hasher();
    serialize(ar);
    return ar.hash();
}

namespace {

// The picture in a state file is zlib-compressed: a field is mostly runs of one colour,
// and a file should not double for it.
std::vector<std::uint8_t> pack(const std::vector<std::uint8_t>& raw) {
    uLongf n = compressBound(uLong(raw.size()));
    std::vector<std::uint8_t> out(n);
    if (compress2(out.data(), &n, raw.data(), uLong(raw.size()), Z_BEST_SPEED) != Z_OK)
        throw StateError("the picture could not be compressed");
    out.resize(n);
    return out;
}

std::vector<std::uint8_t> unpack(const std::vector<std::uint8_t>& z, std::size_t size) {
    std::vector<std::uint8_t> out(size);
    uLongf n = uLongf(size);
    if (uncompress(out.data(), &n, z.data(), uLong(z.size())) != Z_OK || n != size)
        throw StateError("state data holds a damaged picture");
    return out;
}

// A compressed block: its length, then the bytes (the Archive's vector wants its size
// known before it reads).
void packed(Archive& ar, std::vector<std::uint8_t>& z) {
    std::uint32_t n = std::uint32_t(z.size());
    ar(n);
    if (ar.loading()) {
        if (n > ar.remaining()) throw StateError("state data is truncated");
        z.resize(n);
    }
    ar(z);
}

} // namespace

// What a state file holds after the machine: the two fields and the last frame's bus
// owners, read into here first so that a refused file leaves the machine's own.
struct Machine::Picture {
    VideoField fields[2];
    std::uint8_t lastField = 0;
    std::uint32_t ownerLines = 0;
    std::vector<std::uint8_t> owners;
    std::array<std::uint32_t, kBusOwnerCount> ownerCounts{};
};

void Machine::savePicture(Archive& ar) {
    std::uint8_t last = std::uint8_t(lastFieldIndex_);
    ar(last);
    for (VideoField& f : fields_) {
        std::uint8_t flags = std::uint8_t((f.longFrame ? 1 : 0) | (f.interlaced ? 2 : 0));
        ar(f.width, f.lines, flags, f.frame);
        std::vector<std::uint8_t> raw(f.pixels.size() * 4);
        for (std::size_t i = 0; i < f.pixels.size(); ++i)
            for (unsigned b = 0; b < 4; ++b)
                raw[4 * i + b] = std::uint8_t(f.pixels[i] >> (8 * b));
        std::vector<std::uint8_t> z = pack(raw);
        packed(ar, z);
    }
    std::uint32_t lines = agnus_.committedLines();
    auto counts = agnus_.committedOwnerCounts();
    std::vector<std::uint8_t> z = pack(agnus_.committedOwners());
    ar(lines, counts);
    packed(ar, z);
}

Machine::Picture Machine::readPicture(Archive& ar) const {
    Picture p;
    ar(p.lastField);
    if (p.lastField > 1) throw StateError("state data names a third field");
    for (unsigned i = 0; i < 2; ++i) {
        VideoField& f = p.fields[i];
        std::uint8_t flags = 0;
        ar(f.width, f.lines, flags, f.frame);
        f.longFrame = flags & 1;
        f.interlaced = flags & 2;
        // A field not drawn yet, or one of this machine's geometry in its own slot.
        const bool empty = f.width == 0 && f.lines == 0;
        if (!empty && (flags > 3 || f.width != denise_.width() || f.lines == 0 ||
                       f.lines > Agnus::kMaxLines || f.longFrame != (i == 0)))
            throw StateError("state data holds a picture of another shape");
        std::vector<std::uint8_t> z;
        packed(ar, z);
        const auto raw = unpack(z, std::size_t(f.width) * f.lines * 4);
        f.pixels.resize(std::size_t(f.width) * f.lines);
        for (std::size_t k = 0; k < f.pixels.size(); ++k)
            f.pixels[k] = std::uint32_t(raw[4 * k]) | std::uint32_t(raw[4 * k + 1]) << 8 |
                          std::uint32_t(raw[4 * k + 2]) << 16 | std::uint32_t(raw[4 * k + 3]) << 24;
    }
    ar(p.ownerLines, p.ownerCounts);
    if (p.ownerLines > Agnus::kMaxLines) throw StateError("state data holds too many owner lines");
    std::vector<std::uint8_t> z;
    packed(ar, z);
    p.owners = unpack(z, agnus_.committedOwners().size());
    for (auto o : p.owners)
        if (o >= kBusOwnerCount) throw StateError("state data holds an unknown bus owner");
    return p;
}

void Machine::afterLoad() {
    lastIpl_ = paula_.ipl();
    lastIplAt_ = paula_.iplChangedAt();
    // The frame in progress was not watched from its start on this timeline.
    statsFrameEnded_ = false;
    beginFrameStats(agnus_.frame(), agnus_.cck(), true);
    agnus_.restartAccounting();
    // Nor is the frame before the next one ends: the last frame's accounting held now may
    // be another moment's.
    frameStats_[2] = FrameStats{};
    statsHistoryGap_ = true;
    agnus_.forgetPreviousFrame();
}

std::vector<std::uint8_t> Machine::saveState() {
    Archive ar = Archive::saver();
    std::uint8_t magic[4];
    std::memcpy(magic, state_file::kMagic, 4);
    std::uint32_t version = state_file::kVersion;
    std::uint8_t ntsc = config_.ntsc;
    std::uint32_t chipBytes = config_.chipRamBytes, slowBytes = config_.slowRamBytes;
    std::uint64_t rh = romHash_, eh = extRomHash_;
    std::uint64_t bodyBytes = 0; // sealed below
    std::uint32_t checksum = 0;
    std::uint32_t fastBytes = config_.fastRamBytes;
    std::uint8_t flags = config_.uaelib ? state_file::kFlagUaelib : 0;
    ar(magic, version, ntsc, chipBytes, slowBytes, rh, eh, bodyBytes, checksum, fastBytes, flags);
    serialize(ar);
    savePicture(ar);
    std::vector<std::uint8_t> bytes = ar.takeBytes();
    state_file::seal(bytes);
    return bytes;
}

void Machine::loadState(std::span<const std::uint8_t> bytes) {
    // The envelope first: after it the configuration and the body can be trusted to be
    // what was saved.
    const state_file::Header h = state_file::read(bytes);
    if (h.romHash != romHash_ || h.extRomHash != extRomHash_)
        throw StateError("the state was saved with a different ROM");
    Config saved = config_;
    saved.ntsc = h.ntsc;
    saved.chipRamBytes = h.chipRamBytes;
    saved.slowRamBytes = h.slowRamBytes;
    saved.fastRamBytes = h.fastRamBytes;
    saved.uaelib = h.uaelib;
    const Config was = config_;
    // Load into the machine with a copy to go back to, so that a file that passes its
    // checksum and still cannot be read changes nothing, its configuration included.
    const std::vector<std::uint8_t> before = saveSnapshot();
    const bool reconfigured = !sameConfig(saved, config_);
    if (reconfigured) reconfigure(saved);
    Archive ar = Archive::loader(bytes.subspan(state_file::kHeaderBytes));
    Picture picture;
    try {
        serialize(ar);
        picture = readPicture(ar);
        if (ar.remaining() != 0) throw StateError("state file has trailing data");
    } catch (...) {
        if (reconfigured) reconfigure(was);
        Archive undo = Archive::loader(before);
        serialize(undo);
        throw;
    }
    afterLoad();
    applyPicture(std::move(picture));
    // That frame's CPU accounting is not in the file: none of it was watched here.
    frameStats_[2] = FrameStats{}; // nor the one before it
    FrameStats& last = frameStats_[1];
    last = FrameStats{};
    last.frame = agnus_.frame() ? agnus_.frame() - 1 : 0;
    last.lines = picture.ownerLines;
    last.lineCck = agnus_.lineLength();
    last.partial = true;
}

void Machine::applyPicture(Picture&& picture) {
    // The picture and the bus owners of the frame before, as the machine showed them.
    fields_[0] = std::move(picture.fields[0]);
    fields_[1] = std::move(picture.fields[1]);
    lastFieldIndex_ = picture.lastField;
    agnus_.setCommitted(picture.ownerLines, std::move(picture.owners), picture.ownerCounts);
}

std::vector<std::uint8_t> Machine::pictureBytes() {
    Archive ar = Archive::saver();
    savePicture(ar);
    return ar.takeBytes();
}

void Machine::restorePicture(std::span<const std::uint8_t> bytes) {
    Archive ar = Archive::loader(bytes);
    Picture picture = readPicture(ar);
    if (ar.remaining() != 0) throw StateError("picture data has trailing bytes");
    applyPicture(std::move(picture));
}

void Machine::forgetPicture() {
    fields_[0] = fields_[1] = VideoField{};
    lastFieldIndex_ = 0;
    std::array<std::uint32_t, kBusOwnerCount> none{};
    agnus_.setCommitted(0, std::vector<std::uint8_t>(agnus_.committedOwners().size(), 0), none);
}

std::vector<std::uint8_t> Machine::saveSnapshot(std::vector<std::uint8_t> reuse) {
    Archive ar = Archive::saver(std::move(reuse));
    serialize(ar);
    return ar.takeBytes();
}

std::vector<std::uint8_t> Machine::snapshotBuffer() const {
    // The memory, the disks in the drives (a state carries their images), and room for the
    // chips and the CPU (some tens of kilobytes): a snapshot larger than that grows once.
    std::size_t bytes = chip_.size() + slow_.size() + fast_.size() + (256u << 10);
    for (unsigned n = 0; n < FloppyController::kDrives; ++n)
        if (floppy_.drive(n).hasDisk()) bytes += floppy_.drive(n).disk().bytes.size();
    std::vector<std::uint8_t> buffer;
    buffer.reserve(bytes);
    return buffer;
}

void Machine::loadSnapshot(std::span<const std::uint8_t> bytes) {
    Archive ar = Archive::loader(bytes);
    serialize(ar);
    if (ar.remaining() != 0) throw StateError("a snapshot longer than this machine's state");
    afterLoad();
}

} // namespace copperline
