// SPDX-License-Identifier: GPL-3.0-or-later
// copperline-cputest: runs the SingleStepTests MC68000 vectors (plain or gzip JSON) through
// the core and compares registers, SR, PC, the prefetch queue, memory, the clock count and
// every bus transaction. Schema: ../shared/testdata/m68000/README.md.

#include "emu/cpu/m68k.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>
#include <zlib.h>

namespace {

using copperline::m68k::BusCycle;
using copperline::m68k::BusOp;
using json = nlohmann::json;

constexpr const char* kDataNames[8] = {"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"};
constexpr const char* kAddressNames[7] = {"a0", "a1", "a2", "a3", "a4", "a5", "a6"};

enum class Kind { Idle, Read, Write, ReadError, WriteError };

const char* kindName(Kind k) {
    switch (k) {
    case Kind::Idle: return "n";
    case Kind::Read: return "r";
    case Kind::Write: return "w";
    case Kind::ReadError: return "re";
    case Kind::WriteError: return "we";
    }
    return "?";
}

Kind kindFromName(const std::string& s) {
    if (s == "r") return Kind::Read;
    if (s == "w") return Kind::Write;
    if (s == "re") return Kind::ReadError;
    if (s == "we") return Kind::WriteError;
    return Kind::Idle;
}

struct Transaction {
    Kind kind = Kind::Idle;
    unsigned cycles = 0;
    unsigned fc = 0;
    std::uint32_t address = 0;
    bool word = true;
    std::uint16_t data = 0;
    bool uds = true;
    bool lds = true;

    std::string str() const {
        std::ostringstream s;
        if (kind == Kind::Idle) {
            s << "[n " << cycles << "]";
        } else {
            s << "[" << kindName(kind) << " " << cycles << " fc" << fc << " $" << std::hex
              << address << (word ? " .w " : " .b ") << "$" << data << std::dec << " " << uds << lds
              << "]";
        }
        return s.str();
    }
};

// Flat 16 MiB memory that logs every cycle with its start clock.
class VectorBus {
public:
    VectorBus() : mem_(1u << 24, 0) {}

    unsigned access(BusCycle& c) {
        std::uint32_t a = c.address & 0xFFFFFE;
        switch (c.op) {
        case BusOp::Read:
            c.data = std::uint16_t((mem_[a] << 8) | mem_[a + 1]);
            log('r', c.cycle, c, c.data);
            break;
        case BusOp::Write:
            if (c.upper) poke(a, std::uint8_t(c.data >> 8));
            if (c.lower) poke(a + 1, std::uint8_t(c.data));
            log('w', c.cycle, c, c.data);
            break;
        case BusOp::TestAndSet: {
            c.data = std::uint16_t((mem_[a] << 8) | mem_[a + 1]);
            log('r', c.cycle, c, c.data);
            std::uint16_t v = c.data | (c.upper ? 0x8000 : 0x0080);
            if (c.upper) poke(a, std::uint8_t(v >> 8));
            if (c.lower) poke(a + 1, std::uint8_t(v));
            log('w', c.cycle + 6, c, v);
            break;
        }
        case BusOp::InterruptAcknowledge: c.data = copperline::m68k::kAutovector; break;
        }
        return 0;
    }
    void addressErrorCycle(const BusCycle& c) {
        Entry e{c.op == BusOp::Write ? 'W' : 'R', c.cycle, c};
        e.c.data = 0;
        log_.push_back(e);
    }

    void poke(std::uint32_t a, std::uint8_t v) {
        a &= 0xFFFFFF;
        mem_[a] = v;
        touched_.push_back(a);
    }
    std::uint8_t peek(std::uint32_t a) const { return mem_[a & 0xFFFFFF]; }
    void clear() {
        for (std::uint32_t a : touched_)
            mem_[a] = 0;
        touched_.clear();
        log_.clear();
    }

    // The log as the vector schema spells it, idle gaps included.
    std::vector<Transaction> transactions(std::uint64_t start, std::uint64_t end) const {
        std::vector<Transaction> out;
        std::uint64_t at = start;
        for (const Entry& e : log_) {
            if (e.start > at) out.push_back(idle(unsigned(e.start - at)));
            Transaction t;
            t.kind = e.kind == 'r'   ? Kind::Read
                     : e.kind == 'w' ? Kind::Write
                     : e.kind == 'R' ? Kind::ReadError
                                     : Kind::WriteError;
            t.cycles = 4;
            t.fc = unsigned(e.c.fc);
            t.address = e.c.address & 0xFFFFFE;
            t.word = e.c.upper && e.c.lower;
            t.uds = e.c.upper;
            t.lds = e.c.lower;
            std::uint16_t m = std::uint16_t((t.uds ? 0xFF00 : 0) | (t.lds ? 0x00FF : 0));
            t.data = e.data & m;
            out.push_back(t);
            at = e.start + 4;
        }
        if (end > at) out.push_back(idle(unsigned(end - at)));
        return out;
    }
    static Transaction idle(unsigned n) {
        Transaction t;
        t.cycles = n;
        return t;
    }

private:
    struct Entry {
        char kind;
        std::uint64_t start;
        BusCycle c;
        std::uint16_t data = 0;
    };
    void log(char kind, std::uint64_t start, const BusCycle& c, std::uint16_t data) {
        log_.push_back({kind, start, c, data});
    }

    std::vector<std::uint8_t> mem_;
    std::vector<std::uint32_t> touched_;
    std::vector<Entry> log_;
};

using Cpu = copperline::m68k::Cpu<VectorBus>;

std::vector<Transaction> expectedTransactions(const json& list) {
    std::vector<Transaction> out;
    for (const json& e : list) {
        Transaction t;
        t.kind = kindFromName(e[0].get<std::string>());
        t.cycles = e[1].get<unsigned>();
        if (t.kind == Kind::Idle) {
            if (!out.empty() && out.back().kind == Kind::Idle) {
                out.back().cycles += t.cycles;
                continue;
            }
            if (t.cycles == 0) continue;
        } else {
            t.fc = e[2].get<unsigned>();
            t.address = e[3].get<std::uint32_t>() & 0xFFFFFE;
            t.word = e[4].get<std::string>() == ".w";
            t.data = e[5].get<std::uint16_t>();
            t.uds = e[6].get<int>() != 0;
            t.lds = e[7].get<int>() != 0;
        }
        out.push_back(t);
    }
    return out;
}

bool sameTransaction(const Transaction& a, const Transaction& b) {
    if (a.kind != b.kind || a.cycles != b.cycles) return false;
    if (a.kind == Kind::Idle) return true;
    if (a.fc != b.fc || a.address != b.address) return false;
    if (a.kind == Kind::ReadError || a.kind == Kind::WriteError) return true;
    return a.word == b.word && a.uds == b.uds && a.lds == b.lds && a.data == b.data;
}

class Runner {
public:
    bool verbose = false;

    // Returns an empty string when the test passes, else the first difference.
    std::string run(const json& test) {
        bus_.clear();
        const json& in = test["initial"];
        copperline::m68k::Registers r;
        for (int i = 0; i < 8; ++i)
            r.d[i] = in[kDataNames[i]].get<std::uint32_t>();
        for (int i = 0; i < 7; ++i)
            r.a[i] = in[kAddressNames[i]].get<std::uint32_t>();
        r.sr = in["sr"].get<std::uint16_t>();
        r.usp = in["usp"].get<std::uint32_t>();
        r.ssp = in["ssp"].get<std::uint32_t>();
        r.a[7] = (r.sr & 0x2000) ? r.ssp : r.usp;
        r.pc = in["pc"].get<std::uint32_t>();
        r.ird = in["prefetch"][0].get<std::uint16_t>();
        r.irc = in["prefetch"][1].get<std::uint16_t>();
        for (const json& p : in["ram"])
            bus_.poke(p[0].get<std::uint32_t>(), p[1].get<std::uint8_t>());
        cpu_.setRegisters(r);
        std::uint64_t start = cpu_.cycles();
        cpu_.step();
        std::uint64_t end = cpu_.cycles();

        const json& fin = test["final"];
        copperline::m68k::Registers o = cpu_.registers();
        std::ostringstream diff;
        auto check = [&](const char* name, std::uint32_t want, std::uint32_t got) {
            if (want != got && diff.tellp() == 0)
                diff << name << ": want $" << std::hex << want << " got $" << got << std::dec;
        };
        for (int i = 0; i < 8; ++i)
            check(kDataNames[i], fin[kDataNames[i]].get<std::uint32_t>(), o.d[i]);
        for (int i = 0; i < 7; ++i)
            check(kAddressNames[i], fin[kAddressNames[i]].get<std::uint32_t>(), o.a[i]);
        bool s = o.sr & 0x2000;
        check("usp", fin["usp"].get<std::uint32_t>(), s ? o.usp : o.a[7]);
        check("ssp", fin["ssp"].get<std::uint32_t>(), s ? o.a[7] : o.ssp);
        check("sr", fin["sr"].get<std::uint32_t>(), o.sr);
        check("pc", fin["pc"].get<std::uint32_t>(), o.pc);
        check("prefetch[0]", fin["prefetch"][0].get<std::uint32_t>(), o.ird);
        check("prefetch[1]", fin["prefetch"][1].get<std::uint32_t>(), o.irc);
        for (const json& p : fin["ram"]) {
            std::uint32_t a = p[0].get<std::uint32_t>();
            if (diff.tellp() == 0 && bus_.peek(a) != p[1].get<std::uint8_t>()) {
                diff << "ram[$" << std::hex << a << "]: want $" << p[1].get<unsigned>() << " got $"
                     << unsigned(bus_.peek(a)) << std::dec;
            }
        }
        check("length", test["length"].get<std::uint32_t>(), std::uint32_t(end - start));
        if (diff.tellp() == 0) {
            std::vector<Transaction> want = expectedTransactions(test["transactions"]);
            std::vector<Transaction> got = bus_.transactions(start, end);
            std::size_t n = std::max(want.size(), got.size());
            for (std::size_t i = 0; i < n; ++i) {
                bool ok = i < want.size() && i < got.size() && sameTransaction(want[i], got[i]);
                if (!ok) {
                    diff << "transaction " << i << ": want "
                         << (i < want.size() ? want[i].str() : "(none)") << " got "
                         << (i < got.size() ? got[i].str() : "(none)");
                    break;
                }
            }
        }
        return diff.str();
    }

private:
    VectorBus bus_;
    Cpu cpu_{bus_};
};

bool readFile(const std::string& path, std::string& out) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return false;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, std::size_t(n));
    gzclose(f);
    return n >= 0;
}

} // namespace

int main(int argc, char** argv) {
    Runner runner;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--verbose" || a == "-v") {
            runner.verbose = true;
        } else if (a == "--help" || a == "-h") {
            std::printf("usage: copperline-cputest [--verbose] FILE|DIR...\n");
            return 0;
        } else if (std::filesystem::is_directory(a)) {
            std::vector<std::string> dir;
            for (const auto& e : std::filesystem::directory_iterator(a)) {
                std::string p = e.path().string();
                if (p.ends_with(".json") || p.ends_with(".json.gz")) dir.push_back(p);
            }
            std::sort(dir.begin(), dir.end());
            files.insert(files.end(), dir.begin(), dir.end());
        } else {
            files.push_back(a);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "copperline-cputest: no test files given\n");
        return 2;
    }
    std::uint64_t passed = 0, failed = 0;
    bool error = false;
    for (const std::string& path : files) {
        std::string text;
        if (!readFile(path, text)) {
            std::fprintf(stderr, "%s: cannot read\n", path.c_str());
            error = true;
            continue;
        }
        json tests;
        try {
            tests = json::parse(text);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
            error = true;
            continue;
        }
        std::uint64_t ok = 0;
        for (const json& t : tests) {
            std::string d = runner.run(t);
            if (d.empty()) {
                ++ok;
            } else if (runner.verbose) {
                std::printf("  %s: %s\n", t["name"].get<std::string>().c_str(), d.c_str());
            }
        }
        std::string name = std::filesystem::path(path).filename().string();
        std::size_t dot = name.find(".json");
        if (dot != std::string::npos) name.erase(dot);
        std::printf("%s: %llu/%zu\n", name.c_str(), static_cast<unsigned long long>(ok),
                    tests.size());
        passed += ok;
        failed += tests.size() - ok;
    }
    std::printf("%llu passed, %llu failed\n", static_cast<unsigned long long>(passed),
                static_cast<unsigned long long>(failed));
    return (failed || error) ? 1 : 0;
}
