// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one reader of AmigaOS structures in guest memory: ExecBase, its task, library,
// device and resource lists, the resident modules and every library's jump table. The
// capture stores what it reads in profile.json (rom_symbols and the four stack fields,
// docs/formats/profile-json-rom-symbols.md), the reports name ROM code with it
// ("[Kick]exec/AllocMem", code_namer.h) and the sampler attributes time to tasks with it.
//
// A guest's memory may hold anything: the reader validates every pointer before it
// follows it, walks each list with a node and cycle limit, reads names with a length
// limit, and says in `problems` what it could not read instead of failing
// (docs/amigaos-reader.md).
//
// Structure offsets are the NDK's (exec/nodes.h, lists.h, libraries.h, tasks.h,
// resident.h, execbase.h), which AROS keeps for binary compatibility on the 68000.

#include "profiler/amigaos/memory_view.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace copperline {

class Machine;

// How far the reader goes before it calls a structure garbage.
struct AmigaOsReadLimits {
    unsigned maxListNodes = 512;   // nodes per list
    unsigned maxNameLength = 128;  // bytes before the NUL
    unsigned maxLvos = 1024;       // jump table entries per library (neg size / 6)
    unsigned maxTotalLvos = 32768; // over all libraries and devices
    unsigned maxResidents = 512;   // ResModules entries, extension links included
    unsigned maxProblems = 256;    // further problems are only counted
};

// Something the reader could not read, and where.
struct AmigaOsProblem {
    std::string where;         // "ExecBase", "LibList", "LibList: dos.library", "ResModules", ...
    std::uint32_t address = 0; // the address it concerns
    std::string what;          // what was wrong there
};

// A task from ThisTask, TaskReady or TaskWait (exec/tasks.h).
struct AmigaOsTask {
    std::uint32_t address = 0;
    std::string name;
    bool process = false;      // ln_Type NT_PROCESS (13) rather than NT_TASK (1)
    std::uint8_t state = 0;    // tc_State: TS_RUN 2, TS_READY 3, TS_WAIT 4, ...
    std::int8_t priority = 0;  // ln_Pri
    std::uint32_t spReg = 0;   // tc_SPReg, the saved stack pointer of a task not running
    std::uint32_t spLower = 0; // tc_SPLower
    std::uint32_t spUpper = 0; // tc_SPUpper (one past the stack's top)
};
const char* taskStateName(std::uint8_t state);

// One jump table entry, LVO offset `lvo` (-6, -12, ...) from the library base.
struct AmigaOsLvo {
    int lvo = 0;
    std::uint16_t opcode = 0;            // $4EF9 for JMP abs.l
    std::optional<std::uint32_t> target; // the JMP's address; none when the entry is not JMP abs.l
};

// A library or device (exec/libraries.h), or a resource (its Library fields are read only
// when it has a plausible Library header; no jump table is read for resources).
struct AmigaOsLibrary {
    std::uint32_t base = 0;
    std::string name;
    std::uint8_t type = 0; // ln_Type: NT_LIBRARY 9, NT_DEVICE 3, NT_RESOURCE 8
    std::uint16_t version = 0;
    std::uint16_t revision = 0;
    std::uint16_t negSize = 0;
    std::uint16_t posSize = 0;
    std::string idString;         // lib_IdString when readable
    std::vector<AmigaOsLvo> lvos; // from -6 down to -negSize; may stop early (see problems)
};

// A resident module (exec/resident.h: the RomTag).
struct AmigaOsResident {
    std::uint32_t address = 0;
    std::string name;
    std::string idString;
    std::uint8_t version = 0;
    std::uint8_t type = 0;  // rt_Type: NT_LIBRARY, NT_DEVICE, NT_RESOURCE, NT_TASK, ...
    std::uint8_t flags = 0; // rt_Flags: RTF_AUTOINIT $80, RTF_AFTERDOS $04, ...
    std::int8_t priority = 0;
    std::uint32_t init = 0;    // rt_Init
    std::uint32_t endSkip = 0; // rt_EndSkip
};

// A ROM of the running machine.
struct AmigaOsRomRange {
    std::string name; // "kickstart" or "extension"
    std::uint32_t start = 0;
    std::uint32_t end = 0; // one past the last byte
};

// ExecBase's own fields (exec/execbase.h).
struct AmigaOsExec {
    std::uint32_t base = 0;
    std::uint16_t version = 0;
    std::uint16_t revision = 0;
    std::uint16_t softVer = 0;
    std::uint32_t sysStkLower = 0;
    std::uint32_t sysStkUpper = 0;
    std::uint32_t thisTask = 0; // the raw pointer, plausible or not
    std::uint16_t attnFlags = 0;
    std::uint8_t vblankFrequency = 0;
    std::uint8_t powerSupplyFrequency = 0;
};

// Everything the reader found, at one moment.
struct AmigaOsSnapshot {
    std::vector<AmigaOsRomRange> romRanges;
    std::optional<AmigaOsExec> exec;        // none: ExecBase unreadable (nothing below is read)
    std::optional<AmigaOsTask> thisTask;    // none: ThisTask missing or implausible
    std::vector<AmigaOsTask> readyTasks;    // TaskReady, in list order
    std::vector<AmigaOsTask> waitingTasks;  // TaskWait, in list order
    std::vector<AmigaOsLibrary> libraries;  // LibList
    std::vector<AmigaOsLibrary> devices;    // DeviceList
    std::vector<AmigaOsLibrary> resources;  // ResourceList
    std::vector<AmigaOsResident> residents; // ResModules, in table order
    std::vector<AmigaOsProblem> problems;   // at most maxProblems
    unsigned problemsNotListed = 0;         // those past maxProblems
};

// Reads the AmigaOS structures from `memory`. Never throws on garbage and never reads an
// address `memory` does not back; its work is bounded by `limits`.
AmigaOsSnapshot readAmigaOs(const MemoryView& memory, const AmigaOsReadLimits& limits = {});
// The same through the machine's side-effect-free reads (MachineMemoryView).
AmigaOsSnapshot readAmigaOs(const Machine& machine, const AmigaOsReadLimits& limits = {});

// ExecBase and ThisTask alone, with the same checks and problems (the snapshot's lists,
// residents and ROM ranges stay empty): the running task, for a sampler that asks often.
AmigaOsSnapshot readExecAndThisTask(const MemoryView& memory, const AmigaOsReadLimits& limits = {});

// ExecBase's fields a sampler reads thousands of times a second, without the lists or any
// string: ExecBase believed when it lies in RAM and its ChkBase is its complement (the
// full checks of readAmigaOs read strings), then ThisTask, IDNestCnt (>= 0 inside
// Disable()) and TDNestCnt (>= 0 inside Forbid()).
struct ExecTaskFields {
    std::optional<std::uint32_t> exec; // none: ExecBase unreadable (nothing else is read)
    std::uint32_t thisTask = 0;        // the raw pointer
    bool taskPlausible = false;        // nonzero, even, and a Task's size of RAM
    std::int8_t idNestCnt = -1, tdNestCnt = -1;
};
ExecTaskFields readExecTaskFields(const MemoryView& memory);
// A task's ln_Name with the reader's checks; empty when it has none or it does not read.
std::string readTaskName(const MemoryView& memory, std::uint32_t task, const AmigaOsReadLimits& limits = {});

// One hunk of a loaded program: where its first byte is and how many bytes it has (the
// segment's allocation less its size longword and link).
struct AmigaOsSegment {
    std::uint32_t base = 0;
    std::uint32_t size = 0;
};

// A program a CLI process runs (dos/dosextens.h: Process.pr_CLI -> cli_Module), with the
// command name the shell gave it.
struct AmigaOsProgram {
    std::uint32_t task = 0;
    std::string taskName;
    std::string command;        // cli_CommandName
    std::uint32_t segList = 0;  // the BPTR
    std::vector<AmigaOsSegment> segments;
};

// The segment list a BPTR starts (LoadSeg's result): each segment is [size][next BPTR]
// [hunk data...], the size longword 4 bytes before the BPTR's address. Stops at the end of
// the list, at `maxSegments`, at a loop, or at a segment `memory` does not back.
std::vector<AmigaOsSegment> readSegList(const MemoryView& memory, std::uint32_t bptr, unsigned maxSegments = 256);
// The programs of the snapshot's CLI processes (ThisTask first, then the ready and waiting
// tasks) that have a cli_Module.
std::vector<AmigaOsProgram> readCliPrograms(const MemoryView& memory, const AmigaOsSnapshot& snapshot);

// profile.json's "rom_symbols" value (docs/formats/profile-json-rom-symbols.md).
nlohmann::json romSymbolsJson(const AmigaOsSnapshot& snapshot);
// Reads a "rom_symbols" value back: ROM ranges, residents, libraries, devices, resources
// and problems (what romSymbolsJson writes), enough for codeModulesFromSnapshot. Of ExecBase only the
// base comes back, and no tasks: stackFieldsJson of the result means nothing (profile.json
// has the stack fields of its own). Throws std::invalid_argument, naming the field, on a
// value of the wrong shape.
AmigaOsSnapshot romSymbolsFromJson(const nlohmann::json& romSymbols);

// profile.json's four stack fields, as an object to merge into it:
// {"systemStackLower", "systemStackUpper", "stackLower", "stackUpper"}. All four are null
// when ExecBase is unreadable; the two task fields are 0 when ThisTask is missing or
// implausible (source document, "profile.json").
nlohmann::json stackFieldsJson(const AmigaOsSnapshot& snapshot);

} // namespace copperline
