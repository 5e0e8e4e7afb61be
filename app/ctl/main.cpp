// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-ctl: the client of a running Copperline, and the offline tools.

#include "app/ctl/client.h"
#include "app/ctl/commands.h"
#include "app/ctl/dap/dap_server.h"
#include "app/version.h"
#include "emu/media/byte_reader.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace copperline::ctl {

std::uint32_t parseAddress(const std::string& text, const std::string& what) {
    std::string digits = text;
    int base = 10;
    if (digits.starts_with("$")) {
        digits = digits.substr(1);
        base = 16;
    } else if (digits.starts_with("0x") || digits.starts_with("0X")) {
        digits = digits.substr(2);
        base = 16;
    }
    if (digits.empty() || digits.size() > 10)
        throw UsageError{what + ": '" + text + "' is not an address"};
    unsigned long long v = 0;
    for (const char c : digits) {
        const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                      : std::isxdigit(static_cast<unsigned char>(c))
                          ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                          : 99;
        if (d >= base) throw UsageError{what + ": '" + text + "' is not an address"};
        v = v * unsigned(base) + unsigned(d);
    }
    if (v > 0xFFFFFFFFull) throw UsageError{what + ": '" + text + "' does not fit in 32 bits"};
    return std::uint32_t(v);
}

} // namespace copperline::ctl

namespace {

void usage(FILE* out) {
    std::fputs(
        "Usage: copperline-ctl COMMAND [ARGS]\n"
        "\n"
        "Offline tools:\n"
        "  hunkinfo PROG [--lines]   describe an AmigaOS hunk executable\n"
        "  symbolize PROG [--elf FILE] [--bases B0,B1,...] [--source-map FROM=TO] ADDR...\n"
        "                            the function, inlined frames, file and line of addresses\n"
        "  size-report PROG [--elf PROG.elf] [--out FILE] [--force] [--source-map FROM=TO]\n"
        "                            a .cpuprofile of the program weighted in bytes\n"
        "  exe2adf PROG [--out FILE] [--force] [--args ARGS] [--name VOLUME] [--bootblock CODE]\n"
        "                            a bootable OFS floppy whose Startup-Sequence runs PROG\n"
        "  profile STATE.clstate --out PATH [--frames 1..100] [--format native|bartman]\n"
        "                 [--rom ROM] [--ext-rom EXT]\n"
        "                            profile a saved machine offline: samples, slots, memory, pictures\n"
        "  profile-report DIR --program PROG [--elf FILE] [--out FILE] [--per-frame]\n"
        "                 [--format chrome|bartman|lcov] [--source-map FROM=TO]... [--force]\n"
        "                            a capture's precise samples as a .cpuprofile\n"
        "  profile-report DIR --elf FILE [--base ADDR | --bases B0,B1,...] [--out FILE] ...\n"
        "                            the same for code that is no executable (a boot block),\n"
        "                            named from its ELF alone where the loader put it\n"
        "  profile-report DIR --format bartman [--out FILE] [--force]\n"
        "                            a saved state's capture (no program) for Bartman's viewer\n"
        "  profile-report DIR [--program PROG] --format folded|trace|table [--out FILE]\n"
        "                 [--from sampler|samples] [--contain RANGES] [--agree]\n"
        "                            the system sampler's samples (or the precise ones, exact) by\n"
        "                            task, context, module, function; --agree checks the two agree\n"
        "  profile-diff A B [--program-a PROG] [--program-b PROG] [--format text|json|markdown]\n"
        "                 [--budget CCK] [--top N] [--fail-if EXPR]... [--out FILE] [--force]\n"
        "                            two captures (or .cpuprofile files) compared by function,\n"
        "                            bus owner and frame time; exit 1 when a threshold trips\n"
        "  unwind-table PROG [--elf FILE] --out FILE [--force]\n"
        "                            the call-stack unwind table for sampling, and FILE.b64\n"
        "  --version                 print the version\n"
        "\n"
        "The running emulator (copperline --control NAME; docs/control-protocol.md):\n"
        "  [--info FILE | --socket NAME] [--timeout SECONDS] [--hex | --raw] METHOD [JSON]\n"
        "                            one call; prints the result, exits 1 on an error\n"
        "  [--info FILE | --socket NAME] [--hex | --raw] --repl\n"
        "                            METHOD [JSON] lines; replies and notifications as they come\n"
        "  --hex prints addresses and registers as \"$00FC0F2A\" (the default on a terminal),\n"
        "  --raw as the protocol's numbers (the default into a pipe or a file)\n"
        "\n"
        "The Debug Adapter Protocol (docs/dap.md), for VS Code and other editors:\n"
        "  --dap                     one session on stdin and stdout\n"
        "  --dap-listen PORT         sessions on 127.0.0.1:PORT (0: a free port, printed)\n",
        out);
}

} // namespace

int main(int argc, char** argv) {
    using namespace copperline::ctl;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    try {
        if (copperline::dap::isDapOption(argv[1])) return copperline::dap::serve(argc - 1, argv + 1);
        if (isClientOption(argv[1])) return controlClient(argc - 1, argv + 1);
        if (cmd == "hunkinfo") return hunkInfo(argc - 2, argv + 2);
        if (cmd == "symbolize") return symbolize(argc - 2, argv + 2);
        if (cmd == "size-report") return sizeReport(argc - 2, argv + 2);
        if (cmd == "exe2adf") return exe2adf(argc - 2, argv + 2);
        if (cmd == "profile-report") return profileReport(argc - 2, argv + 2);
        if (cmd == "profile") return profileOffline(argc - 2, argv + 2);
        if (cmd == "profile-diff") return profileDiff(argc - 2, argv + 2);
        if (cmd == "unwind-table") return unwindTable(argc - 2, argv + 2);
        if (cmd == "--version") {
            std::printf("copperline-ctl %s\n", copperline::kVersion);
            return 0;
        }
        if (cmd == "--help" || cmd == "-h") {
            usage(stdout);
            return 0;
        }
    } catch (const UsageError& e) {
        std::fprintf(stderr, "copperline-ctl: %s\n", e.message.c_str());
        usage(stderr);
        return 2;
    } catch (const std::exception& e) {
        // MediaError and DebugInfoError say what is wrong with which file.
        std::fprintf(stderr, "copperline-ctl: %s\n", e.what());
        return 1;
    }
    // Anything else is a METHOD of the control protocol, for the running emulator.
    try {
        return controlClient(argc - 1, argv + 1);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "copperline-ctl: %s\n", e.message.c_str());
        usage(stderr);
        return 2;
    }
}
