// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How a fuzz target reports a broken invariant: its name, what broke and, when given, the
// bytes concerned (at most 300, unprintable ones as \xNN), on stderr; then abort, as libFuzzer
// and tests/fuzz/replay.cpp expect.

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace copperline::testing {

[[noreturn]] inline void fuzzFail(const char* target, const char* what, std::string_view detail = {}) {
    std::fprintf(stderr, "%s: %s", target, what);
    if (!detail.empty()) {
        std::fprintf(stderr, ": \"");
        for (const char c : detail.substr(0, 300)) {
            const auto u = static_cast<unsigned char>(c);
            if (std::isprint(u))
                std::fputc(c, stderr);
            else
                std::fprintf(stderr, "\\x%02x", u);
        }
        std::fprintf(stderr, "\"");
    }
    std::fprintf(stderr, "\n");
    std::abort();
}

} // namespace copperline::testing
