// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-fuzzseeds OUT: writes the seed corpora of the fuzz targets that are not plain
// copies of guest programs (tests/fuzz/CMakeLists.txt copies those), at build time, so no
// binary seed lives in git:
//
//   OUT/state_fuzzer/frame5.state       the machine state_fuzzer starts from, saved
//   OUT/adf_fuzzer/*.blocks             OFS disks from the root block on (adf_fuzzer.cpp)
//   OUT/json_rpc_fuzzer/*.txt           protocol lines, good and bad
//   OUT/sampler_fuzzer/*                a sampler.bin and a frame of precise samples
//   OUT/coverage_fuzzer/*               coverage.bin with ranges, and one with a sparse map
//   OUT/uss_fuzzer/minimal.uss          a small WinUAE state (tests/emu/state/uss_builder.h)
//   OUT/capture_fuzzer/*                a profile.jsonl, a profile.json with rom_symbols, slot
//                                       records (capture_fuzzer.cpp: the first byte chooses)
//   OUT/unwind_table_fuzzer/*           unwind tables of a few rows
//   OUT/lcov_fuzzer/*                   lcov .info files
//   OUT/gdb_packet_fuzzer/*             a client's packets (framed by framePacket), acks, 0x03
//   OUT/dap_message_fuzzer/*            an editor's requests, whole, split and two in one

#include "app/gdb/rsp_packet.h"
#include "emu/chipset/slot_record.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/coverage/coverage_file.h"
#include "profiler/debuginfo/unwind_table.h"
#include "profiler/sampling/sampler.h"
#include "profiler/sampling/system_samples.h"
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/ofs.h"
#include "tests/emu/state/state_fuzz_machine.h"
#include "tests/emu/state/uss_builder.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace copperline;

namespace {

void write(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
    std::filesystem::create_directories(path.parent_path());
    writeFileBytes(path.string(), bytes);
}

void write(const std::filesystem::path& path, const std::string& text) {
    write(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

// The image from the root block to the end of the disk, where writeVolume puts everything
// but the boot block, up to its last block that is not all zeros.
std::vector<std::uint8_t> fromRoot(const AdfImage& image) {
    const std::size_t rootAt = std::size_t(ofs::kRootBlock) * ofs::kBlockBytes;
    std::vector<std::uint8_t> out(image.bytes.begin() + std::ptrdiff_t(rootAt), image.bytes.end());
    std::size_t end = out.size();
    while (end > 0 && out[end - 1] == 0)
        --end;
    out.resize((end + ofs::kBlockBytes - 1) / ofs::kBlockBytes * ofs::kBlockBytes);
    return out;
}

std::vector<std::uint8_t> filled(std::size_t n, unsigned seed) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = std::uint8_t((i * 131 + seed) >> 3);
    return v;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: copperline-fuzzseeds OUT\n");
        return 2;
    }
    const std::filesystem::path out = argv[1];
    try {
        // The machine state_fuzzer starts from.
        write(out / "state_fuzzer/frame5.state", testing::stateFuzzMachine()->saveState());

        ofs::Volume small;
        small.files = {{"S/Startup-Sequence", {'r', 'u', 'n', '\n'}}, {"c/prog", filled(3000, 1)}};
        write(out / "adf_fuzzer/small.blocks", fromRoot(ofs::writeVolume(small)));
        // A file of more than 72 data blocks needs an extension block.
        ofs::Volume large;
        large.name = "Large";
        large.bootable = false;
        large.files = {{"big", filled(40000, 7)}, {"a/b/c/deep", filled(10, 3)}};
        write(out / "adf_fuzzer/large.blocks", fromRoot(ofs::writeVolume(large)));

        const char* lines[] = {
            R"({"jsonrpc":"2.0","id":1,"method":"status"})",
            R"({"jsonrpc":"2.0","id":"a","method":"mem.read","params":{"address":4,"length":16}})",
            R"({"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"events":["event.frame"],"frame_interval":5}})",
            R"({"id":3,"method":"step_frame","params":{"n":2}})",
            R"([{"jsonrpc":"2.0","id":1,"method":"status"}])",
            R"({"jsonrpc":"1.0","id":1.5,"method":7,"params":[1]})",
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"mem.write\",\"params\":{\"data\":"
            "\"\\u00e9\\ud800\"}}",
        };
        std::string stream;
        for (std::size_t i = 0; i < std::size(lines); ++i) {
            write(out / ("json_rpc_fuzzer/line" + std::to_string(i) + ".txt"),
                  std::string(lines[i]) + "\n");
            stream += std::string(lines[i]) + (i % 2 ? "\r\n" : "\n\n");
        }
        write(out / "json_rpc_fuzzer/stream.txt", stream);

        // sampler_fuzzer: a sampler.bin (first byte 0) and a frame of precise samples (1).
        SystemSamplesHeader h;
        h.hz = 1000;
        h.cckPerSecond = 3546895;
        h.startCck = 70938;
        h.flags = sampler_format::kJitter;
        std::vector<std::uint8_t> sampler = {0};
        const std::vector<std::uint8_t> header = encodeSamplerHeader(h);
        sampler.insert(sampler.end(), header.begin(), header.end());
        SystemSampleModule lib;
        lib.name = "exec.library";
        lib.start = 0xF80100;
        lib.end = 0xF80400;
        lib.base = 0x676;
        lib.lvos = {{-198, 0xF80100}, {-210, 0xF80300}};
        lib.lvoEnds = {0xF80180, 0xF80400};
        appendModuleRecord(sampler, lib);
        appendTaskRecord(sampler, 0x2000, "Shell Process");
        SystemSample one;
        one.task = 0x2000;
        for (int i = 0; i < 8; ++i) {
            one.cck = 70938 + 3546u * std::uint64_t(i);
            one.pc = 0xF80100 + 2u * unsigned(i);
            one.flags = i == 3 ? sampler_format::kStopped : 0;
            one.sr = i == 3 ? 0x2000 : 0x0000;
            one.irqLevel = i == 5 ? 3 : 0;
            appendSampleRecord(sampler, one);
        }
        lib.atEnd = true;
        appendModuleRecord(sampler, lib);
        write(out / "sampler_fuzzer/sampler.bin", sampler);
        // Two samples, the second an [IRQ] entry; the stream is 4 words, so the split is 16.
        const auto le = [](std::vector<std::uint8_t>& o, std::uint32_t w) {
            for (int i = 0; i < 4; ++i) o.push_back(std::uint8_t(w >> (8 * i)));
        };
        std::vector<std::uint8_t> precise = {1, 0, 16};
        for (const std::uint32_t w : {0x00001000u, 0xFFFFFFFFu - 4, samples_format::kIrqMarker, 0xFFFFFFFFu - 22})
            le(precise, w);
        precise.insert(precise.end(), {'C', 'L', 'S', 'M'});
        le(precise, samples_format::kMetaVersion);
        le(precise, 2);
        for (const std::uint32_t w : {4u, 3u, 1u, samples_format::kNotIrq, samples_format::kNotIrq, 0x1000u, 0x2000u,
                                      samples_format::kContextKnown})
            le(precise, w);
        for (const std::uint32_t w : {22u, 22u, 0u, 3u, 27u, 0xF80100u, 0x2000u,
                                      samples_format::kContextKnown | 0x2300u | 3u << samples_format::kContextLevelShift})
            le(precise, w);
        write(out / "sampler_fuzzer/precise.frame", precise);

        // coverage_fuzzer: two ranges (an odd size among them); a sparse map.
        CoverageData ranges;
        ranges.ranges.push_back({0x200000, 9, {3, 0, 1, 0, 7}});
        ranges.ranges.push_back({0xF80000, 6, {1, 2, 2}});
        ranges.outside = 40;
        ranges.total = 11 + 5 + 40;
        write(out / "coverage_fuzzer/ranges.bin", coverageBinBytes(ranges));
        CoverageData sparse;
        sparse.sparse = {{0xC00010, 5}, {0xC00012, 1}, {0xF81234, 9}};
        sparse.outside = 2;
        sparse.total = 17;
        write(out / "coverage_fuzzer/sparse.bin", coverageBinBytes(sparse));

        // uss_fuzzer: a small state of the fuzzer's own ROM (FS-UAE's is copied by CMake).
        write(out / "uss_fuzzer/minimal.uss", testing::writeUss(testing::minimalUss(testing::testRom())));
        // ... and one without slow RAM, as the fuzzer's machine is: an input like it is
        // loaded without building another machine, and half the memory to copy and compare.
        {
            auto chunks = testing::minimalUss(testing::testRom());
            std::erase_if(chunks, [](const testing::UssChunk& c) { return c.name == "BRAM"; });
            write(out / "uss_fuzzer/chip-only.uss", testing::writeUss(chunks));
        }

        // capture_fuzzer: the first byte chooses the file (0 profile.jsonl, 1 profile.json,
        // 2 slot records).
        write(out / "capture_fuzzer/frames.jsonl",
              std::string("\0", 1) +
                  "{\"frame\":3,\"seq\":1,\"first_cck\":212814,\"length_cck\":70938,\"idle_source\":\"uaelib\","
                  "\"busy_cck\":35000,\"idle_cck\":35938}\n"
                  "{\"marker\":\"reposition\",\"at_cck\":283752}\n"
                  "{\"frame\":4,\"seq\":2,\"first_cck\":283752,\"length_cck\":70938,\"owner_cck\":{\"cpu\":1}}\n"
                  "{\"frame\":5,\"seq\":3,\"first_c");
        AmigaOsSnapshot os;
        os.romRanges.push_back({"kickstart", 0xF80000, 0x1000000});
        os.exec = AmigaOsExec{};
        os.exec->base = 0x676;
        AmigaOsLibrary exec;
        exec.base = 0x676;
        exec.name = "exec.library";
        exec.type = 9;
        exec.negSize = 12;
        exec.lvos = {{-6, 0x4EF9, 0xF80100}, {-12, 0x4EF9, std::nullopt}};
        os.libraries.push_back(exec);
        AmigaOsResident res;
        res.address = 0xF80000;
        res.name = "exec.library";
        res.type = 9;
        res.endSkip = 0xF81000;
        os.residents.push_back(res);
        os.problems.push_back({"LibList", 0x1234, "a loop"});
        const nlohmann::json summary = {{"state", "done"},
                                        {"started", {{"capture_cck", 212814}}},
                                        {"sampling", {{"registers", true}}},
                                        {"rom_symbols", romSymbolsJson(os)}};
        write(out / "capture_fuzzer/summary.json", std::string("\1", 1) + summary.dump());
        std::vector<SlotRecord> slots(2 * 227);
        slots[3] = {0, BusOwner::Cpu, 0, 2, 0, slot_flag::Write, 0xBEEF, 0x100, 0};
        slots[300] = {0x180, BusOwner::Copper, 0, 2, 0, slot_flag::Register, 0x0F00, 0x200, 0};
        std::vector<std::uint8_t> slotBytes = {2};
        const auto* raw = reinterpret_cast<const std::uint8_t*>(slots.data());
        slotBytes.insert(slotBytes.end(), raw, raw + slots.size() * sizeof(SlotRecord));
        write(out / "capture_fuzzer/slots.bin", slotBytes);

        // unwind_table_fuzzer: four bytes of text size (big-endian), then six-byte rows.
        UnwindTable table;
        table.textSize = 8;
        table.rows.resize(4);
        table.rows[1].cfaOffset = 8;
        table.rows[2].cfaRegister = UnwindRow::kA5;
        table.rows[2].cfaOffset = 8;
        table.rows[2].a5Offset = -8;
        std::vector<std::uint8_t> unwind = {0, 0, 0, 8};
        const std::vector<std::uint8_t> rows = table.bytes();
        unwind.insert(unwind.end(), rows.begin(), rows.end());
        write(out / "unwind_table_fuzzer/four-rows.bin", unwind);
        std::vector<std::uint8_t> perByte = {0, 0, 0, 0};
        for (const std::uint8_t b : rows) perByte.push_back(b);
        write(out / "unwind_table_fuzzer/no-size.bin", perByte);

        // lcov_fuzzer: what profile-report --format lcov writes, and another tool's.
        write(out / "lcov_fuzzer/ours.info",
              std::string("# copperline coverage\n# instructions 120\nTN:\nSF:/src/main.c\nFN:3,main\n"
                          "FN:10,helper\nFNDA:1,main\nFNDA:0,helper\nFNF:2\nFNH:1\nDA:3,1\nDA:4,5\nDA:10,0\n"
                          "LF:3\nLH:2\nend_of_record\n"));
        write(out / "lcov_fuzzer/other.info",
              std::string("TN:test\r\nSF:a.c\r\nDA:1,2,abcdef\r\nBRDA:1,0,0,1\r\nend_of_record\r\nSF:b.c\r\n"
                          "end_of_record\r\n"));
        // gdb_packet_fuzzer: what gdb sends, each packet framed (checksum and escapes) by
        // framePacket; X carries every byte that must be escaped.
        using copperline::gdb::framePacket;
        const std::string gdbX = framePacket(std::string("X4000,8:\x24\x23\x7d\x2a\x00\x03\xff\x7e", 16));
        const std::pair<const char*, std::string> packets[] = {
            {"qsupported", framePacket("qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=m68k")},
            {"g", framePacket("g")},
            {"m", framePacket("m400,20")},
            {"z0", framePacket("Z0,4000,2")},
            {"x", gdbX},
            {"G", framePacket("G" + std::string(18 * 8, '0'))},
            {"P", framePacket("P11=00fc00d2")},
            {"p", framePacket("pf")},
            {"ack", "+"},
            {"nack", "-"},
            {"interrupt", "\x03"},
            // A session: acks, packets, an interrupt between them, a wrong checksum.
            {"session", "+" + framePacket("qSupported:swbreak+") + "+" + framePacket("?") + "+" +
                            framePacket("c") + "\x03-" + framePacket("vCont;s:1") + "$g#00+" + gdbX},
        };
        for (const auto& [name, bytes] : packets)
            write(out / ("gdb_packet_fuzzer/" + std::string(name)), bytes);

        // dap_message_fuzzer: requests framed with their Content-Length counted here.
        const auto dapFrame = [](const std::string& body) {
            return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        };
        const std::string initialize =
            R"({"seq":1,"type":"request","command":"initialize","arguments":{"clientID":"vscode","adapterID":"copperline","linesStartAt1":true,"pathFormat":"path"}})";
        const std::string launch =
            R"({"seq":2,"type":"request","command":"launch","arguments":{"program":"/tmp/prog","stopOnEntry":true}})";
        const std::string breakpoints =
            R"({"seq":3,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":"/tmp/dbg.c"},"breakpoints":[{"line":12},{"line":20,"condition":"i > 3"}]}})";
        write(out / "dap_message_fuzzer/initialize", dapFrame(initialize));
        write(out / "dap_message_fuzzer/launch", dapFrame(launch));
        write(out / "dap_message_fuzzer/setbreakpoints", dapFrame(breakpoints));
        // Two in one chunk, the second after another header.
        write(out / "dap_message_fuzzer/two", dapFrame(initialize) + "Content-Type: application/json\r\n" +
                                                  dapFrame(launch));
        // A refused header, then a request whose header lines are among others, its block
        // ended by a bare LF.
        write(out / "dap_message_fuzzer/split",
              "X-Note: a\r\nContent-Length: 5x\r\n\r\n{}" + std::string("Content-Type: json\r\nContent-Length: ") +
                  std::to_string(breakpoints.size()) + "\r\nX-More: 1\n\n" + breakpoints);
        write(out / "dap_message_fuzzer/lowercase",
              "content-length: " + std::to_string(launch.size()) + "\ncontent-type: application/json\n\n" + launch);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copperline-fuzzseeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
