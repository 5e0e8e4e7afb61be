// copperline-fuzzseeds OUT: writes the seed corpora of the fuzz targets that are not plain
// copies of guest programs (tests/fuzz/CMakeLists.txt copies those), at build time, so no
// binary seed lives in git:
//
//   OUT/state_fuzzer/frame5.state       the machine state_fuzzer starts from, saved
//   OUT/adf_fuzzer/*.blocks             OFS disks from the root block on (adf_fuzzer.cpp)
//   OUT/json_rpc_fuzzer/*.txt           protocol lines, good and bad

#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#include "emu/media/ofs.h"
#include "tests/emu/state/state_fuzz_machine.h"

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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copperline-fuzzseeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
