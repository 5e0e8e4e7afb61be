// SPDX-License-Identifier: GPL-3.0-or-later
#include "emu/media/ofs.h"

#include "emu/media/byte_reader.h"

#include <algorithm>
#include <map>

namespace copperline::ofs {

namespace {

// Block types and secondary types (AmigaDOS manual, "The AmigaDOS disk format").
constexpr std::uint32_t T_HEADER = 2, T_DATA = 8, T_LIST = 16;
constexpr std::int32_t ST_ROOT = 1, ST_USERDIR = 2, ST_FILE = -3;

// Longword indices within a 128-longword block, shared by root, directory, file header
// and extension blocks.
constexpr unsigned L_TYPE = 0, L_KEY = 1, L_HIGHSEQ = 2, L_HTSIZE = 3, L_FIRSTDATA = 4,
                   L_CHECKSUM = 5;
constexpr unsigned L_TABLE = 6; // hash table or data block table, 72 longs
constexpr unsigned L_BMFLAG = 78, L_BMPAGES = 79, L_BYTESIZE = 81, L_PROTECT = 80;
constexpr unsigned L_DATE = 105; // days, minutes, ticks (root: last alteration)
constexpr unsigned L_NAME = 108; // BCPL string: length byte then up to 30 characters
constexpr unsigned L_VDATE = 118, L_CDATE = 121;
constexpr unsigned L_HASHCHAIN = 124, L_PARENT = 125, L_EXTENSION = 126, L_SECTYPE = 127;
// Data block header.
constexpr unsigned D_HEADER = 1, D_SEQ = 2, D_SIZE = 3, D_NEXT = 4;

// A fixed date (1 January 1993, 12:00): the disks we write are the same every time.
constexpr std::uint32_t kDays = 5480, kMinutes = 720, kTicks = 0;

struct Block {
    std::uint32_t l[128] = {};
    void setName(const std::string& name) {
        std::uint8_t bytes[32] = {};
        bytes[0] = std::uint8_t(name.size());
        std::copy(name.begin(), name.end(), bytes + 1);
        for (unsigned i = 0; i < 8; ++i)
            l[L_NAME + i] = std::uint32_t(bytes[4 * i]) << 24 |
                            std::uint32_t(bytes[4 * i + 1]) << 16 |
                            std::uint32_t(bytes[4 * i + 2]) << 8 | bytes[4 * i + 3];
    }
    void setDate(unsigned at) {
        l[at] = kDays;
        l[at + 1] = kMinutes;
        l[at + 2] = kTicks;
    }
};

std::uint32_t getLong(const std::uint8_t* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}
void putLong(std::uint8_t* p, std::uint32_t v) {
    p[0] = std::uint8_t(v >> 24);
    p[1] = std::uint8_t(v >> 16);
    p[2] = std::uint8_t(v >> 8);
    p[3] = std::uint8_t(v);
}

// Header and data blocks: the longword at 5 makes all 128 sum to zero.
std::uint32_t blockChecksum(const std::uint32_t* l, unsigned at) {
    std::uint32_t sum = 0;
    for (unsigned i = 0; i < 128; ++i)
        if (i != at) sum += l[i];
    return std::uint32_t(0 - sum);
}

std::string upper(const std::string& s) {
    std::string u = s;
    for (auto& c : u)
        if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
    return u;
}

void checkName(const std::string& name, const std::string& path) {
    if (name.empty() || name.size() > kMaxNameLength)
        throw MediaError("'" + path + "': AmigaDOS names are 1 to 30 characters ('" + name +
                         "' is " + std::to_string(name.size()) + ")");
    for (unsigned char c : name)
        if (c == ':' || c == '/' || c < 0x20)
            throw MediaError("'" + path + "': '" + name +
                             "' holds a character AmigaDOS names cannot hold");
}

std::vector<std::string> splitPath(const std::string& path) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : path) {
        if (c == '/') {
            if (!cur.empty()) parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) parts.push_back(cur);
    return parts;
}

class Writer {
public:
    explicit Writer(const Volume& v) : volume_(v) {
        used_.assign(adf::kBlocks, false);
        used_[0] = used_[1] = used_[kRootBlock] = used_[kBitmapBlock] = true;
        Block& root = blocks_[kRootBlock];
        root.l[L_TYPE] = T_HEADER;
        root.l[L_HTSIZE] = kHashSize;
        root.l[L_BMFLAG] = 0xFFFFFFFF; // the bitmap is valid
        root.l[L_BMPAGES] = kBitmapBlock;
        root.setDate(L_DATE);
        root.setDate(L_VDATE);
        root.setDate(L_CDATE);
        root.l[L_SECTYPE] = std::uint32_t(ST_ROOT);
        std::string name = v.name.empty() ? "Copperline" : v.name;
        checkName(name, "volume name");
        root.setName(name);
        dirs_[""] = kRootBlock;
    }

    AdfImage build() {
        for (const File& f : volume_.files)
            addFile(f);
        AdfImage img;
        img.name = volume_.name;
        img.bytes.assign(adf::kImageBytes, 0);
        for (auto& [n, b] : blocks_) {
            if (b.l[L_TYPE] == T_HEADER || b.l[L_TYPE] == T_LIST || b.l[L_TYPE] == T_DATA)
                b.l[L_CHECKSUM] = blockChecksum(b.l, L_CHECKSUM);
            for (unsigned i = 0; i < 128; ++i)
                putLong(img.bytes.data() + n * kBlockBytes + 4 * i, b.l[i]);
        }
        for (auto& [n, bytes] : raw_)
            std::copy(bytes.begin(), bytes.end(), img.bytes.begin() + n * kBlockBytes);
        writeBitmap(img);
        if (volume_.bootable) {
            const auto boot = bootBlock(bootCode());
            std::copy(boot.begin(), boot.end(), img.bytes.begin());
        } else {
            // A formatted but not bootable disk still says DOS (with no valid checksum).
            const std::uint8_t dos[4] = {'D', 'O', 'S', 0};
            std::copy(dos, dos + 4, img.bytes.begin());
        }
        return img;
    }

private:
    unsigned allocate() {
        // AmigaDOS allocates from the root outwards; we take the blocks after the root,
        // then the ones before it.
        for (unsigned n = kBitmapBlock + 1; n < adf::kBlocks; ++n)
            if (!used_[n]) return used_[n] = true, n;
        for (unsigned n = 2; n < kRootBlock; ++n)
            if (!used_[n]) return used_[n] = true, n;
        throw MediaError("the files do not fit on an 880 KB floppy");
    }

    void link(unsigned parent, unsigned child, const std::string& name) {
        Block& p = blocks_[parent];
        const unsigned slot = L_TABLE + nameHash(name);
        blocks_[child].l[L_HASHCHAIN] = p.l[slot];
        p.l[slot] = child;
        blocks_[child].l[L_PARENT] = parent;
    }

    unsigned directory(const std::vector<std::string>& parts, std::size_t count,
                       const std::string& path) {
        std::string key;
        unsigned parent = kRootBlock;
        for (std::size_t i = 0; i < count; ++i) {
            checkName(parts[i], path);
            key += upper(parts[i]) + "/";
            if (files_.count(key.substr(0, key.size() - 1)))
                throw MediaError("'" + path + "': '" + parts[i] + "' is a file, not a directory");
            auto it = dirs_.find(key);
            if (it != dirs_.end()) {
                parent = it->second;
                continue;
            }
            const unsigned n = allocate();
            Block& d = blocks_[n];
            d.l[L_TYPE] = T_HEADER;
            d.l[L_KEY] = n;
            d.setDate(L_DATE);
            d.setName(parts[i]);
            d.l[L_SECTYPE] = std::uint32_t(ST_USERDIR);
            link(parent, n, parts[i]);
            dirs_[key] = n;
            parent = n;
        }
        return parent;
    }

    void addFile(const File& f) {
        const auto parts = splitPath(f.path);
        if (parts.empty()) throw MediaError("a file needs a name");
        const unsigned parent = directory(parts, parts.size() - 1, f.path);
        const std::string& name = parts.back();
        checkName(name, f.path);
        std::string key;
        for (const auto& p : parts)
            key += upper(p) + "/";
        key.pop_back();
        if (files_.count(key) || dirs_.count(key + "/"))
            throw MediaError("'" + f.path + "' is on the disk twice");
        files_.insert({key, 0});

        const unsigned header = allocate();
        Block& h = blocks_[header];
        h.l[L_TYPE] = T_HEADER;
        h.l[L_KEY] = header;
        h.l[L_BYTESIZE] = std::uint32_t(f.data.size());
        h.l[L_PROTECT] = 0; // read, write, execute and delete allowed (the bits are "deny")
        h.setDate(L_DATE);
        h.setName(name);
        h.l[L_SECTYPE] = std::uint32_t(ST_FILE);
        link(parent, header, name);

        const std::size_t count = (f.data.size() + kDataBytesPerBlock - 1) / kDataBytesPerBlock;
        unsigned table = header; // the header, then extension blocks, 72 pointers each
        unsigned inTable = 0;
        unsigned previous = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (inTable == kHashSize) {
                const unsigned ext = allocate();
                Block& e = blocks_[ext];
                e.l[L_TYPE] = T_LIST;
                e.l[L_KEY] = ext;
                e.l[L_PARENT] = header;
                e.l[L_SECTYPE] = std::uint32_t(ST_FILE);
                blocks_[table].l[L_EXTENSION] = ext;
                table = ext;
                inTable = 0;
            }
            const unsigned n = allocate();
            // The table runs backwards from its last entry (ADF FAQ, "file header block").
            blocks_[table].l[L_TABLE + kHashSize - 1 - inTable] = n;
            blocks_[table].l[L_HIGHSEQ] = ++inTable;
            if (i == 0) h.l[L_FIRSTDATA] = n;
            Block& d = blocks_[n];
            const std::size_t at = i * kDataBytesPerBlock;
            const std::size_t size = std::min<std::size_t>(kDataBytesPerBlock, f.data.size() - at);
            d.l[L_TYPE] = T_DATA;
            d.l[D_HEADER] = header;
            d.l[D_SEQ] = std::uint32_t(i + 1);
            d.l[D_SIZE] = std::uint32_t(size);
            std::uint8_t bytes[kDataBytesPerBlock] = {};
            std::copy(f.data.begin() + std::ptrdiff_t(at),
                      f.data.begin() + std::ptrdiff_t(at + size), bytes);
            for (unsigned k = 0; k < kDataBytesPerBlock / 4; ++k)
                d.l[6 + k] = getLong(bytes + 4 * k);
            if (previous) blocks_[previous].l[D_NEXT] = n;
            previous = n;
        }
    }

    void writeBitmap(AdfImage& img) {
        // One bit per block from block 2, 1 = free; longword 0 is the checksum.
        std::uint32_t l[128] = {};
        for (unsigned n = 2; n < adf::kBlocks; ++n)
            if (!used_[n]) l[1 + (n - 2) / 32] |= 1u << ((n - 2) % 32);
        l[0] = blockChecksum(l, 0);
        for (unsigned i = 0; i < 128; ++i)
            putLong(img.bytes.data() + kBitmapBlock * kBlockBytes + 4 * i, l[i]);
    }

    const Volume& volume_;
    std::vector<bool> used_;
    std::map<unsigned, Block> blocks_;
    std::map<unsigned, std::vector<std::uint8_t>> raw_;
    std::map<std::string, unsigned> dirs_, files_;
};

// ---- reading ------------------------------------------------------------------------

struct Reader {
    const AdfImage& img;
    std::uint32_t at(unsigned block, unsigned index) const {
        return getLong(img.bytes.data() + std::size_t(block) * kBlockBytes + 4 * index);
    }
    void check(unsigned block, const char* what) const {
        if (block < 2 || block >= adf::kBlocks)
            throw MediaError(img.name + ": " + what + " points at block " + std::to_string(block) +
                             ", outside the disk");
        std::uint32_t l[128];
        for (unsigned i = 0; i < 128; ++i)
            l[i] = at(block, i);
        if (blockChecksum(l, L_CHECKSUM) != l[L_CHECKSUM])
            throw MediaError(img.name + ": block " + std::to_string(block) + " (" + what +
                             ") has a bad checksum");
    }
    void header(unsigned block, std::uint32_t type, std::int32_t secType, const char* what) const {
        check(block, what);
        if (at(block, L_TYPE) != type || std::int32_t(at(block, L_SECTYPE)) != secType)
            throw MediaError(img.name + ": block " + std::to_string(block) + " is not a " + what);
    }
    std::string name(unsigned block) const {
        const std::uint8_t* p = img.bytes.data() + std::size_t(block) * kBlockBytes + 4 * L_NAME;
        const unsigned n = std::min<unsigned>(p[0], kMaxNameLength);
        return std::string(reinterpret_cast<const char*>(p + 1), n);
    }
    unsigned lookup(unsigned dir, const std::string& component) const {
        unsigned n = at(dir, L_TABLE + nameHash(component));
        for (unsigned guard = 0; n && guard < adf::kBlocks; ++guard) {
            check(n, "directory entry");
            if (upper(name(n)) == upper(component)) return n;
            n = at(n, L_HASHCHAIN);
        }
        return 0;
    }
    unsigned find(const std::string& path) const {
        header(kRootBlock, T_HEADER, ST_ROOT, "root block");
        unsigned n = kRootBlock;
        for (const auto& part : splitPath(path)) {
            if (std::int32_t(at(n, L_SECTYPE)) == ST_FILE)
                throw MediaError(img.name + ": '" + path + "': a file is not a directory");
            n = lookup(n, part);
            if (!n) throw MediaError(img.name + ": '" + path + "' is not on the disk");
        }
        return n;
    }
};

} // namespace

unsigned nameHash(const std::string& name) {
    std::uint32_t hash = std::uint32_t(name.size());
    for (unsigned char c : name) {
        const unsigned u = (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c;
        hash = (hash * 13 + u) & 0x7FF;
    }
    return hash % kHashSize;
}

std::span<const std::uint8_t> bootCode() {
    static const std::uint8_t code[] = {
        0x43, 0xFA, 0x00, 0x18, // lea     dosname(pc),a1
        0x4E, 0xAE, 0xFF, 0xA0, // jsr     _LVOFindResident(a6)    (-96)
        0x4A, 0x80,             // tst.l   d0
        0x67, 0x0A,             // beq.s   .fail
        0x20, 0x40,             // movea.l d0,a0
        0x20, 0x68, 0x00, 0x16, // movea.l RT_INIT(a0),a0          (struct Resident +22)
        0x70, 0x00,             // moveq   #0,d0                   (boot: call A0)
        0x4E, 0x75,             // rts
        0x70, 0xFF,             // .fail: moveq #-1,d0             (no boot)
        0x4E, 0x75,             // rts
        'd',  'o',  's',  '.',  'l', 'i', 'b', 'r', 'a', 'r', 'y', 0, // dosname
    };
    return code;
}

std::uint32_t bootBlockChecksum(std::span<const std::uint8_t> block) {
    std::uint32_t sum = 0;
    for (unsigned i = 0; i < 256; ++i) {
        if (i == 1) continue;
        const std::uint32_t v = getLong(block.data() + 4 * i);
        const std::uint32_t before = sum;
        sum += v;
        if (sum < before) ++sum; // end-around carry
    }
    return ~sum;
}

std::vector<std::uint8_t> bootBlock(std::span<const std::uint8_t> code) {
    if (code.size() > 2 * kBlockBytes - 12)
        throw MediaError("boot code of " + std::to_string(code.size()) +
                         " bytes does not fit in a boot block (" +
                         std::to_string(2 * kBlockBytes - 12) + " at most)");
    std::vector<std::uint8_t> b(2 * kBlockBytes, 0);
    b[0] = 'D', b[1] = 'O', b[2] = 'S', b[3] = 0; // DOS\0: OFS
    putLong(b.data() + 8, kRootBlock);
    std::copy(code.begin(), code.end(), b.begin() + 12);
    putLong(b.data() + 4, bootBlockChecksum(b));
    return b;
}

void installBootBlock(AdfImage& image, std::span<const std::uint8_t> code) {
    const auto b = bootBlock(code);
    std::copy(b.begin(), b.end(), image.bytes.begin());
}

bool bootBlockValid(const AdfImage& image) {
    if (image.bytes.size() < 2 * kBlockBytes) return false;
    const auto& b = image.bytes;
    return b[0] == 'D' && b[1] == 'O' && b[2] == 'S' &&
           getLong(b.data() + 4) == bootBlockChecksum(b);
}

AdfImage writeVolume(const Volume& volume) {
    return Writer(volume).build();
}

std::string volumeName(const AdfImage& image) {
    Reader r{image};
    r.header(kRootBlock, T_HEADER, ST_ROOT, "root block");
    return r.name(kRootBlock);
}

std::vector<std::string> listDirectory(const AdfImage& image, const std::string& path) {
    Reader r{image};
    const unsigned dir = r.find(path);
    std::vector<std::string> names;
    for (unsigned i = 0; i < kHashSize; ++i) {
        unsigned n = r.at(dir, L_TABLE + i);
        for (unsigned guard = 0; n && guard < adf::kBlocks; ++guard) {
            r.check(n, "directory entry");
            names.push_back(r.name(n));
            n = r.at(n, L_HASHCHAIN);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::uint8_t> readFile(const AdfImage& image, const std::string& path) {
    Reader r{image};
    const unsigned header = r.find(path);
    r.header(header, T_HEADER, ST_FILE, "file header");
    const std::uint32_t size = r.at(header, L_BYTESIZE);
    if (size > adf::kImageBytes)
        throw MediaError(image.name + ": '" + path + "' claims an impossible size");
    std::vector<std::uint8_t> out;
    out.reserve(size);
    unsigned table = header;
    std::uint32_t seq = 1;
    for (unsigned guard = 0; table && guard < adf::kBlocks; ++guard) {
        if (table != header) r.header(table, T_LIST, ST_FILE, "file extension block");
        const std::uint32_t count = r.at(table, L_HIGHSEQ);
        if (count > kHashSize)
            throw MediaError(image.name + ": block " + std::to_string(table) +
                             " lists too many blocks");
        for (unsigned i = 0; i < count; ++i) {
            const unsigned d = r.at(table, L_TABLE + kHashSize - 1 - i);
            r.check(d, "data block");
            if (r.at(d, L_TYPE) != T_DATA || r.at(d, D_HEADER) != header || r.at(d, D_SEQ) != seq)
                throw MediaError(image.name + ": block " + std::to_string(d) +
                                 " is not data block " + std::to_string(seq) + " of '" + path +
                                 "'");
            const std::uint32_t n = r.at(d, D_SIZE);
            if (n > kDataBytesPerBlock || out.size() + n > size)
                throw MediaError(image.name + ": data block " + std::to_string(d) +
                                 " has a wrong size");
            const std::uint8_t* p = image.bytes.data() + std::size_t(d) * kBlockBytes + 24;
            out.insert(out.end(), p, p + n);
            ++seq;
        }
        table = r.at(table, L_EXTENSION);
    }
    if (out.size() != size)
        throw MediaError(image.name + ": '" + path + "' holds " + std::to_string(out.size()) +
                         " of its " + std::to_string(size) + " bytes");
    return out;
}

} // namespace copperline::ofs
