// SPDX-License-Identifier: GPL-3.0-or-later
// The custom registers (docs/control-protocol.md): custom.dump, every register with its
// value, and custom.writer, who wrote one last. Most custom registers are write-only, so
// a debugger shows the value last written (Agnus keeps it); who wrote it, the CPU or the
// Copper, and when, is found in the record of the past (emu/record/record.h) by replaying
// it with a probe on the one hook every custom register write passes (Agnus's
// CustomWriteProbe). The replay is muted and the machine is put back where it stood, so
// nothing here changes the emulated timeline.

#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "emu/chipset/custom_regs.h"

#include <array>
#include <bitset>
#include <cctype>
#include <cstdio>

namespace copperline {

namespace {

using nlohmann::json;
namespace p = params;

// Who wrote a register last, as the replay saw it.
struct Writer {
    bool byCopper = false;
    std::uint32_t pc = 0;         // the CPU's instruction
    std::uint32_t copperMove = 0; // the Copper's MOVE
    std::uint16_t value = 0;
    std::uint64_t frame = 0, cck = 0, position = 0;
    std::uint16_t vpos = 0, hpos = 0;
};

// The latest write to each wanted register, looking back stretch by stretch through the
// record: a stretch replays forward, so within it the last write seen wins; a register
// found in a later stretch is settled, and the scan stops once every wanted one is.
class RegisterWriters final : public ReplayVisitor, public CustomWriteProbe {
public:
    explicit RegisterWriters(const std::bitset<reg::kCount>& wanted) : wanted_(wanted) {}

    std::array<std::optional<Writer>, reg::kCount> found;

    void beginStretch() override {
        for (auto& s : stretch_)
            s.reset();
    }
    bool boundary(Machine& m) override {
        machine_ = &m;
        return false;
    }
    void beforeStep(Machine& m) override {
        machine_ = &m;
        pc_ = m.cpu().instructionAddress();
        position_ = m.cpu().instructions();
    }
    bool stretchEnded() override {
        bool all = true;
        for (unsigned i = 0; i < reg::kCount; ++i) {
            if (!wanted_[i] || found[i]) continue;
            if (stretch_[i])
                found[i] = stretch_[i];
            else
                all = false;
        }
        return all;
    }
    void customWritten(std::uint16_t r, std::uint16_t value, bool byCopper,
                       std::uint32_t move) override {
        const unsigned i = (r & 0x1FE) >> 1;
        if (!wanted_[i] || found[i] || !machine_) return;
        const Agnus& a = machine_->agnus();
        Writer w;
        w.byCopper = byCopper;
        w.pc = pc_;
        w.copperMove = move & 0x1FFFFE;
        w.value = value;
        w.frame = a.frame();
        w.cck = a.cck();
        w.vpos = a.vpos();
        w.hpos = a.hpos();
        w.position = position_;
        stretch_[i] = w;
    }

private:
    std::bitset<reg::kCount> wanted_;
    std::array<std::optional<Writer>, reg::kCount> stretch_;
    Machine* machine_ = nullptr;
    std::uint32_t pc_ = 0;
    std::uint64_t position_ = 0;
};

// Replays the record back from where the machine stands until every register in `wanted`
// has its latest writer (or the record ends), then stands the machine where it was.
std::array<std::optional<Writer>, reg::kCount> findWriters(Emulator::Impl& e,
                                                           const std::bitset<reg::kCount>& wanted) {
    RegisterWriters v(wanted);
    if (wanted.none()) return v.found;
    const std::uint64_t from = e.machine->now();
    Agnus& agnus = e.machine->agnus();
    agnus.setWriteProbe(&v);
    try {
        e.record->scanBack(from, v);
    } catch (...) {
        agnus.setWriteProbe(nullptr);
        e.record->seek(Record::Key::Cycle, from);
        throw;
    }
    agnus.setWriteProbe(nullptr);
    e.record->seek(Record::Key::Cycle, from);
    return v.found;
}

json writerJson(const Writer& w) {
    json out = {{"by", w.byCopper ? "copper" : "cpu"},
                {"value", w.value},
                {"frame", w.frame},
                {"vpos", w.vpos},
                {"hpos", w.hpos},
                {"position", w.position},
                {"cck", w.cck}};
    if (w.byCopper)
        out["copper_addr"] = w.copperMove;
    else
        out["pc"] = w.pc;
    return out;
}

std::string hexOffset(std::uint64_t offset) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "$%03llX", static_cast<unsigned long long>(offset));
    return buf;
}

// A register named as the manual names it ("COLOR00", "bplcon0") or by its offset ($180,
// "0x180", 384, or its address $DFF180).
std::uint16_t registerParam(const json& params) {
    const auto it = params.find("reg");
    if (it == params.end() || it->is_null()) fail(errc::InvalidParams, "missing parameter: reg");
    std::uint64_t offset = 0;
    if (it->is_string()) {
        std::string text = it->get<std::string>();
        const bool numeric =
            !text.empty() && (text[0] == '$' || std::isdigit(static_cast<unsigned char>(text[0])));
        if (numeric) {
            offset = p::number(params, "reg", 0xFFFFFF);
        } else {
            for (char& ch : text)
                ch = char(std::toupper(static_cast<unsigned char>(ch)));
            for (unsigned o = 0; o < 2 * reg::kCount; o += 2)
                if (const char* n = reg::name(std::uint16_t(o)); n && text == n)
                    return std::uint16_t(o);
            fail(errc::InvalidParams,
                 "reg: no custom register is named \"" + it->get<std::string>() + "\"");
        }
    } else {
        offset = p::number(params, "reg", 0xFFFFFF);
    }
    if (offset >= 0xDFF000 && offset < 0xDFF000 + 2 * reg::kCount) offset -= 0xDFF000;
    if (offset >= 2 * reg::kCount)
        fail(errc::InvalidParams, "reg: an offset from $000 to $1FE (or $DFF000-$DFF1FE)");
    if (offset & 1) fail(errc::InvalidParams, "reg: custom registers sit at even offsets");
    if (!reg::name(std::uint16_t(offset)))
        fail(errc::InvalidParams, "reg: no custom register at " + hexOffset(offset));
    return std::uint16_t(offset);
}

} // namespace

json registerFieldsJson(std::uint16_t r, std::uint16_t value) {
    json out = json::array();
    for (const reg::Field& f : reg::fields(r))
        out.push_back(
            {{"name", f.name}, {"shift", f.shift}, {"width", f.width}, {"value", f.of(value)}});
    return out;
}

void registerCustomCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;

    bus.add(
        "custom.dump",
        "The custom registers: `registers` (those read back), `written` (the last value written to "
        "each write-only one) and `list`, every named register with its value; {writers: true} "
        "adds who wrote each last (the record of the past; the machine must be paused).",
        {"writers"}, [&e](const json& params) {
            const bool writers = p::boolean(params, "writers", false);
            if (writers) requirePaused(e, "custom.dump {writers}");
            const Agnus& agnus = e.machine->agnus();
            json regs = json::object(), written = json::object(), list = json::array();
            std::bitset<reg::kCount> wanted;
            for (unsigned o = 0; o < 2 * reg::kCount; o += 2) {
                const auto offset = std::uint16_t(o);
                const char* n = reg::name(offset);
                if (!n) continue;
                const bool writable = reg::writable(offset);
                const auto last = agnus.lastWritten(offset);
                json entry = {{"offset", offset},
                              {"name", n},
                              {"readable", !writable},
                              {"writable", writable}};
                if (reg::strobe(offset)) entry["strobe"] = true;
                if (!writable) {
                    const std::uint16_t v = e.machine->spyWord(0xDFF000 + o);
                    regs[n] = v;
                    entry["value"] = v;
                } else {
                    entry["value"] = last ? json(*last) : json(nullptr);
                    if (last) written[n] = *last;
                }
                entry["written"] = last ? json(*last) : json(nullptr);
                if (!entry["value"].is_null() && !reg::fields(offset).empty())
                    entry["fields"] =
                        registerFieldsJson(offset, entry["value"].get<std::uint16_t>());
                if (last) wanted.set(o >> 1);
                list.push_back(std::move(entry));
            }
            if (writers) {
                const auto found = findWriters(e, wanted);
                for (json& entry : list) {
                    const unsigned i = entry["offset"].get<unsigned>() >> 1;
                    if (!wanted[i]) continue;
                    entry["writer"] = found[i] ? writerJson(*found[i]) : json(nullptr);
                    entry["writer_outcome"] = found[i] ? "found" : "beyond_history";
                }
            }
            return json{{"registers", regs}, {"written", written}, {"list", list}};
        });

    bus.add("custom.writer",
            "Who wrote the custom register {reg} (a name such as \"COLOR00\", or an offset) last, "
            "the CPU or the Copper, and when, inside the record of the past.",
            {"reg"}, [&e](const json& params) {
                const std::uint16_t offset = registerParam(params);
                const char* name = reg::name(offset);
                if (!reg::writable(offset))
                    fail(errc::InvalidParams,
                         std::string("reg: ") + name + " is read-only; nothing writes it");
                requirePaused(e, "custom.writer");
                const auto last = e.machine->agnus().lastWritten(offset);
                json out = {{"offset", offset},
                            {"name", name},
                            {"written", last ? json(*last) : json(nullptr)}};
                if (!last) {
                    // Agnus has kept every write since power-on: this one has none.
                    out["outcome"] = "never_written";
                } else {
                    std::bitset<reg::kCount> wanted;
                    wanted.set(offset >> 1);
                    const auto found = findWriters(e, wanted);
                    if (const auto& w = found[offset >> 1]) {
                        out["outcome"] = "found";
                        out["writer"] = writerJson(*w);
                    } else {
                        // Written, but before what the record holds (its start, a state
                        // load or a reset, or snapshots evicted since).
                        out["outcome"] = "beyond_history";
                    }
                }
                e.record->note();
                const RecordPoint here = e.record->here();
                out["position"] = {
                    {"position", here.instructions}, {"cck", here.cck}, {"frame", here.frame}};
                return out;
            });
}

} // namespace copperline
