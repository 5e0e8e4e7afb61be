// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/amigaos/amigaos.h"

#include <algorithm>

#include "emu/machine.h"

#include <cstdio>
#include <limits>
#include <stdexcept>
#include <unordered_set>

namespace copperline {

namespace {

// exec/nodes.h: struct Node and the node types this reader expects.
constexpr std::uint32_t kLnSucc = 0, kLnPred = 4, kLnType = 8, kLnPri = 9, kLnName = 10;
constexpr std::uint32_t kNodeSize = 14;
constexpr std::uint8_t kNtTask = 1, kNtDevice = 3, kNtResource = 8, kNtLibrary = 9, kNtProcess = 13;

// exec/lists.h: struct List.
constexpr std::uint32_t kLhHead = 0, kLhTail = 4, kLhTailPred = 8, kListSize = 14;

// exec/libraries.h: struct Library.
constexpr std::uint32_t kLibNegSize = 16, kLibPosSize = 18, kLibVersion = 20, kLibRevision = 22,
                        kLibIdString = 24, kLibrarySize = 34;
constexpr unsigned kLvoSize = 6; // one jump table entry: JMP abs.l ($4EF9 + address)
constexpr std::uint16_t kJmpAbsL = 0x4EF9;

// exec/execbase.h: struct ExecBase, the fields read here.
constexpr std::uint32_t kSoftVer = 34, kChkBase = 38, kSysStkUpper = 54, kSysStkLower = 58,
                        kThisTask = 276, kIdNestCnt = 294, kTdNestCnt = 295, kAttnFlags = 296, kResModules = 300, kResourceList = 336,
                        kDeviceList = 350, kLibList = 378, kTaskReady = 406, kTaskWait = 420,
                        kVBlankFrequency = 530, kPowerSupplyFrequency = 531;
// Everything up to PowerSupplyFrequency must lie inside the base's positive size.
constexpr std::uint32_t kExecFieldsEnd = kPowerSupplyFrequency + 1;

// exec/tasks.h: struct Task.
constexpr std::uint32_t kTcState = 15, kTcSPReg = 54, kTcSPLower = 58, kTcSPUpper = 62,
                        kTaskSize = 92;
// TS_INVALID 0 .. TS_REMOVED 6; AROS adds TS_SPIN 7 and TS_TOMBSTONED 8 (exec/tasks.h).
constexpr std::uint8_t kLastTaskState = 8;

// exec/resident.h: struct Resident.
constexpr std::uint32_t kRtMatchTag = 2, kRtEndSkip = 6, kRtFlags = 10, kRtVersion = 11,
                        kRtType = 12, kRtPri = 13, kRtName = 14, kRtIdString = 18, kRtInit = 22;
constexpr std::uint32_t kResidentSize = 26;
constexpr std::uint16_t kRtcMatchWord = 0x4AFC; // ILLEGAL, the RomTag's first word

std::string hex(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "$%06X", v);
    return buf;
}

class Reader {
public:
    Reader(const MemoryView& memory, const AmigaOsReadLimits& limits, AmigaOsSnapshot& out)
        : m_(memory), limits_(limits), out_(out) {}

    // ExecBase and ThisTask only: what a sampler needs for each sample.
    void runThisTask() {
        if (readExec()) readThisTask();
    }

    // A node's ln_Name, empty when it has none or it does not read.
    std::string nodeName(std::uint32_t node) const {
        const auto name = m_.longword(node + kLnName);
        std::string why;
        auto s = name && *name ? readString(*name, why) : std::nullopt;
        return s ? std::move(*s) : std::string();
    }

    void run() {
        for (const MemoryRange& r : m_.ranges())
            if (r.isRom()) out_.romRanges.push_back({memoryKindName(r.kind), r.start, r.end});
        if (!readExec()) return;
        const std::uint32_t base = out_.exec->base;
        readThisTask();
        walkList("TaskReady", base + kTaskReady, [&](std::uint32_t node) {
            if (auto t = readTask("TaskReady", node)) out_.readyTasks.push_back(std::move(*t));
        });
        walkList("TaskWait", base + kTaskWait, [&](std::uint32_t node) {
            if (auto t = readTask("TaskWait", node)) out_.waitingTasks.push_back(std::move(*t));
        });
        walkList("LibList", base + kLibList, [&](std::uint32_t node) {
            if (auto l = readLibrary("LibList", node, kNtLibrary, true))
                out_.libraries.push_back(std::move(*l));
        });
        walkList("DeviceList", base + kDeviceList, [&](std::uint32_t node) {
            if (auto l = readLibrary("DeviceList", node, kNtDevice, true))
                out_.devices.push_back(std::move(*l));
        });
        walkList("ResourceList", base + kResourceList, [&](std::uint32_t node) {
            if (auto l = readLibrary("ResourceList", node, kNtResource, false))
                out_.resources.push_back(std::move(*l));
        });
        readResidents();
    }

private:
    void problem(std::string where, std::uint32_t address, std::string what) {
        if (out_.problems.size() >= limits_.maxProblems) {
            ++out_.problemsNotListed;
            return;
        }
        out_.problems.push_back({std::move(where), address, std::move(what)});
    }

    std::uint32_t lng(std::uint32_t a) const { return m_.longword(a).value_or(0); }
    std::uint16_t wrd(std::uint32_t a) const { return m_.word(a).value_or(0); }
    std::uint8_t byt(std::uint32_t a) const { return m_.byte(a).value_or(0); }

    // A NUL-terminated name of at most maxNameLength bytes of text; Latin-1 becomes UTF-8
    // so that the JSON writer can take it. On failure `why` says what was wrong.
    std::optional<std::string> readString(std::uint32_t pointer, std::string& why) const {
        if (pointer == 0) {
            why = "has no name (a null pointer)";
            return std::nullopt;
        }
        std::string s;
        for (unsigned i = 0; i <= limits_.maxNameLength; ++i) {
            const auto b = m_.byte(pointer + i);
            if (!b) {
                why = "has a name at " + hex(pointer) + " that runs into memory that is not there";
                return std::nullopt;
            }
            if (*b == 0) return s;
            const bool text =
                (*b >= 0x20 && *b < 0x7F) || *b >= 0xA0 || *b == '\t' || *b == '\n' || *b == '\r';
            if (!text) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "$%02X", *b);
                why = "has a name at " + hex(pointer) + " with the unprintable byte " + buf;
                return std::nullopt;
            }
            if (*b < 0x80) {
                s += char(*b);
            } else {
                s += char(0xC0 | (*b >> 6));
                s += char(0x80 | (*b & 0x3F));
            }
        }
        why = "has a name at " + hex(pointer) + " longer than " +
              std::to_string(limits_.maxNameLength) + " bytes";
        return std::nullopt;
    }

    // An id string ("exec 40.10 (1.1.93)\r\n") without its line end; empty when there is
    // none or it does not read.
    std::string readIdString(std::uint32_t pointer) const {
        std::string why;
        auto s = pointer ? readString(pointer, why) : std::nullopt;
        if (!s) return {};
        while (!s->empty() && (s->back() == '\n' || s->back() == '\r'))
            s->pop_back();
        return std::move(*s);
    }

    // exec/lists.h: a list runs from lh_Head through each ln_Succ to the tail node, which is
    // the header's own lh_Tail field (its ln_Succ, lh_Tail, is 0). Every node pointer is
    // checked before it is followed; a cycle, an end short of the tail or more than
    // maxListNodes nodes stops the walk with a problem.
    template <class Visit>
    void walkList(const char* where, std::uint32_t list, Visit&& visit) {
        if (!m_.inRam(list, kListSize)) {
            problem(where, list, "the list header is not in RAM");
            return;
        }
        const std::uint32_t tail = list + kLhTail;
        std::uint32_t prev = list;
        std::uint32_t node = lng(list + kLhHead);
        std::unordered_set<std::uint32_t> seen;
        for (unsigned count = 0;; ++count) {
            if (node == tail) {
                if (lng(list + kLhTail) != 0) problem(where, list, "lh_Tail is not 0");
                if (lng(list + kLhTailPred) != prev)
                    problem(where, list,
                            "lh_TailPred is " + hex(lng(list + kLhTailPred)) +
                                ", not the last node " + hex(prev));
                return;
            }
            if (count >= limits_.maxListNodes) {
                problem(where, node,
                        "more than " + std::to_string(limits_.maxListNodes) +
                            " nodes; the walk stopped here");
                return;
            }
            if (node & 1) {
                problem(where, prev, "a node points to the odd address " + hex(node));
                return;
            }
            if (!m_.backed(node, kNodeSize)) {
                problem(where, prev,
                        "a node points to " + hex(node) + ", where there is no memory");
                return;
            }
            if (!seen.insert(node).second) {
                problem(where, node, "the list comes back to this node: it is circular");
                return;
            }
            const std::uint32_t pred = lng(node + kLnPred);
            if (pred != prev)
                problem(where, node,
                        "ln_Pred is " + hex(pred) + ", not the previous node " + hex(prev));
            const std::uint32_t succ = lng(node + kLnSucc);
            if (succ == 0) {
                problem(where, node, "the list ends here without reaching its tail " + hex(tail));
                return;
            }
            visit(node);
            prev = node;
            node = succ;
        }
    }

    // A node's name, when its ln_Type is what the list holds (`typeOk`) and the name reads.
    std::optional<std::string> namedNode(const std::string& where, std::uint32_t address,
                                         bool typeOk, const std::string& expected,
                                         const char* noun) {
        if (!typeOk) {
            problem(where, address,
                    "ln_Type is " + std::to_string(byt(address + kLnType)) + ", not " + expected);
            return std::nullopt;
        }
        std::string why;
        auto name = readString(lng(address + kLnName), why);
        if (!name) problem(where, address, std::string(noun) + " " + why);
        return name;
    }

    std::optional<AmigaOsTask> readTask(const char* where, std::uint32_t address) {
        if (address & 1 || !m_.backed(address, kTaskSize)) {
            problem(where, address, "the task structure is not in memory");
            return std::nullopt;
        }
        const std::uint8_t type = byt(address + kLnType);
        auto name = namedNode(where, address, type == kNtTask || type == kNtProcess,
                              "NT_TASK (1) or NT_PROCESS (13)", "the task");
        if (!name) return std::nullopt;
        AmigaOsTask t;
        t.address = address;
        t.name = std::move(*name);
        t.process = type == kNtProcess;
        t.state = byt(address + kTcState);
        t.priority = std::int8_t(byt(address + kLnPri));
        t.spReg = lng(address + kTcSPReg);
        t.spLower = lng(address + kTcSPLower);
        t.spUpper = lng(address + kTcSPUpper);
        return t;
    }

    // ThisTask is plausible when it is a task or process with a name, a state exec knows,
    // and a stack that lies in RAM below its upper bound.
    void readThisTask() {
        const std::uint32_t p = out_.exec->thisTask;
        if (p == 0) {
            problem("ThisTask", 0, "ThisTask is null");
            return;
        }
        auto t = readTask("ThisTask", p);
        if (!t) return;
        if (t->state == 0 || t->state > kLastTaskState) {
            problem("ThisTask", p, "tc_State " + std::to_string(t->state) + " is not a task state");
            return;
        }
        if (t->spLower >= t->spUpper || !m_.inRam(t->spLower, t->spUpper - t->spLower)) {
            problem("ThisTask", p,
                    "the stack " + hex(t->spLower) + "-" + hex(t->spUpper) +
                        " is not a range of RAM");
            return;
        }
        out_.thisTask = std::move(t);
    }

    std::optional<AmigaOsLibrary> readLibrary(const char* where, std::uint32_t address,
                                              std::uint8_t expectedType, bool jumpTable) {
        const std::uint8_t type = byt(address + kLnType);
        auto name = namedNode(where, address, type == expectedType, std::to_string(expectedType),
                              "the node");
        if (!name) return std::nullopt;
        AmigaOsLibrary lib;
        lib.base = address;
        lib.name = std::move(*name);
        lib.type = type;
        if (!m_.backed(address, kLibrarySize)) {
            // A resource need not be a Library; a library or device must.
            if (!jumpTable) return lib;
            problem(where + (": " + lib.name), address, "the Library structure is not in memory");
            return std::nullopt;
        }
        lib.negSize = wrd(address + kLibNegSize);
        lib.posSize = wrd(address + kLibPosSize);
        lib.version = wrd(address + kLibVersion);
        lib.revision = wrd(address + kLibRevision);
        lib.idString = readIdString(lng(address + kLibIdString));
        if (jumpTable) readJumpTable(where + (": " + lib.name), lib);
        return lib;
    }

    // The jump table lies below the base: entry n (LVO -6n) at base - 6n, from -6 down to
    // -lib_NegSize. An entry is normally JMP abs.l; SetFunction() rewrites its address.
    void readJumpTable(const std::string& where, AmigaOsLibrary& lib) {
        unsigned n = lib.negSize / kLvoSize;
        if (n > limits_.maxLvos) {
            problem(where, lib.base,
                    "lib_NegSize " + std::to_string(lib.negSize) + " means more than " +
                        std::to_string(limits_.maxLvos) +
                        " functions; the jump table was not read");
            return;
        }
        if (totalLvos_ + n > limits_.maxTotalLvos) {
            problem(where, lib.base,
                    "more than " + std::to_string(limits_.maxTotalLvos) +
                        " jump table entries in all; the rest of this table was not read");
            n = limits_.maxTotalLvos - totalLvos_;
        }
        lib.lvos.reserve(n);
        for (unsigned i = 1; i <= n; ++i) {
            const std::uint32_t slot = lib.base - i * kLvoSize;
            if (lib.base < i * kLvoSize || !m_.backed(slot, kLvoSize)) {
                problem(where, slot,
                        "the jump table entry LVO -" + std::to_string(i * kLvoSize) +
                            " is not in memory; the rest of the table was not read");
                break;
            }
            AmigaOsLvo e;
            e.lvo = -int(i * kLvoSize);
            e.opcode = wrd(slot);
            if (e.opcode == kJmpAbsL) e.target = lng(slot + 2);
            lib.lvos.push_back(e);
            ++totalLvos_;
        }
    }

    // ExecBase is the long at address 4. It is believed when it points to RAM, its ChkBase
    // is its complement (exec/execbase.h), and its node is exec.library's.
    bool readExec() {
        const char* where = "ExecBase";
        const auto p = m_.longword(4);
        if (!p) {
            problem(where, 4, "address 4 is not in memory");
            return false;
        }
        const std::uint32_t base = *p;
        if (base & 1) {
            problem(where, 4, "the pointer at address 4, " + hex(base) + ", is odd");
            return false;
        }
        if (!m_.inRam(base, kExecFieldsEnd)) {
            problem(where, base, "ExecBase is not in RAM");
            return false;
        }
        const std::uint32_t chk = lng(base + kChkBase);
        if (chk != ~base) {
            problem(where, base, "ChkBase is " + hex(chk) + ", not the complement of " + hex(base));
            return false;
        }
        if (byt(base + kLnType) != kNtLibrary) {
            problem(where, base,
                    "ln_Type is " + std::to_string(byt(base + kLnType)) + ", not NT_LIBRARY (9)");
            return false;
        }
        std::string why;
        const auto name = readString(lng(base + kLnName), why);
        if (!name || *name != "exec.library") {
            problem(where, base,
                    name ? "the node is named \"" + *name + "\", not exec.library"
                         : "the node " + why);
            return false;
        }
        const std::uint16_t posSize = wrd(base + kLibPosSize);
        if (posSize < kExecFieldsEnd) {
            problem(where, base,
                    "lib_PosSize " + std::to_string(posSize) +
                        " is smaller than ExecBase's fields");
            return false;
        }
        const std::uint16_t negSize = wrd(base + kLibNegSize);
        if (negSize < kLvoSize || negSize / kLvoSize > limits_.maxLvos) {
            problem(where, base, "lib_NegSize " + std::to_string(negSize) + " is implausible");
            return false;
        }
        AmigaOsExec e;
        e.base = base;
        e.version = wrd(base + kLibVersion);
        e.revision = wrd(base + kLibRevision);
        e.softVer = wrd(base + kSoftVer);
        e.sysStkLower = lng(base + kSysStkLower);
        e.sysStkUpper = lng(base + kSysStkUpper);
        e.thisTask = lng(base + kThisTask);
        e.attnFlags = wrd(base + kAttnFlags);
        e.vblankFrequency = byt(base + kVBlankFrequency);
        e.powerSupplyFrequency = byt(base + kPowerSupplyFrequency);
        out_.exec = e;
        return true;
    }

    // exec/resident.h: ResModules is a null-terminated table of RomTag pointers; an entry
    // with bit 31 set continues the table at that address (bit 31 cleared).
    void readResidents() {
        const char* where = "ResModules";
        std::uint32_t p = lng(out_.exec->base + kResModules);
        if (p == 0) return;
        std::unordered_set<std::uint32_t> tables{p};
        for (unsigned steps = 0;; ++steps) {
            if (steps >= limits_.maxResidents) {
                problem(where, p,
                        "more than " + std::to_string(limits_.maxResidents) +
                            " entries; the walk stopped here");
                return;
            }
            if (p & 1 || !m_.backed(p, 4)) {
                problem(where, p, "the table runs into memory that is not there");
                return;
            }
            const std::uint32_t v = lng(p);
            if (v == 0) return;
            if (v & 0x80000000u) {
                p = v & 0x7FFFFFFFu;
                if (!tables.insert(p).second) {
                    problem(where, p, "the table links back to itself");
                    return;
                }
                continue;
            }
            readResident(v);
            p += 4;
        }
    }

    void readResident(std::uint32_t a) {
        const char* where = "ResModules";
        if (a & 1 || !m_.backed(a, kResidentSize)) {
            problem(where, a, "the RomTag is not in memory");
            return;
        }
        if (wrd(a) != kRtcMatchWord || lng(a + kRtMatchTag) != a) {
            problem(where, a,
                    "no RomTag here (rt_MatchWord $4AFC and rt_MatchTag pointing to itself)");
            return;
        }
        std::string why;
        auto name = readString(lng(a + kRtName), why);
        if (!name) {
            problem(where, a, "the RomTag " + why);
            return;
        }
        AmigaOsResident r;
        r.address = a;
        r.name = std::move(*name);
        r.idString = readIdString(lng(a + kRtIdString));
        r.version = byt(a + kRtVersion);
        r.type = byt(a + kRtType);
        r.flags = byt(a + kRtFlags);
        r.priority = std::int8_t(byt(a + kRtPri));
        r.init = lng(a + kRtInit);
        r.endSkip = lng(a + kRtEndSkip);
        out_.residents.push_back(std::move(r));
    }

    const MemoryView& m_;
    const AmigaOsReadLimits& limits_;
    AmigaOsSnapshot& out_;
    unsigned totalLvos_ = 0;
};

} // namespace

const char* taskStateName(std::uint8_t state) {
    // exec/tasks.h (TS_SPIN and TS_TOMBSTONED are AROS's).
    static const char* const names[] = {"invalid", "added",   "run",  "ready",     "wait",
                                        "except",  "removed", "spin", "tombstoned"};
    return state <= kLastTaskState ? names[state] : "unknown";
}

AmigaOsSnapshot readAmigaOs(const MemoryView& memory, const AmigaOsReadLimits& limits) {
    AmigaOsSnapshot out;
    Reader(memory, limits, out).run();
    return out;
}

AmigaOsSnapshot readAmigaOs(const Machine& machine, const AmigaOsReadLimits& limits) {
    return readAmigaOs(MachineMemoryView(machine), limits);
}

AmigaOsSnapshot readExecAndThisTask(const MemoryView& memory, const AmigaOsReadLimits& limits) {
    AmigaOsSnapshot out;
    Reader(memory, limits, out).runThisTask();
    return out;
}

ExecTaskFields readExecTaskFields(const MemoryView& memory) {
    ExecTaskFields f;
    const auto base = memory.longword(4);
    if (!base || (*base & 1) || !memory.inRam(*base, kExecFieldsEnd)) return f;
    if (memory.longword(*base + kChkBase) != ~*base) return f;
    f.exec = *base;
    f.thisTask = *memory.longword(*base + kThisTask);
    f.idNestCnt = std::int8_t(*memory.byte(*base + kIdNestCnt));
    f.tdNestCnt = std::int8_t(*memory.byte(*base + kTdNestCnt));
    f.taskPlausible = f.thisTask && !(f.thisTask & 1) && memory.inRam(f.thisTask, kTaskSize);
    return f;
}

std::string readTaskName(const MemoryView& memory, std::uint32_t task, const AmigaOsReadLimits& limits) {
    AmigaOsSnapshot unused;
    return Reader(memory, limits, unused).nodeName(task);
}

// ---- JSON ---------------------------------------------------------------------------------

namespace {

constexpr int kRomSymbolsVersion = 1;

nlohmann::json libraryJson(const AmigaOsLibrary& l, bool withLvos) {
    nlohmann::json j = {{"name", l.name},         {"base", l.base},        {"version", l.version},
                        {"revision", l.revision}, {"neg_size", l.negSize}, {"pos_size", l.posSize},
                        {"id_string", l.idString}};
    if (withLvos) {
        nlohmann::json lvos = nlohmann::json::array();
        for (const AmigaOsLvo& e : l.lvos) {
            nlohmann::json x = {{"lvo", e.lvo}};
            if (e.target) {
                x["target"] = *e.target;
            } else {
                x["target"] = nullptr;
                x["opcode"] = e.opcode;
            }
            lvos.push_back(std::move(x));
        }
        j["lvos"] = std::move(lvos);
    }
    return j;
}

// Field access for romSymbolsFromJson: a missing field or one of the wrong type names
// itself in the error.
const nlohmann::json& field(const nlohmann::json& j, const char* name, const std::string& where) {
    if (!j.is_object() || !j.contains(name))
        throw std::invalid_argument("rom_symbols: " + where + " has no \"" + name + "\"");
    return j.at(name);
}

template <class T>
T number(const nlohmann::json& j, const char* name, const std::string& where) {
    const nlohmann::json& v = field(j, name, where);
    const auto bad = [&](const char* what) {
        return std::invalid_argument("rom_symbols: " + where + "." + name + " is " + what);
    };
    if (!v.is_number_integer()) throw bad("not an integer");
    if (v.is_number_unsigned()) {
        const std::uint64_t u = v.get<std::uint64_t>();
        if (u > std::uint64_t(std::numeric_limits<T>::max())) throw bad("out of range");
        return T(u);
    }
    const std::int64_t i = v.get<std::int64_t>();
    if (i < std::int64_t(std::numeric_limits<T>::min()) ||
        i > std::int64_t(std::numeric_limits<T>::max()))
        throw bad("out of range");
    return T(i);
}

std::string text(const nlohmann::json& j, const char* name, const std::string& where) {
    const nlohmann::json& v = field(j, name, where);
    if (!v.is_string())
        throw std::invalid_argument("rom_symbols: " + where + "." + name + " is not a string");
    return v.get<std::string>();
}

const nlohmann::json& array(const nlohmann::json& j, const char* name, const std::string& where) {
    const nlohmann::json& v = field(j, name, where);
    if (!v.is_array())
        throw std::invalid_argument("rom_symbols: " + where + "." + name + " is not an array");
    return v;
}

AmigaOsLibrary libraryFromJson(const nlohmann::json& j, const std::string& where, bool withLvos) {
    AmigaOsLibrary l;
    l.name = text(j, "name", where);
    l.base = number<std::uint32_t>(j, "base", where);
    l.version = number<std::uint16_t>(j, "version", where);
    l.revision = number<std::uint16_t>(j, "revision", where);
    l.negSize = number<std::uint16_t>(j, "neg_size", where);
    l.posSize = number<std::uint16_t>(j, "pos_size", where);
    l.idString = text(j, "id_string", where);
    if (withLvos) {
        for (const nlohmann::json& e : array(j, "lvos", where)) {
            const std::string w = where + ".lvos";
            AmigaOsLvo x;
            x.lvo = number<int>(e, "lvo", w);
            const nlohmann::json& t = field(e, "target", w);
            if (t.is_null()) {
                x.opcode = number<std::uint16_t>(e, "opcode", w);
            } else if (t.is_number_integer()) {
                x.opcode = kJmpAbsL;
                x.target = number<std::uint32_t>(e, "target", w);
            } else {
                throw std::invalid_argument("rom_symbols: " + w +
                                            ".target is neither null nor an integer");
            }
            l.lvos.push_back(x);
        }
    }
    return l;
}

} // namespace

nlohmann::json romSymbolsJson(const AmigaOsSnapshot& s) {
    nlohmann::json j;
    j["version"] = kRomSymbolsVersion;
    nlohmann::json roms = nlohmann::json::array();
    for (const AmigaOsRomRange& r : s.romRanges)
        roms.push_back({{"name", r.name}, {"start", r.start}, {"end", r.end}});
    j["rom_ranges"] = std::move(roms);
    j["exec_base"] = s.exec ? nlohmann::json(s.exec->base) : nlohmann::json(nullptr);
    nlohmann::json residents = nlohmann::json::array();
    for (const AmigaOsResident& r : s.residents)
        residents.push_back({{"address", r.address},
                             {"name", r.name},
                             {"id_string", r.idString},
                             {"version", r.version},
                             {"type", r.type},
                             {"flags", r.flags},
                             {"priority", r.priority},
                             {"init", r.init},
                             {"end_skip", r.endSkip}});
    j["residents"] = std::move(residents);
    for (auto [key, list, lvos] :
         {std::tuple{"libraries", &s.libraries, true}, std::tuple{"devices", &s.devices, true},
          std::tuple{"resources", &s.resources, false}}) {
        nlohmann::json a = nlohmann::json::array();
        for (const AmigaOsLibrary& l : *list)
            a.push_back(libraryJson(l, lvos));
        j[key] = std::move(a);
    }
    nlohmann::json problems = nlohmann::json::array();
    for (const AmigaOsProblem& p : s.problems)
        problems.push_back({{"where", p.where}, {"address", p.address}, {"what", p.what}});
    j["problems"] = std::move(problems);
    j["problems_not_listed"] = s.problemsNotListed;
    return j;
}

AmigaOsSnapshot romSymbolsFromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("rom_symbols is not an object");
    const int version = number<int>(j, "version", "rom_symbols");
    if (version != kRomSymbolsVersion)
        throw std::invalid_argument("rom_symbols: version " + std::to_string(version) +
                                    " is not version " + std::to_string(kRomSymbolsVersion));
    AmigaOsSnapshot s;
    for (const nlohmann::json& r : array(j, "rom_ranges", "rom_symbols"))
        s.romRanges.push_back({text(r, "name", "rom_ranges"),
                               number<std::uint32_t>(r, "start", "rom_ranges"),
                               number<std::uint32_t>(r, "end", "rom_ranges")});
    const nlohmann::json& exec = field(j, "exec_base", "rom_symbols");
    if (!exec.is_null()) {
        if (!exec.is_number_integer())
            throw std::invalid_argument("rom_symbols: exec_base is not an integer");
        s.exec = AmigaOsExec{};
        s.exec->base = number<std::uint32_t>(j, "exec_base", "rom_symbols");
    }
    for (const nlohmann::json& r : array(j, "residents", "rom_symbols")) {
        AmigaOsResident x;
        x.address = number<std::uint32_t>(r, "address", "residents");
        x.name = text(r, "name", "residents");
        x.idString = text(r, "id_string", "residents");
        x.version = number<std::uint8_t>(r, "version", "residents");
        x.type = number<std::uint8_t>(r, "type", "residents");
        x.flags = number<std::uint8_t>(r, "flags", "residents");
        x.priority = number<std::int8_t>(r, "priority", "residents");
        x.init = number<std::uint32_t>(r, "init", "residents");
        x.endSkip = number<std::uint32_t>(r, "end_skip", "residents");
        s.residents.push_back(std::move(x));
    }
    for (const nlohmann::json& l : array(j, "libraries", "rom_symbols"))
        s.libraries.push_back(libraryFromJson(l, "libraries", true));
    for (const nlohmann::json& l : array(j, "devices", "rom_symbols"))
        s.devices.push_back(libraryFromJson(l, "devices", true));
    for (const nlohmann::json& l : array(j, "resources", "rom_symbols"))
        s.resources.push_back(libraryFromJson(l, "resources", false));
    for (const nlohmann::json& p : array(j, "problems", "rom_symbols"))
        s.problems.push_back({text(p, "where", "problems"),
                              number<std::uint32_t>(p, "address", "problems"),
                              text(p, "what", "problems")});
    s.problemsNotListed = number<unsigned>(j, "problems_not_listed", "rom_symbols");
    return s;
}

nlohmann::json stackFieldsJson(const AmigaOsSnapshot& s) {
    if (!s.exec)
        return {{"systemStackLower", nullptr},
                {"systemStackUpper", nullptr},
                {"stackLower", nullptr},
                {"stackUpper", nullptr}};
    return {{"systemStackLower", s.exec->sysStkLower},
            {"systemStackUpper", s.exec->sysStkUpper},
            {"stackLower", s.thisTask ? s.thisTask->spLower : 0u},
            {"stackUpper", s.thisTask ? s.thisTask->spUpper : 0u}};
}

// ---- loaded programs ----------------------------------------------------------------------

std::vector<AmigaOsSegment> readSegList(const MemoryView& memory, std::uint32_t bptr, unsigned maxSegments) {
    std::vector<AmigaOsSegment> out;
    std::vector<std::uint32_t> seen;
    while (bptr && out.size() < maxSegments) {
        const std::uint32_t link = (bptr << 2) & 0xFFFFFF;
        if (std::find(seen.begin(), seen.end(), link) != seen.end()) break;
        seen.push_back(link);
        const auto size = memory.longword(link - 4);
        const auto next = memory.longword(link);
        // The allocation holds the size longword, the link and the hunk's data.
        if (!size || !next || *size < 8 || *size > (16u << 20) || !memory.backed(link - 4, *size)) break;
        out.push_back({link + 4, *size - 8});
        bptr = *next;
    }
    return out;
}

std::vector<AmigaOsProgram> readCliPrograms(const MemoryView& memory, const AmigaOsSnapshot& snapshot) {
    // dos/dosextens.h: Process.pr_CLI at 172 (a BPTR to a CommandLineInterface), whose
    // cli_CommandName (a BSTR) is at 16 and cli_Module (the seglist BPTR) at 60.
    constexpr std::uint32_t kPrCli = 172, kCliCommandName = 16, kCliModule = 60;
    std::vector<const AmigaOsTask*> tasks;
    if (snapshot.thisTask) tasks.push_back(&*snapshot.thisTask);
    for (const auto& t : snapshot.readyTasks) tasks.push_back(&t);
    for (const auto& t : snapshot.waitingTasks) tasks.push_back(&t);
    std::vector<AmigaOsProgram> out;
    for (const AmigaOsTask* t : tasks) {
        if (!t->process) continue;
        const auto cliBptr = memory.longword(t->address + kPrCli);
        if (!cliBptr || !*cliBptr) continue;
        const std::uint32_t cli = (*cliBptr << 2) & 0xFFFFFF;
        const auto module = memory.longword(cli + kCliModule);
        if (!module || !*module) continue;
        AmigaOsProgram p;
        p.task = t->address;
        p.taskName = t->name;
        p.segList = *module;
        if (const auto name = memory.longword(cli + kCliCommandName); name && *name) {
            const std::uint32_t bstr = (*name << 2) & 0xFFFFFF;
            if (const auto length = memory.byte(bstr))
                for (std::uint32_t i = 0; i < *length; ++i) {
                    const auto c = memory.byte(bstr + 1 + i);
                    if (!c) break;
                    p.command += char(*c);
                }
        }
        p.segments = readSegList(memory, *module);
        if (!p.segments.empty()) out.push_back(std::move(p));
    }
    return out;
}

} // namespace copperline
