// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the unwind table's reader (docs/testing.md, docs/formats/unwind-table.md):
// the first four bytes are the text size the table is read for (big-endian; 0 takes one row
// per two bytes of the table), the rest are the six-byte rows. parseUnwindTable either returns
// a table with a row for every two bytes of its text, each with a CFA register the unwinder
// knows (A5 or A7), that writes back to rows that read again to the same table, or throws its
// DebugInfoError.

#include "tests/fuzz/fuzz_fail.h"
#include "profiler/debuginfo/debug_info.h"
#include "profiler/debuginfo/unwind_table.h"

#include <cstdio>
#include <cstdlib>
#include <span>

using namespace copperline;

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
    copperline::testing::fuzzFail("unwind_table_fuzzer", what, detail);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    // Text sizes up to 16 MiB, so that a short input can claim a long text.
    const std::uint32_t textSize = (std::uint32_t(data[1]) << 16 | std::uint32_t(data[2]) << 8 | data[3]) &
                                   (data[0] & 0x80 ? 0xFFFFFFu : 0xFFFu);
    const std::span<const std::uint8_t> rows(data + 4, size - 4);
    UnwindTable t;
    try {
        t = parseUnwindTable(rows, textSize);
    } catch (const DebugInfoError& e) {
        if (std::string_view(e.what()).size() > 400) fail("a refusal that echoes its input");
        return 0;
    }
    if (textSize && t.textSize != textSize) fail("a table for another text size");
    if (t.rows.size() != (std::size_t(t.textSize) + 1) / 2) fail("rows that disagree with the text size");
    for (const UnwindRow& r : t.rows)
        if (r.cfaRegister != UnwindRow::kA5 && r.cfaRegister != UnwindRow::kA7) fail("a CFA register the unwinder cannot use");
    if (t.textSize && (!t.at(t.textSize - 1) || t.at(t.textSize))) fail("at() disagrees with the text size");
    // What was read writes back, one row per two bytes, and reads again to the same.
    std::vector<std::uint8_t> again;
    try {
        again = t.bytes();
    } catch (const DebugInfoError&) {
        fail("a table read from rows cannot be written as rows");
    }
    if (again.size() != t.rows.size() * UnwindTable::kRowBytes) fail("written rows of the wrong size");
    const UnwindTable back = parseUnwindTable(again, t.textSize);
    if (back.textSize != t.textSize || back.rows != t.rows) fail("a round trip that differs");
    return 0;
}
