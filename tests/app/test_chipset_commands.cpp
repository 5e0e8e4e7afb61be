// SPDX-License-Identifier: GPL-3.0-or-later
// The chipset debugger's commands on a bare-metal program that builds known Copper lists
// (tests/guest/chipset/chipset_debug.s): copper.list decodes exactly the list the program
// built and marks where the Copper stands in it, also after the record moved the machine;
// custom.writer names the Copper's MOVE or the CPU's instruction, whichever wrote a register
// last, custom.dump {writers} finds them all in one pass, and a write older than the record
// is beyond its history; mem.find finds the program's text, words and bytes, mem.regions
// names the memory map; bad input is refused with InvalidParams and leaves the machine as
// it was.

#include "emu/chipset/custom_regs.h"
#include "tests/app/chipset_debug_fixture.h"

#include <QtTest>

using namespace copperline;
using nlohmann::json;

namespace {

using testing::chipsetDebug;
using testing::chipsetDebugList1;
using testing::chipsetDebugSymbols;

json call(Emulator& e, const std::string& method, const json& params = json::object()) {
    const CommandResult r = e.call(method, params);
    if (!r.ok) qWarning("%s %s: %s", method.c_str(), params.dump().c_str(), r.errorMessage.c_str());
    return r.ok ? r.result : json{{"error", r.errorCode}, {"message", r.errorMessage}};
}

std::string hash(Emulator& e) {
    return e.call("state.hash").result.value("hash", std::string());
}

// The machine stands on line `vpos` of a frame well after the program set the Copper up.
std::unique_ptr<Emulator> standingAt(unsigned vpos, const Emulator::Options& options = {}) {
    auto e = chipsetDebug(options);
    [&] { QVERIFY(e->call("step_frame", {{"n", 3}}).ok); }();
    const CommandResult r = e->call("run_until", {{"vpos", vpos}, {"hpos", 0}});
    [&] { QVERIFY2(r.ok, r.errorMessage.c_str()); }();
    return e;
}

const json& entry(const json& dump, const std::string& name) {
    for (const json& r : dump["list"])
        if (r["name"] == name) return r;
    static const json none;
    return none;
}

} // namespace

class TestChipsetCommands : public QObject {
    Q_OBJECT
private slots:
    void copperListIsTheListTheProgramBuilt() {
        auto e = standingAt(0xA0);
        const json r = call(*e, "copper.list");
        QVERIFY2(!r.contains("error"), r.dump().c_str());
        QCOMPARE(r["list"], json(1));
        QCOMPARE(r["addr"].get<std::uint32_t>(), 0x30000u);
        QCOMPARE(r["cop1lc"].get<std::uint32_t>(), 0x30000u);
        QCOMPARE(r["cop2lc"].get<std::uint32_t>(), 0x30100u);
        QCOMPARE(r["end"], json("wait_ffff"));
        const json& ins = r["instructions"];
        const auto& built = chipsetDebugList1();
        QCOMPARE(ins.size(), built.size());
        const char* ops[] = {"move", "move", "wait", "skip", "move",
                             "wait", "move", "wait", "move", "wait"};
        for (std::size_t i = 0; i < built.size(); ++i) {
            QCOMPARE(ins[i]["addr"].get<std::uint32_t>(), std::uint32_t(0x30000 + 4 * i));
            QCOMPARE(ins[i]["words"][0].get<std::uint16_t>(), built[i][0]);
            QCOMPARE(ins[i]["words"][1].get<std::uint16_t>(), built[i][1]);
            QCOMPARE(ins[i]["op"], json(ops[i]));
        }
        // The MOVEs: register, name, value, and the value's bits.
        QCOMPARE(ins[0]["reg"].get<int>(), 0x180);
        QCOMPARE(ins[0]["reg_name"], json("COLOR00"));
        QCOMPARE(ins[0]["value"].get<int>(), 0x0F00);
        QCOMPARE(ins[0]["halts"], json(false));
        QCOMPARE(ins[0]["fields"][0]["name"], json("R"));
        QCOMPARE(ins[0]["fields"][0]["value"].get<int>(), 0xF);
        QCOMPARE(ins[1]["reg_name"], json("BPLCON0"));
        bool color = false;
        for (const json& f : ins[1]["fields"]) {
            if (f["name"] == "COLOR") color = f["value"] == 1;
            if (f["name"] == "BPU") QCOMPARE(f["value"].get<int>(), 0);
        }
        QVERIFY(color);
        QCOMPARE(ins[6]["reg_name"], json("COLOR01"));
        // WAIT and SKIP: position, masks, the blitter-finished-disable bit.
        QCOMPARE(ins[2]["vpos"].get<int>(), 0x40);
        QCOMPARE(ins[2]["hpos"].get<int>(), 0x06);
        QCOMPARE(ins[2]["vmask"].get<int>(), 0xFF);
        QCOMPARE(ins[2]["hmask"].get<int>(), 0xFE);
        QCOMPARE(ins[2]["bfd"], json(true));
        QCOMPARE(ins[3]["vpos"].get<int>(), 0x30);
        QCOMPARE(ins[3]["hpos"].get<int>(), 0x00);
        QCOMPARE(ins[5]["vpos"].get<int>(), 0x80);
        QCOMPARE(ins[5]["hpos"].get<int>(), 0x20);
        QCOMPARE(ins[5]["vmask"].get<int>(), 0xFF);
        QCOMPARE(ins[5]["hmask"].get<int>(), 0x00);
        QCOMPARE(ins[5]["bfd"], json(false));
        QCOMPARE(ins[9]["end"], json(true));
        QVERIFY(!ins[2].contains("end"));

        // Where the Copper is on line $A0: it waits for line $C0 (instruction 7), has run the
        // ones before it, and the SKIP passed over instruction 4.
        const bool executed[] = {true, true, true, true, false, true, true, false, false, false};
        for (std::size_t i = 0; i < built.size(); ++i) {
            QCOMPARE(ins[i]["executed"], json(executed[i]));
            QCOMPARE(ins[i]["current"], json(i == 7));
            QCOMPARE(ins[i]["skipped"], json(i == 4));
        }
        const json& c = r["copper"];
        QCOMPARE(c["state"], json("waiting"));
        QCOMPARE(c["phase"], json("wait"));
        QCOMPARE(c["current"].get<std::uint32_t>(), 0x3001Cu);
        QCOMPARE(c["pc"].get<std::uint32_t>(), 0x30020u);
        QCOMPARE(c["dma"], json(true));
        QCOMPARE(c["danger"], json(false));
        QCOMPARE(c["executed_known"], json(true));
        QCOMPARE(c["executed_this_frame"].get<int>(), 8);
        QCOMPARE(c["vpos"].get<int>(), 0xA0);
        QCOMPARE(c["runs"].size(), std::size_t(1));
        QCOMPARE(c["runs"][0]["start"].get<std::uint32_t>(), 0x30000u);

        // Asking changes nothing.
        const std::string before = hash(*e);
        QCOMPARE(call(*e, "copper.list", {{"list", 1}}), r);
        QCOMPARE(hash(*e), before);
    }

    void theOtherListsAndTheirEnds() {
        auto e = standingAt(0xA0);
        // List 2 halts the Copper on its MOVE to BLTSIZE (COPCON's danger bit is clear).
        json r = call(*e, "copper.list", {{"list", 2}});
        QCOMPARE(r["list"], json(2));
        QCOMPARE(r["addr"].get<std::uint32_t>(), 0x30100u);
        QCOMPARE(r["end"], json("halt"));
        QCOMPARE(r["instructions"].size(), std::size_t(2));
        QCOMPARE(r["instructions"][0]["reg_name"], json("COLOR02"));
        QCOMPARE(r["instructions"][0]["halts"], json(false));
        QCOMPARE(r["instructions"][1]["reg_name"], json("BLTSIZE"));
        QCOMPARE(r["instructions"][1]["halts"], json(true));
        for (const json& i : r["instructions"]) {
            QCOMPARE(i["current"], json(false));
            QCOMPARE(i["executed"], json(false));
        }
        // A list at an address: it ends in a strobe of COPJMP2.
        r = call(*e, "copper.list", {{"addr", "$30200"}});
        QVERIFY(r["list"].is_null());
        QCOMPARE(r["end"], json("jump"));
        QCOMPARE(r["instructions"].size(), std::size_t(2));
        QCOMPARE(r["instructions"][1]["reg_name"], json("COPJMP2"));
        QCOMPARE(r["instructions"][1]["jump"], (json{{"list", 2}, {"addr", 0x30100}}));
        // max cuts it short.
        r = call(*e, "copper.list", {{"list", 1}, {"max", 3}});
        QCOMPARE(r["instructions"].size(), std::size_t(3));
        QCOMPARE(r["end"], json("max"));
    }

    void theMarkersFollowTheCopper() {
        auto e = standingAt(0xD0);
        json r = call(*e, "copper.list");
        const json& ins = r["instructions"];
        QCOMPARE(ins.size(), std::size_t(10));
        // Past its last MOVE it waits at the end of the list.
        for (std::size_t i = 0; i < 9; ++i)
            QCOMPARE(ins[i]["executed"], json(i != 4));
        QCOMPARE(ins[9]["current"], json(true));
        QCOMPARE(r["copper"]["executed_this_frame"].get<int>(), 10);
        // The record stands the machine back a step: it replays from the frame before, so
        // what ran this frame is known there too.
        const json back = call(*e, "reverse_step");
        QCOMPARE(back["reason"], json("reverse"));
        r = call(*e, "copper.list");
        QCOMPARE(r["copper"]["executed_known"], json(true));
        QCOMPARE(r["copper"]["executed_this_frame"].get<int>(), 10);
        QCOMPARE(r["instructions"][8]["executed"], json(true));
        QCOMPARE(r["instructions"][9]["current"], json(true));
        // At the start of a frame the Copper starts at COP1LC again.
        QVERIFY(e->call("step_frame").ok);
        r = call(*e, "copper.list");
        QCOMPARE(r["list"], json(1));
        QVERIFY(r["copper"]["executed_this_frame"].get<int>() < 3);
    }

    void customWriterNamesTheCopperOrTheCpu() {
        const auto sym = chipsetDebugSymbols();
        // On line $A0 COLOR00 was last written by the list's first MOVE, at the frame's start.
        auto e = standingAt(0xA0);
        const std::uint64_t frame = call(*e, "status").value("frame", 0ull);
        json w = call(*e, "custom.writer", {{"reg", "COLOR00"}});
        QCOMPARE(w["outcome"], json("found"));
        QCOMPARE(w["name"], json("COLOR00"));
        QCOMPARE(w["offset"].get<int>(), 0x180);
        QCOMPARE(w["writer"]["by"], json("copper"));
        QCOMPARE(w["writer"]["copper_addr"].get<std::uint32_t>(), 0x30000u);
        QCOMPARE(w["writer"]["value"].get<int>(), 0x0F00);
        QCOMPARE(w["writer"]["frame"].get<std::uint64_t>(), frame);
        QCOMPARE(w["writer"]["vpos"].get<int>(), 0);
        QVERIFY(!w["writer"].contains("pc"));
        QCOMPARE(w["written"].get<int>(), 0x0F00);
        // BPLCON0, named in lower case: the second MOVE.
        w = call(*e, "custom.writer", {{"reg", "bplcon0"}});
        QCOMPARE(w["writer"]["copper_addr"].get<std::uint32_t>(), 0x30004u);

        // On line $D0, the MOVE after the WAIT for line $C0.
        QVERIFY(e->call("run_until", {{"vpos", 0xD0}, {"hpos", 0}}).ok);
        w = call(*e, "custom.writer", {{"reg", "COLOR00"}});
        QCOMPARE(w["writer"]["by"], json("copper"));
        QCOMPARE(w["writer"]["copper_addr"].get<std::uint32_t>(), 0x30020u);
        QCOMPARE(w["writer"]["vpos"].get<int>(), 0xC0);
        QVERIFY(w["writer"]["hpos"].get<int>() >= 0x4E);

        // On line $F0, the CPU's write on line $E0, by offset and by address alike.
        QVERIFY(e->call("run_until", {{"vpos", 0xF0}, {"hpos", 0}}).ok);
        const std::string before = hash(*e);
        const json regs = call(*e, "regs.get");
        for (const json& reg : {json("COLOR00"), json("0x180"), json("$DFF180"), json(384)}) {
            w = call(*e, "custom.writer", {{"reg", reg}});
            QCOMPARE(w["outcome"], json("found"));
            QCOMPARE(w["writer"]["by"], json("cpu"));
            QCOMPARE(w["writer"]["pc"].get<std::uint32_t>(), sym.at("cpu_color"));
            QCOMPARE(w["writer"]["value"].get<int>(), 0x0555);
            QCOMPARE(w["writer"]["vpos"].get<int>(), 0xE0);
            QVERIFY(!w["writer"].contains("copper_addr"));
        }
        // The pointer's halves, both written by one instruction.
        w = call(*e, "custom.writer", {{"reg", "COP1LCH"}});
        QCOMPARE(w["writer"]["pc"].get<std::uint32_t>(), sym.at("set_cop1lc"));
        QCOMPARE(w["writer"]["value"].get<int>(), 0x0003);
        w = call(*e, "custom.writer", {{"reg", 0x082}});
        QCOMPARE(w["name"], json("COP1LCL"));
        QCOMPARE(w["writer"]["pc"].get<std::uint32_t>(), sym.at("set_cop1lc"));
        QCOMPARE(w["writer"]["value"].get<int>(), 0x0000);
        // Never written since power-on.
        w = call(*e, "custom.writer", {{"reg", "BPLCON1"}});
        QCOMPARE(w["outcome"], json("never_written"));
        QVERIFY(!w.contains("writer"));
        // The searches put the machine back exactly where it stood.
        QCOMPARE(hash(*e), before);
        QCOMPARE(call(*e, "regs.get"), regs);
    }

    void customDumpFindsEveryWriterInOnePass() {
        const auto sym = chipsetDebugSymbols();
        auto e = standingAt(0xF0);
        const std::string before = hash(*e);
        const json plain = call(*e, "custom.dump");
        // The fields it always had.
        QCOMPARE(plain["written"]["COLOR00"].get<int>(), 0x0555);
        QVERIFY(plain["registers"].contains("VPOSR"));
        QVERIFY(!plain["registers"].contains("COLOR00"));
        QVERIFY(!entry(plain, "COLOR00").contains("writer"));

        const json d = call(*e, "custom.dump", {{"writers", true}});
        QCOMPARE(hash(*e), before);
        // Every named register, in offset order.
        unsigned named = 0, last = 0;
        for (const json& r : d["list"]) {
            QVERIFY(r["offset"].get<unsigned>() >= last);
            last = r["offset"].get<unsigned>();
            ++named;
            QCOMPARE(r["readable"], json(!r["writable"].get<bool>()));
            if (r["readable"].get<bool>()) {
                QCOMPARE(r["value"], d["registers"][r["name"].get<std::string>()]);
                QVERIFY(r["written"].is_null());
            } else {
                QCOMPARE(r["value"], r["written"]);
            }
            // The program wrote everything it wrote after the record began.
            if (!r["written"].is_null())
                QCOMPARE(r["writer_outcome"], json("found"));
            else
                QVERIFY(!r.contains("writer"));
        }
        unsigned names = 0;
        for (unsigned o = 0; o < 2 * reg::kCount; o += 2)
            names += reg::name(std::uint16_t(o)) != nullptr;
        QCOMPARE(named, names);
        const auto writer = [&](const std::string& name) { return entry(d, name)["writer"]; };
        QCOMPARE(writer("COLOR00")["by"], json("cpu"));
        QCOMPARE(writer("COLOR00")["pc"].get<std::uint32_t>(), sym.at("cpu_color"));
        QCOMPARE(writer("COLOR01")["by"], json("copper"));
        QCOMPARE(writer("COLOR01")["copper_addr"].get<std::uint32_t>(), 0x30018u);
        QCOMPARE(writer("BPLCON0")["copper_addr"].get<std::uint32_t>(), 0x30004u);
        QCOMPARE(writer("COP2LCH")["pc"].get<std::uint32_t>(), sym.at("set_cop2lc"));
        QCOMPARE(writer("COPJMP1")["pc"].get<std::uint32_t>(), sym.at("jump_list1"));
        QCOMPARE(writer("DMACON")["pc"].get<std::uint32_t>(), sym.at("enable_dma"));
        QCOMPARE(writer("DMACON")["value"].get<int>(), 0x8280);
        QVERIFY(writer("INTENA")["pc"].get<std::uint32_t>() < sym.at("set_cop1lc"));
        QCOMPARE(entry(d, "COPJMP1")["strobe"], json(true));
        // The same as custom.writer says, one register at a time.
        for (const char* name : {"COLOR00", "COLOR01", "DMACON", "COP1LCL"})
            QCOMPARE(call(*e, "custom.writer", {{"reg", name}})["writer"], writer(name));
        // A value's bits.
        bool dmaen = false;
        for (const json& f : entry(d, "DMACONR")["fields"])
            if (f["name"] == "DMAEN") dmaen = f["value"] == 1;
        QVERIFY(dmaen);
    }

    void anOldWriteIsFoundPastTheLatestStretches() {
        // Forty frames on, the set-up's writes lie beyond the stretches looked at one by one:
        // the rest of the record is replayed in one pass, and finds them all the same.
        const auto sym = chipsetDebugSymbols();
        auto e = standingAt(0xF0);
        QVERIFY(e->call("step_frame", {{"n", 40}}).ok);
        const std::string before = hash(*e);
        json w = call(*e, "custom.writer", {{"reg", "DMACON"}});
        QCOMPARE(w["outcome"], json("found"));
        QCOMPARE(w["writer"]["pc"].get<std::uint32_t>(), sym.at("enable_dma"));
        QVERIFY(w["writer"]["frame"].get<std::uint64_t>() <= 1);
        const json d = call(*e, "custom.dump", {{"writers", true}});
        QCOMPARE(entry(d, "INTENA")["writer"]["by"], json("cpu"));
        QVERIFY(entry(d, "INTENA")["writer"]["pc"].get<std::uint32_t>() < sym.at("set_cop1lc"));
        QCOMPARE(entry(d, "COP2LCL")["writer"]["pc"].get<std::uint32_t>(), sym.at("set_cop2lc"));
        QCOMPARE(entry(d, "COLOR00")["writer"]["by"], json("copper")); // this frame's first MOVE
        QCOMPARE(hash(*e), before);
    }

    void aWriteOlderThanTheRecordIsBeyondItsHistory() {
        // A record of about one frame: the program's set-up falls out of it.
        Emulator::Options options;
        options.recordBudgetBytes = std::size_t(1) << 20;
        auto e = standingAt(0xF0, options);
        QVERIFY(e->call("step_frame", {{"n", 20}}).ok);
        QVERIFY(e->call("run_until", {{"vpos", 0xF0}, {"hpos", 0}}).ok);
        QCOMPARE(call(*e, "timeline.status")["holds_start"], json(false));
        QCOMPARE(call(*e, "custom.writer", {{"reg", "INTENA"}})["outcome"], json("beyond_history"));
        QCOMPARE(call(*e, "custom.writer", {{"reg", "COLOR00"}})["outcome"], json("found"));
        const json d = call(*e, "custom.dump", {{"writers", true}});
        QCOMPARE(entry(d, "INTENA")["writer_outcome"], json("beyond_history"));
        QVERIFY(entry(d, "INTENA")["writer"].is_null());
        QCOMPARE(entry(d, "COLOR00")["writer_outcome"], json("found"));
    }

    void memFindFindsWhatTheProgramPut() {
        const auto sym = chipsetDebugSymbols();
        auto e = standingAt(0xF0);
        // The text: in the program and in its copy in slow RAM.
        json r = call(*e, "mem.find", {{"text", "COPPERLINE-FINDS-ME"}});
        QCOMPARE(r["matches"], (json{sym.at("find_text"), 0xC20000}));
        QCOMPARE(r["truncated"], json(false));
        QCOMPARE(r["length"].get<int>(), 19);
        // A big-endian long: the first MOVE, in its table and in the list.
        r = call(*e, "mem.find", {{"value", "0x01800F00"}, {"size", 4}});
        QCOMPARE(r["matches"], (json{sym.at("list1_src"), 0x30000}));
        // Bytes in a range, every one and at multiples of 32.
        r = call(*e, "mem.find", {{"pattern", "01 80"}, {"start", 0x30000}, {"end", 0x30100}});
        QCOMPARE(r["matches"], (json{0x30000, 0x30010, 0x30020}));
        r = call(*e, "mem.find",
                 {{"pattern", "0180"}, {"start", 0x30000}, {"end", 0x30100}, {"align", 32}});
        QCOMPARE(r["matches"], (json{0x30000, 0x30020}));
        // More matches than asked for.
        r = call(*e, "mem.find", {{"pattern", "0180"}, {"max", 1}});
        QCOMPARE(r["matches"].size(), std::size_t(1));
        QCOMPARE(r["truncated"], json(true));
        r = call(*e, "mem.find", {{"text", "NOT-IN-MEMORY-AT-ALL"}});
        QCOMPARE(r["matches"], json::array());
        // What is searched: memory, not its mirrors or the registers.
        r = call(*e, "mem.find",
                 {{"text", "COPPERLINE-FINDS-ME"}, {"start", sym.at("find_text") + 1}});
        QCOMPARE(r["matches"], json::array({0xC20000}));
        QCOMPARE(r["searched"][0]["start"].get<std::uint32_t>(), sym.at("find_text") + 1);
        QCOMPARE(r["searched"][0]["end"].get<std::uint32_t>(), 0x80000u);
        r = call(*e, "mem.find", {{"pattern", "00"}, {"start", 0xDFF000}, {"end", 0xE00000}});
        QCOMPARE(r["matches"], json::array());
        QCOMPARE(r["searched"], json::array());
    }

    void memRegionsIsTheMap() {
        auto e = standingAt(0x40);
        const json r = call(*e, "mem.regions");
        QCOMPARE(r["overlay"], json(false));
        const json want = json::array({
            {{"name", "chip"}, {"start", 0x000000}, {"end", 0x080000}, {"kind", "ram"}},
            {{"name", "chip mirror"}, {"start", 0x080000}, {"end", 0x200000}, {"kind", "mirror"}},
            {{"name", "cia"}, {"start", 0xA00000}, {"end", 0xC00000}, {"kind", "io"}},
            {{"name", "slow"}, {"start", 0xC00000}, {"end", 0xC80000}, {"kind", "ram"}},
            {{"name", "custom mirror"}, {"start", 0xD80000}, {"end", 0xDC0000}, {"kind", "mirror"}},
            {{"name", "clock"}, {"start", 0xDC0000}, {"end", 0xDD0000}, {"kind", "io"}},
            {{"name", "custom mirror"}, {"start", 0xDD0000}, {"end", 0xDFF000}, {"kind", "mirror"}},
            {{"name", "custom"}, {"start", 0xDFF000}, {"end", 0xDFF200}, {"kind", "io"}},
            {{"name", "custom mirror"}, {"start", 0xDFF200}, {"end", 0xE00000}, {"kind", "mirror"}},
            {{"name", "uaelib"}, {"start", 0xF0FF60}, {"end", 0xF0FF64}, {"kind", "host"}},
            {{"name", "guest api"}, {"start", 0xF7FF00}, {"end", 0xF80000}, {"kind", "host"}},
            {{"name", "rom"}, {"start", 0xF80000}, {"end", 0x1000000}, {"kind", "rom"}},
        });
        QCOMPARE(r["regions"], want);
    }

    void badInputChangesNothing() {
        auto e = standingAt(0xA0);
        const std::string before = hash(*e);
        const auto at = call(*e, "status").value("instructions", 0ull);
        const std::vector<std::pair<std::string, json>> bad = {
            {"copper.list", {{"addr", "0x30001"}}},
            {"copper.list", {{"addr", 0x200000}}},
            {"copper.list", {{"max", 0}}},
            {"copper.list", {{"max", 257}}},
            {"copper.list", {{"list", 3}}},
            {"copper.list", {{"list", "first"}}},
            {"copper.list", {{"list", 1}, {"addr", 0x30000}}},
            {"custom.writer", json::object()},
            {"custom.writer", {{"reg", "COLOUR00"}}},
            {"custom.writer", {{"reg", "0x181"}}},
            {"custom.writer", {{"reg", 0x1C0}}},
            {"custom.writer", {{"reg", "VPOSR"}}},
            {"custom.dump", {{"writers", "yes"}}},
            {"mem.find", json::object()},
            {"mem.find", {{"pattern", ""}}},
            {"mem.find", {{"pattern", "   "}}},
            {"mem.find", {{"text", ""}}},
            {"mem.find", {{"pattern", "4e7"}}},
            {"mem.find", {{"pattern", "zz"}}},
            {"mem.find", {{"pattern", "00"}, {"text", "A"}}},
            {"mem.find", {{"value", 256}, {"size", 1}}},
            {"mem.find", {{"value", 1}, {"size", 3}}},
            {"mem.find", {{"value", 1}}},
            {"mem.find", {{"text", "A"}, {"size", 2}}},
            {"mem.find", {{"text", "€"}}},
            {"mem.find", {{"pattern", "00"}, {"max", 0}}},
            {"mem.find", {{"pattern", "00"}, {"max", 4097}}},
            {"mem.find", {{"pattern", "00"}, {"start", 0x100}, {"end", 0x100}}},
            {"mem.find", {{"pattern", "00"}, {"align", 3}}},
        };
        for (const auto& [method, params] : bad) {
            const CommandResult r = e->call(method, params);
            const std::string what = method + " " + params.dump() + ": " + r.errorMessage;
            QVERIFY2(!r.ok, what.c_str());
            QVERIFY2(r.errorCode == errc::InvalidParams, what.c_str());
            QVERIFY2(!r.errorMessage.empty(), what.c_str());
        }
        // The messages say what is wrong.
        QVERIFY(e->call("custom.writer", {{"reg", "COLOUR00"}}).errorMessage.find("COLOUR00") !=
                std::string::npos);
        QVERIFY(e->call("copper.list", {{"addr", "0x30001"}}).errorMessage.find("even") !=
                std::string::npos);
        QVERIFY(e->call("copper.list", {{"max", 257}}).errorMessage.find("256") !=
                std::string::npos);
        QVERIFY(e->call("mem.find", {{"pattern", ""}}).errorMessage.find("empty") !=
                std::string::npos);
        QCOMPARE(hash(*e), before);
        QCOMPARE(call(*e, "status").value("instructions", 1ull), at);

        // While the machine runs, the writers wait for a pause.
        QVERIFY(e->call("continue", {{"wait", false}}).ok);
        const CommandResult running = e->call("custom.writer", {{"reg", "COLOR00"}});
        QVERIFY(!running.ok);
        QVERIFY(running.errorCode == errc::InvalidState ||
                running.errorCode == errc::ResumePending);
        QVERIFY(e->call("copper.list").ok);
        QVERIFY(e->call("custom.dump").ok);
        QVERIFY(e->call("pause").ok);
    }
};

QTEST_GUILESS_MAIN(TestChipsetCommands)
#include "test_chipset_commands.moc"
