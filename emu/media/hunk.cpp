// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/media/hunk.h"
#include "emu/hex.h"

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <algorithm>
#include <cstdio>

namespace copperline {

namespace {

std::string hunkLabel(std::size_t index) { return "hunk " + std::to_string(index); }

// A name stored in longwords, padded with NULs.
std::string readPaddedName(ByteReader& r, std::uint32_t longs, const char* field) {
    if (longs > r.remaining() / 4) r.fail(std::string("truncated: ") + field + " runs past the end");
    auto raw = r.bytes(std::size_t(longs) * 4, field);
    std::string name(raw.begin(), raw.end());
    name.erase(std::find(name.begin(), name.end(), '\0'), name.end());
    return name;
}

std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) {
    return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 |
           std::uint32_t(b[at + 2]) << 8 | std::uint32_t(b[at + 3]);
}

// A HUNK_DEBUG block is either a LINE table or something we keep as raw bytes.
void readDebugBlock(ByteReader& r, HunkSection& section, std::size_t index) {
    const std::size_t blockStart = r.offset();
    const std::uint32_t longs = r.u32("HUNK_DEBUG size");
    if (longs > r.remaining() / 4) r.fail("truncated: HUNK_DEBUG of " + std::to_string(longs) + " longwords runs past the end");
    auto block = r.bytes(std::size_t(longs) * 4, "HUNK_DEBUG contents");
    if (longs < 3 || be32(block, 4) != hunk_id::LineTag) {
        section.otherDebug.emplace_back(block.begin(), block.end());
        return;
    }
    const std::uint32_t base = be32(block, 0);
    // The name length's top byte is not part of it (readers of SAS/C's blocks mask it).
    const std::uint32_t nameLongs = be32(block, 8) & 0xFFFFFF;
    if (nameLongs > longs - 3)
        r.failAt(blockStart, "LINE debug block's file name runs past the block");
    const std::size_t pairLongs = longs - 3 - nameLongs;
    if (pairLongs % 2)
        r.failAt(blockStart, "LINE debug block has an odd number of line/offset longwords");
    HunkLineBlock lines;
    auto nameBytes = block.subspan(12, std::size_t(nameLongs) * 4);
    lines.file.assign(nameBytes.begin(), nameBytes.end());
    lines.file.erase(std::find(lines.file.begin(), lines.file.end(), '\0'), lines.file.end());
    lines.lines.reserve(pairLongs / 2);
    for (std::size_t at = 12 + std::size_t(nameLongs) * 4; at < block.size(); at += 8) {
        // SAS/C keeps the bytes of call arguments still on the stack in the line's top
        // byte; vasm and vlink leave it 0. The line is the low 24 bits.
        const std::uint32_t line = be32(block, at) & 0xFFFFFF;
        const std::uint64_t offset = std::uint64_t(base) + be32(block, at + 4);
        if (offset > section.allocSize)
            r.failAt(blockStart, "LINE entry for line " + std::to_string(line) + " at offset " +
                                     std::to_string(offset) + " lies outside " + hunkLabel(index) +
                                     " (" + std::to_string(section.allocSize) + " bytes)");
        lines.lines.push_back({line, std::uint32_t(offset)});
    }
    section.lineBlocks.push_back(std::move(lines));
}

void readReloc32(ByteReader& r, HunkSection& section, std::size_t index, std::size_t hunkCount) {
    for (;;) {
        const std::uint32_t n = r.u32("relocation count");
        if (n == 0) break;
        const std::uint32_t target = r.u32("relocation target hunk");
        if (target >= hunkCount)
            r.fail("relocation in " + hunkLabel(index) + " targets hunk " + std::to_string(target) +
                   " but the file has " + std::to_string(hunkCount));
        if (n > r.remaining() / 4) r.fail("truncated: " + std::to_string(n) + " relocations run past the end");
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t offset = r.u32("relocation offset");
            if (std::uint64_t(offset) + 4 > section.data.size())
                r.fail("relocation at offset " + std::to_string(offset) + " lies outside the " +
                       std::to_string(section.data.size()) + " bytes of " + hunkLabel(index));
            section.relocs.push_back({offset, target});
        }
    }
}

// HUNK_RELOC32SHORT (HUNK_DREL32 in older files): the same table in 16-bit words, padded to
// a longword at its end.
void readReloc32Short(ByteReader& r, HunkSection& section, std::size_t index, std::size_t hunkCount) {
    std::size_t words = 0;
    for (;;) {
        const std::uint16_t n = r.u16("relocation count");
        ++words;
        if (n == 0) break;
        const std::uint16_t target = r.u16("relocation target hunk");
        ++words;
        if (target >= hunkCount)
            r.fail("relocation in " + hunkLabel(index) + " targets hunk " + std::to_string(target) +
                   " but the file has " + std::to_string(hunkCount));
        for (std::uint16_t i = 0; i < n; ++i) {
            const std::uint16_t offset = r.u16("relocation offset");
            ++words;
            if (std::uint64_t(offset) + 4 > section.data.size())
                r.fail("relocation at offset " + std::to_string(offset) + " lies outside the " +
                       std::to_string(section.data.size()) + " bytes of " + hunkLabel(index));
            section.relocs.push_back({offset, target});
        }
    }
    if (words % 2) r.skip(2, "relocation table padding");
}

void readSymbols(ByteReader& r, HunkSection& section, std::size_t index,
                 std::vector<std::string>* warnings) {
    for (;;) {
        const std::uint32_t longs = r.u32("symbol name length");
        if (longs == 0) break;
        // The top byte is a type in HUNK_EXT; in HUNK_SYMBOL it must be zero.
        if (longs > 0xFFFFFF) r.fail("symbol name length " + amigaHex(longs) + " is not valid");
        std::string name = readPaddedName(r, longs, "symbol name");
        // A symbol's value is a number the linker wrote, not a place LoadSeg checks: vbcc's
        // _LinkerDB and _SDA_BASE_ sit 32,766 bytes into the small-data hunk, past the end of
        // a small one, so that A4-relative addressing reaches all of it.
        const std::uint32_t value = r.u32("symbol value");
        if (value > section.allocSize && warnings)
            warnings->push_back("symbol '" + name + "' has the value " + std::to_string(value) +
                                ", past the end of " + hunkLabel(index) + " (" +
                                std::to_string(section.allocSize) +
                                " bytes); it names no code or data there");
        section.symbols.push_back({std::move(name), value});
    }
}

} // namespace

const char* hunkKindName(HunkKind kind) {
    switch (kind) {
    case HunkKind::Code: return "CODE";
    case HunkKind::Data: return "DATA";
    case HunkKind::Bss: return "BSS";
    }
    return "?";
}

HunkFile readHunkFile(std::span<const std::uint8_t> bytes, const std::string& name,
                      std::vector<std::string>* warnings) {
    ByteReader r(bytes, name);
    if (bytes.size() < 4) r.failAt(0, "not a hunk executable: too short (" + std::to_string(bytes.size()) + " bytes)");
    const std::uint32_t magic = r.u32("magic");
    if (magic != hunk_id::Header)
        r.failAt(0, "not a hunk executable: bad magic " + amigaHex(magic) + " (HUNK_HEADER is $000003F3)");
    // No check of the file's size being whole longwords: LoadSeg reads block by block and
    // never reaches a partial longword after the last hunk; one inside a hunk is truncation.

    if (r.u32("resident library list") != 0)
        r.fail("resident library names in the header are not supported (no AmigaOS loader accepts them)");
    const std::uint32_t tableSize = r.u32("hunk table size");
    const std::uint32_t first = r.u32("first hunk");
    const std::uint32_t last = r.u32("last hunk");
    if (tableSize == 0 || tableSize > kMaxHunks)
        r.fail("absurd hunk table size " + std::to_string(tableSize));
    if (first != 0 || last < first || last >= tableSize)
        r.fail("hunk range " + std::to_string(first) + ".." + std::to_string(last) +
               " does not fit a table of " + std::to_string(tableSize));
    const std::size_t count = std::size_t(last) - first + 1;

    HunkFile file;
    file.sections.resize(count);
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t v = r.u32("hunk size");
        HunkSection& s = file.sections[i];
        const std::uint32_t flags = v >> 30;
        s.memory = flags == 1 ? HunkMemory::Chip : flags == 2 ? HunkMemory::Fast : HunkMemory::Any;
        if (flags == 3) {
            // Both bits: a longword of MEMF_ attributes follows (MEMF_CHIP 2, MEMF_FAST 4).
            const std::uint32_t attrs = r.u32("hunk memory attributes");
            s.memory = attrs & 2 ? HunkMemory::Chip : attrs & 4 ? HunkMemory::Fast : HunkMemory::Any;
        }
        const std::uint64_t size = std::uint64_t(v & 0x3FFFFFFF) * 4;
        if (size > kMaxHunkBytes)
            r.fail(hunkLabel(i) + " claims " + std::to_string(size) + " bytes, more than a 68000 can address");
        total += size;
        if (total > kMaxHunkBytes)
            r.fail("the hunks need " + std::to_string(total) + " bytes together, more than a 68000 can address");
        s.allocSize = std::uint32_t(size);
    }

    for (std::size_t i = 0; i < count; ++i) {
        HunkSection& s = file.sections[i];
        bool haveContents = false;
        for (bool ended = false; !ended;) {
            if (r.atEnd())
                r.fail("truncated: " + hunkLabel(i) + " of " + std::to_string(count) + " has no HUNK_END");
            const std::size_t at = r.offset();
            // Hunk type words may carry the memory bits too; they are the header's business.
            const std::uint32_t id = r.u32("block type") & 0x3FFFFFFF;
            switch (id) {
            case hunk_id::Name: {
                const std::uint32_t longs = r.u32("HUNK_NAME length");
                readPaddedName(r, longs, "HUNK_NAME");
                break;
            }
            case hunk_id::Code:
            case hunk_id::Data: {
                if (haveContents) r.failAt(at, hunkLabel(i) + " has a second contents block");
                const std::uint32_t longs = r.u32("contents size");
                const std::uint64_t n = std::uint64_t(longs) * 4;
                if (n > s.allocSize)
                    r.failAt(at, hunkLabel(i) + " holds " + std::to_string(n) +
                                     " bytes but the header gives it " + std::to_string(s.allocSize));
                auto body = r.bytes(std::size_t(n), "hunk contents");
                s.kind = id == hunk_id::Code ? HunkKind::Code : HunkKind::Data;
                s.data.assign(body.begin(), body.end());
                haveContents = true;
                break;
            }
            case hunk_id::Bss: {
                if (haveContents) r.failAt(at, hunkLabel(i) + " has a second contents block");
                const std::uint64_t n = std::uint64_t(r.u32("BSS size")) * 4;
                if (n > s.allocSize)
                    r.failAt(at, hunkLabel(i) + " asks for " + std::to_string(n) +
                                     " BSS bytes but the header gives it " + std::to_string(s.allocSize));
                s.kind = HunkKind::Bss;
                haveContents = true;
                break;
            }
            case hunk_id::Reloc32:
                if (!haveContents) r.failAt(at, hunkLabel(i) + " has relocations before its contents");
                readReloc32(r, s, i, count);
                break;
            case hunk_id::Reloc32Short:
            case hunk_id::Drel32:
                if (!haveContents) r.failAt(at, hunkLabel(i) + " has relocations before its contents");
                readReloc32Short(r, s, i, count);
                break;
            case hunk_id::Symbol:
                readSymbols(r, s, i, warnings);
                break;
            case hunk_id::Debug:
                readDebugBlock(r, s, i);
                break;
            case hunk_id::End:
                if (!haveContents) r.failAt(at, hunkLabel(i) + " ends without contents");
                ended = true;
                break;
            case hunk_id::Unit:
                r.failAt(at, "HUNK_UNIT: this is an object file, not an executable");
            case hunk_id::Ext:
                r.failAt(at, "HUNK_EXT: unresolved external references; link the program first");
            case hunk_id::Overlay:
            case hunk_id::Break:
                r.failAt(at, "overlaid executables are not supported");
            case hunk_id::Header:
                r.failAt(at, "a second HUNK_HEADER inside the file");
            case hunk_id::Reloc16:
            case hunk_id::Reloc8:
            case hunk_id::RelReloc32:
            case hunk_id::AbsReloc16:
                r.failAt(at, "relocation block " + amigaHex(id) + " is not supported in an executable");
            default:
                r.failAt(at, "unknown block type " + amigaHex(id) + " in " + hunkLabel(i));
            }
        }
        std::sort(s.relocs.begin(), s.relocs.end(), [](const HunkReloc& a, const HunkReloc& b) {
            return a.target != b.target ? a.target < b.target : a.offset < b.offset;
        });
    }
    // bebbo's amiga-gcc links its stabs (-g) as a HUNK_DEBUG of its own after the last hunk,
    // closed by one more HUNK_END: kept for the debug-info reader. LoadSeg never reads it.
    while (r.remaining() >= 8) {
        const std::size_t at = r.offset();
        ByteReader peek(std::span<const std::uint8_t>(bytes).subspan(at), name);
        if ((peek.u32("block type") & 0x3FFFFFFF) != hunk_id::Debug) break;
        const std::uint32_t longs = peek.u32("HUNK_DEBUG size");
        if (longs > peek.remaining() / 4) break;
        r.skip(8, "HUNK_DEBUG");
        auto block = r.bytes(std::size_t(longs) * 4, "HUNK_DEBUG contents");
        file.trailingDebug.emplace_back(block.begin(), block.end());
        if (r.remaining() >= 4) {
            ByteReader end(std::span<const std::uint8_t>(bytes).subspan(r.offset()), name);
            if ((end.u32("block type") & 0x3FFFFFFF) == hunk_id::End) r.skip(4, "HUNK_END");
        }
    }
    // LoadSeg stops reading after the last hunk the header declares; what follows is
    // another program's business (a cruncher's packed payload, which its decruncher reads
    // from the file itself).
    if (!r.atEnd() && warnings)
        warnings->push_back(std::to_string(r.remaining()) + " bytes follow the last of the " +
                            std::to_string(count) + " hunks; AmigaDOS does not load them");
    return file;
}

HunkFile loadHunkFile(const std::string& path, std::vector<std::string>* warnings) {
    const auto bytes = readFileBytes(path, kMaxHunkBytes * 4ull);
    return readHunkFile(bytes, path, warnings);
}

namespace {

class LongWriter {
public:
    void u32(std::uint32_t v) {
        out_.push_back(std::uint8_t(v >> 24));
        out_.push_back(std::uint8_t(v >> 16));
        out_.push_back(std::uint8_t(v >> 8));
        out_.push_back(std::uint8_t(v));
    }
    // Bytes padded with zeros to a whole number of longwords.
    void padded(const std::uint8_t* p, std::size_t n) {
        out_.insert(out_.end(), p, p + n);
        out_.resize(out_.size() + (4 - n % 4) % 4, 0);
    }
    static std::uint32_t longsFor(std::size_t bytes) { return std::uint32_t((bytes + 3) / 4); }
    std::vector<std::uint8_t> take() { return std::move(out_); }

private:
    std::vector<std::uint8_t> out_;
};

} // namespace

std::vector<std::uint8_t> writeHunkFile(const HunkFile& file) {
    LongWriter w;
    const auto count = std::uint32_t(file.sections.size());
    w.u32(hunk_id::Header);
    w.u32(0);  // no resident libraries
    w.u32(count);
    w.u32(0);
    w.u32(count ? count - 1 : 0);
    for (const HunkSection& s : file.sections) {
        const std::uint32_t flags = s.memory == HunkMemory::Chip ? 1u : s.memory == HunkMemory::Fast ? 2u : 0u;
        w.u32(flags << 30 | LongWriter::longsFor(s.allocSize));
    }
    for (const HunkSection& s : file.sections) {
        if (s.kind == HunkKind::Bss) {
            w.u32(hunk_id::Bss);
            w.u32(LongWriter::longsFor(s.allocSize));
        } else {
            w.u32(s.kind == HunkKind::Code ? hunk_id::Code : hunk_id::Data);
            w.u32(LongWriter::longsFor(s.data.size()));
            w.padded(s.data.data(), s.data.size());
        }
        if (!s.relocs.empty()) {
            auto relocs = s.relocs;
            std::sort(relocs.begin(), relocs.end(), [](const HunkReloc& a, const HunkReloc& b) {
                return a.target != b.target ? a.target < b.target : a.offset < b.offset;
            });
            w.u32(hunk_id::Reloc32);
            for (std::size_t i = 0; i < relocs.size();) {
                std::size_t j = i;
                while (j < relocs.size() && relocs[j].target == relocs[i].target) ++j;
                w.u32(std::uint32_t(j - i));
                w.u32(relocs[i].target);
                for (; i < j; ++i) w.u32(relocs[i].offset);
            }
            w.u32(0);
        }
        if (!s.symbols.empty()) {
            w.u32(hunk_id::Symbol);
            for (const HunkSymbol& sym : s.symbols) {
                // A length of 0 ends the table, so an empty name (a reader gets one from a
                // name of NULs) is written as one longword of NULs.
                w.u32(std::max(1u, LongWriter::longsFor(sym.name.size())));
                w.padded(reinterpret_cast<const std::uint8_t*>(sym.name.data()), sym.name.size());
                if (sym.name.empty()) w.u32(0);
                w.u32(sym.offset);
            }
            w.u32(0);
        }
        for (const HunkLineBlock& block : s.lineBlocks) {
            const std::uint32_t nameLongs = LongWriter::longsFor(block.file.size());
            w.u32(hunk_id::Debug);
            w.u32(3 + nameLongs + 2 * std::uint32_t(block.lines.size()));
            w.u32(0);  // base offset: our line offsets are already hunk-relative
            w.u32(hunk_id::LineTag);
            w.u32(nameLongs);
            w.padded(reinterpret_cast<const std::uint8_t*>(block.file.data()), block.file.size());
            for (const HunkLine& l : block.lines) {
                w.u32(l.line);
                w.u32(l.offset);
            }
        }
        for (const auto& raw : s.otherDebug) {
            w.u32(hunk_id::Debug);
            w.u32(LongWriter::longsFor(raw.size()));
            w.padded(raw.data(), raw.size());
        }
        w.u32(hunk_id::End);
    }
    for (const auto& raw : file.trailingDebug) {
        w.u32(hunk_id::Debug);
        w.u32(LongWriter::longsFor(raw.size()));
        w.padded(raw.data(), raw.size());
        w.u32(hunk_id::End);
    }
    return w.take();
}

} // namespace copperline
