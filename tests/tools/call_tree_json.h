// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// strip.tree's replies in tests: Total = Self + the children's, at every node.

#include <nlohmann/json.hpp>

#include <QtTest>

namespace copperline::testing {

inline void checkTreeSums(const nlohmann::json& n) {
    std::uint64_t sum = n.value("self_cck", 0ull);
    for (const nlohmann::json& c : n["children"]) {
        checkTreeSums(c);
        sum += c.value("total_cck", 0ull);
    }
    QCOMPARE(n.value("total_cck", 0ull), sum);
}

} // namespace copperline::testing
