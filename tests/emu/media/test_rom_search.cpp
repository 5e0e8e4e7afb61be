// SPDX-License-Identifier: GPL-3.0-or-later
// Where the default AROS ROMs are found: COPPERLINE_ROM_DIR, the user's data folder, fs-uae's
// data file (extracted, SHA-1 checked) and the build tree, in that order, with fake folders
// and fake fs-uae archives in a temporary folder; and the SHA-1 and ZIP readers underneath.

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"
#include "emu/media/rom.h"
#include "emu/media/sha1.h"
#include "emu/media/zip_member.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <filesystem>
#include <zlib.h>

using namespace copperline;
namespace fs = std::filesystem;

namespace {

struct Member {
    std::string name;
    std::vector<std::uint8_t> bytes;
    bool deflate = true;
};

void le16(std::vector<std::uint8_t>& out, std::uint32_t v) {
    out.push_back(std::uint8_t(v));
    out.push_back(std::uint8_t(v >> 8));
}
void le32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    le16(out, v & 0xFFFF);
    le16(out, v >> 16);
}

// A ZIP archive as fs-uae's data file is one: each member deflated (or stored), a central
// directory, and its end record.
std::vector<std::uint8_t> zipOf(const std::vector<Member>& members) {
    std::vector<std::uint8_t> out, directory;
    for (const Member& m : members) {
        std::vector<std::uint8_t> packed = m.bytes;
        if (m.deflate) {
            z_stream z{};
            deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
            packed.resize(deflateBound(&z, uLong(m.bytes.size())));
            z.next_in = const_cast<Bytef*>(m.bytes.data());
            z.avail_in = uInt(m.bytes.size());
            z.next_out = packed.data();
            z.avail_out = uInt(packed.size());
            deflate(&z, Z_FINISH);
            packed.resize(z.total_out);
            deflateEnd(&z);
        }
        const std::uint32_t crc = std::uint32_t(crc32(0, m.bytes.data(), uInt(m.bytes.size())));
        const std::uint32_t offset = std::uint32_t(out.size());
        const std::uint32_t method = m.deflate ? 8 : 0;
        le32(out, 0x04034B50);
        le16(out, 20), le16(out, 0), le16(out, method), le16(out, 0), le16(out, 0);
        le32(out, crc), le32(out, std::uint32_t(packed.size())),
            le32(out, std::uint32_t(m.bytes.size()));
        le16(out, std::uint32_t(m.name.size())), le16(out, 0);
        out.insert(out.end(), m.name.begin(), m.name.end());
        out.insert(out.end(), packed.begin(), packed.end());
        le32(directory, 0x02014B50);
        le16(directory, 20), le16(directory, 20), le16(directory, 0), le16(directory, method);
        le16(directory, 0), le16(directory, 0);
        le32(directory, crc), le32(directory, std::uint32_t(packed.size()));
        le32(directory, std::uint32_t(m.bytes.size()));
        le16(directory, std::uint32_t(m.name.size())), le16(directory, 0), le16(directory, 0);
        le16(directory, 0), le16(directory, 0), le32(directory, 0), le32(directory, offset);
        directory.insert(directory.end(), m.name.begin(), m.name.end());
    }
    const std::uint32_t at = std::uint32_t(out.size());
    out.insert(out.end(), directory.begin(), directory.end());
    le32(out, 0x06054B50);
    le16(out, 0), le16(out, 0), le16(out, std::uint32_t(members.size())),
        le16(out, std::uint32_t(members.size()));
    le32(out, std::uint32_t(directory.size())), le32(out, at), le16(out, 0);
    return out;
}

std::vector<std::uint8_t> realRom() {
    return readFileBytes(COPPERLINE_ROM_DIR "/aros-amiga-m68k-rom.bin");
}
std::vector<std::uint8_t> realExt() {
    return readFileBytes(COPPERLINE_ROM_DIR "/aros-amiga-m68k-ext.bin");
}

void putRoms(const std::string& dir, std::vector<std::uint8_t> rom, std::vector<std::uint8_t> ext) {
    fs::create_directories(dir);
    writeFileBytes(dir + "/" + kArosRomName, rom);
    writeFileBytes(dir + "/" + kArosExtRomName, ext);
}

// fs-uae's data file with the members where Debian's fs-uae package has them.
std::string fakeFsUae(const std::string& dir, std::vector<std::uint8_t> rom,
                      std::vector<std::uint8_t> ext) {
    const std::string path = dir + "/fs-uae.dat";
    writeFileBytes(path, zipOf({{"share/fs-uae/something-else.txt", {'h', 'i'}, false},
                                {"share/fs-uae/aros-amiga-m68k-rom.bin", std::move(rom), true},
                                {"share/fs-uae/aros-amiga-m68k-ext.bin", std::move(ext), false}}));
    return path;
}

std::string refusal(const RomSearch& s) {
    try {
        const RomFolder f = findRomDir(s);
        return "found " + f.dir;
    } catch (const MediaError& e) {
        return e.what();
    }
}

} // namespace

class TestRomSearch : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string root_;
    int case_ = 0;

    // A fresh folder for each case, the search's places inside it, none of them there yet.
    RomSearch places() {
        root_ = tmp_.filePath(QString::number(++case_)).toStdString();
        fs::create_directories(root_);
        return {"", root_ + "/data/copperline/roms", root_ + "/usr/share/fs-uae/fs-uae.dat",
                root_ + "/build/roms"};
    }

private slots:
    void sha1KnownAnswers() {
        const auto hex = [](const std::string& s) {
            return sha1Hex(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
        };
        QCOMPARE(hex(""), std::string("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
        QCOMPARE(hex("abc"), std::string("a9993e364706816aba3e25717850c26c9cd0d89d"));
        QCOMPARE(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("84983e441c3bd26ebaae4aa1f95129e5e54670f1"));
        QCOMPARE(hex(std::string(1000000, 'a')),
                 std::string("34aa973cd4c4daa4f61eeb2bdbad27316534016f"));
        QCOMPARE(sha1Hex(realRom()), std::string(kArosRomSha1));
    }

    void zipMembers() {
        const RomSearch s = places();
        const std::string dat = fakeFsUae(root_, {1, 2, 3}, std::vector<std::uint8_t>(5000, 7));
        QCOMPARE(readZipMember(dat, "share/fs-uae/aros-amiga-m68k-rom.bin", 100),
                 (std::vector<std::uint8_t>{1, 2, 3}));
        QCOMPARE(readZipMember(dat, "share/fs-uae/aros-amiga-m68k-ext.bin", 5000).size(),
                 std::size_t(5000));
        QVERIFY_THROWS_EXCEPTION(MediaError,
                                 readZipMember(dat, "share/fs-uae/aros-amiga-m68k-ext.bin", 4999));
        try {
            readZipMember(dat, "share/fs-uae/kick.rom", 100);
            QFAIL("found a member that is not there");
        } catch (const MediaError& e) {
            QVERIFY2(std::string(e.what()).find("holds no share/fs-uae/kick.rom") !=
                         std::string::npos,
                     e.what());
        }
        // A damaged member (its CRC no longer matches) and a file that is no archive.
        auto bytes = readFileBytes(dat);
        bytes[30 + std::strlen("share/fs-uae/something-else.txt")] ^= 1;
        writeFileBytes(dat, bytes);
        QVERIFY_THROWS_EXCEPTION(MediaError,
                                 readZipMember(dat, "share/fs-uae/something-else.txt", 100));
        writeFileBytes(dat, std::vector<std::uint8_t>(100, 0));
        QVERIFY_THROWS_EXCEPTION(MediaError,
                                 readZipMember(dat, "share/fs-uae/something-else.txt", 100));
    }

    // COPPERLINE_ROM_DIR is the only place looked in when it is set.
    void overrideComesFirst() {
        RomSearch s = places();
        putRoms(s.userDir, realRom(), realExt());
        putRoms(root_ + "/mine", {1}, {2});
        s.overrideDir = root_ + "/mine";
        QCOMPARE(findRomDir(s).dir, s.overrideDir);
        s.overrideDir = root_ + "/empty";
        const std::string why = refusal(s);
        QVERIFY2(why.find("COPPERLINE_ROM_DIR is " + s.overrideDir + ", which does not hold") !=
                         std::string::npos &&
                     why.find("--rom FILE") != std::string::npos,
                 why.c_str());
    }

    // Extracted once: the first search writes both images, the next finds them.
    void extractsFromFsUaeOnce() {
        const RomSearch s = places();
        fs::create_directories(root_ + "/usr/share/fs-uae");
        fakeFsUae(root_ + "/usr/share/fs-uae", realRom(), realExt());
        putRoms(s.buildDir, realRom(), realExt());
        const RomFolder first = findRomDir(s);
        QCOMPARE(first.dir, s.userDir);
        QCOMPARE(first.extracted, s.fsUaeData);
        QCOMPARE(sha1Hex(readFileBytes(s.userDir + "/" + kArosRomName)), std::string(kArosRomSha1));
        QCOMPARE(sha1Hex(readFileBytes(s.userDir + "/" + kArosExtRomName)),
                 std::string(kArosExtRomSha1));
        QCOMPARE(std::distance(fs::directory_iterator(s.userDir), fs::directory_iterator()), 2L);
        const RomFolder again = findRomDir(s);
        QCOMPARE(again.dir, s.userDir);
        QVERIFY(again.extracted.empty());
        // Found there even after fs-uae has gone.
        fs::remove(s.fsUaeData);
        QCOMPARE(findRomDir(s).dir, s.userDir);
    }

    // An image in the user's folder that is not AROS's (damaged, cut short) is extracted again.
    void damagedCopyIsReplaced() {
        const RomSearch s = places();
        fs::create_directories(root_ + "/usr/share/fs-uae");
        fakeFsUae(root_ + "/usr/share/fs-uae", realRom(), realExt());
        auto cut = realRom();
        cut.resize(256 * 1024);
        putRoms(s.userDir, cut, realExt());
        const RomFolder f = findRomDir(s);
        QCOMPARE(f.dir, s.userDir);
        QVERIFY(!f.extracted.empty());
        QCOMPARE(sha1Hex(readFileBytes(s.userDir + "/" + kArosRomName)), std::string(kArosRomSha1));
    }

    // An fs-uae whose AROS is not the one expected is refused, and nothing is written; the
    // build tree's folder is the fallback.
    void wrongSha1IsRefused() {
        const RomSearch s = places();
        fs::create_directories(root_ + "/usr/share/fs-uae");
        auto other = realExt();
        other[1000] ^= 0xFF;
        fakeFsUae(root_ + "/usr/share/fs-uae", realRom(), other);
        const std::string why = refusal(s);
        QVERIFY2(why.find("aros-amiga-m68k-ext.bin in " + s.fsUaeData + " has SHA-1 ") !=
                         std::string::npos &&
                     why.find(std::string("expected ") + kArosExtRomSha1) != std::string::npos &&
                     why.find("--rom FILE") != std::string::npos,
                 why.c_str());
        QVERIFY(!fs::exists(s.userDir + "/" + kArosRomName));
        putRoms(s.buildDir, {1}, {2});
        QCOMPARE(findRomDir(s).dir, s.buildDir);
    }

    // Without fs-uae: the build tree's folder, else a message naming the package and the flag.
    void buildTreeLastThenAdvice() {
        RomSearch s = places();
        const std::string why = refusal(s);
        QVERIFY2(why.find("Debian's fs-uae package (" + s.fsUaeData +
                          " is missing): install it (apt install fs-uae)") != std::string::npos &&
                     why.find("extracted into " + s.userDir) != std::string::npos &&
                     why.find("COPPERLINE_ROM_DIR") != std::string::npos &&
                     why.find("--rom FILE (and --ext-rom FILE)") != std::string::npos,
                 why.c_str());
        putRoms(s.buildDir, {1}, {2});
        QCOMPARE(findRomDir(s).dir, s.buildDir);
        // The user's folder comes before the build tree's.
        putRoms(s.userDir, realRom(), realExt());
        QCOMPARE(findRomDir(s).dir, s.userDir);
        // With no folder to extract into, the build tree's is still found; without it, the
        // message says why.
        s.userDir.clear();
        QCOMPARE(findRomDir(s).dir, s.buildDir);
        s.buildDir.clear();
        QVERIFY(refusal(s).find("neither XDG_DATA_HOME nor HOME is set") != std::string::npos);
    }

    // The environment's search: XDG_DATA_HOME, else HOME; FS_UAE_DAT, else Debian's path.
    void environment() {
        const QByteArray xdg = qgetenv("XDG_DATA_HOME"), home = qgetenv("HOME"),
                         dat = qgetenv("FS_UAE_DAT");
        qputenv("XDG_DATA_HOME", "/x/data");
        qunsetenv("FS_UAE_DAT");
        QCOMPARE(romSearchFromEnvironment().userDir, std::string("/x/data/copperline/roms"));
        QCOMPARE(romSearchFromEnvironment().fsUaeData, std::string("/usr/share/fs-uae/fs-uae.dat"));
        qunsetenv("XDG_DATA_HOME");
        qputenv("HOME", "/home/amiga");
        qputenv("FS_UAE_DAT", "/opt/fs-uae.dat");
        QCOMPARE(romSearchFromEnvironment().userDir,
                 std::string("/home/amiga/.local/share/copperline/roms"));
        QCOMPARE(romSearchFromEnvironment().fsUaeData, std::string("/opt/fs-uae.dat"));
        QVERIFY(fs::path(romSearchFromEnvironment().buildDir).is_absolute());
        xdg.isNull() ? qunsetenv("XDG_DATA_HOME") : qputenv("XDG_DATA_HOME", xdg);
        home.isNull() ? qunsetenv("HOME") : qputenv("HOME", home);
        dat.isNull() ? qunsetenv("FS_UAE_DAT") : qputenv("FS_UAE_DAT", dat);
    }

    // Debian's own fs-uae data file, when the package is installed (scripts/setup.sh installs it).
    void debianFsUae() {
        if (!fs::exists("/usr/share/fs-uae/fs-uae.dat")) QSKIP("fs-uae is not installed");
        RomSearch s = places();
        s.fsUaeData = "/usr/share/fs-uae/fs-uae.dat";
        const RomFolder f = findRomDir(s);
        QCOMPARE(f.dir, s.userDir);
        QCOMPARE(f.extracted, s.fsUaeData);
        QVERIFY(loadRom(s.userDir + "/" + kArosRomName).checksumOk);
    }
};

QTEST_GUILESS_MAIN(TestRomSearch)
#include "test_rom_search.moc"
