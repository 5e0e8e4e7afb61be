// SPDX-License-Identifier: GPL-3.0-or-later
// The reader of WinUAE's saved states (emu/state/uss.h; docs/formats/uss.md). The chunk
// layouts are those of WinUAE's savestate.cpp and its chunk writers (save_cpu, save_custom,
// save_cia, save_audio, save_custom_sprite, save_blitter, save_floppy, save_rom), as of
// the WinUAE 3.3 code FS-UAE 3.1 writes with; later writers append fields this reader
// does not need.

#include "emu/state/uss.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace copperline::uss {

namespace {

std::string chunkText(const std::string& name) {
    std::string s;
    for (char c : name) s += (c >= 0x20 && c < 0x7F) ? c : '?';
    return "'" + s + "'";
}

// A big-endian reader over one payload; a payload that runs short is a damaged chunk.
class Reader {
public:
    Reader(std::span<const std::uint8_t> bytes, std::string chunk) : bytes_(bytes), chunk_(std::move(chunk)) {}
    std::uint8_t u8() { return take(1)[0]; }
    std::uint16_t u16() {
        const auto b = take(2);
        return std::uint16_t(b[0] << 8 | b[1]);
    }
    std::uint32_t u32() {
        const auto b = take(4);
        return std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 | std::uint32_t(b[2]) << 8 | b[3];
    }
    // A NUL-terminated string (WinUAE writes UTF-8); a missing NUL ends it at the payload's end.
    std::string string() {
        std::string s;
        while (pos_ < bytes_.size() && bytes_[pos_] != 0) s += char(bytes_[pos_++]);
        if (pos_ < bytes_.size()) ++pos_;
        return s;
    }
    std::size_t remaining() const { return bytes_.size() - pos_; }

private:
    std::span<const std::uint8_t> take(std::size_t n) {
        if (bytes_.size() - pos_ < n) throw UssError("the " + chunkText(chunk_) + " chunk is shorter than its layout");
        auto s = bytes_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    std::span<const std::uint8_t> bytes_;
    std::string chunk_;
    std::size_t pos_ = 0;
};

std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) {
    return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 | std::uint32_t(b[at + 2]) << 8 | b[at + 3];
}

std::vector<std::uint8_t> inflateChunk(std::span<const std::uint8_t> packed, std::uint32_t size,
                                       const std::string& name) {
    // Unpacked a megabyte at a time, so that a chunk that claims more than its stream holds
    // costs no more memory than the stream gives.
    constexpr std::size_t kStep = 1u << 20;
    std::vector<std::uint8_t> out;
    z_stream z{};
    if (inflateInit(&z) != Z_OK) throw UssError("zlib cannot start");
    z.next_in = const_cast<Bytef*>(packed.data());
    z.avail_in = uInt(packed.size());
    int rc = Z_OK;
    while (rc == Z_OK && out.size() < size) {
        const std::size_t have = out.size();
        out.resize(std::min<std::size_t>(size, have + kStep));
        z.next_out = out.data() + have;
        z.avail_out = uInt(out.size() - have);
        rc = inflate(&z, Z_NO_FLUSH);
        out.resize(out.size() - z.avail_out);
        if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
    }
    // One more byte of room: a stream that goes on past the declared length is damaged too.
    if (rc == Z_OK && out.size() == size) {
        std::uint8_t extra = 0;
        z.next_out = &extra;
        z.avail_out = 1;
        rc = inflate(&z, Z_FINISH);
        if (z.avail_out == 0) rc = Z_DATA_ERROR;
    }
    inflateEnd(&z);
    // The stream must end, and give exactly the length the chunk declares.
    if (rc != Z_STREAM_END || out.size() != size)
        throw UssError("the " + chunkText(name) + " chunk's compressed data is damaged");
    return out;
}

// Chunks that mean hardware this A500 has not, refused by name.
struct Refusal {
    const char* name;
    const char* what;
};
constexpr Refusal kRefused[] = {
    {"FPU ", "a floating-point unit (FPU)"},
    {"MMU ", "an MMU"},
    {"AGAC", nullptr}, // AGA colours: refused only when the chipset is AGA (below)
    {"FRAM", "Zorro II fast RAM (FRAM); save the state with no fast RAM"},
    {"FRA2", "a second fast RAM board (FRA2)"},
    {"FRA3", "a third fast RAM board (FRA3)"},
    {"FRA4", "a fourth fast RAM board (FRA4)"},
    {"ZRAM", "Zorro III RAM (ZRAM)"},
    {"ZRA2", "Zorro III RAM (ZRA2)"},
    {"ZRA3", "Zorro III RAM (ZRA3)"},
    {"ZRA4", "Zorro III RAM (ZRA4)"},
    {"ZCRM", "CD32/Zorro chip RAM extension (ZCRM)"},
    {"A3K1", "A3000 motherboard RAM (A3K1)"},
    {"A3K2", "A3000 motherboard RAM (A3K2)"},
    {"PRAM", "PCMCIA RAM (PRAM)"},
    {"BORO", "a board's ROM (BORO)"},
    {"EXPB", "an expansion board (EXPB)"},
    {"DMAC", "a SCSI controller's DMA (DMAC)"},
    {"DMC2", "a SCSI controller (DMC2)"},
    {"DMC3", "a SCSI controller (DMC3)"},
    {"DMC4", "a SCSI controller (DMC4)"},
    {"SCSD", "a SCSI device (SCSD)"},
    {"SCS2", "a SCSI device (SCS2)"},
    {"SCS3", "a SCSI device (SCS3)"},
    {"SCS4", "a SCSI device (SCS4)"},
    {"IDE ", "an IDE controller (IDE)"},
    {"GAYL", "Gayle (IDE/PCMCIA, GAYL)"},
    {"CD32", "a CD32 CD drive (CD32)"},
    {"CDTV", "a CDTV CD drive (CDTV)"},
    {"CDU0", "a CD drive (CDU0)"},
    {"P96 ", "an RTG graphics card (P96)"},
    {"FSYS", "a mounted host filesystem (FSYS)"},
    {"FSYC", "a mounted host filesystem (FSYC)"},
    {"ACTR", "an Action Replay cartridge (ACTR)"},
    {"HRTM", "an HRTMon cartridge (HRTM)"},
    {"2065", "a network card (2065)"},
};

} // namespace

std::uint32_t romCrc(std::span<const std::uint8_t> rom, std::uint32_t size) {
    if (size > rom.size()) return 0;
    return std::uint32_t(crc32(0L, rom.data(), uInt(size)));
}

std::vector<Chunk> readChunks(std::span<const std::uint8_t> file) {
    if (file.size() > kMaxTotalBytes)
        throw UssError("the file is " + std::to_string(file.size()) + " bytes; a state may have at most " +
                       std::to_string(kMaxTotalBytes >> 20) + " MiB");
    if (file.size() < 12 || std::memcmp(file.data(), "ASF ", 4) != 0)
        throw UssError("not a WinUAE saved state (no 'ASF ' chunk at its start)");
    // First the framing of every chunk and the limits, before anything is unpacked.
    struct Frame {
        std::string name;
        std::size_t at = 0, length = 0; // the payload (a compressed one without its length word)
        bool compressed = false;
        std::uint32_t full = 0;
    };
    std::vector<Frame> frames;
    std::uint64_t unpacked = 0;
    std::size_t pos = 0;
    for (;;) {
        if (frames.size() >= kMaxChunks)
            throw UssError("more than " + std::to_string(kMaxChunks) + " chunks before 'END '");
        if (file.size() - pos < 8) throw UssError("the file ends before its 'END ' chunk");
        Frame f;
        f.name.assign(reinterpret_cast<const char*>(file.data() + pos), 4);
        const std::uint32_t size = be32(file, pos + 4);
        if (f.name == "END ") {
            frames.push_back(std::move(f));
            break;
        }
        // Every other chunk has its flags and at least one byte of payload (WinUAE writes
        // no empty chunk but END).
        if (size <= 12) throw UssError("the " + chunkText(f.name) + " chunk's size is " + std::to_string(size));
        if (size - 12 > kMaxChunkBytes)
            throw UssError("the " + chunkText(f.name) + " chunk is " + std::to_string(size) +
                           " bytes; a chunk may have at most " + std::to_string(kMaxChunkBytes >> 20) + " MiB");
        if (file.size() - pos < size) throw UssError("the " + chunkText(f.name) + " chunk runs past the file's end");
        f.compressed = be32(file, pos + 8) & 1;
        f.at = pos + 12;
        f.length = size - 12;
        if (f.compressed) {
            if (f.length <= 4) throw UssError("the " + chunkText(f.name) + " chunk is too short to be compressed");
            f.full = be32(file, f.at);
            if (f.full > kMaxChunkBytes)
                throw UssError("the " + chunkText(f.name) + " chunk unpacks to " + std::to_string(f.full) +
                               " bytes; a chunk may have at most " + std::to_string(kMaxChunkBytes >> 20) + " MiB");
            f.at += 4;
            f.length -= 4;
            unpacked += f.full;
        } else {
            unpacked += f.length;
        }
        if (unpacked > kMaxTotalBytes)
            throw UssError("the chunks unpack to more than " + std::to_string(kMaxTotalBytes >> 20) + " MiB");
        // WinUAE pads 4 - (length & 3) bytes: one to four.
        const std::size_t padding = 4 - (f.length & 3);
        pos += size;
        if (file.size() - pos < padding) throw UssError("the file ends inside the " + chunkText(f.name) + " chunk");
        pos += padding;
        frames.push_back(std::move(f));
    }
    std::vector<Chunk> chunks;
    chunks.reserve(frames.size());
    for (Frame& f : frames) {
        Chunk c;
        c.name = std::move(f.name);
        const auto data = file.subspan(f.at, f.length);
        if (f.compressed) c.payload = inflateChunk(data, f.full, c.name);
        else c.payload.assign(data.begin(), data.end());
        chunks.push_back(std::move(c));
    }
    return chunks;
}

namespace {

void readCpu(State& s, const Chunk& c) {
    Reader r(c.payload, c.name);
    const std::uint32_t model = r.u32();
    if (model != 68000)
        throw UssError("the state's CPU is a " + std::to_string(model) + "; Copperline's A500 has a 68000");
    const std::uint32_t flags = r.u32();
    (void)flags;
    for (unsigned i = 0; i < 8; ++i) s.d[i] = r.u32();
    for (unsigned i = 0; i < 7; ++i) s.a[i] = r.u32();
    s.pc = r.u32();
    s.irc = r.u16();
    s.ir = r.u16();
    s.usp = r.u32();
    s.ssp = r.u32();
    s.sr = r.u16();
    const std::uint32_t mode = r.u32();
    s.stopped = (mode & 1) != 0; // CPUMODE_HALT: the 68000 waits in STOP
    s.a[7] = (s.sr & 0x2000) ? s.ssp : s.usp;
}

void readChip(State& s, const Chunk& c) {
    Reader r(c.payload, c.name);
    s.chipsetMask = r.u32();
    if (s.chipsetMask & 4) throw UssError("the state's chipset is AGA; Copperline's A500 has OCS (no AGA chunks yet)");
    auto word = [&](unsigned offset) {
        s.custom.value[offset / 2] = r.u16();
        s.custom.present[offset / 2] = true;
    };
    // $000-$09E, $0E0-$11E and $180-$1FE: save_custom leaves out the audio ($0A0-$0DF)
    // and the sprite ($120-$17F) registers, which have chunks of their own.
    for (unsigned o = 0x000; o < 0x0A0; o += 2) word(o);
    for (unsigned o = 0x0E0; o < 0x120; o += 2) word(o);
    for (unsigned o = 0x180; o < 0x200; o += 2) word(o);
    s.ntsc = (s.custom.value[0x1FA / 2] & 0x8001) == 0x8001;
}

void readCia(CiaState& cia, const Chunk& c) {
    Reader r(c.payload, c.name);
    cia.pra = r.u8();
    cia.prb = r.u8();
    cia.ddra = r.u8();
    cia.ddrb = r.u8();
    cia.timerA = r.u16();
    cia.timerB = r.u16();
    cia.tod = r.u8();
    cia.tod |= std::uint32_t(r.u8()) << 8;
    cia.tod |= std::uint32_t(r.u8()) << 16;
    r.u8();
    cia.sdr = r.u8();
    cia.icr = r.u8(); // the interrupt flags pending
    cia.cra = r.u8();
    cia.crb = r.u8();
    cia.icrMask = r.u8();
    cia.latchA = r.u8();
    cia.latchA |= std::uint16_t(r.u8() << 8);
    cia.latchB = r.u8();
    cia.latchB |= std::uint16_t(r.u8() << 8);
    cia.todLatch = r.u8();
    cia.todLatch |= std::uint32_t(r.u8()) << 8;
    cia.todLatch |= std::uint32_t(r.u8()) << 16;
    cia.alarm = r.u8();
    cia.alarm |= std::uint32_t(r.u8()) << 8;
    cia.alarm |= std::uint32_t(r.u8()) << 16;
    const std::uint8_t flags = r.u8();
    cia.todLatched = flags & 1;
    cia.todStopped = flags & 2;
}

void readSprite(Sprite& sp, const Chunk& c) {
    Reader r(c.payload, c.name);
    sp.pointer = r.u32();
    sp.pos = r.u16();
    sp.ctl = r.u16();
    sp.data = r.u16();
    sp.datb = r.u16();
    // Then AGA's wider data (three more pairs) and the armed flag.
    if (r.remaining() >= 13) {
        for (unsigned i = 0; i < 6; ++i) r.u16();
        sp.armed = r.u8() & 1;
    }
}

void readAudio(AudioChannel& a, const Chunk& c) {
    Reader r(c.payload, c.name);
    r.u8(); // the channel's state machine
    a.volume = r.u8();
    r.u8();
    r.u8();
    a.length = r.u16(); // AUDxLEN; then the working length
    r.u16();
    a.period = r.u16();
    r.u16(); // the last data word
    a.location = r.u32(); // AUDxLC; then the working pointer
}

void readRom(State& s, const Chunk& c) {
    Reader r(c.payload, c.name);
    Rom rom;
    rom.address = r.u32();
    rom.size = r.u32();
    rom.type = r.u32();
    const std::uint32_t version = r.u32();
    rom.version = std::uint16_t(version >> 16);
    rom.revision = std::uint16_t(version);
    rom.crc = r.u32();
    rom.name = r.string();
    rom.path = r.string();
    s.roms.push_back(std::move(rom));
}

} // namespace

State readUss(std::span<const std::uint8_t> file) {
    std::vector<Chunk> chunks = readChunks(file);
    State s;
    bool cpu = false, chip = false, cram = false;
    for (Chunk& c : chunks) {
        const std::string& n = c.name;
        for (const Refusal& ref : kRefused)
            if (ref.what && n == ref.name)
                throw UssError("the state holds " + std::string(ref.what) + ", which Copperline's A500 has not");
        if (n == "ASF ") {
            Reader r(c.payload, n);
            r.u32(); // the file's version
            s.emulator = r.string();
            s.emulatorVersion = r.string();
            s.description = r.string();
        } else if (n == "CPU ") {
            readCpu(s, c);
            cpu = true;
        } else if (n == "CPUT") {
            s.midInstruction = true;
        } else if (n == "CHIP") {
            readChip(s, c);
            chip = true;
        } else if (n == "CIAA" || n == "CIAB") {
            readCia(s.cia[n == "CIAB"], c);
        } else if (n.size() == 4 && n.compare(0, 3, "SPR") == 0 && n[3] >= '0' && n[3] <= '7') {
            readSprite(s.sprites[unsigned(n[3] - '0')], c);
        } else if (n.size() == 4 && n.compare(0, 3, "AUD") == 0 && n[3] >= '0' && n[3] <= '3') {
            readAudio(s.audio[unsigned(n[3] - '0')], c);
            s.audioPresent[unsigned(n[3] - '0')] = true;
        } else if (n == "BLIT") {
            Reader r(c.payload, n);
            const std::uint32_t flags = r.u32();
            // Bit 0: the blitter was done; bit 1: WinUAE finished an active blit at once to
            // save it (the state then shows a blit that never took its time).
            if (!(flags & 1) || (flags & 2))
                throw UssError("the state was saved with a blit in flight; Copperline cannot resume a blit "
                               "from WinUAE's blitter state (save again when the blitter is idle)");
        } else if (n == "DISK") {
            Reader r(c.payload, n);
            r.u16();
            r.u8();
            r.u8();
            r.u8();
            const std::uint8_t dma = r.u8(); // 0 off, 1 DSKLEN written once, 2 reading, 3 writing
            if (dma >= 2)
                throw UssError("the state was saved with disk DMA in flight; Copperline cannot resume a disk "
                               "transfer (save again when the drive is idle)");
        } else if (n == "CRAM") {
            if (c.payload.empty() || c.payload.size() > (2u << 20) || (c.payload.size() & 0x3FFFF) != 0)
                throw UssError("the state's chip RAM is " + std::to_string(c.payload.size()) +
                               " bytes; Copperline has 256K, 512K, 1M or 2M");
            s.chipRam = std::move(c.payload); // memory is taken, not copied
            cram = true;
        } else if (n == "BRAM") {
            if (c.payload.size() > (1536u << 10) || (c.payload.size() & 0x7FFFF) != 0)
                throw UssError("the state's slow RAM is " + std::to_string(c.payload.size()) +
                               " bytes; Copperline has 512K, 1M or 1.5M");
            s.slowRam = std::move(c.payload);
        } else if (n == "ROM ") {
            readRom(s, c);
        } else if (n == "END ") {
        } else {
            s.ignoredChunks.push_back(n);
        }
    }
    if (!cpu) throw UssError("the state has no 'CPU ' chunk");
    if (!chip) throw UssError("the state has no 'CHIP' chunk");
    if (!cram) throw UssError("the state has no chip RAM ('CRAM' chunk)");
    if (s.chipRam.size() == (256u << 10)) {
        // A 256K chip RAM state is loaded into 512K, mirrored as the A1000's would be.
        s.chipRam.resize(512u << 10);
        std::copy(s.chipRam.begin(), s.chipRam.begin() + (256 << 10), s.chipRam.begin() + (256 << 10));
    }
    if (s.chipRam.size() > (512u << 10) && !(s.chipsetMask & 1))
        throw UssError("the state has more than 512K of chip RAM and no ECS Agnus to address it");
    // Disk DMA the registers say is running, whatever the DISK chunk said.
    const std::uint16_t dmacon = s.custom.value[0x096 / 2], dsklen = s.custom.value[0x024 / 2];
    if ((dsklen & 0x8000) && (dmacon & 0x0210) == 0x0210)
        throw UssError("the state was saved with disk DMA in flight; Copperline cannot resume a disk "
                       "transfer (save again when the drive is idle)");
    bool kick = false;
    for (const Rom& rom : s.roms) {
        if (rom.type == 0) kick = true;
        else if (rom.type != 1)
            throw UssError("the state holds a board's ROM ('" + rom.name + "' at $" + [&] {
                char b[16];
                std::snprintf(b, sizeof b, "%06X", rom.address);
                return std::string(b);
            }() + ")");
    }
    if (!kick) throw UssError("the state names no Kickstart ROM ('ROM ' chunk)");
    return s;
}

} // namespace copperline::uss
